"""Linear bandit policies: LinUCB (OFUL) and linear Thompson sampling, on the arms' features each round.

Both keep the ridge statistics of the rounds so far, V_t = λI + Σ_s x_s x_sᵀ and b_t = Σ_s r_s x_s, and estimate
θ̂_t = V_t⁻¹ b_t through a Cholesky factor V_t = L Lᵀ computed afresh each round (`jaxbandit.policies.linalg`,
elementwise over runs; log det V_t = 2 Σ log L_ii), V_t and b_t summed with Kahan compensation. In float32, rank-one
(Sherman–Morrison) updates of V_t⁻¹ drift, and a plain sum of V_t loses its small eigenvalues under the best arm's:
over 10⁶ rounds of Chowdhury & Zhou's instance either left LinUCB's regret several times the float64 value. Both are contextual policies (`jaxbandit.types.Policy.contextual`): ``select`` and ``update`` take the
round's features f[K, d] as their last argument, and the factory takes d.

References:
  Abbasi-Yadkori, Pál & Szepesvári, "Improved Algorithms for Linear Stochastic Bandits", NeurIPS 2011 (OFUL:
  the confidence set of Theorem 2 and the regret bound of Theorem 3, `jaxbandit.theory.linear`);
  Agrawal & Goyal, "Thompson Sampling for Contextual Bandits with Linear Payoffs", ICML 2013 (Algorithm 1).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks
from jaxbandit.policies import linalg
from jaxbandit.policies.common import argmax_random_tie
from jaxbandit.types import Policy
from jaxbandit.registry import POLICIES, Golden

WIDTHS = ("oful", "constant")  # LinUCB's confidence width: Theorem 2's, or a constant β
SCALES = ("constant", "paper")  # linear TS's posterior scale: a constant v, or Agrawal & Goyal's v


class RidgeState(NamedTuple):
    """The ridge statistics of a linear policy (per run), summed with Kahan compensation."""
    gram: jax.Array      # f[d, d] V_t = λI + Σ x xᵀ
    xr: jax.Array        # f[d] b_t = Σ r x
    gram_err: jax.Array  # f[d, d] the compensation of V's sum (the low-order part it lost)
    xr_err: jax.Array    # f[d]


class LinUCBParams(NamedTuple):
    """Parameters of LinUCB.

    Attributes:
      ridge: λ > 0, the ridge regularizer (V_0 = λI).
      delta: δ in (0, 1), the confidence set's failure probability; ``None``: 1/T, the run's horizon.
      noise_scale: R ≥ 0, the rewards' sub-Gaussian scale (1/2 for rewards in [0, 1]).
      theta_bound: S ≥ 0, a bound on ‖θ‖₂.
      beta: the constant width β ≥ 0 of ``width="constant"`` (unused by ``"oful"``).
    """
    ridge: jax.Array
    delta: jax.Array | None
    noise_scale: jax.Array
    theta_bound: jax.Array
    beta: jax.Array


class LinTSParams(NamedTuple):
    """Parameters of linear Thompson sampling.

    Attributes:
      ridge: λ > 0 (Agrawal & Goyal take λ = 1).
      scale: v ≥ 0, the posterior's scale, N(θ̂, v² V⁻¹), of ``scale="constant"``.
      noise_scale: R ≥ 0 (``scale="paper"``).
      delta: δ in (0, 1) (``scale="paper"``); ``None``: 1/T.
      paper_epsilon: Agrawal & Goyal's ε in (0, 1) (``scale="paper"``; a parameter of their analysis, not a privacy
        level).
    """
    ridge: jax.Array
    scale: jax.Array
    noise_scale: jax.Array
    delta: jax.Array | None
    paper_epsilon: jax.Array


def pick_row(features, arm):
    """``features[arm]`` by a one-hot sum (vectorizes across runs where a gather would not; exact)."""
    hit = (jnp.arange(features.shape[0]) == arm)[:, None]
    return jnp.sum(jnp.where(hit, features, jnp.zeros((), features.dtype)), axis=0)


def ridge_init(dim):
    """``init`` of a linear policy in d dimensions: V_0 = λI, b_0 = 0."""
    def init(params):
        dtype = jnp.zeros(()).dtype
        return RidgeState(jnp.eye(dim, dtype=dtype) * params.ridge, jnp.zeros(dim, dtype),
                          jnp.zeros((dim, dim), dtype), jnp.zeros(dim, dtype))
    return init


def _kahan(total, err, term):
    """One step of Kahan's compensated sum: (new total, new compensation)."""
    y = term - err
    new = total + y
    return new, (new - total) - y


def ridge_update(rng, state, arm, obs, params, features):
    """Add the round (x = features[arm], r = obs) to V and b, Kahan-compensated: over 10⁶ rounds a plain float32
    sum of x xᵀ loses V's small eigenvalues under the best arm's large ones."""
    x = pick_row(features, arm)
    gram, gram_err = _kahan(state.gram, state.gram_err, jnp.outer(x, x))
    xr, xr_err = _kahan(state.xr, state.xr_err, obs * x)
    return RidgeState(gram, xr, gram_err, xr_err)


def log_det_ratio(chol, params):
    """log(det V_t / det λI) from V_t's Cholesky factor."""
    return 2 * jnp.sum(jnp.log(jnp.diagonal(chol))) - chol.shape[-1] * jnp.log(params.ridge)


def oful_width(state, params, chol=None):
    """β_t = R √(2 log(1/δ) + log(det V_t / det λI)) + √λ S: the radius of the confidence ellipsoid of
    Abbasi-Yadkori et al. (2011), Theorem 2 (θ* lies in it for every t with probability ≥ 1 − δ). ``chol``: V_t's
    Cholesky factor where computed already."""
    chol = linalg.cholesky(state.gram) if chol is None else chol
    return (params.noise_scale * jnp.sqrt(jnp.maximum(2 * jnp.log(1 / params.delta) + log_det_ratio(chol, params), 0))
            + jnp.sqrt(params.ridge) * params.theta_bound)


def _bind_delta(params, horizon):
    if params.delta is not None:
        return params
    return params._replace(delta=jnp.asarray(1.0 / max(int(horizon), 2), jnp.zeros(()).dtype))


def _check_delta(params):
    if params.delta is not None:
        checks.in_range("delta", params.delta, 0.0, 1.0, low_open=True, high_open=True)


def linucb(num_arms: int, dim: int, *, width: str = "oful") -> Policy:
    """LinUCB (OFUL): argmax x_aᵀθ̂ + β_t ‖x_a‖_{V⁻¹} on the round's features (Abbasi-Yadkori et al. 2011).

    θ̂_t = V_t⁻¹ b_t, the ridge estimate; ‖x‖_{V⁻¹} = √(xᵀV_t⁻¹x) = ‖L⁻¹x‖ for V_t = L Lᵀ. ``width="oful"`` (default): β_t of Theorem 2,
    R √(2 log(1/δ) + log(det V_t / det λI)) + √λ S; ``width="constant"``: β_t = ``beta`` (a tuned constant, as
    experiments often run LinUCB). Ties are broken uniformly at random. Parameters: `LinUCBParams`.
    """
    checks.known_name("linucb width", width, WIDTHS)
    d = checks.positive_int("dim", dim)
    dtype = jnp.zeros(()).dtype

    def select(rng, state, params, features):
        chol = linalg.cholesky(state.gram)
        theta = linalg.solve_upper_transposed(chol, linalg.solve_lower(chol, state.xr))
        whitened = linalg.solve_lower(chol, features.T)
        norms = jnp.sqrt(jnp.sum(whitened * whitened, axis=0))
        beta = oful_width(state, params, chol) if width == "oful" else params.beta
        return argmax_random_tie(linalg.matvec(features, theta) + beta * norms, rng.drawn)

    def draw(key, steps, params):
        return jax.random.uniform(key, (steps,))

    def validate(params, horizon=None):
        checks.in_range("ridge", params.ridge, 0.0, math.inf, low_open=True, high_open=True)
        _check_delta(params)
        checks.in_range("noise_scale", params.noise_scale, 0.0, math.inf, high_open=True)
        checks.in_range("theta_bound", params.theta_bound, 0.0, math.inf, high_open=True)
        checks.in_range("beta", params.beta, 0.0, math.inf, high_open=True)

    defaults = LinUCBParams(jnp.asarray(1.0, dtype), None, jnp.asarray(0.5, dtype), jnp.asarray(1.0, dtype),
                            jnp.asarray(1.0, dtype))
    tunable = {"beta": (0.1, 0.3, 1.0, 3.0)} if width == "constant" else {"ridge": (0.1, 1.0, 10.0)}
    return Policy("linucb", num_arms, ridge_init(d), draw, select, ridge_update, validate, defaults,
                  options={"width": width}, bind_horizon=_bind_delta, tunable=tunable, contextual=True)


def paper_scale(params, dim):
    """v = R √(24 d ln(1/δ) / ε): the posterior scale of Agrawal & Goyal (2013), Algorithm 1 (their ε in (0, 1)
    trades the regret bound's T^{ε/2} against 1/ε)."""
    return params.noise_scale * jnp.sqrt(24 * dim * jnp.log(1 / params.delta) / params.paper_epsilon)


def lin_ts(num_arms: int, dim: int, *, scale: str = "constant") -> Policy:
    """Linear Thompson sampling: argmax x_aᵀθ̃, θ̃ ~ N(θ̂, v² V⁻¹) each round (Agrawal & Goyal 2013, Algorithm 1).

    ``scale="constant"`` (default): v = ``scale``, as the algorithm is run in practice; ``scale="paper"``: v =
    R √(24 d ln(1/δ)/ε), the value their regret bound holds for (far more exploration). θ̃ = θ̂ + v L z with
    L Lᵀ = V⁻¹ (by V = C Cᵀ, L = C⁻ᵀ: a triangular solve) and z standard normal. Parameters: `LinTSParams`.
    """
    checks.known_name("lin-ts scale", scale, SCALES)
    d = checks.positive_int("dim", dim)
    dtype = jnp.zeros(()).dtype

    def draw(key, steps, params):
        k_z, k_u = jax.random.split(key)
        return jax.random.normal(k_z, (steps, d)), jax.random.uniform(k_u, (steps,))

    def select(rng, state, params, features):
        z, u = rng.drawn
        v = params.scale if scale == "constant" else paper_scale(params, d)
        chol = linalg.cholesky(state.gram)
        theta = linalg.solve_upper_transposed(chol, linalg.solve_lower(chol, state.xr) + v * z)  # θ̂ + v C⁻ᵀ z
        return argmax_random_tie(features @ theta, u)

    def validate(params, horizon=None):
        checks.in_range("ridge", params.ridge, 0.0, math.inf, low_open=True, high_open=True)
        checks.in_range("scale", params.scale, 0.0, math.inf, high_open=True)
        checks.in_range("noise_scale", params.noise_scale, 0.0, math.inf, high_open=True)
        _check_delta(params)
        checks.in_range("paper_epsilon", params.paper_epsilon, 0.0, 1.0, low_open=True, high_open=True)

    defaults = LinTSParams(jnp.asarray(1.0, dtype), jnp.asarray(0.5, dtype), jnp.asarray(0.5, dtype), None,
                           jnp.asarray(0.5, dtype))
    tunable = {"scale": (0.05, 0.1, 0.25, 0.5, 1.0)} if scale == "constant" else {}
    return Policy("lin-ts", num_arms, ridge_init(d), draw, select, ridge_update, validate, defaults,
                  options={"scale": scale}, bind_horizon=_bind_delta, tunable=tunable, contextual=True)


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case.
# features drawn each round (the per-step pseudo-regret); its delta is 1/T, so the whole run is replayed
POLICIES.register("linucb", linucb,
                  golden=Golden(env="linear", env_params={
                      "num_arms": 6, "theta": [0.2, -0.1, 0.5], "law": "sphere-bias", "link": "logistic"},
                  full_horizon=True))
POLICIES.register("lin-ts", lin_ts,
                  golden=Golden(env="linear", env_params={
                      "features": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0, 0.8], [0, 0.6, 0.8]],
                      "theta": [0.3, 0.1, 0.4]}))
