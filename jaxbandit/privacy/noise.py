"""Floating-point-safe Laplace releases: the discrete Laplace mechanism on a power-of-two grid, the default of
every Laplace mechanism in jaxbandit, beside the float draw of the papers' code (``noise = 0``).

Why. ``x + b·L`` with L a float Laplace draw is not ε-DP as computed: which floats it can output depends on x in
their low bits, so some outputs tell neighbours apart with certainty (Mironov, "On Significance of the Least
Significant Bits for Differential Privacy", CCS 2012). A release on an integer grid has no such leak: with Λ a
power of two,

    released = Λ · (rint(x/Λ) + Z),   P(Z = z) ∝ exp(−ε_u |z|)

(the geometric mechanism of Ghosh, Roughgarden & Sundararajan, STOC 2009; the discrete Laplace of Canonne, Kamath
& Steinke, NeurIPS 2020). If |x − x'| ≤ Δ then |rint(x/Λ) − rint(x'/Λ)| ≤ Δ_u = ⌊Δ/Λ⌋ + 1, so ε_u = ε₀/Δ_u makes
the integer rint(x/Λ) + Z ε₀-DP, ε₀ = Δ/b the level of the float mechanism it replaces. The float operations
after that integer (the sum of two integers below 2^24, then the product by Λ: exact, or correctly rounded — a
function of the integer) are post-processing. Grid: Λ = 2^(⌊log₂ b⌋ − GRID_BITS), so ε_u ≤ 2^-GRID_BITS and the
noise in value units has scale b·Λ·Δ_u/Δ ≤ b(1 + Λ/Δ) ≤ b(1 + 2^-GRID_BITS/ε₀): 0.8% more than b at ε₀ = 0.03 (a
tree-counter node at ε = 1), 0.02% at ε₀ = 1. ε_u also carries a margin of 2^-10.

Sampler, with a law that can be computed exactly. Z = G₁ − G₂, G geometric (P(G = g) ∝ e^{−ε_u g}) written as
G = M·A + B with M = 2^m, m = min(⌊−log₂ ε_u⌋, M_BITS), A and B independent:
  * A ~ geometric of parameter M·ε_u ∈ [½, 1): A = ⌊E/(M ε_u)⌋, E = −log U, U from 64 random bits (so E ≤ 44.4
    and the law is cut at ~2^-64); at spacing ≥ ½ the float32 rounding of E moves the probabilities by ~1e-7;
  * B = Σ_{j<m} 2^j B_j on [0, M), P(B = b) ∝ e^{−ε_u b} exactly when the bits are independent Bernoulli of
    p_j = σ(−2^j ε_u): each bit compares one 32-bit word with ⌈p_j 2^32⌋.
So a release takes 2·(2 + M_BITS) = 32 words where the float one takes one. `realized_tail_of_a`,
`realized_bits` and `realized_pmf` give the law of G as this float32 code realizes it, from exact counts over
the 2^64 inputs, and `realized_delta` the δ(ε₀) of the release as realized (tests/test_noise.py: ~1e-19, from the
cut far tail, where few 64-bit inputs remain).

What it does not cover: |x − x'| ≤ Δ must hold for the value as computed — exactly for integer sums below 2^24
(Bernoulli rewards), and for float rewards up to the rounding of their sum.

`Noise` carries the draw of the chosen mode (the other is zeros, not drawn) and the choice; the float draw is
``jax.random.laplace`` on the policy's key as before, so ``noise = 0`` reproduces earlier numbers bit for bit.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["GRID_BITS", "M_BITS", "WORDS", "Noise", "draw", "laplace_of", "grid", "discrete_laplace",
           "discrete_release", "released", "realized_tail_of_a", "realized_bits", "realized_pmf", "realized_delta"]

GRID_BITS = 12              # Λ = 2^(⌊log₂ b⌋ − 12): ε_u ≤ 2^-12
M_BITS = 14                 # B's bits: enough for ε_u ≥ 2^-15, i.e. ε₀ ≥ 2^-13 (smaller ε₀: A's spacing shrinks)
WORDS = 2 * (2 + M_BITS)    # 32-bit words per release
EPS_MARGIN = 1 - 2.0 ** -10  # ε_u's margin over the float32 rounding of the sampler's probabilities


class Noise(NamedTuple):
    """The randomness of Laplace releases (leading axes: steps, arms, ...).

    Attributes:
      laplace: standard Laplace draws, ``jax.random.laplace`` on the policy's key (the float mechanism's; zeros in
        the discrete mode).
      bits: uint32[..., WORDS]: the discrete mechanism's (zeros in the float mode).
      discrete: bool, which release to use (a policy's ``noise`` parameter: 1 discrete, 0 float).
    """

    laplace: jax.Array
    bits: jax.Array
    discrete: jax.Array


def draw(key, shape, discrete, dtype=None, bits_shape=None) -> Noise:
    """The draw of releases of ``shape``: the float one exactly as ``jax.random.laplace(key, shape)`` (so the float
    mechanism keeps its numbers), or the bits from ``fold_in(key, 1)``: ``bits_shape`` (default ``shape``) by
    WORDS, e.g. one release per step, ``(steps,)``, where only the pulled arm releases (the bits then broadcast
    over the arms, whose other releases are masked out). ``discrete``: the policy's ``noise`` parameter; the
    other draw is zeros, not drawn (one branch of a ``lax.cond`` runs, unless ``discrete`` varies over a batch)."""
    shape = tuple(shape)
    bits_shape = shape if bits_shape is None else tuple(bits_shape)
    dtype = jnp.zeros(()).dtype if dtype is None else dtype
    discrete = jnp.asarray(discrete) != 0

    def float_draw():
        return jax.random.laplace(key, shape, dtype), jnp.zeros(bits_shape + (WORDS,), jnp.uint32)

    def discrete_draw():
        return jnp.zeros(shape, dtype), jax.random.bits(jax.random.fold_in(key, 1), bits_shape + (WORDS,), jnp.uint32)

    lap, bits = jax.lax.cond(discrete, discrete_draw, float_draw)
    return Noise(lap, bits, jnp.broadcast_to(discrete, bits_shape))


def laplace_of(noise):
    """The float draw of ``noise`` (a `Noise`, or a plain standard Laplace array)."""
    return noise.laplace if isinstance(noise, Noise) else noise


def _uniform64(hi, lo):
    """U in (0, 1] from two words (float32), non-decreasing in the integer hi·2^32 + lo: below 2^24 the high word
    is exact and the low word adds its fraction; above, the low word is below float32's resolution."""
    hi_f = hi.astype(jnp.float32)
    frac = (lo.astype(jnp.float32) + 0.5) * jnp.float32(2.0 ** -32)
    return jnp.where(hi < (1 << 24), hi_f + frac, hi_f) * jnp.float32(2.0 ** -32)


def _split(eps_u):
    """(m, spacing M·ε_u) of the decomposition G = M·A + B (float32, traceable)."""
    eps_u = jnp.asarray(eps_u, jnp.float32)
    _, e = jnp.frexp(eps_u)                       # ε_u = f·2^e, f in [½, 1): ⌊−log₂ ε_u⌋ = −e (f = ½: −e + 1)
    m = jnp.clip(-e, 0, M_BITS)
    return m, jnp.ldexp(eps_u, m)


def _bit_thresholds(eps_u):
    """uint32 thresholds of B's bits j < M_BITS: ⌈σ(−2^j ε_u)·2^32⌋ (float32, then rounded); 0 for j ≥ m."""
    m, _ = _split(eps_u)
    j = jnp.arange(M_BITS)
    p = jax.nn.sigmoid(-jnp.ldexp(jnp.asarray(eps_u, jnp.float32)[..., None], j))
    t = jnp.minimum(jnp.rint(p * jnp.float32(2.0 ** 32)), jnp.float32(2.0 ** 32 - 256)).astype(jnp.uint32)
    return jnp.where(j < m[..., None], t, jnp.uint32(0))


def _geometric(words, eps_u):
    """G = M·A + B from uint32[..., 2 + M_BITS] ``words`` (module docstring)."""
    m, spacing = _split(eps_u)
    a = jnp.floor(-jnp.log(_uniform64(words[..., 0], words[..., 1])) / spacing).astype(jnp.int32)
    bits = (words[..., 2:] < _bit_thresholds(eps_u)).astype(jnp.int32)
    b = jnp.sum(bits << jnp.arange(M_BITS, dtype=jnp.int32), axis=-1)
    return (a << m) + b


def discrete_laplace(bits, eps_u):
    """Z = G₁ − G₂ (int32), P(Z = z) ∝ exp(−ε_u |z|), from uint32[..., WORDS] ``bits``."""
    eps_u = jnp.asarray(eps_u, jnp.float32)
    half = WORDS // 2
    return _geometric(bits[..., :half], eps_u) - _geometric(bits[..., half:], eps_u)


def grid(scale, sensitivity):
    """(Λ, Δ_u, ε_u) of the discrete release of a value of sensitivity Δ at Laplace scale b (float32, traceable):
    Λ = 2^(⌊log₂ b⌋ − GRID_BITS), Δ_u = ⌊Δ/Λ⌋ + 1, ε_u = (Δ/b)/Δ_u, less a margin of 2^-10."""
    b = jnp.asarray(scale, jnp.float32)
    delta = jnp.asarray(sensitivity, jnp.float32)
    _, e = jnp.frexp(b)                            # b = f·2^e, f in [½, 1): ⌊log₂ b⌋ = e − 1
    lam = jnp.ldexp(jnp.float32(1.0), e - 1 - GRID_BITS)
    units = jnp.floor(delta / lam) + 1
    return lam, units, (delta / b) / units * jnp.float32(EPS_MARGIN)


def discrete_release(x, scale, sensitivity, bits):
    """Λ·(rint(x/Λ) + Z): the (Δ/b)-DP discrete Laplace release of ``x``; ``x`` itself where the scale b is 0 or
    not finite (no noise: ε = ∞)."""
    x = jnp.asarray(x)
    b = jnp.asarray(scale, jnp.float32)
    ok = (b > 0) & jnp.isfinite(b)
    lam, _, eps_u = grid(jnp.where(ok, b, 1.0), sensitivity)
    z = discrete_laplace(bits, eps_u).astype(jnp.float32)
    out = (jnp.rint(x.astype(jnp.float32) / lam) + z) * lam
    return jnp.where(ok, out, x.astype(jnp.float32)).astype(x.dtype)


def released(float_release, x, scale, sensitivity, noise, offset=0.0):
    """A policy's release: ``float_release`` (its float formula as written, so that the float mode keeps earlier
    numbers bit for bit) or, where ``noise.discrete``, ``offset`` (something released before) plus the
    `discrete_release` of ``x`` at scale b and sensitivity Δ. A plain array ``noise`` (not a `Noise`) means the
    float mechanism."""
    if not isinstance(noise, Noise):
        return float_release
    return jnp.where(noise.discrete, offset + discrete_release(x, scale, sensitivity, noise.bits), float_release)


# ------------------------------------------------------------------ the realized law (host side, exact counting)
def _u_at(n: int) -> float:
    hi, lo = divmod(int(n), 1 << 32)
    return float(_uniform64(jnp.uint32(hi), jnp.uint32(lo)))


def realized_tail_of_a(eps_u: float) -> np.ndarray:
    """P(A ≥ a), a = 0, 1, ..., exactly as `_geometric` realizes it: A is non-increasing in the 64-bit input n, so
    {A ≥ a} = {n ≤ n_a}, found by bisection with the sampler's own float32 code (jax's log), counted over 2^64."""
    _, spacing = _split(eps_u)
    a_of = jax.jit(lambda u: jnp.floor(-jnp.log(u) / spacing).astype(jnp.int32))
    a_at = lambda n: int(a_of(jnp.float32(_u_at(n))))
    top = (1 << 64) - 1
    largest = a_at(0)
    tail = [1.0]
    for a in range(1, largest + 1):
        lo, hi = 0, top
        while hi - lo > 1:  # the last n with A(n) >= a
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if a_at(mid) >= a else (lo, mid)
        tail.append((lo + 1) / 2.0 ** 64)
    return np.asarray(tail)


def realized_bits(eps_u: float) -> tuple[int, np.ndarray]:
    """(m, P(B_j = 1) for j < m) exactly as realized: the thresholds over 2^32."""
    m, _ = _split(eps_u)
    t = np.asarray(_bit_thresholds(jnp.float32(eps_u)), np.float64)
    return int(m), t[: int(m)] / 2.0 ** 32


def realized_pmf(eps_u: float) -> np.ndarray:
    """P(G = g), g = 0 .. max, of the sampler as realized (float64; feasible for coarse ε_u: G < 45·2^m/…)."""
    tail = realized_tail_of_a(eps_u)
    pa = tail - np.append(tail[1:], 0.0)
    m, p = realized_bits(eps_u)
    pb = np.ones(1)
    for j in range(m):  # B's law: the product of its bits' Bernoulli laws, bit j at weight 2^j
        step = np.zeros(2 ** (j + 1))
        step[: 2 ** j] = pb * (1 - p[j])
        step[2 ** j:] = pb * p[j]
        pb = step
    return np.outer(pa, pb).ravel()  # g = a·2^m + b


def realized_delta(eps_u: float, units: int, epsilon: float) -> float:
    """δ(ε) of Z = G₁ − G₂ as realized, against integer shifts d = 1..``units``: the largest hockey-stick divergence
    Σ_z (P(z) − e^ε P(z − d))₊ over d and both directions (the mechanism as realized is (ε, δ(ε))-DP for these
    neighbours). The law's far tail (U near 2^-64, where few inputs remain) is what makes it positive."""
    pmf = realized_pmf(eps_u)
    pz = np.convolve(pmf, pmf[::-1])
    worst = 0.0
    for d in range(1, int(units) + 1):
        shifted = np.concatenate([np.zeros(d), pz])   # P(z − d) on the grid of z, extended by d
        base = np.concatenate([pz, np.zeros(d)])
        worst = max(worst, float(np.sum(np.maximum(base - np.exp(epsilon) * shifted, 0.0))),
                    float(np.sum(np.maximum(shifted - np.exp(epsilon) * base, 0.0))))
    return worst
