"""Empirical privacy audits: Monte-Carlo falsification tests of a privacy claim (`jaxbandit audit`).

An audit runs a mechanism — one of the library's own privatizers, counters or estimators, or a policy's own
``select``/``update`` — many times on two neighbouring inputs (side 0 and side 1, e.g. reward sequences that differ
in one reward, worst-case where the paper says so), and bounds from below how well an observer can tell them apart:

  1. Selection, on a held-out split. Each trial returns a vector of features (the released values, or a code of a
     discrete output). On ``selection`` trials per side the audit ranks candidate events S = {s ≥ τ} or {s ≤ τ},
     over every feature, one linear discriminant of all features (ridge LDA, so that a contrast in which reused
     noise cancels is found without being named) and, for categorical outputs, the held-out log-ratio of each
     output, and keeps the event and the direction (which side is more likely in S) with the largest
     approximate lower bound.
  2. Test, on fresh trials. With counts k_big, k_small of S among ``trials`` fresh trials per side, one-sided
     Clopper–Pearson bounds at level α/2 each (union bound: the result holds with confidence 1 − α) give
     p_big ≥ p_lo and p_small ≤ p_hi, and

        ε claims ((ε, δ)-DP):  ε_LB = log((p_lo − δ) / p_hi)          (P_big(S) ≤ e^ε P_small(S) + δ),
        μ claims (μ-GDP):      μ_LB = Φ⁻¹(p_lo) − Φ⁻¹(p_hi)           (P_big(S) ≤ Φ(Φ⁻¹(P_small(S)) + μ)),

     clamped at 0. With confidence 1 − α a correct mechanism gives a lower bound ≤ its true level; a lower bound
     above the claim is a violation (`AuditResult.violated`). Passing proves nothing: only the bound is rigorous.

References: Clopper & Pearson (1934); the ε bound as in DP-Sniper (Bichsel et al., S&P 2021) and Jagielski et al.
(NeurIPS 2020); the μ bound from the trade-off function G_μ of Dong, Roth & Su (JRSS-B 2022, Def. 2.3), as in
Nasr et al. (USENIX Security 2023). Held-out event selection as in StatDP (Ding et al., CCS 2018).

Everything here is host-side NumPy/stdlib except the trials, which are one jitted, vmapped function of
(key, side) per audit (one compilation serves both sides), run in chunks.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.accounting.accountants import Guarantee

__all__ = ["Audit", "AuditResult", "beta_cdf", "beta_quantile", "clopper_pearson", "epsilon_lower_bound",
           "mu_lower_bound", "trade_off_curve", "claimed_trade_off", "run", "sample"]

_NORMAL = NormalDist()
CLAIM_KINDS = ("epsilon", "mu")


class Audit(NamedTuple):
    """One audit: the mechanism as a trial function, its neighbouring inputs, and the claim it must keep.

    Attributes:
      component: what is audited (a registry name of `jaxbandit.audit.components`, or any label).
      claim_kind: "epsilon" ((ε, δ)-DP) or "mu" (μ-GDP).
      claim: the claimed ε or μ.
      delta: δ of an (ε, δ) claim (0 for pure ε-DP; ignored for μ).
      features: ``(key, side) -> float[F]``: one trial on neighbour ``side`` (a traced int32, 0 or 1), jittable.
      exact: the exact level of this output on these neighbours (same kind as the claim) where it can be computed
        (from exact output probabilities), else ``None``.
      neighbours: what the two inputs are.
      output: what is observed.
      source: the paper result behind the claim.
      categorical: the features are codes of a discrete output (compare outputs, not thresholds of codes).
      trials: default number of test trials per side (selection uses a quarter more, held out).
      tight: for tight mechanisms, the fraction of the claim the lower bound reaches at the default trials
        (stated, and tested); ``None`` where the audited event cannot reach the claim.
      bug: the planted bug this audit runs (``None``: the library's mechanism as is).
      feature_names: a name per feature, for the report of the chosen event (default "feature j").
    """

    component: str
    claim_kind: str
    claim: float
    delta: float
    features: Callable
    exact: float | None
    neighbours: str
    output: str
    source: str
    categorical: bool = False
    trials: int = 200_000
    tight: float | None = None
    bug: str | None = None
    feature_names: tuple | None = None


class AuditResult(NamedTuple):
    """The outcome of `run`: the lower bound, the event it was measured on, and the counts behind it."""

    component: str
    claim_kind: str
    claim: float
    delta: float
    lower_bound: float
    exact: float | None
    trials: int
    selection_trials: int
    confidence: float
    event: str
    counts: tuple[int, int]          # (k_big, k_small): trials in S on the side S favours, and on the other
    probabilities: tuple[float, float]  # (p_lo, p_hi): the Clopper–Pearson bounds on P_big(S), P_small(S)
    bug: str | None
    scores: tuple[np.ndarray, np.ndarray]  # the chosen score on the test trials, (favoured side, other side)

    @property
    def violated(self) -> bool:
        """Whether the lower bound exceeds the claim (at confidence ``confidence`` the claim is then false)."""
        return self.lower_bound > self.claim

    def as_json(self) -> dict:
        return {"component": self.component, "claim_kind": self.claim_kind, "claim": self.claim,
                "delta": self.delta if self.claim_kind == "epsilon" else None, "lower_bound": self.lower_bound,
                "exact": self.exact, "trials": self.trials, "selection_trials": self.selection_trials,
                "confidence": self.confidence, "event": self.event, "counts": list(self.counts),
                "probabilities": list(self.probabilities), "bug": self.bug, "violated": self.violated}


# ----------------------------------------------------------------------------------- Clopper–Pearson, in stdlib
def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta (modified Lentz; converges for x < (a+1)/(a+b+2))."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < eps:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def _stirling_correction(x: float) -> float:
    """lgamma(x) − [(x − ½) log x − x + ½ log 2π] for x ≥ 10 (the Stirling series; error below 1e-17)."""
    x2 = 1.0 / (x * x)
    return (1 / 12 - x2 * (1 / 360 - x2 * (1 / 1260 - x2 * (1 / 1680 - x2 * (1 / 1188 - x2 * 691 / 360360))))) / x


def _log_beta(a: float, b: float) -> float:
    """log B(a, b) without the cancellation of lgamma(a) + lgamma(b) − lgamma(a + b) for large arguments (the
    Stirling-corrected form of R's lbeta)."""
    p, q = min(a, b), max(a, b)
    half_log_2pi = 0.5 * math.log(2 * math.pi)
    if p >= 10:
        corr = _stirling_correction(p) + _stirling_correction(q) - _stirling_correction(p + q)
        return (-0.5 * math.log(q) + half_log_2pi + corr + (p - 0.5) * math.log(p / (p + q))
                + q * math.log1p(-p / (p + q)))
    if q >= 10:
        corr = _stirling_correction(q) - _stirling_correction(p + q)
        return math.lgamma(p) + corr + p - p * math.log(p + q) + (q - 0.5) * math.log1p(-p / (p + q))
    return math.lgamma(p) + math.lgamma(q) - math.lgamma(p + q)


def beta_cdf(x: float, a: float, b: float) -> float:
    """I_x(a, b), the Beta(a, b) CDF at x, in float64 (Numerical Recipes §6.4's continued fraction)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log1p(-x) - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def beta_quantile(q: float, a: float, b: float) -> float:
    """The Beta(a, b) quantile at q by bisection of `beta_cdf`, to 1e-13 relative (tiny quantiles included)."""
    lo, hi = 0.0, 1.0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if beta_cdf(mid, a, b) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return 0.5 * (lo + hi)


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """One-sided Clopper–Pearson bounds at level ``alpha`` each: P(p < lo) ≤ alpha and P(p > hi) ≤ alpha for
    k successes in n trials (lo = 0 when k = 0, hi = 1 when k = n)."""
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"counts k={k}, n={n} must satisfy 0 <= k <= n, n >= 1")
    lo = beta_quantile(alpha, k, n - k + 1) if k > 0 else 0.0
    hi = beta_quantile(1 - alpha, k + 1, n - k) if k < n else 1.0
    return lo, hi


def epsilon_lower_bound(p_lo: float, p_hi: float, delta: float = 0.0) -> float:
    """ε_LB = log((p_lo − δ)/p_hi), clamped at 0: the smallest ε with P_big(S) ≤ e^ε P_small(S) + δ."""
    if p_lo <= delta or p_hi <= 0:
        return 0.0 if p_lo <= delta else math.inf
    return max(0.0, math.log((p_lo - delta) / p_hi))


def mu_lower_bound(p_lo: float, p_hi: float) -> float:
    """μ_LB = Φ⁻¹(p_lo) − Φ⁻¹(p_hi), clamped at 0: the smallest μ with P_big(S) ≤ Φ(Φ⁻¹(P_small(S)) + μ)."""
    if p_lo <= 0.0 or p_hi >= 1.0:
        return 0.0
    if p_hi <= 0.0 or p_lo >= 1.0:
        return math.inf
    return max(0.0, _NORMAL.inv_cdf(p_lo) - _NORMAL.inv_cdf(p_hi))


def _bound(kind: str, p_lo, p_hi, delta):
    """Vectorised lower bound for event selection (NumPy; the same formulas as the scalar ones)."""
    p_lo = np.clip(p_lo, 1e-300, 1 - 1e-16)
    p_hi = np.clip(p_hi, 1e-300, 1 - 1e-16)
    if kind == "epsilon":
        return np.where(p_lo > delta, np.log(np.maximum(p_lo - delta, 1e-300) / p_hi), 0.0)
    ppf = np.vectorize(_NORMAL.inv_cdf)
    return ppf(p_lo) - ppf(p_hi)


def _wilson(k, n, z):
    """Wilson score bounds (approximate, vectorised): used only to rank events on the selection split."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


# ------------------------------------------------------------------------------------------------- the trials
def sample(features: Callable, key, side: int, n: int, chunk: int = 16_384) -> np.ndarray:
    """``n`` trials of ``features`` on neighbour ``side``: float64[n, F] (keys split from ``key``). Every chunk has
    the same shape (the last one is cut after the call), so an audit compiles once whatever its trial counts."""
    fn = _compiled(features)
    out = []
    for i, start in enumerate(range(0, n, chunk)):
        keys = jax.random.split(jax.random.fold_in(key, i), chunk)
        x = np.asarray(fn(keys, jnp.int32(side)), np.float64).reshape(chunk, -1)
        out.append(x[: min(chunk, n - start)])
    return np.concatenate(out)


_CACHE: dict = {}


def _compiled(features):
    if features not in _CACHE:
        _CACHE[features] = jax.jit(jax.vmap(features, in_axes=(0, None)))
    return _CACHE[features]


# -------------------------------------------------------------------------------------------- event selection
class _Score(NamedTuple):
    name: str
    fn: Callable  # float64[n, F] -> float64[n]


def _candidate_scores(x0, x1, categorical: bool, names=None) -> list[_Score]:
    """Scores fitted on the selection split only: each feature, a ridge LDA direction, or output log-ratios."""
    if categorical:
        codes0, codes1 = (_codes(x) for x in (x0, x1))
        keys = np.union1d(codes0, codes1)
        c0 = np.searchsorted(keys, codes0)
        n0 = np.bincount(c0, minlength=len(keys))
        n1 = np.bincount(np.searchsorted(keys, codes1), minlength=len(keys))
        ratio = np.log((n0 + 0.5) / (n1 + 0.5))
        table = dict(zip(keys.tolist(), ratio.tolist()))

        def log_ratio(x):
            return np.asarray([table.get(c, 0.0) for c in _codes(x).tolist()])
        return [_Score("held-out log-ratio of the output", log_ratio)]
    names = names or [f"feature {j}" for j in range(x0.shape[1])]
    if len(names) != x0.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names for {x0.shape[1]} features")
    scores = [_Score(names[j], (lambda x, j=j: x[:, j])) for j in range(x0.shape[1])]
    if x0.shape[1] > 1:
        m = x0.mean(0) - x1.mean(0)
        cov = np.cov(x0, rowvar=False) + np.cov(x1, rowvar=False)
        ridge = 1e-9 * max(np.trace(cov), 1e-300) / len(m)
        w = np.linalg.solve(cov + ridge * np.eye(len(m)), m)
        w = w / max(np.abs(w).max(), 1e-300)
        name = (f"linear discriminant {np.array2string(w, precision=3, separator=', ')}" if len(w) <= 8
                else f"linear discriminant of the {len(w)} features")
        scores.append(_Score(name, lambda x, w=w: x @ w))
    return scores


def _codes(x):
    """One hashable code per row of a categorical feature matrix."""
    x = np.ascontiguousarray(x)
    return np.asarray([hash(row.tobytes()) for row in x]) if x.shape[1] > 1 else x[:, 0]


def _select(x0, x1, audit: Audit, alpha: float):
    """The (score, threshold, direction, side) with the largest approximate lower bound on the selection split."""
    z = _NORMAL.inv_cdf(1 - alpha / 2)
    best = None
    for score in _candidate_scores(x0, x1, audit.categorical, audit.feature_names):
        s0, s1 = score.fn(x0), score.fn(x1)
        pooled = np.concatenate([s0, s1])
        uniq = np.unique(pooled)
        taus = uniq if len(uniq) <= 512 else np.unique(np.quantile(pooled, np.linspace(0, 1, 513)))
        sorted0, sorted1 = np.sort(s0), np.sort(s1)
        for upper in (True, False):
            if upper:   # S = {s >= tau}
                k0 = len(s0) - np.searchsorted(sorted0, taus, side="left")
                k1 = len(s1) - np.searchsorted(sorted1, taus, side="left")
            else:       # S = {s <= tau}
                k0 = np.searchsorted(sorted0, taus, side="right")
                k1 = np.searchsorted(sorted1, taus, side="right")
            for big, (kb, nb, ks, ns) in enumerate(((k0, len(s0), k1, len(s1)), (k1, len(s1), k0, len(s0)))):
                lo, _ = _wilson(kb, nb, z)
                _, hi = _wilson(ks, ns, z)
                bounds = _bound(audit.claim_kind, lo, hi, audit.delta)
                i = int(np.argmax(bounds))
                if best is None or bounds[i] > best[0]:
                    best = (float(bounds[i]), score, float(taus[i]), upper, big)
    return best[1:]


# --------------------------------------------------------------------------------------------------- the audit
def run(audit: Audit, trials: int | None = None, *, confidence: float = 0.95, seed: int = 0,
        selection_trials: int | None = None) -> AuditResult:
    """Audit ``audit`` with ``trials`` fresh test trials per side (default ``audit.trials``) after choosing the
    event on ``selection_trials`` other trials per side (default a quarter of ``trials``, at least 10,000).

    Returns the Clopper–Pearson lower bound on the claimed quantity at ``confidence`` (see the module)."""
    trials = audit.trials if trials is None else trials
    checks.in_range("trials", trials, 100, 10**9)
    checks.in_range("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    if audit.claim_kind not in CLAIM_KINDS:
        raise ValueError(f"claim_kind={audit.claim_kind!r} must be one of {CLAIM_KINDS}")
    trials = int(trials)
    selection_trials = max(trials // 4, 10_000) if selection_trials is None else int(selection_trials)
    alpha = 1 - confidence
    k_sel, k_test = jax.random.split(jax.random.key(seed))
    pilot = [sample(audit.features, jax.random.fold_in(k_sel, side), side, selection_trials) for side in (0, 1)]
    score, tau, upper, big = _select(*pilot, audit, alpha)
    test = [score.fn(sample(audit.features, jax.random.fold_in(k_test, side), side, trials)) for side in (0, 1)]
    favoured, other = test[big], test[1 - big]
    inside = (lambda s: s >= tau) if upper else (lambda s: s <= tau)
    k_big, k_small = int(np.sum(inside(favoured))), int(np.sum(inside(other)))
    p_lo = clopper_pearson(k_big, trials, alpha / 2)[0]
    p_hi = clopper_pearson(k_small, trials, alpha / 2)[1]
    lower = (epsilon_lower_bound(p_lo, p_hi, audit.delta) if audit.claim_kind == "epsilon"
             else mu_lower_bound(p_lo, p_hi))
    event = f"{score.name} {'>=' if upper else '<='} {tau:.6g}, more likely on side {big}"
    return AuditResult(audit.component, audit.claim_kind, float(audit.claim), float(audit.delta), float(lower),
                       audit.exact, trials, selection_trials, confidence, event, (k_big, k_small), (p_lo, p_hi),
                       audit.bug, (favoured, other))


# ------------------------------------------------------------------------------------------ trade-off curves
def trade_off_curve(result: AuditResult, points: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """The empirical trade-off of the chosen score on the test trials: for thresholds τ, the type-I error
    α = P_other(s ∈ S_τ) and the type-II error β = 1 − P_favoured(s ∈ S_τ), S_τ the chosen event's family."""
    favoured, other = result.scores
    upper = ">=" in result.event
    sign = 1.0 if upper else -1.0
    pooled = np.unique(np.concatenate([favoured, other]) * sign)
    taus = pooled if len(pooled) <= points else np.quantile(pooled, np.linspace(0, 1, points))
    f, o = np.sort(favoured * sign), np.sort(other * sign)
    alpha = (len(o) - np.searchsorted(o, taus, side="left")) / len(o)
    beta = np.searchsorted(f, taus, side="left") / len(f)
    return np.concatenate([[1.0], alpha, [0.0]]), np.concatenate([[0.0], beta, [1.0]])


def claimed_trade_off(kind: str, claim: float, delta: float, alpha) -> np.ndarray:
    """The least trade-off the claim allows: f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Kairouz et al.
    2015) or G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022): `jaxbandit.accounting.Guarantee.tradeoff`."""
    if kind == "epsilon":
        guarantee = Guarantee("approx-dp", "run", float(claim), float(delta), None, "", "")
    else:
        guarantee = Guarantee("gdp", "run", None, None, float(claim), "", "")
    return guarantee.tradeoff(alpha)
