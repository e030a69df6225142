"""Privacy profiles: every notion of differential privacy as an object, with conversions and composition.

A profile is what a claim implies about the hockey-stick divergence of two neighbouring output laws: the smallest
δ(ε) such that the mechanism is (ε, δ(ε))-DP for each ε ≥ 0 (``delta_at``), its inverse ε(δ) (``epsilon_at``) and
the f-DP trade-off curve (``tradeoff``; Dong, Roth & Su, "Gaussian Differential Privacy", JRSS-B 2022, Def. 2.1 and
Prop. 2.12: (ε, δ(ε))-DP for every ε is f-DP with f = sup_ε f_{ε, δ(ε)}). Each is exact for its notion where the
notion determines it, else the best conversion we can cite (the class says which).

- PureDP(ε): the privacy region of ε-DP (Kairouz, Oh & Viswanath, "The Composition Theorem for Differential
  Privacy", ICML 2015 / IEEE TIT 2017, Thm 2.1 — "KOV"; randomized response attains it):
  δ(ε') = (e^ε − e^ε')₊/(1 + e^ε); exact.
- LDP(ε): the same region, for one user's report (local DP: the neighbours are two values of one report).
- ApproxDP(ε, δ): that of (ε, δ)-DP (KOV Thm 2.1): δ(ε') = δ + (1 − δ)(e^ε − e^ε')₊/(1 + e^ε); exact.
- GDP(μ): δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor. 2.13; `jaxbandit.accounting.gdp`, float64);
  exact.
- ZCDP(ρ): Rényi divergences D_α ≤ αρ for every α > 1 (Bun & Steinke, "Concentrated Differential Privacy",
  TCC 2016, Def. 1.1). δ(ε) = inf_α of the RDP conversion below with r = αρ (Canonne, Kamath &
  Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Prop. 12 in arXiv
  2004.00010v4 — "CKS"), minimised numerically over α (every α gives a valid bound, so an
  inexact minimum stays valid). Not exact: zCDP does not determine the profile.
- RDP(α_i, r_i): (α_i, r_i)-Rényi DP at finitely many orders (Mironov, "Rényi Differential Privacy", CSF 2017,
  Def. 4); δ(ε) = min_i exp((α − 1)(r − ε + log(1 − 1/α)) − log α) (CKS Prop. 12, as in Google's
  dp-accounting), ε(δ) = min_i r + log(1 − 1/α) − (log δ + log α)/(α − 1); both ≤ Mironov's
  Prop. 3 (exp((α − 1)(r − ε)), r + log(1/δ)/(α − 1)).
- Wishart(d, k): one release of a d×d second-moment matrix plus W_d(L²·I, k) noise, rows of norm ≤ L: (ε, δ)-DP
  for every δ with k = d + 28 ln(4/δ)/ε², i.e. ε(δ) = sqrt(28 ln(4/δ)/(k − d)) (Sheffet,
  "Private Approximations of the 2nd-Moment Matrix Using Existing Techniques in Linear
  Regression", arXiv 1507.00056, 2015, Thm 4.1, as used by Shariff & Sheffet, "Differentially
  Private Contextual Linear Bandits", NeurIPS 2018, §4 and their code's k = d + ⌊28 ln(4/δ)/ε²⌋).

Conversions (functions; each raises where no valid conversion exists):

- to_gdp: ε-DP ⇒ μ-GDP with μ = 2Φ⁻¹(e^ε/(1 + e^ε)) (`pure_to_mu`: the smallest such μ; DRS Prop. 2.5 gives
  ε-DP = f_{ε,0}-DP, and G_μ ≤ f_{ε,0} iff G_μ crosses the diagonal below f_{ε,0}'s corner
  1/(1 + e^ε)). (ε, δ > 0), zCDP and RDP imply no μ-GDP.
- to_zcdp: μ-GDP ⇒ (μ²/2)-zCDP (μ-GDP is a post-processing of N(0, 1) vs N(μ, 1), DRS Thm 2.10 (Blackwell), and
  Rényi divergence obeys data processing; D_α(N(0,1)‖N(μ,1)) = αμ²/2, Mironov Prop. 7);
  ε-DP ⇒ (ε²/2)-zCDP (Bun & Steinke 2016, Prop. 3.3).
- to_rdp: μ-GDP: αμ²/2; ρ-zCDP: αρ; ε-DP (and ε-LDP): the Rényi divergence of randomized response,
  log(p^α q^{1−α} + q^α p^{1−α})/(α − 1), p = e^ε/(1 + e^ε), q = 1 − p (Mironov Prop. 5 / Table II),
  exact for ε-DP since every ε-DP pair is a post-processing of randomized response's (KOV Thm 2.1 with
  Blackwell's theorem) and Rényi divergence obeys data processing.
- to_approx: (ε(δ), δ) at a given δ, from the profile.

Composition (`compose`, adaptive, of mechanisms run on the same data):

- same notion: ε-DP: Σε (basic composition, Dwork & Roth, "The Algorithmic Foundations of DP", 2014, Thm 3.16;
  the smallest pure ε of the composition); ε-LDP: Σε for one user's reports; (ε, δ): (Σε, Σδ)
  (same theorem); μ-GDP: sqrt(Σμ²) (DRS Cor. 3.3, exact); zCDP: Σρ (Bun & Steinke Lemma 1.7); RDP:
  Σr per order (Mironov Prop. 1), on the orders common to all parts.
- advanced: ``advanced=δ'`` for ε-DP and (ε, δ)-DP parts: (Σ ε_k tanh(ε_k/2) + sqrt(2 ln(1/δ') Σ ε_k²),
  δ' + Σ δ_k) (KOV Thm 3.5, heterogeneous; `composition.advanced_composition`, which also keeps
  Σε where that is smaller).
- mixed: without (ε, δ) parts: the tightest of the valid routes, pointwise (`Tightest`: a minimum of valid
  profiles is valid) — every part to RDP (always), to zCDP (when every part converts: ε-DP, μ-GDP,
  zCDP), to μ-GDP (when every part is ε-DP or μ-GDP). With (ε, δ) parts: those by basic
  composition, the rest by the rule above, and the two by basic composition of profiles
  (`Split`: δ(ε) = min over ε₁ + ε₂ = ε of δ_A(ε₁) + δ_R(ε₂)). ε-LDP composes with ε-LDP only
  (it protects a report, not the run).

`optimal_pure_composition` is the exact profile of composing ε_k-DP mechanisms (KOV Thm 3.3 for equal ε_k; Murtagh
& Vadhan, "The Complexity of Computing the Optimal Composition of Differential Privacy", TCC 2016, Thm 1.5 for
unequal): the profile of the product of randomized responses, computed from its privacy-loss distribution.
tests/test_calculus.py checks these against closed forms and against Google's dp-accounting (its PLD accountant).
"""
from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist
from typing import ClassVar

import numpy as np

from jaxbandit import checks

__all__ = ["Profile", "PureDP", "LDP", "ApproxDP", "GDP", "ZCDP", "RDP", "Wishart", "Tightest", "Split",
           "SelfComposed", "PureComposition", "DEFAULT_ORDERS", "pure_to_mu", "to_gdp", "to_zcdp", "to_rdp",
           "to_approx", "implies_gdp", "compose", "optimal_pure_composition", "of", "NOTION_CLASSES"]

_NORMAL = NormalDist()
#: The Rényi orders the RDP route of a mixed composition uses when no part fixes them (dp-accounting's default
#: grid, less its orders ≤ 1.01 where the conversion is unstable).
DEFAULT_ORDERS = tuple([1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5] + list(range(5, 64)) + [128, 256, 512])
_BISECTIONS = 200


def _gdp(name: str, *args) -> float:
    """A GDP conversion of `jaxbandit.accounting.gdp` (``delta`` or ``epsilon``) in float64: δ down to 1e-300."""
    import jax
    from jaxbandit.accounting import gdp
    with jax.enable_x64(True):
        return float(getattr(gdp, name)(*args))


def _eps_arg(epsilon) -> float:
    return float(checks.in_range("epsilon", epsilon, 0.0))


def _delta_arg(delta) -> float:
    return float(checks.in_range("delta", delta, 0.0, 1.0))


class Profile:
    """A privacy profile (module docstring). Subclasses give ``delta_at``; ``epsilon_at`` defaults to a
    bisection of it that returns the conservative end, and ``tradeoff`` to the sup over a grid of ε of the
    (ε, δ(ε)) regions (valid: a sup over fewer constraints is a weaker claim)."""

    notion: ClassVar[str] = ""

    def delta_at(self, epsilon: float) -> float:
        raise NotImplementedError

    def epsilon_at(self, delta: float) -> float:
        """ε(δ): the smallest ε ≥ 0 with δ(ε) ≤ δ (∞ where none), by bisection (the end where δ(ε) ≤ δ)."""
        d = _delta_arg(delta)
        if self.delta_at(0.0) <= d:
            return 0.0
        hi = 1.0
        while self.delta_at(hi) > d:
            hi *= 2
            if hi > 2.0 ** 60:
                return math.inf
        lo = 0.0
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lo + hi)
            if self.delta_at(mid) <= d:
                hi = mid
            else:
                lo = mid
            if hi - lo <= 1e-13 * hi:
                break
        return hi

    def tradeoff(self, alpha) -> np.ndarray:
        """A lower bound on the f-DP trade-off curve f(α) (exact where the subclass says so)."""
        alpha = np.asarray(alpha, np.float64)
        out = np.zeros_like(alpha)
        for eps in np.concatenate([[0.0], np.geomspace(1e-3, 60.0, 400)]):
            d = self.delta_at(float(eps))
            out = np.maximum.reduce([out, 1 - d - math.exp(eps) * alpha, math.exp(-eps) * (1 - d - alpha)])
        return out

    def level(self) -> float:
        """The one number that orders claims of this notion (larger: weaker): ε, μ or ρ."""
        raise TypeError(f"no single number orders {type(self).__name__} claims")

    def numbers(self) -> str:
        """The claim's numbers in the notion's own terms, for reports."""
        raise NotImplementedError

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.numbers()})"


def _pure_region_delta(e0: float, d0: float, eps: float) -> float:
    """δ(ε) of the (ε0, δ0)-DP region (KOV Thm 2.1)."""
    # (e^ε0 − e^ε)₊/(1 + e^ε0) written without overflow: (1 − e^(ε − ε0))₊/(1 + e^−ε0)
    part = -math.expm1(eps - e0) / (1 + math.exp(-e0)) if eps < e0 else 0.0
    return d0 + (1 - d0) * part


def _pure_region_epsilon(e0: float, d0: float, d: float) -> float:
    """ε(δ) of the (ε0, δ0)-DP region: the inverse of `_pure_region_delta`; ∞ below δ0."""
    if d < d0:
        return math.inf
    if d >= 1:
        return 0.0
    if math.isinf(e0):
        return math.inf
    # δ(ε) = δ: e^ε = e^ε0 − (δ − δ0)(1 + e^ε0)/(1 − δ0) = e^ε0 (1 − q), q = (δ − δ0)(1 + e^−ε0)/(1 − δ0)
    q = (d - d0) * (1 + math.exp(-e0)) / (1 - d0)
    return max(0.0, e0 + math.log1p(-q)) if q < 1 else 0.0


def _pure_region_tradeoff(e0: float, d0: float, alpha) -> np.ndarray:
    """f(α) = max(0, 1 − δ0 − e^ε0 α, e^−ε0 (1 − δ0 − α)) of the (ε0, δ0)-DP region (KOV Thm 2.1)."""
    alpha = np.asarray(alpha, np.float64)
    big = math.exp(min(e0, 700.0))
    return np.maximum.reduce([np.zeros_like(alpha), 1 - d0 - big * alpha, (1 - d0 - alpha) / big])


@dataclasses.dataclass(frozen=True)
class ApproxDP(Profile):
    """(ε, δ)-DP: the KOV privacy region (module docstring), exact."""

    epsilon: float
    delta: float = 0.0
    notion: ClassVar[str] = "approx-dp"

    def __post_init__(self):
        checks.in_range("epsilon", self.epsilon, 0.0)
        checks.in_range("delta", self.delta, 0.0, 1.0)

    def delta_at(self, epsilon: float) -> float:
        return _pure_region_delta(self.epsilon, self.delta or 0.0, _eps_arg(epsilon))

    def epsilon_at(self, delta: float) -> float:
        return _pure_region_epsilon(self.epsilon, self.delta or 0.0, _delta_arg(delta))

    def tradeoff(self, alpha) -> np.ndarray:
        return _pure_region_tradeoff(self.epsilon, self.delta or 0.0, alpha)

    def level(self) -> float:
        return self.epsilon

    def numbers(self) -> str:
        return f"ε = {self.epsilon:.6g}, δ = {self.delta:.3g}"


@dataclasses.dataclass(frozen=True)
class PureDP(ApproxDP):
    """ε-DP: the KOV privacy region with δ = 0, exact."""

    delta: float = dataclasses.field(default=0.0, init=False)
    notion: ClassVar[str] = "pure-dp"

    def numbers(self) -> str:
        return f"ε = {self.epsilon:.6g}"


@dataclasses.dataclass(frozen=True)
class LDP(PureDP):
    """ε-LDP of one user's report: the ε-DP region, for the neighbouring values of one report."""

    notion: ClassVar[str] = "ldp"


def pure_to_mu(epsilon: float) -> float:
    """The smallest μ with ε-DP ⇒ μ-GDP: 2Φ⁻¹(e^ε/(1 + e^ε)) (tight: the trade-off of ε-DP lies above G_μ);
    −2Φ⁻¹(1/(1 + e^ε)) where e^ε/(1 + e^ε) rounds to 1 (ε ≳ 37), ∞ where that underflows too."""
    if math.isinf(epsilon):
        return math.inf
    p = 1 / (1 + math.exp(-epsilon))
    if p < 1:
        return 2 * _NORMAL.inv_cdf(p)
    q = math.exp(-epsilon) / (1 + math.exp(-epsilon))
    return -2 * _NORMAL.inv_cdf(q) if q > 0 else math.inf


@dataclasses.dataclass(frozen=True)
class GDP(Profile):
    """μ-GDP (DRS Def. 2.6): its profile (Cor. 2.13) and trade-off G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), exact."""

    mu: float
    notion: ClassVar[str] = "gdp"

    def __post_init__(self):
        checks.in_range("mu", self.mu, 0.0)

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        if self.mu == 0 or math.isinf(self.mu):
            return 0.0 if self.mu == 0 else 1.0
        return _gdp("delta", eps, self.mu)

    def epsilon_at(self, delta: float) -> float:
        d = _delta_arg(delta)
        if self.mu == 0 or d >= 1:
            return 0.0
        if d == 0 or math.isinf(self.mu):
            return math.inf
        return _gdp("epsilon", d, self.mu)

    def tradeoff(self, alpha) -> np.ndarray:
        alpha = np.asarray(alpha, np.float64)
        inner = [_NORMAL.inv_cdf(min(max(1 - a, 1e-300), 1 - 1e-16)) for a in alpha.ravel()]
        return np.asarray([_NORMAL.cdf(v - self.mu) for v in inner]).reshape(alpha.shape)

    def level(self) -> float:
        return self.mu

    def numbers(self) -> str:
        return f"μ = {self.mu:.6g}"


def _rdp_log_delta(alpha: float, r: float, eps: float) -> float:
    """log δ of (α, r)-RDP at ε (CKS Prop. 12): (α − 1)(r − ε + log(1 − 1/α)) − log α."""
    return (alpha - 1) * (r - eps + math.log1p(-1 / alpha)) - math.log(alpha)


def _rdp_epsilon(alpha: float, r: float, delta: float) -> float:
    """ε of (α, r)-RDP at δ (CKS Prop. 12): r + log(1 − 1/α) − (log δ + log α)/(α − 1), at least 0."""
    return max(0.0, r + math.log1p(-1 / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1))


@dataclasses.dataclass(frozen=True)
class RDP(Profile):
    """(α_i, r_i)-RDP at the given orders α_i > 1; the profile by CKS Prop. 12, minimised over the orders
    (a valid bound, not exact)."""

    orders: tuple
    epsilons: tuple
    notion: ClassVar[str] = "rdp"

    def __post_init__(self):
        orders = tuple(float(a) for a in np.atleast_1d(checks.in_range("orders", self.orders, 1.0, low_open=True)))
        eps = tuple(float(e) for e in np.atleast_1d(checks.in_range("epsilons", self.epsilons, 0.0)))
        if len(orders) != len(eps) or not orders:
            raise ValueError(f"orders ({len(orders)}) and epsilons ({len(eps)}) must be non-empty and of one length")
        object.__setattr__(self, "orders", orders)
        object.__setattr__(self, "epsilons", eps)

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        return min(1.0, math.exp(min(_rdp_log_delta(a, r, eps) for a, r in zip(self.orders, self.epsilons))))

    def epsilon_at(self, delta: float) -> float:
        d = _delta_arg(delta)
        if d >= 1:
            return 0.0
        if d == 0:
            return math.inf
        return min(_rdp_epsilon(a, r, d) for a, r in zip(self.orders, self.epsilons))

    def numbers(self) -> str:
        shown = ", ".join(f"{a:g}: {r:.4g}" for a, r in list(zip(self.orders, self.epsilons))[:4])
        return f"ε(α) = {{{shown}{', ...' if len(self.orders) > 4 else ''}}}"


def _minimise_over_alpha(value) -> float:
    """min over α > 1 of ``value(α)``: a grid of α − 1 over [1e-4, 1e4] (log-spaced), refined by golden-section
    search around the best point. Every α gives a valid bound, so the result is valid whatever the minimum found."""
    grid = 1 + np.geomspace(1e-4, 1e4, 400)
    values = [value(a) for a in grid]
    i = int(np.argmin(values))
    lo, hi = math.log(grid[max(i - 1, 0)] - 1), math.log(grid[min(i + 1, len(grid) - 1)] - 1)
    best = values[i]
    g = (math.sqrt(5) - 1) / 2
    f = lambda x: value(1 + math.exp(x))
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = f(b)
    return min(best, fa, fb)


@dataclasses.dataclass(frozen=True)
class ZCDP(Profile):
    """ρ-zCDP (Bun & Steinke 2016, Def. 1.1): the profile is the CKS Prop. 12 conversion of (α, αρ)-RDP minimised
    over every α > 1 (valid, not exact). Below Bun & Steinke's Prop. 1.3, ε = ρ + 2 sqrt(ρ log(1/δ))."""

    rho: float
    notion: ClassVar[str] = "zcdp"

    def __post_init__(self):
        checks.in_range("rho", self.rho, 0.0)

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        if self.rho == 0:
            return 0.0
        if math.isinf(self.rho):
            return 1.0
        return min(1.0, math.exp(_minimise_over_alpha(lambda a: _rdp_log_delta(a, a * self.rho, eps))))

    def epsilon_at(self, delta: float) -> float:
        d = _delta_arg(delta)
        if self.rho == 0 or d >= 1:
            return 0.0
        if d == 0 or math.isinf(self.rho):
            return math.inf
        return _minimise_over_alpha(lambda a: _rdp_epsilon(a, a * self.rho, d))

    def level(self) -> float:
        return self.rho

    def numbers(self) -> str:
        return f"ρ = {self.rho:.6g}"


#: The ranges Sheffet's Wishart theorem is stated on: ε in (0, 1), δ in (0, 1/e) (Sheffet 2015, Thm 4.1; Shariff &
#: Sheffet 2018, App. C, Thm 22).
WISHART_MAX_EPSILON = 1.0
WISHART_MAX_DELTA = math.exp(-1.0)


@dataclasses.dataclass(frozen=True)
class Wishart(Profile):
    """One Wishart-mechanism release (module docstring): a d×d second-moment matrix plus W_d(s·I, k) noise, s at
    least the squared row-norm bound L². For every δ in (0, 1/e): (ε(δ), δ)-DP with ε(δ) = sqrt(28 ln(4/δ)/(k − d))
    where that is below 1 (Sheffet 2015, Thm 4.1, solved for ε; Shariff & Sheffet 2018, §4 and App. C, Thm 22,
    which state the theorem for ε in (0, 1) and δ in (0, 1/e)). Outside that range nothing is claimed beyond what
    the range implies: a δ ≥ 1/e gets the ε of δ → 1/e, an ε(δ) ≥ 1 is ∞."""

    dim: int
    dof: float

    def __post_init__(self):
        checks.positive_int("dim", self.dim)
        checks.in_range("dof", self.dof, float(self.dim), low_open=True)

    def epsilon_at(self, delta: float) -> float:
        d = min(_delta_arg(delta), WISHART_MAX_DELTA * (1 - 1e-12))
        if d == 0:
            return math.inf
        eps = math.sqrt(28 * math.log(4 / d) / (self.dof - self.dim))
        return eps if eps < WISHART_MAX_EPSILON else math.inf

    def delta_at(self, epsilon: float) -> float:
        eps = min(_eps_arg(epsilon), WISHART_MAX_EPSILON * (1 - 1e-12))
        delta = 4 * math.exp(-eps * eps * (self.dof - self.dim) / 28)
        return delta if delta < WISHART_MAX_DELTA else 1.0

    def numbers(self) -> str:
        return f"d = {self.dim}, k = {self.dof:g}"


@dataclasses.dataclass(frozen=True)
class Tightest(Profile):
    """The pointwise best of several valid profiles of one mechanism: δ(ε) = min_i δ_i(ε), ε(δ) = min_i ε_i(δ)
    (valid: the mechanism is (ε, δ_i(ε))-DP for each i)."""

    parts: tuple

    def delta_at(self, epsilon: float) -> float:
        return min(p.delta_at(epsilon) for p in self.parts)

    def epsilon_at(self, delta: float) -> float:
        return min(p.epsilon_at(delta) for p in self.parts)

    def numbers(self) -> str:
        return "the tightest of " + "; ".join(str(p) for p in self.parts)


@dataclasses.dataclass(frozen=True)
class Split(Profile):
    """Basic composition of two profiles (Dwork & Roth Thm 3.16 at every split): δ(ε) = min over ε₁ + ε₂ = ε of
    δ_A(ε₁) + δ_B(ε₂), over ε₁ on a grid of [0, ε] that includes an (ε_A, δ_A) first part's corner ε_A — any
    split is valid, so the minimum over a grid is too."""

    first: Profile
    second: Profile
    grid: int = 129

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        splits = set(np.linspace(0.0, eps, self.grid).tolist())
        if isinstance(self.first, ApproxDP):  # its corner: δ_A is flat (= δ) from ε_A on
            splits.add(min(eps, self.first.epsilon))
        return min(1.0, min(self.first.delta_at(e1) + self.second.delta_at(max(eps - e1, 0.0)) for e1 in splits))

    def numbers(self) -> str:
        return f"{self.first} composed with {self.second}"


@dataclasses.dataclass(frozen=True)
class SelfComposed(Profile):
    """k-fold adaptive composition of one profile (e.g. `Wishart` releases over a tree's nodes), the better of
    basic composition, each part at (ε/k, δ₁(ε/k)) so δ(ε) = k δ₁(ε/k) (Dwork & Roth Thm 3.16), and advanced
    composition: each part at (ε₀, δ₀) = (ε₁(δ₀), δ₀), the whole (ε₀ tanh(ε₀/2)·k + ε₀ sqrt(2k ln(1/δ')), δ' + kδ₀)
    (Kairouz, Oh & Viswanath 2015, Thm 3.5; Shariff & Sheffet 2018, App. A.2 split δ the same way with Dwork,
    Rothblum & Vadhan's weaker form), over a grid of splits δ = δ' + kδ₀ (each split valid, so their minimum is)."""

    part: Profile
    count: int
    splits: ClassVar[np.ndarray] = np.geomspace(1e-3, 0.999, 48)

    def __post_init__(self):
        checks.positive_int("count", self.count)

    def _advanced(self, d: float) -> float:
        from jaxbandit.accounting.composition import advanced_composition
        best = math.inf
        for f in self.splits:
            eps0 = self.part.epsilon_at((1 - f) * d / self.count)
            if math.isfinite(eps0):
                best = min(best, advanced_composition([eps0] * self.count, f * d))
        return best

    def epsilon_at(self, delta: float) -> float:
        d = _delta_arg(delta)
        if d >= 1:
            return 0.0
        basic = self.count * self.part.epsilon_at(d / self.count)
        return basic if self.count == 1 or d == 0 else min(basic, self._advanced(d))

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        basic = min(1.0, self.count * self.part.delta_at(eps / self.count))
        if self.count == 1:
            return basic
        lo, hi = math.log(1e-300), math.log(basic) if basic > 0 else math.log(1e-300)  # δ(ε): the least δ
        if self._advanced(math.exp(hi)) > eps:      # with ε(δ) ≤ ε, by bisection in log δ (ε(δ) decreases)
            return basic
        for _ in range(80):
            mid = (lo + hi) / 2
            if self._advanced(math.exp(mid)) <= eps:
                hi = mid
            else:
                lo = mid
        return min(basic, math.exp(hi))

    def numbers(self) -> str:
        return f"{self.count} × {self.part}"


@dataclasses.dataclass(frozen=True)
class PureComposition(Profile):
    """The exact profile of the adaptive composition of ε_k-DP mechanisms (module docstring: KOV Thm 3.3,
    Murtagh & Vadhan Thm 1.5): that of a product of randomized responses, whose privacy loss L = Σ ±ε_k takes
    +ε_k with probability e^ε_k/(1 + e^ε_k); δ(ε) = E[(1 − e^{ε − L})₊]. The law of L is enumerated exactly
    over the distinct ε_k (at most 10⁶ support points)."""

    epsilons: tuple
    notion: ClassVar[str] = "pure-dp"

    def __post_init__(self):
        eps = tuple(float(e) for e in np.atleast_1d(checks.in_range("epsilons", self.epsilons, 0.0,
                                                                      high_open=True)))
        if not eps:
            raise ValueError("epsilons must not be empty")
        values, counts = np.unique(eps, return_counts=True)
        if np.prod(counts.astype(np.float64) + 1) > 1e6:
            raise ValueError(f"{len(eps)} epsilons of {len(values)} distinct values give more than 10^6 loss "
                             f"values: too many to enumerate")
        object.__setattr__(self, "epsilons", eps)

    def _law(self):
        """(loss values, log-probabilities under P) of L."""
        values, counts = np.unique(self.epsilons, return_counts=True)
        loss, logp = np.zeros(1), np.zeros(1)
        for e, k in zip(values, counts):
            j = np.arange(k + 1)                    # the number of "−" outcomes among the k
            log_choose = np.array([math.lgamma(k + 1) - math.lgamma(i + 1) - math.lgamma(k - i + 1) for i in j])
            # log P(+) = −log(1 + e^−ε), log P(−) = −log(1 + e^ε)
            lp = log_choose - (k - j) * math.log1p(math.exp(-e)) - j * math.log1p(math.exp(e))
            loss = (loss[:, None] + (k - 2 * j) * e).ravel()
            logp = (logp[:, None] + lp).ravel()
        return loss, logp

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        loss, logp = self._law()
        keep = loss > eps
        # P(L > ε)·E[1 − e^{ε − L}] term by term in logs: p − p e^{ε − L}
        return float(max(0.0, np.sum(np.exp(logp[keep]) * -np.expm1(eps - loss[keep]))))

    def level(self) -> float:
        return float(sum(self.epsilons))

    def numbers(self) -> str:
        return f"ε_k = {', '.join(f'{e:.4g}' for e in self.epsilons[:4])}{', ...' if len(self.epsilons) > 4 else ''}"


def optimal_pure_composition(epsilons) -> PureComposition:
    """The exact profile of composing ε_k-DP mechanisms (`PureComposition`)."""
    return PureComposition(tuple(np.atleast_1d(np.asarray(epsilons, np.float64)).tolist()))


# ----------------------------------------------------------------------------------------------- conversions
def _pure_epsilon(p: Profile):
    """ε of a claim with no δ (ε-DP, ε-LDP, (ε, 0)-DP), else None."""
    if isinstance(p, ApproxDP) and not p.delta:
        return p.epsilon
    return None


def implies_gdp(p: Profile) -> bool:
    """Whether ``p`` implies a μ-GDP claim (μ-GDP itself, or a claim with no δ: ε-DP, ε-LDP, (ε, 0)-DP)."""
    return isinstance(p, GDP) or _pure_epsilon(p) is not None


def to_gdp(p: Profile) -> GDP:
    """The smallest μ-GDP claim implied by ``p`` (module docstring): μ-GDP itself; ε-DP through `pure_to_mu`.
    ValueError for (ε, δ > 0), zCDP and RDP, which imply no μ-GDP."""
    if not implies_gdp(p):
        raise ValueError(f"{p} implies no μ-GDP claim: only ε-DP and μ-GDP convert to μ-GDP")
    return p if isinstance(p, GDP) else GDP(pure_to_mu(_pure_epsilon(p)))


def to_zcdp(p: Profile) -> ZCDP:
    """A ρ-zCDP claim implied by ``p``: μ-GDP ⇒ μ²/2 (tight for the Gaussian); ε-DP ⇒ ε²/2 (Bun & Steinke
    Prop. 3.3). ValueError for (ε, δ > 0) and finite-order RDP."""
    if isinstance(p, ZCDP):
        return p
    if isinstance(p, GDP):
        return ZCDP(p.mu * p.mu / 2)
    eps = _pure_epsilon(p)
    if eps is None:
        raise ValueError(f"{p} implies no zCDP claim: only ε-DP, μ-GDP and zCDP convert to zCDP")
    return ZCDP(eps * eps / 2)


def _rr_renyi(eps: float, alpha: float) -> float:
    """D_α of randomized response at level ε: log(p^α q^{1−α} + q^α p^{1−α})/(α − 1), p = e^ε/(1 + e^ε), in
    logs (log p = −log(1 + e^−ε), log q = −log(1 + e^ε))."""
    if eps == 0:
        return 0.0
    lp, lq = -math.log1p(math.exp(-eps)), -math.log1p(math.exp(eps))
    a, b = alpha * lp + (1 - alpha) * lq, alpha * lq + (1 - alpha) * lp
    top = max(a, b)
    return min(eps, (top + math.log(math.exp(a - top) + math.exp(b - top))) / (alpha - 1))


def to_rdp(p: Profile, orders=DEFAULT_ORDERS) -> RDP:
    """An RDP claim implied by ``p`` at ``orders`` (module docstring): μ-GDP αμ²/2, ρ-zCDP αρ, ε-DP randomized
    response's D_α (exact), RDP itself restricted to ``orders`` (each must be one of its orders). ValueError for
    (ε, δ > 0)."""
    orders = tuple(float(a) for a in orders)
    if isinstance(p, RDP):
        have = dict(zip(p.orders, p.epsilons))
        missing = [a for a in orders if a not in have]
        if missing:
            raise ValueError(f"orders {missing} are not among the RDP claim's orders {list(p.orders)}")
        return RDP(orders, tuple(have[a] for a in orders))
    if isinstance(p, GDP):
        return RDP(orders, tuple(a * p.mu * p.mu / 2 for a in orders))
    if isinstance(p, ZCDP):
        return RDP(orders, tuple(a * p.rho for a in orders))
    eps = _pure_epsilon(p)
    if eps is None:
        raise ValueError(f"{p} implies no RDP claim: (ε, δ)-DP with δ > 0 bounds no Rényi divergence")
    return RDP(orders, tuple(_rr_renyi(eps, a) for a in orders))


def to_approx(p: Profile, delta: float) -> ApproxDP:
    """The (ε(δ), δ)-DP claim of ``p`` at ``delta``."""
    return ApproxDP(p.epsilon_at(delta), float(delta))


def compose(*profiles: Profile, advanced: float | None = None) -> Profile:
    """The adaptive composition of mechanisms with these claims (module docstring: the exact rule within a
    notion; across notions the tightest valid route, named there). ``advanced``: δ' of the advanced composition
    of ε-DP and (ε, δ)-DP parts (KOV Thm 3.5), instead of basic composition."""
    if not profiles:
        raise ValueError("compose needs at least one profile")
    from jaxbandit.accounting.composition import advanced_composition
    kinds = {type(p) for p in profiles}
    local = [p for p in profiles if isinstance(p, LDP)]
    if local and len(local) != len(profiles):
        raise ValueError("ε-LDP claims compose only with ε-LDP claims (one user's reports), not with central ones")
    approx = [p for p in profiles if isinstance(p, ApproxDP)]
    if advanced is not None:
        if len(approx) != len(profiles):
            raise ValueError("advanced composition applies to ε-DP and (ε, δ)-DP claims only")
        checks.in_range("advanced", advanced, 0.0, 1.0, low_open=True, high_open=True)
        eps = advanced_composition([p.epsilon for p in approx], advanced)
        return ApproxDP(eps, min(1.0, advanced + sum(p.delta for p in approx)))
    if local:
        return LDP(sum(p.epsilon for p in local))
    if kinds == {PureDP}:
        return PureDP(sum(p.epsilon for p in profiles))
    if len(approx) == len(profiles):
        return ApproxDP(sum(p.epsilon for p in approx), min(1.0, sum(p.delta for p in approx)))
    if kinds == {GDP}:
        return GDP(math.sqrt(sum(p.mu * p.mu for p in profiles)))
    if kinds == {ZCDP}:
        return ZCDP(sum(p.rho for p in profiles))
    if kinds == {RDP}:
        orders = [a for a in profiles[0].orders if all(a in p.orders for p in profiles[1:])]
        if not orders:
            raise ValueError("these RDP claims share no order")
        parts = [to_rdp(p, orders) for p in profiles]
        return RDP(tuple(orders), tuple(sum(e) for e in zip(*(p.epsilons for p in parts))))
    # (ε, δ) parts basic-composed, profiles of no notion here (`Wishart`, `Tightest`...) each as it is, the rest
    # by its own rule; these by basic composition of profiles
    with_delta = [p for p in approx if p.delta]
    general = [p for p in profiles if type(p) not in NOTION_CLASSES.values()]
    rest = [p for p in profiles if type(p) in NOTION_CLASSES.values() and not (isinstance(p, ApproxDP) and p.delta)]
    if with_delta or general:
        pieces = ([compose(*with_delta)] if with_delta else []) + general + ([compose(*rest)] if rest else [])
        out = pieces[0]
        for piece in pieces[1:]:
            out = Split(out, piece)
        return out
    return _mixed(profiles)


def _mixed(profiles) -> Profile:
    """Parts of ε-DP, μ-GDP, zCDP, RDP (no δ): the tightest of the valid routes (module docstring)."""
    rdp = [p for p in profiles if isinstance(p, RDP)]
    orders = DEFAULT_ORDERS
    if rdp:
        orders = tuple(a for a in rdp[0].orders if all(a in p.orders for p in rdp[1:]))
    routes = [compose(*(to_rdp(p, orders) for p in profiles))]
    if not rdp:
        routes.append(compose(*(to_zcdp(p) for p in profiles)))
    if all(implies_gdp(p) for p in profiles):
        routes.append(compose(*(to_gdp(p) for p in profiles)))
    return Tightest(tuple(routes)) if len(routes) > 1 else routes[0]


#: The profile class of each claim notion an `Accountant` states, and the numbers of its ``level``.
NOTION_CLASSES = {"pure-dp": PureDP, "approx-dp": ApproxDP, "gdp": GDP, "ldp": LDP, "zcdp": ZCDP, "rdp": RDP}


def of(notion: str, level: dict) -> Profile:
    """The profile of a claim of ``notion`` with the numbers ``level`` (an accountant's: {"epsilon"},
    {"epsilon", "delta"}, {"mu"}, {"rho"}, {"orders", "epsilons"}, or {"profile": a `Profile`} for a claim of
    that notion at every δ that no one pair of numbers states, e.g. Wishart releases composed over a tree)."""
    checks.known_name("privacy notion", notion, NOTION_CLASSES)
    if isinstance(level.get("profile"), Profile):  # a claim no numbers of its notion state (a composed Wishart)
        return level["profile"]
    cls = NOTION_CLASSES[notion]
    if cls is GDP:
        return GDP(float(level["mu"]))
    if cls is ZCDP:
        return ZCDP(float(level["rho"]))
    if cls is RDP:
        return RDP(tuple(level["orders"]), tuple(level["epsilons"]))
    if cls is ApproxDP:
        return ApproxDP(float(level["epsilon"]), float(level.get("delta", 0.0)))
    return cls(float(level["epsilon"]))
