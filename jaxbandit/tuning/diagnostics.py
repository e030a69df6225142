"""What the user of a tuned point should know: whether the tuner converged, and whether the point plays
(near-)uniformly. `near_uniform` is the one test and message of the latter, for the tuner's answer and for the
frontier's evaluated rows (`jaxbandit.comparison`)."""
from __future__ import annotations

import math
import warnings

import numpy as np

__all__ = ["UNIFORM_FRACTION", "CONVERGENCE_Z", "near_uniform", "convergence"]

#: A point whose regret is this fraction of uniform play's, T·mean(Δ), or more is reported as playing
#: (near-)uniformly.
UNIFORM_FRACTION = 0.9
#: The tuner has not converged where its mean gradient over the last steps is this many standard errors from 0.
CONVERGENCE_Z = 2.0

# who plays (near-)uniformly, and why: the tuner's point (the budget forces it) or a frontier row (its start outlasts T)
_NEAR_UNIFORM = {
    "tuned": ("the tuned point plays (near-)uniformly: its regret {regret:.4g} is {share:.0%} of uniform play's "
              "{uniform:.4g} (T·mean gap); the budget (or the parameter's range) leaves no room to learn"),
    "evaluated": ("it plays (near-)uniformly up to T: its regret is {share:.0%} of uniform play's (T·mean gap); its "
                  "first phase or start pulls outlast this horizon"),
}


def near_uniform(regret: float, means, horizon: int, kind: str = "tuned") -> str | None:
    """The warning of a point whose mean pseudo-regret at T, ``regret``, is at least `UNIFORM_FRACTION` of uniform
    play's, T·mean(max(means) − means), or ``None`` (also where every arm is best). ``kind``: ``"tuned"`` (the
    tuner's answer: the budget or the range leaves no room to learn) or ``"evaluated"`` (a frontier row: its first
    phase or start pulls outlast T)."""
    means = np.asarray(means, np.float64)
    uniform = horizon * float(np.mean(means.max() - means))
    if uniform <= 0 or regret < UNIFORM_FRACTION * uniform:
        return None
    return _NEAR_UNIFORM[kind].format(regret=regret, share=regret / uniform, uniform=uniform)


def warn_near_uniform(spec, trace) -> list[str]:
    """`near_uniform` of the mean regret estimate over the last quarter of the tuner's steps (also raised as a
    UserWarning): a budget so tight that the calibrated parameter forces (near-)uniform play (e.g. modified TS's c
    in the billions), which a user should hear of rather than read off the numbers."""
    late = trace[-max(1, len(trace) // 4):]
    regret = float(np.mean([row["regret"] for row in late]))
    message = near_uniform(regret, spec.env.means(spec.params.env), spec.horizon)
    if message is None:
        return []
    warnings.warn(message, UserWarning, stacklevel=3)
    return [message]


def convergence(trace, space, final_u, sigma) -> dict:
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


def not_converged(convergence, space, steps, learning_rate) -> str:
    """The warning of a run that did not converge (also raised as a UserWarning)."""
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
