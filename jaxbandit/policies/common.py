"""Helpers shared by the policies."""
from __future__ import annotations

import jax
import jax.numpy as jnp


def argmax_random_tie(values, u):
    """Index of a maximum of ``values``, uniform among tied maxima, from one uniform ``u`` in [0, 1).

    ``jnp.argmax`` would always return the first maximum, which biases early play of index policies whose
    indices tie with positive probability (equal counts and equal empirical means).
    """
    best = values == jnp.max(values, axis=-1, keepdims=True)
    count = jnp.sum(best, axis=-1)
    k = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(jnp.cumsum(best, axis=-1) > k, axis=-1).astype(jnp.int32)


def unplayed_first(index, counts, u):
    """The arm to play for an index policy: an unplayed arm if any (uniform among them), else the largest index
    (uniform among ties), from one uniform ``u``."""
    return argmax_random_tie(jnp.where(counts == 0, jnp.inf, index), u)


def onehot(arm, num_arms, dtype=jnp.int32):
    return (jnp.arange(num_arms) == arm).astype(dtype)


def uniform_draw(key, steps, params):
    """One uniform per step (tie-breaking, exploration coins)."""
    del params
    return jax.random.uniform(key, (steps,))


