"""Seed 003 (Wang & Zhu, "Optimal Learning Policies for Differential Privacy in Multi-armed Bandits", JMLR 25,
2024): the global-DP lower bound (Theorem 4, Remark 6) and the upper bounds of DP-FTPL-Gauss (Theorem 11), -Beta
(Theorem 13), -New (Theorem 16) and GDP-Elim-New (Theorem 18). log is natural; T the horizon; ε, δ the privacy
levels (either may be 0, not both, where the paper allows it)."""
from __future__ import annotations

import math

import numpy as np

from jaxbandit.theory.base import Bound, NotApplicable, gaps

def global_dp_lower_bound(horizon, epsilon, delta=0.0, *, c0: float = 1.0, alpha: float = 0.5) -> float:
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
        raise NotApplicable(f"horizon={horizon} is below Theorem 4's validity condition T >= 3Λ/ε = "
                         f"{3 * lam / epsilon:.4g}")
    return max(lam, 0.0) / (16 * epsilon)


def global_dp_lower_bound_rate(num_arms, horizon, epsilon, delta=0.0) -> float:
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
    gap = gaps(means)
    T, e, d = float(horizon), math.expm1(float(epsilon)), float(delta)
    if epsilon == 0:
        privacy = 2 * (T - 2) / (T * d)
    else:
        privacy = 4 / epsilon * math.log((T * e + 2 * T * d) / (2 * e + 2 * T * d))
    return float(np.sum(np.maximum(16 * math.log(T) / gap, privacy)) + 4 * len(means))


def gdp_elim_new_bound(means, horizon, epsilon, delta) -> float:
    """Seed 003 Theorem 18 (GDP-Elim-New): Reg(T) ≤ Σ_i (1024 Δ_i log T/Δ_min² + (32Δ_i/(εΔ_min))·log[(T²(e^ε − 1)
    + T²δ)/(2(e^ε − 1) + T²δ)]) + 4N (the ε = 0 limit of the log term over ε is (T² − 2)/(T²δ))."""
    gap = gaps(means)
    T, e, d = float(horizon), math.expm1(float(epsilon)), float(delta)
    if epsilon == 0:
        radius = (T * T - 2) / (T * T * d)
    else:
        radius = math.log((T * T * e + T * T * d) / (2 * e + T * T * d)) / epsilon
    dmin = float(np.min(gap))
    return float(np.sum(1024 * gap * math.log(T) / dmin ** 2 + 32 * gap * radius / dmin) + 4 * len(means))


# ---------------------------------------------------- Theorems 11 and 13: DP-FTPL-Gauss and -Beta, λ optimised
# The proofs (App. A, B) follow Agrawal & Goyal (2013): for λ below a fraction of Δ_min, arm i's pulls split into
# A_i (μ̂_i ≥ μ_i + λ: Hoeffding), B_i (θ_i ≥ μ_1 − λ with μ̂_i < μ_i + λ: the start phase and L_i(T)) and C_i
# (θ_1 below μ_1 − λ: Σ_n E[1/p_n − 1]). The theorems fold Δ_i(A_i + 1 + C_i) into Θ(N/λ⁴); the functions below
# keep every term the proofs give, and λ, free in the statements, is chosen to minimise the bound.

#: A bound is evaluated as corrected here (default) or as the paper prints it.
FORMS = ("corrected", "paper")


def _tail_series(n0, kappa):
    """Σ_{n ≥ n0} 1/(e^{nκ} − 1) = Σ_{k ≥ 1} e^{−k n0 κ}/(1 − e^{−kκ}) (n0 ≥ 1 an integer, κ > 0)."""
    k = np.arange(1, 1 + int(np.ceil(80 / (n0 * kappa))) + 1, dtype=np.float64)
    return float(np.sum(np.exp(-k * n0 * kappa) / -np.expm1(-k * kappa)))


def gauss_c_term(lam, form: str = "corrected") -> float:
    """C_G(λ) ≥ Σ_{n ≥ 1} E[1/p_n − 1], the C_i term of Theorem 11's proof (App. A, the sums after Eq. 23), with
    x = e^{−λ²/2}::

        S_L + 2x/(1 − x) + ⌊8/λ²⌋ + Σ_{n > 8/λ²} 1/(e^{nλ²/κ} − 1).

    ``form="paper"``: S_L = 2√e Σ_n (1 + n) x^n and κ = 2, as printed: Θ(1/λ⁴) (8√e/λ⁴ leading). The printed
    steps are wrong twice: S_L's geometric factor 1/(1 − e^{−λ/2}) is bounded by 2, which needs λ ≥ 2 log 2, and
    θ ~ N(s/n, 2/n) at distance λ/2 is above μ_1 − λ with probability ≥ 1 − e^{−nλ²/16}, not 1 − e^{−nλ²/2}.
    ``form="corrected"`` (default) keeps the factor and κ = 16: S_L = √e/(1 − e^{−λ/2}) Σ_n (1 + n) x^n, so the
    term is Θ(1/λ⁵)."""
    lam = float(lam)
    x = math.exp(-lam * lam / 2)
    geometric = x / (1 - x) + x / (1 - x) ** 2  # Σ_{n ≥ 1} (1 + n) x^n
    factor = 2 if form == "paper" else 1 / -math.expm1(-lam / 2)
    kappa = lam * lam / (2 if form == "paper" else 16)
    n0 = math.floor(8 / (lam * lam)) + 1
    return (factor * math.sqrt(math.e) * geometric + 2 * x / (1 - x) + math.floor(8 / (lam * lam))
            + _tail_series(n0, kappa))


def beta_c_term(lam, *, C: float = 1.0) -> float:
    """Theorem 13's C_i term (App. B): 192/λ³ (n ≤ 8/λ², Lemma 22's factor 10 with Fact 9's 12/(5λ)) +
    C·λ⁻² Σ_{n > 8/λ²} e^{−25nλ²/32} + Σ_{n > 8/λ²} 1/(e^{nλ²/2} − 1). The proof takes the second term's constant
    from Agrawal & Goyal (2013) without stating it: ``C`` is that unspecified constant."""
    lam = float(lam)
    n0 = math.floor(8 / (lam * lam)) + 1
    y = math.exp(-25 * lam * lam / 32)
    return 192 / lam ** 3 + C / lam ** 2 * y ** n0 / (1 - y) + _tail_series(n0, lam * lam / 2)


def _gauss_at(lam, d, T, start, form):
    lt = (2 if form == "paper" else 4) * math.log(T) / (d - 2 * lam) ** 2
    per_arm = math.e / (2 * lam * lam) + np.maximum(lt, start) + 1 + gauss_c_term(lam, form)
    return float(np.sum(d * per_arm))


def _beta_at(lam, d, T, start, C):
    lt = 5 * math.log(T) / (2 * (d - 2.5 * lam) ** 2)
    per_arm = 8 * math.e / (25 * lam * lam) + np.maximum(lt, start) + 1 + beta_c_term(lam, C=C)
    return float(np.sum(d * per_arm))


def _minimise(f, high):
    """(min f, argmin) over λ in (0, high): a log grid, then golden-section search around its best point."""
    grid = high * np.geomspace(1e-4, 1 - 1e-6, 300)
    values = np.array([f(x) for x in grid])
    i = int(np.argmin(values))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    g = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        c, d = b - g * (b - a), a + g * (b - a)
        if f(c) < f(d):
            b = d
        else:
            a = c
    best = (a + b) / 2
    return (f(best), best) if f(best) <= values[i] else (values[i], grid[i])


def ftpl_gauss_bound(means, horizon, epsilon, delta, *, form: str = "corrected", lam=None):
    """Seed 003 Theorem 11 (DP-FTPL-Gauss), every term of its proof (App. A) kept::

        Reg(T) ≤ Σ_{i≥2} Δ_i (e/(2λ²) + max{L_i(T), N_G*} + 1 + C_G(λ)),  λ < Δ_min/2,

    L_i(T) = k log T/(Δ_i − 2λ)². ``form="paper"``: k = 2 (the printed L_i, which rests on Fact 6, false: θ ~
    N(μ̂, 2/N) exceeds μ̂ + sqrt(2 log T/N) with probability about T^{−1/2}, not 1/T) and the printed C_G;
    ``"corrected"`` (default): k = 4 (the Gaussian tail e^{−a²N/4} ≤ 1/T) and the corrected `gauss_c_term`.
    ``lam=None`` minimises over λ; returns (bound, λ)."""
    from jaxbandit.mechanisms.perturbations import gauss_start
    if form not in FORMS:
        raise ValueError(f"form={form!r} must be one of {FORMS}")
    d = gaps(means)
    T, start = float(horizon), float(gauss_start(float(epsilon), float(delta)))
    f = lambda x: _gauss_at(x, d, T, start, form)  # noqa: E731
    return _at_or_best(f, lam, d.min() / 2, "Delta_min/2")


def ftpl_beta_bound(means, horizon, epsilon, delta, *, C: float = 1.0, lam=None):
    """Seed 003 Theorem 13 (DP-FTPL-Beta), every term of its proof (App. B) kept::

        Reg(T) ≤ Σ_{i≥2} Δ_i (8e/(25λ²) + max{L_i(T), N_B*} + 1 + `beta_c_term`(λ, C)),  λ < 2Δ_min/5,

    L_i(T) = 5 log T/(2(Δ_i − 5λ/2)²); ``C`` is the constant the proof leaves unspecified. ``lam=None``
    minimises over λ; returns (bound, λ)."""
    from jaxbandit.mechanisms.perturbations import beta_start
    d = gaps(means)
    T, start = float(horizon), float(beta_start(float(epsilon), float(delta)))
    f = lambda x: _beta_at(x, d, T, start, C)  # noqa: E731
    return _at_or_best(f, lam, 0.4 * d.min(), "2*Delta_min/5")


def _at_or_best(f, lam, high, what):
    if lam is None:
        return _minimise(f, high)
    if not 0 < float(lam) < high:
        raise NotApplicable(f"lam={float(lam):g} must lie in (0, {what} = {high:g})")
    return f(float(lam)), float(lam)


def _global_lower(horizon, epsilon, delta=0.0, *, c0: float = 1.0, alpha: float = 0.5):
    """Seed 003 Theorem 4 at the policy's (ε, δ): `global_dp_lower_bound` (a 2-armed instance, not this one)."""
    return global_dp_lower_bound(horizon, epsilon, delta, c0=c0, alpha=alpha)


#: The whole-run ε-DP policies that Theorem 4's lower bound binds.
GLOBAL_DP = ("gdp-elim-new", "dp-se", "dp-ucb", "dp-ucb-bound", "dp-ucb-int", "lazy-ucb", "adap-ucb",
             "adap-klucb")

#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("ftpl-gauss-thm11", ftpl_gauss_bound, paper="003", result="Theorem 11 (App. A), λ optimised",
          kind="upper", policies=("dp-ftpl-gauss",),
          note="corrected by default (Fact 6's tail and two steps of the C_i sum; spec 003 §4): form=paper prints "
               "the theorem's"),
    Bound("ftpl-beta-thm13", ftpl_beta_bound, paper="003", result="Theorem 13 (App. B), λ optimised",
          kind="upper", policies=("dp-ftpl-beta",),
          note="C: the constant of Agrawal & Goyal (2013) the proof cites without stating"),
    Bound("ftpl-new-thm16", ftpl_new_bound, paper="003", result="Theorem 16", kind="upper",
          policies=("dp-ftpl-new",)),
    Bound("gdp-elim-new-thm18", gdp_elim_new_bound, paper="003", result="Theorem 18", kind="upper",
          policies=("gdp-elim-new",)),
    Bound("global-dp-lower-thm4", _global_lower, paper="003", result="Theorem 4", kind="lower",
          policies=GLOBAL_DP,
          note="on some 2-armed Bernoulli instance (not this one), for a policy with regret <= c0 T^alpha"),
    Bound("global-dp-lower-rate", global_dp_lower_bound_rate, paper="003", result="Remark 6 (N arms)",
          kind="lower", policies=GLOBAL_DP, asymptotic=True, note="an order: constant 1, the paper gives none"),
)
