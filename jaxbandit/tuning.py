"""Tune a policy's parameters by stochastic gradient descent (optax) on the simulated regret, under a privacy budget.

Under a budget (a GDP budget η_B, or an (ε, δ) budget turned into one exactly by `jaxbandit.accounting.gdp.eta_for`)
the policy's own accountant (`jaxbandit.accounting.Accountant`) decides: its calibrated parameter sits on the
budget's boundary (`Accountant.boundary_values`) and the one it leaves free (``Accountant.tuned``) is tuned. For
modified Thompson sampling (seed 001, Algorithm 2) that is c = c*(b), the smallest c ≥ 1 meeting the budget (the
paper's accounting η = sqrt(T/(c(b+1))) or the tight one, its ``accounting`` option), and b, in the coordinate
u = log(b + 1) (the regret's U-shape in b spans orders of magnitude). b is an integer: the smoothed estimator
rounds e^u − 1 at random (a uniform shared by both points of a pair) and puts every simulated point on the boundary
exactly; the score estimator relaxes b as in `jaxbandit.gradients`. The answer is b rounded from the average of the
last quarter of the iterates (Polyak–Ruppert) and its calibrated c (`Accountant.calibrate`), so (b, c) meets the
budget exactly (η = η_B, or η < η_B where c*(b) is raised to 1).

Any float parameter of a policy tunes the same way without a budget (``param=``), e.g. ε-greedy's ε, in the
coordinate logit(ε) (bounded parameters) or log(x) (positive ones).

Estimators (`jaxbandit.gradients`): ``"smoothed"`` (default; antithetic pairs with common random numbers, the
gradient of the regret averaged over a window of half-width ``sigma`` in u) or ``"score"`` (unbiased, needs the
policy's ``log_prob``). Each step simulates fresh runs (a seed per step), so the optimiser sees independent noise.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from typing import Callable, Mapping

import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, gradients
from jaxbandit import spec as specs
from jaxbandit.accounting import gdp
from jaxbandit.accounting.accountants import Budget
from jaxbandit.simulation import MAX_SEED
from jaxbandit.types import SimParams

__all__ = ["tune", "Tuned", "grid", "Grid", "ESTIMATORS", "ACCOUNTINGS"]

#: The gradient estimators `tune` can use (`jaxbandit.gradients`).
ESTIMATORS = ("smoothed", "score")
#: The accountings of modified TS that `tune` takes, the paper's η or the tight one.
ACCOUNTINGS = ("paper", "tight")
TUNED_FORMAT, TUNED_VERSION = "jaxbandit-tuned", 1


@dataclasses.dataclass
class Tuned:
    """The outcome of `tune`.

    Attributes:
      params: the tuned policy parameters, e.g. ``{"b": 1890, "c": 52.9}`` (b an integer meeting the budget with c).
      eta, epsilon, delta: the privacy of ``params`` (η-GDP and the (ε, δ)-DP it implies), or None without a budget.
      agent_steps: simulated agent-steps the optimisation spent (runs × horizon over every step, pilots included).
      trace: one dict per optimisation step: the coordinate ``u`` and the parameters at it, the regret estimate at
        it with its standard error, and the gradient in u with its standard error.
      config: the request (environment, policy, budget, horizon, runs, steps, seed, estimator, ...).
      seconds: wall time.
      warnings: what the answer's user should know (e.g. that the budget forces near-uniform play, or that the
        tuner did not converge within its steps).
      converged: whether the last steps' gradients are consistent with a stationary point (`convergence`).
      convergence: the test's numbers (`_convergence`): ``window`` (steps), ``grad`` and ``grad_se`` (their mean
        gradient in u and its standard error), ``z``, ``gain_per_window`` (|grad|·σ) against ``regret_se``,
        ``at_bound`` (the iterate at an end of its range, pushed outward).
    """

    params: dict
    eta: float | None
    epsilon: float | None
    delta: float | None
    agent_steps: int
    trace: list
    config: dict
    seconds: float
    warnings: list = dataclasses.field(default_factory=list)
    converged: bool | None = None
    convergence: dict = dataclasses.field(default_factory=dict)

    @property
    def b(self):
        return self.params.get("b")

    @property
    def c(self):
        return self.params.get("c")

    def to_dict(self) -> dict:
        out = {"format": TUNED_FORMAT, "version": TUNED_VERSION, "params": self.params}
        if self.eta is not None:
            out.update({k: self.params[k] for k in ("b", "c") if k in self.params})
            out.update(eta=self.eta, epsilon=self.epsilon, delta=self.delta)
        out.update(agent_steps=self.agent_steps, seconds=self.seconds, config=self.config, trace=self.trace,
                   converged=self.converged, convergence=self.convergence, warnings=self.warnings)
        return out

    def save(self, path: str) -> None:
        """Write `to_dict` as JSON (written to a temporary file, then renamed: never half a file)."""
        checks.writable_file("path", path)
        with open(path + ".tmp", "w") as f:
            json.dump(self.to_dict(), f, indent=1)
        os.replace(path + ".tmp", path)

    def __repr__(self) -> str:
        priv = "" if self.eta is None else f", eta={self.eta:.4g}, epsilon={self.epsilon:.4g}, delta={self.delta:.3g}"
        return (f"Tuned(params={self.params}{priv}, agent_steps={self.agent_steps:.3g}, steps={len(self.trace)}, "
                f"converged={self.converged})")


def _budget(eta_budget, epsilon, delta):
    """η_B from the budget as given; (η_B, δ for reporting ε)."""
    if eta_budget is not None and (epsilon is not None or delta is not None):
        raise ValueError("give the budget either as eta_budget or as (epsilon, delta), not both")
    if eta_budget is not None:
        checks.in_range("eta_budget", eta_budget, 0.0, low_open=True, high_open=True)
        return float(eta_budget), None
    if epsilon is None and delta is None:
        return None, None
    if epsilon is None or delta is None:
        raise ValueError("an (epsilon, delta) budget needs both epsilon and delta")
    checks.in_range("epsilon", epsilon, 0.0, low_open=True, high_open=True)
    checks.in_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    import jax
    with jax.enable_x64(True):  # the exact conversion, in float64
        return float(gdp.eta_for(epsilon, delta)), float(delta)


class _BudgetSpace:
    """A policy on a budget's boundary: its accountant's free parameter in u = log(x + 1), its calibrated one
    on the boundary (modified TS: b and c = c*(b))."""

    def __init__(self, spec, budget: Budget):
        self.spec, self.budget = spec, budget
        self.accountant = spec.policy.accountant
        self.free, free_range = self.accountant.tuned
        self.calibrated = self.accountant.calibrated
        self.horizon, self.num_arms = spec.horizon, spec.env.num_arms
        self.b_max = int(free_range(self.horizon, self.num_arms)[1])
        self.bounds = (0.0, math.log(self.b_max + 1))
        self.names = (self.free, self.calibrated)

    def c_star(self, b):
        """The calibrated parameter on the boundary at a (relaxed) value ``b`` of the free one (float64)."""
        params = self.spec.params.policy._replace(**{self.free: b})
        return float(self.accountant.boundary_values(params, self.horizon, self.num_arms, self.budget)[
            self.calibrated])

    def c_star_slope(self, b):
        """dc*/db by a central difference of the boundary (0 where c* is flat, e.g. raised to its floor)."""
        h = 1e-4 * max(1.0, b)
        lo = max(b - h, 0.0)
        return (self.c_star(b + h) - self.c_star(lo)) / (b + h - lo)

    def beta(self, u):
        return float(np.clip(math.expm1(float(u[0])), 0.0, self.b_max))

    def values(self, u, rounding):
        b = min(math.floor(self.beta(u) + rounding), self.b_max)
        return {self.free: b, self.calibrated: self.c_star(b)}

    def describe(self, u):
        beta = self.beta(u)
        return {self.free: beta, self.calibrated: self.c_star(beta)}

    def final(self, u):
        """The answer: the rounded free parameter, the calibrated one as stored, meeting the budget
        (`Accountant.calibrate`)."""
        b = int(round(self.beta(u)))
        params = self.spec.params.policy._replace(**{self.free: jnp.asarray(b, jnp.int32)})
        calibrated = self.accountant.calibrate(params, self.horizon, self.num_arms, self.budget)
        return {self.free: b, self.calibrated: checks.as_written(getattr(calibrated, self.calibrated))}

    score_at = describe

    def chain(self, u):
        """Weights w with d/du = (∂/∂b, ∂/∂c) · w at c = c*(β): (∂_b + ∂_c c*'(β)) (β + 1)."""
        beta = self.beta(u)
        return np.array([[beta + 1.0], [self.c_star_slope(beta) * (beta + 1.0)]])


class _ParamSpace:
    """One float parameter in logit (bounded) or log (positive) coordinates."""

    def __init__(self, name, low, high):
        self.name, self.low, self.high = name, low, high
        self.names = (name,)
        self.bounded = math.isfinite(high)
        self.bounds = (-12.0, 12.0) if self.bounded else (-30.0, 30.0)

    def x(self, u):
        v = float(u[0])
        if self.bounded:
            return self.low + (self.high - self.low) / (1 + math.exp(-v))
        return self.low + math.exp(v)

    def to_u(self, x):
        if self.bounded:
            f = (x - self.low) / (self.high - self.low)
            return math.log(f / (1 - f))
        return math.log(x - self.low)

    def values(self, u, rounding):
        return {self.name: self.x(u)}

    describe = final = score_at = lambda self, u: {self.name: self.x(u)}

    def chain(self, u):
        x = self.x(u)
        return np.array([[(x - self.low) * (self.high - x) / (self.high - self.low) if self.bounded
                          else x - self.low]])


def _setup(env, policy, env_params, policy_params, policy_options, privatizer, privatizer_params, eta_budget,
           epsilon, delta, accounting, param, bounds, horizon, init):
    """The resolved spec (once), the coordinate space, the budget, the δ to report, u0."""
    horizon = checks.positive_int("horizon", horizon)
    checks.known_name("accounting", accounting, ACCOUNTINGS)
    eta_b, report_delta = _budget(eta_budget, epsilon, delta)
    options = dict(policy_options or {})
    if isinstance(policy, str) and "accounting" in _option_names(policy):
        options.setdefault("accounting", accounting)
    elif accounting != "paper":
        raise ValueError(f"accounting={accounting!r} is an option of the private Thompson policies; policy "
                         f"{getattr(policy, 'name', policy)!r} has none")
    spec = specs.resolve(env, policy, privatizer, env_params=env_params, policy_params=policy_params,
                         policy_options=options, privatizer_params=privatizer_params, horizon=horizon)
    pol_o, base = spec.policy, spec.params
    if eta_b is not None:
        accountant = pol_o.accountant
        if accountant is None or accountant.calibrated is None or accountant.tuned is None:
            raise ValueError(f"a privacy budget tunes a policy whose accountant calibrates one parameter to it and "
                             f"leaves another free (modified-thompson: b, with c = c*(b)); policy {pol_o.name!r} has "
                             "no such accountant: tune one of its parameters with param= and no budget")
        free, calibrated = accountant.tuned[0], accountant.calibrated
        if param not in (None, free):
            raise ValueError(f"under a budget the tuned parameter is {free} ({calibrated} follows the budget), got "
                             f"param={param!r}")
        fixed = sorted(set(policy_params or {}) & {free, calibrated})
        if fixed:
            raise ValueError(f"policy_params fixes {', '.join(fixed)}, which the tuner sets under a budget ({free} "
                             f"tuned, {calibrated} on the budget's boundary): leave them out")
        space = _BudgetSpace(spec, Budget(mu=eta_b))
        if init is not None:
            checks.in_range("init", init, 0.0, space.b_max)
        u0 = math.log1p(init) if init is not None else sum(space.bounds) / 2
    else:
        if param is None:
            raise ValueError("give a budget (eta_budget, or epsilon and delta) to tune modified-thompson's (b, c), or "
                             f"param= to tune one parameter of {pol_o.name!r} "
                             f"({', '.join(pol_o.default_params._fields) or 'it has none'})")
        fields = pol_o.default_params._fields
        if param not in fields:
            raise ValueError(f"policy {pol_o.name!r} has no parameter {param!r}; its parameters: "
                             f"{', '.join(fields) or 'none'}")
        if np.issubdtype(np.asarray(getattr(pol_o.default_params, param)).dtype, np.integer):
            raise ValueError(f"parameter {param!r} of {pol_o.name!r} is an integer: tune() relaxes one only with a "
                             "budget (modified-thompson's b); use jaxbandit.gradients.score_gradient")
        low, high = bounds if bounds is not None else ((0.0, 1.0) if param == "epsilon" else (0.0, math.inf))
        if not low < high:
            raise ValueError(f"bounds={bounds} must be (low, high) with low < high")
        space = _ParamSpace(param, float(low), float(high))
        if init is not None:
            checks.in_range("init", init, low, high, low_open=True, high_open=True)
        current = float(getattr(base.policy, param))
        if init is not None:
            u0 = space.to_u(init)
        else:  # the policy's value where it lies inside the range, else the range's middle (logit 0) or low + 1
            u0 = space.to_u(current) if low < current < high else 0.0

    return spec, space, eta_b, report_delta, u0


def _option_names(name):
    from jaxbandit import policies
    return policies.option_names(name)


def _point(base, space):
    def point(u, rounding):
        values = space.values(u, rounding)
        inner = base.policy._replace(**{k: jnp.asarray(v, getattr(base.policy, k).dtype) for k, v in values.items()})
        return SimParams(base.env, inner, base.privatizer)
    return point


def tune(env, policy="modified-thompson", *, env_params: Mapping | None = None, policy_params: Mapping | None = None,
         policy_options: Mapping | None = None, privatizer=None, privatizer_params: Mapping | None = None,
         eta_budget: float | None = None,
         epsilon: float | None = None, delta: float | None = None, accounting: str = "paper",
         param: str | None = None, bounds: tuple | None = None, horizon: int, runs: int = 32, steps: int = 40,
         seed: int = 0, estimator: str = "smoothed", sigma: float = 0.15, learning_rate: float = 0.25,
         init: float | None = None, pilot: int = 6, progress: bool = False,
         callback: Callable | None = None) -> Tuned:
    """Tune a policy's parameters by gradient on the simulated regret (module docstring).

    Args:
      env, env_params, policy, policy_params, policy_options, privatizer, privatizer_params: as for
        `jaxbandit.simulate`.
      eta_budget: a GDP budget η_B (modified-thompson: tunes b with c = c*(b) on the budget's boundary).
      epsilon, delta: an (ε, δ)-DP budget instead, converted exactly to η_B = `gdp.eta_for` (ε, δ).
      accounting: ``"paper"`` (η = sqrt(T/(c(b+1))), seed 001 Lemma 5) or ``"tight"``
        (`jaxbandit.accounting.thompson` module docstring): the private Thompson policies' ``accounting`` option.
      param: the parameter to tune without a budget (default "b" for modified-thompson with a budget; required
        otherwise), e.g. ``"epsilon"`` of epsilon-greedy. bounds: its range (default (0, 1) for ``"epsilon"``,
        else (0, inf)).
      horizon: T. runs: runs per simulated point per step. steps: optimisation steps. seed: root of every draw
        (step i simulates seed-derived keys no other step uses).
      estimator: ``"smoothed"`` or ``"score"`` (`jaxbandit.gradients`). sigma: half-width of the smoothing window
        in u. learning_rate: Adam's step size in u (cosine-decayed to a tenth over the steps).
      init: the starting value of b (or of ``param``); default: under a budget, the best of ``pilot`` values of b
        evenly spaced in log(b + 1) over (0, b_max) (b_max the largest b with b·K < T), simulated with ``runs``
        runs each and common random numbers (``pilot=0``: the middle of that range); else the policy's value of
        ``param`` (its default, or ``policy_params``') where it lies inside the range, else the middle of the
        range in its coordinate.
      pilot: the number of pilot values of b (above); 0 for none.
      progress: print a line per step. callback: called with the trace (list of dicts) after every step.

    Returns:
      `Tuned`, with ``converged`` from the convergence test (`convergence`) and a warning where it failed.

    Raises:
      ValueError: on bad input (a non-positive budget, an infeasible one, an unknown estimator or accounting, ...),
        before any compilation.
    """
    import optax

    t0 = time.perf_counter()
    runs = checks.positive_int("runs", runs, minimum=2)
    steps = checks.positive_int("steps", steps)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    pilot = checks.positive_int("pilot", pilot, minimum=0)
    checks.known_name("estimator", estimator, ESTIMATORS)
    checks.in_range("sigma", sigma, 0.0, low_open=True, high_open=True)
    checks.in_range("learning_rate", learning_rate, 0.0, low_open=True, high_open=True)
    spec, space, eta_b, report_delta, u0 = _setup(
        env, policy, env_params, policy_params, policy_options, privatizer, privatizer_params, eta_budget, epsilon,
        delta, accounting, param, bounds, horizon, init)
    horizon, K, pol_o, base = spec.horizon, spec.env.num_arms, spec.policy, spec.params
    if estimator == "score" and pol_o.log_prob is None:
        raise ValueError(f"estimator='score' needs the policy's log_prob, which {pol_o.name!r} does not expose: use "
                         "estimator='smoothed'")

    point = _point(base, space)
    spec.with_points([point(np.array([u0]), 0.5)])  # check the first point before anything compiles

    seeds = np.random.SeedSequence(seed).generate_state(steps + 1)
    spent, pilot_row = 0, None
    if pilot and eta_b is not None and init is None:  # start at the best of a coarse grid in u
        us = np.linspace(*space.bounds, pilot + 2)[1:-1]
        points = [point(np.array([v]), 0.5) for v in us]
        points += points[-1:] * (len(points) % 2)
        pilot_seed = int(seeds[steps]) % (MAX_SEED + 1)
        # in pairs: the smoothed gradient's compiled program (two points), one seed: common random numbers
        regret = np.concatenate([gradients.final_regret(spec, points[i:i + 2], runs=runs, seed=pilot_seed)
                                 for i in range(0, len(points), 2)])[:pilot]
        spent += regret.size * horizon
        u0 = float(us[int(np.argmin(regret.mean(1)))])
        pilot_row = {"u": us.tolist(), "values": [space.values(np.array([v]), 0.5)[space.names[0]] for v in us],
                     "regret": regret.mean(1).tolist()}
        if progress:
            print(f"pilot: {pilot} values of {space.names[0]}, {runs} runs each: start at "
                  f"{space.names[0]}={space.beta(np.array([u0])):.4g}", flush=True)

    schedule = optax.cosine_decay_schedule(learning_rate, steps, alpha=0.1)
    opt = optax.adam(schedule)
    u = jnp.asarray([u0], jnp.float32)
    state = opt.init(u)
    trace, iterates = [], []
    for i in range(steps):
        here = np.asarray(u, np.float64)
        step_seed = int(seeds[i]) % (MAX_SEED + 1)
        if estimator == "smoothed":
            g = gradients.smoothed_gradient(spec, point, here, sigma=sigma, runs=runs, seed=step_seed,
                                            rng=np.random.default_rng(step_seed))
            grad, grad_se = g.grad, g.grad_se
        else:
            at = space.score_at(here)
            g = gradients.score_gradient(spec, at=at, runs=runs, seed=step_seed)
            samples = g.samples @ space.chain(here)
            grad, grad_se = samples.mean(0), samples.std(0, ddof=1) / math.sqrt(len(samples))
        spent += g.agent_steps
        row = {"step": i, "u": float(here[0]), **{k: float(v) for k, v in space.describe(here).items()},
               "regret": g.value, "regret_se": g.value_se, "grad": float(grad[0]), "grad_se": float(grad_se[0]),
               "agent_steps": spent}
        trace.append(row)
        iterates.append(here)
        if progress:
            shown = ", ".join(f"{k}={row[k]:.4g}" for k in space.names)
            print(f"step {i + 1}/{steps}: {shown}, regret {g.value:.4g} ± {g.value_se:.2g}, "
                  f"gradient {grad[0]:.3g} ± {grad_se[0]:.2g}", flush=True)
        if callback is not None:
            callback(trace)
        updates, state = opt.update(jnp.asarray(grad, jnp.float32), state, u)
        u = jnp.clip(optax.apply_updates(u, updates), *space.bounds)
    iterates.append(np.asarray(u, np.float64))
    final_u = np.mean(iterates[-max(1, len(iterates) // 4):], axis=0)  # the last quarter: past Adam's overshoot
    params = space.final(final_u)
    eta = eps = dlt = None
    warned = _near_uniform(spec, trace)
    convergence = _convergence(trace, space, final_u, sigma)
    if not convergence["converged"]:
        warned.append(_not_converged(convergence, space, steps, learning_rate))
    if eta_b is not None:  # the claim of the answer, from the policy's accountant (float64)
        answer = base.policy._replace(**{k: jnp.asarray(v, getattr(base.policy, k).dtype) for k, v in params.items()})
        claim = pol_o.accountant.guarantee(answer, horizon, K)
        dlt = 1e-6 if report_delta is None else report_delta
        eta, eps = claim.mu, claim.epsilon_at(dlt)
    config = {"env": env if isinstance(env, str) else spec.env.name, "env_params": _plain(env_params),
              "policy": pol_o.name, "policy_params": _plain(policy_params), "policy_options": dict(pol_o.options),
              "privatizer": privatizer if isinstance(privatizer, str) or privatizer is None else spec.privatizer.name,
              "eta_budget": eta_b, "budget_epsilon": epsilon, "budget_delta": delta, "accounting": accounting,
              "param": space.names[0], "horizon": horizon, "runs": runs, "steps": steps,
              "seed": seed, "estimator": estimator, "sigma": sigma, "learning_rate": learning_rate,
              "init": init, "pilot": pilot_row, "final_u": float(final_u[0]),
              "range": [0, space.b_max] if eta_b is not None else [space.low, space.high]}
    return Tuned(params, eta, eps, dlt, int(spent), trace, config, time.perf_counter() - t0, warned,
                 convergence.pop("converged"), convergence)


CONVERGENCE_Z = 2.0  # a mean gradient this many standard errors from 0 over the last steps: not converged


def _convergence(trace, space, final_u, sigma) -> dict:
    """The convergence test, over the last quarter of the steps (at least 3, or all). Converged where any of:

    - stationary: the mean of the gradient estimates in u is within `CONVERGENCE_Z` standard errors of 0 (each
      step simulates fresh runs, so the estimates are independent: SE = sqrt(Σ se_i²)/n);
    - flat: the mean gradient times the smoothing half-width σ, the regret the tuner could still gain by moving
      one window, is below the standard error of its own regret estimates (mean over the window): what is left
      is below what it can resolve;
    - at a bound: the answer sits at an end of its range with the gradient pushing it outward.
    """
    window = trace[-max(3, len(trace) // 4):]
    g = float(np.mean([row["grad"] for row in window]))
    se = float(math.sqrt(sum(row["grad_se"] ** 2 for row in window)) / len(window))
    z = g / se if se > 0 else (0.0 if g == 0 else math.copysign(math.inf, g))
    regret_se = float(np.mean([row["regret_se"] for row in window]))
    low, high = space.bounds
    u = float(final_u[0])
    at_bound = bool((u <= low + 1e-3 and g > 0) or (u >= high - 1e-3 and g < 0))
    flat = abs(g) * sigma <= regret_se
    return {"converged": bool(abs(z) <= CONVERGENCE_Z or flat or at_bound), "window": len(window), "grad": g,
            "grad_se": se, "z": z, "gain_per_window": abs(g) * sigma, "regret_se": regret_se, "at_bound": at_bound}


def _not_converged(convergence, space, steps, learning_rate) -> str:
    """The warning of a run that did not converge (also raised as a UserWarning)."""
    import warnings
    name = space.names[0]
    way = "up" if convergence["grad"] < 0 else "down"
    message = (f"the tuner did not converge within its {steps} steps: over the last {convergence['window']} the "
               f"gradient averaged {convergence['grad']:.3g} ± {convergence['grad_se']:.2g} (z = "
               f"{convergence['z']:.1f}; about {convergence['gain_per_window']:.3g} of regret per smoothing window, "
               f"above its regret estimates' standard error {convergence['regret_se']:.2g}), so {name} would still "
               f"move {way}; give more steps, a larger learning_rate (now {learning_rate:g}) or an init nearer the "
               "optimum")
    warnings.warn(message, UserWarning, stacklevel=3)
    return message


UNIFORM_FRACTION = 0.9  # a tuned point whose regret is this close to uniform play's is reported as (near-)uniform


def _near_uniform(spec, trace) -> list[str]:
    """A warning (also raised as a UserWarning) where the last quarter of the steps estimates a regret within
    `UNIFORM_FRACTION` of uniform play's, T·mean(Δ): a budget so tight that the calibrated parameter forces
    (near-)uniform play (e.g. modified TS's c in the billions), which a user should hear of rather than read off the
    numbers."""
    import warnings
    means = np.asarray(spec.env.means(spec.params.env), np.float64)
    uniform = spec.horizon * float(np.mean(means.max() - means))
    late = trace[-max(1, len(trace) // 4):]
    regret = float(np.mean([row["regret"] for row in late]))
    if uniform <= 0 or regret < UNIFORM_FRACTION * uniform:
        return []
    message = (f"the tuned point plays (near-)uniformly: its regret {regret:.4g} is {regret / uniform:.0%} of uniform "
               f"play's {uniform:.4g} (T·mean gap); the budget (or the parameter's range) leaves no room to learn")
    warnings.warn(message, UserWarning, stacklevel=3)
    return [message]


def _plain(mapping):
    if mapping is None:
        return None
    return {k: np.asarray(v).tolist() for k, v in dict(mapping).items()}



@dataclasses.dataclass
class Grid:
    """The regret over a grid of the tuned parameter (`grid`), with c on the budget's boundary.

    Attributes:
      values: the grid of b (or of ``param``); params: the policy parameters at each point (b and c).
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
         privatizer=None, privatizer_params=None, eta_budget=None, epsilon=None, delta=None, accounting="paper",
         param=None, bounds=None, horizon: int, runs: int = 200, seed: int = 0) -> Grid:
    """Simulate the pseudo-regret at the horizon at every value of b (c = c*(b) on the budget's boundary) or of
    ``param``, ``runs`` runs each with common random numbers across the grid: the exhaustive search `tune` is
    checked against. Arguments as for `tune`; ``values`` the grid (b: integers in [0, b_max])."""
    spec, space, eta_b, _, _ = _setup(
        env, policy, env_params, policy_params, policy_options, privatizer, privatizer_params, eta_budget, epsilon,
        delta, accounting, param, bounds, horizon, None)
    runs = checks.positive_int("runs", runs, minimum=2)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    values = np.asarray(values, np.float64)
    if values.ndim != 1 or len(values) == 0:
        raise ValueError(f"values must be a non-empty list, got {checks._fmt(values)}")
    if eta_b is not None:
        checks.in_range("values", values, 0.0, space.b_max)
        if np.any(values != np.round(values)):
            raise ValueError(f"values of b must be integers, got {checks._fmt(values)}")
        us = [np.array([math.log1p(v)]) for v in values]
    else:
        checks.in_range("values", values, space.low, space.high, low_open=True, high_open=True)
        us = [np.array([space.to_u(v)]) for v in values]
    point = _point(spec.params, space)
    points = [point(u, 0.5) for u in us]  # 0.5: round to nearest (e^log1p(b) − 1 may fall below b)
    params = [space.values(u, 0.5) for u in us]
    regret = gradients.final_regret(spec, points, runs=runs, seed=seed)
    return Grid(values, params, regret, spec.horizon * runs * len(points))
