"""Gaussian draws with tails down to 2^-73: the default N(0, 1) noise of every private Gaussian-noise policy in
jaxbandit (private Thompson sampling, DP-FTPL-Gauss), beside ``jax.random.normal``, the float draw of the papers'
code. Which one a policy uses is chosen when it is built (its ``release`` option: ``"tail-safe"``, the default, or
``"float"``), never in its numeric parameters.

Why. The Gaussian-noise policies (Thompson sampling, seed 001; DP-FTPL-Gauss, seed 003) release only
argmax_k (m_k + s_k Z_k), never a noisy value, so the porous low bits of a float Laplace release (`jaxbandit.mechanisms.laplace`) leak nothing a comparison can see; what
survives post-processing is the law of Z itself. ``jax.random.normal`` maps one 32-bit word through a float32
uniform on (−1, 1) at spacing 2^-23 and erf⁻¹: its tails are coarse and cut at Z = 5.22 above and −5.42 below
(`float_normal_law`, all 2^23 values), where N(0, 1) still has 9e-8 and 3e-8. A μ-GDP claim promises f(α) → 1
as α → 0, i.e. no event possible under one input and impossible under its neighbour; a cut support breaks that:
an arm whose win needs Z beyond the cut under one reward sequence and a little less under its neighbour.

`normal` (``release="tail-safe"``, the default) draws Z from three words: |Z| = √2·erfc⁻¹(p), P(|Z| ≥ z) = p, with p a float32 uniform
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

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks

__all__ = ["RELEASES", "NORMAL_WORDS", "NORMAL_BINADES", "normal", "tail_normal", "half_normal_quantile",
           "realized_normal_tail", "float_normal_law"]

RELEASES = ("tail-safe", "float")  # a policy's ``release`` option: the default, the papers' ``jax.random.normal``
NORMAL_WORDS = 3            # 32-bit words per tail-safe draw: mantissa, sign, 72 exponent bits
NORMAL_BINADES = 73         # the exponents e = 0..72 of its uniform


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


def normal(key, shape, release: str, dtype=None):
    """N(0, 1) draws of ``shape`` for ``release`` (`RELEASES`, a policy's build-time option): exactly
    ``jax.random.normal(key, shape, dtype)`` (``"float"``, so that the papers' numbers are kept bit for bit) or
    `tail_normal` of words from ``fold_in(key, 1)`` (``"tail-safe"``)."""
    checks.known_name("normal release", release, RELEASES)
    shape = tuple(shape)
    dtype = jnp.zeros(()).dtype if dtype is None else dtype
    if release == "float":
        return jax.random.normal(key, shape, dtype)
    words = jax.random.bits(jax.random.fold_in(key, 1), (NORMAL_WORDS,) + shape, jnp.uint32)
    return tail_normal(words).astype(dtype)


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

