"""One configuration, resolved and validated once: `resolve` turns registry names or component objects, their
parameters and build-time options, a horizon, record times, a grid and a simulator into an immutable `Spec`, which
every driver consumes (`simulate`/`sweep`, the gradient estimators, the tuner, the epoch simulation).

This is the one layer that knows the registries: below it the engine takes component objects only
(`jaxbandit.engine`), above it the drivers never resolve a name again. Errors are ``ValueError`` naming the
parameter, its value and the valid range, raised on the host before anything is compiled.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, engine, envs, epochs, policies, privatizers
from jaxbandit.engine import BLOCK, UNROLL, check, horizon_and_records, record_times
from jaxbandit.types import IDENTITY, Env, Policy, Privatizer, SimParams, Simulator

__all__ = ["Spec", "resolve", "components", "rollout", "SIMULATORS", "record_times"]

#: The simulators by name (`jaxbandit.types.Simulator`): the engine (every policy), or `jaxbandit.epochs` (a policy
#: with an epoch schedule, phased elimination).
SIMULATORS = {"steps": engine.SIMULATOR, "epochs": epochs.SIMULATOR}


@dataclasses.dataclass(frozen=True, eq=False)
class Spec:
    """A resolved, validated configuration (`resolve`).

    Attributes:
      env, policy, privatizer: the component objects (a policy built with its options for the env's K arms).
      params: the base point (`SimParams`), validated; bound to the horizon (the T known to a policy, β = 1/T)
        when there is one.
      horizon: T, or ``None`` for a spec of components and parameters only (e.g. to build a `rollout`).
      record_times: the times the regrets are recorded at (``None`` without a horizon).
      grid: the grid's axes, ``((paths, values), ...)``: a path per swept params leaf (``"policy.epsilon"``), joint
        paths sweeping together; empty for one point.
      points: every grid point (the Cartesian product, in C order), validated and bound.
      simulator: the `jaxbandit.types.Simulator` (``SIMULATORS["steps"]``, the engine, or ``SIMULATORS["epochs"]``,
        `jaxbandit.epochs`).
      realized: whether the realized regret is recorded (False: the pseudo-regret only, which lets the epoch
        simulator skip the segments that decide nothing).
      given: how each component was given, for the saved configuration: ``{role: (registry name or None,
        keyword arguments or None)}``.

    ``env, policy, privatizer, params = spec`` unpacks (and ``spec[:3]`` indexes) it as the tuple `resolve` returned
    before 0.4.
    """

    env: Env
    policy: Policy
    privatizer: Privatizer
    params: SimParams
    horizon: int | None = None
    record_times: np.ndarray | None = None
    grid: tuple = ()
    points: tuple = ()
    simulator: Simulator = engine.SIMULATOR
    given: Mapping = dataclasses.field(default_factory=dict)
    realized: bool = True

    def __iter__(self):
        return iter((self.env, self.policy, self.privatizer, self.params))

    def __getitem__(self, index):
        return tuple(self)[index]

    @property
    def grid_shape(self) -> tuple:
        return tuple(len(values) for _, values in self.grid)

    def with_points(self, points) -> "Spec":
        """This spec with other parameter points (a flat list, no grid axes), each validated and bound: the
        tuner's and the gradient estimators' evaluations."""
        points = tuple(self._checked(p) for p in points)
        return dataclasses.replace(self, grid=(("point", list(range(len(points)))),), points=points)

    def _checked(self, point: SimParams) -> SimParams:
        point = checks.strong_dtypes(point)
        check(self.env, self.policy, self.privatizer, point)
        return engine.bind(self.policy, point, self.horizon) if self.horizon is not None else point

    def stacked(self, runs: int) -> SimParams:
        """Every point repeated for its ``runs`` runs, batch axis last: leaves (..., points × runs), point-major."""
        stacked = jax.tree.map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *self.points)
        return jax.tree.map(lambda x: jnp.moveaxis(jnp.repeat(x, runs, axis=0), 0, -1), stacked)

    def rollout(self, unroll: int = UNROLL):
        """``run(key, params) -> Trace`` of this configuration's simulator (pure; `jaxbandit.engine.rollout`)."""
        self._needs_horizon()
        return self.simulator.rollout(self.env, self.policy, self.privatizer, horizon=self.horizon,
                                      record_times=self.record_times, unroll=unroll, realized=self.realized)

    def _needs_horizon(self):
        if self.horizon is None:
            raise ValueError("this spec has no horizon: resolve(..., horizon=T)")

    def config(self, runs: int, seed: int) -> dict:
        """The saved configuration (`jaxbandit.Results.config`): how to re-create every component (a name's keyword
        arguments, or an object's resolved params), the policy's options, the grid, horizon, runs, seed and the
        record times."""
        self._needs_horizon()
        out = {}
        resolved = {"env": self.params.env, "policy": self.params.policy, "privatizer": self.params.privatizer}
        names = {"env": self.env.name, "policy": self.policy.name, "privatizer": self.privatizer.name}
        objects = []
        for role in ("env", "policy", "privatizer"):
            name, kwargs = self.given.get(role, (None, None))
            out[role] = name if name is not None else names[role]
            if name is None:
                objects.append(role)
                kwargs = {k: v for k, v in resolved[role]._asdict().items() if v is not None}
            out[f"{role}_params"] = jsonable(dict(kwargs or {}))
        if dict(self.policy.options):
            out["policy_options"] = dict(self.policy.options)
        out.update({"objects": objects,
                    "grid": [{"paths": list(paths), "values": jsonable(values)} for paths, values in self.grid],
                    "horizon": self.horizon, "runs": runs, "seed": seed, "block": BLOCK,
                    "record_times": self.record_times.tolist()})
        if self.simulator.name != "steps":  # absent for the engine: older configurations keep their fingerprints
            out["simulator"] = self.simulator.name
        if not self.realized:  # likewise absent by default
            out["realized"] = False
        return out


def components(env, policy, privatizer=None, policy_options: Mapping | None = None):
    """The component objects for objects or registry names (a policy name is built with ``policy_options`` for the
    env's K arms; an env name must be a fixed instance such as ``"testbed20"``)."""
    if isinstance(env, str):
        if env not in envs.INSTANCES and env in envs.REGISTRY:
            raise ValueError(f"environment {env!r} needs its parameters to know its arms: pass the object of "
                             f"jaxbandit.envs.make({env!r}, ...) (or a fixed instance: {', '.join(envs.INSTANCES)})")
        env, _ = envs.make(env)
    _expect("env", env, Env)
    policy = _policy_object(policy, env, policy_options)
    if privatizer is None:
        privatizer = IDENTITY
    if isinstance(privatizer, str):
        privatizer, _ = privatizers.make(privatizer)
    _expect("privatizer", privatizer, Privatizer)
    engine.check_arms(env, policy)
    return env, policy, privatizer


def _policy_object(policy, env: Env, options):
    if isinstance(policy, str):
        return policies.get(policy, env.num_arms, env.dim, **dict(options or {}))
    _expect("policy", policy, Policy)
    if options:
        raise ValueError(f"policy_options={dict(options)} apply to a registry name; policy {policy.name!r} is an "
                         "object, built with its options already")
    return policy


def resolve(env, policy, privatizer=None, *, env_params=None, policy_params=None, policy_options=None,
            privatizer_params=None, horizon: int | None = None, record=None, grid: Mapping | None = None,
            simulator: str | Simulator = "steps", realized: bool = True) -> Spec:
    """The `Spec` of a configuration, checked once.

    Args:
      env, policy, privatizer: registry names (``jaxbandit list``) or component objects (`jaxbandit.Env`,
        `Policy`, `Privatizer`, e.g. one you wrote). ``privatizer=None``: the identity channel.
      env_params, policy_params, privatizer_params: for a name, the keyword arguments of its ``make``; for an
        object, a Mapping of fields replacing its ``default_params`` (validated and cast to their dtypes) or a
        complete params NamedTuple.
      policy_options: a policy name's build-time options (e.g. ``{"release": "float"}``; `jaxbandit.policies.
        option_names` lists them).
      horizon: T (``None``: components and parameters only). record: number of record times (default 100) or an
        explicit increasing array in [1, T]. grid: ``{path: values}`` (see `jaxbandit.sweep`).
      simulator: a name of `SIMULATORS` or a `jaxbandit.types.Simulator`. realized: record the realized regret too (default) or the pseudo-regret
        only (`Results.regret` is then None).

    Unpacks as ``env, policy, privatizer, params = resolve(...)``.
    """
    if not isinstance(simulator, Simulator):
        checks.known_name("simulator", simulator, SIMULATORS)
        simulator = SIMULATORS[simulator]
    if not isinstance(realized, (bool, np.bool_)):
        raise ValueError(f"realized={realized!r} must be True (record the realized regret too) or False (the "
                         "pseudo-regret only)")
    if horizon is not None:
        horizon, times = horizon_and_records(horizon, record)
    else:
        times = None
    given = {}
    if isinstance(env, str):
        given["env"] = (env, dict(env_params or {}))
        env, env_p = envs.make(env, **dict(env_params or {}))
    else:
        _expect("env", env, Env)
        env_p = _object_params(env, env_params)
    _at_least_two_arms(env, env_params)
    if isinstance(policy, str):
        given["policy"] = (policy, dict(policy_params or {}))
        policy, policy_p = policies.make(policy, env.num_arms, options=policy_options, dim=env.dim,
                                         **dict(policy_params or {}))
    else:
        policy = _policy_object(policy, env, policy_options)
        if isinstance(policy_params, Mapping):
            policies.moved_option(policy, policy_params)
        policy_p = _object_params(policy, policy_params)
    if privatizer is None:
        privatizer = "identity"
    if isinstance(privatizer, str):
        given["privatizer"] = (privatizer, dict(privatizer_params or {}))
        privatizer, priv_p = privatizers.make(privatizer, **dict(privatizer_params or {}))
    else:
        _expect("privatizer", privatizer, Privatizer)
        priv_p = _object_params(privatizer, privatizer_params)
    env, policy, privatizer = components(env, policy, privatizer)
    base = checks.strong_dtypes(SimParams(env_p, policy_p, priv_p))
    check(env, policy, privatizer, base)
    reason = simulator.unsupported(env, policy, privatizer)
    if reason:
        raise ValueError(reason)
    axes, points = _grid_points(base, grid or {})
    spec = Spec(env, policy, privatizer, base, horizon, times, tuple(axes), (), simulator, given, bool(realized))
    points = tuple(spec._checked(p) for p in points)
    bound = points[0] if not axes else spec._checked(base)
    return dataclasses.replace(spec, params=bound, points=points)


def rollout(env, policy, privatizer=None, *, horizon: int, record_times=None, unroll: int = UNROLL,
            policy_options: Mapping | None = None):
    """`jaxbandit.engine.rollout` of objects or registry names (a policy name built with ``policy_options`` for the
    env's arms; an env name must be a fixed instance such as ``"testbed20"``, since a family's K comes from its
    parameters: pass ``envs.make(name, **params)[0]`` otherwise)."""
    env, policy, privatizer = components(env, policy, privatizer, policy_options)
    return engine.rollout(env, policy, privatizer, horizon=horizon, record_times=record_times, unroll=unroll)


def _at_least_two_arms(env: Env, env_params) -> None:
    """A bandit chooses between arms: a 1-arm environment would run with regret 0 and say nothing."""
    if env.num_arms < 2:
        given = ", ".join(f"{k}={v!r}" for k, v in dict(env_params or {}).items())
        raise ValueError(f"environment {env.name!r} has num_arms={env.num_arms}{f' ({given})' if given else ''}, "
                         "outside the valid range [2, inf): a bandit needs at least 2 arms to choose between")


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


# ------------------------------------------------------------------------------------------------------ grids
def _grid_points(base: SimParams, grid: Mapping):
    """Expand ``{path(s): values}`` into axes and the Cartesian product of params points."""
    axes = []
    for paths, values in grid.items():
        paths = (paths,) if isinstance(paths, str) else tuple(paths)
        values = list(values)
        if not values:
            raise ValueError(f"grid axis {','.join(paths)} has no values")
        for p in paths:
            _get(base, p)  # raises on unknown paths
        if len(paths) > 1:
            for v in values:
                if not isinstance(v, (tuple, list)) or len(v) != len(paths):
                    raise ValueError(f"grid axis {','.join(paths)} needs tuples of {len(paths)} values, got {v!r}")
        axes.append((paths, values))
    points = []
    for combo in itertools.product(*[values for _, values in axes]):
        p = base
        for (paths, _), value in zip(axes, combo):
            for path, v in zip(paths, value if len(paths) > 1 else (value,)):
                p = _set(p, path, v)
        points.append(p)
    return axes, points


def _split(path):
    parts = path.split(".")
    if parts[0] not in SimParams._fields or len(parts) < 2:
        raise ValueError(f"grid path {path!r} must look like env.<field>, policy.<field> or privatizer.<field>")
    return parts


def _get(obj, path):
    node = obj
    for part in _split(path):
        if part.isdigit() and isinstance(node, tuple):
            node = node[int(part)]
        elif part in getattr(node, "_fields", ()):
            node = getattr(node, part)
        else:
            fields = getattr(node, "_fields", ())
            raise ValueError(f"grid path {path!r}: no field {part!r} (valid: {', '.join(fields) or 'none'})")
    return node


def _set(obj, path, value):
    parts = _split(path)

    def rec(node, i):
        part = parts[i]
        if i == len(parts) - 1:
            old = getattr(node, part) if not part.isdigit() else node[int(part)]
            arr = checks.as_array(path, value, allow_inf=True)  # ranges: the component's validate
            if old is not None and arr.shape != np.shape(old):
                raise ValueError(f"grid value for {path} has shape {arr.shape}, expected {np.shape(old)}")
            dtype = jnp.zeros(()).dtype if old is None else jnp.asarray(old).dtype  # None: set by the run (T, β)
            new = jnp.asarray(arr, dtype=dtype)
        else:
            new = rec(getattr(node, part) if not part.isdigit() else node[int(part)], i + 1)
        if part.isdigit():
            items = list(node)
            items[int(part)] = new
            return type(node)(items) if not hasattr(node, "_fields") else type(node)(*items)
        return node._replace(**{part: new})

    return rec(obj, 0)


def jsonable(value: Any):
    """``value`` with arrays and NumPy scalars as plain lists and numbers (for JSON)."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (np.ndarray, jax.Array)):
        return np.asarray(value).tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
