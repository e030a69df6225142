"""Successive elimination: DP-SE (`dp-se`), the ε-DP successive elimination of Sajed & Sheffet.

Reference: T. Sajed & O. Sheffet, "An Optimal Private Stochastic-MAB Algorithm Based on an Optimal Private
Stopping Rule", ICML 2019 (PMLR 97:5579-5588), algorithm DP-SE; a baseline of seed 001 (App. D, Fig. 8).

Epochs e = 1, 2, ... with Δ_e = 2^-e. With S the active arms at the start of the epoch,

  R_e = ⌊max{32 ln(8|S|e²/β)/Δ_e², 8 ln(4|S|e²/β)/(ε Δ_e)}⌋ + 1

pulls of every active arm (round-robin in arm order); then μ̃_i = (mean of arm i's R_e rewards of this epoch)
+ Lap(1/(ε R_e)), and arm i is eliminated if max_j μ̃_j − μ̃_i > 2(h_e + c_e), with
h_e = sqrt(ln(8|S|e²/β)/(2R_e)) (Hoeffding) and c_e = ln(4|S|e²/β)/(ε R_e) (Laplace tail). When one arm is left
it is played to the end. β = 1/T is the regret-optimal failure probability (Azize & Basu 2022 use it).

Privacy: ε-DP for rewards in [0, 1] when neighbouring reward sequences differ in one round. Each reward enters one
epoch mean (sensitivity 1/R_e, Laplace noise 1/(ε R_e)); epochs use disjoint rewards (parallel composition); the
arm choices are post-processing of the noisy means. The paper's text was not available to us: the constants
above agree across three independent public implementations written from it (see experiments/gdp_ts_findings.md).
Rounding R_e to ⌊·⌋ + 1 and the round-robin order within an epoch are our choices (the paper's R_e is real).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks
from jaxbandit.accounting.accountants import epsilon_of, pure_dp
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.policies.common import WHOLE_RUN, capped_pulls, onehot
from jaxbandit.policies.phased import phased, round_robin
from jaxbandit.types import Policy
from jaxbandit.registry import POLICIES, Golden


class DPSEParams(NamedTuple):
    """DP-SE's privacy level ε and failure probability β (default 1/T)."""
    epsilon: jax.Array  # ε of ε-DP
    beta: jax.Array     # failure probability; 1/T is the paper's choice


class DPSEState(NamedTuple):
    """DP-SE's state: the active arms, this epoch's reward sums, the epoch and the pulls in it."""
    active: jax.Array  # bool[K]: arms not eliminated; |S| = their number, fixed within an epoch
    sums: jax.Array    # float[K]: rewards of this epoch (older epochs are forgotten)
    epoch: jax.Array   # int32: e, from 1
    pulls: jax.Array   # int32: R_e, pulls of every active arm in this epoch


def _logs(n_active, epoch, params, dtype):
    """(ln(8|S|e²/β), ln(4|S|e²/β))."""
    base = jnp.log(n_active.astype(dtype) * epoch.astype(dtype) ** 2 / params.beta.astype(dtype))
    return base + jnp.log(8.0), base + jnp.log(4.0)


def epoch_pulls(n_active, epoch, params, dtype=jnp.float32):
    """R_e = ⌊max{32 ln(8|S|e²/β)/Δ_e², 8 ln(4|S|e²/β)/(ε Δ_e)}⌋ + 1 with Δ_e = 2^-e (capped so that R_e·|S|
    fits in int32)."""
    l8, l4 = _logs(n_active, epoch, params, dtype)
    gap = jnp.exp2(-epoch.astype(dtype))
    r = jnp.floor(jnp.maximum(32 * l8 / gap ** 2, 8 * l4 / (params.epsilon.astype(dtype) * gap))) + 1
    return capped_pulls(r, n_active)


def eliminate(active, estimates, threshold):
    """Successive elimination's rule: the active arms whose estimate is within ``threshold`` of the best active
    estimate stay active (the best one always does)."""
    best = jnp.max(jnp.where(active, estimates, -jnp.inf))
    return active & (best - estimates <= threshold)


def dp_se(num_arms: int, *, release: str = "discrete") -> Policy:
    """DP-SE: ε-DP successive elimination (Sajed & Sheffet 2019; see the module docstring for the rule).

    Written on `phased` with one global phase per epoch, R_e·|S| pulls long (round-robin); with one arm left the
    phase never ends. The discrete release's words (`laplace_noise.WORDS` per arm) are drawn at the epoch's end from that step's key,
    not for every step (`laplace_noise.with_words`): releases are rare, so the engine runs DP-SE about as fast as
    UCB1 (benchmarks/RESULTS.md). ``release``: ``"discrete"`` (floating-point safe, default) or ``"float"`` (the
    papers' float Laplace draw, deferred to where it is read: the same numbers as a per-step draw)."""
    laplace_noise.check_release(release)

    def init(params):
        e = jnp.asarray(1, jnp.int32)
        return DPSEState(jnp.ones(num_arms, bool), jnp.zeros(num_arms), e,
                         epoch_pulls(jnp.asarray(num_arms, jnp.int32), e, params))

    def draw(key, steps, params):
        # one per arm, used at epoch ends only: the discrete release's words are drawn there (`release`)
        return laplace_noise.draw(key, (steps, num_arms), release, words_later=True)

    def phase_length(state, params):
        n = jnp.sum(state.active, dtype=jnp.int32)
        return jnp.where(n > 1, state.pulls * n, 0)

    def select(rng, state, params):
        return round_robin(state.inner.active, state.count)

    def observe(rng, state, arm, obs, params):
        return state._replace(sums=state.sums + onehot(arm, num_arms, state.sums.dtype) * obs)

    def release_means(rng, state, arm, length, params):
        dtype = state.sums.dtype
        r = state.pulls.astype(dtype)
        eps = params.epsilon.astype(dtype)
        # μ̃_i = epoch mean + Lap(1/(ε R_e)); the mean's sensitivity is 1/R_e
        noise = laplace_noise.with_words(rng.drawn, rng.key)
        noisy = laplace_noise.released(state.sums / r + laplace_noise.laplace_of(noise) / (eps * r),
                                       state.sums / r, 1 / (eps * r), 1 / r, noise)
        l8, l4 = _logs(jnp.sum(state.active, dtype=jnp.int32), state.epoch, params, dtype)
        width = jnp.sqrt(l8 / (2 * r)) + l4 / (eps * r)  # h_e + c_e
        keep = eliminate(state.active, noisy, 2 * width)
        epoch = state.epoch + 1
        return DPSEState(keep, jnp.zeros_like(state.sums), epoch,
                         epoch_pulls(jnp.sum(keep, dtype=jnp.int32), epoch, params, dtype))

    def validate(params, horizon=None):
        checks.in_range("epsilon", params.epsilon, 0.0, low_open=True, high_open=True)
        checks.in_range("beta", params.beta, 0.0, 1.0, low_open=True, high_open=True)

    accountant = pure_dp(epsilon_of, protects=WHOLE_RUN,
                         source="Sajed & Sheffet 2019, Theorem 3.1: each epoch mean is released once with "
                                "Lap(1/(εR_e)) (sensitivity 1/R_e), epochs use disjoint rewards, choices are "
                                "post-processing")
    policy = phased("dp-se", num_arms, init=init, phase_length=phase_length, select=select, observe=observe,
                    end_phase=release_means, draw=draw, validate=validate,
                    default_params=DPSEParams(epsilon=jnp.asarray(1.0), beta=jnp.asarray(1e-5)),
                    reward_range=(0.0, 1.0))
    # β: the paper's 1/T (Theorem 3.2's regret) or larger (shorter epochs, a weaker high-probability bound)
    return policy._replace(accountant=accountant, options={"release": release},
                           tunable={"beta": (1e-5, 1e-3, 0.1, 0.5)})


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case.
# β and ε large enough that DP-SE ends epochs (and eliminates) within the horizon
POLICIES.register("dp-se", dp_se, private=True, audits=("dp-se",),
                  golden=Golden(env="bernoulli", env_params={"means": [0.1, 0.9, 0.5, 0.8]}, params={"epsilon": 2.0, "beta": 0.5}, horizon=6037, full_horizon=True))
