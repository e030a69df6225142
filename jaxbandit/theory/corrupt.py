"""Seed 002 (Gajane, Urvoy & Kaufmann, "Corrupt Bandits for Preserving Local Privacy", ALT 2018): Bernoulli arms
with means μ_a seen through per-arm randomized response (p00(a), p11(a)), λ_a = g_a(μ_a), g_a(x) = o_a + s_a x.
Theorem 1's lower bound, Theorem 2's finite-time bound for kl-UCB-CF, Corollaries 2 and 3."""
from __future__ import annotations

import math

import numpy as np

from jaxbandit.mechanisms.randomized_response import optimal_p
from jaxbandit.theory.base import Bound, NotApplicable

__all__ = ["bernoulli_kl", "corrupt_lower_bound_constant", "corrupt_lower_bound", "klucb_cf_bound",
           "rr_upper_bound", "ldp_rr_upper_bound", "BOUNDS"]

def bernoulli_kl(x, y):
    """d(x, y) = x log(x/y) + (1 − x) log((1 − x)/(1 − y)) (seed 002 Eq. 4), float64, 0 log 0 = 0, +inf where
    y ∈ {0, 1} and x ≠ y."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(x > 0, x * np.log(x / y), 0.0)
        b = np.where(x < 1, (1 - x) * np.log((1 - x) / (1 - y)), 0.0)
    return a + b


def _corrupt_instance(means, p00, p11):
    """(Δ_a, λ_a, g_a(μ_1), s_a) over the suboptimal arms a (arm 1 = the unique best)."""
    mu = np.asarray(means, np.float64)
    p00, p11 = (np.broadcast_to(np.asarray(p, np.float64), mu.shape) for p in (p00, p11))
    best = int(np.argmax(mu))
    if np.sum(mu == mu[best]) > 1:
        raise NotApplicable(f"means={mu.tolist()} must have a unique best arm (the bounds assume one)")
    o, s = 1 - p00, p00 + p11 - 1
    others = np.arange(len(mu)) != best
    return (mu[best] - mu)[others], (o + s * mu)[others], (o + s * mu[best])[others], s[others]


def corrupt_lower_bound_constant(means, p00, p11) -> float:
    """C_LB = Σ_{a≠1} Δ_a / d(λ_a, g_a(μ_1)) (seed 002 Theorem 1): liminf Regret_T / log T >= C_LB for every
    uniformly efficient algorithm. g_1 does not enter; inf if some g_a maps μ_a and μ_1 to the same feedback."""
    delta, lam, target, _ = _corrupt_instance(means, p00, p11)
    with np.errstate(divide="ignore"):
        return float(np.sum(delta / bernoulli_kl(lam, target)))


def corrupt_lower_bound(means, p00, p11, horizon):
    """Seed 002 Theorem 1 as the paper draws it ("LB" of Fig. 2a): C_LB log T, vectorized over T."""
    return corrupt_lower_bound_constant(means, p00, p11) * np.log(np.asarray(horizon, np.float64))


def klucb_cf_bound(means, p00, p11, horizon):
    """Seed 002 Theorem 2, finite-time form (Appendix I): Σ_{a≠1} Δ_a E[N_a(T)] with::

        E[N_a(T)] <= log T / D_a + sqrt(2π D'_a² / D_a³) sqrt(log T + 3 log log T) + (4e + 3/D_a) log log T
                    + 2 (D'_a / D_a)² + 4,

    D_a = d(λ_a, g_a(μ_1)), D'_a = ∂_x d(x, y) = log(x(1 − y)/(y(1 − x))) at (λ_a, g_a(μ_1)); kl-UCB-CF with
    f(t) = log t + 3 log log t. Vectorized over ``horizon`` (> e)."""
    delta, lam, target, _ = _corrupt_instance(means, p00, p11)
    T = np.asarray(horizon, np.float64)[..., None]
    if np.any(T <= math.e):
        raise ValueError(f"horizon={np.ravel(T).min():g} must exceed e (the bound has log log T)")
    d = bernoulli_kl(lam, target)
    dp = np.log(lam * (1 - target) / (target * (1 - lam)))
    log_t, loglog = np.log(T), np.log(np.log(T))
    pulls = (log_t / d + np.sqrt(2 * np.pi * dp ** 2 / d ** 3) * np.sqrt(log_t + 3 * loglog)
             + (4 * np.e + 3 / d) * loglog + 2 * (dp / d) ** 2 + 4)
    return np.sum(delta * pulls, axis=-1)


def rr_upper_bound(means, p00, p11, horizon):
    """Seed 002 Corollary 2 without its O(sqrt(log T)) term: Σ_{a≠1} 2 log T / (Δ_a s_a²), s_a = p00 + p11 − 1,
    for kl-UCB-CF and TS-CF under randomized response — as the paper states it. (Pinsker's d >= 2(x − y)² gives
    the 4× smaller Σ log T / (2 Δ_a s_a²): the stated bound is valid but loose, spec §4 "constant flag".)"""
    delta, _, _, s = _corrupt_instance(means, p00, p11)
    return np.sum(2 / (delta * s ** 2)) * np.log(np.asarray(horizon, np.float64))


def ldp_rr_upper_bound(means, epsilon, horizon):
    """Seed 002 Corollary 3 (the "UB" of Fig. 2b): Σ_{a≠1} 2 log T / (Δ_a ((e^ε − 1)/(e^ε + 1))²), i.e.
    `rr_upper_bound` for the ε-optimal channel p00 = p11 = e^ε/(1 + e^ε) (slope tanh(ε/2))."""
    p = float(optimal_p(epsilon))
    return rr_upper_bound(means, p, p, horizon)


def _klucb_cf(means, p00, p11, horizon, c):
    """Seed 002 Theorem 2, finite-time form (App. I): `klucb_cf_bound`, for kl-UCB-CF run with the exploration
    function log t + 3 log log t (its parameter c = 3)."""
    if float(c) != 3:
        raise NotApplicable(f"c={float(c):g}: Theorem 2 is proved for the exploration log t + 3 log log t (c = 3)")
    return klucb_cf_bound(means, p00, p11, horizon)


CORRUPT_LEARNERS = ("klucb-cf", "ts-cf", "ucb-cf", "wr-klucb", "wr-ts")

#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("corrupt-lower-thm1", corrupt_lower_bound, paper="002", result="Theorem 1 (C_LB log T, Fig. 2a's LB)",
          kind="lower", policies=CORRUPT_LEARNERS, asymptotic=True,
          note="liminf Regret_T / log T ≥ C_LB for every uniformly efficient algorithm on the corrupted feedback"),
    Bound("klucb-cf-thm2", _klucb_cf, paper="002", result="Theorem 2, finite-time form (App. I)", kind="upper",
          policies=("klucb-cf",)),
    Bound("rr-upper-cor2", rr_upper_bound, paper="002", result="Corollary 2 (O(sqrt(log T)) term dropped)",
          kind="upper", policies=("klucb-cf", "ts-cf"), asymptotic=True,
          note="the leading term only; valid but 4x looser than Pinsker's (spec 002 §4)"),
)
