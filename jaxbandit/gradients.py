"""Gradients of a policy's expected regret with respect to its continuous parameters, through the simulator.

A bandit policy's arm choice is an argmax, so the pathwise derivative of the simulated regret is zero almost
everywhere: ``jax.grad`` through `jaxbandit.rollout` returns 0. Two estimators of the gradient of the expected
pseudo-regret at the horizon, R(θ) = E[Σ_t Δ_{A_t}] (the expectation of the paper's realized regret too):

* `score_gradient`: unbiased, the likelihood-ratio (score-function) estimator of Williams (1992) in the form of
  Boutilier et al., "Differentiable Meta-Learning of Bandit Policies", NeurIPS 2020, Eq. (4):
  ∇R = E[Σ_s ∇ log π_s(A_s | H_s) (C_s − b_s)], where C_s = Σ_{t≥s} Δ_{A_t} is the cost from step s on (earlier
  costs cannot depend on A_s) and b_s a baseline. The policy supplies log π (its ``log_prob``: Gaussian TS and
  modified TS by quadrature, ε-greedy in closed form). The baseline is the mean remaining pseudo-regret
  B(T) − B(s−1) of independent pilot runs, so it does not depend on A_s and leaves the estimator unbiased; it is
  what makes the estimator usable (without it the variance grows with R(T)²). Memory is O(1) per run whatever T:
  with D_t = G_t − B(t) (cumulative cost minus baseline) and E_t = Σ_{s≤t} ∇ log π_s, the estimator is
  D_T E_T − Σ_s ∇ log π_s D_{s−1}, accumulated step by step in the policy state (no stored trajectory).
  Integer parameters (b, the pre-pulls) are relaxed: at a real β the objective is the rounding expectation
  (1 − p) R(⌊β⌋) + p R(⌊β⌋ + 1), p = β − ⌊β⌋, computed exactly by simulating both neighbours with common random
  numbers, so its β-derivative R(⌊β⌋+1) − R(⌊β⌋) is a paired difference (at an integer β, the right derivative).
* `smoothed_gradient`: the gradient of the objective smoothed over a window of half-width σ in chosen coordinates
  u (e.g. u = log(b + 1)), by antithetic pairs u ± σ·v, v a Rademacher vector (SPSA; Spall 1992), whose two points
  share every random draw (the engine's common random numbers). For one coordinate it is exactly the derivative of
  the uniform-window average (1/2σ)∫_{u−σ}^{u+σ} R, a biased estimate of ∇R by about σ² R'''(u)/6; cheap and
  low-variance, it works for any parameter of any component (no ``log_prob`` needed).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit import spec as specs
from jaxbandit.simulation import MAX_SEED, final_state, run_spec
from jaxbandit.spec import Spec
from jaxbandit.types import Policy, SimParams, summarize, with_fields

__all__ = ["Gradient", "score_gradient", "smoothed_gradient", "final_regret"]


class Gradient(NamedTuple):
    """A gradient estimate of the expected pseudo-regret at the horizon.

    Attributes:
      names: the parameters (or coordinates) differentiated, in the order of ``grad``.
      value: the estimated expected pseudo-regret at the point (for `smoothed_gradient`: averaged over the pairs).
      value_se: its standard error over runs.
      grad: f[P] the gradient estimate.
      grad_se: f[P] its standard error over runs.
      agent_steps: simulated agent-steps spent (runs × horizon, pilot runs included).
      samples: f[runs, P] the per-run estimates ``grad`` averages (for the standard error of a combination, e.g. a
        chain rule: ``(samples @ w).std(ddof=1) / sqrt(runs)``).
    """

    names: tuple
    value: float
    value_se: float
    grad: np.ndarray
    grad_se: np.ndarray
    agent_steps: int
    samples: np.ndarray

    def __repr__(self) -> str:
        return summarize(self)


def _mean_se(x):
    x = np.asarray(x, np.float64)
    n = x.shape[0]
    return x.mean(0), (x.std(0, ddof=1) / math.sqrt(n) if n > 1 else np.full(x.shape[1:], np.nan))


def _finite(name, *arrays):
    for arr in arrays:
        if not np.all(np.isfinite(arr)):
            raise FloatingPointError(f"{name} came out non-finite; parameters or rewards produced a non-finite value")


def final_regret(spec: Spec, points: Sequence[SimParams] | None = None, *, runs: int, seed: int) -> np.ndarray:
    """Pseudo-regret at the horizon, f[len(points), runs], of ``points`` (default: the spec's own) of a resolved
    configuration, with common random numbers across points (the estimators' and the tuner's evaluation)."""
    runs = checks.positive_int("runs", runs)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    spec = dataclasses.replace(spec, record_times=np.array([spec.horizon]))
    if points is not None:
        spec = spec.with_points(points)
    state = final_state(spec, runs, seed)
    out = np.asarray(state.pseudo[0]).reshape(len(spec.points), runs)
    _finite("the pseudo-regret", out)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Score function


class ScoreParams(NamedTuple):
    inner: Any          # the policy's params
    gaps: jax.Array     # f[K]: Δ_a of the env (the cost of each arm)
    base_t: jax.Array   # f[n]: times of the baseline curve, starting at 0
    base_v: jax.Array   # f[n]: B(t), the pilot runs' mean pseudo-regret at those times


class ScoreState(NamedTuple):
    inner: Any
    step: jax.Array     # int32: steps played
    cost: jax.Array     # f: G_t, pseudo-regret so far
    score: jax.Array    # f[P]: E_t = Σ_{s≤t} ∇ log π_s(A_s)
    cross: jax.Array    # f[P]: Σ_{s≤t} ∇ log π_s(A_s) (G_{s−1} − B(s−1))


_SCORED: dict = {}


def scored(policy: Policy, wrt: tuple) -> Policy:
    """``policy`` with the score-function accumulators of the float parameters ``wrt`` in its state (memoized, so
    the engine's compilations are reused). Its params are `ScoreParams`; it plays exactly as ``policy`` (same
    draws, same arms)."""
    key = (id(policy), wrt)
    if key in _SCORED:
        return _SCORED[key][1]
    _needs_log_prob(policy)

    def init(params: ScoreParams):
        zeros = jnp.zeros(len(wrt), params.gaps.dtype)
        return ScoreState(policy.init(params.inner), jnp.zeros((), jnp.int32), jnp.zeros((), params.gaps.dtype),
                          zeros, zeros)

    def select(rng, state: ScoreState, params: ScoreParams):
        return policy.select(rng, state.inner, params.inner)

    def update(rng, state: ScoreState, arm, obs, params: ScoreParams):
        def log_prob(values):
            return policy.log_prob(state.inner, arm, params.inner._replace(**dict(zip(wrt, values))))

        psi = jnp.stack(jax.jacfwd(log_prob)(tuple(getattr(params.inner, f) for f in wrt))).astype(state.cost.dtype)
        base = jnp.interp(state.step.astype(state.cost.dtype), params.base_t, params.base_v)
        score = state.score + psi
        return ScoreState(policy.update(rng, state.inner, arm, obs, params.inner), state.step + 1,
                          state.cost + params.gaps[arm], score, state.cross + psi * (state.cost - base))

    wrapped = Policy(policy.name, policy.num_arms, init, lambda key, steps, params: policy.draw(key, steps,
                                                                                                   params.inner),
                     select, update, lambda params, horizon=None: policy.validate(params.inner, horizon), None,
                     policy.reward_range, policy.accountant, policy.options)
    _SCORED[key] = (policy, wrapped)
    return wrapped


def _needs_log_prob(policy: Policy) -> None:
    if policy.log_prob is None:
        raise ValueError(f"policy {policy.name!r} does not expose the log-probability of its selection (its "
                         "log_prob), which the score-function gradient needs: use smoothed_gradient")


def _split_point(policy: Policy, at: Mapping[str, float]):
    """(float fields, the integer field or None) of ``at``, checked against the policy's params."""
    fields = policy.default_params._fields
    floats, integer = [], None
    for name, value in at.items():
        if name not in fields:
            raise ValueError(f"policy {policy.name!r} has no parameter {name!r}; its parameters: "
                             f"{', '.join(fields) or 'none'}")
        checks.in_range(name, value, 0.0 if np.issubdtype(np.asarray(getattr(policy.default_params, name)).dtype,
                                                            np.integer) else -math.inf)
        if np.issubdtype(np.asarray(getattr(policy.default_params, name)).dtype, np.integer):
            if integer is not None:
                raise ValueError(f"only one integer parameter can be relaxed at a time, got {integer!r} and {name!r}")
            integer = name
        else:
            floats.append(name)
    if not at:
        raise ValueError("give at least one parameter to differentiate (at={name: value})")
    return tuple(floats), integer


def score_gradient(env, policy=None, privatizer=None, *, at: Mapping[str, float], env_params=None,
                   policy_params=None, policy_options=None, privatizer_params=None, horizon: int | None = None,
                   runs: int, seed: int = 0, baseline_runs: int | None = None) -> Gradient:
    """Unbiased score-function estimate of ∇ E[pseudo-regret at T] in the policy parameters named in ``at``.

    Args:
      env, policy, privatizer, env_params, policy_params, policy_options, privatizer_params, horizon: as for
        `jaxbandit.simulate`; or ``env`` a resolved `jaxbandit.spec.Spec` (with its horizon) and none of the
        others. The policy must expose ``log_prob`` (modified-thompson, gaussian-thompson, epsilon-greedy do).
      at: ``{parameter: value}``, the point and the parameters differentiated, e.g. ``{"b": 100.3, "c": 40.0}``. An
        integer parameter (b) may take a real value β ≥ 0: both ⌊β⌋ and ⌊β⌋ + 1 are simulated (module docstring).
      runs, seed: the simulation (runs share keys across the two neighbours of a relaxed integer).
      baseline_runs: independent pilot runs for the baseline (default max(8, runs // 4)), seeded from ``seed``.

    Returns:
      `Gradient` whose ``grad`` follows the order of ``at``.
    """
    if isinstance(env, Spec):
        if any(x is not None for x in (policy, privatizer, env_params, policy_params, policy_options,
                                      privatizer_params, horizon)):
            raise ValueError("score_gradient(spec, ...) takes the configuration from the spec: give no components, "
                             "parameters or horizon beside it")
        spec = env
    else:
        if horizon is None:
            raise ValueError("score_gradient needs a horizon")
        spec = specs.resolve(env, policy, privatizer, env_params=env_params, policy_params=policy_params,
                             policy_options=policy_options, privatizer_params=privatizer_params, horizon=horizon)
    horizon = spec.horizon
    runs = checks.positive_int("runs", runs, minimum=2)
    baseline_runs = checks.positive_int("baseline_runs", max(8, runs // 4) if baseline_runs is None
                                        else baseline_runs)
    policy, params = spec.policy, spec.params
    _needs_log_prob(policy)
    floats, integer = _split_point(policy, at)
    wrt = tuple(floats)
    if integer is None:
        lows = [dict(at)]
    else:
        beta = float(at[integer])
        lows = [{**at, integer: math.floor(beta)}, {**at, integer: math.floor(beta) + 1}]
    points = [params._replace(policy=with_fields(params.policy, values)) for values in lows]
    points = spec.with_points(points).points
    # the baseline B(t): pilot runs at the first point, on keys no estimation run uses
    pilot_seed = (seed + 0x9E3779B9) % (MAX_SEED + 1)
    times = np.unique(np.concatenate([[1], np.geomspace(1, horizon, 60).round(), np.linspace(1, horizon, 60).round()]))
    pilot_spec = dataclasses.replace(spec.with_points(points[:1]), record_times=times.astype(np.int64), grid=())
    pilot = run_spec(pilot_spec, runs=baseline_runs, seed=pilot_seed, progress=False)
    base_t = jnp.asarray(np.concatenate([[0.0], times]))
    base_v = jnp.asarray(np.concatenate([[0.0], pilot.pseudo_regret.mean(0)]))
    means = np.asarray(spec.env.means(params.env))
    gaps = jnp.asarray(means.max() - means)
    wrapped = scored(policy, wrt)
    wrapped_points = [SimParams(p.env, ScoreParams(p.policy, gaps.astype(base_v.dtype), base_t.astype(base_v.dtype),
                                                   base_v), p.privatizer) for p in points]
    scored_spec = dataclasses.replace(spec, policy=wrapped, record_times=np.array([horizon])).with_points(
        wrapped_points)
    final = final_state(scored_spec, runs, seed).run.policy
    b_total = float(np.interp(horizon, base_t, base_v))
    cost = np.asarray(final.cost, np.float64).reshape(len(points), runs)
    score = np.asarray(final.score, np.float64).reshape(len(wrt), len(points), runs)
    cross = np.asarray(final.cross, np.float64).reshape(len(wrt), len(points), runs)
    grads = (cost - b_total) * score - cross  # (P, points, runs): D_T E_T − Σ_s ψ_s D_{s−1}
    _finite("the score-function gradient", cost, grads)
    if integer is None:
        value, g = cost[0], grads[:, 0]
        per_run = g.T
        names = wrt
    else:
        p = beta - math.floor(beta)
        value = (1 - p) * cost[0] + p * cost[1]
        slope = cost[1] - cost[0]
        g = (1 - p) * grads[:, 0] + p * grads[:, 1]
        per_run = np.concatenate([g.T, slope[:, None]], axis=1)
        names = wrt + (integer,)
    order = [names.index(name) for name in at]
    per_run = per_run[:, order]
    v, v_se = _mean_se(value)
    g_mean, g_se = _mean_se(per_run)
    return Gradient(tuple(at), float(v), float(v_se), g_mean, g_se,
                    int(horizon * (runs * len(points) + baseline_runs)), per_run)


# ---------------------------------------------------------------------------------------------------------------
# Smoothed (antithetic, common random numbers)


def smoothed_gradient(spec: Spec, point: Callable[[np.ndarray, float], SimParams], u, *, sigma: float, runs: int,
                      seed: int = 0, rounding: float | None = None, directions: int = 1,
                      rng: np.random.Generator | None = None) -> Gradient:
    """SPSA / antithetic estimate of the gradient of the σ-smoothed expected pseudo-regret in coordinates u.

    Args:
      spec: the resolved configuration (`jaxbandit.spec.resolve`, with its horizon).
      point: ``(u, rounding) -> SimParams`` (host-side) the parameters at coordinates u, e.g. b = round(e^u − 1)
        and c on the privacy budget's boundary; ``rounding`` in [0, 1) is the uniform a randomised rounding of an
        integer should use, shared by the two points of a pair.
      u: f[P] the coordinates; sigma: half-width of the smoothing window in u.
      directions: antithetic pairs per estimate (Rademacher directions; with one coordinate the direction is ±1,
        so one pair is the exact central difference of the window average).
      rng: numpy Generator for directions and rounding uniforms (default: seeded from ``seed``).

    Returns:
      `Gradient` over the coordinates (names u0, u1, ...); ``value`` averages the 2·directions points.
    """
    u = np.atleast_1d(np.asarray(u, np.float64))
    sigma = float(checks.in_range("sigma", sigma, 0.0, low_open=True))
    rng = np.random.default_rng(seed) if rng is None else rng
    dirs = rng.choice([-1.0, 1.0], size=(directions, len(u)))
    uniforms = rng.random(directions) if rounding is None else np.full(directions, rounding)
    points = []
    for v, w in zip(dirs, uniforms):
        points += [point(u + sigma * v, w), point(u - sigma * v, w)]
    out = final_regret(spec, points, runs=runs, seed=seed)
    plus, minus = out[0::2], out[1::2]  # (directions, runs)
    per_run = np.einsum("dr,dp->rp", (plus - minus) / (2 * sigma), 1.0 / dirs) / directions
    g, g_se = _mean_se(per_run)
    v, v_se = _mean_se(out.mean(0))
    return Gradient(tuple(f"u{i}" for i in range(len(u))), float(v), float(v_se), g, g_se,
                    int(spec.horizon * runs * len(points)), per_run)
