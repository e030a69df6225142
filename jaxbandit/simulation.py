"""Host drivers over the pure core: `simulate` (one configuration, many runs), `sweep` (a grid over any params
leaves, one compilation) and `rerun` (a saved configuration again).

They take component objects or registry names (a name makes a saved result re-runnable from its configuration
alone), validate every input on the host before anything is compiled (`jaxbandit.validation`), and run the
engine's block function (`jaxbandit.engine`, the same one `rollout` runs) batched over runs and grid points,
chunk by chunk: a progress bar on long work, an optional ``callback(partial_results)`` after each chunk for live
plots, and an optional checkpoint file from which an interrupted run resumes at its last completed chunk.
"""
from __future__ import annotations

import itertools
import json
import os
import time
from typing import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, prng, validation
from jaxbandit.engine import BLOCK, UNROLL, EngineState, SimParams, init_state, make_advance, record_slots
from jaxbandit.results import Results, config_fingerprint, environment_info

__all__ = ["simulate", "sweep", "rerun", "run_engine"]

DEFAULT_CHUNK_WORK = 2e8  # agent-steps per chunk when streaming (a few seconds on a 2-core CPU)


def simulate(env, policy, *, privatizer="identity", env_params: Mapping | None = None,
             policy_params: Mapping | None = None, privatizer_params: Mapping | None = None,
             horizon: int, runs: int, seed: int = 0, **options) -> Results:
    """Simulate one configuration ``runs`` times; see `sweep` for the options."""
    return sweep(env, policy, privatizer=privatizer, env_params=env_params, policy_params=policy_params,
                 privatizer_params=privatizer_params, horizon=horizon, runs=runs, seed=seed, grid=None, **options)


def sweep(env, policy, *, privatizer="identity", env_params: Mapping | None = None,
          policy_params: Mapping | None = None, privatizer_params: Mapping | None = None, grid: Mapping | None,
          horizon: int, runs: int, seed: int = 0, record: int | np.ndarray = 100, chunk_steps: int | None = None,
          progress: bool | None = None, callback: Callable | None = None, checkpoint: str | None = None,
          unroll: int = UNROLL) -> Results:
    """Simulate a Cartesian grid of parameter values, ``runs`` runs each, in one compiled program.

    Args:
      env, policy, privatizer: registry names (``jaxbandit list`` shows them) or component objects
        (`jaxbandit.Env`, `Policy`, `Privatizer`, e.g. one you wrote: no registry needed).
      env_params, policy_params, privatizer_params: for a name, the keyword arguments of its ``make``
        (``envs.make``, the policy's and the privatizer's parameters); for an object, a Mapping of fields
        replacing its ``default_params`` or a complete params NamedTuple.
      grid: ``{path: values}`` where path is ``"env.means"``, ``"policy.epsilon"``, ``"privatizer.epsilon"``...
        (dotted fields of the params NamedTuples) and values a list; a tuple of paths with a list of tuples
        sweeps them jointly (one axis), e.g. ``{("policy.b", "policy.c"): [(0, 1.0), (9, 10.0)]}``.
      horizon: T, steps per run. runs: independent runs per grid point. seed: root of every random draw.
        Run r uses the key ``fold_in(jaxbandit.prng.key(seed), r)`` at every grid point (common random
        numbers); its draws equal those of ``jax.random.key(seed)`` with non-partitionable Threefry.
      record: number of record times (half log-spaced, half even) or an explicit increasing array in [1, T].
      chunk_steps: steps per streamed chunk (rounded to blocks of 50); default: about 2e8 agent-steps.
      progress: show a progress bar (default: when there is more than one chunk).
      callback: called with the partial `Results` after every chunk (e.g. to redraw a live plot).
      checkpoint: file to save the state after every chunk and to resume from if it exists with the same
        configuration.
      unroll: unroll factor of the inner scan (a speed knob). Numbers are bit-identical for a given unroll; a
        different unroll changes the order of XLA's float reductions, so with many arms the pseudo-regret can
        differ in its last bits (testbed20, K = 20: 2e-6 of 11 between unroll 1 and 5).

    Returns:
      `Results` with axes (*grid axes, run, t).

    Raises:
      ValueError: on invalid input, before any compilation. FloatingPointError: if a regret comes out
      non-finite.
    """
    horizon, times = validation.horizon_and_records(horizon, record)
    runs = checks.positive_int("runs", runs)
    seed = checks.positive_int("seed", seed, minimum=0)
    unroll = checks.positive_int("unroll", unroll)
    env_obj, pol_obj, priv_obj, base = validation.resolve(env, policy, privatizer, env_params=env_params,
                                                          policy_params=policy_params,
                                                          privatizer_params=privatizer_params)
    axes, points = _grid_points(base, grid or {})
    for point in points if axes else ():  # resolve checked the base point
        validation.check(env_obj, pol_obj, priv_obj, point)

    given = {"env": (env, env_params, base.env), "policy": (policy, policy_params, base.policy),
             "privatizer": (privatizer, privatizer_params, base.privatizer)}
    config = {}
    for role, (component, kwargs, resolved) in given.items():
        by_name = isinstance(component, str)
        config[role] = component if by_name else component.name
        # A name's keyword arguments re-create it; an object's resolved params say what ran.
        config[f"{role}_params"] = _jsonable(dict(kwargs or {}) if by_name else resolved._asdict())
    config.update({
        "objects": [role for role, (component, _, _) in given.items() if not isinstance(component, str)],
        "grid": [{"paths": list(paths), "values": _jsonable(values)} for paths, values in axes],
        "horizon": horizon, "runs": runs, "seed": seed, "block": BLOCK, "record_times": times.tolist(),
        **environment_info(),
    })
    params = _stack(points, runs)
    root = prng.key(seed)
    run_keys = jnp.tile(jax.vmap(jax.random.fold_in, in_axes=(None, 0))(root, jnp.arange(runs)), len(points))

    grid_shape = tuple(len(values) for _, values in axes)

    def to_results(pseudo, realized, counts, upto, seconds):
        shape = grid_shape + (runs,)
        return Results(
            t=times[:upto], pseudo_regret=np.moveaxis(pseudo[:upto], 0, -1).reshape(shape + (upto,)),
            regret=np.moveaxis(realized[:upto], 0, -1).reshape(shape + (upto,)),
            counts=np.moveaxis(counts, 0, -1).reshape(shape + (env_obj.num_arms,)),
            grid={",".join(p): list(v) for p, v in axes}, config=config, seconds=seconds)

    def describe(n):
        g, r = divmod(int(n), runs)
        coords = np.unravel_index(g, grid_shape) if grid_shape else ()
        at = ", ".join(f"{','.join(p)}={v[i]}" for (p, v), i in zip(axes, coords))
        return f"run {r}" + (f" at {at}" if at else "")

    out = run_engine(env_obj, pol_obj, priv_obj, params, run_keys, horizon, times, chunk_steps=chunk_steps,
                     progress=progress, checkpoint=checkpoint, fingerprint=config_fingerprint(config),
                     describe=describe, unroll=unroll,
                     callback=None if callback is None else
                     lambda p, r, c, upto, sec: callback(to_results(p, r, c, upto, sec)))
    return to_results(*out)


def rerun(results: Results, **overrides) -> Results:
    """Run a saved configuration again: ``sweep(**results.request(), **overrides)`` (same seed, same numbers).

    Components that were user-written objects must be passed again, e.g. ``rerun(res, policy=my_policy)``."""
    objects = [role for role in results.config.get("objects", []) if role not in overrides]
    if objects:
        raise ValueError(f"these results were simulated with user-written {', '.join(objects)} object(s) "
                         f"{[results.config[r] for r in objects]}; pass them again, e.g. rerun(res, {objects[0]}=...)")
    return sweep(**{**results.request(), **overrides})


def run_engine(env, policy, privatizer, params: SimParams, run_keys, horizon: int, times: np.ndarray, *,
               chunk_steps=None, progress=None, callback=None, checkpoint=None, fingerprint="",
               describe=str, unroll=UNROLL):
    """Drive the engine over ``horizon`` steps for the batch ``run_keys`` (params leaves batched last).

    Returns ``(pseudo[n_rec, N], realized[n_rec, N], counts[K, N], n_rec, seconds)`` as numpy arrays.
    """
    num = len(run_keys)
    slots = record_slots(times)
    n_full, tail = divmod(horizon, BLOCK)
    if chunk_steps is None:
        chunk_blocks = max(1, int(DEFAULT_CHUNK_WORK // (num * BLOCK)))
    else:
        chunk_blocks = max(1, checks.positive_int("chunk_steps", chunk_steps) // BLOCK)
    chunk_blocks = min(chunk_blocks, max(n_full, 1))
    if n_full % chunk_blocks:  # prefer a divisor close to the target: one compilation instead of two
        divisor = max(d for d in range(1, chunk_blocks + 1) if n_full % d == 0)
        chunk_blocks = divisor if divisor * 2 >= chunk_blocks else chunk_blocks
    plan = [(chunk_blocks, BLOCK)] * (n_full // chunk_blocks)
    if n_full % chunk_blocks:
        plan.append((n_full % chunk_blocks, BLOCK))
    if tail:
        plan.append((1, tail))

    state = init_state(policy, params, env.num_arms, len(times), slots, num_runs=num)
    done_chunks, elapsed = 0, 0.0
    if checkpoint and os.path.exists(checkpoint):
        state, done_chunks, elapsed = _load_checkpoint(checkpoint, state, fingerprint)
    rec = jnp.asarray(times, dtype=jnp.int32)
    bar = _progress_bar(progress, len(plan), done_chunks, horizon, num)
    for i, (blocks, steps) in enumerate(plan):
        if i < done_chunks:
            continue
        before = int(state.ptr)
        t0 = time.perf_counter()
        state = make_advance(env, policy, privatizer, blocks, steps, slots, unroll)(state, run_keys, params, rec)
        after = int(state.ptr)
        new_pseudo = np.asarray(state.pseudo[before:after])
        new_real = np.asarray(state.realized[before:after])
        elapsed += time.perf_counter() - t0
        for name, arr in (("pseudo-regret", new_pseudo), ("realized regret", new_real)):
            bad = ~np.isfinite(arr)
            if bad.any():
                row, col = np.argwhere(bad)[0]
                raise FloatingPointError(f"{name} is {arr[row, col]} at t={times[before + row]} for "
                                         f"{describe(col)}; parameters or rewards produced a non-finite value")
        if checkpoint:
            _save_checkpoint(checkpoint, state, i + 1, elapsed, fingerprint)
        if callback is not None:
            callback(np.asarray(state.pseudo), np.asarray(state.realized), np.asarray(state.run.counts), after,
                     elapsed)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    n_rec = int(state.ptr)
    return (np.asarray(state.pseudo), np.asarray(state.realized), np.asarray(state.run.counts), n_rec, elapsed)


def _progress_bar(progress, total, initial, horizon, num):
    if progress is None:
        progress = total > 1
    if not progress:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, initial=initial, unit="chunk", desc=f"T={horizon} x {num} runs")


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
            if arr.shape != np.shape(old):
                raise ValueError(f"grid value for {path} has shape {arr.shape}, expected {np.shape(old)}")
            new = jnp.asarray(arr, dtype=jnp.asarray(old).dtype)
        else:
            new = rec(getattr(node, part) if not part.isdigit() else node[int(part)], i + 1)
        if part.isdigit():
            items = list(node)
            items[int(part)] = new
            return type(node)(items) if not hasattr(node, "_fields") else type(node)(*items)
        return node._replace(**{part: new})

    return rec(obj, 0)


def _stack(points, runs):
    """Stack grid points and repeat each for its runs; the batch axis goes last: leaf (..., G*R)."""
    stacked = jax.tree.map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *points)
    return jax.tree.map(lambda x: jnp.moveaxis(jnp.repeat(x, runs, axis=0), 0, -1), stacked)


def _jsonable(value):
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.ndarray, jax.Array)):
        return np.asarray(value).tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _save_checkpoint(path, state: EngineState, chunks_done: int, elapsed: float, fingerprint: str):
    leaves = jax.tree.leaves(state)
    tmp = f"{path}.tmp.npz"
    np.savez(tmp, *[np.asarray(x) for x in leaves],
             meta=np.array(json.dumps({"chunks_done": chunks_done, "elapsed": elapsed, "fingerprint": fingerprint})))
    os.replace(tmp, path)  # atomic: an interruption leaves the previous checkpoint intact


def _load_checkpoint(path, template: EngineState, fingerprint: str):
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        if meta["fingerprint"] != fingerprint:
            raise ValueError(f"checkpoint {path} belongs to a different configuration; delete it or choose "
                             f"another path")
        leaves, treedef = jax.tree.flatten(template)
        loaded = [jnp.asarray(data[f"arr_{i}"], dtype=x.dtype) for i, x in enumerate(leaves)]
    return jax.tree.unflatten(treedef, loaded), meta["chunks_done"], meta["elapsed"]
