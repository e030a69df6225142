"""Azize & Basu, "When Privacy Meets Partial Information: A Refined Analysis of Differentially Private Bandits",
NeurIPS 2022 (arXiv 2209.02570): the regret of AdaP-UCB (Theorem 7) and AdaP-KLUCB (Theorem 8), and the ε-DP
lower bounds they match (Theorem 3, problem-dependent; Theorem 2, minimax). log is natural; rewards in [0, 1];
the problem-dependent forms are for Bernoulli arms (KL and TV between Bernoulli laws).

Errata (the NeurIPS text against A. Azize's PhD thesis, ch. 5 and App. C, which restates the results with proofs):
  * the additive constant of Theorems 7 and 8 is α/(α − 3) in the paper and 3α/(α − 3) in the thesis (Theorem 5.3),
    which is what the proof (Theorem C.4) sums to; ``form="corrected"`` (default) is the thesis's,
    ``form="printed"`` the paper's;
  * Theorem 3's privacy term is min(d_inf, 6ε·t_inf) in the paper and min(KL_inf, ε·TV_inf) in the thesis (Theorem
    4.16). The paper's is the weaker bound (implied by the thesis's), and its Figure 3 places the change of regime
    where the factor 6 puts it (about ε = 0.3 on {0.8, 0.1, 0.1, 0.1, 0.1}): ``form="paper"`` (default) or
    ``"thesis"``.
"""
from __future__ import annotations

import numpy as np

from jaxbandit.theory.base import Bound, NotApplicable, gaps, horizons
from jaxbandit.theory.corrupt import bernoulli_kl

__all__ = ["adap_ucb_bound", "adap_klucb_bound", "adap_lower_bound", "adap_minimax_lower_bound", "PURE_DP", "BOUNDS"]

#: The pure ε-DP (whole-run) policies on rewards in [0, 1] that Theorems 2 and 3 bind (not the (ε, δ) ones).
PURE_DP = ("adap-ucb", "adap-klucb", "dp-se", "dp-ucb", "dp-ucb-bound", "lazy-ucb")

def _alpha(alpha, result):
    alpha = float(alpha)
    if not alpha > 3:
        raise NotApplicable(f"alpha={alpha:g} is not above 3, where {result} is proved")
    return alpha


def _additive(alpha, form):
    if form not in ("corrected", "printed"):
        raise ValueError(f"form={form!r} must be 'corrected' (3α/(α − 3), the proof's) or 'printed' (α/(α − 3))")
    return (3 if form == "corrected" else 1) * alpha / (alpha - 3)


def _best_and_others(means):
    mu = np.asarray(means, np.float64)
    gap = gaps(mu)
    return float(mu.max()), np.delete(mu, int(np.argmax(mu))), gap


def adap_ucb_bound(means, horizon, epsilon, alpha, *, form: str = "corrected"):
    """Azize & Basu 2022, Theorem 7 (thesis Theorem 5.3): AdaP-UCB with α > 3 has
    Reg(T) ≤ Σ_{a: Δ_a > 0} (16α log T / min{Δ_a, ε} + 3α/(α − 3)) (``form="printed"``: + α/(α − 3)). A finite-T
    guarantee for rewards in [0, 1]; ``horizon`` a scalar or an array of times."""
    alpha = _alpha(alpha, "Theorem 7")
    gap = gaps(means)
    log_t = np.log(horizons(horizon))[..., None]
    return np.sum(16 * alpha * log_t / np.minimum(gap, float(epsilon)) + _additive(alpha, form), axis=-1)


def adap_klucb_bound(means, horizon, epsilon, alpha, *, c1: float = 1.0, c2: float = 1.0,
                     form: str = "corrected"):
    """Azize & Basu 2022, Theorem 8 (thesis Theorem 5.4): AdaP-KLUCB with α > 3 on Bernoulli arms has
    Reg(T) ≤ Σ_{a: Δ_a > 0} (C₁(α) Δ_a log T / min{kl(μ_a, μ*), C₂ ε Δ_a} + 3α/(α − 3)). The paper defines C₁(α)
    and C₂ only implicitly (through an infimum in its proof), so they are the constants ``c1``, ``c2`` (default 1):
    a rate, not a number to compare a simulation with."""
    alpha = _alpha(alpha, "Theorem 8")
    best, others, gap = _best_and_others(means)
    kl = bernoulli_kl(others, best)
    log_t = np.log(horizons(horizon))[..., None]
    return np.sum(c1 * gap * log_t / np.minimum(kl, c2 * float(epsilon) * gap) + _additive(alpha, form), axis=-1)


def adap_lower_bound(means, horizon, epsilon, *, form: str = "paper"):
    """Azize & Basu 2022, Theorem 3: every ε-DP policy that is consistent has
    liminf_T Reg(T)/log T ≥ Σ_{a: Δ_a > 0} Δ_a / min{d_inf(μ_a, μ*), 6ε·t_inf(μ_a, μ*)}; for Bernoulli arms
    d_inf = kl(μ_a, μ*) and t_inf = TV = Δ_a. Returns that sum times log T (``form="thesis"``: the thesis's
    Theorem 4.16, without the 6). Asymptotic: a liminf, not a finite-T guarantee."""
    if form not in ("paper", "thesis"):
        raise ValueError(f"form={form!r} must be 'paper' (6ε·TV) or 'thesis' (ε·TV)")
    best, others, gap = _best_and_others(means)
    factor = 6.0 if form == "paper" else 1.0
    kl = bernoulli_kl(others, best)
    log_t = np.log(horizons(horizon))[..., None]
    return np.sum(gap * log_t / np.minimum(kl, factor * float(epsilon) * gap), axis=-1)


def adap_minimax_lower_bound(means, horizon, epsilon):
    """Azize & Basu 2022, Theorem 2: for K > 1 and T ≥ K − 1, every ε-DP policy has, on some instance with rewards
    in [0, 1], Reg(T) ≥ max{√(T(K − 1))/27, (K − 1)/(131 ε)} (a minimax bound: not this instance's)."""
    K = len(np.asarray(means))
    T = horizons(horizon)
    if K < 2 or np.any(T < K - 1):
        raise NotApplicable(f"Theorem 2 needs K > 1 and T >= K - 1 (K = {K}, T = {T.min():g})")
    return np.maximum(np.sqrt(T * (K - 1)) / 27, (K - 1) / (131 * float(epsilon)))


#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("adap-ucb-thm7", adap_ucb_bound, paper="Azize & Basu 2022", result="Theorem 7 (thesis Thm 5.3)",
          kind="upper", policies=("adap-ucb",),
          note="corrected by default: the additive 3α/(α−3) the proof sums to (form=printed: α/(α−3))"),
    Bound("adap-klucb-thm8", adap_klucb_bound, paper="Azize & Basu 2022", result="Theorem 8 (thesis Thm 5.4)",
          kind="upper", policies=("adap-klucb",), asymptotic=True,
          note="C1(α), C2: defined only implicitly by the proof (constants, default 1)"),
    Bound("adap-lower-thm3", adap_lower_bound, paper="Azize & Basu 2022", result="Theorem 3 (Bernoulli arms)",
          kind="lower", policies=PURE_DP, asymptotic=True,
          note="a liminf of Reg/log T; 6ε·TV as printed (form=thesis: ε·TV, Thm 4.16)"),
    Bound("adap-minimax-lower-thm2", adap_minimax_lower_bound, paper="Azize & Basu 2022", result="Theorem 2",
          kind="lower", policies=PURE_DP, note="on some instance with rewards in [0, 1], not this one"),
)
