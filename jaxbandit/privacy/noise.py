"""Floating-point-safe noise: Laplace releases on a power-of-two grid (the discrete Laplace mechanism) and Gaussian
draws with tails down to 2^-73, the defaults of every Laplace mechanism and every private Gaussian-noise policy in
jaxbandit, beside the float draws of the papers' code (``noise = 0``).

Laplace: why. ``x + b·L`` with L a float Laplace draw is not ε-DP as computed: which floats it can output depends
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

Gaussian: why. The Gaussian-noise policies (Thompson sampling, seed 001; DP-FTPL-Gauss, seed 003) release only
argmax_k (m_k + s_k Z_k), never a noisy value, so the porous low bits above leak nothing a comparison can see; what
survives post-processing is the law of Z itself. ``jax.random.normal`` maps one 32-bit word through a float32
uniform on (−1, 1) at spacing 2^-23 and erf⁻¹: its tails are coarse and cut at Z = 5.22 above and −5.42 below
(`float_normal_law`, all 2^23 values), where N(0, 1) still has 9e-8 and 3e-8. A μ-GDP claim promises f(α) → 1
as α → 0, i.e. no event possible under one input and impossible under its neighbour; a cut support breaks that:
an arm whose win needs Z beyond the cut under one reward sequence and a little less under its neighbour.

`normal` (``noise = 1``) draws Z from three words: |Z| = √2·erfc⁻¹(p), P(|Z| ≥ z) = p, with p a float32 uniform
built from its binade (`_binade_uniform`): exponent e = the leading zeros of 72 random bits (P(e = j) = 2^-(j+1)), 23
mantissa bits, so p ≥ 2^-73 and every float32 p has a known mass; a sign bit. The quantile is
`half_normal_quantile`: Giles' single-precision erf⁻¹ polynomials ("Approximating the erfinv function", GPU
Computing Gems, 2011: the ones XLA's erf_inv uses) written in w = −log(p(2 − p)) computed from p itself instead of
from 1 − x, which float32 cannot resolve near 1, plus a third branch for w ≥ 16 (p < 6e-8: |Z| > 5.4), a degree-8
least-squares fit in √w − 5.5 on [15, 51] against a float64 Newton solution of erfc (relative error 4e-9 in
float64; 3e-7 as float32 code, tests/test_noise.py). |Z| reaches 9.81. `realized_normal_tail` counts
P(|Z| ≥ z) of this float32 code exactly, over all 73·2^23 values of p: within 4e-6 of the ideal erfc(z/√2),
relatively, for every z up to 9.5, where it is 2e-21 (tests/test_noise.py). Its cost against the float draw is in
benchmarks/RESULTS.md (`bench_noise.py`).

What it does not cover: the comparison itself runs on float32 θ = m + s·Z, rounded to ulp(θ); that moves the
threshold on Z by about ulp(m)/(2s): 6e-8 relatively when s·Z is comparable to m, 1e-5 for TS's s = 1/√(n+1) at
n = 10^6. A rounding of that size shifts probabilities a little; the float draw's cut made events of probability 9e-8
impossible. The count is of the code as compiled on this machine's backend (`realized_normal_tail`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap

from jaxbandit import prng

__all__ = ["GRID_BITS", "M_BITS", "WORDS", "NORMAL_WORDS", "Noise", "draw", "with_words", "at_arm", "laplace_of",
           "resolved", "DeferredLaplace", "grid", "discrete_laplace", "discrete_release", "released", "specialize",
           "realized_tail_of_a", "realized_bits", "realized_pmf", "realized_delta", "NORMAL_BINADES",
           "half_normal_quantile", "tail_normal", "normal", "realized_normal_tail", "float_normal_law"]

GRID_BITS = 12              # Λ = 2^(⌊log₂ b⌋ − 12): ε_u ≤ 2^-12
M_BITS = 14                 # B's bits: enough for ε_u ≥ 2^-15, i.e. ε₀ ≥ 2^-13 (smaller ε₀: A's spacing shrinks)
WORDS = 2 * (2 + M_BITS)    # 32-bit words per release
EPS_MARGIN = 1 - 2.0 ** -10  # ε_u's margin over the float32 rounding of the sampler's probabilities
NORMAL_WORDS = 3            # 32-bit words per Gaussian draw (noise = 1): mantissa, sign, 72 exponent bits
NORMAL_BINADES = 73         # the exponents e = 0..72 of its uniform


class Noise(NamedTuple):
    """The randomness of Laplace releases (leading axes: steps, arms, ...).

    Attributes:
      laplace: standard Laplace draws, ``jax.random.laplace`` on the policy's key (the float mechanism's; zeros in
        the discrete mode).
      bits: uint32[..., WORDS]: the discrete mechanism's (zeros in the float mode; no words, ``[..., 0]``, when
        the mode is fixed).
      discrete: which release to use (a policy's ``noise`` parameter: 1 discrete, 0 float): a NumPy bool where
        the mode is fixed (`specialize`), then static — not a leaf, so `released` computes only that mode's
        release, also inside ``lax.scan`` — or a bool array where it is traced. (NumPy's, not Python's: JAX's
        transformations rebuild a `Noise` with Python bools as leaves, e.g. ``custom_vmap``'s batched flags.)
    """

    laplace: jax.Array
    bits: jax.Array
    discrete: jax.Array | np.bool_


def _fixed(noise) -> bool:
    """Whether ``noise`` (a `Noise`) has a fixed, static mode."""
    return isinstance(noise.discrete, np.bool_)


def _noise_flatten(noise):
    if _fixed(noise):
        return (noise.laplace, noise.bits), noise.discrete
    return tuple(noise), None


jax.tree_util.register_pytree_node(Noise, _noise_flatten,
                                   lambda mode, leaves: Noise(*leaves) if mode is None else Noise(*leaves, mode))


def _by_mode(flag, key, true_fn, false_fn):
    """``true_fn(key)`` where ``flag`` else ``false_fn(key)``. A concrete ``flag`` (a mode fixed by `specialize`)
    picks its draw while tracing: the fast path, since XLA:CPU runs a conditional's branch several times slower
    than the same code outside one (4x for ``jax.random.normal``). A traced one (``jax.vmap`` of `jaxbandit.rollout`
    over parameters) gets a ``lax.cond``; batched, the vmap rule checks the batch at run time: all true, all false,
    or (a grid over the mode) both draws, selected per run — not a select of both for every batch."""
    if not isinstance(flag, jax.core.Tracer):
        return true_fn(key) if bool(np.asarray(flag)) else false_fn(key)

    @custom_vmap
    def by_mode(flag, key):
        return jax.lax.cond(flag, true_fn, false_fn, key)

    @by_mode.def_vmap
    def rule(axis_size, in_batched, flag, key):
        flag_batched, key_batched = in_batched
        if not key_batched:
            key = jnp.broadcast_to(key, (axis_size,) + key.shape)
        true_all, false_all = jax.vmap(true_fn), jax.vmap(false_fn)
        if not flag_batched:
            out = jax.lax.cond(flag, true_all, false_all, key)
        else:
            def mixed(k):
                pick = lambda a, b: jnp.where(flag.reshape(flag.shape + (1,) * (a.ndim - 1)), a, b)
                return jax.tree.map(pick, true_all(k), false_all(k))
            out = jax.lax.cond(jnp.all(flag), true_all,
                               lambda k: jax.lax.cond(jnp.any(flag), mixed, false_all, k), key)
        return out, jax.tree.map(lambda _: True, out)

    return by_mode(jnp.asarray(flag) != 0, key)


class DeferredLaplace:
    """``jax.random.laplace(key, (steps,) + row)[index]``, computed only where it is read (`laplace_of`): the float
    draw of a policy whose releases are rare steps (DP-SE's epoch ends), so that its steps do not draw K variates
    each for nothing and its float mode keeps its numbers bit for bit (tests/test_noise.py). Leaves: the block key's
    data (uint32[..., 2]) and the step within the block (int32[...]), sliced per step like any block draw; static:
    ``steps``, ``row`` and the dtype. Only for keys of `jaxbandit.prng`, whose counter layout `prng.random_bits_at`
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
        bits = prng.random_bits_at(self.key[..., None, :], finfo.bits, (self.steps,) + self.row, flat)
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
    `jaxbandit.prng` (the engine's) and a 32- or 64-bit float."""
    typed = jnp.issubdtype(jnp.asarray(key).dtype, jax.dtypes.prng_key) if hasattr(key, "dtype") else False
    return bool(typed and jax.random.key_impl(key) == jax.random.key_impl(prng.key(0))
                and jnp.finfo(dtype).bits in (32, 64) and jnp.shape(key) == ())


def draw(key, shape, discrete, dtype=None, bits_shape=None, words_later=False) -> Noise:
    """The draw of releases of ``shape``: the float one exactly as ``jax.random.laplace(key, shape)`` (so the float
    mechanism keeps its numbers), or the bits from ``fold_in(key, 1)``: ``bits_shape`` (default ``shape``) by
    WORDS, e.g. one release per step, ``(steps,)``, where only the pulled arm releases (the bits then broadcast
    over the arms, whose other releases are masked out). ``discrete``: the policy's ``noise`` parameter; the
    other draw is zeros, not drawn (`_by_mode`: only one runs, unless ``discrete`` varies over a batch).
    ``words_later``: draw no words here; the release draws them from its step's key (`with_words`), for policies
    whose releases are rare steps (DP-SE's epoch ends), where words for every step would dominate the cost; the
    fixed float mode then defers its draw too (`DeferredLaplace`: the same values, computed where read)."""
    shape = tuple(shape)
    bits_shape = shape if bits_shape is None else tuple(bits_shape)
    words = 0 if words_later else WORDS
    dtype = jnp.zeros(()).dtype if dtype is None else dtype
    discrete = discrete != 0 if isinstance(discrete, jax.core.Tracer) else bool(np.asarray(discrete))

    def float_draw(key):
        return jax.random.laplace(key, shape, dtype), jnp.zeros(bits_shape + (words,), jnp.uint32)

    def discrete_draw(key):
        return jnp.zeros(shape, dtype), jax.random.bits(jax.random.fold_in(key, 1), bits_shape + (words,), jnp.uint32)

    if not isinstance(discrete, jax.core.Tracer):  # fixed mode: one draw, no words for the float one
        words = words if discrete else 0
        if words_later and not discrete and len(shape) >= 1 and _deferrable(key, dtype):
            steps = shape[0]
            data = jnp.broadcast_to(jax.random.key_data(key), (steps, 2))
            later = DeferredLaplace(data, jnp.arange(steps, dtype=jnp.int32), steps, shape[1:], dtype)
            return Noise(later, jnp.zeros(bits_shape + (0,), jnp.uint32), np.bool_(False))
        return Noise(*(discrete_draw if discrete else float_draw)(key), np.bool_(discrete))
    lap, bits = _by_mode(discrete, key, discrete_draw, float_draw)
    return Noise(lap, bits, jnp.broadcast_to(discrete, bits_shape))


def with_words(noise: Noise, key) -> Noise:
    """``noise`` (a step's slice of a ``draw(..., words_later=True)``) with the discrete release's words drawn now
    from ``key`` (the step's own key, `jaxbandit.types.StepRandom`), one release per entry of its float draw; the
    fixed float mode draws none, and words already there are kept (an audit's planted bug supplies its own)."""
    if not isinstance(noise, Noise) or (_fixed(noise) and not noise.discrete) or noise.bits.shape[-1] == WORDS:
        return noise  # (a plain array: the float mechanism)
    bits = jax.random.bits(key, noise.laplace.shape + (WORDS,), jnp.uint32)
    return noise._replace(bits=bits)


def at_arm(noise, arm):
    """The release randomness of one arm from a step's `Noise` (or float array) over the arms, where only that arm
    releases: its float draw, and its words (the step's own where they are drawn once per step, ``bits_shape``)."""
    if not isinstance(noise, Noise):
        return noise[arm]
    bits = noise.bits[arm] if noise.bits.ndim > 1 else noise.bits
    discrete = noise.discrete if _fixed(noise) or noise.discrete.ndim == 0 else noise.discrete[arm]
    return Noise(noise.laplace[arm], bits, discrete)


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


def _bit_thresholds(eps_u):
    """uint32 thresholds of B's bits j < M_BITS: ⌈σ(−2^j ε_u)·2^32⌋ (float32, then rounded); 0 for j ≥ m."""
    m, _ = _split(eps_u)
    j = jnp.arange(M_BITS)
    p = jax.nn.sigmoid(-(jnp.asarray(eps_u, jnp.float32)[..., None] * _POW2_BITS))
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
    if _fixed(noise):  # a fixed mode: only its release is computed
        return offset + discrete_release(x, scale, sensitivity, noise.bits) if noise.discrete else float_release
    return jnp.where(noise.discrete, offset + discrete_release(x, scale, sensitivity, noise.bits), float_release)



# ------------------------------------------------------------------ Gaussian draws with tails to 2^-73
_GILES_BODY = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
               -0.00417768164, 0.246640727, 1.50140941)          # w < 5, in w − 2.5 (Giles 2011)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
               0.00943887047, 1.00167406, 2.83297682)            # 5 ≤ w < 16, in √w − 3 (Giles 2011)
_FAR_TAIL = (1.23737106e-07, -5.77206712e-07, 2.07613882e-06, -9.77153758e-06, 4.03258271e-05, -0.000103024109,
             -0.000368229593, 1.01003313, 5.35499928)             # w ≥ 16, in √w − 5.5 (fitted: module docstring)


def _horner(coefficients, t):
    out = jnp.full_like(t, coefficients[0])
    for c in coefficients[1:]:
        out = out * t + jnp.float32(c)
    return out


def half_normal_quantile(p):
    """z ≥ 0 with P(|Z| ≥ z) = p for Z ~ N(0, 1), i.e. √2·erfc⁻¹(p), p in (0, 1] (float32): erf⁻¹(1 − p) =
    (1 − p)·P(w) with w = −log(p(2 − p)) taken from p, so tail probabilities down to 2^-73 keep float32's relative
    precision."""
    p = jnp.asarray(p, jnp.float32)
    w = -jnp.log(p * (2 - p))
    root = jnp.sqrt(w)
    r = jnp.where(w < 5, _horner(_GILES_BODY, w - 2.5),
                  jnp.where(w < 16, _horner(_GILES_TAIL, root - 3), _horner(_FAR_TAIL, root - 5.5)))
    return jnp.float32(math.sqrt(2)) * (1 - p) * r


def _exponent(words):
    """e = the leading zeros of the 72 bits (word 0's top 8, word 1, word 2), 72 if all are zero:
    P(e = j) = 2^-(j+1) for j < 72, P(e = 72) = 2^-72."""
    top = words[0] >> 24
    return jnp.where(top != 0, jax.lax.clz(top) - 24,
                     jnp.where(words[1] != 0, 8 + jax.lax.clz(words[1]),
                               jnp.where(words[2] != 0, 40 + jax.lax.clz(words[2]), 72))).astype(jnp.int32)


def _binade_uniform(mantissa, e):
    """p = 2^-(e+1)·(1 + k·2^-23), k the word's low 23 bits: the float32 uniform of binade e (exact in float32)."""
    exponent = (126 - e).astype(jnp.uint32) << 23  # the biased exponent of 2^-(e+1): e ≤ 72, never subnormal
    return jax.lax.bitcast_convert_type(exponent | (mantissa & jnp.uint32(0x7FFFFF)), jnp.float32)


def tail_normal(words):
    """N(0, 1) draws (float32) from uint32[NORMAL_WORDS, ...] ``words``: p = `_binade_uniform` (word 0's 23 low
    bits, binade `_exponent`), the sign from word 0's bit 23, |Z| = `half_normal_quantile` (p)."""
    z = half_normal_quantile(_binade_uniform(words[0], _exponent(words)))
    return jnp.where(((words[0] >> 23) & 1) == 1, z, -z)


def normal(key, shape, hardened, dtype=None):
    """N(0, 1) draws of ``shape``: exactly ``jax.random.normal(key, shape, dtype)`` (the float draw, so that
    ``noise = 0`` keeps earlier numbers bit for bit) or, where ``hardened`` (a policy's ``noise`` parameter, 1),
    `tail_normal` of words from ``fold_in(key, 1)``. Only one runs (`_by_mode`), unless ``hardened`` varies over
    a batch."""
    shape = tuple(shape)
    dtype = jnp.zeros(()).dtype if dtype is None else dtype

    def float_draw(key):
        return jax.random.normal(key, shape, dtype)

    def hardened_draw(key):
        words = jax.random.bits(jax.random.fold_in(key, 1), (NORMAL_WORDS,) + shape, jnp.uint32)
        return tail_normal(words).astype(dtype)

    return _by_mode(hardened, key, hardened_draw, float_draw)


_SPECIALIZED: dict = {}
_FIXED: dict = {}  # id -> policy returned by specialize (kept alive, so ids stay unique)


def specialize(policy, params):
    """``policy`` with its ``noise`` mode fixed where every run of the batch ``params`` (a policy's parameters,
    concrete, leaves batched) has the same one: its functions then see ``noise`` as a Python int, so `draw` and
    `normal` take one draw while tracing instead of a ``lax.cond`` (`_by_mode`). The drivers call it on each
    chunk's parameters (`jaxbandit.engine.make_advance`: simulate, sweep and the gradient estimators); a policy
    without ``noise``, a grid over it or traced parameters leave ``policy`` as it is (so does the epoch simulation
    of DPRSE/LDPRSE, `sweep(simulator="epochs")`, which draws through a ``lax.cond``). Memoized, so that the
    compiled step of a specialized policy is reused."""
    if id(policy) in _FIXED:  # already specialized (e.g. by the driver, on its host copy of the parameters)
        return policy
    if hasattr(params, "noise"):
        leaf, fix = params.noise, lambda p: p._replace(noise=mode)
    elif hasattr(getattr(params, "inner", None), "noise"):  # a wrapper's params (`jaxbandit.gradients.scored`)
        leaf, fix = params.inner.noise, lambda p: p._replace(inner=p.inner._replace(noise=mode))
    else:
        return policy
    if isinstance(leaf, jax.core.Tracer) or (isinstance(leaf, jax.Array) and not leaf.is_fully_addressable):
        return policy  # not known here (traced, or partly on other processes)
    values = np.unique(np.asarray(leaf))
    if values.size != 1:
        return policy
    mode = int(values[0])
    key = (id(policy), mode)
    if key not in _SPECIALIZED:
        fixed = policy._replace(init=lambda p: policy.init(fix(p)),
                                draw=lambda key, steps, p: policy.draw(key, steps, fix(p)),
                                select=lambda rng, state, p: policy.select(rng, state, fix(p)),
                                update=lambda rng, state, arm, obs, p: policy.update(rng, state, arm, obs, fix(p)))
        _SPECIALIZED[key] = (policy, fixed)  # keeps ``policy`` alive, so its id stays unique
        _FIXED[id(fixed)] = fixed
    return _SPECIALIZED[key][1]

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


def realized_normal_tail(z) -> np.ndarray:
    """P(|Z| ≥ z) of `tail_normal` exactly as this float32 code realizes it, for each ``z``: every one of its
    73·2^23 values of p is evaluated (no monotonicity assumed), each with its mass 2^-(e+1)·2^-23 (2^-72·2^-23 for
    e = 72), and the masses of those with `half_normal_quantile` (p) ≥ z summed (float64). Exact for the code as
    jit-compiled here, as the engine runs it: XLA may fuse and round otherwise elsewhere (evaluated op by op,
    4.5% of the values move by up to 2 ulp), so another backend realizes a law as close, not the same one."""
    z = jnp.asarray(np.atleast_1d(np.asarray(z, np.float32)))
    k = jnp.arange(1 << 23, dtype=jnp.uint32)
    count = jax.jit(lambda e: jnp.sum(half_normal_quantile(_binade_uniform(k, e))[:, None] >= z[None, :], axis=0))
    tail = np.zeros(z.shape)
    for e in range(NORMAL_BINADES):
        mass = 2.0 ** -(min(e + 1, NORMAL_BINADES - 1) + 23)
        tail += mass * np.asarray(count(jnp.int32(e)), np.float64)
    return tail


def float_normal_law() -> tuple[np.ndarray, float]:
    """The law of ``jax.random.normal`` in float32 as realized: (its 2^23 equally likely values, the k-th for a
    word whose top 23 bits are k, and the mass 2^-23 of each). It is √2·erf⁻¹(u), u = max(lo, f·(1 − lo) + lo),
    lo the float after −1 and f = k·2^-23 (jax's ``uniform``); tests/test_noise.py checks it against the draws."""
    k = jnp.arange(1 << 23, dtype=jnp.uint32)
    f = jax.lax.bitcast_convert_type(k | jnp.uint32(0x3F800000), jnp.float32) - 1
    lo = jnp.float32(np.nextafter(np.float32(-1), np.float32(0)))
    u = jnp.maximum(lo, f * (1 - lo) + lo)
    return np.asarray(jnp.float32(math.sqrt(2)) * jax.lax.erf_inv(u)), 2.0 ** -23

