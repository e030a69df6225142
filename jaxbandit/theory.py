"""Regret bounds of the seed papers, as functions of an instance (numpy, host side): seed 000's LDP TS/UCB
leading terms, then seed 002's corrupt-bandit lower bound and upper bounds, then seed 003's private-FTPL lower
bound and upper bounds (below).

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


# Seed 002 (Gajane, Urvoy & Kaufmann, "Corrupt Bandits for Preserving Local Privacy", ALT 2018): Bernoulli arms
# with means μ_a seen through per-arm randomized response (p00(a), p11(a)), λ_a = g_a(μ_a), g_a(x) = o_a + s_a x.

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
        raise ValueError(f"means={mu.tolist()} must have a unique best arm (the bounds assume one)")
    o, s = 1 - p00, p00 + p11 - 1
    others = np.arange(len(mu)) != best
    return (mu[best] - mu)[others], (o + s * mu)[others], (o + s * mu[best])[others], s[others]


def corrupt_lower_bound_constant(means, p00, p11) -> float:
    """C_LB = Σ_{a≠1} Δ_a / d(λ_a, g_a(μ_1)) (seed 002 Theorem 1): liminf Regret_T / log T >= C_LB for every
    uniformly efficient algorithm. g_1 does not enter; inf if some g_a maps μ_a and μ_1 to the same feedback."""
    delta, lam, target, _ = _corrupt_instance(means, p00, p11)
    with np.errstate(divide="ignore"):
        return float(np.sum(delta / bernoulli_kl(lam, target)))


def corrupt_lower_bound(means, p00, p11, t):
    """The paper's "LB" curve C_LB log t (Fig. 2a)."""
    return corrupt_lower_bound_constant(means, p00, p11) * np.log(np.asarray(t, np.float64))


def klucb_cf_bound(means, p00, p11, horizon):
    """Seed 002 Theorem 2, finite-time form (Appendix I): Σ_{a≠1} Δ_a E[N_a(T)] with
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
    p = 1.0 / (1.0 + math.exp(-float(epsilon)))
    return rr_upper_bound(means, p, p, horizon)


# ------------------------------------------------------------------------------------------------------ seed 003
# Wang & Zhu, "Optimal Learning Policies for Differential Privacy in Multi-armed Bandits", JMLR 25 (2024). log is
# natural; T the horizon; ε, δ the privacy levels (either may be 0, not both, where the paper allows it).

def global_dp_lower_bound(horizon, epsilon, delta, c0: float = 1.0, alpha: float = 0.5) -> float:
    """Seed 003 Theorem 4: for an (ε, δ)-global-DP policy whose regret is at most c0·T^α on every instance, some
    2-armed Bernoulli instance has Reg(T) ≥ Λ/(16ε), Λ = log[((e^ε − 1)T^{1−α} + 5δT^{1−α})/(40c0(e^ε − 1) +
    5δT^{1−α})]. Valid for T ≥ 3Λ/ε (ValueError otherwise); 0 where Λ ≤ 0. Spec oracles (c0 = 1, α = ½, T = 10⁶):
    0.16881 at (1, .01), 0.20118 at (1, 0), 0.65733 at (0.1, .01). ε > 0. It bounds globally private policies only
    (Definition 3); for one-step (ε, δ)-DP policies such as DP-FTPL no lower bound is known (Remark 7)."""
    if not epsilon > 0:
        raise ValueError(f"epsilon={epsilon!r} is outside the valid range (0, inf) of Theorem 4")
    e, d = math.expm1(float(epsilon)), float(delta)
    s = float(horizon) ** (1 - alpha)
    lam = math.log((e * s + 5 * d * s) / (40 * c0 * e + 5 * d * s))
    if horizon < 3 * lam / epsilon:
        raise ValueError(f"horizon={horizon} is below Theorem 4's validity condition T >= 3Λ/ε = "
                         f"{3 * lam / epsilon:.4g}")
    return max(lam, 0.0) / (16 * epsilon)


def global_dp_lower_bound_rate(num_arms, horizon, epsilon, delta) -> float:
    """Seed 003 Remark 6, the N-arm form of Theorem 4: Reg(T) = Ω((N/ε) log[((e^ε − 1)T + δT)/((e^ε − 1) + δT)]).
    An order, not a bound: the paper gives no constant for N arms (Theorem 4's explicit one is for 2 arms), so this
    returns the rate with constant 1. Grows like (N/ε) log T at δ = 0 and is bounded in T for δ > 0."""
    if not epsilon > 0:
        raise ValueError(f"epsilon={epsilon!r} is outside the valid range (0, inf) of Theorem 4")
    e, d, T = math.expm1(float(epsilon)), float(delta), float(horizon)
    return num_arms / epsilon * math.log((e * T + d * T) / (e + d * T))


def ftpl_new_bound(means, horizon, epsilon, delta) -> float:
    """Seed 003 Theorem 16 (DP-FTPL-New): Reg(T) ≤ Σ_{i≥2} max{16 log T/Δ_i, (4/ε) L_T} + 4N with L_T =
    log[(T(e^ε − 1) + 2Tδ)/(2(e^ε − 1) + 2Tδ)] ((4/ε)L_T → 2(T − 2)/(Tδ) at ε = 0). Spec: about 12052 on
    instance 1 and 287069 on instance 2 at T = 10⁶ (ε = 1, δ = 0.01)."""
    gaps = _ftpl_gaps(means)
    T, e, d = float(horizon), math.expm1(float(epsilon)), float(delta)
    if epsilon == 0:
        privacy = 2 * (T - 2) / (T * d)
    else:
        privacy = 4 / epsilon * math.log((T * e + 2 * T * d) / (2 * e + 2 * T * d))
    return float(np.sum(np.maximum(16 * math.log(T) / gaps, privacy)) + 4 * len(means))


def gdp_elim_new_bound(means, horizon, epsilon, delta) -> float:
    """Seed 003 Theorem 18 (GDP-Elim-New): Reg(T) ≤ Σ_i (1024 Δ_i log T/Δ_min² + (32Δ_i/(εΔ_min))·log[(T²(e^ε − 1)
    + T²δ)/(2(e^ε − 1) + T²δ)]) + 4N (the ε = 0 limit of the log term over ε is (T² − 2)/(T²δ))."""
    gaps = _ftpl_gaps(means)
    T, e, d = float(horizon), math.expm1(float(epsilon)), float(delta)
    if epsilon == 0:
        radius = (T * T - 2) / (T * T * d)
    else:
        radius = math.log((T * T * e + T * T * d) / (2 * e + T * T * d)) / epsilon
    dmin = float(np.min(gaps))
    return float(np.sum(1024 * gaps * math.log(T) / dmin ** 2 + 32 * gaps * radius / dmin) + 4 * len(means))


def _ftpl_gaps(means):
    mu = np.asarray(means, np.float64)
    gaps = mu.max() - mu
    gaps = np.delete(gaps, int(np.argmax(mu)))
    if np.any(gaps <= 0):
        raise ValueError("seed 003's bounds assume a unique best arm (every other gap > 0)")
    return gaps
