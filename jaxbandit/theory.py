"""Regret bounds of the seed papers, as functions of an instance (numpy, host side).

Seed 000 (Jiang, Zhao & Li, arXiv 2307.00863), for TS-LDP-B and LDP-UCB-B on the privatized bits, with
Δ_i the true gaps and Δ_{i,ε} = μ_{1,ε} − μ_{i,ε} the privatized gaps (`jaxbandit.privatizers.bernoulli.
privatized_means`), the proof constant γ → 0 and the O(·) terms dropped (spec §5 "[DERIVED] theoretical values"):

    Theorem 2 / 3 (TS):  Σ_{i≠1} (log T + extra) Δ_i / (2 Δ_{i,ε}²)     (Eq. 11 has extra = 0, Eq. 14 extra = 1)
    Eq. 4 (UCB):         Σ_{i≠1} (8 log T / Δ_{i,ε}² + 1 + π²/3) Δ_i

For the linear mechanism Δ_{i,ε} = tanh(ε/2) Δ_i and Theorem 2 is coth²(ε/2) Σ log T / (2Δ_i). These are
heuristic (the digest lists gaps in the proof of Theorem 2) and loose: orders of magnitude, not certified upper
bounds. They assume arm 1 stays the privatized best arm (every Δ_{i,ε} > 0); otherwise they are undefined and
these functions return inf.
"""
from __future__ import annotations

import math

import numpy as np


def _gaps(true_means, private_means):
    mu = np.asarray(true_means, np.float64)
    mu_eps = np.asarray(private_means, np.float64)
    best = int(np.argmax(mu))
    others = np.arange(len(mu)) != best
    return (mu[best] - mu)[others], (mu_eps[best] - mu_eps)[others]


def ldp_ts_bound(true_means, private_means, horizon: int, extra: float = 0.0) -> float:
    """Seed 000 Theorems 2 / 3 leading term: Σ_{i≠1} (log T + extra) Δ_i / (2 Δ_{i,ε}²) (γ → 0, O(N) dropped).
    ``extra`` = 0 for Theorem 2 (Eq. 11), 1 for Theorem 3 (Eq. 14). inf if the best arm is not privatized-best."""
    delta, delta_eps = _gaps(true_means, private_means)
    if np.any(delta_eps <= 0):
        return math.inf
    return float(np.sum((math.log(horizon) + extra) * delta / (2 * delta_eps ** 2)))


def ldp_ucb_bound(true_means, private_means, horizon: int) -> float:
    """Seed 000 Eq. (4) / (16) / (25): Σ_{i≠1} (8 log T / Δ_{i,ε}² + 1 + π²/3) Δ_i (Ren et al. 2020, App. A.4).
    inf if the best arm is not privatized-best."""
    delta, delta_eps = _gaps(true_means, private_means)
    if np.any(delta_eps <= 0):
        return math.inf
    return float(np.sum((8 * math.log(horizon) / delta_eps ** 2 + 1 + math.pi ** 2 / 3) * delta))
