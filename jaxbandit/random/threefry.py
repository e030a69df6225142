"""JAX's Threefry-2x32 generator with the hash unrolled, registered as a PRNG implementation.

Why: on CPU, JAX lowers the Threefry hash as a 5-iteration loop (to save compile time), so every block of
draws makes five passes over memory through small kernels. The engine draws a few thousand variates per run
per block, where that loop overhead dominates. This module computes the very same function — Threefry-2x32
with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011) and JAX's
non-partitionable ("original") counter layout for ``split``, ``fold_in`` and ``random_bits`` — as straight-line
jnp code that XLA fuses into one kernel. Keys of this implementation produce bit-for-bit the same keys, bits,
uniforms and normals as ``jax.random`` under ``jax.threefry_partitionable(False)``
(tests/test_prng.py), on every backend, only faster on CPU (benchmarks/RESULTS.md).

Use ``key(seed)`` or ``wrap(jax_key)``; everything in ``jax.random`` then works on the result as usual.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend.random import define_prng_impl

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _rotl(x, d):
    return lax.shift_left(x, np.uint32(d)) | lax.shift_right_logical(x, np.uint32(32 - d))


def hash_2x32(k1, k2, x1, x2):
    """Threefry-2x32, 20 rounds, on uint32 arrays: the function behind JAX's ``threefry2x32_p``."""
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 = x1 + x2
            x2 = _rotl(x2, r) ^ x1
        x1 = x1 + ks[(i + 1) % 3]
        x2 = x2 + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x1, x2


def threefry_2x32(key, count):
    """``jax.random``'s threefry_2x32: hash the first half of the counts against the second half."""
    flat = count.ravel()
    n = flat.shape[0]
    if n % 2:
        flat = jnp.concatenate([flat, jnp.zeros(1, jnp.uint32)])
    half = flat.shape[0] // 2
    y1, y2 = hash_2x32(key[0], key[1], flat[:half], flat[half:])
    return jnp.concatenate([y1, y2])[:n].reshape(count.shape)


def _seed(seed):
    seed = jnp.asarray(seed)
    if seed.shape or not jnp.issubdtype(seed.dtype, jnp.integer):
        raise TypeError(f"PRNG seed must be an integer scalar, got {seed!r}")
    hi = lax.shift_right_logical(seed, jnp.asarray(32, seed.dtype)) if seed.dtype.itemsize == 8 else 0 * seed
    lo = seed & jnp.asarray(0xFFFFFFFF, seed.dtype) if seed.dtype.itemsize == 8 else seed
    return jnp.stack([hi.astype(jnp.uint32), lo.astype(jnp.uint32)])


def _split(key, shape):
    num = int(np.prod(shape))
    return threefry_2x32(key, lax.iota(jnp.uint32, num * 2)).reshape(*shape, 2)


def _fold_in(key, data):
    return threefry_2x32(key, _seed(jnp.asarray(data, jnp.uint32)))


def _random_bits(key, bit_width, shape):
    size = int(np.prod(shape))
    count = -(-bit_width * size // 32)
    if count >= np.iinfo(np.uint32).max:
        raise ValueError(f"a single draw of {size} values of {bit_width} bits exceeds 2^32 - 1 counters")
    bits = threefry_2x32(key, lax.iota(jnp.uint32, count))
    if bit_width == 64:
        hi, lo = jnp.split(bits, 2)
        return (lax.shift_left(hi.astype(jnp.uint64), jnp.uint64(32)) | lo.astype(jnp.uint64)).reshape(shape)
    if bit_width in (8, 16):
        dtype = {8: jnp.uint8, 16: jnp.uint16}[bit_width]
        shifts = jnp.arange(0, 32, bit_width, dtype=jnp.uint32)
        parts = lax.shift_right_logical(bits[:, None], shifts[None, :]) & np.uint32(2 ** bit_width - 1)
        return parts.reshape(-1)[:size].astype(dtype).reshape(shape)
    return bits.reshape(shape)


def bits_at(key, count: int, index):
    """Words ``index`` (a uint32 array) of ``threefry_2x32(key, iota(count))``, each computed alone: with n the
    count, word w < ⌈n/2⌉ is the first output of the hash of the counter pair (w, w + ⌈n/2⌉), a later one the
    second output of (w − ⌈n/2⌉, w), counter n being the zero that pads an odd count. So a draw's few needed words
    cost a few hashes instead of the whole draw (DP-SE's float releases: `jaxbandit.mechanisms.laplace`)."""
    if not 0 < count < 2 ** 31:
        raise ValueError(f"count must be in [1, 2^31), got {count}")
    half = np.uint32((count + 1) // 2)
    w = jnp.asarray(index, jnp.uint32)
    first = w < half
    x1 = jnp.where(first, w, w - half)
    x2 = jnp.where(first, w + half, w)
    x2 = jnp.where(x2 < np.uint32(count), x2, np.uint32(0))
    y1, y2 = hash_2x32(key[..., 0], key[..., 1], x1, x2)
    return jnp.where(first, y1, y2)


def random_bits_at(key, bit_width: int, shape, flat_index):
    """Elements ``flat_index`` (of the flattened ``shape``) of ``jax.random.bits(key, shape)`` for a key of this
    implementation, ``key`` given by its data (uint32[..., 2], broadcasting against ``flat_index``): the same
    bits as the whole draw (tests/test_prng.py), from one hash per 32-bit word."""
    size = int(np.prod(shape))
    index = jnp.asarray(flat_index, jnp.uint32)
    if bit_width == 32:
        return bits_at(key, size, index)
    if bit_width == 64:  # `_random_bits`: the high words first, then the low words
        hi = bits_at(key, 2 * size, index).astype(jnp.uint64)
        lo = bits_at(key, 2 * size, index + np.uint32(size)).astype(jnp.uint64)
        return lax.shift_left(hi, jnp.uint64(32)) | lo
    raise ValueError(f"bit_width must be 32 or 64, got {bit_width}")


#: The key implementation registered with JAX, Threefry-2x32, the same bits as ``jax.random``'s.
IMPL = define_prng_impl(
    key_shape=(2,), seed=_seed, split=_split, random_bits=_random_bits, fold_in=_fold_in,
    name="threefry2x32_unrolled", tag="tfu")


def key(seed) -> jax.Array:
    """A typed PRNG key of the unrolled implementation (same bits as ``jax.random.key(seed)``)."""
    return jax.random.key(seed, impl=IMPL)


def wrap(jax_key) -> jax.Array:
    """The unrolled-implementation key with the same data as a default Threefry ``jax_key``."""
    return jax.random.wrap_key_data(jax.random.key_data(jax_key), impl=IMPL)
