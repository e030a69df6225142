"""Linear bandits: the regret bound of OFUL (LinUCB), Abbasi-Yadkori, Pál & Szepesvári, "Improved Algorithms for
Linear Stochastic Bandits", NeurIPS 2011, Theorem 3.

With ‖θ*‖₂ ≤ S, features ‖x‖₂ ≤ L, R-sub-Gaussian noise, ⟨x, θ*⟩ ∈ [−1, 1] for every feature and λ ≥ max(1, L²),
with probability at least 1 − δ, for every n ≥ 0::

    R_n ≤ 4 √(n d log(λ + n L²/d)) (√λ S + R √(2 log(1/δ) + d log(1 + n L²/(λ d))))

Erratum: the paper prints L where the determinant bound it rests on (its Lemma 10, det V_n ≤ (λ + n L²/d)^d)
gives L²; the two agree for unit features (L = 1) and L² is implemented. λ ≥ max(1, L²) is the condition of the
elliptical potential lemma the proof uses (its Lemma 11). The bound holds with probability 1 − δ, not in
expectation: with the per-round regret at most 2, E[R_n] ≤ bound + 2 δ n, which for LinUCB's default δ = 1/T adds 2.
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit.theory.base import Bound, NotApplicable, horizons

__all__ = ["oful_bound", "BOUNDS"]


def oful_bound(horizon, dim, ridge, delta, noise_scale, theta_bound, width="oful", *, feature_bound: float = 1.0):
    """Abbasi-Yadkori et al. (2011), Theorem 3: with probability ≥ 1 − δ, the regret of OFUL after n rounds is at
    most 4 √(n d log(λ + n L²/d)) (√λ S + R √(2 log(1/δ) + d log(1 + n L²/(λ d)))) (L² where the paper prints L:
    the module docstring). Needs λ ≥ max(1, L²) and LinUCB's ``width="oful"``. ``feature_bound`` L: a bound on
    the features' norm (1 for unit features; √2 for the ``sphere-bias`` law and the chowdhury-zhou instance).
    Vectorized over ``horizon``."""
    if width != "oful":
        raise NotApplicable(f"Theorem 3 is proved for OFUL's confidence width, not width={width!r}")
    L2 = float(feature_bound) ** 2
    lam = float(ridge)
    if lam < max(1.0, L2) * (1 - 1e-12):  # a rounding of L = √2 squared does not refuse λ = 2
        raise NotApplicable(f"ridge={lam:g} must be at least max(1, L^2) = {max(1.0, L2):g} (the proof's Lemma 11)")
    if not 0 < float(delta) < 1:
        raise NotApplicable(f"delta={float(delta):g} must be in (0, 1)")
    n = horizons(horizon)
    d = float(dim)
    radius = math.sqrt(lam) * float(theta_bound) + float(noise_scale) * np.sqrt(
        2 * math.log(1 / float(delta)) + d * np.log(1 + n * L2 / (lam * d)))
    return 4 * np.sqrt(n * d * np.log(lam + n * L2 / d)) * radius


#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("oful-thm3", oful_bound, paper="Abbasi-Yadkori et al. 2011", result="Theorem 3 (OFUL's regret)",
          kind="upper", policies=("linucb",),
          note="with probability 1 - delta (E[R_T] <= bound + 2 delta T); L^2 where the paper prints L; needs "
               "lambda >= max(1, L^2) and <x, theta> in [-1, 1]"),
)
