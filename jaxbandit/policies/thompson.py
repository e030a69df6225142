"""Thompson sampling: Beta–Bernoulli (`thompson`), Gaussian-prior (`gaussian-thompson`) and its private
modification with pre-pulls and scaled variance (`modified-thompson`).

References:
  Thompson (1933); Agrawal & Goyal, "Further optimal regret bounds for Thompson sampling", AISTATS 2013 (AG13),
  for the Beta–Bernoulli version on [0, 1] rewards through a Bernoulli trial; Ou, Avella Medina & Cummings,
  "Thompson Sampling Itself is Differentially Private" (seed 001), Algorithm 1, for the Gaussian version.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks, sampling
from jaxbandit.policies.common import onehot
from jaxbandit.privacy.thompson import warn_if_all_prepulls
from jaxbandit.types import EmptyParams, Policy, no_validate


class BetaState(NamedTuple):
    successes: jax.Array  # int32[K]: Bernoulli trials equal to 1
    failures: jax.Array   # int32[K]


def posterior_sample(rng, state: BetaState):
    """θ_k ~ Beta(S_k + 1, F_k + 1) for every arm, from the step's block noise (shared by `thompson` and TS-CF)."""
    beta_noise, _ = rng.noise
    a = (state.successes + 1).astype(jnp.zeros(()).dtype)
    return sampling.beta(rng.key, a, (state.failures + 1).astype(a.dtype), beta_noise)


def thompson(num_arms: int) -> Policy:
    """Beta(1,1)-Bernoulli Thompson sampling; [0,1] rewards binarized by a Bernoulli trial (Agrawal & Goyal 2013).

    Each step draws θ_k ~ Beta(S_k + 1, F_k + 1) and plays argmax θ. A reward r in [0, 1] is turned into a
    Bernoulli(r) trial before the update (AG13, Algorithm 2), so Bernoulli rewards are used as they are.
    Beta draws are exact (`jaxbandit.sampling.beta`); ties have probability zero.
    """

    def init(params):
        zeros = jnp.zeros(num_arms, jnp.int32)
        return BetaState(zeros, zeros)

    def draw(key, steps, params):
        k_beta, k_trial = jax.random.split(key)
        return sampling.draw_beta_noise(k_beta, (steps, num_arms)), jax.random.uniform(k_trial, (steps,))

    def select(rng, state, params):
        return jnp.argmax(posterior_sample(rng, state)).astype(jnp.int32)

    def update(rng, state, arm, obs, params):
        _, u = rng.noise
        trial = (u < obs).astype(jnp.int32)
        hit = onehot(arm, num_arms)
        return BetaState(state.successes + hit * trial, state.failures + hit * (1 - trial))

    return Policy("thompson", num_arms, init, draw, select, update, no_validate, EmptyParams(),
                  reward_range=(0.0, 1.0))


class GaussianState(NamedTuple):
    sums: jax.Array    # float[K]: S_k, sum of observations of arm k
    counts: jax.Array  # int32[K]: n_k


def gaussian_thompson(num_arms: int) -> Policy:
    """Thompson sampling, N(0,1) prior: θ ~ N(S/(n+1), 1/(n+1)) (seed 001 Alg. 1).

    N(0, 1) priors and a unit-variance Gaussian likelihood: θ_k ~ N(S_k / (n_k + 1), 1 / (n_k + 1)), the
    conjugate posterior; play argmax θ (ties have probability zero). The posterior mean keeps the prior pseudo-count: μ̂ = S/(n+1), not S/n. Declares rewards in [0, 1]:
    its GDP guarantee (seed 001 Thm 4, `jaxbandit.privacy.thompson`) assumes them, so unbounded (unclipped
    Gaussian) rewards are refused.
    """

    def init(params):
        return GaussianState(jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32))

    def draw(key, steps, params):
        return jax.random.normal(key, (steps, num_arms))

    def select(rng, state, params):
        n1 = (state.counts + 1).astype(state.sums.dtype)
        theta = state.sums / n1 + rng.noise * jax.lax.rsqrt(n1)
        return jnp.argmax(theta).astype(jnp.int32)

    def update(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms)
        return GaussianState(state.sums + hit.astype(state.sums.dtype) * obs, state.counts + hit)

    return Policy("gaussian-thompson", num_arms, init, draw, select, update, no_validate, EmptyParams(),
                  reward_range=(0.0, 1.0))


class ModifiedParams(NamedTuple):
    b: jax.Array  # int32: pre-pulls per arm, in arm order, before any sampling
    c: jax.Array  # float: posterior variance scale


class ModifiedState(NamedTuple):
    sums: jax.Array    # float[K]: S_k, pre-pulls included
    counts: jax.Array  # int32[K]: n_k, pre-pulls included
    step: jax.Array    # int32: rounds played so far


def modified_thompson(num_arms: int) -> Policy:
    """Gaussian TS with b pre-pulls per arm and variance c/(n+1); sqrt(T/(c(b+1)))-GDP (seed 001 Alg. 2).

    b pre-pulls of every arm in arm order (arm 0 b times, then arm 1, ...), then θ_k ~ N(S_k/(n_k+1), c/(n_k+1))
    and play argmax θ; n and S include the pre-pulls.

    b and c are traced parameters, so a (b, c) grid is one compilation. (b, c) = (0, 1) is `gaussian-thompson`
    exactly: the same draws and, for the same key, the same trajectory. Its privacy is
    ``jaxbandit.privacy.thompson.eta(b, c, T)``-GDP, sqrt(T/(c(b+1))) (Lemma 5, Theorem 4). The regret analysis
    (Theorem 5) assumes c ≥ 1; any c > 0 runs. If b·K ≥ T every round is a pre-pull. Rewards must lie in
    [0, 1], which the GDP guarantee assumes (sensitivity 1 of the sums).
    """

    def init(params):
        return ModifiedState(jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32), jnp.zeros((), jnp.int32))

    def draw(key, steps, params):
        return jax.random.normal(key, (steps, num_arms))  # as gaussian-thompson: (0, 1) shares its stream

    def select(rng, state, params):
        n1 = (state.counts + 1).astype(state.sums.dtype)
        theta = state.sums / n1 + rng.noise * (jnp.sqrt(params.c).astype(n1.dtype) * jax.lax.rsqrt(n1))
        forced = state.step < params.b * num_arms
        return jnp.where(forced, state.step // jnp.maximum(params.b, 1), jnp.argmax(theta)).astype(jnp.int32)

    def update(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms)
        return ModifiedState(state.sums + hit.astype(state.sums.dtype) * obs, state.counts + hit, state.step + 1)

    def validate(params):
        checks.in_range("b", params.b, 0.0, high_open=True)
        checks.in_range("c", params.c, 0.0, low_open=True, high_open=True)

    def check_horizon(params, horizon):
        warn_if_all_prepulls(params.b, num_arms, horizon)

    return Policy("modified-thompson", num_arms, init, draw, select, update, validate,
                  ModifiedParams(b=jnp.asarray(0, jnp.int32), c=jnp.asarray(1.0)), reward_range=(0.0, 1.0),
                  check_horizon=check_horizon)
