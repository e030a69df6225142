"""Host drivers over the pure core: `simulate` (one configuration, many runs), `sweep` (a grid over any params
leaves, one compilation) and `rerun` (a saved configuration again).

They take component objects or registry names (a name makes a saved result re-runnable from its configuration
alone), validate every input on the host before anything is compiled (`jaxbandit.validation`), and run the
engine's block function (`jaxbandit.engine`, the same one `rollout` runs) batched over runs and grid points,
chunk by chunk: a progress bar on long work, an optional ``callback(partial_results)`` after each chunk for live
plots, and an optional checkpoint file from which an interrupted run resumes at its last completed chunk.
"""
from __future__ import annotations

import functools
import itertools
import json
import os
import sys
import time
import zipfile
from typing import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, prng, sharding, validation
from jaxbandit.privacy import noise as privacy_noise
from jaxbandit.sharding import device_mesh
from jaxbandit.engine import (BLOCK, RUNS_AXIS, UNROLL, EngineState, SimParams, batch_spec, init_state, make_advance,
                              record_slots, state_specs)
from jaxbandit.results import Results, config_fingerprint, environment_info, npz_problem

__all__ = ["simulate", "sweep", "rerun", "run_engine", "Interrupted", "checkpoint_path"]

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
          keep_checkpoint: bool = False, unroll: int = UNROLL, simulator: str = "steps", devices=None) -> Results:
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
      chunk_steps: steps per streamed chunk (rounded down to blocks of 50, at least one block); default: sized by
        time, so that progress, callbacks and checkpoints come about every 2 s on the machine at hand (chunk
        lengths never change the numbers).
      progress: show a progress bar over the steps (default: once the run has taken 3 s). Whatever its value, a
        run with over a minute left prints one line with the estimated time left (stderr), from its first chunks.
      callback: called with the partial `Results` after every chunk (e.g. to redraw a live plot).
      checkpoint: file (.npz) to save the state after every chunk and to resume from if it exists with the same
        configuration; ``"auto"``: a file named by the configuration's fingerprint in `checkpoint_path`'s folder,
        so running the same call again resumes. Ctrl-C raises `Interrupted`, which says where the state is. In a
        multi-process run (`jaxbandit.sharding.initialize`) each process keeps its own runs in its own file,
        ``FILE.processI-of-N.npz``, and resumes from it with the same processes and devices.
      keep_checkpoint: keep the checkpoint file when the run completes (default: it is removed).
      unroll: unroll factor of the inner scan (a speed knob). The engine's own sums have a fixed order
        (`jaxbandit.engine.ordered_sum`), so testbed20's numbers are the same for unroll 1 and 5; a component
        with a float reduction of its own (``jnp.sum`` over arms) may differ in its last bits between unrolls.
      simulator: ``"steps"`` (the engine, every policy) or ``"epochs"``: a phased policy with a
        ``Policy.phase_rollout`` (``dp-rse``, ``ldp-rse``: `jaxbandit.policies.heavy_tailed.elimination_rollout`)
        simulated phase by phase, identity privatizer: the same law, another random stream, no step-by-step policy (benchmarks/RESULTS.md has
        the speed-up); it runs in one piece, so no progress, callback or checkpoint.
      devices: the devices the batch (grid points × runs) is sharded over (`jaxbandit.sharding.choose_devices`):
        None (default) for all of `jax.devices()`, a number n for the first n, or a list of `jax.Device`. Each
        device simulates its slice of the runs; a run depends only on its key, so the numbers are the same bit for
        bit on any number of devices, and in one process a checkpoint resumes on any number. On CPU, JAX makes
        one device unless configured before its first computation: `jaxbandit.use_cpu_devices` first (in a
        notebook, the first cell) gives one device per core, so that a sweep uses every core
        (benchmarks/RESULTS.md has the measured gain). The epoch simulator runs on the first device.

    Returns:
      `Results` with axes (*grid axes, run, t).

    Raises:
      ValueError: on invalid input, or a run that would not fit in memory (with the estimate and the largest
      number of runs that fits), before any compilation; on a checkpoint that is not this configuration's.
      FloatingPointError: if a regret comes out non-finite. Interrupted: on Ctrl-C.
    """
    horizon, times = validation.horizon_and_records(horizon, record)
    if simulator not in ("steps", "epochs"):
        raise ValueError(f"simulator={simulator!r} must be 'steps' or 'epochs'")
    if simulator == "epochs" and (callback is not None or checkpoint):
        raise ValueError("simulator='epochs' runs in one piece: it takes no callback or checkpoint")
    runs = checks.positive_int("runs", runs)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    unroll = checks.positive_int("unroll", unroll)
    if chunk_steps is not None:
        checks.positive_int("chunk_steps", chunk_steps)
    env_obj, pol_obj, priv_obj, base = validation.resolve(env, policy, privatizer, env_params=env_params,
                                                          policy_params=policy_params,
                                                          privatizer_params=privatizer_params)
    axes, points = _grid_points(base, grid or {})
    for point in points if axes else ():  # resolve checked the base point
        validation.check(env_obj, pol_obj, priv_obj, point)
    points = [validation.check_horizon(pol_obj, point, horizon) for point in points]

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
    if simulator != "steps":  # absent for the engine: older configurations keep their fingerprints
        config["simulator"] = simulator
    fingerprint = f"{config_fingerprint(config)}-unroll{unroll}"
    mesh = device_mesh(devices)  # checked before any compilation
    # What ran where: not in the fingerprint (the numbers do not depend on it); the epoch simulator uses one device.
    config["devices"] = 1 if mesh is None or simulator == "epochs" else mesh.size
    if jax.process_count() > 1:
        config["processes"] = jax.process_count()
    if checkpoint == "auto":
        checkpoint = checkpoint_path(fingerprint)
    if checkpoint and sharding.multi_process():
        checkpoint = sharding.process_file(checkpoint)  # each process saves the runs it simulates
    if checkpoint:
        checks.writable_file("checkpoint", checkpoint)
    check_memory(env_obj, pol_obj, priv_obj, base, len(points) * runs, len(times), record_slots(times))
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

    if simulator == "epochs":
        return to_results(*_run_epochs(env_obj, pol_obj, priv_obj, params, run_keys, horizon, times, describe))
    out = run_engine(env_obj, pol_obj, priv_obj, params, run_keys, horizon, times, chunk_steps=chunk_steps,
                     progress=progress, checkpoint=checkpoint, fingerprint=fingerprint, describe=describe,
                     unroll=unroll, devices=devices, callback=None if callback is None else
                     lambda p, r, c, upto, sec: callback(to_results(p, r, c, upto, sec)))
    results = to_results(*out)
    if checkpoint and not keep_checkpoint and os.path.exists(checkpoint):
        os.remove(checkpoint)
    elif checkpoint and keep_checkpoint:
        results.checkpoint = checkpoint
    return results


MAX_SEED = 2 ** 32 - 1  # JAX keys a seed by its low 32 bits unless x64 is on: larger seeds would repeat smaller ones


def checkpoint_path(fingerprint: str) -> str:
    """Where ``checkpoint="auto"`` keeps a configuration's checkpoint: ``$JAXBANDIT_CACHE/checkpoints``, else
    ``$XDG_CACHE_HOME/jaxbandit/checkpoints``, else ``~/.cache/jaxbandit/checkpoints``."""
    root = os.environ.get("JAXBANDIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "jaxbandit")
    return os.path.join(root, "checkpoints", f"{fingerprint}.npz")


def check_memory(env, policy, privatizer, params: SimParams, num: int, n_records: int, slots: int,
                 available: int | None = None) -> int:
    """Refuse, before anything is allocated or compiled, a batch of ``num`` runs whose estimated memory exceeds what
    is available; returns the estimate in bytes.

    The estimate is per run, from the shapes of one run's state, records, parameters and one block's randomness
    (`jax.eval_shape`, nothing computed), times the number of runs: the state counted three times (the running
    state, the next chunk's, a host copy for checkpoints and results) and the block's randomness twice (drawn and
    sliced). Available memory: the free memory of the accelerator, or the host's available RAM on CPU.
    """
    def nbytes(tree):
        return sum(int(np.prod(x.shape)) * np.dtype(x.dtype).itemsize for x in jax.tree.leaves(tree))

    key = prng.key(0)
    state = jax.eval_shape(lambda p: init_state(policy, p, env.num_arms, n_records, slots), params)
    noise = jax.eval_shape(lambda k, p: (env.draw(k, BLOCK, p.env), policy.draw(k, BLOCK, p.policy),
                                         privatizer.draw(k, BLOCK, p.privatizer)), key, params)
    per_run = 3 * nbytes(state) + 2 * nbytes(noise) + nbytes(params) + 2 * BLOCK * 4 + 16
    estimate = per_run * num
    if available is None:
        available = available_memory()
    if available is not None and estimate > 0.9 * available:
        fits = int(0.9 * available // per_run)
        raise ValueError(
            f"runs x grid points = {num:,} would need about {_gib(estimate)} ({_gib(per_run * 1.0)} per run: state, "
            f"{n_records} record times, randomness of a block of {BLOCK} steps) but {_gib(available)} is available "
            f"on {jax.local_devices()[0].platform}; at most {fits:,} runs fit: use fewer runs or grid points (several "
            f"sweeps), or record fewer times")
    return estimate


def available_memory() -> int | None:
    """Bytes free on the default device: the accelerator's limit minus its use, or the host's MemAvailable."""
    device = jax.local_devices()[0]
    if device.platform != "cpu":
        stats = device.memory_stats() or {}
        if "bytes_limit" in stats:
            return int(stats["bytes_limit"] - stats.get("bytes_in_use", 0))
        return None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _gib(n: float) -> str:
    gib = n / 2 ** 30
    return f"{gib:,.0f} GiB" if gib >= 100 else f"{gib:.3g} GiB" if n >= 2 ** 26 else f"{n / 2 ** 20:.3g} MiB"


def rerun(results: Results, **overrides) -> Results:
    """Run a saved configuration again: ``sweep(**results.request(), **overrides)`` (same seed, same numbers).

    Components that were user-written objects must be passed again, e.g. ``rerun(res, policy=my_policy)``."""
    objects = [role for role in results.config.get("objects", []) if role not in overrides]
    if objects:
        raise ValueError(f"these results were simulated with user-written {', '.join(objects)} object(s) "
                         f"{[results.config[r] for r in objects]}; pass them again, e.g. rerun(res, {objects[0]}=...)")
    return sweep(**{**results.request(), **overrides})


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a simulation: ``step`` steps of ``horizon`` were done; with a ``checkpoint`` file, running the
    same call (or command) again resumes from it."""

    def __init__(self, step: int, horizon: int, checkpoint: str | None):
        self.step, self.horizon, self.checkpoint = step, horizon, checkpoint
        where = (f"the state at t={step} is saved in {checkpoint}; run the same command again to resume" if checkpoint
                 else "nothing was saved: pass checkpoint=FILE (CLI: --checkpoint) to make a long run resumable")
        super().__init__(f"interrupted at t={step} of T={horizon}: {where}")


CHUNK_SECONDS = 2.0    # target wall time of a streamed chunk: progress, callbacks and checkpoints this often
CHUNK_OVERHEAD = 0.02  # most of a chunk's time that saving the checkpoint and the callback may take


class _Chunks:
    """Blocks per chunk: ``chunk_steps // BLOCK`` when given; else sized by time. The first two chunks are one block
    each (the first includes compilation), then chunks grow at most 4x per step towards ``CHUNK_SECONDS`` of
    simulation, or longer where the checkpoint and callback would take more than ``CHUNK_OVERHEAD`` of it. Chunk
    lengths are a traced loop bound of one compiled function (`engine.make_advance`), so they cost no
    recompilation and do not change the numbers."""

    def __init__(self, chunk_steps):
        self.fixed = None if chunk_steps is None else max(1, checks.positive_int("chunk_steps", chunk_steps) // BLOCK)
        self.seconds_per_block = None  # measured on chunks that did not compile
        self.last = 0
        self.overhead = 0.0

    def next(self) -> int:
        if self.fixed is not None:
            return self.fixed
        if self.seconds_per_block is None:
            return 1
        target = max(CHUNK_SECONDS, self.overhead / CHUNK_OVERHEAD)
        return int(max(1, min(4 * self.last, target / self.seconds_per_block)))

    def observe(self, blocks: int, seconds: float, overhead: float, compiled: bool) -> None:
        self.last = blocks
        self.overhead = max(self.overhead, overhead)
        if not compiled:
            self.seconds_per_block = seconds / blocks


def _pad_runs(tree, pad: int):
    """Append ``pad`` copies of the last run to every leaf's batch (last) axis: a batch that divides evenly over
    the devices. The copies are simulated and dropped; runs are independent, so they change no other run."""
    if not pad:
        return tree
    return jax.tree.map(lambda x: jnp.concatenate([x, jnp.repeat(x[..., -1:], pad, axis=-1)], axis=-1), tree)


def _state_runs(state: EngineState, fn) -> EngineState:
    """``fn`` applied to the batched leaves of an engine state (not the shared record pointer and block index)."""
    return state._replace(run=fn(state.run), pseudo=fn(state.pseudo), realized=fn(state.realized))


def run_engine(env, policy, privatizer, params: SimParams, run_keys, horizon: int, times: np.ndarray, *,
               chunk_steps=None, progress=None, callback=None, checkpoint=None, fingerprint="",
               describe=str, unroll=UNROLL, devices=None):
    """Drive the engine over ``horizon`` steps for the batch ``run_keys`` (params leaves batched last), sharded over
    ``devices`` (what `jaxbandit.sharding.device_mesh` takes; the numbers do not depend on them).

    Returns ``(pseudo[n_rec, N], realized[n_rec, N], counts[K, N], n_rec, seconds)`` as numpy arrays (on every
    process of a multi-process run). Raises `Interrupted` on Ctrl-C (after the last completed chunk was
    checkpointed, when there is a checkpoint). Checkpoints hold the N runs without padding, so a run checkpointed
    on some devices resumes on any others; when the runs are split across processes, each process saves the runs
    it simulates in its own file (``checkpoint`` is this process's: `sweep` names it with
    `jaxbandit.sharding.process_file`), which resumes with the same processes and devices, all from the same
    chunk (checked).
    """
    num = len(run_keys)
    slots = record_slots(times)
    n_full, tail = divmod(horizon, BLOCK)
    total_blocks = n_full + (1 if tail else 0)
    mesh = device_mesh(devices)
    shared = sharding.spans_processes(mesh)  # the runs split across processes: every step is taken together
    pad = 0 if mesh is None else -num % mesh.size
    quiet = shared and jax.process_index() != 0  # one progress bar and time estimate: process 0's
    if quiet:
        progress = False
    if shared and checkpoint:  # each process checkpoints its own runs (sweep names the file), for this layout only
        layout = ",".join(str(d.process_index) for d in mesh.devices.flat)
        fingerprint = f"{fingerprint}-process{jax.process_index()}-of-{jax.process_count()}-devices[{layout}]"
    state = init_state(policy, params, env.num_arms, len(times), slots, num_runs=num)
    elapsed = 0.0
    if checkpoint and os.path.exists(checkpoint) and not shared:
        state, elapsed = _load_checkpoint(checkpoint, state, fingerprint)
    rec = jnp.asarray(times, dtype=jnp.int32)
    # The noise mode, fixed from the host's parameters (placed ones may live on other processes).
    policy = privacy_noise.specialize(policy, params.policy)
    params = _pad_runs(params, pad)
    run_keys = jnp.concatenate([run_keys, jnp.repeat(run_keys[-1:], pad)]) if pad else run_keys
    state = _state_runs(state, lambda tree: _pad_runs(tree, pad))
    if mesh is not None:  # place each device's slice once; chunks then stay where they are
        specs = state_specs(state)
        replicated = jax.sharding.PartitionSpec()
        state = _state_runs(state, lambda tree: sharding.place(tree, mesh, batch_spec))
        state = state._replace(ptr=sharding.place(state.ptr, mesh, lambda x: replicated),
                               block=sharding.place(state.block, mesh, lambda x: replicated))
        params = sharding.place(params, mesh, batch_spec)
        run_keys = sharding.place(run_keys, mesh, lambda x: jax.sharding.PartitionSpec(RUNS_AXIS))
    if shared and checkpoint:
        found = os.path.exists(checkpoint)
        if found:
            local, elapsed = _load_checkpoint(checkpoint, sharding.local_part(state, mesh, specs), fingerprint)
        blocks = sharding.per_device(int(local.block) if found else -1, mesh)  # -1: no file
        if len(set(blocks.tolist())) > 1:
            said = {d.process_index: int(b) for d, b in zip(mesh.devices.flat, blocks)}
            raise ValueError(
                f"the processes' checkpoints disagree (block reached per process, -1 = no file: {said}); this "
                f"process's is {checkpoint} ({'found' if found else 'missing'}): a run resumes only when every "
                f"process has its file from the same chunk; delete the files {os.path.splitext(checkpoint)[0]}"
                f"... of every process to start over")
        if found:
            state = sharding.from_local_part(local, mesh, specs)
    if shared:
        to_save = lambda st: sharding.local_part(st, mesh, specs)
    else:
        to_save = lambda st: _state_runs(st, lambda tree: jax.tree.map(lambda x: x[..., :num], tree))
    host = lambda x: sharding.to_host(x)[..., :num]
    done = int(state.block)
    chunks = _Chunks(chunk_steps)
    report = _Progress(progress, horizon, num, min(done * BLOCK, horizon), resumable=bool(checkpoint),
                       estimate=not quiet)
    compiled = set()
    try:
        while done < total_blocks:
            steps = BLOCK if done < n_full else tail
            blocks = min(chunks.next(), n_full - done) if done < n_full else 1
            if shared:  # chunk lengths come from each process's timings: take process 0's
                blocks = sharding.agree(blocks, mesh)
            before = int(state.ptr)
            t0 = time.perf_counter()
            advance = make_advance(env, policy, privatizer, steps, slots, unroll, mesh)
            state = advance(state, np.int32(blocks), run_keys, params, rec)
            after = int(state.ptr)
            new_pseudo = host(state.pseudo[before:after])
            new_real = host(state.realized[before:after])
            seconds = time.perf_counter() - t0
            elapsed += seconds
            for name, arr in (("pseudo-regret", new_pseudo), ("realized regret", new_real)):
                bad = ~np.isfinite(arr)
                if bad.any():
                    row, col = np.argwhere(bad)[0]
                    raise FloatingPointError(f"{name} is {arr[row, col]} at t={times[before + row]} for "
                                             f"{describe(col)}; parameters or rewards produced a non-finite value")
            done += blocks
            t1 = time.perf_counter()
            if checkpoint:
                _save_checkpoint(checkpoint, to_save(state), elapsed, fingerprint)
            if callback is not None:
                callback(host(state.pseudo), host(state.realized), host(state.run.counts), after, elapsed)
            chunks.observe(blocks, seconds, time.perf_counter() - t1, compiled=steps not in compiled)
            compiled.add(steps)
            report.update(min(done * BLOCK, horizon))
            if seconds >= 1.0 or done == total_blocks:  # a chunk long enough to time the rest by
                report.estimate(chunks.seconds_per_block, total_blocks - done)
    except KeyboardInterrupt as err:
        report.close()
        saved = checkpoint if checkpoint and os.path.exists(checkpoint) else None
        raise Interrupted(_checkpoint_step(checkpoint, horizon) if saved else 0, horizon, saved) from err
    report.close()
    n_rec = int(state.ptr)
    return host(state.pseudo), host(state.realized), host(state.run.counts), n_rec, elapsed


def _run_epochs(env, policy, privatizer, params: SimParams, run_keys, horizon: int, times: np.ndarray, describe):
    """`run_engine`'s outputs from the policy's phase-by-phase simulation (params batched last)."""
    if policy.phase_rollout is None:
        raise ValueError(f"policy={policy.name!r} has no phase-by-phase simulation (Policy.phase_rollout): use "
                         "simulator='steps'")
    if privatizer.name != "identity":
        raise ValueError(f"simulator='epochs' takes the identity privatizer (ldp-rse privatizes inside), got "
                         f"{privatizer.name!r}")
    run = policy.phase_rollout(env, horizon, times)
    t0 = time.perf_counter()
    trace = jax.jit(jax.vmap(run, in_axes=(0, -1, -1)))(run_keys, params.env, params.policy)
    pseudo, realized = np.asarray(trace.pseudo_regret).T, np.asarray(trace.regret).T
    seconds = time.perf_counter() - t0
    for name, arr in (("pseudo-regret", pseudo), ("realized regret", realized)):
        bad = ~np.isfinite(arr)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise FloatingPointError(f"{name} is {arr[row, col]} at t={times[row]} for {describe(col)}; parameters "
                                     "or rewards produced a non-finite value")
    return pseudo, realized, np.asarray(trace.counts).T, len(times), seconds


class _Progress:
    """A progress bar over the steps of T, started after the first chunk so that compilation does not distort its
    rate (``progress=None``: shown once a run has taken 3 s; ``False``: never), and, once the speed is known, one
    line with the estimated time left when that is over a minute, with or without the bar (a piped CLI run or a
    ``progress=False`` call learns how long it will take, too)."""

    def __init__(self, progress, horizon, num, initial, resumable, estimate=True):
        self.progress, self.horizon, self.num, self.resumable = progress, horizon, num, resumable
        self.bar, self.estimated = None, not estimate
        self.started = time.perf_counter()

    def update(self, step):
        if self.progress is False:
            return
        if self.bar is None:
            from tqdm.auto import tqdm
            waited = time.perf_counter() - self.started
            self.bar = tqdm(total=self.horizon, initial=step, unit="step", unit_scale=True, dynamic_ncols=True,
                            desc=f"T={self.horizon:,} x {self.num:,} runs",
                            delay=0 if self.progress else max(0.0, 3 - waited))
        self.bar.update(step - self.bar.n)

    def estimate(self, seconds_per_block, blocks_left):
        if self.estimated or seconds_per_block is None:
            return
        self.estimated = True
        left = seconds_per_block * blocks_left
        if left > 60:
            rate = self.num * BLOCK / seconds_per_block
            then = "running the same command again resumes" if self.resumable else "pass a checkpoint to resume"
            write = self.bar.write if self.bar is not None else functools.partial(print, file=sys.stderr)
            write(f"estimated time left: {_duration(left)} at {rate:.3g} agent-steps/s; Ctrl-C stops, {then}")

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


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


CHECKPOINT_FORMAT, CHECKPOINT_VERSION = "jaxbandit-checkpoint", 2


def _save_checkpoint(path, state: EngineState, elapsed: float, fingerprint: str):
    from jaxbandit import __version__
    leaves = jax.tree.leaves(state)
    meta = {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "jaxbandit_version": __version__,
            "fingerprint": fingerprint, "elapsed": elapsed, "block": int(state.block)}
    tmp = f"{path}.tmp.npz"
    np.savez(tmp, *[np.asarray(x) for x in leaves], meta=np.array(json.dumps(meta)))
    os.replace(tmp, path)  # atomic: an interruption leaves the previous checkpoint intact


def _read_checkpoint_meta(path, data) -> dict:
    """The metadata of an open checkpoint, or a ValueError naming the file and what is wrong with it."""
    try:
        meta = json.loads(str(data["meta"]))
        fmt, version = meta.get("format"), meta.get("version")
    except (KeyError, ValueError, TypeError, AttributeError) as err:
        raise ValueError(f"checkpoint {path} is not a jaxbandit checkpoint (no readable metadata: {err}); delete it "
                         f"or choose another path") from err
    if fmt != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint {path} is not a jaxbandit checkpoint (format {fmt!r}, written by jaxbandit "
                         f"< 0.3 or another program); delete it or choose another path")
    if not isinstance(version, int) or version != CHECKPOINT_VERSION:
        newer = isinstance(version, int) and version > CHECKPOINT_VERSION
        raise ValueError(f"checkpoint {path} has format version {version!r}, written by "
                         f"{'a newer' if newer else 'another'} jaxbandit ({meta.get('jaxbandit_version')}); this "
                         f"one reads version {CHECKPOINT_VERSION}: delete it to start over")
    return meta


def _open_npz(path, what):
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{what} {path} is not a readable .npz file ({npz_problem(err, path)}); delete it or "
                         f"choose another path") from err


def _load_checkpoint(path, template: EngineState, fingerprint: str):
    with _open_npz(path, "checkpoint") as data:
        meta = _read_checkpoint_meta(path, data)
        if meta["fingerprint"] != fingerprint:
            raise ValueError(f"checkpoint {path} belongs to a different configuration; delete it or choose "
                             f"another path")
        leaves, treedef = jax.tree.flatten(template)
        loaded = []
        try:
            for i, x in enumerate(leaves):
                arr = data[f"arr_{i}"]
                if arr.shape != x.shape or arr.dtype != x.dtype:
                    raise ValueError(f"array {i} has shape {arr.shape} and dtype {arr.dtype}, expected {x.shape} "
                                     f"{x.dtype}")
                loaded.append(jnp.asarray(arr))
        except (KeyError, ValueError, OSError, zipfile.BadZipFile) as err:
            raise ValueError(f"checkpoint {path} is damaged or does not match this configuration "
                             f"({npz_problem(err)}); delete it to start over") from err
    return jax.tree.unflatten(treedef, loaded), float(meta["elapsed"])


def _checkpoint_step(path, horizon) -> int:
    with _open_npz(path, "checkpoint") as data:
        return min(int(_read_checkpoint_meta(path, data)["block"]) * BLOCK, horizon)
