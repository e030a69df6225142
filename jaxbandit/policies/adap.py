"""AdaP-UCB (`adap-ucb`) and AdaP-KLUCB (`adap-klucb`): ε-DP index policies with doubling episodes and forgetting.

Reference: A. Azize & D. Basu, "When Privacy Meets Partial Information: A Refined Analysis of Differentially Private
Bandits", NeurIPS 2022 (arXiv 2209.02570), Algorithm 1 ("AdaP-UCB", the generic frame) with the indices of Eq. (7)
(AdaP-UCB) and of AdaP-KLUCB (the display after Eq. 7); restated with proofs in A. Azize's PhD thesis, ch. 5 and
App. C (Eq. 5.1, 5.2, C.11).

The frame. Play every arm once; then episodes ℓ = 1, 2, ...: at the episode's first round t_ℓ play the arm A_ℓ of
highest index, and keep playing it until its pull count N_a doubles (the episode is N_a(t_ℓ − 1) pulls long). An
arm's private mean uses the rewards of its last episode only, n_a = ½N_a of them (older rewards are forgotten):

  μ̃_a = (mean of the n_a rewards of a's last episode) + Lap(1/(ε n_a)),

drawn once, when that episode ends. The indices, with n = n_a::

  AdaP-UCB    I_a = μ̃_a + sqrt(α log(2 t_ℓ) / (2n)) + α log(t_ℓ) / (ε n)              (Eq. 7, α > 3)
  AdaP-KLUCB  I_a = max{q ∈ [0, 1] : kl(μ̆_a, q) ≤ α log(t_ℓ) / n},
              μ̆_a = clip_[0,1](μ̃_a + α log(t_ℓ) / (ε n))                                 (Bernoulli kl)

Differences and choices, ours where the paper is silent:
  * The first bonus's log(2 t_ℓ) is Eq. (7) as printed (``variant="printed"``, the default); the thesis (Eq. 5.1)
    and the proof (Lemma C.2 with δ = t^-α) have log(t_ℓ): ``variant="analysis"``. log(2t_ℓ) is the wider, so both
    carry the theorem's bound; the privacy does not depend on the index.
  * The initial pull is an arm's first "episode": its private mean is that one reward + Lap(1/ε) (n_a = 1, as in
    the paper's Example 2), not ½N_a = ½. The K initial pulls are made in arm order (one phase of K rounds) and
    released together at its end; the choice of the first episode follows.
  * Ties among the highest indices are broken uniformly at random; the paper does not say how.

Privacy (Theorem 6; Lemma 1): ε-DP of the action sequence for rewards in [0, 1], neighbouring reward sequences
differing in one round. Every reward enters exactly one release (its episode's mean, sensitivity 1/n_a, Laplace
scale 1/(ε n_a)); episodes are disjoint (parallel composition); the choices are post-processing of the released
means, and an episode's length is fixed by released values when it starts. α only moves the index, so the claim
does not depend on it. The last episode, cut by T, releases nothing.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks
from jaxbandit.accounting.accountants import epsilon_of, pure_dp
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.policies.common import WHOLE_RUN, argmax_random_tie, kahan_add, onehot
from jaxbandit.policies.phased import phased
from jaxbandit.policies.ucb import klucb_index
from jaxbandit.types import Policy
from jaxbandit.registry import POLICIES, Golden

__all__ = ["AdaPParams", "AdaPState", "VARIANTS", "ucb_index", "klucb_index_private", "adap_ucb", "adap_klucb"]

#: The variants of AdaP-UCB's first bonus, log(2 t_ℓ) as Eq. (7) prints it or log(t_ℓ) as the analysis has it
#: (thesis Eq. 5.1, Lemma C.2).
VARIANTS = ("printed", "analysis")


class AdaPParams(NamedTuple):
    """AdaP's privacy level ε and its confidence level α (> 3 for the regret theorems; any α > 0 runs)."""
    epsilon: jax.Array  # ε of ε-DP
    alpha: jax.Array    # α: the bonuses' log(t) multiplier (3.1 in the paper's experiments)


class AdaPState(NamedTuple):
    """AdaP's state: the released private means and their sample counts, the pull counts, the current episode's sums,
    its arm."""
    mean: jax.Array    # float[K]: μ̃_a, the private mean of a's last completed episode
    size: jax.Array    # int32[K]: n_a, the rewards behind μ̃_a (1 after the initial pull, then ½N_a; 0: none yet)
    counts: jax.Array  # int32[K]: N_a, pulls so far
    sums: jax.Array    # float[K]: Kahan sums of the current phase's rewards (never released before its end)
    comp: jax.Array    # float[K]: their Kahan compensation
    arm: jax.Array     # int32: the current episode's arm; −1 during the initial round of every arm


def ucb_index(mean, size, t, params, variant: str = "printed"):
    """AdaP-UCB's index (Eq. 7) at an episode's first round ``t`` = t_ℓ from the private means and their sample
    counts n_a = ``size``: μ̃ + sqrt(α log(c·t)/(2n)) + α log(t)/(ε n), c = 2 (``"printed"``) or 1 (``"analysis"``)."""
    dtype = mean.dtype
    n = jnp.maximum(size, 1).astype(dtype)
    log_t = jnp.log(jnp.asarray(t).astype(dtype))
    log_first = log_t + jnp.log(jnp.asarray(2.0, dtype)) if variant == "printed" else log_t
    alpha = params.alpha.astype(dtype)
    return mean + jnp.sqrt(alpha * log_first / (2 * n)) + alpha * log_t / (params.epsilon.astype(dtype) * n)


def klucb_index_private(mean, size, t, params):
    """AdaP-KLUCB's index at an episode's first round ``t`` = t_ℓ: max{q ∈ [0, 1] : kl(μ̆, q) ≤ α log(t)/n} with
    μ̆ = clip_[0,1](μ̃ + α log(t)/(ε n)) (`jaxbandit.policies.ucb.klucb_index`: Newton's method, ~5e-7)."""
    dtype = mean.dtype
    n = jnp.maximum(size, 1).astype(dtype)
    level = params.alpha.astype(dtype) * jnp.log(jnp.asarray(t).astype(dtype)) / n
    optimistic = jnp.clip(mean + level / params.epsilon.astype(dtype), 0, 1)
    return klucb_index(optimistic, level)


def _adap(name: str, num_arms: int, index, release: str, doc_variant: dict) -> Policy:
    """The frame of Algorithm 1 on `phased` (one global phase at a time: the initial round of every arm, then
    episodes), with ``index(mean, size, t, params)``."""
    laplace_noise.check_release(release)

    def init(params):
        zf, zi = jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32)
        return AdaPState(zf, zi, zi, zf, zf, jnp.asarray(-1, jnp.int32))

    def draw(key, steps, params):
        # a tie-break uniform per step; the Laplace releases are read at phase ends only (their words drawn there)
        k_tie, k_lap = jax.random.split(key)
        return jax.random.uniform(k_tie, (steps,)), laplace_noise.draw(k_lap, (steps, num_arms), release,
                                                                        words_later=True)

    def phase_length(state, params):
        # the initial round: K pulls; an episode: N_a more pulls of its arm (its count doubles)
        current = jnp.sum(jnp.where(jnp.arange(num_arms) == state.arm, state.counts, 0))
        return jnp.where(state.arm < 0, num_arms, current)

    def select(rng, state, params):
        return jnp.where(state.inner.arm < 0, state.count, state.inner.arm).astype(jnp.int32)

    def observe(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms)
        sums, comp = kahan_add(state.sums, state.comp, hit.astype(state.sums.dtype) * obs)
        return state._replace(sums=sums, comp=comp, counts=state.counts + hit)

    def end_phase(rng, state, arm, length, params):
        u, noise = rng.drawn
        dtype = state.sums.dtype
        first = state.arm < 0  # the initial round: every arm's one reward is released
        n = jnp.where(first, 1, length)
        size = n.astype(dtype)
        total = state.sums - state.comp
        eps = params.epsilon.astype(dtype)
        noise = laplace_noise.with_words(noise, rng.key)
        # the episode's mean + Lap(1/(ε n)); its sensitivity is 1/n
        released = laplace_noise.released(total / size + laplace_noise.laplace_of(noise) / (eps * size),
                                          total / size, 1 / (eps * size), 1 / size, noise)
        mask = first | (jnp.arange(num_arms) == arm)
        mean = jnp.where(mask, released, state.mean)
        sizes = jnp.where(mask, n, state.size)
        t = jnp.sum(state.counts) + 1  # t_ℓ: the next episode's first round
        chosen = argmax_random_tie(index(mean, sizes, t, params), u)
        zero = jnp.zeros_like(state.sums)
        return AdaPState(mean, sizes, state.counts, zero, zero, chosen)

    def validate(params, horizon=None):
        checks.in_range("epsilon", params.epsilon, 0.0, low_open=True, high_open=True)
        checks.in_range("alpha", params.alpha, 0.0, low_open=True, high_open=True)

    accountant = pure_dp(epsilon_of, protects=WHOLE_RUN,
                         source="Azize & Basu 2022, Theorem 6 (Lemma 1): each reward enters one episode mean "
                                "released once with Lap(1/(ε n)) (sensitivity 1/n); episodes are disjoint (parallel "
                                "composition); the choices and episode lengths are post-processing")
    policy = phased(name, num_arms, init=init, phase_length=phase_length, select=select, observe=observe,
                    end_phase=end_phase, draw=draw, validate=validate,
                    default_params=AdaPParams(epsilon=jnp.asarray(1.0), alpha=jnp.asarray(3.1)),
                    reward_range=(0.0, 1.0))
    # α: the paper's 3.1 (its theorems need α > 3) or smaller (narrower bonuses, no guarantee)
    return policy._replace(accountant=accountant, options={"release": release, **doc_variant},
                           tunable={"alpha": (0.5, 1.0, 2.0, 3.1)})


def adap_ucb(num_arms: int, *, release: str = "discrete", variant: str = "printed") -> Policy:
    """AdaP-UCB: ε-DP UCB on last-episode Laplace means, doubling episodes (Azize & Basu 2022, Alg. 1, Eq. 7).

    See the module docstring. ``release``: the means' Laplace releases, ``"discrete"``
    (floating-point safe, default) or ``"float"``; ``variant``: ``"printed"`` (log(2 t_ℓ) in the first bonus, Eq. 7,
    default) or ``"analysis"`` (log t_ℓ, thesis Eq. 5.1)."""
    checks.known_name("variant", variant, VARIANTS)
    return _adap("adap-ucb", num_arms, lambda m, n, t, p: ucb_index(m, n, t, p, variant), release,
                 {"variant": variant})


def adap_klucb(num_arms: int, *, release: str = "discrete") -> Policy:
    """AdaP-KLUCB: ε-DP kl-UCB on clipped optimistic last-episode Laplace means (Azize & Basu 2022, Alg. 1).

    The kl index is the display after Eq. 7; see the module docstring. Its regret theorem is for Bernoulli rewards. ``release`` as for `adap_ucb`."""
    return _adap("adap-klucb", num_arms, klucb_index_private, release, {})


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case.
POLICIES.register("adap-ucb", adap_ucb, private=True, audits=("adap-ucb",),
                  golden=Golden(params={"epsilon": 0.8, "alpha": 3.1}))
POLICIES.register("adap-klucb", adap_klucb, private=True, audits=("adap-klucb",),
                  golden=Golden(params={"epsilon": 0.8, "alpha": 3.1}))
