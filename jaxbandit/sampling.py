"""Exact, vectorised Gamma and Beta samplers with pre-drawable randomness.

Thompson sampling for Beta–Bernoulli bandits needs one exact Beta(S+1, F+1)
draw per arm per step, inside a ``lax.scan`` over time of a step function that
is ``vmap``-ed over many runs.  ``jax.random.beta`` / ``jax.random.gamma`` run a
per-element rejection ``while_loop``, which is slow on CPU.  This module
instead decides acceptance for the whole batch at once and splits the work
into

* ``draw_gamma_noise`` / ``draw_beta_noise``: pre-draw the randomness of the
  first ``attempts`` proposals (cheap to do for a block of steps at once), and
* ``gamma`` / ``beta``: turn that noise into exact variates; the (rare)
  entries whose pre-drawn proposals were all rejected are redrawn in a
  ``lax.while_loop`` from fresh randomness derived from ``key``.

Algorithm (per Gamma variate, shape ``a``):

1. **Small half-integer shapes, no rejection.**  If ``2a`` is an integer and
   ``a <= 1.5 * attempts`` the variate is an exact sum of the pre-drawn noise:
   with ``E_j ~ Exp(1) = Gamma(1)`` and ``X_j ~ N(0, 1)`` (so
   ``X_j**2 / 2 ~ Gamma(1/2)``, the chi-square law), and Gamma additivity,

       Gamma(a) = sum_{j < min(floor(a), m)} E_j + sum_{j < 2a - 2 min(floor(a), m)} X_j**2 / 2.

   This covers a = 1/2, 1, 3/2, ... and in particular Beta(S+1, F+1) with small
   counts, where Marsaglia–Tsang rejects most often (4.8 % at a = 1).
2. **Otherwise Marsaglia & Tsang (2000)**, "A simple method for generating
   gamma variables", ACM TOMS 26(3):363–372.  For ``a >= 1`` let
   ``d = a - 1/3``, ``c = 1/sqrt(9 d)``.  Propose ``x ~ N(0, 1)``,
   ``v = (1 + c x)**3`` and accept ``d v`` iff ``v > 0`` and
   ``log U < x**2/2 + d - d v + d log v`` (their eq. for the acceptance test).
   With ``w = c x`` and ``d c**2 = 1/9`` the right-hand side equals
   ``3 d h(w)``, ``h(w) = log1p(w) - w + w**2/2 - w**3/3 <= 0``; this form
   avoids the catastrophic cancellation of ``1 - v + log v`` for large ``d``
   (float32 error ~1e-7·sqrt(d)·|x| instead of ~1e-7·d).  We use ``-log U = E``
   with ``E ~ Exp(1)``, so the test is ``E + 3 d h(w) > 0``.  The rejection
   probability is 4.8e-2 at a=1, 1.8e-2 at a=2, 8.0e-3 at a=4, 2.9e-3 at a=10
   and ~0.028/a for large a.  (The MT squeeze ``U < 1 - 0.0331 x**4`` only
   saves a logarithm in scalar code; vectorised, both are evaluated anyway,
   so it is omitted.)
3. **Shapes a < 1** (not half-integers) use the boost of Stuart (1962) /
   Marsaglia–Tsang (2000, Sec. 6): ``Gamma(a) = Gamma(a + 1) * U**(1/a)``, i.e.
   ``log Gamma(a) = log Gamma(a + 1) - E/a``.  The last pre-drawn exponential is
   reserved for ``E`` (so such entries have one pre-drawn MT attempt fewer).

Beta variates use ``Beta(a, b) = G_a / (G_a + G_b)`` with independent
``G_a ~ Gamma(a)``, ``G_b ~ Gamma(b)`` (e.g. Devroye 1986, "Non-Uniform Random
Variate Generation", Thm. IX.4.1 / Ch. IX.4), each sampled as above.  Cheng's
(1978) BB/BC Beta algorithms, "Generating beta variates with nonintegral shape
parameters", CACM 21(4):317–322, need only two uniforms per attempt but reject
11–16 % of proposals for the shapes met in Thompson sampling (measured), so
they need many more pre-drawn attempts to make the batched fallback rare.

Why several pre-drawn attempts: under ``vmap`` a ``while_loop`` with a batched
predicate runs its body for the *whole* batch as long as *any* element is
still rejected.  With ~2·10^4 Gamma variates per step, an extra round is paid
whenever any of them fails all pre-drawn attempts, so the per-variate failure
probability ``p(a)**attempts`` must be tiny.  See ``DEFAULT_ATTEMPTS``.

All results are exact up to floating-point rounding (the only deviations:
Gamma results are clamped to ``>= finfo.tiny`` and Beta results to
``[finfo.tiny, 1 - finfo.epsneg]``, which only moves values that have already
under/overflowed the representable range).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
from jax import lax

Array = jax.Array

DEFAULT_BETA_ATTEMPTS = 2
DEFAULT_GAMMA_ATTEMPTS = 2
_LOG4 = math.log(4.0)


class GammaNoise(NamedTuple):
    """Pre-drawn randomness for ``gamma``.

    Attributes:
      normal: N(0, 1) Marsaglia–Tsang proposals, shape ``shape + (attempts,)``.
      exponential: Exp(1) variates ``E = -log U``, shape ``shape + (attempts,)``.
    """

    normal: Array
    exponential: Array


class BetaNoise(NamedTuple):
    """Pre-drawn randomness for ``beta``.

    Attributes:
      uniform: uniforms in the open interval (0, 1), shape
        ``shape + (2 * attempts,)``; entries ``2i`` and ``2i + 1`` of the trailing
        axis are the (U1, U2) pair of Cheng's attempt i.
    """

    uniform: Array


def _default_float():
    return jax.dtypes.canonicalize_dtype(jnp.float64)


def _float_dtype(*args):
    """Result float dtype: float32 by default, float64 under x64."""
    dt = jnp.result_type(*args, float)
    if not jnp.issubdtype(dt, jnp.floating):
        raise TypeError(f"shape parameters must be real, got {dt}")
    return dt


def _take(x, i):
    """x[..., i] without a squeeze.

    Under ``vmap`` with the batch axis last, JAX's batching rules for
    squeeze/reshape/broadcast_in_dim and for ``select_n`` with operands batched
    differently move the batch axis to the front, i.e. insert transposes that
    cost more than the sampler's arithmetic.  A size-1 slice summed away keeps
    the batch axis where it is.
    """
    return jnp.sum(lax.slice_in_dim(x, i, i + 1, axis=-1), axis=-1)


def _open_uniform(key, shape, dtype):
    """Uniforms on the midpoint grid (k + 1/2) 2^-p, k = 0 .. 2^p - 1.

    ``jax.random.uniform`` returns k 2^-p (p = 23 / 52 mantissa bits); adding
    half a step is exact and gives a symmetric grid inside the open interval,
    so log U, log(1 - U) and logit U are finite.
    """
    return jax.random.uniform(key, shape, dtype) + jnp.finfo(dtype).epsneg


# ----------------------------------------------------------------------- Beta
def draw_beta_noise(
    key: Array,
    shape: Sequence[int],
    dtype=None,
    attempts: int = DEFAULT_BETA_ATTEMPTS,
) -> BetaNoise:
    """Pre-draws the uniforms that ``beta`` uses for its first attempts.

    Args:
      key: PRNG key.
      shape: leading shape of the leaf, equal to the shape of the Beta variates
        to be produced (e.g. ``(steps, K)`` for a block of steps; slice the leaf
        along axis 0 to get one step's noise).
      dtype: float dtype (default: float32, or float64 under x64).
      attempts: number of pre-drawn Cheng proposals per variate.

    Returns:
      ``BetaNoise`` whose leaf has shape ``tuple(shape) + (2 * attempts,)``.
    """
    if attempts < 1:
        raise ValueError("attempts must be >= 1")
    dtype = _default_float() if dtype is None else dtype
    return BetaNoise(_open_uniform(key, tuple(shape) + (2 * attempts,), dtype))


class _BetaConsts(NamedTuple):
    a0: Array  # min(a, b)
    b0: Array  # max(a, b)
    alpha: Array  # a + b
    p: Array  # a0 / alpha <= 1/2
    q: Array  # b0 / alpha
    log_p: Array
    q_over_p: Array  # b0 / a0
    beta: Array  # Cheng's beta = 1 / lambda
    closed: Array  # a0 == 1: closed form, no rejection
    swap: Array  # a > b: deliver 1 - Beta(a0, b0)


def _beta_consts(a, b) -> _BetaConsts:
    a0 = jnp.minimum(a, b)
    b0 = jnp.maximum(a, b)
    alpha = a0 + b0
    # Cheng (1978): lambda = a0 if a0 <= 1 else sqrt((2 a0 b0 - alpha) / (alpha - 2)).
    # (unused branch arguments are kept positive; `where` operands all depend on
    # a, b so vmap keeps the batch axis in place.)
    big = a0 > 1
    beta = jnp.where(
        big,
        jnp.sqrt(jnp.where(big, alpha - 2, a0) / jnp.where(big, 2 * a0 * b0 - alpha, a0)),
        1 / a0,
    )
    return _BetaConsts(
        a0, b0, alpha, a0 / alpha, b0 / alpha, jnp.log(a0 / alpha), b0 / a0, beta,
        a0 == 1, a > b,
    )


def _expm1mx_series(v):
    """sum_{n>=2} v^n / n! = expm1(v) - v, for |v| <= 1/2 (relative error < eps)."""
    n_max = 9 if v.dtype.itemsize <= 4 else 15
    # (Python-scalar coefficients only: an unbatched array operand would make
    # vmap move the batch axis.)
    s = v * (1 / math.factorial(n_max)) + 1 / math.factorial(n_max - 1)
    for n in range(n_max - 2, 1, -1):
        s = s * v + 1 / math.factorial(n)
    return s * v * v


def _log1pmx_series(t):
    """log1p(t) - t for |t| <= 0.33, via log1p(t) = 2 atanh(s), s = t / (2 + t):
    log1p(t) - t = -t s + 2 s^3 (1/3 + s^2/5 + s^4/7 + ...)  (|s| <= 0.14)."""
    k_max = 5 if t.dtype.itemsize <= 4 else 10
    s = t / (2 + t)
    s2 = s * s
    acc = s2 * (1 / (2 * k_max + 3)) + 1 / (2 * k_max + 1)
    for k in range(k_max - 2, -1, -1):
        acc = acc * s2 + 1 / (2 * k + 3)
    return -t * s + 2 * s * s2 * acc


def _cheng_attempt(u1, u2, C: _BetaConsts):
    """One proposal of Cheng's (1978) algorithm BA (= BB without its squeezes).

    Returns (accepted, X).  See ``beta`` for the equations.
    """
    dtype = u1.dtype
    v_big = 60.0 if dtype.itemsize <= 4 else 600.0  # e^V would overflow beyond ~88 / ~709
    l1 = jnp.log(u1)
    l1c = jnp.log1p(-u1)
    # Proposal V = beta logit(U1) (Cheng eq. for the log-logistic variate);
    # closed form (a0 == 1): y = log(U1) / b0 <= 0, Beta(1, b0) = 1 - e^y.
    v = jnp.where(C.closed, l1 / C.b0, C.beta * (l1 - l1c))
    av = jnp.abs(v)
    r = jnp.exp(-av)  # e^{-|V|}, never overflows
    pos = v > 0
    small = av < 0.5
    em1_small = v + _expm1mx_series(v)  # expm1(V), accurate for |V| < 1/2
    em1 = jnp.where(small, em1_small, jnp.where(pos, (1 - r) / r, r - 1))

    # Delivered variate: lo ~ Beta(a0, b0), hi = 1 - lo, both without cancellation.
    # Cheng: W = a0 e^V, lo = W / (b0 + W); divide through by e^{max(V, 0)}.
    wa = jnp.where(pos, C.a0, C.a0 * r)
    wb = jnp.where(pos, C.b0 * r, C.b0)
    lo = jnp.where(C.closed, -em1, wa / (wa + wb))
    hi = jnp.where(C.closed, r, wb / (wa + wb))
    x = jnp.where(C.swap, hi, lo)

    # Acceptance: log U2 <= -alpha c(V) - log(4 U1 (1 - U1)), with
    # c(V) = log(q + p e^V) - p V >= 0  (Cheng's R + alpha log(alpha/(b0+W)) - log(U1^2)).
    # |V| < 1/2:   c = log1pmx(p expm1 V) + p expm1mx(V)   (no cancellation)
    # otherwise:   c = log1p(p expm1 V) - p V,  or for V >= v_big (e^V overflows)
    #              c = log1p((q/p) e^{-V}) + q V + log p.
    huge = v >= v_big
    c_small = _log1pmx_series(C.p * em1_small) + C.p * _expm1mx_series(v)
    c_big = jnp.log1p(jnp.where(huge, C.q_over_p * r, C.p * em1)) + jnp.where(
        huge, C.q * v + C.log_p, -C.p * v
    )
    c = jnp.where(small, c_small, c_big)
    h = -C.alpha * c - (l1 + l1c) - _LOG4
    acc = C.closed | (jnp.log(u2) <= h)
    return acc, x


def _beta_fallback(key, C: _BetaConsts, x, done):
    """Fresh Cheng proposals from fold_in(key, i), i = 1, 2, ..., for entries not
    yet accepted.  Under vmap the predicate is batched, so the body runs for the
    whole batch while any entry anywhere is pending."""

    def cond(state):
        return ~jnp.all(state[2])

    def body(state):
        i, x, done = state
        u = _open_uniform(jax.random.fold_in(key, i), x.shape + (2,), x.dtype)
        acc, xi = _cheng_attempt(_take(u, 0), _take(u, 1), C)
        take = acc & ~done
        return i + 1, jnp.where(take, xi, x), done | take

    _, x, _ = lax.while_loop(cond, body, (jnp.asarray(1, jnp.uint32), x, done))
    return x


def beta(key: Array, a, b, noise: BetaNoise | None = None) -> Array:
    """Exact Beta(a, b) variates, vectorised.

    Args:
      key: PRNG key for the fallback rounds (and for everything when ``noise``
        is None).  Must be independent of ``noise``.
      a, b: shapes, > 0; broadcast to the leading shape of ``noise``.
      noise: output of ``draw_beta_noise`` (leading shape = output shape), or
        None to draw it from ``fold_in(key, 0)``.

    Returns:
      Beta(a, b) variates in (0, 1); float32 by default, float64 for float64
      shapes or under x64 for Python / integer shapes.
    """
    dtype = _float_dtype(a, b)
    compute = jnp.promote_types(dtype, jnp.float32)
    if noise is None:
        lead = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
        noise = draw_beta_noise(jax.random.fold_in(key, 0), lead, compute, DEFAULT_BETA_ATTEMPTS)
    u = noise.uniform.astype(compute)
    lead = u.shape[:-1]
    a = jnp.broadcast_to(jnp.asarray(a, compute), lead)
    b = jnp.broadcast_to(jnp.asarray(b, compute), lead)
    C = _beta_consts(a, b)
    m = u.shape[-1] // 2
    x = done = None
    for i in reversed(range(m)):  # backwards, so the first accepted attempt wins
        acc, xi = _cheng_attempt(_take(u, 2 * i), _take(u, 2 * i + 1), C)
        x = xi if x is None else jnp.where(acc, xi, x)
        done = acc if done is None else done | acc
    x = _beta_fallback(key, C, x, done)
    fi = jnp.finfo(compute)
    return jnp.clip(x, fi.tiny, 1 - fi.epsneg).astype(dtype)
