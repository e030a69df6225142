"""Index policies: UCB1 (`ucb1`), Bernoulli kl-UCB (`klucb`) and the ε-DP Anytime-Lazy-UCB (`lazy-ucb`).

References:
  Auer, Cesa-Bianchi & Fischer, "Finite-time analysis of the multiarmed bandit problem", Mach. Learn. 2002
  (UCB1, Figure 1: index x̄_j + sqrt(2 ln n / n_j) after playing every arm once);
  Garivier & Cappé, "The KL-UCB algorithm for bounded stochastic bandits and beyond", COLT 2011
  (index max{q : n_j d(x̄_j, q) <= log t + c log log t}, d the Bernoulli KL divergence);
  Hu, Huang & Mehta, "Near-Optimal Algorithms for Private Online Learning in a Stochastic Environment",
  arXiv 2102.07929 (2021), Anytime-Lazy-UCB (a baseline of seed 001, App. D).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks
from jaxbandit.policies.common import argmax_random_tie, onehot, uniform_draw
from jaxbandit.types import EmptyParams, Policy, no_validate

KL_BISECTION_STEPS = 26  # halves [mean, 1] down to 1.5e-8, below float32 resolution near 1


class MeanState(NamedTuple):
    sums: jax.Array    # float[K]: sum of observations of each arm
    counts: jax.Array  # int32[K]: pulls of each arm


def _init(num_arms):
    return lambda params: MeanState(jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32))


def _update(num_arms):
    def update(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms)
        return MeanState(state.sums + hit.astype(state.sums.dtype) * obs, state.counts + hit)
    return update


def _means(state):
    n = jnp.maximum(state.counts, 1).astype(state.sums.dtype)
    return state.sums / n, n


def ucb1(num_arms: int) -> Policy:
    """UCB1: unplayed arms first (in random order), then argmax x̄_j + sqrt(2 log t / n_j), t = pulls so far.

    Ties, which have positive probability with discrete rewards, are broken uniformly at random.
    """

    def select(rng, state, params):
        mean, n = _means(state)
        t = jnp.sum(state.counts).astype(mean.dtype)
        index = mean + jnp.sqrt(2 * jnp.log(jnp.maximum(t, 1)) / n)
        return argmax_random_tie(jnp.where(state.counts == 0, jnp.inf, index), rng.noise)

    return Policy("ucb1", num_arms, _init(num_arms), uniform_draw, select, _update(num_arms), no_validate,
                  EmptyParams())


def bernoulli_kl(p, q):
    """d(p, q) = p log(p/q) + (1 − p) log((1 − p)/(1 − q)), with 0 log 0 = 0; +inf where q hits 0 or 1 and p
    does not."""
    tiny = jnp.finfo(jnp.result_type(p, q)).tiny
    a = jnp.where(p > 0, p * (jnp.log(jnp.maximum(p, tiny)) - jnp.log(jnp.maximum(q, tiny))), 0.0)
    b = jnp.where(p < 1, (1 - p) * (jnp.log(jnp.maximum(1 - p, tiny)) - jnp.log(jnp.maximum(1 - q, tiny))), 0.0)
    return a + b


def klucb_index(mean, level):
    """max{q in [mean, 1] : d(mean, q) <= level} by a fixed number of bisection steps (vmappable)."""
    def body(_, bounds):
        lo, hi = bounds
        mid = (lo + hi) / 2
        ok = bernoulli_kl(mean, mid) <= level
        return jnp.where(ok, mid, lo), jnp.where(ok, hi, mid)

    lo, _ = jax.lax.fori_loop(0, KL_BISECTION_STEPS, body, (mean, jnp.ones_like(mean)))
    return lo


class KLUCBParams(NamedTuple):
    c: jax.Array  # coefficient of log log t in the exploration function


def klucb(num_arms: int) -> Policy:
    """kl-UCB for rewards in [0, 1] (Garivier & Cappé 2011, with the Bernoulli divergence).

    Unplayed arms first (random order); then argmax_j max{q : n_j d(x̄_j, q) <= log t + c log log t} with
    t the number of pulls so far; ties broken uniformly at random. log log t is taken as 0 for t <= e and the
    exploration level is floored at 0 (it only matters for t < 3, i.e. K <= 2).
    """

    def select(rng, state, params):
        mean, n = _means(state)
        t = jnp.maximum(jnp.sum(state.counts).astype(mean.dtype), 1)
        log_t = jnp.log(t)
        explore = jnp.maximum(log_t + params.c * jnp.log(jnp.maximum(log_t, 1)), 0)
        index = klucb_index(jnp.clip(mean, 0, 1), explore / n)
        return argmax_random_tie(jnp.where(state.counts == 0, jnp.inf, index), rng.noise)

    def validate(params):
        checks.in_range("c", params.c, 0.0, float("inf"), high_open=True)

    return Policy("klucb", num_arms, _init(num_arms), uniform_draw, select, _update(num_arms), validate,
                  KLUCBParams(c=jnp.asarray(0.0)), reward_range=(0.0, 1.0))


class LazyUCBParams(NamedTuple):
    epsilon: jax.Array  # ε of ε-DP
    c1: jax.Array       # Hoeffding term sqrt(c1 ln t / n)
    c2: jax.Array       # Laplace term c2 ln t / (ε n)


class LazyUCBState(NamedTuple):
    mean: jax.Array    # float[K]: private mean of the last completed batch
    size: jax.Array    # int32[K]: its size n_j (0: no batch completed yet)
    buffer: jax.Array  # float[K]: sum of the batch being filled (never released)
    filled: jax.Array  # int32[K]: rewards in that batch
    t: jax.Array       # int32: rounds played


def lazy_ucb(num_arms: int) -> Policy:
    """Anytime-Lazy-UCB (Hu, Huang & Mehta 2021): ε-DP UCB with forgetting.

    Each arm's rewards are cut into batches of 1, 2, 4, ... pulls. When a batch is complete the arm's private
    mean is replaced by (batch sum + Lap(1/ε)) / batch size and older rewards are forgotten. At round t
    (1-based) play argmax_j μ̃_j + sqrt(c1 ln t / n_j) + c2 ln t / (ε n_j), n_j the size of the batch behind
    μ̃_j; arms without a completed batch first (random order among them).

    Privacy: ε-DP for rewards in [0, 1] (neighbours differ in one round): every reward enters one released
    batch sum (sensitivity 1, Lap(1/ε)), batches are disjoint, and the choices are post-processing.
    Anytime: no horizon. The paper's algorithm box was not available to us: the batch mechanism is as
    described by the authors, but the index constants are our reconstruction (c1 = 3/2, c2 = 3: per-round
    failure probability O(t^-3) for the Hoeffding and the Laplace terms); they are parameters.
    """

    def init(params):
        zf, zi = jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32)
        return LazyUCBState(zf, zi, zf, zi, jnp.zeros((), jnp.int32))

    def draw(key, steps, params):
        k_tie, k_lap = jax.random.split(key)
        return jax.random.uniform(k_tie, (steps,)), jax.random.laplace(k_lap, (steps,))

    def select(rng, state, params):
        u, _ = rng.noise
        dtype = state.mean.dtype
        log_t = jnp.log((state.t + 1).astype(dtype))
        n = jnp.maximum(state.size, 1).astype(dtype)
        index = state.mean + jnp.sqrt(params.c1 * log_t / n) + params.c2 * log_t / (params.epsilon * n)
        return argmax_random_tie(jnp.where(state.size == 0, jnp.inf, index), u)

    def update(rng, state, arm, obs, params):
        _, lap = rng.noise
        hit = onehot(arm, num_arms)
        buffer = state.buffer + hit.astype(state.buffer.dtype) * obs
        filled = state.filled + hit
        target = jnp.where(state.size == 0, 1, 2 * state.size)  # batch sizes 1, 2, 4, ...
        done = (hit == 1) & (filled == target)
        released = (buffer + lap / params.epsilon) / target.astype(buffer.dtype)
        return LazyUCBState(jnp.where(done, released, state.mean), jnp.where(done, target, state.size),
                            jnp.where(done, 0.0, buffer), jnp.where(done, 0, filled), state.t + 1)

    def validate(params):
        checks.in_range("epsilon", params.epsilon, 0.0, low_open=True, high_open=True)
        checks.in_range("c1", params.c1, 0.0, high_open=True)
        checks.in_range("c2", params.c2, 0.0, high_open=True)

    return Policy("lazy-ucb", num_arms, init, draw, select, update, validate,
                  LazyUCBParams(epsilon=jnp.asarray(1.0), c1=jnp.asarray(1.5), c2=jnp.asarray(3.0)),
                  reward_range=(0.0, 1.0))
