"""Thompson sampling: Beta–Bernoulli (`thompson`), Gaussian-prior (`gaussian-thompson`) and its private
modification with pre-pulls and scaled variance (`modified-thompson`).

References:
  Thompson (1933); Agrawal & Goyal, "Further optimal regret bounds for Thompson sampling", AISTATS 2013 (AG13),
  for the Beta–Bernoulli version on [0, 1] rewards through a Bernoulli trial; Ou, Avella Medina & Cummings,
  "Thompson Sampling Itself is Differentially Private" (seed 001), Algorithm 1, for the Gaussian version.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import ndtr

from jaxbandit import checks
from jaxbandit.accounting import thompson as ts_privacy
from jaxbandit.mechanisms import noisy_max
from jaxbandit.mechanisms import normal as normal_noise
from jaxbandit.policies.common import onehot
from jaxbandit.random import samplers
from jaxbandit.types import EmptyParams, Policy, no_validate
from jaxbandit.registry import POLICIES, Golden


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)
_BODY = (-6.0, -3.0, -1.5, 0.0, 1.5, 3.0, 6.0)  # panel edges resolving φ itself
_REACH = 7.0  # Φ((z − z_k)/w_k) is within Φ(−7) ≈ 1e-12 of 0 or 1 beyond z_k ± 7 w_k
_TAIL = 12.0  # φ is negligible 12 standard deviations out


def gaussian_argmax_prob(means, scales, arm):
    """P(argmax_k θ_k = arm) for independent θ_k ~ N(means_k, scales_k²): Thompson sampling's selection
    probability for Gaussian posteriors, differentiable in ``means`` and ``scales``.

    In the standard units of θ_a (a = ``arm``): π_a = ∫ φ(z) Π_{k≠a} Φ((z − z_k)/w_k) dz with z_k = (m_k − m_a)/s_a
    and w_k = s_k/s_a. Gauss–Hermite quadrature fails once some w_k ≪ 1 (a sharp posterior, such as the best arm's
    late in a run, puts a step of width w_k in the integrand: 10-100% errors at the scale ratios of seed 001's
    runs). So the integral is taken by composite 8-point Gauss–Legendre over panels whose edges are each step's
    centre z_k and its ends z_k ± 7 w_k and a grid over φ's body, on [L, U] outside which the integrand is
    within 1e-12 of 0 (below) or of φ (above, added as Φ(−U)). Relative error below 5e-5 for π_a > 1e-6 over
    random instances with K ≤ 10 arms and scale ratios up to 300 (tests/test_gradients.py checks it against
    Monte Carlo); float32 arithmetic limits it to about 1e-6 where it is otherwise exact.
    """
    num_arms = means.shape[-1]
    m_a, s_a = means[arm], scales[arm]
    z = (means - m_a) / s_a
    w = scales / s_a
    other = jnp.arange(num_arms) != arm
    neg_inf = jnp.full_like(z, -jnp.inf)
    stop = jax.lax.stop_gradient  # panel edges only partition the integral: no derivative flows through them
    lower = jnp.maximum(jnp.max(jnp.where(other, stop(z - _REACH * w), neg_inf)), -_TAIL)
    upper = jnp.max(jnp.where(other, stop(z + _REACH * w), neg_inf))
    upper = jnp.maximum(jnp.minimum(upper, jnp.maximum(lower, 0.0) + _TAIL), lower)
    inside = lambda x: jnp.where(other, x, lower)
    edges = jnp.concatenate([jnp.stack([lower, upper]), jnp.asarray(_BODY, z.dtype),
                             inside(stop(z - _REACH * w)), inside(stop(z)), inside(stop(z + _REACH * w))])
    edges = jnp.sort(jnp.clip(edges, lower, upper))
    mid, half = (edges[1:] + edges[:-1]) / 2, (edges[1:] - edges[:-1]) / 2
    t = mid[:, None] + half[:, None] * jnp.asarray(_GL_NODES, z.dtype)

    def steps(x):  # Π_{k≠a} Φ((x − z_k)/w_k)
        return jnp.prod(jnp.where(other, ndtr((x[..., None] - z) / w), 1.0), axis=-1)

    body = jnp.sum(half[:, None] * jnp.asarray(_GL_WEIGHTS, z.dtype) * jnp.exp(-0.5 * t * t) * steps(t))
    return body / math.sqrt(2 * math.pi) + ndtr(-upper) * steps(upper)


def _log(p):
    return jnp.log(jnp.maximum(p, jnp.finfo(p.dtype).tiny))


class BetaState(NamedTuple):
    """Beta–Bernoulli Thompson sampling's posterior per arm: successes and failures (Beta(1 + s, 1 + f))."""
    successes: jax.Array  # int32[K]: Bernoulli trials equal to 1
    failures: jax.Array   # int32[K]


def posterior_sample(rng, state: BetaState):
    """θ_k ~ Beta(S_k + 1, F_k + 1) for every arm, from the step's block noise (shared by `thompson` and TS-CF)."""
    beta_noise, _ = rng.drawn
    a = (state.successes + 1).astype(jnp.zeros(()).dtype)
    return samplers.beta(rng.key, a, (state.failures + 1).astype(a.dtype), beta_noise)


def thompson(num_arms: int) -> Policy:
    """Beta(1,1)-Bernoulli Thompson sampling; [0,1] rewards binarized by a Bernoulli trial (Agrawal & Goyal 2013).

    Each step draws θ_k ~ Beta(S_k + 1, F_k + 1) and plays argmax θ. A reward r in [0, 1] is turned into a
    Bernoulli(r) trial before the update (AG13, Algorithm 2), so Bernoulli rewards are used as they are.
    Beta draws are exact (`jaxbandit.random.samplers.beta`); ties have probability zero.
    """

    def init(params):
        zeros = jnp.zeros(num_arms, jnp.int32)
        return BetaState(zeros, zeros)

    def draw(key, steps, params):
        k_beta, k_trial = jax.random.split(key)
        return samplers.draw_beta_noise(k_beta, (steps, num_arms)), jax.random.uniform(k_trial, (steps,))

    def select(rng, state, params):
        return jnp.argmax(posterior_sample(rng, state)).astype(jnp.int32)

    def update(rng, state, arm, obs, params):
        _, u = rng.drawn
        trial = (u < obs).astype(jnp.int32)
        hit = onehot(arm, num_arms)
        return BetaState(state.successes + hit * trial, state.failures + hit * (1 - trial))

    return Policy("thompson", num_arms, init, draw, select, update, no_validate, EmptyParams(),
                  reward_range=(0.0, 1.0))


class GaussianState(NamedTuple):
    """Gaussian Thompson sampling's statistics per arm: reward sums and pull counts."""
    sums: jax.Array    # float[K]: S_k, sum of observations of arm k
    counts: jax.Array  # int32[K]: n_k


ACCOUNTINGS = ("paper", "tight")  # the ``accounting`` option: seed 001's Lemma 5, or the T − bN sampled rounds


def _normal_draw(num_arms, release):
    """θ's N(0, 1) draws: `jaxbandit.mechanisms.normal.normal`, whose default (``release="tail-safe"``) follows
    N(0, 1) down to tail probabilities of 2^-73, where ``jax.random.normal`` (``"float"``) stops at Z = 5.22 above and
    −5.42 below."""
    checks.known_name("normal release", release, normal_noise.RELEASES)

    def draw(key, steps, params):
        return normal_noise.normal(key, (steps, num_arms), release)
    return draw


def _accountant(accounting, design=None):
    checks.known_name("accounting", accounting, ACCOUNTINGS)
    return ts_privacy.accountant(tight=accounting == "tight", design=design)


def gaussian_thompson(num_arms: int, *, release: str = "tail-safe", accounting: str = "paper") -> Policy:
    """Thompson sampling, N(0,1) prior: θ ~ N(S/(n+1), 1/(n+1)) (TS is itself DP, Alg. 1).

    N(0, 1) priors and a unit-variance Gaussian likelihood: θ_k ~ N(S_k / (n_k + 1), 1 / (n_k + 1)), the
    conjugate posterior; play argmax θ (ties have probability zero). The posterior mean keeps the prior pseudo-count: μ̂ = S/(n+1), not S/n. Declares rewards in [0, 1]:
    its GDP guarantee (seed 001 Thm 4, `jaxbandit.accounting.thompson`) assumes them, so unbounded (unclipped
    Gaussian) rewards are refused. ``release``: ``"tail-safe"`` (default) draws θ's noise with tails to 2^-73
    (`jaxbandit.mechanisms.normal.normal`), ``"float"`` with ``jax.random.normal``, cut near |Z| = 5.3, as seed
    001's runs did. ``accounting``: its accountant, ``"paper"`` (μ = sqrt(T), Lemma 5 at (b, c) = (0, 1)) or
    ``"tight"`` (sqrt(T/2), Theorem 3).
    """

    def init(params):
        return GaussianState(jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32))

    draw = _normal_draw(num_arms, release)

    def select(rng, state, params):  # Gaussian ReportNoisyMax on the posterior means (seed 001, App. C)
        n1 = (state.counts + 1).astype(state.sums.dtype)
        return noisy_max.gaussian(state.sums / n1, jax.lax.rsqrt(n1), rng.drawn)

    def update(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms)
        return GaussianState(state.sums + hit.astype(state.sums.dtype) * obs, state.counts + hit)

    def log_prob(state, arm, params):
        n1 = (state.counts + 1).astype(state.sums.dtype)
        return _log(gaussian_argmax_prob(state.sums / n1, jax.lax.rsqrt(n1), arm))

    return Policy("gaussian-thompson", num_arms, init, draw, select, update, no_validate, EmptyParams(),
                  reward_range=(0.0, 1.0), accountant=_accountant(accounting, design=lambda p: (0, 1.0)),
                  options={"release": release, "accounting": accounting}, log_prob=log_prob)


class ModifiedParams(NamedTuple):
    """Modified TS's parameters (seed 001, Algorithm 2): b pre-pulls per arm, posterior variance scale c ≥ 1."""
    b: jax.Array      # int32: pre-pulls per arm, in arm order, before any sampling
    c: jax.Array      # float: posterior variance scale


class ModifiedState(NamedTuple):
    """Modified TS's statistics per arm (reward sums, pull counts) and the round, which ends the pre-pulls."""
    sums: jax.Array    # float[K]: S_k, pre-pulls included
    counts: jax.Array  # int32[K]: n_k, pre-pulls included
    step: jax.Array    # int32: rounds played so far


def modified_thompson(num_arms: int, *, release: str = "tail-safe", accounting: str = "paper") -> Policy:
    """Gaussian TS with b pre-pulls per arm and variance c/(n+1); sqrt(T/(c(b+1)))-GDP (TS is itself DP, Alg. 2).

    b pre-pulls of every arm in arm order (arm 0 b times, then arm 1, ...), then θ_k ~ N(S_k/(n_k+1), c/(n_k+1))
    and play argmax θ; n and S include the pre-pulls. ``release`` as in `gaussian-thompson`.

    b and c are traced parameters, so a (b, c) grid is one compilation. (b, c) = (0, 1) is `gaussian-thompson`
    exactly: the same draws and, for the same key, the same trajectory. Its privacy is
    ``jaxbandit.accounting.thompson.eta(b, c, T)``-GDP, sqrt(T/(c(b+1))) (Lemma 5, Theorem 4; ``accounting="tight"``:
    the T − bN sampled rounds); its accountant calibrates c on a budget's boundary (c*(b)). The regret analysis
    (Theorem 5) assumes c ≥ 1; any c > 0 runs. If b·K ≥ T every round is a pre-pull. Rewards must lie in
    [0, 1], which the GDP guarantee assumes (sensitivity 1 of the sums).
    """

    def init(params):
        return ModifiedState(jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32), jnp.zeros((), jnp.int32))

    draw = _normal_draw(num_arms, release)  # as gaussian-thompson: (0, 1) shares its stream

    def select(rng, state, params):
        n1 = (state.counts + 1).astype(state.sums.dtype)
        sampled = noisy_max.gaussian(state.sums / n1, jnp.sqrt(params.c).astype(n1.dtype) * jax.lax.rsqrt(n1),
                                     rng.drawn)  # Gaussian ReportNoisyMax (seed 001, App. C)
        forced = state.step < params.b * num_arms
        return jnp.where(forced, state.step // jnp.maximum(params.b, 1), sampled).astype(jnp.int32)

    def update(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms)
        return ModifiedState(state.sums + hit.astype(state.sums.dtype) * obs, state.counts + hit, state.step + 1)

    def validate(params, horizon=None):
        checks.in_range("b", params.b, 0.0, high_open=True)
        checks.in_range("c", params.c, 0.0, low_open=True, high_open=True)
        if horizon is not None:
            ts_privacy.warn_if_all_prepulls(params.b, num_arms, horizon)

    def log_prob(state, arm, params):
        """Pre-pulls are deterministic; then the Gaussian argmax probability (`gaussian_argmax_prob`)."""
        n1 = (state.counts + 1).astype(state.sums.dtype)
        scales = jnp.sqrt(params.c).astype(n1.dtype) * jax.lax.rsqrt(n1)
        sampled = gaussian_argmax_prob(state.sums / n1, scales, arm)
        forced = state.step < params.b * num_arms
        return _log(jnp.where(forced, (arm == state.step // jnp.maximum(params.b, 1)).astype(n1.dtype), sampled))

    return Policy("modified-thompson", num_arms, init, draw, select, update, validate,
                  ModifiedParams(b=jnp.asarray(0, jnp.int32), c=jnp.asarray(1.0)), reward_range=(0.0, 1.0),
                  accountant=_accountant(accounting), options={"release": release, "accounting": accounting},
                  log_prob=log_prob, tunable={"b": (0, 10, 100, 1000)})  # c = c*(b): the accountant's


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case.
POLICIES.register("thompson", thompson,
                  golden=Golden())
POLICIES.register("gaussian-thompson", gaussian_thompson, private=True, audits=("gaussian-noisy-max",),
                  golden=Golden())
POLICIES.register("modified-thompson", modified_thompson, private=True, audits=("modified-thompson", "modified-thompson-run", "gaussian-noisy-max"),
                  golden=Golden(params={"b": 7, "c": 3.5}))
