"""Seed 001 (Ou, Avella Medina & Cummings, "Thompson Sampling Itself is Differentially Private", arXiv
2407.14879): the regret of modified Thompson sampling (Algorithm 2: b pre-pulls per arm, posterior variance scale
c ≥ 1), Theorem 5 with the explicit terms of its proof (App. B), and of standard TS (Theorem 2, [AG17]).

Notation (spec 001 §4): N arms, Δ_i the gaps, T' = T − bN the data-dependent rounds, ℓ_i = log(T'Δ_i²).
Theorem 5's conditions: b ≥ 0, c ≥ 1 (Lemma 9 uses 1/r^{2c} ≤ 1/r²) and T > bN + 4/min_i Δ_i² (so every ℓ_i > 0).

Erratum kept as printed (spec 001 §8.7): Lemma 9 (Eq. 19) uses Mill's inequality as a lower bound on the Gaussian
tail, the wrong direction, so its constant 71 (and 5130 = 18 + 71·72) is not rigorously justified; the rates are
likely right. The bound is also vacuous at the paper's scale (7.2e5 at (b, c) = (0, 1), T = 10⁵, against the
trivial T·maxΔ): it says how regret scales with (b, c), not what it is.
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit.theory.base import Bound, NotApplicable, gaps, horizons, per_arm

__all__ = ["theorem5_min_horizon", "modified_ts_pulls", "modified_ts_bound", "modified_ts_minimax_bound", "standard_ts_bound",
           "standard_ts_minimax_bound", "BOUNDS"]

FORMS = ("tight", "simplified")


def _unit_rewards(means):
    mu = np.asarray(means, np.float64)
    if mu.min() < 0 or mu.max() > 1:
        raise NotApplicable(f"means={mu.tolist()}: Theorem 5 is proved for rewards in [0, 1] (Hoeffding, Lemma 6)")


def theorem5_min_horizon(means, b) -> float:
    """bN + 4/min_i Δ_i²: Theorem 5 needs T above it (every ℓ_i = log(T'Δ_i²) > log 4)."""
    d = gaps(means)
    return float(b) * (d.size + 1) + 4 / d.min() ** 2


def _check(means, horizon, b, c):
    _unit_rewards(means)
    d = gaps(means)
    T, b, c = horizons(horizon), float(b), float(c)
    if b < 0 or not float(b).is_integer():
        raise ValueError(f"b={b:g} must be a non-negative integer (pre-pulls per arm)")
    if c < 1:
        raise NotApplicable(f"c={c:g} is below 1, where Theorem 5 is proved (Lemma 9 needs c >= 1)")
    need = theorem5_min_horizon(means, b)
    if np.any(T <= need):
        raise NotApplicable(f"horizon={np.min(T):g} must exceed b*N + 4/min gap^2 = {need:.6g} (Theorem 5)")
    return d, T[..., None] - b * (d.size + 1), b, c


def modified_ts_pulls(means, horizon, b, c, *, form: str = "tight"):
    """Seed 001 Theorem 5: E[n_i(T)] of each arm under modified TS (NaN for the best arm), vectorized over T.

    ``form="tight"`` is Eq. (9)'s first line, the sum of the proof's terms (Lemmas 6–9)::

        b + (9/Δ²) e^{−2bΔ²/9} + max{0, 18cℓ/Δ² − b} + 1/Δ² + 71·max{L, 1} + 4/Δ²,  L = ⌈72cℓ/Δ² − (b + 1)⌉,

    where the printed line has 71·L·1(L > 0): Lemma 9's second case needs k ≥ 1, so the k = 0 term is always
    bounded by 71 (the printed term misses it where L ≤ 0, i.e. many pre-pulls);
    ``form="simplified"`` its final line (Eq. 10): b + 14/Δ² + 5130·c·ℓ/Δ². ℓ = log(T'Δ²), T' = T − bN.
    """
    if form not in FORMS:
        raise ValueError(f"form={form!r} must be one of {FORMS}")
    d, Tp, b, c = _check(means, horizon, b, c)
    ell = np.log(Tp * d ** 2)
    if form == "simplified":
        pulls = b + 14 / d ** 2 + 5130 * c * ell / d ** 2
    else:
        L = np.ceil(72 * c * ell / d ** 2 - (b + 1))
        pulls = (b + 9 / d ** 2 * np.exp(-2 * b * d ** 2 / 9) + np.maximum(0.0, 18 * c * ell / d ** 2 - b)
                 + 1 / d ** 2 + 71 * np.maximum(L, 1.0) + 4 / d ** 2)
    return per_arm(means, pulls)


def modified_ts_bound(means, horizon, b, c, *, form: str = "tight"):
    """Seed 001 Theorem 5, problem-dependent: Σ_i Δ_i E[n_i(T)] with `modified_ts_pulls` (the paper writes the
    pre-pull cost b·ΣΔ_i as its upper bound bN). Vectorized over T."""
    pulls = modified_ts_pulls(means, horizon, b, c, form=form)
    mu = np.asarray(means, np.float64)
    return np.nansum((mu.max() - mu) * pulls, axis=-1)


def modified_ts_minimax_bound(means, horizon, b, c):
    """Seed 001 Theorem 5, problem-independent, with the proof's constants (spec 001 §4): for N ≥ 2 arms::

        bN + 14 sqrt(NT')/(e sqrt(log N)) + 5130 c sqrt(NT') log(e² N log N)/(e sqrt(log N)) + e sqrt(NT' log N),

    T' = T − bN: the arms with Δ ≥ e sqrt(N log N/T') through the simplified per-arm bound (log(T'Δ²)/Δ is
    decreasing there), the others at most T'·Δ together. Only N enters from ``means``; rewards in [0, 1]."""
    n = np.asarray(means).size
    _unit_rewards(means)
    if n < 2:
        raise ValueError(f"means must list at least 2 arms, not {n}")
    T, b, c = horizons(horizon), float(b), float(c)
    if c < 1:
        raise NotApplicable(f"c={c:g} is below 1, where Theorem 5 is proved (Lemma 9 needs c >= 1)")
    Tp = T - b * n
    if np.any(Tp <= 0):
        raise NotApplicable(f"horizon={np.min(T):g} must exceed b*N = {b * n:g} (Theorem 5)")
    root, logn = np.sqrt(n * Tp), math.log(n)
    return (b * n + 14 * root / (math.e * math.sqrt(logn))
            + 5130 * c * root * math.log(math.e ** 2 * n * logn) / (math.e * math.sqrt(logn))
            + math.e * np.sqrt(n * Tp * logn))


def standard_ts_bound(means, horizon, *, form: str = "tight"):
    """Seed 001 Theorem 2 (standard Gaussian-prior TS, Algorithm 1; [AG17]: Σ_i O(log T/Δ_i)), with explicit
    constants: Algorithm 1 is Algorithm 2 at (b, c) = (0, 1), so Theorem 5's `modified_ts_bound` there (the paper
    states Theorem 2 without constants)."""
    return modified_ts_bound(means, horizon, 0, 1, form=form)


def standard_ts_minimax_bound(means, horizon):
    """Seed 001 Theorem 2, problem-independent (O(sqrt(NT log N)), [AG17]), with explicit constants: Theorem 5's
    `modified_ts_minimax_bound` at (b, c) = (0, 1)."""
    return modified_ts_minimax_bound(means, horizon, 0, 1)


#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("standard-ts-thm2-minimax", standard_ts_minimax_bound, paper="001",
          result="Theorem 2, problem-independent, via Theorem 5 at (b, c) = (0, 1)", kind="upper",
          policies=("gaussian-thompson",), note="as modified-ts-thm5"),
    Bound("standard-ts-thm2", standard_ts_bound, paper="001", result="Theorem 2, via Theorem 5 at (b, c) = (0, 1)",
          kind="upper", policies=("gaussian-thompson",), note="as modified-ts-thm5"),
    Bound("modified-ts-thm5", modified_ts_bound, paper="001", result="Theorem 5, problem-dependent (Eq. 9)",
          kind="upper", policies=("modified-thompson",),
          note="constant 71 of Lemma 9 not rigorously justified (Mill's inequality used the wrong way, spec 001 "
               "§8.7); vacuous at the paper's scale"),
    Bound("modified-ts-thm5-pulls", modified_ts_pulls, paper="001", result="Theorem 5 (Eq. 9), E[n_i(T)]",
          kind="upper", quantity="pulls", policies=("modified-thompson",),
          note="as modified-ts-thm5"),
    Bound("modified-ts-thm5-minimax", modified_ts_minimax_bound, paper="001",
          result="Theorem 5, problem-independent (App. B)", kind="upper", policies=("modified-thompson",),
          note="as modified-ts-thm5"),
)
