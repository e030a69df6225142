"""One validation layer for every entry point (`rollout`, `simulate`, `sweep`, the CLI, experiments).

Each component validates its own parameters (its ``validate``); what involves two components or the run as a whole
is checked here, once: a policy built for the env's number of arms, per-arm parameters of the right length, the
env's reward support against the rewards the privatizer accepts and the observations the policy needs, the horizon
and the record times. Errors are ``ValueError`` naming the parameter, its value and the valid range, raised on the
host before anything is compiled.
"""
from __future__ import annotations

from typing import Mapping

import jax
import numpy as np

from jaxbandit import checks, envs, policies, privatizers
from jaxbandit.types import Env, Policy, Privatizer, SimParams

__all__ = ["components", "resolve", "check", "check_horizon", "record_times", "horizon_and_records", "MAX_HORIZON"]

MAX_HORIZON = 2 ** 31 - 1  # time and pull counters are int32


def record_times(horizon: int, num: int = 100) -> np.ndarray:
    """Record times in [1, horizon] (t = steps completed): half log-spaced, half evenly spaced, always T."""
    horizon = checks.positive_int("horizon", horizon)
    num = checks.positive_int("record", num)
    half = max(num // 2, 1)
    log = np.geomspace(1, horizon, half)
    lin = np.linspace(horizon / half, horizon, half)
    times = np.concatenate([np.round(log), np.round(lin), [horizon]])
    return np.unique(np.clip(times, 1, horizon)).astype(np.int64)  # short horizons: T/half rounds to 0 below T = 25


def horizon_and_records(horizon, record=None) -> tuple[int, np.ndarray]:
    """``(T, record times)``: ``record`` is None (the default 100 times), a number of times, or an explicit
    strictly increasing array in [1, T]."""
    horizon = checks.positive_int("horizon", horizon)
    if horizon > MAX_HORIZON:
        raise ValueError(f"horizon={horizon} is outside the valid range [1, {MAX_HORIZON}] (int32 step counters)")
    if record is None or np.ndim(record) == 0:
        return horizon, record_times(horizon, 100 if record is None else record)
    times = np.asarray(record)
    if (times.ndim != 1 or len(times) == 0 or not np.all(np.isfinite(times)) or np.any(times != np.round(times))
            or np.any(np.diff(times) <= 0) or times[0] < 1 or times[-1] > horizon):
        raise ValueError(f"record times must be strictly increasing integers in [1, horizon={horizon}], got "
                         f"{checks._fmt(times)}")
    return horizon, times.astype(np.int64)


def components(env, policy, privatizer=None) -> tuple[Env, Policy, Privatizer]:
    """The component objects for objects or registry names (policies are built for the env's K arms)."""
    if isinstance(env, str):
        if env not in envs.INSTANCES and env in envs.REGISTRY:
            raise ValueError(f"environment {env!r} needs its parameters to know its arms: pass the object of "
                             f"jaxbandit.envs.make({env!r}, ...) (or a fixed instance: {', '.join(envs.INSTANCES)})")
        env, _ = envs.make(env)
    _expect("env", env, Env)
    if isinstance(policy, str):
        policy = policies.get(policy, env.num_arms)
    _expect("policy", policy, Policy)
    if policy.num_arms != env.num_arms:
        raise ValueError(f"policy {policy.name!r} is built for {policy.num_arms} arms but environment "
                         f"{env.name!r} has {env.num_arms}")
    if privatizer is None:
        privatizer = "identity"
    if isinstance(privatizer, str):
        privatizer, _ = privatizers.make(privatizer)
    _expect("privatizer", privatizer, Privatizer)
    return env, policy, privatizer


def resolve(env, policy, privatizer=None, *, env_params=None, policy_params=None, privatizer_params=None):
    """``(env, policy, privatizer, SimParams)`` from objects or registry names and their parameters.

    For a registry name, the parameters are the keyword arguments of its ``make``. For an object, they are either
    a Mapping of fields replacing its ``default_params`` (validated and cast to their dtypes) or a complete params
    NamedTuple. Everything is checked (`check`) before it is returned.
    """
    if isinstance(env, str):
        env, env_p = envs.make(env, **dict(env_params or {}))
    else:
        _expect("env", env, Env)
        env_p = _object_params(env, env_params)
    if isinstance(policy, str):
        policy, policy_p = policies.make(policy, env.num_arms, **dict(policy_params or {}))
    else:
        _expect("policy", policy, Policy)
        policy_p = _object_params(policy, policy_params)
    if privatizer is None:
        privatizer = "identity"
    if isinstance(privatizer, str):
        privatizer, priv_p = privatizers.make(privatizer, **dict(privatizer_params or {}))
    else:
        _expect("privatizer", privatizer, Privatizer)
        priv_p = _object_params(privatizer, privatizer_params)
    env, policy, privatizer = components(env, policy, privatizer)
    params = checks.strong_dtypes(SimParams(env_p, policy_p, priv_p))
    check(env, policy, privatizer, params)
    return env, policy, privatizer, params


def check(env: Env, policy: Policy, privatizer: Privatizer, params) -> None:
    """Every check of one configuration: each component's own ``validate`` and the cross-component ones.

    Shapes are always checked; values only where they are concrete (inside ``jit``/``vmap``/``grad`` the caller
    that made them concrete checks them)."""
    for name, leaf in zip(getattr(params.privatizer, "_fields", ()), params.privatizer):
        if np.ndim(leaf) == 1 and np.shape(leaf)[0] != env.num_arms:
            raise ValueError(f"privatizer {privatizer.name!r} parameter {name} is per-arm with {np.shape(leaf)[0]} "
                             f"entries, but environment {env.name!r} has {env.num_arms} arms")
    if any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves(params)):
        return
    env.validate(params.env)
    policy.validate(params.policy)
    privatizer.validate(params.privatizer)
    low, high = env.support(params.env)
    if privatizer.reward_range is not None:
        need = privatizer.reward_range
        if low < need[0] or high > need[1]:
            raise ValueError(f"privatizer {privatizer.name!r} needs rewards in [{need[0]:g}, {need[1]:g}] but "
                             f"environment {env.name!r} has support [{low:g}, {high:g}]")
    if privatizer.output_range is not None:
        low, high = privatizer.output_range
    if policy.reward_range is not None:
        need = policy.reward_range
        if low < need[0] or high > need[1]:
            raise ValueError(f"policy {policy.name!r} needs observations in [{need[0]:g}, {need[1]:g}] but gets "
                             f"values in [{low:g}, {high:g}] (clip a Gaussian env with low=0, high=1?)")


def check_horizon(policy: Policy, params, horizon: int):
    """``params`` with the policy's horizon-dependent parameters filled (its ``bind_horizon``), then checked against
    the horizon (its ``check_horizon``, where concrete)."""
    if policy.bind_horizon is not None:
        params = params._replace(policy=policy.bind_horizon(params.policy, horizon))
    if policy.check_horizon is not None and not any(isinstance(x, jax.core.Tracer)
                                                    for x in jax.tree.leaves(params.policy)):
        policy.check_horizon(params.policy, horizon)
    return params


def _expect(role, obj, kind):
    if not isinstance(obj, kind):
        raise ValueError(f"{role} must be a registry name or a jaxbandit.{kind.__name__}, got {type(obj).__name__} "
                         f"{obj!r:.80}")


def _object_params(component, params):
    """A user object's params: its defaults, defaults with fields replaced (a Mapping), or a params NamedTuple."""
    if params is None:
        return component.default_params
    if isinstance(params, Mapping):
        return checks.with_params(component, **params)
    if type(params) is not type(component.default_params):
        raise ValueError(f"parameters of {component.name!r} must be a Mapping of fields or a "
                         f"{type(component.default_params).__name__}, got {type(params).__name__}")
    return params
