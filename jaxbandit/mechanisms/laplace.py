"""Floating-point-safe Laplace releases: the discrete Laplace mechanism on a power-of-two grid, the default of every
Laplace mechanism in jaxbandit, beside the float draw of the papers' code. Which one a policy uses is chosen when it
is built (its ``release`` option: ``"discrete"``, the default, or ``"float"``), never in its numeric parameters.

Why. ``x + b·L`` with L a float Laplace draw is not ε-DP as computed: which floats it can output depends
on x in their low bits, so some outputs tell neighbours apart with certainty (Mironov, "On Significance of the Least
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

Sampler, with a law that can be computed exactly. Z = G if S = 0, −(1 + G) if S = 1, with G geometric (P(G = g)
∝ q^g, q = e^{−ε_u}) and S ~ Bernoulli(q/(1 + q)) = Bernoulli(σ(−ε_u)) independent of G: then P(Z = z) ∝ q^|z| on all
of ℤ (one geometric and one bit, where G₁ − G₂ took two geometrics). G = M·A + B with M = 2^m,
m = min(⌊−log₂ ε_u⌋, M_BITS), A and B independent:

  * A ~ geometric of parameter M·ε_u ∈ [½, 1): A = ⌊E/(M ε_u)⌋, E = −log U, U from 64 random bits (words 0, 1; so
    E ≤ 44.4 and the law is cut at ~2^-64); at spacing ≥ ½ the float32 rounding of E moves the probabilities by
    ~1e-7;
  * B = Σ_{j<m} 2^j B_j on [0, M), P(B = b) ∝ e^{−ε_u b} exactly when the bits are independent Bernoulli of
    p_j = σ(−2^j ε_u).

S and the B_j are Bernoulli(T/2^32) for 32-bit thresholds T = ⌈p·2^32⌋, decided by lazy comparison on one stream of
bits (words 2..4, 96 bits): a bit is 1 iff the next 32 bits of the stream, read as an integer, are below T, and the
comparison consumes the stream only up to the first bit where they differ from T (two bits on average). The bits
after that stopping time are fresh and independent of the decision, so the next comparison reads them: the m + 1
bits take ~30 of the 96 bits, and the stream runs out (its end reads as zeros) with probability below 2e-13, which
moves no P(S = s, B = b) by more than 1e-9 relative, far inside ε_u's margin. So a release takes WORDS = 5 random words
(it took 32 with one word per bit and two geometrics; the float one takes one). `realized_pmf` gives the law of Z
as this code realizes it, from exact counts over all inputs (A's 2^64 by bisection, the stream's 2^96 by dynamic
programming over its stopping times), and `realized_delta` the δ(ε₀) of the release as realized
(tests/test_noise.py: ~1e-19, from the cut far tail, where few 64-bit inputs remain).

What it does not cover: |x − x'| ≤ Δ must hold for the value as computed — exactly for integer sums below 2^24
(Bernoulli rewards), and for float rewards up to the rounding of their sum.

`Noise` carries the draw of the chosen release (the other is zeros, not drawn) and the choice, static; the float
draw is ``jax.random.laplace`` on the policy's key, so ``release="float"`` reproduces the papers' numbers bit for bit.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.random import threefry

__all__ = ["RELEASES", "GRID_BITS", "M_BITS", "WORDS", "Noise", "draw", "with_words", "at_arm", "laplace_of",
           "resolved", "DeferredLaplace", "grid", "discrete_laplace", "discrete_release", "released",
           "realized_tail_of_a", "realized_thresholds", "realized_stream_law", "realized_pmf", "realized_delta"]

RELEASES = ("discrete", "float")  # a policy's ``release`` option: the floating-point-safe default, the papers' draw
GRID_BITS = 12              # Λ = 2^(⌊log₂ b⌋ − 12): ε_u ≤ 2^-12
M_BITS = 14                 # B's bits: enough for ε_u ≥ 2^-15, i.e. ε₀ ≥ 2^-13 (smaller ε₀: A's spacing shrinks)
POOL_WORDS = 3              # the stream of the lazy comparisons: 96 bits for ~30 used
WORDS = 2 + POOL_WORDS      # 32-bit words per release: A's 64-bit uniform, then the stream
EPS_MARGIN = 1 - 2.0 ** -10  # ε_u's margin over the float32 rounding of the sampler's probabilities


class Noise(NamedTuple):
    """The randomness of Laplace releases (leading axes: steps, arms, ...).

    Attributes:
      laplace: standard Laplace draws, ``jax.random.laplace`` on the policy's key (the float release's; zeros, or
        a `DeferredLaplace`, otherwise).
      bits: uint32[..., WORDS]: the discrete release's words (``[..., 0]``, no words, for the float release or
        where the release draws them itself, `with_words`).
      discrete: which release (a Python bool, static: not a leaf, so `released` computes only that release, also
        inside ``lax.scan``).
    """

    laplace: jax.Array
    bits: jax.Array
    discrete: bool


jax.tree_util.register_pytree_node(Noise, lambda n: ((n.laplace, n.bits), n.discrete),
                                   lambda discrete, leaves: Noise(*leaves, discrete))


def check_release(release: str) -> bool:
    """Whether ``release`` (a policy's option) is the discrete one; a ValueError naming the valid ones otherwise."""
    checks.known_name("Laplace release", release, RELEASES)
    return release == "discrete"


class DeferredLaplace:
    """``jax.random.laplace(key, (steps,) + row)[index]``, computed only where it is read (`laplace_of`): the float
    draw of a policy whose releases are rare steps (DP-SE's epoch ends), so that its steps do not draw K variates
    each for nothing and its float mode keeps its numbers bit for bit (tests/test_noise.py). Leaves: the block key's
    data (uint32[..., 2]) and the step within the block (int32[...]), sliced per step like any block draw; static:
    ``steps``, ``row`` and the dtype. Only for keys of `jaxbandit.random`, whose counter layout `threefry.random_bits_at`
    knows (`draw` checks)."""

    def __init__(self, key, index, steps: int, row: tuple, dtype):
        self.key, self.index = key, index
        self.steps, self.row, self.dtype = steps, tuple(row), jnp.dtype(dtype)

    def value(self):
        """The float draw's values at the steps ``index`` (shape ``index.shape + row``)."""
        size = int(np.prod(self.row))
        index = jnp.asarray(self.index)
        first = index.reshape(index.shape + (1,)).astype(jnp.uint32) * np.uint32(size)
        flat = first + jnp.arange(size, dtype=jnp.uint32)
        finfo = jnp.finfo(self.dtype)
        bits = threefry.random_bits_at(self.key[..., None, :], finfo.bits, (self.steps,) + self.row, flat)
        return _laplace_of_bits(bits, self.dtype).reshape(index.shape + self.row)


jax.tree_util.register_pytree_node(
    DeferredLaplace, lambda d: ((d.key, d.index), (d.steps, d.row, d.dtype)),
    lambda aux, leaves: DeferredLaplace(*leaves, *aux))


def _laplace_of_bits(bits, dtype):
    """``jax.random.laplace``'s map from its random bits to its values (jax 0.10: a uniform on [−1 + ε⁻, 1) from the
    mantissa bits, then sign(u)·log1p(−|u|)); tests/test_noise.py checks it against ``jax.random.laplace``."""
    finfo = jnp.finfo(dtype)
    uint = bits.dtype
    one = jnp.asarray(np.array(1.0, dtype).view(uint), uint)
    floats = jax.lax.bitcast_convert_type((bits >> np.asarray(finfo.bits - finfo.nmant, uint)) | one, dtype) - 1
    low = jax.lax.convert_element_type(-1.0 + float(finfo.epsneg), dtype)
    u = jnp.maximum(low, floats * (jnp.asarray(1.0, dtype) - low) + low)
    return jnp.sign(u) * jnp.log1p(-jnp.abs(u))


def _deferrable(key, dtype) -> bool:
    """Whether `DeferredLaplace` can stand for ``jax.random.laplace(key, ..., dtype)``: a typed key of
    `jaxbandit.random` (the engine's) and a 32- or 64-bit float."""
    typed = jnp.issubdtype(jnp.asarray(key).dtype, jax.dtypes.prng_key) if hasattr(key, "dtype") else False
    return bool(typed and jax.random.key_impl(key) == jax.random.key_impl(threefry.key(0))
                and jnp.finfo(dtype).bits in (32, 64) and jnp.shape(key) == ())


def draw(key, shape, release: str, dtype=None, bits_shape=None, words_later=False) -> Noise:
    """The draw of releases of ``shape`` for ``release`` (`RELEASES`, a policy's build-time option): the float one
    exactly as ``jax.random.laplace(key, shape)`` (so the float mechanism keeps its numbers), or the discrete one's
    words from ``fold_in(key, 1)``: ``bits_shape`` (default ``shape``) by WORDS, e.g. one release per step,
    ``(steps,)``, where only the pulled arm releases (the bits then broadcast over the arms, whose other releases are
    masked out). Only the chosen release is drawn. ``words_later``: draw no words here; the release draws them from
    its step's key (`with_words`), for policies whose releases are rare steps (DP-SE's epoch ends), where words for
    every step would dominate the cost; the float release then defers its draw too (`DeferredLaplace`: the same
    values, computed where read)."""
    discrete = check_release(release)
    shape = tuple(shape)
    bits_shape = shape if bits_shape is None else tuple(bits_shape)
    dtype = jnp.zeros(()).dtype if dtype is None else dtype
    if discrete:
        words = 0 if words_later else WORDS
        return Noise(jnp.zeros(shape, dtype), jax.random.bits(jax.random.fold_in(key, 1), bits_shape + (words,),
                                                              jnp.uint32), True)
    no_words = jnp.zeros(bits_shape + (0,), jnp.uint32)
    if words_later and len(shape) >= 1 and _deferrable(key, dtype):
        steps = shape[0]
        data = jnp.broadcast_to(jax.random.key_data(key), (steps, 2))
        return Noise(DeferredLaplace(data, jnp.arange(steps, dtype=jnp.int32), steps, shape[1:], dtype), no_words,
                     False)
    return Noise(jax.random.laplace(key, shape, dtype), no_words, False)


def with_words(noise: Noise, key) -> Noise:
    """``noise`` (a step's slice of a ``draw(..., words_later=True)``) with the discrete release's words drawn now
    from ``key`` (the step's own key, `jaxbandit.types.StepRandom`), one release per entry of its float draw; the
    float release draws none, and words already there are kept (an audit's planted bug supplies its own)."""
    if not isinstance(noise, Noise) or not noise.discrete or noise.bits.shape[-1] == WORDS:
        return noise  # (a plain array: the float mechanism)
    bits = jax.random.bits(key, noise.laplace.shape + (WORDS,), jnp.uint32)
    return noise._replace(bits=bits)


def at_arm(noise, arm):
    """The release randomness of one arm from a step's `Noise` (or float array) over the arms, where only that arm
    releases: its float draw, and its words (the step's own where they are drawn once per step, ``bits_shape``)."""
    if not isinstance(noise, Noise):
        return noise[arm]
    bits = noise.bits[arm] if noise.bits.ndim > 1 else noise.bits
    return Noise(noise.laplace[arm], bits, noise.discrete)


def laplace_of(noise):
    """The float draw of ``noise`` (a `Noise`, or a plain standard Laplace array), computed here if deferred."""
    if not isinstance(noise, Noise):
        return noise
    return noise.laplace.value() if isinstance(noise.laplace, DeferredLaplace) else noise.laplace


def resolved(noise):
    """``noise`` with a deferred float draw computed (for code that indexes its arrays, e.g. an audit's planted
    bug); anything else unchanged."""
    if isinstance(noise, Noise) and isinstance(noise.laplace, DeferredLaplace):
        return noise._replace(laplace=noise.laplace.value())
    return noise


def _uniform64(hi, lo):
    """U in (0, 1] from two words (float32), non-decreasing in the integer hi·2^32 + lo: below 2^24 the high word
    is exact and the low word adds its fraction; above, the low word is below float32's resolution."""
    hi_f = hi.astype(jnp.float32)
    frac = (lo.astype(jnp.float32) + 0.5) * jnp.float32(2.0 ** -32)
    return jnp.where(hi < (1 << 24), hi_f + frac, hi_f) * jnp.float32(2.0 ** -32)


# 2^j for B's bits: x·2^j is exactly ``ldexp(x, j)`` for j ≥ 0 (scaling up loses no bit), and XLA:CPU's ldexp, a
# chain of bit operations, cost 3/4 of a release's thresholds (benchmarks/RESULTS.md): the same numbers, faster.
_POW2_BITS = np.ldexp(np.float32(1), np.arange(M_BITS)).astype(np.float32)


def _pow2(n):
    """2^n (float32) for an int array n in [0, 127], built from its exponent bits: exact."""
    biased = (jnp.asarray(n, jnp.int32) + 127).astype(jnp.uint32) << 23
    return jax.lax.bitcast_convert_type(biased, jnp.float32)


def _split(eps_u):
    """(m, spacing M·ε_u) of the decomposition G = M·A + B (float32, traceable)."""
    eps_u = jnp.asarray(eps_u, jnp.float32)
    _, e = jnp.frexp(eps_u)                       # ε_u = f·2^e, f in [½, 1): ⌊−log₂ ε_u⌋ = −e (f = ½: −e + 1)
    m = jnp.clip(-e, 0, M_BITS)
    return m, eps_u * _pow2(m)                   # = ldexp(ε_u, m), m ≥ 0


def _threshold(p):
    """⌈p·2^32⌋ (uint32) from a float32 probability, below 2^32 (a comparison with it is Bernoulli(T/2^32))."""
    return jnp.minimum(jnp.rint(p * jnp.float32(2.0 ** 32)), jnp.float32(2.0 ** 32 - 256)).astype(jnp.uint32)


def _bit_thresholds(eps_u):
    """uint32 thresholds of B's bits j < M_BITS: ⌈σ(−2^j ε_u)·2^32⌋ (float32, then rounded); 0 for j ≥ m."""
    m, _ = _split(eps_u)
    j = jnp.arange(M_BITS)
    t = _threshold(jax.nn.sigmoid(-(jnp.asarray(eps_u, jnp.float32)[..., None] * _POW2_BITS)))
    return jnp.where(j < m[..., None], t, jnp.uint32(0))


def _sign_threshold(eps_u):
    """uint32 threshold of the sign bit S: ⌈σ(−ε_u)·2^32⌋ (B's bit 0 threshold where m ≥ 1)."""
    return _threshold(jax.nn.sigmoid(-jnp.asarray(eps_u, jnp.float32)))


def _lazy_bernoullis(stream, thresholds):
    """Σ_j 2^j·[stream's next 32 bits < t_j] (uint32) for the thresholds t_j (uint32[..., n], n ≤ 32) in order,
    consuming the stream (uint32[..., words], most significant bit first) only up to each comparison's first
    differing bit; a threshold 0 is skipped (bit 0, nothing consumed). The stream's end reads as zeros (XLA shifts
    by 32 give 0). One packed output, so XLA fuses the chain once (a stack of n outputs recomputed its prefix in
    each)."""
    words = [stream[..., i] for i in range(stream.shape[-1])]
    out = jnp.zeros(words[0].shape, jnp.uint32)
    for j in range(thresholds.shape[-1]):
        t = thresholds[..., j]
        out = out | ((words[0] < t).astype(jnp.uint32) << j)
        used = jnp.where(t > 0, jnp.minimum(jax.lax.clz(words[0] ^ t) + 1, 32), 0).astype(jnp.uint32)
        back = jnp.uint32(32) - used
        words = [(w << used) | (nxt >> back) for w, nxt in zip(words[:-1], words[1:])] + [words[-1] << used]
    return out


def _thresholds(eps_u):
    """The lazy comparisons' thresholds in stream order: S, then B_0 .. B_{M_BITS−1} (uint32[..., 1 + M_BITS])."""
    eps_u = jnp.asarray(eps_u, jnp.float32)
    return jnp.concatenate([_sign_threshold(eps_u)[..., None], _bit_thresholds(eps_u)], axis=-1)


def discrete_laplace(bits, eps_u):
    """Z (int32), P(Z = z) ∝ exp(−ε_u |z|), from uint32[..., WORDS] ``bits`` (module docstring: Z = G or −(1 + G)
    by the sign bit S, G = M·A + B)."""
    eps_u = jnp.asarray(eps_u, jnp.float32)
    m, spacing = _split(eps_u)
    a = jnp.floor(-jnp.log(_uniform64(bits[..., 0], bits[..., 1])) / spacing).astype(jnp.int32)
    coins = _lazy_bernoullis(bits[..., 2:], _thresholds(eps_u)).astype(jnp.int32)   # S + 2·B
    g = (a << m) + (coins >> 1)
    return jnp.where((coins & 1) == 1, -1 - g, g)


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
    """A policy's release: ``float_release`` (its float formula as written, so that the float release keeps the
    papers' numbers bit for bit) or, for the discrete release, ``offset`` (something released before) plus the
    `discrete_release` of ``x`` at scale b and sensitivity Δ. A plain array ``noise`` (not a `Noise`) means the
    float mechanism."""
    if isinstance(noise, Noise) and noise.discrete:
        return offset + discrete_release(x, scale, sensitivity, noise.bits)
    return float_release


# ------------------------------------------------------------------ the realized law (host side, exact counting)
def _u_at(n: int) -> float:
    hi, lo = divmod(int(n), 1 << 32)
    return float(_uniform64(jnp.uint32(hi), jnp.uint32(lo)))


def realized_tail_of_a(eps_u: float) -> np.ndarray:
    """P(A ≥ a), a = 0, 1, ..., exactly as `discrete_laplace` realizes it: A is non-increasing in the 64-bit input n, so
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


def realized_thresholds(eps_u: float) -> tuple[int, np.ndarray]:
    """(m, the lazy comparisons' thresholds in stream order as Python ints: S, then B_j for j < m)."""
    m, _ = _split(eps_u)
    t = [int(v) for v in np.asarray(_thresholds(jnp.float32(eps_u)))]
    return int(m), np.asarray(t[: 1 + int(m)], dtype=object)


def realized_stream_law(thresholds, words: int = POOL_WORDS) -> np.ndarray:
    """P(outcomes = o) for o = Σ_j 2^j o_j, o_j the j-th lazy comparison's result (`_lazy_bernoullis`), counted
    exactly over the stream's 2^(32·words) inputs (float64): a distribution over (outcomes so far, bits consumed)
    advanced one comparison at a time. A comparison at offset s with r = 32·words − s bits left stops at its
    l-th bit (l ≤ min(r, 32)) with probability 2^-l and returns T's l-th bit; at l = 32 the stream may also equal T
    (2^-32, result 0). With r < 32 and all r bits equal to T's (2^-r), the zeros past the end decide: 1 iff T has a
    set bit after its r-th, and the stream is spent, after which every comparison returns T > 0."""
    bits = 32 * int(words)
    spent = bits + 1                                   # the offset "past the end"
    law = np.zeros((1, bits + 2))
    law[0, 0] = 1.0
    for t in (int(v) for v in thresholds):
        if t == 0:                                           # skipped: nothing consumed, result 0
            law = np.concatenate([law, np.zeros_like(law)], axis=0)
            continue
        one, zero = np.zeros_like(law), np.zeros_like(law)
        tbit = [(t >> (32 - l)) & 1 for l in range(1, 33)]   # T's l-th bit from the top, l = 1..32
        for s_ in range(bits + 1):
            col = law[:, s_]
            if not col.any():
                continue
            r = bits - s_
            for l in range(1, min(r, 32) + 1):
                (one if tbit[l - 1] else zero)[:, s_ + l] += col * 2.0 ** -l
            if r >= 32:
                zero[:, s_ + 32] += col * 2.0 ** -32           # all 32 equal: not below T
            else:
                rest = t & ((1 << (32 - r)) - 1)              # T's bits after the r-th, against zeros
                (one if rest else zero)[:, spent] += col * 2.0 ** -r
        one[:, spent] += law[:, spent]                       # past the end: 0 < T
        law = np.concatenate([zero, one], axis=0)            # index += 2^j·(result j)
    return law.sum(axis=1)


def realized_pmf(eps_u: float) -> tuple[int, np.ndarray]:
    """(z₀, P(Z = z₀ + i) for i = 0, 1, ...): the law of the sampler's Z as realized (float64), from A's tail
    (`realized_tail_of_a`) and the stream's joint law of S and B (`realized_stream_law`); z₀ = −(1 + max G).
    Feasible for the production grids (G < 90·2^14)."""
    tail = realized_tail_of_a(eps_u)
    pa = tail - np.append(tail[1:], 0.0)
    m, thresholds = realized_thresholds(eps_u)
    joint = realized_stream_law(thresholds).reshape(1 << m, 2)   # outcome index o = S + 2·B
    g_pos = np.outer(pa, joint[:, 0]).ravel()                   # P(G = g, S = 0), g = a·2^m + b
    g_neg = np.outer(pa, joint[:, 1]).ravel()                   # P(G = g, S = 1)
    return -len(g_neg), np.concatenate([g_neg[::-1], g_pos])    # z = −(1 + g) for S = 1, g for S = 0
def realized_delta(eps_u: float, units: int, epsilon: float) -> float:
    """δ(ε) of Z as realized, against integer shifts d = 1..``units``: the largest hockey-stick divergence
    Σ_z (P(z) − e^ε P(z − d))₊ over d and both directions (the mechanism as realized is (ε, δ(ε))-DP for these
    neighbours). The law's far tail (U near 2^-64, where few inputs remain) is what makes it positive."""
    _, pz = realized_pmf(eps_u)
    worst = 0.0
    for d in range(1, int(units) + 1):
        shifted = np.concatenate([np.zeros(d), pz])   # P(z − d) on the grid of z, extended by d
        base = np.concatenate([pz, np.zeros(d)])
        worst = max(worst, float(np.sum(np.maximum(base - np.exp(epsilon) * shifted, 0.0))),
                    float(np.sum(np.maximum(shifted - np.exp(epsilon) * base, 0.0))))
    return worst
