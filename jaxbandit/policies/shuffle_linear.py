"""Shuffle-private LinUCB: Chowdhury & Zhou, "Shuffle Private Linear Contextual Bandits", ICML 2022 ("CZ").

Users report their (x, y) through a trusted shuffler in batches of B; the server updates its Gram statistics once
per batch, from the batch's messages only, and plays LinUCB on them for the next B rounds (batched LinUCB). Two
protocols:

- SDP-Amp (``linucb-sdp-amp``): each user sends Zheng et al.'s Gaussian report (`gram.local_report`), with the
  smaller σ that amplification by shuffling is meant to allow: σ = Δ √(ln(2.5B/δ))/(ε √B), CZ's code's σ with the
  report's sensitivity Δ = sqrt(2L⁴ + 4L²B̃²) (`gram.report_sensitivity`) that their code leaves out. The claim is
  `accounting.shuffle.ShuffledGaussian`: the better of the report's own μ = Δ/σ and Feldman, McMillan & Talwar's
  amplification over B users. At CZ's B = 20 amplification adds nothing; the report alone is then (ε', 0.1)-DP
  with ε' = 0.11 at their ε = 0.2, δ = 0.1, unit Δ, but not at their L = √2 (Δ ≈ 3.5 there: ε' = 1.8).
- SDP-Vec (``linucb-sdp-vec``): each user sends its rounded coordinates and Bin(b, p) noise messages per
  coordinate (`gram.vector_sum_encode`, `gram.vector_sum_noise`; Cheu, Joseph, Mao & Peng's vector summation),
  with CZ's code's g = max(2√B, d, 4), p = 1/4 and b = ⌈g² ln²(d/δ)/(ε² B)⌉ (their ``scale`` 1; their code keeps
  the float b, which numpy truncates in the draw but not in the decoding: a bias of −(L/g) p (b − ⌊b⌋) B per
  coordinate per batch, −0.31 at their defaults; an integer b here). The claim is
  `accounting.shuffle.BinomialSum` for the b run: Cheu et al.'s theorem needs a far larger b (a constant of order
  10⁵ that CZ's code replaces by 1).

The server (``width``):

- ``"theory"`` (default): Zheng et al.'s regularizer and width (`private_linear.report_width`) for the reports'
  noise: σ for SDP-Amp; for SDP-Vec the sub-Gaussian scale of a user's rounding and binomial noise per
  coordinate, (L_c/g) √((b + 1)/4) (Hoeffding: Bin(b, p) − bp is √(b/4)-sub-Gaussian, a rounding error in an
  interval of length 1 is ½-sub-Gaussian), t = the reports folded in.
- ``"chowdhury-zhou"``: CZ's code's constant width and regularizer 2Γ, Γ = σ √n √d
  (`private_linear.chowdhury_zhou_width`), with the same σ (their SDP-Vec Γ also carries an untuned ¼, left out).

Privacy scope "shuffle": the analyzer's view of every batch (the multiset of its messages); each user is in one
batch (the claim for a batch is the run's, parallel composition); one user of a batch replaced. Shuffle DP is not
central DP of the run's actions, nor local DP of a report (a user trusts the shuffler).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.accounting import shuffle
from jaxbandit.accounting.accountants import Accountant
from jaxbandit.mechanisms import gram
from jaxbandit.policies.linear import pick_row
from jaxbandit.policies.phased import when
from jaxbandit.policies.private_linear import (WIDTHS, bind_run, check_common, drawn_part, report_factor,
                                               report_select)
from jaxbandit.registry import POLICIES, Golden
from jaxbandit.types import Policy

__all__ = ["AmpParams", "VecParams", "BatchState", "linucb_sdp_amp", "linucb_sdp_vec", "WIDTHS", "amp_sigma",
           "vec_precision", "vec_trials", "vec_sigma", "vec_resolved", "vec_profile", "BIT_PROBABILITY",
           "VEC_MIN_EPSILON"]

#: p of the vector-sum protocol's noise messages (Cheu et al.; Chowdhury & Zhou's code).
BIT_PROBABILITY = 0.25
#: The smallest ε SDP-Vec's calibration sets b for (b grows as 1/ε², and below this a batch's 10⁷ noise messages per
#: coordinate make its accounting slow): a budget that needs more is refused.
VEC_MIN_EPSILON = 0.01


class AmpParams(NamedTuple):
    """Parameters of SDP-Amp LinUCB.

    Attributes:
      epsilon: the ε the noise is set for by CZ's formula (ε > 0); the accountant states what it gives.
      delta: the δ the noise is set for (in (0, 1)).
      alpha: α in (0, 1), the regularizer's failure probability; ``None``: 1/T.
      horizon: n = T known to the algorithm; ``None``: the run's.
      feature_bound: L > 0, each user scales its features to ‖x‖ ≤ L.
      reward_bound: B̃ > 0, each user clamps its reward to [−B̃, B̃].
      batch: B ≥ 1, the users per shuffled batch (an integer).
      noise_scale: R ≥ 0, the rewards' sub-Gaussian scale (``width="chowdhury-zhou"``).
      theta_bound: S ≥ 0, a bound on ‖θ*‖ (``width="chowdhury-zhou"``).
    """
    epsilon: jax.Array
    delta: jax.Array
    alpha: jax.Array | None
    horizon: jax.Array | None
    feature_bound: jax.Array
    reward_bound: jax.Array
    batch: jax.Array
    noise_scale: jax.Array
    theta_bound: jax.Array


class VecParams(NamedTuple):
    """Parameters of SDP-Vec LinUCB.

    Attributes:
      epsilon: the ε the noise is set for by CZ's formula for b (ε > 0); the accountant states what it gives.
      delta: the δ the noise is set for (in (0, 1)).
      alpha: α in (0, 1), the regularizer's failure probability; ``None``: 1/T.
      horizon: n = T known to the algorithm; ``None``: the run's.
      feature_bound: L > 0, each user scales its features to ‖x‖ ≤ L.
      reward_bound: B̃ > 0, each user clamps its reward to [−B̃, B̃].
      batch: B ≥ 1, the users per shuffled batch (an integer).
      noise_scale: R ≥ 0, the rewards' sub-Gaussian scale (``width="chowdhury-zhou"``).
      theta_bound: S ≥ 0, a bound on ‖θ*‖ (``width="chowdhury-zhou"``).
      precision: g > 0, the rounding grid's steps per L_c; ``None``: max(2√B, d, 4).
      trials: b ≥ 1, the noise messages per user and coordinate (an integer); ``None``: ⌈g² ln²(d/δ)/(ε² B)⌉.
    """
    epsilon: jax.Array
    delta: jax.Array
    alpha: jax.Array | None
    horizon: jax.Array | None
    feature_bound: jax.Array
    reward_bound: jax.Array
    batch: jax.Array
    noise_scale: jax.Array
    theta_bound: jax.Array
    precision: jax.Array | None
    trials: jax.Array | None


class BatchState(NamedTuple):
    """A batched server's state (per run): the statistics of the batches folded in, the batch being collected,
    and the count of rounds whose V_t was not positive definite."""
    gram: jax.Array          # f[d, d] Σ over folded batches of the decoded/noisy x xᵀ
    xr: jax.Array            # f[d]
    reports: jax.Array       # int32, users folded in
    pending_gram: jax.Array  # f[d, d] this batch's messages so far
    pending_xr: jax.Array    # f[d]
    pending: jax.Array       # int32, users in this batch so far
    indefinite: jax.Array    # int32


def amp_sigma(params):
    """σ = Δ √(ln(2.5B/δ))/(ε √B): CZ's code's SDP-Amp noise with the report's sensitivity Δ."""
    return (gram.report_sensitivity(params.feature_bound, params.reward_bound)
            * jnp.sqrt(jnp.log(2.5 * params.batch / params.delta)) / (params.epsilon * jnp.sqrt(params.batch)))


def vec_precision(batch, dim: int):
    """g = max(2√B, d, 4) (CZ's code)."""
    return jnp.maximum(jnp.maximum(2 * jnp.sqrt(batch), float(dim)), 4.0)


def vec_trials(params, dim: int):
    """b = ⌈g² ln²(d/δ)/(ε² B)⌉: CZ's code's b (``scale`` 1), rounded up to an integer."""
    return jnp.ceil(params.precision ** 2 * jnp.log(dim / params.delta) ** 2 / (params.epsilon ** 2 * params.batch))


def vec_sigma(params):
    """(L_c/g) √((b + 1)/4): the sub-Gaussian scale of one user's rounding and binomial noise per coordinate."""
    return (gram.coordinate_bound(params.feature_bound, params.reward_bound) / params.precision
            * jnp.sqrt((params.trials + 1) / 4))


def _batch_server(num_arms: int, dim: int, width: str, sigma_of, message, batch_noise):
    """init, select and update of a batched LinUCB server: ``message(key, x, y, params, drawn)`` is a user's message
    as the server decodes it (``drawn``: its randomness from the block's draw, or ``None``), ``batch_noise(key, params)`` the noise a full batch's sums carry beyond its messages'
    (None: none), ``sigma_of(params)`` the scale of one user's noise the widths use."""
    d, K = dim, num_arms
    dtype = jnp.zeros(()).dtype

    def init(params):
        zm, zv, zi = jnp.zeros((d, d), dtype), jnp.zeros(d, dtype), jnp.zeros((), jnp.int32)
        return BatchState(zm, zv, zi, zm, zv, zi, zi)

    def factor(state, params):
        return report_factor(state.gram, state.reports, sigma_of(params), params, d, width)

    def select(rng, state, params, features):
        return report_select(rng, factor(state, params), state.xr, features, K)

    def update(rng, state, arm, obs, params, features):
        _, ok, _ = factor(state, params)  # the V_t select used: count a failure
        m, v = message(jax.random.fold_in(rng.key, 0), pick_row(features, arm), obs, params, drawn_part(rng, 1))
        pending_gram, pending_xr = state.pending_gram + m, state.pending_xr + v
        full = (state.pending + 1).astype(params.batch.dtype) >= params.batch
        if batch_noise is not None:  # drawn only at steps where a batch ends (`phased.when`: a binomial is costly)
            nm, nv = when(full, batch_noise, (jax.random.fold_in(rng.key, 1), params),
                          (jnp.zeros_like(pending_gram), jnp.zeros_like(pending_xr)))
            folded_gram, folded_xr = pending_gram + nm, pending_xr + nv
        else:
            folded_gram, folded_xr = pending_gram, pending_xr
        return BatchState(jnp.where(full, state.gram + folded_gram, state.gram),
                          jnp.where(full, state.xr + folded_xr, state.xr),
                          state.reports + jnp.where(full, state.pending + 1, 0),
                          jnp.where(full, 0, pending_gram), jnp.where(full, 0, pending_xr),
                          jnp.where(full, 0, state.pending + 1), state.indefinite + (~ok).astype(jnp.int32))

    return init, select, update


def _check_batch(params):
    check_common(params)
    checks.in_range("batch", params.batch, 1.0, 2.0 ** 31 - 1)
    checks.integral("batch", params.batch)
    checks.in_range("noise_scale", params.noise_scale, 0.0, math.inf, high_open=True)
    checks.in_range("theta_bound", params.theta_bound, 0.0, math.inf, high_open=True)


def _host(params):
    return jax.tree.map(lambda v: np.float64(v), params)


_bind_alpha = bind_run(1.0)  # α = 1/T, as Zheng et al.'s server


def _defaults(cls, *extra):
    dtype = jnp.zeros(()).dtype
    one = lambda v: jnp.asarray(v, dtype)
    return cls(one(1.0), one(0.1), None, None, one(1.0), one(1.0), one(20.0), one(0.5), one(1.0), *extra)


def linucb_sdp_amp(num_arms: int, dim: int, *, width: str = "theory") -> Policy:
    """SDP-Amp LinUCB: batched LinUCB on shuffled Gaussian reports, shuffle (ε, δ)-DP (Chowdhury & Zhou 2022).

    The module docstring has the noise, the server (``width``: `WIDTHS`) and the claim. Parameters: `AmpParams`."""
    checks.known_name("linucb-sdp-amp width", width, WIDTHS)
    d = checks.positive_int("dim", dim)
    K = checks.positive_int("num_arms", num_arms)

    def message(key, x, y, params, normals):
        return gram.local_report(key, x, y, amp_sigma(params), params.feature_bound, params.reward_bound, normals)

    def draw(key, steps, params):
        k_u, k_z = jax.random.split(key)
        return jax.random.uniform(k_u, (steps,)), gram.report_normals(k_z, steps, d)

    init, select, update = _batch_server(K, d, width, amp_sigma, message, None)

    def level(params, horizon, num_arms):
        p = _host(_bind_alpha(params, horizon))
        mu = float(gram.report_sensitivity(p.feature_bound, p.reward_bound) / amp_sigma(p))
        return {"profile": shuffle.ShuffledGaussian(mu, int(p.batch))}

    accountant = Accountant("approx-dp", "shuffle", level, "one user of a shuffled batch replaced",
                            "Chowdhury & Zhou 2022 (SDP-Amp): the better of each Gaussian report's μ-GDP (Dong, Roth & "
                            "Su 2022, Thm 2.7) and amplification by shuffling (Feldman, McMillan & Talwar 2021, the "
                            "clone reduction and Thm 3.8)", calibrated="epsilon", calibrated_range=(0.0, math.inf))
    return Policy("linucb-sdp-amp", K, init, draw, select,
                  update, lambda params, horizon=None: _check_batch(params), _defaults(AmpParams),
                  accountant=accountant, options={"width": width}, bind_horizon=_bind_alpha, contextual=True,
                  run_major=True)


def vec_resolved(params, dim: int):
    """``params`` with g and b filled where ``None`` (`vec_precision`, `vec_trials`: b follows ε, traceable), as the
    step, the widths and the accountant use them."""
    if params.precision is None:
        params = params._replace(precision=vec_precision(params.batch, dim).astype(params.batch.dtype))
    if params.trials is None:
        params = params._replace(trials=vec_trials(params, dim).astype(params.batch.dtype))
    return params


def vec_profile(params, dim: int) -> shuffle.BinomialSum:
    """The claim of one batch of SDP-Vec for resolved parameters (`vec_resolved`; `accounting.shuffle.BinomialSum`):
    N = B b trials,
    shifts of ℓ2 norm ≤ (g/L_c) Δ + 2√m over m = d(d + 1)/2 + d coordinates, each ≤ min(⌊that⌋, ⌈2g⌉)."""
    p = _host(params)
    m = dim * (dim + 1) // 2 + dim
    g = float(p.precision)
    shift = g / float(gram.coordinate_bound(p.feature_bound, p.reward_bound)) * float(
        gram.report_sensitivity(p.feature_bound, p.reward_bound)) + 2 * math.sqrt(m)
    return shuffle.BinomialSum(int(round(float(p.batch) * float(p.trials))), BIT_PROBABILITY, shift,
                               max(1, min(int(math.floor(shift)), int(math.ceil(2 * g)))), m)


def linucb_sdp_vec(num_arms: int, dim: int, *, width: str = "theory") -> Policy:
    """SDP-Vec LinUCB: batched LinUCB on a shuffled binomial vector sum, shuffle (ε, δ)-DP (Chowdhury & Zhou 2022).

    The module docstring has the protocol, the server (``width``: `WIDTHS`) and the claim. Parameters:
    `VecParams`."""
    checks.known_name("linucb-sdp-vec width", width, WIDTHS)
    d = checks.positive_int("dim", dim)
    K = checks.positive_int("num_arms", num_arms)

    def message(key, x, y, params, uniforms):
        params = vec_resolved(params, d)
        return gram.vector_sum_encode(key, x, y, params.precision, params.feature_bound, params.reward_bound, uniforms)

    def draw(key, steps, params):
        k_u, k_r = jax.random.split(key)
        m = d * (d + 1) // 2 + d
        rounding = jax.random.uniform(k_r, (steps, m)) if m <= gram.PREDRAWN_MAX else None
        return jax.random.uniform(k_u, (steps,)), rounding

    def batch_noise(key, params):
        """The batch's Bin(B b, p) noise messages per coordinate, drawn at once (the sum of its users' Bin(b, p):
        the analyzer's view has that law)."""
        params = vec_resolved(params, d)
        return gram.vector_sum_noise(key, d, params.batch * params.trials, BIT_PROBABILITY, params.precision,
                                     params.feature_bound, params.reward_bound)

    init, select, update = _batch_server(K, d, width, lambda p: vec_sigma(vec_resolved(p, d)), message, batch_noise)

    def validate(params, horizon=None):
        _check_batch(params)
        if params.precision is not None:
            checks.in_range("precision", params.precision, 0.0, math.inf, low_open=True, high_open=True)
        if params.trials is not None:
            checks.in_range("trials", params.trials, 1.0, 2.0 ** 31 - 1)
            checks.integral("trials", params.trials)

    def level(params, horizon, num_arms):
        return {"profile": vec_profile(vec_resolved(_bind_alpha(params, horizon), d), d)}

    accountant = Accountant("approx-dp", "shuffle", level, "one user of a shuffled batch replaced",
                            "Chowdhury & Zhou 2022 (SDP-Vec, Cheu, Joseph, Mao & Peng 2022's vector sum): the exact "
                            "moments of the shifted binomial per coordinate, by a Chernoff bound (Canonne, Kamath & "
                            "Steinke 2020, Prop. 12)", calibrated="epsilon", calibrated_range=(VEC_MIN_EPSILON, math.inf))
    return Policy("linucb-sdp-vec", K, init, draw, select,
                  update, validate, _defaults(VecParams, None, None), accountant=accountant,
                  options={"width": width}, bind_horizon=_bind_alpha, contextual=True)


# The registrations (`jaxbandit.registry`): claims, audits, golden cases (batches of 4 on the private linear
# policies' instance).
_GOLDEN_ENV = {"num_arms": 6, "dim": 3, "instance": "chowdhury-zhou"}
POLICIES.register("linucb-sdp-amp", linucb_sdp_amp, private=True, audits=("linucb-sdp-amp", "gram-local-report"),
                  golden=Golden(env="linear", env_params=_GOLDEN_ENV,
                                params={"epsilon": 50.0, "feature_bound": 1.5, "batch": 4.0}, full_horizon=True))
POLICIES.register("linucb-sdp-vec", linucb_sdp_vec, private=True, audits=("vector-sum",),
                  golden=Golden(env="linear", env_params=_GOLDEN_ENV,
                                params={"epsilon": 50.0, "feature_bound": 1.5, "batch": 4.0}, full_horizon=True))
