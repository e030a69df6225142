"""Seed 004 (Tao, Wu, Zhao & Wang, "Optimal Rates of (Locally) Differentially Private Heavy-tailed Multi-Armed
Bandits", AISTATS 2022): rewards with E|X|^{1+v} ≤ u, v ∈ (0, 1]; p = (1 + v)/v.

Upper bounds (ε ∈ (0, 1], where the proofs are written), with every term of the proofs kept:
  * DPRUCB, Theorem 2: E[N_a(T)] ≤ (2c)^p u^{1/v} log(2T⁴) log^{1.5+1/v}T/(εΔ_a^p) + 1 + π²/3, c the bonus
    constant (18). Erratum found here (not in the digest): the printed constant is 36, but the event Δ_a < 2I of
    the proof fails only for s ≥ 36^p u^{1/v} L/(εΔ_a^p) (solve 2·18 u^{1/(1+v)}(L/(εs))^{v/(1+v)} < Δ_a for s);
    ``form="paper"`` keeps 36 and the printed + 5.
  * DPRSE, Lemma 4 / Theorem 4 (7): arm a is gone after epoch τ(a) = max(1, ⌈log₂(1/Δ_a)⌉) on the good event
    (probability ≥ 1 − (π²/6)β here: the printed union bound is one-sided), so
    N_a ≤ Σ_{τ ≤ τ(a)} R_τ ≤ u^{1/v}(4θ/Δ_a)^p L̄_a/(ε(1 − 2^{−p})) + 2τ(a), L̄_a = log(4Kτ(a)²/β), θ the
    threshold (12: (48/Δ_a)^p); regret Σ_a Δ_a min{T, N_a} + (π²/6)βT max Δ. The printed Lemma 4,
    u^{1/(1+v)}(96/Δ_a)^p (log(4K/β) + log log(2/Δ_a))/ε + 2, has u^{1/(1+v)} for u^{1/v} (spec §4 [FLAG]) and
    drops the ceilings; ``form="paper"``. Theorem 4 (8), instance-independent, as its proof gives it with its
    unspecified constant C (u-factor corrected): 3u^{1/(1+v)}(CK log T/ε)^{v/(1+v)}T^{1/(1+v)} + max Δ.
  * LDPRSE, Theorem 7 (proof variant, D_τ = 2^{−τ}): the printed rate Δ_a^{−1/v}/ε² is wrong (spec §4
    [FLAG C]): R_τ ∝ D_τ^{−2p}, so N_a ≤ u^{2/v}(4θ/Δ_a)^{2p} L̄_a/(ε²(1 − 2^{−2p})) + τ(a)(L̄_a + 1),
    L̄_a = log(8Kτ(a)²/β), θ = 14: regret ∝ Δ_a^{−(2+v)/v}/ε². ``form="paper"``: the printed chain
    (1 − 4^{−p})^{−1}[u^{2/v}(3136/Δ_a)^p L̄_a/ε² + L̄_a].

Lower bounds, on the two-point instances `jaxbandit.envs.tails` builds (liminf R_T/log T, so asymptotic):
  * Theorem 5 (ε-DP): R_T ≥ log T/(200ε 4^{1/v}) Σ_a Δ_a^{−1/v} (the ½ of a union bound over arms times
    Σ Δ_a t_a), for μ_a ≤ 1/6, Δ_a < 1/12, regret ≤ T^{3/4}, T^{0.13} > max 4K/Δ_a.
  * Theorem 10 (ε-DP, two arms): log T/(200ε 5^{1/v}Δ^{1/v}).
  * Theorem 8 (ε-LDP): Σ_a log T/(8C(e^ε − 1)² 25^{1/v}Δ_a^{1/v}), C the proof's unspecified KL constant.
  * Theorem 11 (ε-LDP, two arms): log T/(8C(e^ε − 1)² 5^{1/v}Δ^{1/v}), C = (8/7)/(1 − 3.5·5^{1/v}Δ^p) from the
    proof.
  * Theorem 9 (ε-LDP, instance-independent): (1/8) exp(−8C 5^{1/v}(e − 1)² K/(K − 1)) (K/ε²)^{v/(1+v)}
    T^{1/(1+v)}, on some instance of its family (the max over two).

  The LDP proofs replace (e^ε − 1)² by ε², which loosens a lower bound the wrong way (e^ε − 1 ≥ ε); the default
  keeps (e^ε − 1)² ((e − 1)² in Theorem 9, for ε ≤ 1), ``form="paper"`` prints ε². They are valid but loose:
  the LDP contraction gives a rate Δ_a^{−(2+v)/v} (spec §4 [FLAG C]).
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit.theory.base import Bound, NotApplicable, gaps, horizons, in_unit_epsilon, per_arm

__all__ = ["dprucb_pulls", "dprucb_bound", "dprse_pulls", "dprse_bound", "dprse_minimax_bound", "ldprse_pulls",
           "ldprse_bound", "ldprse_minimax_bound", "dp_lower_bound", "dp_two_arm_lower_bound", "ldp_lower_bound",
           "ldp_two_arm_lower_bound", "ldp_minimax_lower_bound", "ldp_minimax_lower_log", "BOUNDS"]

FORMS = ("corrected", "paper")


def _form(form):
    if form not in FORMS:
        raise ValueError(f"form={form!r} must be one of {FORMS}")


def _v(v):
    v = float(v)
    if not 0 < v <= 1:
        raise ValueError(f"v={v:g} is outside (0, 1]")
    return v


def _regret(means, pulls, horizon, extra=0.0):
    mu = np.asarray(means, np.float64)
    T = horizons(horizon)
    capped = np.minimum(pulls, T[..., None])
    return np.nansum((mu.max() - mu) * capped, axis=-1) + extra


def _positive(name, value) -> float:
    value = float(value)
    if not 0 < value < math.inf:
        raise ValueError(f"{name}={value:g} must be positive and finite")
    return value


def dprucb_bonus_needed(horizon, variant: str = "corrected") -> float:
    """The smallest bonus constant for which Lemma 3's concentration holds (its proof, Eqs. 13–16): 2 (truncation
    bias) + √10 (Bernstein variance) + 2 (Bernstein range) + 10·r (tree noise), r = the tree's ε/ε′ over ln T:
    1 for the printed ε′ = ε/ln T (the paper's 18 ≥ 17.2), (⌊log₂T⌋ + 1)/ln T for the corrected ε′ = ε/levels,
    whose larger noise the printed 18 does not cover (21.6 at T = 10⁶)."""
    T = float(np.max(horizons(horizon)))
    r = 1.0 if variant == "printed" else (math.floor(math.log2(T)) + 1) / math.log(T)
    return 4 + math.sqrt(10) + 10 * r


def dprucb_pulls(means, horizon, epsilon, v, u, bonus=18.0, variant="corrected", *, form: str = "corrected"):
    """Seed 004 Theorem 2 (DPRUCB, its proof): E[N_a(T)] per arm (NaN for the best), vectorized over T; see the
    module docstring. Valid where the bonus constant covers Lemma 3's concentration (`dprucb_bonus_needed`:
    18 for the printed tree, about 21.6 for the corrected one at T = 10⁶); ``variant`` is the policy's option."""
    _form(form)
    in_unit_epsilon(epsilon, "Theorem 2")
    d, v, u, T = gaps(means), _v(v), _positive("u", u), horizons(horizon)[..., None]
    needed = dprucb_bonus_needed(horizon, variant)
    if float(bonus) < needed:
        raise NotApplicable(f"bonus={float(bonus):g} is below {needed:.4g}, what Lemma 3's concentration needs with "
                            f"the {variant} tree at T = {float(np.max(T)):g} (2 + sqrt(10) + 2 + 10 r)")
    p = (1 + v) / v
    logs = np.log(2 * T ** 4) * np.log(T) ** (1.5 + 1 / v) / float(epsilon)
    if form == "paper":
        return per_arm(means, 36 * u ** (1 / v) * logs / d ** p + 5)
    return per_arm(means, (2 * float(bonus)) ** p * u ** (1 / v) * logs / d ** p + 1 + math.pi ** 2 / 3)


def dprucb_bound(means, horizon, epsilon, v, u, bonus=18.0, variant="corrected", *, form: str = "corrected"):
    """Seed 004 Theorem 2: Σ_a Δ_a E[N_a(T)] with `dprucb_pulls` (uncapped: the theorem's form)."""
    mu = np.asarray(means, np.float64)
    pulls = dprucb_pulls(means, horizon, epsilon, v, u, bonus, variant, form=form)
    return np.nansum((mu.max() - mu) * pulls, axis=-1)


def _epochs(d):
    return np.maximum(1.0, np.ceil(np.log2(1 / d)))


def _beta(beta, horizon):
    if beta is None:
        return 1 / horizons(horizon)
    beta = float(beta)
    if not 0 < beta < 1:
        raise ValueError(f"beta={beta:g} is outside (0, 1)")
    return beta


FAILURE = math.pi ** 2 / 6  # P(not the good event) ≤ (π²/6)β (Lemma 4's union bound, taken two-sided)


def _elimination(means, horizon, epsilon, v, u, beta, theta, minimum, result, form):
    """(gaps, v, u, K, p = (1 + v)/v, β as a column, epochs τ(a)) of an elimination bound, its conditions checked:
    ε ∈ (0, 1] and a threshold θ at least the paper's (below it the best arm may be eliminated)."""
    _form(form)
    in_unit_epsilon(epsilon, result)
    if float(theta) < minimum:
        raise NotApplicable(f"theta={float(theta):g} is below {minimum}: the best arm may be eliminated ({result})")
    v, d = _v(v), gaps(means)
    return (d, v, _positive("u", u), np.asarray(means).size, (1 + v) / v,
            np.asarray(_beta(beta, horizon), np.float64)[..., None], _epochs(d))


def _good_event_pulls(means, horizon, epsilon, v, u, beta, theta, form, local):
    """Pulls of each arm on the good event (module docstring), from the schedule R_τ itself: Σ_{τ ≤ τ(a)} R_τ ≤
    u^{k/v}(2θ·2^{τ(a)})^{kp} L̄_a/(ε^k(1 − 2^{−kp})) + τ(a)·(ceilings), k = 1 (DPRSE) or 2 (LDPRSE); with
    2^{τ(a)} < 2/Δ_a this is the (4θ/Δ_a)^{kp} of the docstring for Δ_a ≤ 1, and stays valid above (τ(a) = 1)."""
    k, minimum, result = (2, 14, "Lemma 13") if local else (1, 12, "Lemma 4")
    d, v, u, K, p, b, tau = _elimination(means, horizon, epsilon, v, u, beta, theta, minimum, result, form)
    eps = float(epsilon) ** k
    if form == "paper":
        if local:
            big_l = np.log(8 * K * tau ** 2 / b)
            return per_arm(means, (u ** (2 / v) * (3136 / d) ** p * big_l / eps + big_l) / (1 - 4 ** -p))
        if np.any(d >= 2):
            raise NotApplicable("the printed Lemma 4 has log log(2/gap): every gap must be below 2")
        lg = np.log(4 * K / b) + np.log(np.log(2 / d))
        return per_arm(means, u ** (1 / (1 + v)) * (96 / d) ** p * lg / eps + 2)
    big_l = np.log((8 if local else 4) * K * tau ** 2 / b)
    schedule = u ** (k / v) * (2 * float(theta) * 2 ** tau) ** (k * p) * big_l / (eps * (1 - 2 ** (-k * p)))
    return per_arm(means, schedule + tau * ((big_l + 1) if local else 2))


def dprse_pulls(means, horizon, epsilon, v, u, beta=None, theta=12.0, *, form: str = "corrected"):
    """Seed 004 Lemma 4 (DPRSE): E[N_a(T)] per arm (NaN for the best): the good event's pulls
    (`_good_event_pulls`) + (π²/6)βT for the rest; ``beta`` None is the 1/T of Theorem 4. Valid for thresholds
    θ ≥ 12 (the best arm is then never eliminated). ``form="paper"``: the printed Lemma 4, a bound on the good
    event only."""
    pulls = _good_event_pulls(means, horizon, epsilon, v, u, beta, theta, form, local=False)
    return pulls if form == "paper" else pulls + FAILURE * _beta(beta, horizon) * horizons(horizon)[..., None]


def dprse_bound(means, horizon, epsilon, v, u, beta=None, theta=12.0, *, form: str = "corrected"):
    """Seed 004 Theorem 4 (7), explicit: Σ_a Δ_a min{T, N_a} on the good event + (π²/6)βT max Δ."""
    extra = FAILURE * _beta(beta, horizon) * horizons(horizon) * gaps(means).max()
    return _regret(means, _good_event_pulls(means, horizon, epsilon, v, u, beta, theta, form, local=False),
                   horizon, extra)


def dprse_minimax_bound(means, horizon, epsilon, v, u, *, C: float = 1.0):
    """Seed 004 Theorem 4 (8), as its proof gives it (β = 1/T, gaps ≥ 1/T): 3u^{1/(1+v)}(CK log T/ε)^{v/(1+v)}
    T^{1/(1+v)} + max Δ, C the constant of the proof's pull bound C u^{1/v} log(KT)/(εΔ^p), which it leaves
    unspecified (u-factor corrected from u^{v/(1+v)²})."""
    in_unit_epsilon(epsilon, "Theorem 4")
    d, v, T, K = gaps(means), _v(v), horizons(horizon), np.asarray(means).size
    return (3 * float(u) ** (1 / (1 + v)) * (C * K * np.log(T) / float(epsilon)) ** (v / (1 + v))
            * T ** (1 / (1 + v)) + d.max())


def ldprse_minimax_bound(means, horizon, epsilon, v, u, *, C: float = 1.0, form: str = "corrected"):
    """Seed 004 Theorem 7 (11), instance-independent, by Theorem 4 (8)'s argument with the corrected pull count
    N_a ≤ C u^{2/v} log T/(ε²Δ_a^{2(1+v)/v}) (C unspecified, as in (8)): split the arms at
    Δ* = (CK u^{2/v} log T/(ε²T))^{v/(2(1+v))}, so R_T ≤ 2u^{1/(1+v)}(CK log T/ε²)^{v/(2(1+v))}T^{(2+v)/(2(1+v))}
    + max Δ. ``form="paper"``: the printed u^{2/(1+v)}(CK log T/ε²)^{v/(1+v)}T^{1/(1+v)} + max Δ, which rests on
    the wrong pull count (spec 004 [FLAG C])."""
    _form(form)
    in_unit_epsilon(epsilon, "Theorem 7")
    d, v, T, K = gaps(means), _v(v), horizons(horizon), np.asarray(means).size
    load = C * K * np.log(T) / float(epsilon) ** 2
    if form == "paper":
        return float(u) ** (2 / (1 + v)) * load ** (v / (1 + v)) * T ** (1 / (1 + v)) + d.max()
    return 2 * float(u) ** (1 / (1 + v)) * load ** (v / (2 * (1 + v))) * T ** ((2 + v) / (2 * (1 + v))) + d.max()


def _corrected_variant(variant):
    if variant == "printed":
        raise NotApplicable("LDPRSE's printed variant (D = 4^-tau, err with R in the denominator) can eliminate the "
                            "best arm (spec 004 [FLAG B]): Theorem 7 does not hold for it")


def ldprse_pulls(means, horizon, epsilon, v, u, beta=None, theta=14.0, variant="corrected", *,
                 form: str = "corrected"):
    """Seed 004 Lemma 13 / Theorem 7 (LDPRSE, the proof's variant): E[N_a(T)] per arm (NaN for the best), the
    corrected rate Δ_a^{−2p} (the good event's pulls + (π²/6)βT); see the module docstring. ``form="paper"``: the
    printed chain, on the good event. Not for the policy's printed variant."""
    _corrected_variant(variant)
    pulls = _good_event_pulls(means, horizon, epsilon, v, u, beta, theta, form, local=True)
    return pulls if form == "paper" else pulls + FAILURE * _beta(beta, horizon) * horizons(horizon)[..., None]


def ldprse_bound(means, horizon, epsilon, v, u, beta=None, theta=14.0, variant="corrected", *,
                 form: str = "corrected"):
    """Seed 004 Theorem 7 (10), explicit: Σ_a Δ_a min{T, N_a} on the good event + (π²/6)βT max Δ."""
    _corrected_variant(variant)
    extra = FAILURE * _beta(beta, horizon) * horizons(horizon) * gaps(means).max()
    return _regret(means, _good_event_pulls(means, horizon, epsilon, v, u, beta, theta, form, local=True),
                   horizon, extra)


def dp_lower_bound(means, horizon, epsilon, v):
    """Seed 004 Theorem 5 (ε-DP, on `jaxbandit.envs.tails.theorem5_instance`): log T/(200ε 4^{1/v}) Σ_a
    Δ_a^{−1/v}, for every ε-DP algorithm (0 < ε ≤ 1) with regret ≤ T^{3/4} there; holds once T^{0.13} >
    max 4K/Δ_a, so as a slope on log T. Needs 0 < μ_a ≤ 1/6 and gaps < 1/12."""
    d, v = gaps(means), _v(v)
    in_unit_epsilon(epsilon, "Theorem 5")
    mu = np.asarray(means, np.float64)
    if mu.min() <= 0 or mu.max() > 1 / 6 + 1e-12 or d.max() >= 1 / 12:
        raise NotApplicable(f"Theorem 5 needs means in (0, 1/6] and gaps < 1/12 (means={mu.tolist()})")
    return np.log(horizons(horizon)) / (200 * float(epsilon) * 4 ** (1 / v)) * np.sum(d ** (-1 / v))


def dp_two_arm_lower_bound(means, horizon, epsilon, v):
    """Seed 004 Theorem 10 (ε-DP, 0 < ε ≤ 1, `theorem10_instance`): log T/(200ε 5^{1/v}Δ^{1/v}), Δ ∈ (0, 1/5)."""
    d, v = _two(means), _v(v)
    in_unit_epsilon(epsilon, "Theorem 10")
    return np.log(horizons(horizon)) / (200 * float(epsilon) * 5 ** (1 / v) * d ** (1 / v))


def _two(means):
    d = gaps(means)
    if d.size != 1 or not 0 < d[0] < 0.2:
        raise NotApplicable(f"the two-armed bounds need 2 arms with a gap in (0, 1/5), not means="
                            f"{np.asarray(means).tolist()}")
    return float(d[0])


def _privacy_factor(epsilon, form):
    _form(form)
    return float(epsilon) ** 2 if form == "paper" else math.expm1(float(epsilon)) ** 2


def ldp_lower_bound(means, horizon, epsilon, v, *, C: float = 1.0, form: str = "corrected"):
    """Seed 004 Theorem 8 (ε-LDP, `theorem5_instance`): Σ_a log T/(8C(e^ε − 1)² 25^{1/v}Δ_a^{1/v}) (ε² for
    ``form="paper"``), C the KL constant the proof leaves unspecified; needs μ_1 ≤ 1/2 and μ_a/5 ≤ Δ_a ≤ μ_a/2."""
    d, v = gaps(means), _v(v)
    mu = np.asarray(means, np.float64)
    rest = np.delete(mu, int(np.argmax(mu)))
    if mu.max() > 0.5 + 1e-12 or np.any(d < rest / 5 - 1e-12) or np.any(d > rest / 2 + 1e-12):
        raise NotApplicable("Theorem 8 needs mu_1 <= 1/2 and mu_a/5 <= Delta_a <= mu_a/2 for every suboptimal arm")
    return np.log(horizons(horizon)) * np.sum(1 / (8 * C * _privacy_factor(epsilon, form) * 25 ** (1 / v)
                                                   * d ** (1 / v)))


def _theorem11_c(d, v, result="Theorem 11"):
    """C = (8/7)/(1 − 3.5·5^{1/v}Δ^{(1+v)/v}), the KL constant of Theorem 11's proof (needs it positive)."""
    denominator = 1 - 3.5 * 5 ** (1 / v) * d ** ((1 + v) / v)
    if np.any(denominator <= 0):
        raise NotApplicable(f"gap={np.max(d):g}: {result}'s KL bound needs 3.5*5^(1/v)*gap^((1+v)/v) < 1")
    return 8 / 7 / denominator


def ldp_two_arm_lower_bound(means, horizon, epsilon, v, *, form: str = "corrected"):
    """Seed 004 Theorem 11 (ε-LDP, `theorem10_instance`): log T/(8C(e^ε − 1)² 5^{1/v}Δ^{1/v}) with the proof's
    C = (8/7)/(1 − 3.5·5^{1/v}Δ^{(1+v)/v}) (needs that denominator > 0)."""
    d, v = _two(means), _v(v)
    C = _theorem11_c(d, v)
    return np.log(horizons(horizon)) / (8 * C * _privacy_factor(epsilon, form) * 5 ** (1 / v) * d ** (1 / v))


def _theorem9_log(num_arms, horizon, epsilon, v, form):
    v, K = _v(v), int(num_arms)
    in_unit_epsilon(epsilon, "Theorem 9")
    _form(form)
    if K < 2:
        raise ValueError(f"num_arms={K} must be at least 2")
    T, eps = horizons(horizon), float(epsilon)
    load = K / (T * eps * eps)  # Δ^{(1+v)/v}: the proof's Δ = (K/(Tε²))^{v/(1+v)}
    if np.any(load ** (v / (1 + v)) >= 0.2):
        raise NotApplicable(f"Theorem 9's instance needs its gap (K/(T eps^2))^(v/(1+v)) < 1/5, i.e. T > 5^((1+v)/v)"
                            f" K/eps^2 = {5 ** ((1 + v) / v) * K / eps ** 2:.4g}")
    C = _theorem11_c(load ** (v / (1 + v)), v, "Theorem 9")
    factor = 1.0 if form == "paper" else (math.e - 1) ** 2
    return (-math.log(8) - 8 * C * 5 ** (1 / v) * factor * K / (K - 1)
            + v / (1 + v) * math.log(K / eps ** 2) + np.log(T) / (1 + v))


def ldp_minimax_lower_bound(num_arms, horizon, epsilon, v, *, form: str = "corrected"):
    """Seed 004 Theorem 9 (ε-LDP, instance-independent, ε ≤ 1): (1/8) exp(−8C 5^{1/v}(e − 1)² K/(K − 1))
    (K/ε²)^{v/(1+v)} T^{1/(1+v)} on one of two instances of its family, Δ = (K/(Tε²))^{v/(1+v)} < 1/5 and C
    Theorem 11's constant at that Δ (``form="paper"`` drops the (e − 1)²). Astronomically small (about e^{−1349}
    at v = 1/2): an order in T, K and ε only."""
    return np.exp(_theorem9_log(num_arms, horizon, epsilon, v, form))


# The lower bounds hold on their own hard instances: the registry's versions check that the environment is one
# (the two-point arms `jaxbandit.envs.tails` builds, at the policy's v).

def _on_instance(builder, means, v, low, high, p_high, result):
    if low is None or high is None or p_high is None:
        raise NotApplicable(f"{result} holds on its two-point hard instance (envs.tails.{builder.__name__}), "
                            "not on this environment")
    want = builder(means, v) if builder.__name__ != "theorem10_instance" else builder(_two(means), v)
    if not all(np.allclose(np.asarray(x, np.float64), want[k], rtol=1e-5, atol=1e-7)
               for k, x in (("low", low), ("high", high), ("p_high", p_high))):
        raise NotApplicable(f"{result} holds on envs.tails.{builder.__name__}(means, v={float(v):g}); these "
                            "two-point arms are not it")


def _theorem5_on_instance(means, horizon, epsilon, v, low=None, high=None, p_high=None):
    """Seed 004 Theorem 5 (`dp_lower_bound`) on its instance `envs.tails.theorem5_instance` only."""
    from jaxbandit.envs import tails
    _on_instance(tails.theorem5_instance, means, v, low, high, p_high, "Theorem 5")
    return dp_lower_bound(means, horizon, epsilon, v)


def _theorem10_on_instance(means, horizon, epsilon, v, low=None, high=None, p_high=None):
    """Seed 004 Theorem 10 (`dp_two_arm_lower_bound`) on its instance `envs.tails.theorem10_instance` only."""
    from jaxbandit.envs import tails
    _on_instance(tails.theorem10_instance, means, v, low, high, p_high, "Theorem 10")
    return dp_two_arm_lower_bound(means, horizon, epsilon, v)


def _theorem8_on_instance(means, horizon, epsilon, v, low=None, high=None, p_high=None, *, C: float = 1.0,
                          form: str = "corrected"):
    """Seed 004 Theorem 8 (`ldp_lower_bound`) on its instance `envs.tails.theorem5_instance` only."""
    from jaxbandit.envs import tails
    _on_instance(tails.theorem5_instance, means, v, low, high, p_high, "Theorem 8")
    return ldp_lower_bound(means, horizon, epsilon, v, C=C, form=form)


def _theorem11_on_instance(means, horizon, epsilon, v, low=None, high=None, p_high=None, *,
                           form: str = "corrected"):
    """Seed 004 Theorem 11 (`ldp_two_arm_lower_bound`) on its instance `envs.tails.theorem10_instance` only."""
    from jaxbandit.envs import tails
    _on_instance(tails.theorem10_instance, means, v, low, high, p_high, "Theorem 11")
    return ldp_two_arm_lower_bound(means, horizon, epsilon, v, form=form)


CENTRAL = ("dp-rucb", "dp-rse")
LOCAL = ("ldp-rse",)

#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("dprucb-thm2", dprucb_bound, paper="004", result="Theorem 2 (its proof)", kind="upper",
          policies=("dp-rucb",), note="constant 36^((1+v)/v), not the printed 36 (found here); form=paper; the "
                                      "corrected tree needs a bonus above 18 (dprucb_bonus_needed)"),
    Bound("dprucb-thm2-pulls", dprucb_pulls, paper="004", result="Theorem 2, E[N_a(T)]", kind="upper",
          quantity="pulls", policies=("dp-rucb",), note="as dprucb-thm2"),
    Bound("dprse-thm4", dprse_bound, paper="004", result="Lemma 4 / Theorem 4 (7), explicit", kind="upper",
          policies=("dp-rse",), note="u^(1/v), not the printed u^(1/(1+v)) (spec 004 §4); ceilings kept"),
    Bound("dprse-lemma4-pulls", dprse_pulls, paper="004", result="Lemma 4, E[N_a(T)]", kind="upper",
          quantity="pulls", policies=("dp-rse",), note="the good event's pulls + (pi^2/6) beta T"),
    Bound("dprse-thm4-minimax", dprse_minimax_bound, paper="004", result="Theorem 4 (8)", kind="upper",
          policies=("dp-rse",), asymptotic=True, note="C: the proof's unspecified constant"),
    Bound("ldprse-thm7", ldprse_bound, paper="004", result="Theorem 7 (10), corrected rate", kind="upper",
          policies=("ldp-rse",),
          note="rate Delta^-(2+v)/v, not the printed Delta^-1/v (spec 004 [FLAG C]); form=paper"),
    Bound("ldprse-thm7-minimax", ldprse_minimax_bound, paper="004", result="Theorem 7 (11), corrected rate",
          kind="upper", policies=("ldp-rse",), asymptotic=True,
          note="C unspecified; T^((2+v)/(2+2v)), not the printed T^(1/(1+v)) (spec 004 [FLAG C]); form=paper"),
    Bound("ldprse-thm7-pulls", ldprse_pulls, paper="004", result="Lemma 13, E[N_a(T)]",
          kind="upper", quantity="pulls", policies=("ldp-rse",), note="as ldprse-thm7"),
    Bound("dp-lower-thm5", _theorem5_on_instance, paper="004", result="Theorem 5", kind="lower", policies=CENTRAL,
          asymptotic=True, note="on the two-point instance of envs.tails.theorem5_instance"),
    Bound("dp-lower-thm10", _theorem10_on_instance, paper="004", result="Theorem 10", kind="lower",
          policies=CENTRAL, asymptotic=True, note="on envs.tails.theorem10_instance"),
    Bound("ldp-lower-thm8", _theorem8_on_instance, paper="004", result="Theorem 8", kind="lower", policies=LOCAL,
          asymptotic=True, note="C unspecified; (e^eps - 1)^2, not the printed eps^2 (a lower bound's wrong way)"),
    Bound("ldp-lower-thm11", _theorem11_on_instance, paper="004", result="Theorem 11", kind="lower",
          policies=LOCAL, asymptotic=True, note="on envs.tails.theorem10_instance"),
    Bound("ldp-lower-thm9", ldp_minimax_lower_bound, paper="004", result="Theorem 9", kind="lower",
          policies=LOCAL, asymptotic=True, note="instance-independent; on one of two instances of its family"),
)


def ldp_minimax_lower_log(num_arms, horizon, epsilon, v, *, form: str = "corrected"):
    """log of Theorem 9's bound (`ldp_minimax_lower_bound`): finite where the bound itself underflows (e^{−1349} at
    v = 1/2), so that its rates can be measured (seed 004's Table 1, `jaxbandit.experiments.heavy_tailed.table1`)."""
    return _theorem9_log(num_arms, horizon, epsilon, v, form)


_MOVED = ("table1", "table1_markdown", "rates", "TABLE1_ROWS")  # Table 1's report, now with the paper's experiments


def __getattr__(name):
    """The Table 1 report moved to `jaxbandit.experiments.heavy_tailed` (it measures the bounds' rates; the bounds
    stay here): its former names still work, with a deprecation warning."""
    if name in _MOVED:
        import importlib
        import warnings
        warnings.warn(f"jaxbandit.theory.heavy_tailed.{name} is now jaxbandit.experiments.heavy_tailed.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("jaxbandit.experiments.heavy_tailed"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
