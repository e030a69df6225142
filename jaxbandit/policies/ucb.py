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
from jaxbandit.accounting.accountants import epsilon_of, pure_dp
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.policies.common import WHOLE_RUN, argmax_random_tie, onehot, uniform_draw, unplayed_first
from jaxbandit.policies.phased import phased
from jaxbandit.types import EmptyParams, Policy, no_validate
from jaxbandit.registry import POLICIES, Golden

KL_NEWTON_STEPS = 8  # from the start point of `klucb_index`: 6 reach ~5e-7 over mean in [0, 1], level in [1e-6, 30]


class MeanState(NamedTuple):
    """Reward sums and pull counts per arm: the statistics of the index policies."""
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
    """UCB1: mean + sqrt(2 log t / n), each arm once first (Auer et al. 2002).

    Unplayed arms first (in random order), then argmax x̄_j + sqrt(2 log t / n_j), t = pulls so far.
    Ties, which have positive probability with discrete rewards, are broken uniformly at random.
    """

    def select(rng, state, params):
        mean, n = _means(state)
        t = jnp.sum(state.counts).astype(mean.dtype)
        index = mean + jnp.sqrt(2 * jnp.log(jnp.maximum(t, 1)) / n)
        return unplayed_first(index, state.counts, rng.drawn)

    return Policy("ucb1", num_arms, _init(num_arms), uniform_draw, select, _update(num_arms), no_validate,
                  EmptyParams())


def bernoulli_kl(p, q):
    """d(p, q) = p log(p/q) + (1 − p) log((1 − p)/(1 − q)), with 0 log 0 = 0; +inf where q hits 0 or 1 and p
    does not."""
    tiny = jnp.finfo(jnp.result_type(p, q)).tiny
    a = jnp.where(p > 0, p * (jnp.log(jnp.maximum(p, tiny)) - jnp.log(jnp.maximum(q, tiny))), 0.0)
    b = jnp.where(p < 1, (1 - p) * (jnp.log(jnp.maximum(1 - p, tiny)) - jnp.log(jnp.maximum(1 - q, tiny))), 0.0)
    return a + b


@jax.custom_batching.custom_vmap
def klucb_index(mean, level):
    """max{q in [mean, 1] : d(mean, q) <= level} (vmappable, fixed cost), accurate to ~5e-7 in float32.

    Newton's method on the log-odds offset δ = logit(q) − logit(mean), where::

        h(δ) = d(mean, σ(logit(mean) + δ)) − level = (1 − p) δ + log(p + (1 − p) e^{−δ}) − level

    is convex and increasing in δ >= 0 with h'(δ) = q − p. Started right of the root (at the smaller of the
    Pinsker bound p + sqrt(level/2) and the bound from softplus(x) >= x), Newton decreases monotonically to
    it. This form avoids the cancellation of evaluating d(p, q) near q = p (which limits a bisection on d to
    ~2e-6) and the overflow of e^δ near q = 1; it needs half the time of a 26-step bisection. Closed forms:
    1 − e^{−level} at mean 0, 1 at mean 1 (seed 002 spec §2.1)."""
    tiny = jnp.finfo(jnp.result_type(mean, level)).tiny
    inner = (mean > 0) & (mean < 1)
    p = jnp.where(inner, mean, 0.5)
    center = jnp.log(p) - jnp.log1p(-p)
    pinsker = p + jnp.sqrt(level / 2)
    below = pinsker < 1
    x_pinsker = jnp.where(below, jnp.log(jnp.where(below, pinsker, 0.5)) - jnp.log1p(-jnp.where(below, pinsker, 0.5)),
                          jnp.inf)
    neg_entropy = p * jnp.log(p) + (1 - p) * jnp.log1p(-p)
    x_linear = (level - neg_entropy) / (1 - p)  # d(p, σ(x)) = softplus(x) − p x + neg_entropy >= (1 − p) x + ...
    delta0 = jnp.maximum(jnp.minimum(x_pinsker, x_linear) - center, 0)

    def newton(_, delta):
        far = delta > 1  # two forms of log(p + (1 − p) e^{−δ}), each free of cancellation where it is used
        tail = jnp.where(far, jnp.log(p + (1 - p) * jnp.exp(-delta)),
                         jnp.log1p((1 - p) * jnp.expm1(-jnp.where(far, 0, delta))))
        h = (1 - p) * delta + tail - level
        slope = jax.nn.sigmoid(center + delta) - p
        return jnp.where(h > 0, delta - h / jnp.maximum(slope, tiny), delta)

    delta = jax.lax.fori_loop(0, KL_NEWTON_STEPS, newton, delta0)
    q = jnp.maximum(jax.nn.sigmoid(center + delta), mean)
    return jnp.where(mean >= 1, jnp.ones_like(q), jnp.where(mean <= 0, -jnp.expm1(-level), q))


@klucb_index.def_vmap
def _klucb_index_batched(axis_size, in_batched, mean, level):
    """Under vmap, solve with the batch axis last. JAX batches an expression mixing per-run scalars (log t) with
    per-arm vectors with the batch axis first, (runs, K): the elementwise solve then vectorizes over K = 10 and
    ran ~9x slower than over the runs axis (benchmarks/RESULTS.md, kl-UCB index)."""
    def last(x, batched):
        x = jnp.asarray(x)
        return jnp.moveaxis(x, 0, -1) if batched else x[..., None]
    mean, level = jnp.broadcast_arrays(last(mean, in_batched[0]), last(level, in_batched[1]))
    out = klucb_index(mean, level)
    return jnp.moveaxis(jnp.broadcast_to(out, mean.shape[:-1] + (axis_size,)), -1, 0), True


def exploration(t, c, dtype):
    """f(t) = max(log t + c log log t, 0), the exploration level of kl-UCB (Garivier & Cappé 2011) and of the
    CF algorithms (seed 002 Thm 2, c = 3), with t the rounds played; 0 for t <= 1. Flooring at 0 only acts
    when t < 3 (f(2) = log 2 + c log log 2 < 0 for c > 1.9), i.e. only with K <= 2 arms."""
    t = jnp.maximum(jnp.asarray(t).astype(dtype), 1)
    log_t = jnp.log(t)
    loglog = jnp.log(jnp.where(t > 1, log_t, 1))
    return jnp.maximum(log_t + c * loglog, 0)


class KLUCBParams(NamedTuple):
    """kl-UCB's exploration constant c in f(t) = log t + c log log t."""
    c: jax.Array  # coefficient of log log t in the exploration function


def klucb(num_arms: int) -> Policy:
    """kl-UCB, Bernoulli KL, exploration log t + c log log t (Garivier & Cappé 2011); rewards in [0, 1].

    Unplayed arms first (random order); then argmax_j max{q : n_j d(x̄_j, q) <= f(t)} with t the number of
    pulls so far and f = `exploration`; ties broken uniformly at random.
    """

    def select(rng, state, params):
        mean, n = _means(state)
        explore = exploration(jnp.sum(state.counts), params.c, mean.dtype)
        index = klucb_index(jnp.clip(mean, 0, 1), explore / n)
        return unplayed_first(index, state.counts, rng.drawn)

    def validate(params, horizon=None):
        checks.in_range("c", params.c, 0.0, float("inf"), high_open=True)

    return Policy("klucb", num_arms, _init(num_arms), uniform_draw, select, _update(num_arms), validate,
                  KLUCBParams(c=jnp.asarray(0.0)), reward_range=(0.0, 1.0))


class LazyUCBParams(NamedTuple):
    """Anytime-Lazy-UCB's parameters: ε, and the constants c1, c2 of its confidence width."""
    epsilon: jax.Array  # ε of ε-DP
    c1: jax.Array       # Hoeffding term sqrt(c1 ln t / n)
    c2: jax.Array       # Laplace term c2 ln t / (ε n)


class LazyUCBState(NamedTuple):
    """Anytime-Lazy-UCB's state: each arm's last released private mean, its batch size, the batch being filled, the
    round."""
    mean: jax.Array    # float[K]: private mean of the last completed batch
    size: jax.Array    # int32[K]: its size n_j (0: no batch completed yet)
    buffer: jax.Array  # float[K]: sum of the batch being filled (never released)
    t: jax.Array       # int32: rounds played


def lazy_ucb(num_arms: int, *, release: str = "discrete") -> Policy:
    """Anytime-Lazy-UCB (Hu, Huang & Mehta 2021): ε-DP UCB with forgetting.

    Each arm's rewards are cut into batches of 1, 2, 4, ... pulls. When a batch is complete the arm's private
    mean is replaced by (batch sum + Lap(1/ε)) / batch size and older rewards are forgotten. At round t
    (1-based) play argmax_j μ̃_j + sqrt(c1 ln t / n_j) + c2 ln t / (ε n_j), n_j the size of the batch behind
    μ̃_j; arms without a completed batch first (random order among them). Written on `phased`, one phase (the
    batch being filled) per arm.

    Privacy: ε-DP for rewards in [0, 1] (neighbours differ in one round): every reward enters one released
    batch sum (sensitivity 1, Lap(1/ε)), batches are disjoint, and the choices are post-processing.
    Anytime: no horizon. The paper's algorithm box was not available to us: the batch mechanism is as
    described by the authors, but the index constants are our reconstruction (c1 = 3/2, c2 = 3: per-round
    failure probability O(t^-3) for the Hoeffding and the Laplace terms); they are parameters. ``release``: the
    batch sums' Laplace releases, ``"discrete"`` (floating-point safe, default) or ``"float"``.
    """
    laplace_noise.check_release(release)

    def init(params):
        zf, zi = jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32)
        return LazyUCBState(zf, zi, zf, jnp.zeros((), jnp.int32))

    def draw(key, steps, params):
        k_tie, k_lap = jax.random.split(key)
        return jax.random.uniform(k_tie, (steps,)), laplace_noise.draw(k_lap, (steps,), release)

    def phase_length(state, params):
        return jnp.where(state.size == 0, 1, 2 * state.size)  # batch sizes 1, 2, 4, ...

    def select(rng, state, params):
        u, _ = rng.drawn
        state = state.inner
        dtype = state.mean.dtype
        log_t = jnp.log((state.t + 1).astype(dtype))
        n = jnp.maximum(state.size, 1).astype(dtype)
        index = state.mean + jnp.sqrt(params.c1 * log_t / n) + params.c2 * log_t / (params.epsilon * n)
        return argmax_random_tie(jnp.where(state.size == 0, jnp.inf, index), u)

    def observe(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms, state.buffer.dtype)
        return state._replace(buffer=state.buffer + hit * obs, t=state.t + 1)

    def release_batch(rng, state, arm, length, params):
        _, noise = rng.drawn
        size = length.astype(state.buffer.dtype)
        buffer = state.buffer[arm]  # only the pulled arm's batch ends: release it alone
        # (batch sum + Lap(1/ε))/n: the batch mean + Lap(1/(εn)), sensitivity 1/n
        released = laplace_noise.released((buffer + laplace_noise.laplace_of(noise) / params.epsilon) / size,
                                          buffer / size, 1 / (params.epsilon * size), 1 / size, noise)
        hit = onehot(arm, num_arms) == 1
        return LazyUCBState(jnp.where(hit, released, state.mean), jnp.where(hit, length, state.size),
                            jnp.where(hit, 0.0, state.buffer), state.t)  # older rewards are forgotten

    def validate(params, horizon=None):
        checks.in_range("epsilon", params.epsilon, 0.0, low_open=True, high_open=True)
        checks.in_range("c1", params.c1, 0.0, high_open=True)
        checks.in_range("c2", params.c2, 0.0, high_open=True)

    accountant = pure_dp(epsilon_of, protects=WHOLE_RUN,
                         source="Hu, Huang & Mehta 2021: every reward enters one batch sum released once with "
                                "Lap(1/ε) (sensitivity 1); batches are disjoint (parallel composition), choices are "
                                "post-processing")
    policy = phased("lazy-ucb", num_arms, init=init, phase_length=phase_length, select=select, observe=observe,
                    end_phase=release_batch, draw=draw, validate=validate,
                    default_params=LazyUCBParams(epsilon=jnp.asarray(1.0), c1=jnp.asarray(1.5), c2=jnp.asarray(3.0)),
                    reward_range=(0.0, 1.0))
    return policy._replace(accountant=accountant, options={"release": release},
                           tunable={"c1": (0.1, 0.5, 1.5), "c2": (0.25, 1.0, 3.0)})


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case.
POLICIES.register("ucb1", ucb1,
                  golden=Golden())
POLICIES.register("klucb", klucb,
                  golden=Golden(params={"c": 3.0}))
POLICIES.register("lazy-ucb", lazy_ucb, private=True, audits=("lazy-ucb",),
                  golden=Golden(params={"epsilon": 0.8}))
