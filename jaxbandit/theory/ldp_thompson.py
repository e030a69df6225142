"""Seed 000 (Jiang, Zhao & Li, arXiv 2307.00863): Thompson sampling and UCB on ε-LDP bits of Bernoulli-ized
rewards (TS-LDP-B, LDP-UCB-B).

With Δ_i the true gaps and Δ_{i,ε} = μ_{1,ε} − μ_{i,ε} the privatized gaps (`jaxbandit.mechanisms.bernoulli.
privatized_means`), the proof constant γ → 0 and the O(·) terms dropped (spec §5 "[DERIVED] theoretical values"):

    Theorem 2 / 3 (TS):  Σ_{i≠1} (log T + extra) Δ_i / (2 Δ_{i,ε}²)     (Eq. 11 has extra = 0, Eq. 14 extra = 1)
    Eq. 4 (UCB):         Σ_{i≠1} (8 log T / Δ_{i,ε}² + 1 + π²/3) Δ_i

For the linear mechanism Δ_{i,ε} = tanh(ε/2) Δ_i and Theorem 2 is coth²(ε/2) Σ log T / (2Δ_i). These are
heuristic (the digest lists gaps in the proof of Theorem 2) and loose: orders of magnitude, not certified upper
bounds, so their `Bound` is marked asymptotic. They assume arm 1 stays the privatized best arm (every
Δ_{i,ε} > 0); otherwise they are undefined and these functions return inf.
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit.theory.base import Bound, NotApplicable

__all__ = ["ldp_ts_bound", "ldp_ucb_bound", "BOUNDS"]


def _gaps(true_means, private_means):
    mu = np.asarray(true_means, np.float64)
    mu_eps = np.asarray(private_means, np.float64)
    best = int(np.argmax(mu))
    others = np.arange(len(mu)) != best
    return (mu[best] - mu)[others], (mu_eps[best] - mu_eps)[others]


def ldp_ts_bound(true_means, private_means, horizon, extra: float = 0.0):
    """Seed 000 Theorems 2 / 3 leading term: Σ_{i≠1} (log T + extra) Δ_i / (2 Δ_{i,ε}²) (γ → 0, O(N) dropped).
    ``extra`` = 0 for Theorem 2 (Eq. 11), 1 for Theorem 3 (Eq. 14). inf if the best arm is not privatized-best.
    Vectorized over ``horizon``."""
    delta, delta_eps = _gaps(true_means, private_means)
    if np.any(delta_eps <= 0):
        return math.inf
    return np.sum(delta / (2 * delta_eps ** 2)) * (np.log(np.asarray(horizon, np.float64)) + extra)


def ldp_ucb_bound(true_means, private_means, horizon):
    """Seed 000 Eq. (4) / (16) / (25): Σ_{i≠1} (8 log T / Δ_{i,ε}² + 1 + π²/3) Δ_i (Ren et al. 2020, App. A.4).
    inf if the best arm is not privatized-best. Vectorized over ``horizon``."""
    delta, delta_eps = _gaps(true_means, private_means)
    if np.any(delta_eps <= 0):
        return math.inf
    log_t = np.log(np.asarray(horizon, np.float64))
    return np.sum(8 * delta / delta_eps ** 2) * log_t + np.sum(delta) * (1 + math.pi ** 2 / 3)


def _private_means(spec) -> dict:
    """The privatized means μ_{i,ε} of seed 000's channels (linear, quadratic, exponential)."""
    from jaxbandit.mechanisms import bernoulli
    name = spec.privatizer.name
    if name not in bernoulli.MECHANISMS:
        raise NotApplicable(f"seed 000's bounds are for learners on the bits of its channels "
                            f"({', '.join(bernoulli.MECHANISMS)}), not privatizer {name!r}")
    env_p = spec.params.env
    return {"private_means": np.asarray(bernoulli.privatized_means(name, spec.params.privatizer, spec.env, env_p),
                                        np.float64),
            "mechanism": name}


def _ts(means, private_means, horizon, mechanism):
    """Seed 000 Theorem 2 (linear mechanism, Eq. 11) or Theorem 3 (non-linear, Eq. 14), leading term:
    Σ_{i≠1} (log T + [non-linear]) Δ_i / (2 Δ_{i,ε}²)."""
    return ldp_ts_bound(means, private_means, horizon, extra=0.0 if mechanism == "linear" else 1.0)


def _ucb(means, private_means, horizon):
    """Seed 000 Eq. (4): Σ_{i≠1} (8 log T / Δ_{i,ε}² + 1 + π²/3) Δ_i for UCB on the privatized bits."""
    return ldp_ucb_bound(means, private_means, horizon)


#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("ldp-ts-thm2-3", _ts, paper="000", result="Theorem 2 (Eq. 11) / Theorem 3 (Eq. 14), leading term",
          kind="upper", policies=("thompson",), asymptotic=True, inputs=_private_means,
          note="γ → 0 and O(N) dropped; the proof of Theorem 2 has gaps (spec 000 §5): an order, not certified"),
    Bound("ldp-ucb-eq4", _ucb, paper="000", result="Eq. (4) (Ren et al. 2020, App. A.4)", kind="upper",
          policies=("ucb1",), inputs=_private_means,
          note="UCB1's bound on the privatized Bernoulli means"),
)
