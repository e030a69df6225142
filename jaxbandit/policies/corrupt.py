"""Corrupt bandits (seed 002: Gajane, Urvoy & Kaufmann, "Corrupt Bandits for Preserving Local Privacy",
ALT 2018, arXiv 1708.05033): `klucb-cf`, `ucb-cf`, `ts-cf`, and the wrapper baselines `wr-klucb`, `wr-ts`.

The learner observes only feedback F ~ Bernoulli(λ_a), λ_a = g_a(μ_a), and knows each arm's mean map g_a. For
binary rewards and feedback g_a is the affine map of a 2×2 channel, g_a(x) = 1 − p00(a) + (p00(a) + p11(a) − 1) x
(Eq. 3; `jaxbandit.privatizers.randomized_response`), so the policies take the channel (p00, p11) per arm as
parameters — traced, so a grid over corruption levels is one compilation. The CF policies put a confidence
bound (or a posterior sample) on the *feedback* mean and map it back to reward space through g_a⁻¹, unclipped
(spec §2.1: the analysis uses the linear extension; clipping would only create ties).

The naive baselines of the paper's experiments are the unchanged `klucb`, `ucb1` and `thompson` run on F. With
one increasing g shared by all arms, klucb-cf takes exactly kl-UCB's decisions and ts-cf TS's (spec §2.4
"key equivalence"); they differ when the corruption differs across arms (Exp. 6.1).

The policies use the nominal g_a of their parameters; the channel realizes probabilities snapped onto the float32
uniform's grid (`randomized_response` module doc), so the true feedback means differ from g_a(μ_a) by < 2^-23.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.random import samplers
from jaxbandit.policies.common import uniform_draw, unplayed_first
from jaxbandit.policies.thompson import posterior_sample, thompson
from jaxbandit.policies.ucb import _init, _means, _update, exploration, klucb_index
from jaxbandit.mechanisms import randomized_response as rr
from jaxbandit.types import Policy
from jaxbandit.registry import POLICIES, Golden


class CFParams(NamedTuple):
    """A corrupt-feedback index policy's parameters: the channel (p00, p11) of each arm and the exploration constant
    c."""
    p00: jax.Array  # float[K]: arm a's Pr(F = 0 | R = 0), known to the learner
    p11: jax.Array  # float[K]: Pr(F = 1 | R = 1)
    c: jax.Array    # float: exploration f(t) = log t + c log log t (Thm 2 uses c = 3)


class TSCFParams(NamedTuple):
    """TS-CF's parameters: the channel (p00, p11) of each arm."""
    p00: jax.Array  # float[K]
    p11: jax.Array  # float[K]


def _validator(num_arms, with_c=True):
    """p00, p11 scalars or K-vectors in [0, 1] with p00 + p11 ≠ 1 (g_a strictly monotone); c >= 0 finite."""
    def validate(params, horizon=None):
        rr.check(params.p00, params.p11)
        for name in ("p00", "p11"):
            shape = np.shape(getattr(params, name))
            if shape not in ((), (num_arms,)):
                raise ValueError(f"{name} must be a scalar or have one entry per arm ({num_arms}), got shape {shape}")
        if with_c:
            checks.in_range("c", params.c, 0.0, float("inf"), high_open=True)
    return validate


def _defaults(num_arms, with_c=True):
    one = jnp.ones(num_arms)  # p00 = p11 = 1: no corruption, g = identity
    return CFParams(one, one, jnp.asarray(3.0)) if with_c else TSCFParams(one, one)


def _feedback_bound(mean, level, increasing):
    """u = max{q : d(λ̂, q) <= level} where g is increasing, ℓ = min{q : d(λ̂, q) <= level} = 1 − u(1 − λ̂)
    where it is decreasing (spec §2.1): one solve for both."""
    flip = ~increasing
    q = klucb_index(jnp.where(flip, 1 - mean, mean), level)
    return jnp.where(flip, 1 - q, q)


def klucb_cf(num_arms: int) -> Policy:
    """kl-UCB-CF: KL bound on the feedback mean mapped back through g_a^-1, per-arm channel (Corrupt bandits, Alg. 1).

    Each arm once (random order), then at round t + 1 play
    argmax_a g_a⁻¹(u_a(t)) if g_a is increasing, g_a⁻¹(ℓ_a(t)) if decreasing, with [ℓ_a, u_a] the set
    {q : N_a(t) d(λ̂_a(t), q) <= f(t)}, f(t) = max(log t + c log log t, 0), t the rounds played (§7.2, App. I).
    Ties broken uniformly at random. Regret ≤ Σ Δ_a log T / d(λ_a, g_a(μ_1)) + O(sqrt(log T)) with c = 3
    (Thm 2; `jaxbandit.theory.klucb_cf_bound`)."""

    def select(rng, state, params):
        mean, n = _means(state)
        o, s = rr.offset_slope(params.p00, params.p11)
        level = exploration(jnp.sum(state.counts), params.c, mean.dtype) / n
        index = (_feedback_bound(jnp.clip(mean, 0, 1), level, s > 0) - o) / s
        return unplayed_first(index, state.counts, rng.drawn)

    return Policy("klucb-cf", num_arms, _init(num_arms), uniform_draw, select, _update(num_arms), _validator(num_arms),
                  _defaults(num_arms), reward_range=(0.0, 1.0))


def ucb_cf(num_arms: int) -> Policy:
    """UCB-CF: Hoeffding bound on the feedback mean mapped back through g_a^-1 (Corrupt bandits, Cor. 1).

    kl-UCB-CF with the Hoeffding interval: index
    g_a⁻¹(λ̂_a + sqrt(f(t)/(2 N_a))) for increasing g_a, g_a⁻¹(λ̂_a − sqrt(f(t)/(2 N_a))) for decreasing;
    each arm once first, ties at random. Order-optimal only: O(Σ Δ_a log T / (λ_a − g_a(μ_1))²)."""

    def select(rng, state, params):
        mean, n = _means(state)
        o, s = rr.offset_slope(params.p00, params.p11)
        width = jnp.sqrt(exploration(jnp.sum(state.counts), params.c, mean.dtype) / (2 * n))
        index = (mean + jnp.where(s > 0, width, -width) - o) / s
        return unplayed_first(index, state.counts, rng.drawn)

    return Policy("ucb-cf", num_arms, _init(num_arms), uniform_draw, select, _update(num_arms), _validator(num_arms),
                  _defaults(num_arms), reward_range=(0.0, 1.0))


def ts_cf(num_arms: int) -> Policy:
    """TS-CF: Beta posterior on the feedback mean, play argmax g_a^-1(theta_a) (Corrupt bandits, Alg. 2).

    θ_a ~ Beta(successes_a + 1, failures_a + 1), the posterior of the
    feedback mean λ_a under a uniform prior, and play argmax_a g_a⁻¹(θ_a) (App. II's "argmax θ_a" is a typo,
    spec §2.3); no forced initial pulls. Shares `thompson`'s state, random stream and update (feedback in
    [0, 1] enters as a Bernoulli trial), so with g = identity it *is* `thompson`. Ties (float32 draws) are
    negligible, as in `thompson`.
    Regret ≤ (1 + ψ) Σ Δ_a log T / d(λ_a, g_a(μ_1)) + C_ψ (Thm 3)."""
    base = thompson(num_arms)

    def select(rng, state, params):
        theta = posterior_sample(rng, state)
        return jnp.argmax(rr.inverse_mean_map(theta, params.p00, params.p11)).astype(jnp.int32)

    return base._replace(name="ts-cf", select=select, validate=_validator(num_arms, with_c=False),
                         default_params=_defaults(num_arms, with_c=False))


def _wrapped_means(state, params):
    """Ȳ_a = mean of g_a⁻¹(F) over arm a's feedback = g_a⁻¹(λ̂_a), unbiased for μ_a, clipped to [0, 1]."""
    mean, n = _means(state)
    return jnp.clip(rr.inverse_mean_map(mean, params.p00, params.p11), 0, 1), n


def wr_klucb(num_arms: int) -> Policy:
    """WRAPPER kl-UCB: kl-UCB on the transformed feedback g_a^-1(F) (Corrupt bandits, Sec. 6 baseline).

    kl-UCB run on the transformed rewards g_a⁻¹(F) as if they
    were rewards in [0, 1]: index max{q : N_a d(Ȳ_a, q) <= f(t)} with Ȳ_a = clip(g_a⁻¹(λ̂_a), 0, 1). The paper
    does not say how the out-of-range values g_a⁻¹(F) ∈ {−o/s, p00/s} are fed to kl-UCB; clipping each value
    would give back F itself, so the mean is clipped instead (spec §2.4 [A]). The confidence width is not
    scaled by 1/|s_a| — the variance inflation the paper says WR ignores."""

    def select(rng, state, params):
        mean, n = _wrapped_means(state, params)
        index = klucb_index(mean, exploration(jnp.sum(state.counts), params.c, mean.dtype) / n)
        return unplayed_first(index, state.counts, rng.drawn)

    return Policy("wr-klucb", num_arms, _init(num_arms), uniform_draw, select, _update(num_arms), _validator(num_arms),
                  _defaults(num_arms), reward_range=(0.0, 1.0))


def wr_ts(num_arms: int) -> Policy:
    """WRAPPER TS: Beta TS on the transformed feedback g_a^-1(F) (Corrupt bandits, Sec. 6 baseline).

    Beta–Bernoulli TS on the transformed rewards, with the
    posterior Beta(1 + N_a Ȳ_a, 1 + N_a (1 − Ȳ_a)), Ȳ_a = clip(g_a⁻¹(λ̂_a), 0, 1) (spec §2.4 [A], as
    `wr_klucb`). The Beta draws are exact for real parameters (`jaxbandit.random.samplers.beta`)."""

    def draw(key, steps, params):
        return samplers.draw_beta_noise(key, (steps, num_arms))

    def select(rng, state, params):
        mean, _ = _wrapped_means(state, params)
        n = state.counts.astype(mean.dtype)
        theta = samplers.beta(rng.key, 1 + n * mean, 1 + n * (1 - mean), rng.drawn)
        return jnp.argmax(theta).astype(jnp.int32)

    return Policy("wr-ts", num_arms, _init(num_arms), draw, select, _update(num_arms), _validator(num_arms, with_c=False),
                  _defaults(num_arms, with_c=False), reward_range=(0.0, 1.0))


def channel_params(p00, p11, num_arms: int) -> dict:
    """``{"p00": [K], "p11": [K]}``: a scalar or per-arm channel as the CF policies' per-arm parameters."""
    return {k: np.broadcast_to(np.asarray(v, np.float64), (num_arms,)).copy() for k, v in
            (("p00", p00), ("p11", p11))}


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case. The golden cases
# run on a per-arm randomized-response channel that the policies know.
_CHANNEL = {"p00": [0.6, 0.9, 0.8, 0.7], "p11": [0.7, 0.9, 0.85, 0.6]}
_CHANNEL_CASE = {"privatizer": "randomized-response", "privatizer_params": _CHANNEL}
POLICIES.register("klucb-cf", klucb_cf,
                  golden=Golden(params={**_CHANNEL, "c": 3.0}, **_CHANNEL_CASE))
POLICIES.register("ucb-cf", ucb_cf,
                  golden=Golden(params={**_CHANNEL, "c": 3.0}, **_CHANNEL_CASE))
POLICIES.register("ts-cf", ts_cf,
                  golden=Golden(params=_CHANNEL, **_CHANNEL_CASE))
POLICIES.register("wr-klucb", wr_klucb,
                  golden=Golden(params={**_CHANNEL, "c": 3.0}, **_CHANNEL_CASE))
POLICIES.register("wr-ts", wr_ts,
                  golden=Golden(params=_CHANNEL, **_CHANNEL_CASE))
