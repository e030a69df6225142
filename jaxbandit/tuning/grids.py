"""`grid`: the regret at every value of the tuned parameter, the exhaustive search `jaxbandit.tune` is checked
against; `grid_values`, a grid over the range a `Tuned` searched (``jaxbandit tune --grid-points``)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from jaxbandit import checks, gradients
from jaxbandit.simulation import MAX_SEED
from jaxbandit.tuning.space import resolve

__all__ = ["grid", "Grid", "grid_values"]


@dataclasses.dataclass
class Grid:
    """The regret over a grid of the tuned parameter (`grid`), under a budget with the calibrated parameter on the
    budget's boundary.

    Attributes:
      values: the grid of the tuned parameter (b, or ``param``); params: the policy parameters at each point (the
        tuned one and the calibrated one, e.g. b and c).
      regret: f[points, runs] pseudo-regret at the horizon (common random numbers across points).
      agent_steps: simulated agent-steps.
    """

    values: np.ndarray
    params: list
    regret: np.ndarray
    agent_steps: int

    @property
    def mean(self):
        return self.regret.mean(1)

    @property
    def se(self):
        return self.regret.std(1, ddof=1) / math.sqrt(self.regret.shape[1])

    def best(self) -> int:
        """Index of the point with the lowest mean regret."""
        return int(np.argmin(self.mean))

    def __repr__(self) -> str:
        i = self.best()
        return (f"Grid({len(self.values)} values {self.values[0]:.4g}..{self.values[-1]:.4g}, "
                f"{self.regret.shape[1]} runs each; best {self.values[i]:.4g}: regret {self.mean[i]:.5g} ± "
                f"{self.se[i]:.2g}; {self.agent_steps:.3g} agent-steps)")


def grid(env, policy="modified-thompson", *, values, env_params=None, policy_params=None, policy_options=None,
         privatizer=None, privatizer_params=None, budget=None, eta_budget=None, epsilon=None, delta=None,
         accounting="paper", param=None, bounds=None, horizon: int, runs: int = 200, seed: int = 0) -> Grid:
    """Simulate the pseudo-regret at the horizon at every value of the tuned parameter (under a budget, the
    calibrated one on the budget's boundary at each: c = c*(b)), ``runs`` runs each with common random numbers
    across the grid. Arguments as for `jaxbandit.tune`; ``values`` the grid (an integer parameter's: integers in its
    range, b in [0, b_max])."""
    spec, space, _, _, _ = resolve(
        env, policy, env_params=env_params, policy_params=policy_params, policy_options=policy_options,
        privatizer=privatizer, privatizer_params=privatizer_params, budget=budget, eta_budget=eta_budget,
        epsilon=epsilon, delta=delta, accounting=accounting, param=param, bounds=bounds, horizon=horizon, start=False)
    runs = checks.positive_int("runs", runs, minimum=2)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    values = np.asarray(values, np.float64)
    if values.ndim != 1 or len(values) == 0:
        raise ValueError(f"values must be a non-empty list, got {checks._fmt(values)}")
    if space.integer:
        checks.in_range("values", values, space.low, space.high)
        if np.any(values != np.round(values)):
            raise ValueError(f"values of {space.free} must be integers, got {checks._fmt(values)}")
    else:
        checks.in_range("values", values, space.low, space.high, low_open=True, high_open=True)
    us = [np.array([space.to_u(v)]) for v in values]
    points = [space.point(u, 0.5) for u in us]  # 0.5: round to nearest (e^log1p(b) − 1 may fall below b)
    params = [space.values(u, 0.5) for u in us]
    regret = gradients.final_regret(spec, points, runs=runs, seed=seed)
    return Grid(values, params, regret, spec.horizon * runs * len(points))


def grid_values(tuned, points: int) -> np.ndarray:
    """``points`` values of the parameter a `Tuned` tuned, over the range it searched: an integer's (b) log-spaced
    in log(x − low + 1) and rounded; a float's log-spaced around its trajectory (a third of its least value to three
    times its largest, inside its range)."""
    c = tuned.config
    name, (low, high) = c["param"], c["range"]
    if isinstance(tuned.params[name], int):
        return np.unique(np.round(low + np.expm1(np.linspace(0.0, np.log1p(high - low), points)))).astype(int)
    xs = np.array([row[name] for row in tuned.trace])
    top = xs.max() * 3
    if math.isfinite(high):
        top = min(top, high - 1e-6 * (high - low))
    return np.geomspace(low + (xs.min() - low) / 3, top, points)
