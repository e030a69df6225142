"""Exact, vectorised Beta and Gamma samplers with pre-drawable randomness.

Beta–Bernoulli Thompson sampling needs one exact Beta(S+1, F+1) draw per arm and
step inside a ``lax.scan`` over time of a step ``vmap``-ed over runs (runs axis
last).  ``jax.random.beta`` runs a per-element rejection ``while_loop`` and is
~100x slower than a normal draw on CPU.  The work is split into

* ``draw_beta_noise`` / ``draw_gamma_noise``: pre-draw the randomness of the
  first ``attempts`` proposals (cheap in blocks of steps), and
* ``beta`` / ``gamma``: turn it into exact variates; entries whose pre-drawn
  proposals were all rejected get fresh proposals, derived from ``key``, in a
  ``lax.while_loop`` until every entry is accepted (``fold_in(key, 0)`` draws
  the noise when none is given).

Beta algorithm (per variate; a0 = min(a, b), b0 = max(a, b), alpha = a + b):

* a0 == 1: inversion, Beta(1, b0) = 1 - U^(1/b0) and Beta(b0, 1) = U^(1/b0)
  (no rejection; frequent in Thompson sampling, where S = 0 or F = 0).
* otherwise Cheng (1978), "Generating beta variates with nonintegral shape
  parameters", CACM 21(4):317-322, algorithm BA (BB without its squeezes;
  with lambda = a0 for a0 <= 1 it is exact for all a, b > 0):
  beta = 1/lambda, lambda = a0 if a0 <= 1 else sqrt((2 a0 b0 - alpha)/(alpha - 2)),
  V = beta log(U1/(1 - U1)), W = a0 e^V; deliver W/(b0 + W) (b0/(b0 + W) if
  a > b) iff alpha log(alpha/(b0 + W)) + (a0 + 1/beta) V - log 4 >= log(U1^2 U2).
  The test is evaluated in the equal, cancellation-free form
  log U2 <= -alpha c(V) - log(4 U1 (1 - U1)),  c(V) = log(1 - p + p e^V) - p V,
  p = a0/alpha, with log1pmx/expm1mx series for |V| < 1/4 (the textbook form
  loses ~eps sqrt(a0) |logit U1|, ~2e-5 in float32 at a0 = 1e4).

Why Cheng, and why one pre-drawn attempt (measured; see
benchmarks/bench_sampling.py): Cheng needs 2 uniforms per attempt and rejects
8-16 % of them for Thompson-sampling shapes (12 % at a = b = 10, 11 % at
a = b = 1e4, 15-20 % for (2, 10..1e4); 0 for a0 == 1).  Beta as a ratio of two
Marsaglia–Tsang Gammas rejects only ~1 % per Beta, but needs 2 normals and 2
exponentials per attempt, which cost more to draw and transform on CPU.  With
~1e4 variates per step some are always rejected, so under vmap the fallback
runs every step whatever the number of pre-drawn attempts m; it is made cheap
instead: pending entries are compacted into a buffer (1/12 of the batch;
prefix counts from flags packed 32 to a uint32 word and popcounts, not
``jnp.nonzero``, whose reduce-window cumsum cost ~20 kernels) and get 4
proposals per loop iteration, evaluated as one (4, cap) array, from a
counter-based Threefry keyed by each run's own key.
In situ (K = 10, 1000 runs) this fallback made Beta TS ~1.25x faster than the
previous one (1/8 buffer, jnp.nonzero, 3 proposals in a rolled loop with a
select chain, which needed two iterations per step almost always).  With the
earlier fallback, m = 1 pre-drawn attempt was fastest in situ (K = 10, 1000
runs, 1e4 steps; m = 2, 3 were 6-26 % slower), hence ``DEFAULT_ATTEMPTS = 1``.
Packing the compaction flags into bits (instead of a triangular float32
matmul, ~50 us per call in a profile) and keying the fallback Threefry by the
key's own words (instead of a per-step ``fold_in``) took engine Beta TS
(K = 10, 1000 runs) from ~405 to ~345 us per step (Gaussian TS: ~51).
Re-measured with this fallback (the in-situ loop of bench_sampling.py,
variants interleaved in one process): m = 2 was still slower (+90-120 us per
step, also with a 1/32 or 1/64 buffer), as were 3 or 6 proposals per
iteration and 1/10-1/16 buffers, and Beta as a ratio of two ``gamma`` draws
(~430 vs ~335 us per step).

Gamma algorithm: Marsaglia & Tsang (2000), "A simple method for generating
gamma variables", ACM TOMS 26(3):363-372: d = a - 1/3, c = 1/sqrt(9 d),
x ~ N(0, 1), v = (1 + c x)^3; accept d v iff v > 0 and
log U < x^2/2 + d - d v + d log v.  With w = c x and d c^2 = 1/9 the right side
is 3 d h(w), h(w) = log1p(w) - w + w^2/2 - w^3/3 <= 0 (no cancellation), and
E = -log U ~ Exp(1) is pre-drawn.  Shapes with 2a integer and a <= 1.5 m are
exact sums of the pre-drawn noise (Gamma(1) = E, Gamma(1/2) = X^2/2), and
a < 1 uses the boost Gamma(a) = Gamma(a + 1) U^(1/a) (Stuart 1962; MT 2000,
sec. 6) with the last pre-drawn exponential as -log U.

Layout and XLA:CPU: under ``vmap`` JAX's batching rules for select, broadcast,
squeeze and while-loop carries move the batch axis to the front (transposes
that cost more than the sampler), XLA fused the sampler into a consumer argmax
(3x slower) and fused unrolled attempts into one unvectorised kernel (up to
7x slower).  So ``beta``/``gamma`` are ``custom_vmap`` functions whose batch
rule runs one explicit implementation on arrays with a trailing batch axis
(nested vmaps are merged into it), attempts and fallback proposals run in
rolled loops, and the result leaves through a ``while_loop``.  Every batch
element only uses its own key and noise, so vmapped results equal unbatched
calls bit for bit.

All results are exact up to floating-point rounding: uniforms live on the
midpoint grid (k + 1/2) 2^-p (no log 0), Beta outputs are clamped to
[tiny, 1 - epsneg] and Gamma outputs to >= tiny, which only moves values that
are not representable anyway.  Not differentiable (custom_vmap).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
from jax import lax

from jaxbandit.random.threefry import hash_2x32  # Threefry-2x32 (Salmon et al. 2011) for the fallback counters

Array = jax.Array

DEFAULT_ATTEMPTS = 1  # Beta: pre-drawn Cheng proposals per variate (see module docstring)
DEFAULT_GAMMA_ATTEMPTS = 2  # Gamma: pre-drawn Marsaglia–Tsang proposals per variate
_LOG4 = math.log(4.0)


class BetaNoise(NamedTuple):
    """Pre-drawn randomness for ``beta``.

    Attributes:
      uniform: uniforms in (0, 1), shape ``shape + (2 * attempts,)``; trailing
        entries 2i and 2i + 1 are (U1, U2) of Cheng's attempt i.
    """

    uniform: Array


class GammaNoise(NamedTuple):
    """Pre-drawn randomness for ``gamma``.

    Attributes:
      normal: N(0, 1) Marsaglia–Tsang proposals, shape ``shape + (attempts,)``.
      exponential: Exp(1) variates ``-log U``, shape ``shape + (attempts,)``.
    """

    normal: Array
    exponential: Array


# --------------------------------------------------------------------- helpers
def _default_float():
    return jax.dtypes.canonicalize_dtype(jnp.float64)


def _float_dtype(*args):
    """Result dtype: float32 by default, float64 under x64 (or for float64 input)."""
    dt = jnp.result_type(*args, float)
    if not jnp.issubdtype(dt, jnp.floating):
        raise TypeError(f"shape parameters must be real, got {dt}")
    return dt


def _typed_key(key):
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return key
    return jax.random.wrap_key_data(key)


def _open_uniform(key, shape, dtype):
    """Uniforms on the grid (k + 1/2) 2^-p, k = 0 .. 2^p - 1 (p = 23 or 52).

    ``jax.random.uniform`` gives k 2^-p; adding half a step is exact and keeps
    U and 1 - U on the same symmetric grid inside the open interval.
    """
    return jax.random.uniform(key, shape, dtype) + jnp.finfo(dtype).epsneg


def _batched(core):
    """Wraps ``core(keys, *arrays)`` -- keys of shape (B,), every array with a
    trailing batch axis of size B -- as a ``custom_vmap`` function whose batch
    rule moves the new batch axis to the end and merges it into B, so the core
    always sees one explicit, contiguous batch axis."""

    @jax.custom_batching.custom_vmap
    def f(keys, *xs):
        return core(keys, *xs)

    @f.def_vmap
    def rule(axis_size, in_batched, keys, *xs):
        n = axis_size

        def merge(x, batched):
            if not batched:
                x = jnp.broadcast_to(x, (n,) + x.shape)
            x = jnp.moveaxis(x, 0, -1)  # (..., B, n)
            return x.reshape(x.shape[:-2] + (x.shape[-2] * n,))

        out = f(merge(keys, in_batched[0]), *(merge(x, bt) for x, bt in zip(xs, in_batched[1:])))
        out = out.reshape(out.shape[:-1] + (out.shape[-1] // n, n))
        return jnp.moveaxis(out, -1, 0), True

    return f


_COUNTER_TOP = 0x80000000  # set in the fallback's first counter word


def _key_words(keys):
    """Two uint32 words per batch element: its own key's data (extra words of
    e.g. rbg keys are folded in by XOR).  The fallback hashes counters whose
    first word has the top bit set (``_entry_uniforms``); JAX's Threefry
    ``split``, ``fold_in`` and ``random_bits`` (both counter layouts, and
    ``jaxbandit.random.threefry``) only hash counters whose first word is < 2^31 (for
    draws of fewer than 2^31 words, i.e. below 8 GiB per key), so the
    fallback stream never overlaps jax.random draws made from ``key`` itself
    (no per-step ``fold_in`` to a sub-key needed)."""
    kd = jax.random.key_data(keys)
    kd = kd.reshape(kd.shape[:1] + (-1, 2))
    k0, k1 = kd[:, 0, 0], kd[:, 0, 1]
    for j in range(1, kd.shape[1]):  # fold in extra key words (e.g. rbg keys)
        k0, k1 = k0 ^ kd[:, j, 0], k1 ^ kd[:, j, 1]
    return k0, k1


def _entry_uniforms(k0, k1, entry, rnd, dtype):
    """Two independent open-grid uniforms per entry for fallback round ``rnd``:
    Threefry keyed by the entry's batch element, counter (entry index, round).
    A pure function of (key, entry, round), so compacting entries changes
    nothing, and each batch element only uses its own key."""
    rnd = jnp.broadcast_to(jnp.asarray(rnd, jnp.uint32), entry.shape)
    top = jnp.uint32(_COUNTER_TOP)  # entries < 2^30 (checked in _resolve)
    if jnp.dtype(dtype).itemsize <= 4:
        w0, w1 = hash_2x32(k0, k1, entry | top, rnd)
        to_u = lambda w: ((w >> 9).astype(dtype) + 0.5) * (2.0 ** -23)
        return to_u(w0), to_u(w1)

    def to_u(w):
        hi, lo = w
        bits = (hi.astype(jnp.uint64) << 20) | (lo.astype(jnp.uint64) >> 12)
        return (bits.astype(dtype) + 0.5) * (2.0 ** -52)

    return (to_u(hash_2x32(k0, k1, (2 * entry) | top, rnd)),
            to_u(hash_2x32(k0, k1, (2 * entry + 1) | top, rnd)))


_ROUNDS_PER_ITER = 4  # fallback proposals per pending entry per loop iteration
_CAP_DIVISOR = 12  # the fallback buffer holds 1/12 of the batch (at least 128 entries)


def _prefix_count(flags):
    """Inclusive prefix sums of a 1-D 0/1 array, exactly (int32).

    XLA:CPU lowers ``cumsum`` to a tree of small reduce-windows (~20 kernels
    for 1e4 entries), and a triangular matmul per row cost ~50 us per call.
    Here rows of 32 flags are packed into one uint32 word (bit j = flag j);
    the count up to and including flag j of a row is the popcount of the word
    masked to bits 0..j, and only the n/32 row totals go through ``cumsum``."""
    n = flags.shape[0]
    rows = -(-n // 32)
    f = jnp.pad(flags.astype(jnp.uint32), (0, rows * 32 - n)).reshape(rows, 32)
    j = lax.broadcasted_iota(jnp.uint32, (rows, 32), 1)
    words = jnp.sum(f << j, axis=1, dtype=jnp.uint32)  # distinct bits: the sum is an OR
    totals = lax.population_count(words).astype(jnp.int32)
    below = (jnp.uint32(2) << j) - 1  # bits 0..j (for j = 31 the shift wraps: all ones)
    within = lax.population_count(words[:, None] & below).astype(jnp.int32)
    return (within + (jnp.cumsum(totals) - totals)[:, None]).reshape(-1)[:n]


def _compact_idx(mask, cap):
    """Indices of the first ``cap`` True entries of the 1-D ``mask`` in
    increasing order, padded with ``len(mask)``: ``jnp.nonzero(mask, size=cap,
    fill_value=len(mask))`` without its reduce-window cumsum."""
    n = mask.shape[0]
    target = jnp.where(mask, _prefix_count(mask.astype(jnp.int32)) - 1, cap)
    return jnp.full((cap,), n, jnp.int32).at[target].set(lax.iota(jnp.int32, n), mode="drop")


def _resolve(keys, x, params, attempt):
    """Replaces the NaN ("pending") entries of ``x`` (shape S + (B,)) with
    accepted proposals ``attempt(u1, u2, *params_entry) -> (accepted, value)``
    drawn from fresh randomness.

    Each loop iteration compacts up to ``cap`` (1/12 of the batch) pending
    entries into a buffer (``_compact_idx``) and evaluates
    ``_ROUNDS_PER_ITER`` proposals for each at once, as one (rounds, cap)
    array; an entry takes its first accepted proposal (standard rejection
    sampling with i.i.d. proposals) or stays pending.  A step typically needs a
    single iteration (XLA:CPU loop iterations are expensive).  Each entry
    counts the proposals it has used: its j-th fallback proposal is
    _entry_uniforms(its key, its index within S, j), whichever iteration it is
    evaluated in.  So an entry's value is a pure function of its own key,
    index and parameters, even when the buffer overflows and it waits for a
    later iteration: a batch element's draws never depend on the other
    elements of the batch (a run simulated alone equals itself in any batch,
    bit for bit).  (Counting by iteration instead, as before, tied a waiting
    entry's counters to how many other entries were pending.)
    """
    shape, dtype = x.shape, x.dtype
    nb = shape[-1]
    total = math.prod(shape)
    if 2 * (total // nb) > _COUNTER_TOP:  # entry indices must stay below 2^30
        raise ValueError(f"at most 2^30 variates per batch element, got {total // nb}")
    cap = min(total, max(128, -(-total // _CAP_DIVISOR)))
    rounds = _ROUNDS_PER_ITER
    k0, k1 = _key_words(keys)
    flat_iota = lax.iota(jnp.uint32, total)
    columns = [p.reshape(-1) for p in params] + [flat_iota % nb, flat_iota // nb]

    def body(state):
        xf, used = state
        idx = _compact_idx(jnp.isnan(xf), cap)
        *ps, run, entry = (jnp.take(c, idx, mode="clip") for c in columns)
        full = (rounds, cap)
        bc = lambda v: jnp.broadcast_to(v[None], full)
        counter = bc(jnp.take(used, idx, mode="clip")) + lax.broadcasted_iota(jnp.uint32, full, 0)
        u1, u2 = _entry_uniforms(bc(jnp.take(k0, run)), bc(jnp.take(k1, run)), bc(entry), counter, dtype)
        acc, v = attempt(u1, u2, *(p[None] for p in ps))
        # first accepted round via argmax + gather: a chain of per-round selects
        # fuses with the rounds into one slow kernel on XLA:CPU
        first = jnp.argmax(acc, axis=0)
        xb = jnp.where(jnp.any(acc, axis=0), jnp.take_along_axis(v, first[None], axis=0)[0], jnp.nan)
        # padding indices (= total) are dropped
        return xf.at[idx].set(xb, mode="drop"), used.at[idx].add(jnp.uint32(rounds), mode="drop")

    xf, _ = lax.while_loop(
        lambda st: jnp.any(jnp.isnan(st[0])), body, (x.reshape(-1), jnp.zeros(total, jnp.uint32))
    )
    return xf.reshape(shape)


def _attempt_slice(x, i, axis):
    """x[..., i, :] along ``axis`` for a traced attempt index (no squeeze)."""
    return jnp.sum(lax.dynamic_slice_in_dim(x, i, 1, axis=axis), axis=axis)


# ------------------------------------------------------------------------ Beta
def draw_beta_noise(
    key: Array, shape: Sequence[int], dtype=None, attempts: int = DEFAULT_ATTEMPTS
) -> BetaNoise:
    """Pre-draws the uniforms for the first ``attempts`` proposals of ``beta``.

    Args:
      key: PRNG key.
      shape: leading shape of the leaf = shape of the Beta variates to produce
        (e.g. ``(steps, K)`` for a block of steps; slice axis 0 per step).
      dtype: float dtype (default float32, or float64 under x64).
      attempts: pre-drawn Cheng proposals per variate.

    Returns:
      ``BetaNoise`` with one leaf of shape ``tuple(shape) + (2 * attempts,)``.
    """
    if attempts < 1:
        raise ValueError("attempts must be >= 1")
    dtype = _default_float() if dtype is None else dtype
    return BetaNoise(_open_uniform(key, tuple(shape) + (2 * attempts,), dtype))


class _BetaConsts(NamedTuple):
    a0: Array  # min(a, b)
    b0: Array  # max(a, b)
    alpha: Array  # a + b
    p: Array  # a0 / alpha  (<= 1/2)
    q: Array  # b0 / alpha
    log_p: Array
    q_over_p: Array  # b0 / a0
    beta: Array  # Cheng's beta = 1 / lambda
    closed: Array  # a0 == 1: inversion, no rejection
    swap: Array  # a > b: deliver 1 - Beta(a0, b0) = Beta(b0, a0)


def _beta_consts(a, b) -> _BetaConsts:
    a0 = jnp.minimum(a, b)
    b0 = jnp.maximum(a, b)
    alpha = a0 + b0
    big = a0 > 1  # Cheng: lambda = a0 if a0 <= 1 else sqrt((2 a0 b0 - alpha)/(alpha - 2))
    ratio = jnp.where(big, alpha - 2, a0) / jnp.where(big, 2 * a0 * b0 - alpha, a0)
    beta = jnp.where(big, jnp.sqrt(ratio), 1 / a0)
    return _BetaConsts(
        a0, b0, alpha, a0 / alpha, b0 / alpha, jnp.log(a0 / alpha), b0 / a0, beta, a0 == 1, a > b
    )


def _expm1mx(v):
    """expm1(v) - v = sum_{n>=2} v^n/n! for |v| <= 1/4 (relative error < eps)."""
    n_max = 8 if v.dtype.itemsize <= 4 else 13
    s = v * (1 / math.factorial(n_max)) + 1 / math.factorial(n_max - 1)
    for n in range(n_max - 2, 1, -1):
        s = s * v + 1 / math.factorial(n)
    return s * v * v


def _log1pmx(t):
    """log1p(t) - t for |t| <= 0.15 via log1p(t) = 2 atanh(s), s = t/(2 + t):
    log1p(t) - t = -t s + 2 s^3 (1/3 + s^2/5 + s^4/7 + ...), |s| <= 0.07."""
    k_max = 4 if t.dtype.itemsize <= 4 else 8
    s = t / (2 + t)
    s2 = s * s
    acc = s2 * (1 / (2 * k_max + 3)) + 1 / (2 * k_max + 1)
    for k in range(k_max - 2, -1, -1):
        acc = acc * s2 + 1 / (2 * k + 3)
    return -t * s + 2 * s * s2 * acc


def _cheng_attempt(u1, u2, C: _BetaConsts):
    """One proposal: closed form (a0 == 1) or Cheng's BA.  Returns (accepted, X)."""
    v_big = 60.0 if u1.dtype.itemsize <= 4 else 600.0  # beyond, e^V overflows
    l1 = jnp.log(u1)
    l1c = jnp.log1p(-u1)
    # closed form: y = log(U1)/b0 <= 0, Beta(1, b0) = -expm1(y), Beta(b0, 1) = e^y
    v = jnp.where(C.closed, l1 / C.b0, C.beta * (l1 - l1c))
    av = jnp.abs(v)
    r = jnp.exp(-av)  # e^{-|V|}: never overflows
    pos = v > 0
    small = av < 0.25
    emx = _expm1mx(v)  # used where |V| < 1/4
    em1 = jnp.where(small, v + emx, jnp.where(pos, (1 - r) / r, r - 1))  # expm1(V)

    # X = W/(b0 + W) (or b0/(b0 + W) if swapped), divided through by e^{max(V,0)}
    wa = jnp.where(pos, C.a0, C.a0 * r)
    wb = jnp.where(pos, C.b0 * r, C.b0)
    x = jnp.where(C.swap, wb, wa) / (wa + wb)
    x = jnp.where(C.closed, jnp.where(C.swap, r, -em1), x)

    # acceptance: log U2 <= -alpha c(V) - log(4 U1 (1 - U1))
    t = C.p * em1
    huge = v >= v_big
    c_small = _log1pmx(t) + C.p * emx
    c_big = jnp.log1p(jnp.where(huge, C.q_over_p * r, t)) + jnp.where(
        huge, C.q * v + C.log_p, -C.p * v
    )
    c = jnp.where(small, c_small, c_big)
    acc = C.closed | (jnp.log(u2) <= -C.alpha * c - (l1 + l1c) - _LOG4)
    return acc, x


def _beta_core(keys, a, b, u):
    """a, b: S + (B,); u: S + (2m, B); keys: (B,).  Explicit batch axis last."""
    dtype = a.dtype
    m = u.shape[-2] // 2
    C = _beta_consts(a, b)

    # Pre-drawn attempts in a rolled loop (unrolled, XLA:CPU fuses them into one
    # unvectorised kernel).  NaN marks "not yet accepted".
    def attempt(i, x):
        acc, xi = _cheng_attempt(
            _attempt_slice(u, 2 * i, -2), _attempt_slice(u, 2 * i + 1, -2), C
        )
        return jnp.where(jnp.isnan(x) & acc, xi, x)

    x = lax.fori_loop(0, m, attempt, jnp.full(a.shape, jnp.nan, dtype))

    # Fallback: fresh proposals (derived from each element's key) until done.
    x = _resolve(keys, x, (a, b), lambda u1, u2, a, b: _cheng_attempt(u1, u2, _beta_consts(a, b)))
    fi = jnp.finfo(dtype)
    return jnp.clip(x, fi.tiny, 1 - fi.epsneg)


_beta_batched = _batched(_beta_core)


def beta(key: Array, a, b, noise: BetaNoise | None = None) -> Array:
    """Exact Beta(a, b) variates (see the module docstring for the algorithm).

    Args:
      key: PRNG key for the fallback rounds (and for everything when ``noise``
        is None).  Must be independent of ``noise``.
      a, b: shapes, > 0; broadcast to the leading shape of ``noise``.
      noise: output of ``draw_beta_noise`` (leading shape = output shape), or
        None to draw it from ``fold_in(key, 0)`` with ``DEFAULT_ATTEMPTS``.

    Returns:
      Beta(a, b) variates in (0, 1) of the noise's leading shape; float32 by
      default, float64 for float64 shapes or under x64.
    """
    dtype = _float_dtype(a, b)
    compute = jnp.promote_types(dtype, jnp.float32)
    key = _typed_key(key)
    if noise is None:
        lead = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
        noise = draw_beta_noise(jax.random.fold_in(key, 0), lead, compute)
    u = noise.uniform.astype(compute)
    lead = u.shape[:-1]
    a = jnp.broadcast_to(jnp.asarray(a, compute), lead)
    b = jnp.broadcast_to(jnp.asarray(b, compute), lead)
    out = _beta_batched(key[None], a[..., None], b[..., None], u[..., None])
    return out[..., 0].astype(dtype)


# ----------------------------------------------------------------------- Gamma
def draw_gamma_noise(
    key: Array, shape: Sequence[int], dtype=None, attempts: int = DEFAULT_GAMMA_ATTEMPTS
) -> GammaNoise:
    """Pre-draws normals and exponentials for the first ``attempts`` proposals.

    Args:
      key: PRNG key.
      shape: leading shape of the leaves = shape of the Gamma variates.
      dtype: float dtype (default float32, or float64 under x64).
      attempts: pre-drawn Marsaglia–Tsang proposals per variate.

    Returns:
      ``GammaNoise`` with leaves of shape ``tuple(shape) + (attempts,)``.
    """
    if attempts < 1:
        raise ValueError("attempts must be >= 1")
    dtype = _default_float() if dtype is None else dtype
    kx, ke = jax.random.split(key)
    shape = tuple(shape) + (attempts,)
    return GammaNoise(
        jax.random.normal(kx, shape, dtype),
        -jnp.log(_open_uniform(ke, shape, dtype)),  # Exp(1), never 0 or inf
    )


def _mt_attempt(x, e, d, c):
    """Marsaglia–Tsang proposal: (accepted, d (1 + c x)^3)."""
    w = c * x
    ok = w > -1
    w = jnp.where(ok, w, 0)
    h = jnp.log1p(w) - w * (1 - w * (0.5 - w / 3))
    one = 1 + w
    return ok & (e + 3 * d * h > 0), d * (one * one * one)


def _gamma_core(keys, a, xs, es):
    """a: S + (B,); xs, es: S + (m, B); keys: (B,)."""
    dtype = a.dtype
    m = xs.shape[-2]
    # exact sums for 2a integer, a <= 1.5 m: sum_{i<n_exp} E_i + sum_{i<n_sq} X_i^2/2
    two_a = 2 * a
    exact = (two_a == jnp.round(two_a)) & (a <= 1.5 * m)
    n_exp = jnp.minimum(jnp.floor(a), m)
    n_sq = two_a - 2 * n_exp
    g = jnp.zeros_like(a)
    for i in range(m):
        xi, ei = xs[..., i, :], es[..., i, :]
        g = g + jnp.where(i < n_exp, ei, 0) + jnp.where(i < n_sq, 0.5 * xi * xi, 0)
    # a < 1 (not exact): Gamma(a) = Gamma(a + 1) exp(-E/a), E = last exponential
    boost = (a < 1) & ~exact
    log_boost = jnp.where(boost, -es[..., m - 1, :] / a, 0)
    d = jnp.where(a < 1, a + 1, a) - 1 / 3
    c = lax.rsqrt(9 * d)
    g = jnp.where(exact, g, jnp.nan)  # NaN marks "not yet accepted"

    def attempt(i, g):
        acc, v = _mt_attempt(_attempt_slice(xs, i, -2), _attempt_slice(es, i, -2), d, c)
        acc = acc & ~(boost & (i == m - 1))  # the boost owns the last exponential
        return jnp.where(jnp.isnan(g) & acc, v, g)

    g = lax.fori_loop(0, m, attempt, g)

    def fresh_attempt(u1, u2, d, c):
        x = jnp.sqrt(jnp.asarray(2, u1.dtype)) * lax.erf_inv(2 * u1 - 1)  # N(0, 1) by inversion
        return _mt_attempt(x, -jnp.log(u2), d, c)

    g = _resolve(keys, g, (d, c), fresh_attempt)
    return jnp.maximum(g * jnp.exp(log_boost), jnp.finfo(dtype).tiny)


_gamma_batched = _batched(_gamma_core)


def gamma(key: Array, a, noise: GammaNoise | None = None) -> Array:
    """Exact standard Gamma(a, 1) variates (Marsaglia & Tsang 2000; see module).

    Args:
      key: PRNG key for the fallback rounds (and for everything when ``noise``
        is None).  Must be independent of ``noise``.
      a: shapes, > 0; broadcast to the leading shape of ``noise``.
      noise: output of ``draw_gamma_noise``, or None to draw it from
        ``fold_in(key, 0)`` with ``DEFAULT_GAMMA_ATTEMPTS``.

    Returns:
      Gamma(a) variates (> 0) of the noise's leading shape; float32 by default,
      float64 for float64 ``a`` or under x64.
    """
    dtype = _float_dtype(a)
    compute = jnp.promote_types(dtype, jnp.float32)
    key = _typed_key(key)
    if noise is None:
        noise = draw_gamma_noise(jax.random.fold_in(key, 0), jnp.shape(a), compute)
    xs = noise.normal.astype(compute)
    es = noise.exponential.astype(compute)
    lead = xs.shape[:-1]
    a = jnp.broadcast_to(jnp.asarray(a, compute), lead)
    out = _gamma_batched(key[None], a[..., None], xs[..., None], es[..., None])
    return out[..., 0].astype(dtype)
