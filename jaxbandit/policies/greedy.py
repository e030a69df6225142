"""Non-index baselines: ε-greedy (`epsilon-greedy`) and uniform play (`uniform`).

Reference: Sutton & Barto, "Reinforcement Learning: An Introduction", 2nd ed., §2.2–2.3 (ε-greedy).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks
from jaxbandit.policies.common import uniform_draw, unplayed_first
from jaxbandit.policies.ucb import MeanState, _init, _means, _update
from jaxbandit.types import EmptyParams, Policy, no_validate
from jaxbandit.registry import POLICIES, Golden


class EpsilonParams(NamedTuple):
    """ε-greedy's exploration probability ε."""
    epsilon: jax.Array  # probability of a uniformly random arm


def _uniform_arm(u, num_arms):
    return jnp.minimum(jnp.floor(u * num_arms).astype(jnp.int32), num_arms - 1)


def epsilon_greedy(num_arms: int) -> Policy:
    """ε-greedy: random arm with probability epsilon, else best mean (Sutton & Barto §2.2).

    Unplayed arms count as best; ties are broken uniformly at random."""

    def draw(key, steps, params):
        return jax.random.uniform(key, (steps, 2))

    def select(rng, state: MeanState, params):
        coin, u = rng.drawn[0], rng.drawn[1]
        mean, _ = _means(state)
        greedy = unplayed_first(mean, state.counts, u)
        return jnp.where(coin < params.epsilon, _uniform_arm(u, num_arms), greedy).astype(jnp.int32)

    def validate(params, horizon=None):
        checks.in_range("epsilon", params.epsilon, 0.0, 1.0)

    def log_prob(state: MeanState, arm, params):
        """ε/K for every arm, plus (1 − ε) shared by the greedy arms (unplayed ones first, ties uniform)."""
        mean, _ = _means(state)
        index = jnp.where(state.counts == 0, jnp.inf, mean)
        best = index == jnp.max(index)
        eps = params.epsilon.astype(mean.dtype)
        return jnp.log(eps / num_arms + (1 - eps) * best[arm] / jnp.sum(best))

    return Policy("epsilon-greedy", num_arms, _init(num_arms), draw, select, _update(num_arms), validate,
                  EpsilonParams(epsilon=jnp.asarray(0.1)), log_prob=log_prob)


def uniform(num_arms: int) -> Policy:
    """Uniformly random arm at every step, ignoring all feedback (the linear-regret reference)."""

    def select(rng, state, params):
        return _uniform_arm(rng.drawn, num_arms)

    return Policy("uniform", num_arms, lambda params: (), uniform_draw, select,
                  lambda rng, state, arm, obs, params: state, no_validate, EmptyParams())


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case.
POLICIES.register("epsilon-greedy", epsilon_greedy,
                  golden=Golden(params={"epsilon": 0.2}))
POLICIES.register("uniform", uniform,
                  golden=Golden())
