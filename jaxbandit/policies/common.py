"""Helpers shared by the policies."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxbandit import checks



def inclusive_count(mask):
    """Σ_{j ≤ i} mask_j along the last axis (int32), for a bool ``mask``: the popcount of the mask packed into uint32
    words of 32 arms, cut at each bit, plus the counts of the words before (left to right). Elementwise work that
    XLA:CPU fuses with its neighbours, where ``jnp.cumsum`` lowers to a reduce-window kernel of its own (a quarter of
    DP-SE's engine step at K = 10, R = 1000; a third of DP-UCB-BOUND's at K = 101; benchmarks/RESULTS.md).
    Integers either way: the same numbers."""
    mask = jnp.asarray(mask, bool)
    k = mask.shape[-1]
    if k <= 32:
        return _word_count(mask)
    words = -(-k // 32)
    grouped = jnp.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 32 * words - k)]).reshape(mask.shape[:-1] + (words, 32))
    within = _word_count(grouped)
    before = [jnp.zeros_like(within[..., 0, -1])]  # the counts of the words before each, left to right
    for w in range(1, words):
        before.append(before[-1] + within[..., w - 1, -1])
    return (within + jnp.stack(before, axis=-1)[..., None]).reshape(mask.shape[:-1] + (32 * words,))[..., :k]


def _word_count(mask):
    """`inclusive_count` of up to 32 arms: the popcount of the packed mask cut at each bit."""
    bits = jnp.left_shift(jnp.uint32(1), jnp.arange(mask.shape[-1], dtype=jnp.uint32))
    word = jnp.sum(jnp.where(mask, bits, jnp.uint32(0)), axis=-1, keepdims=True, dtype=jnp.uint32)  # an OR: exact
    upto = bits - jnp.uint32(1) + bits  # bits 0..i set (2^(i+1) - 1, also for i = 31)
    return jax.lax.population_count(word & upto).astype(jnp.int32)


def argmax_random_tie(values, u):
    """Index of a maximum of ``values``, uniform among tied maxima, from one uniform ``u`` in [0, 1).

    ``jnp.argmax`` would always return the first maximum, which biases early play of index policies whose
    indices tie with positive probability (equal counts and equal empirical means).
    """
    best = values == jnp.max(values, axis=-1, keepdims=True)
    count = jnp.sum(best, axis=-1)
    k = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(inclusive_count(best) > k[..., None], axis=-1).astype(jnp.int32)


def unplayed_first(index, counts, u):
    """The arm to play for an index policy: an unplayed arm if any (uniform among them), else the largest index
    (uniform among ties), from one uniform ``u``."""
    return argmax_random_tie(jnp.where(counts == 0, jnp.inf, index), u)


def onehot(arm, num_arms, dtype=jnp.int32):
    """The indicator vector of ``arm`` among ``num_arms`` arms, in ``dtype``."""
    return (jnp.arange(num_arms) == arm).astype(dtype)


def arm_slice(tree, arm):
    """Arm ``arm``'s entries of a pytree of per-arm arrays (leading axis K): one arm's counter, updated alone."""
    return jax.tree.map(lambda x: x[arm], tree)


def with_arm(tree, arm, new):
    """``tree`` (per-arm arrays, leading axis K) with arm ``arm``'s entries replaced by ``new`` (an `arm_slice`)."""
    return jax.tree.map(lambda n, old: jax.lax.dynamic_update_index_in_dim(old, n, arm, 0), new, tree)


def uniform_draw(key, steps, params):
    """One uniform per step (tie-breaking, exploration coins)."""
    del params
    return jax.random.uniform(key, (steps,))


def capped_pulls(n, per):
    """A whole number of pulls ``n`` (a float) as int32, capped at ⌊(2^31 − 1)/per⌋ so that ``n·per`` fits in int32
    (``per``: the arms that share a phase, int ≥ 1, traced or not). A phase that long never ends within a run.
    Exact where a float32 cap would not be: the float comparison may round the cap up, the integer minimum after
    it does not."""
    cap = jnp.asarray((2 ** 31 - 1) // jnp.maximum(jnp.asarray(per, jnp.int32), 1), jnp.int32)
    fits = n < cap.astype(n.dtype)
    return jnp.minimum(jnp.where(fits, jnp.where(fits, n, 0).astype(jnp.int32), cap), cap)


def kahan_add(total, comp, x):
    """One step of Kahan summation: ``(total, comp)`` after adding ``x``; the sum is ``total − comp``. Keeps float32
    sums of 10^7+ terms accurate (a phase's rewards, a run's realized regret)."""
    y = x - comp
    new = total + y
    return new, (new - total) - y


def bind_run_horizon(params, horizon):
    """``bind_horizon`` of a policy that knows T through a ``horizon`` parameter: ``None`` (the default) is the
    run's T."""
    if params.horizon is not None:
        return params
    return params._replace(horizon=jnp.asarray(horizon, jnp.zeros(()).dtype))


def check_known_horizon(params, high: float = float("inf")) -> None:
    """The T known to a policy (its ``horizon`` parameter), where set: in [2, ``high``) (log T > 0); ``None`` is the
    run's."""
    if params.horizon is None:
        return
    try:
        checks.in_range("horizon", params.horizon, 2.0, high, high_open=True)
    except ValueError as err:
        raise ValueError(f"{err}: the T known to the algorithm (leave it unset, None, for the run's horizon)") from None


#: The neighbouring relation of a whole-run central claim, as the accountants state it.
WHOLE_RUN = "one reward changed; the output is the whole action sequence"
