"""Heavy-tailed reward models of seed 004 (Tao, Wu, Zhao & Wang, "Optimal Rates of (Locally) Differentially Private
Heavy-tailed Multi-Armed Bandits", AISTATS 2022): the moments E|X|^{1+v} behind its assumption (eq. 2)
E|X|^{1+v} <= u, the bound u of an instance, the two-point instances of its lower bounds, and the exact bias and
variance of its private truncated means on Pareto arms.

The reward families themselves are registered environments: ``pareto`` (its experiments, §6) and ``student-t``
(`jaxbandit.envs.distributions`); the two-point instances are the ``two-point`` family with ``low = 0``.
Host-side NumPy (float64): these are oracles and settings, not simulation code.
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit import checks
from jaxbandit.envs.distributions import pareto_scale, pareto_shape

__all__ = ["pareto_moment", "student_t_moment", "moment_bound", "pareto_truncated_moments", "instance_u",
           "theorem5_instance", "theorem8_alternative", "theorem10_instance", "pareto_estimator_moments"]


def pareto_moment(means, v, p=None):
    """E[X^p] = α λ^p/(α − p) of the Pareto arms of mean ``means`` and shape α = 1.05 + v (p < α; default
    p = 1 + v, where α − p = 0.05 gives 20 α λ^{1+v}: spec 004 §5.1)."""
    means, v = np.asarray(means, np.float64), np.asarray(v, np.float64)
    alpha = pareto_shape(v)
    p = 1 + v if p is None else np.asarray(p, np.float64)
    if np.any(p >= alpha):
        raise ValueError(f"p={p} must be below the Pareto shape alpha={alpha}: the moment is infinite")
    return alpha * pareto_scale(means, v) ** p / (alpha - p)


def pareto_truncated_moments(means, v, bound):
    """(E[X·1{X≤B}], E[X²·1{X≤B}]) of the Pareto arms (spec 004 §5.1), for any B > 0 (0 below the scale λ):
    E[X 1{X≤B}] = μ (1 − (λ/B)^{α−1}) and E[X² 1{X≤B}] = α λ^α (B^{2−α} − λ^{2−α})/(2 − α) for B ≥ λ."""
    means, v, bound = (np.asarray(x, np.float64) for x in (means, v, bound))
    alpha, lam = pareto_shape(v), pareto_scale(means, v)
    above = bound >= lam
    b = np.where(above, bound, lam)
    first = means * (1 - (lam / b) ** (alpha - 1))
    second = alpha * lam ** alpha * (b ** (2 - alpha) - lam ** (2 - alpha)) / (2 - alpha)
    return np.where(above, first, 0.0), np.where(above, second, 0.0)


def student_t_moment(scales, df, p):
    """E|sT|^p = s^p ν^{p/2} Γ((p+1)/2) Γ((ν−p)/2) / (√π Γ(ν/2)) of a centred Student-t (p < ν)."""
    s, nu, p = (np.asarray(x, np.float64) for x in (scales, df, p))
    if np.any(p >= nu):
        raise ValueError(f"p={p} must be below df={nu}: the moment is infinite")
    lg = np.vectorize(math.lgamma)
    return s ** p * nu ** (p / 2) * np.exp(lg((p + 1) / 2) + lg((nu - p) / 2) - lg(nu / 2)) / math.sqrt(math.pi)


def moment_bound(family: str, params: dict, v) -> np.ndarray:
    """Per arm, a number u_a >= E|X_a|^{1+v} (exact where stated) for a registered family's parameters ``params``
    (a dict of per-arm values, as for ``envs.make``).

    Exact for ``pareto`` (α λ^{1+v}/(α − 1 − v)), ``two-point``, ``bernoulli`` and centred ``student-t``; for a
    Student-t with a location μ ≠ 0, the bound 2 E|X − μ|^{1+v} + 2|μ|^{1+v} of the paper's Lemma 10.
    """
    p = 1 + np.asarray(v, np.float64)
    get = lambda k, d=None: np.asarray(params.get(k, d), np.float64)
    if family == "pareto":
        if np.any(get("v", v) != v):
            raise ValueError(f"v={v} differs from the arms' v={params.get('v')}: the Pareto moment of order "
                             "1 + v is only finite for v up to the arms' own")
        return pareto_moment(get("means"), v)
    if family == "two-point":
        lo, hi, q = get("low"), get("high"), get("p_high")
        return (1 - q) * np.abs(lo) ** p + q * np.abs(hi) ** p
    if family == "bernoulli":
        return get("means")
    if family == "student-t":
        mu = get("means")
        central = student_t_moment(get("scales", 1.0), get("df"), p)
        return np.where(mu == 0, central, 2 * central + 2 * np.abs(mu) ** p)
    raise ValueError(f"family={family!r} has no moment formula here; valid: pareto, two-point, bernoulli, "
                     "student-t")


def instance_u(means, v) -> float:
    """u = max_a E|X_a|^{1+v} of Pareto arms: the u the algorithms of seed 004 are given (spec 004 §5.1:
    5.594637 at v = 0.5 and 8.142063 at v = 0.9 for the instances S1–S3, attained by the arm of mean 0.9)."""
    return float(np.max(pareto_moment(means, v)))


def _check_means(means, v, low, high, what):
    means = np.asarray(means, np.float64)
    checks.in_range("v", v, 0.0, 1.0, low_open=True)
    checks.in_range("means", means, low, high, low_open=True)
    return means


def theorem5_instance(means, v) -> dict:
    """The two-point arms ν_a = (1 − s_a^{1+v}/2) δ_0 + (s_a^{1+v}/2) δ_{1/s_a}, s_a = (2μ_a)^{1/v}, of the DP lower
    bounds (Theorems 5 and 8; spec 004 §4): mean μ_a and E|X|^{1+v} = 1/2. Returns ``two-point`` parameters
    (``envs.make("two-point", **theorem5_instance(...))``); μ_a in (0, 1/2]."""
    means = _check_means(means, v, 0.0, 0.5, "theorem 5")
    s = (2 * means) ** (1 / v)
    return {"low": np.zeros_like(s), "high": 1 / s, "p_high": s ** (1 + v) / 2}


def theorem8_alternative(means, v, arm: int) -> dict:
    """Theorem 8's alternative: arm ``arm`` of `theorem5_instance` gets mass s_a^{1+v}/2 + 2Δ_a s_a at 1/s_a (mean
    μ_1 + Δ_a, E|X|^{1+v} = 1/2 + Δ_a/μ_a), Δ_a = max μ − μ_a; needs μ_a/5 <= Δ_a <= μ_a/2 for the arms changed."""
    means = _check_means(means, v, 0.0, 0.5, "theorem 8")
    out = theorem5_instance(means, v)
    s = (2 * means[arm]) ** (1 / v)
    gap = means.max() - means[arm]
    q = out["p_high"].copy()
    q[arm] = s ** (1 + v) / 2 + 2 * gap * s
    if not 0 <= q[arm] <= 1:
        raise ValueError(f"arm {arm}'s alternative mass {q[arm]} is outside [0, 1]: means={means.tolist()}")
    out["p_high"] = q
    return out


def theorem10_instance(gap, v, alternative: bool = False) -> dict:
    """The two-armed instance of Theorems 10 and 11 (spec 004 §4): γ = (5Δ)^{1/v}, Δ in (0, 1/5); arm 1 puts
    γ^{1+v}/2 at 1/γ (mean 5Δ/2, moment 1/2), arm 2 γ^{1+v}/2 − Δγ (mean 3Δ/2, moment 3/10), or with
    ``alternative`` γ^{1+v}/2 + Δγ (mean 7Δ/2, moment 7/10); TV between the two arm-2 laws 2Δγ."""
    checks.in_range("gap", gap, 0.0, 0.2, low_open=True, high_open=True)
    checks.in_range("v", v, 0.0, 1.0, low_open=True)
    g = (5 * gap) ** (1 / v)
    base = g ** (1 + v) / 2
    second = base + gap * g if alternative else base - gap * g
    return {"low": np.zeros(2), "high": np.full(2, 1 / g), "p_high": np.array([base, second])}


def pareto_estimator_moments(means, v, bound, pulls, epsilon, local: bool = False):
    """(bias, variance) of the private truncated mean of R = ``pulls`` i.i.d. Pareto(α = 1.05 + v) rewards of mean
    ``means`` (spec 004 §5.1): bias = −E[X 1{X > B}] = −μ (λ/B)^{α−1} (all of μ below λ); variance =
    (E[X² 1{X<=B}] − E[X 1{X<=B}]²)/R plus the Laplace noise's 2b², b = 2B/(Rε) (central) or 2b²/R with
    b = 2B/ε (local: R independent draws averaged)."""
    first, second = pareto_truncated_moments(means, v, bound)
    means, bound, pulls, epsilon = (np.asarray(x, np.float64) for x in (means, bound, pulls, epsilon))
    sampling = (second - first ** 2) / pulls
    if local:
        noise = 2 * (2 * bound / epsilon) ** 2 / pulls
    else:
        noise = 2 * (2 * bound / (pulls * epsilon)) ** 2
    return first - means, sampling + noise
