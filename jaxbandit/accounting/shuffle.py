"""Privacy in the shuffle model: amplification of local Gaussian reports by shuffling, and binomial vector sums.

Two profiles, for Chowdhury & Zhou's shuffle-private LinUCB ("Shuffle Private Linear Contextual Bandits", ICML 2022;
`jaxbandit.policies.shuffle_linear`). The neighbouring relation is the shuffle model's: one user of a shuffled batch
of n replaced, n fixed; the view is the multiset of the batch's messages (for a sum protocol, its sums). Each user
is in one batch, so the claim for a batch is the claim for the run (parallel composition).

`ShuffledGaussian` (SDP-Amp): each user sends its report plus Gaussian noise, μ-GDP for its data. Its profile is the
better, at each ε, of

- the report alone (local DP implies shuffle DP: the shuffled multiset is a post-processing of the reports):
  δ(ε) = δ_μ(ε), the μ-GDP profile;
- amplification by shuffling, Feldman, McMillan & Talwar, "Hiding Among the Clones", FOCS 2021 (arXiv 2012.12803,
  "FMT"): for ε₀-DP randomizers the shuffled output is (ε, δ)-DP with δ(ε) the hockey-stick divergence of their
  clone pair (the reduction of FMT §3, computed exactly as in their Appendix E's numerical method, Apple's
  `ml-shuffling-amplification`, `onestep`, but summed over every clone count c instead of in blocks),

      δ_clone(ε) = Σ_{c=0}^{n−1} Bin(n − 1, e^{−ε₀})(c) · (P_c(A) − e^ε Q_c(A)),
      P_c = α Bin(c, ½) + (1 − α)(Bin(c, ½) + 1),  Q_c = (1 − α) Bin(c, ½) + α (Bin(c, ½) + 1),  α = e^ε₀/(e^ε₀ + 1),

  A = {k ≤ cutoff} the set where P_c > e^ε Q_c; and for (ε₀, δ₀)-DP randomizers (a Gaussian report is (ε₀,
  δ_μ(ε₀))-DP at every ε₀) FMT's Theorem 3.8 adds (e^ε + 1)(1 + e^{−ε₀}/2) n δ₀. The profile takes the best ε₀
  on a grid (each is valid, so is their minimum).

  The paper's text was not available to us: the clone pair is checked against the authors' code (the README's
  interval at n = 10⁵, ε₀ = 4, δ = 10⁻⁶ contains our exact value) and by brute force; the (ε₀, δ₀) term's form
  against two independent implementations of Theorem 3.8 (tests/test_shuffle.py). At small n (Chowdhury & Zhou's
  B = 20) amplification gives nothing: the report's own guarantee is the better one.

`BinomialSum` (SDP-Vec): Cheu, Joseph, Mao & Peng's vector summation (Shuffle Private Stochastic Convex
Optimization, ICLR 2022) as Chowdhury & Zhou run it: each user rounds each coordinate of its shifted vector at random
to the grid (L/g)ℤ and adds Bin(b, p) one-messages per coordinate; after shuffling only the count of one-messages
of each coordinate is seen (Chowdhury & Zhou's analyzer reads nothing else), so the view of a batch is, per
coordinate j, Y_j = S_j + Bin(N, p), N = n b, S_j the sum of the users' rounded values. Replacing one user shifts
S by an integer vector k with |k_j| < |Δa_j| + 2 (Δa the change of the user's grid values; randomized rounding
moves each value by less than 1) and ‖k‖₂ ≤ (g/L)‖Δv‖₂ + 2√m over m coordinates. The profile is a Chernoff bound
on the privacy loss, exact per coordinate (no normal approximation): with Λ(λ; k) = log E_P[(P/Q)^λ] over the
outputs where Q > 0, for the shifted binomial pair P = Bin(N, p) ± k, Q = Bin(N, p), computed exactly from the pmf,
and c(λ) = max over 1 ≤ k ≤ k_max and both signs of Λ(λ; k)/k²,

    δ(ε) ≤ min_λ  exp(c(λ) K² − λ ε) · (1/(λ + 1)) (λ/(λ + 1))^λ  +  m · δ_∞,

K the bound on ‖k‖₂, δ_∞ the largest mass P puts where Q has none (the binomial's support ends: a tail of
probability below p^{N − k_max}); the product of the coordinates' moment generating functions bounds the
composition (they are independent), and (1 − e^{ε−L})₊ ≤ e^{λ(L − ε)}/(λ + 1)·(λ/(λ + 1))^λ is the conversion of
Canonne, Kamath & Steinke (NeurIPS 2020, Prop. 12) applied pointwise. Cheu et al.'s theorem needs a large constant
in b that Chowdhury & Zhou's code drops; this profile states what the b actually run gives.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import ClassVar

import numpy as np

from jaxbandit import checks
from jaxbandit.accounting.profiles import GDP, Profile, _eps_arg

__all__ = ["clone_hockey_stick", "clone_delta", "amplified_epsilon", "ShuffledGaussian", "BinomialSum",
           "binomial_log_pmf", "binomial_trials_for"]


def _binomial_half_cdf(c, k):
    """P(Bin(c, ½) ≤ k) for arrays c ≥ 0 and real k (floored), in float64."""
    import jax
    c = np.asarray(c, np.float64)
    k = np.floor(np.asarray(k, np.float64))
    inside = (k >= 0) & (k < c)
    size = max(64, 1 << int(np.ceil(np.log2(max(c.size, 1)))))  # padded: one compilation per power of two
    a = np.ones(size)
    b = np.ones(size)
    a[:c.size] = np.where(inside, c - k, 1.0)
    b[:c.size] = np.where(inside, k + 1, 1.0)
    with jax.default_device(jax.devices("cpu")[0]), jax.enable_x64(True):
        mid = np.asarray(_betainc_half(a, b))[:c.size]
    return np.where(k < 0, 0.0, np.where(k >= c, 1.0, mid))


@functools.lru_cache(maxsize=1)
def _betainc_jit():
    import jax
    from jax.scipy.special import betainc
    return jax.jit(lambda a, b: betainc(a, b, 0.5))


def _betainc_half(a, b):
    return _betainc_jit()(a, b)


def clone_hockey_stick(c, epsilon: float, epsilon0: float) -> np.ndarray:
    """D_{e^ε}(P_c ‖ Q_c) of FMT's clone pair with c clones (module docstring), in closed form by the cutoff where
    P_c > e^ε Q_c (Apple's ``onestep``); ε < ε₀ (for ε ≥ ε₀ the divergence is 0)."""
    c = np.asarray(c, np.float64)
    if epsilon >= epsilon0:
        return np.zeros_like(c)
    alpha = math.exp(epsilon0) / (math.exp(epsilon0) + 1)
    # log((e^{ε₀+ε} − 1)/(e^{ε₀} − e^ε)), finite for ε < ε₀
    eff = math.log(math.expm1(epsilon0 + epsilon)) - math.log(math.exp(epsilon0) - math.exp(epsilon))
    cutoff = (c + 1) / (math.exp(eff) + 1)
    f_hi, f_lo = _binomial_half_cdf(c, cutoff), _binomial_half_cdf(c, cutoff - 1)
    p = alpha * f_hi + (1 - alpha) * f_lo
    q = (1 - alpha) * f_hi + alpha * f_lo
    return np.maximum(p - math.exp(epsilon) * q, 0.0)


def binomial_log_pmf(trials: int, p: float) -> np.ndarray:
    """log P(Bin(N, p) = y) for y = 0..N, by the ratio recursion (exact up to float64 rounding)."""
    y = np.arange(trials, dtype=np.float64)
    steps = np.log(trials - y) - np.log(y + 1) + math.log(p) - math.log1p(-p)
    return np.concatenate([[trials * math.log1p(-p)], trials * math.log1p(-p) + np.cumsum(steps)])


def _clone_weights(n: int, epsilon0: float):
    """The clone counts c carrying Bin(n − 1, e^{−ε₀}) mass above 1e-30, their weights, and the mass left out."""
    q = math.exp(-epsilon0)
    if n == 1:
        return np.zeros(1), np.ones(1), 0.0
    mean, sd = (n - 1) * q, math.sqrt((n - 1) * q * (1 - q))
    lo, hi = max(0, int(mean - 14 * sd - 10)), min(n - 1, int(mean + 14 * sd + 10))
    c = np.arange(lo, hi + 1, dtype=np.float64)
    logw = (math.lgamma(n) - np.vectorize(math.lgamma)(c + 1) - np.vectorize(math.lgamma)(n - c)
            + c * math.log(q) + (n - 1 - c) * (math.log1p(-q) if q < 1 else 0.0))
    w = np.exp(logw)
    return c, w, max(0.0, 1.0 - float(w.sum()))


def clone_delta(n: int, epsilon0: float, epsilon: float) -> float:
    """δ(ε) of n shuffled ε₀-DP reports by FMT's clone reduction, summed over every clone count (the mass of
    counts left out, below 1e-30 each, is added whole: an upper bound)."""
    c, w, rest = _clone_weights(n, epsilon0)
    return min(1.0, float(np.dot(w, clone_hockey_stick(c, epsilon, epsilon0))) + rest)


def amplified_epsilon(n: int, epsilon0: float, delta: float) -> float:
    """The smallest ε with `clone_delta` ≤ δ, by bisection on [0, ε₀] (the conservative end)."""
    if clone_delta(n, epsilon0, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, epsilon0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if clone_delta(n, epsilon0, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


@dataclasses.dataclass(frozen=True)
class ShuffledGaussian(Profile):
    """n shuffled μ-GDP Gaussian reports, one per user (module docstring): the better of the report's own profile
    and FMT's amplification (the clone pair plus Theorem 3.8's (ε₀, δ₀) term) at the best ε₀ of a grid."""

    mu: float
    users: int
    notion: ClassVar[str] = "approx-dp"
    grid: ClassVar[np.ndarray] = np.geomspace(0.02, 30.0, 40)

    def __post_init__(self):
        checks.in_range("mu", self.mu, 0.0, low_open=True)
        checks.positive_int("users", self.users)

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        local = GDP(self.mu)
        best = local.delta_at(eps)
        if eps > 700:  # e^ε overflows; the amplification term only grows with ε
            return best
        for e0 in self.grid:
            d0 = local.delta_at(float(e0))
            extra = (math.exp(eps) + 1) * (1 + math.exp(-e0) / 2) * self.users * d0
            if extra >= best:
                continue
            best = min(best, clone_delta(self.users, float(e0), eps) + extra)
        return min(1.0, best)

    def numbers(self) -> str:
        return f"μ = {self.mu:.6g} per report, shuffled in batches of {self.users}"


def _log_pmf(trials: int, p: float, j: int) -> float:
    """log P(Bin(N, p) = j) for one j in [0, N]."""
    return (math.lgamma(trials + 1) - math.lgamma(j + 1) - math.lgamma(trials - j + 1) + j * math.log(p)
            + (trials - j) * math.log1p(-p))


#: Half-width of the window of outputs summed exactly in `_binomial_moments`, in standard deviations.
WINDOW_SD = 25


def _shells(start: int, stop: int, step: int):
    """[a, b) intervals covering [start, stop) (step > 0) or (stop, start] (step < 0) in doubling lengths."""
    out, length, a = [], 1, start
    while (a < stop) if step > 0 else (a > stop):
        b = min(a + length, stop) if step > 0 else max(a - length, stop)
        out.append((a, b) if step > 0 else (b + 1, a + 1))
        a, length = b, 2 * length
    return out


@functools.lru_cache(maxsize=64)
def _binomial_moments(trials: int, p: float, max_shift: int, lambdas: tuple):
    """(c(λ) = max_k Λ(λ; k)/k², δ_∞): the shifted binomial pair's moments (module docstring).

    Exact over the outputs within `WINDOW_SD` standard deviations of the mode; each term outside, P(y)^{1+λ}
    Q(y)^{−λ} = e^{lf(j) + λ (lf(j) − lf(j ± k))} with lf the log-pmf and j P's atom, is bounded over shells of
    doubling length by the log-pmf's shape (log-concave: lf is monotone on each side of the mode, and
    lf(j) − lf(j + k) increases with j, lf(j) − lf(j − k) decreases): the shell's largest lf plus λ times the
    difference at its far (+k) or near (−k) end, times its length. A valid upper bound; the far tails matter only
    at large λ, which the minimum over λ does not pick."""
    n = trials
    sd = math.sqrt(n * p * (1 - p))
    mode = min(n, int(math.floor((n + 1) * p)))
    kmax = min(max_shift, n)
    half = int(math.ceil(WINDOW_SD * sd)) + kmax + 10
    lo, hi = max(0, mode - half), min(n, mode + half)
    ext_lo, ext_hi = max(0, lo - kmax), min(n, hi + kmax)  # the partners j ± k of the window's atoms
    y = np.arange(ext_lo, ext_hi, dtype=np.float64)
    steps = np.log(n - y) - np.log(y + 1) + math.log(p) - math.log1p(-p)
    lf = _log_pmf(n, p, ext_lo) + np.concatenate([[0.0], np.cumsum(steps)])  # lf[j − ext_lo], j in [ext_lo, ext_hi]
    at = lambda j: lf[j - ext_lo] if ext_lo <= j <= ext_hi else _log_pmf(n, p, j)
    lam = np.asarray(lambdas)
    worst = np.full(len(lambdas), -np.inf)
    infinite = 0.0
    for k in range(1, kmax + 1):
        for sign in (1, -1):  # P(y) = f(y − k) (Bin + k): P's atom j, Q's j + k; or f(y + k) (Bin − k): Q's j − k
            first, last = (0, n - k) if sign > 0 else (k, n)  # P's atoms where Q > 0
            a, b = max(first, lo), min(last, hi)
            j = np.arange(a, b + 1)
            terms = (1 + lam[:, None]) * lf[j - ext_lo] - lam[:, None] * lf[j + sign * k - ext_lo]
            peak = terms.max(axis=1)
            parts = [peak + np.log(np.exp(terms - peak[:, None]).sum(axis=1))]
            for s0, s1 in _shells(a - 1, first - 1, -1) + _shells(b + 1, last + 1, 1):  # [s0, s1) outside
                top = max(at(s0), at(s1 - 1))
                edge = s1 - 1 if sign > 0 else s0  # where lf(j) − lf(j ± k) is largest on the shell
                parts.append(math.log(s1 - s0) + top + lam * (at(edge) - at(edge + sign * k)))
            log_mgf = np.logaddexp.reduce(np.stack(parts), axis=0)
            worst = np.maximum(worst, log_mgf / (k * k))
        infinite = max(infinite, sum(math.exp(_log_pmf(n, p, j)) for j in range(n - k + 1, n + 1)),
                       sum(math.exp(_log_pmf(n, p, j)) for j in range(0, k)))
    return worst, infinite


@dataclasses.dataclass(frozen=True)
class BinomialSum(Profile):
    """One batch of the binomial vector-sum protocol (module docstring): per coordinate Y_j = S_j + Bin(N, p); one
    user's replacement shifts S by an integer vector of ℓ2 norm ≤ ``shift`` and entries ≤ ``max_shift``, over
    ``coordinates`` coordinates."""

    trials: int
    p: float
    shift: float
    max_shift: int
    coordinates: int
    notion: ClassVar[str] = "approx-dp"
    lambdas: ClassVar[tuple] = tuple(np.geomspace(0.02, 200.0, 28).tolist())

    def __post_init__(self):
        checks.positive_int("trials", self.trials)
        checks.in_range("p", self.p, 0.0, 1.0, low_open=True, high_open=True)
        checks.in_range("shift", self.shift, 0.0)
        checks.positive_int("max_shift", self.max_shift)
        checks.positive_int("coordinates", self.coordinates)

    def delta_at(self, epsilon: float) -> float:
        eps = _eps_arg(epsilon)
        worst, infinite = _binomial_moments(self.trials, float(self.p), self.max_shift, self.lambdas)
        lam = np.asarray(self.lambdas)
        log_bound = worst * self.shift ** 2 - lam * eps - np.log1p(lam) + lam * (np.log(lam) - np.log1p(lam))
        return min(1.0, float(np.exp(np.min(log_bound))) + self.coordinates * infinite)

    def numbers(self) -> str:
        return (f"N = {self.trials} binomial trials (p = {self.p:g}) per coordinate, shift ≤ {self.shift:.4g} "
                f"over {self.coordinates} coordinates")


def binomial_trials_for(epsilon: float, delta: float, p: float, shift: float, max_shift: int,
                        coordinates: int) -> int:
    """The fewest trials N whose `BinomialSum` claim is (ε, δ): from the normal approximation's N, bracketed by
    factors of 1.25, then bisected (the claim tightens as N grows)."""
    checks.in_range("epsilon", epsilon, 0.0, low_open=True)
    checks.in_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    meets = lambda n: BinomialSum(n, p, shift, max_shift, coordinates).epsilon_at(delta) <= epsilon
    sigma = shift * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    guess = max(1, int(sigma * sigma / (p * (1 - p))))
    lo, hi = guess, guess
    while not meets(hi):
        lo, hi = hi, int(hi * 1.25) + 1
    if lo == hi:
        while lo > 1 and meets(lo):
            lo, hi = max(1, int(lo / 1.25)), lo
        if lo == 1 and meets(1):
            return 1
    while hi - lo > 1:  # meets(hi), not meets(lo)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if meets(mid) else (mid, hi)
    return hi
