"""Host drivers over the pure core: `simulate` (one configuration, many runs), `sweep` (a grid over any params
leaves, one compilation), `run_spec` (a resolved `jaxbandit.spec.Spec`) and `rerun` (a saved configuration again).

They take component objects or registry names (a name makes a saved result re-runnable from its configuration
alone), resolve and validate every input once, on the host, before anything is compiled (`jaxbandit.spec`), and
run the configuration's simulator: the engine's block function (`jaxbandit.engine`, the same one `rollout` runs)
batched over runs and grid points, chunk by chunk — a progress bar on long work, an optional
``callback(partial_results)`` after each chunk for live plots, and an optional checkpoint file from which an
interrupted run resumes at its last completed chunk — or the epoch-by-epoch simulation (`jaxbandit.epochs`), in one
piece.
"""
from __future__ import annotations

import json
import os
import sys
import time
import zipfile
from typing import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, compilation_cache, sharding
from jaxbandit import spec as specs
from jaxbandit.engine import (BLOCK, RUNS_AXIS, UNROLL, EngineState, SimParams, batch_spec, block_plan, init_state,
                              make_advance, record_slots, state_specs)
from jaxbandit.random import threefry
from jaxbandit.results import Results, config_fingerprint, environment_info, npz_problem
from jaxbandit.sharding import device_mesh
from jaxbandit.spec import Spec

__all__ = ["simulate", "sweep", "run_spec", "rerun", "run_engine", "final_state", "run_keys", "Interrupted",
           "checkpoint_path", "MAX_SEED"]


def simulate(env, policy, *, privatizer="identity", env_params: Mapping | None = None,
             policy_params: Mapping | None = None, policy_options: Mapping | None = None,
             privatizer_params: Mapping | None = None, horizon: int, runs: int, seed: int = 0, **options) -> Results:
    """Simulate one configuration ``runs`` times; see `sweep` for the options."""
    return sweep(env, policy, privatizer=privatizer, env_params=env_params, policy_params=policy_params,
                 policy_options=policy_options, privatizer_params=privatizer_params, horizon=horizon, runs=runs,
                 seed=seed, grid=None, **options)


def sweep(env, policy, *, privatizer="identity", env_params: Mapping | None = None,
          policy_params: Mapping | None = None, policy_options: Mapping | None = None,
          privatizer_params: Mapping | None = None, grid: Mapping | None, horizon: int, runs: int, seed: int = 0,
          record: int | np.ndarray = 100, simulator: str = "steps", realized: bool = True, **options) -> Results:
    """Simulate a Cartesian grid of parameter values, ``runs`` runs each, in one compiled program.

    Args:
      env, policy, privatizer: registry names (``jaxbandit list`` shows them) or component objects
        (`jaxbandit.Env`, `Policy`, `Privatizer`, e.g. one you wrote: no registry needed).
      env_params, policy_params, privatizer_params: for a name, the keyword arguments of its ``make``
        (``envs.make``, the policy's and the privatizer's parameters); for an object, a Mapping of fields
        replacing its ``default_params`` or a complete params NamedTuple.
      policy_options: a policy name's build-time options (e.g. ``{"release": "float"}`` for the papers' float
        noise; `jaxbandit.policies.option_names`); a grid over them is one sweep per option.
      grid: ``{path: values}`` where path is ``"env.means"``, ``"policy.epsilon"``, ``"privatizer.epsilon"``...
        (dotted fields of the params NamedTuples) and values a list; a tuple of paths with a list of tuples
        sweeps them jointly (one axis), e.g. ``{("policy.b", "policy.c"): [(0, 1.0), (9, 10.0)]}``.
      horizon: T, steps per run. runs: independent runs per grid point. seed: root of every random draw.
        Run r uses the key ``fold_in(jaxbandit.random.key(seed), r)`` at every grid point (common random
        numbers); its draws equal those of ``jax.random.key(seed)`` with non-partitionable Threefry.
      record: number of record times (half log-spaced, half even) or an explicit increasing array in [1, T].
      simulator: ``"steps"`` (the engine, every policy) or ``"epochs"``: a phased elimination policy (``dp-rse``,
        ``ldp-rse``) simulated epoch by epoch (`jaxbandit.epochs`), identity privatizer: the same law, another
        random stream, no step-by-step policy (benchmarks/RESULTS.md has the speed-up); it runs in one piece, so
        no progress, callback or checkpoint.
      realized: record the realized regret μ* t − Σ r_s as well as the pseudo-regret (default). False: the
        pseudo-regret only (`Results.regret` is None); the epoch simulator then draws no reward of a segment that
        decides nothing (one arm left, an epoch cut by T), the same pseudo-regret many times faster
        (benchmarks/RESULTS.md); the engine computes the realized regret anyway and drops it.
      options: how to run it, `run_spec`'s: ``chunk_steps``, ``progress``, ``callback``, ``checkpoint``,
        ``keep_checkpoint``, ``unroll``, ``devices``, ``first_run``.

    Returns:
      `Results` with axes (*grid axes, run, t).

    Raises:
      ValueError: on invalid input, or a run that would not fit in memory (with the estimate and the largest
        number of runs that fits), before any compilation; on a checkpoint that is not this configuration's.
      FloatingPointError: if a regret comes out non-finite.
      Interrupted: on Ctrl-C.
    """
    spec = specs.resolve(env, policy, privatizer, env_params=env_params, policy_params=policy_params,
                         policy_options=policy_options, privatizer_params=privatizer_params, horizon=horizon,
                         record=record, grid=grid, simulator=simulator, realized=realized)
    return run_spec(spec, runs=runs, seed=seed, **options)


def run_spec(spec: Spec, *, runs: int, seed: int = 0, chunk_steps: int | None = None, progress: bool | None = None,
             callback: Callable | None = None, checkpoint: str | None = None, keep_checkpoint: bool = False,
             unroll: int = UNROLL, devices=None, first_run=0) -> Results:
    """Simulate a resolved configuration (`jaxbandit.spec.resolve`) ``runs`` times at each of its points.

    Args:
      spec: the configuration, with a horizon.
      runs, seed: as for `sweep`.
      first_run: the index of the first run: runs ``first_run .. first_run + runs − 1`` of ``seed`` (keys
        ``fold_in(key(seed), r)``), an int for every point or one per point. A later slice of the same runs: the
        frontier's raced search simulates more runs only of the points still in the race. Recorded in the
        configuration where it is not 0.
      chunk_steps: steps per streamed chunk (rounded down to blocks of 50, at least one block); default: sized by
        time, so that progress, callbacks and checkpoints come about every 2 s on the machine at hand (chunk
        lengths never change the numbers).
      progress: show a progress bar over the steps (default: once the run has taken 3 s, on a terminal). Whatever
        its value, a run with over a minute left prints one line with the estimated time left (stderr), from its
        first chunks.
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
      devices: the devices the batch (grid points × runs) is sharded over (`jaxbandit.sharding.choose_devices`):
        None (default) for all of `jax.devices()`, a number n for the first n, or a list of `jax.Device`. Each
        device simulates its slice of the runs; a run depends only on its key, so the numbers are the same bit for
        bit on any number of devices, and in one process a checkpoint resumes on any number. On CPU, JAX makes
        one device unless configured before its first computation: `jaxbandit.use_cpu_devices` first (in a
        notebook, the first cell) gives one device per core, so that a sweep uses every core
        (benchmarks/RESULTS.md has the measured gain). The epoch simulator shards its runs alike within one
        process (in a multi-process run, each process simulates every run on its first device).
    """
    if spec.horizon is None:
        raise ValueError("run_spec needs a spec with a horizon: jaxbandit.resolve(..., horizon=T)")
    if not spec.simulator.chunked and (callback is not None or checkpoint):
        raise ValueError(f"simulator={spec.simulator.name!r} runs in one piece: it takes no callback or checkpoint")
    runs = checks.positive_int("runs", runs)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    unroll = checks.positive_int("unroll", unroll)
    if chunk_steps is not None:
        checks.positive_int("chunk_steps", chunk_steps)
    firsts = _first_runs(first_run, len(spec.points), runs)
    horizon, times = spec.horizon, spec.record_times
    config = spec.config(runs, seed)
    if any(firsts):  # absent from 0: the configurations of the first runs keep their fingerprints
        config["first_run"] = firsts[0] if len(set(firsts)) == 1 else firsts
    config.update(environment_info())
    fingerprint = f"{config_fingerprint(config)}-unroll{unroll}"
    mesh = device_mesh(devices)  # checked before any compilation
    # What ran where: not in the fingerprint (the numbers do not depend on it). The epoch simulator shards its runs
    # within one process (`_run_in_one_piece`).
    config["devices"] = 1 if mesh is None or (not spec.simulator.chunked and sharding.spans_processes(mesh)) else \
        mesh.size
    if jax.process_count() > 1:
        config["processes"] = jax.process_count()
    if checkpoint == "auto":
        checkpoint = checkpoint_path(fingerprint)
    if checkpoint and sharding.multi_process():
        checkpoint = sharding.process_file(checkpoint)  # each process saves the runs it simulates
    if checkpoint:
        checks.writable_file("checkpoint", checkpoint)
    estimate = check_memory(spec.env, spec.policy, spec.privatizer, spec.params, len(spec.points) * runs, len(times),
                            record_slots(times))
    params = spec.stacked(runs)
    keys = _point_keys(seed, runs, firsts)
    grid_shape = spec.grid_shape
    axes = spec.grid

    def to_results(pseudo, realized, counts, upto, seconds, compile_seconds):
        shape = grid_shape + (runs,)
        # contiguous, as a loaded result is: NumPy's reductions (summary statistics) then round alike either way
        layout = lambda x, last: np.ascontiguousarray(np.moveaxis(x, 0, -1).reshape(shape + (last,)))
        return Results(
            t=times[:upto], pseudo_regret=layout(pseudo[:upto], upto),
            regret=layout(realized[:upto], upto) if spec.realized else None,
            counts=layout(counts, spec.env.num_arms), grid={",".join(p): list(v) for p, v in axes}, config=config,
            seconds=seconds, compile_seconds=compile_seconds)

    def describe(n):
        g, r = divmod(int(n), runs)
        coords = np.unravel_index(g, grid_shape) if grid_shape else ()
        at = ", ".join(f"{','.join(p)}={v[i]}" for (p, v), i in zip(axes, coords))
        return f"run {firsts[g] + r}" + (f" at {at}" if at else "")

    if not spec.simulator.chunked:
        one_process = None if sharding.spans_processes(mesh) else mesh
        return to_results(*_run_in_one_piece(spec, params, keys, describe, one_process))
    out = run_engine(spec.env, spec.policy, spec.privatizer, params, keys, horizon, times, chunk_steps=chunk_steps,
                     progress=progress, checkpoint=checkpoint, fingerprint=fingerprint, describe=describe,
                     unroll=unroll, devices=devices, measure_memory=estimate >= MEASURED_FROM,
                     callback=None if callback is None else
                     lambda *partial: callback(to_results(*partial)))
    results = to_results(*out)
    if checkpoint and not keep_checkpoint and os.path.exists(checkpoint):
        os.remove(checkpoint)
    elif checkpoint and keep_checkpoint:
        results.checkpoint = checkpoint
    return results


def run_keys(seed: int, runs: int, first: int = 0):
    """The keys of runs first..first + runs − 1 of ``seed``: ``fold_in(jaxbandit.random.key(seed), r)``."""
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    return jax.vmap(jax.random.fold_in, in_axes=(None, 0))(threefry.key(seed), first + jnp.arange(runs))


def _first_runs(first_run, points: int, runs: int) -> list:
    """``first_run`` (an int, or one per point) as one int per point, checked: runs r < 2^31."""
    many = np.ndim(first_run) > 0
    values = list(first_run) if many else [first_run] * points
    if many and len(values) != points:
        raise ValueError(f"first_run has {len(values)} entries; it needs one per point ({points}) or one int")
    values = [checks.positive_int("first_run", v, minimum=0) for v in values]
    for v in values:
        if v and v + runs > 2 ** 31:
            raise ValueError(f"first_run={v} with runs={runs} reaches run {v + runs - 1}, beyond the last, 2^31 − 1")
    return values


def _point_keys(seed: int, runs: int, firsts: list):
    """The keys of every point's runs, point-major: runs ``firsts[p] ..`` of ``seed`` at point p."""
    if len(set(firsts)) == 1:
        return jnp.tile(run_keys(seed, runs, firsts[0]), len(firsts))
    return jnp.concatenate([run_keys(seed, runs, f) for f in firsts])


def final_state(spec: Spec, runs: int, seed: int) -> EngineState:
    """The engine's final state for every point of ``spec`` × run (batch axis last, point-major), runs keyed as in
    `sweep` (run r has the same key at every point: common random numbers), with the spec's record times: the
    gradient estimators' and the tuner's evaluation, without chunks or progress."""
    times = spec.record_times
    slots = record_slots(times)
    num = len(spec.points) * runs
    pad = _padding(num)  # as the drivers pad: each run's numbers as in `sweep`
    keys = _pad_keys(jnp.tile(run_keys(seed, runs), len(spec.points)), pad)
    params = _pad_runs(spec.stacked(runs), pad)
    state = init_state(spec.policy, params, spec.env.num_arms, len(times), slots, num_runs=num + pad,
                       per_step_regret=spec.env.means is None)
    rec = jnp.asarray(times, jnp.int32)
    for steps, blocks in block_plan(spec.horizon):
        state = make_advance(spec.env, spec.policy, spec.privatizer, steps, slots)(state, np.int32(blocks), keys,
                                                                                   params, rec)
    return _state_runs(state, lambda tree: jax.tree.map(lambda x: x[..., :num], tree))


# Every device's batch of runs is padded to a multiple of LANES (copies of the last run, simulated and dropped).
# XLA's CPU code computes the last runs of a batch that is not a multiple of its vector width in a scalar remainder
# loop, whose rounding can differ from the vector loop's (found in the linear policies' batched products: the last
# 4 runs of a device's 100 differed from the same runs among 200), so a run's numbers depended on how many runs
# shared its device. 16 float32 lanes cover AVX2 (8) and AVX-512 (16).
LANES = 16


def _padding(num: int, mesh=None) -> int:
    """How many copies of the last run make every device's batch (all ``num`` runs on one device where ``mesh`` is
    None) a multiple of `LANES`."""
    return -num % (LANES * (1 if mesh is None else mesh.size))
MAX_SEED = 2 ** 32 - 1  # JAX keys a seed by its low 32 bits unless x64 is on: larger seeds would repeat smaller ones


def checkpoint_path(fingerprint: str) -> str:
    """Where ``checkpoint="auto"`` keeps a configuration's checkpoint: ``$JAXBANDIT_CACHE/checkpoints``, else
    ``$XDG_CACHE_HOME/jaxbandit/checkpoints``, else ``~/.cache/jaxbandit/checkpoints``."""
    return os.path.join(compilation_cache.root(), "checkpoints", f"{fingerprint}.npz")


MEMORY_NOTE = 2 ** 30  # bytes: a batch estimated to need this much says so before it is compiled
# bytes: a batch estimated at this much or more is measured again as compiled, before it runs (`check_program_memory`:
# the estimate cannot see a step's temporaries, 3-10x the state of a contextual step at K = 1000, d = 50); below it
# the second trace that measuring costs (tenths of a second) is not worth paying.
MEASURED_FROM = MEMORY_NOTE // 32


def check_memory(env, policy, privatizer, params: SimParams, num: int, n_records: int, slots: int,
                 available: int | None = None) -> int:
    """Refuse, before anything is allocated or compiled, a batch of ``num`` runs whose estimated memory exceeds what
    is available; returns the estimate in bytes. An estimate of `MEMORY_NOTE` or more that fits is stated on stderr
    (per run and in all, against what is available), before the compilation.

    The estimate is per run, from the shapes of one run's state, records, parameters and one block's randomness
    (`jax.eval_shape`, nothing computed), times the number of runs: the state counted three times (the running
    state, the next chunk's, a host copy for checkpoints and results) and the block's randomness twice (drawn and
    sliced). Available memory: the free memory of the accelerator, or the host's available RAM on CPU.
    """
    def nbytes(tree):
        return sum(int(np.prod(x.shape)) * np.dtype(x.dtype).itemsize for x in jax.tree.leaves(tree))

    key = threefry.key(0)
    state = jax.eval_shape(lambda p: init_state(policy, p, env.num_arms, n_records, slots,
                                                per_step_regret=env.means is None), params)
    noise = jax.eval_shape(lambda k, p: (env.draw(k, BLOCK, p.env), policy.draw(k, BLOCK, p.policy),
                                         privatizer.draw(k, BLOCK, p.privatizer)), key, params)
    per_run = 3 * nbytes(state) + 2 * nbytes(noise) + nbytes(params) + 2 * BLOCK * 4 + 16
    return _judge_memory(num, per_run * num, per_run, available,
                         "would need about {need} ({per_run} per run: state, " + f"{n_records} record times, randomness "
                         f"of a block of {BLOCK} steps)", ", or record fewer times",
                         "memory: about {need} for {num} runs ({per_run} per run: state, " + f"{n_records} record "
                         "times, a block's randomness)")


def check_program_memory(stats, num: int, available: int | None = None) -> int:
    """Refuse, after the simulation program is compiled and before it runs, a batch of ``num`` runs (on one device)
    whose compiled program needs more than is available; returns its bytes. ``stats``: the program's
    ``memory_analysis()`` (XLA's buffer assignment: arguments, outputs and temporaries, less the donated state that
    the outputs reuse). `check_memory`'s estimate, made before compiling from the state's shapes, cannot see the
    step's temporaries: a contextual step holds d × K arrays a run (JDP-LinUCB at K = 1000, d = 50: 2.25 MiB a run
    as compiled, 0.72 MiB estimated). A program of `MEMORY_NOTE` or more that fits is stated on stderr."""
    need = int(stats.temp_size_in_bytes + stats.argument_size_in_bytes + stats.output_size_in_bytes
               - stats.alias_size_in_bytes)
    return _judge_memory(num, need, need / max(num, 1), available,
                         "need {need} for the compiled simulation ({per_run} per run: state, records, a block's "
                         "randomness and the step's working arrays)", "",
                         "memory: {need} for {num} runs as compiled ({per_run} per run, the step's working arrays "
                         "included)")


def _judge_memory(num: int, need: float, per_run: float, available, needs: str, advice: str, statement: str) -> int:
    """Refuse ``need`` bytes for ``num`` runs beyond 90% of what is available, or state it from `MEMORY_NOTE` on
    (``needs`` and ``statement``: texts with ``{need}``, ``{per_run}`` and ``{num}`` filled in)."""
    if available is None:
        available = available_memory()
    words = dict(need=_gib(need), per_run=_gib(per_run * 1.0), num=f"{num:,}")
    if available is not None and need > 0.9 * available:
        raise ValueError(
            f"runs x grid points = {num:,} {needs.format(**words)} but {_gib(available)} is available on "
            f"{jax.local_devices()[0].platform}; at most {int(0.9 * available // per_run):,} runs fit: use fewer runs "
            f"or grid points (several sweeps){advice}")
    if need >= MEMORY_NOTE and jax.process_index() == 0:
        print(statement.format(**words) + (f" of {_gib(available)} available" if available else ""),
              file=sys.stderr, flush=True)
    return int(need)


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


def _pad_keys(keys, pad: int):
    """``pad`` copies of the last run's key appended, as `_pad_runs` does for the params."""
    return jnp.concatenate([keys, jnp.repeat(keys[-1:], pad)]) if pad else keys


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
               describe=str, unroll=UNROLL, devices=None, measure_memory=False):
    """Drive the engine over ``horizon`` steps for the batch ``run_keys`` (params leaves batched last), sharded over
    ``devices`` (what `jaxbandit.sharding.device_mesh` takes; the numbers do not depend on them).

    Returns ``(pseudo[n_rec, N], realized[n_rec, N], counts[K, N], n_rec, seconds, compile_seconds)`` as numpy
    arrays (on every process of a multi-process run); ``compile_seconds``: the part of ``seconds`` this process spent
    compiling or loading compiled programs. Raises `Interrupted` on Ctrl-C (after the last completed chunk was
    checkpointed, when there is a checkpoint). Checkpoints hold the N runs without padding, so a run checkpointed
    on some devices resumes on any others; when the runs are split across processes, each process saves the runs
    it simulates in its own file (``checkpoint`` is this process's: `sweep` names it with
    `jaxbandit.sharding.process_file`), which resumes with the same processes and devices, all from the same
    chunk (checked). ``measure_memory``: read each program's memory as compiled and refuse or state it before it
    runs (`check_program_memory`; `sweep` asks for it from `MEASURED_FROM` bytes estimated).
    """
    num = len(run_keys)
    slots = record_slots(times)
    total_blocks = -(-horizon // BLOCK)  # the whole blocks and the tail
    mesh = device_mesh(devices)
    shared = sharding.spans_processes(mesh)  # the runs split across processes: every step is taken together
    pad = _padding(num, mesh)
    quiet = shared and jax.process_index() != 0  # one progress bar and time estimate: process 0's
    if quiet:
        progress = False
    if shared and checkpoint:  # each process checkpoints its own runs (sweep names the file), for this layout only
        layout = ",".join(str(d.process_index) for d in mesh.devices.flat)
        fingerprint = f"{fingerprint}-process{jax.process_index()}-of-{jax.process_count()}-devices[{layout}]"
    state = init_state(policy, params, env.num_arms, len(times), slots, num_runs=num,
                       per_step_regret=env.means is None)
    elapsed = 0.0
    if checkpoint and os.path.exists(checkpoint) and not shared:
        state, elapsed = _load_checkpoint(checkpoint, state, fingerprint)
        if not quiet:  # said whatever the output: a log shows why the run was quick
            print(f"resuming from {checkpoint}: t = {min(int(state.block) * BLOCK, horizon):,} of T = {horizon:,} "
                  "already simulated", file=sys.stderr, flush=True)
    rec = jnp.asarray(times, dtype=jnp.int32)
    params = _pad_runs(params, pad)
    run_keys = _pad_keys(run_keys, pad)
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
            if not quiet:
                print(f"resuming from {checkpoint} (and the other processes' files): t = "
                      f"{min(int(local.block) * BLOCK, horizon):,} of T = {horizon:,} already simulated",
                      file=sys.stderr, flush=True)
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
    compiling = 0.0
    # chunk lengths come from the timings; with several processes, from process 0's
    next_chunk = (lambda: sharding.agree(chunks.next(), mesh)) if shared else chunks.next
    try:
        for steps, blocks in block_plan(horizon, done, next_chunk):
            before = int(state.ptr)
            t0, c0 = time.perf_counter(), compilation_cache.compile_seconds()
            args = (state, np.int32(blocks), run_keys, params, rec)
            advance = make_advance(env, policy, privatizer, steps, slots, unroll, mesh)
            if measure_memory and steps not in compiled:  # its memory as compiled, before its first chunk runs
                stats = advance.lower(*args).compile().memory_analysis()
                if stats is not None:
                    check_program_memory(stats, (num + pad) // (1 if mesh is None else mesh.size))
            state = advance(*args)
            after = int(state.ptr)
            new_pseudo = host(state.pseudo[before:after])
            new_real = host(state.realized[before:after])
            seconds = time.perf_counter() - t0
            elapsed += seconds
            compiling += min(compilation_cache.compile_seconds() - c0, seconds)  # process-wide: other threads too
            for name, arr in (("pseudo-regret", new_pseudo), ("realized regret", new_real)):
                bad = ~np.isfinite(arr)
                if bad.any():
                    row, col = np.argwhere(bad)[0]
                    raise FloatingPointError(f"{name} is {arr[row, col]} at t={times[before + row]} for "
                                             f"{describe(col)}; parameters or rewards produced a non-finite value")
            done += blocks
            t1 = time.perf_counter()
            if checkpoint:
                try:
                    _save_checkpoint(checkpoint, to_save(state), elapsed, fingerprint)
                except OSError as err:  # keep simulating: the runs are worth more than their checkpoint
                    report.write(f"warning: cannot write the checkpoint {checkpoint} ({err.strerror or err}): the run "
                                 "goes on without checkpoints")
                    checkpoint = None
            if callback is not None:
                callback(host(state.pseudo), host(state.realized), host(state.run.counts), after, elapsed, compiling)
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
    return host(state.pseudo), host(state.realized), host(state.run.counts), n_rec, elapsed, compiling


_ONE_PIECE_CACHE = {}


def _compiled_in_one_piece(spec: Spec, mesh):
    """The jitted one-piece simulation of ``spec``'s runs (keys first, params batched last), sharded over ``mesh``'s
    devices or not (None). Memoized like the engine's `jaxbandit.engine.make_advance`: on the components' identity
    (kept alive by the cache), the horizon, the record times and the devices, so a second call with new parameter
    values or seeds does not compile again."""
    devices = None if mesh is None else tuple(d.id for d in mesh.devices.flat)
    key = (spec.simulator.name, id(spec.env), id(spec.policy), spec.horizon, tuple(spec.record_times.tolist()),
           spec.realized, devices)
    if key not in _ONE_PIECE_CACHE:
        run = jax.vmap(spec.rollout(), in_axes=(0, -1))
        if mesh is not None:
            single, first = run, jax.sharding.PartitionSpec(RUNS_AXIS)  # keys and traces: runs first

            def run(keys, params):
                return jax.shard_map(single, mesh=mesh, in_specs=(first, jax.tree.map(batch_spec, params)),
                                     out_specs=first, check_vma=False)(keys, params)

        _ONE_PIECE_CACHE[key] = (spec.env, spec.policy, jax.jit(run))
    return _ONE_PIECE_CACHE[key][-1]


def _run_in_one_piece(spec: Spec, params: SimParams, keys, describe, mesh):
    """`run_engine`'s outputs from a simulator that runs each run in one piece (the epoch-by-epoch simulation,
    `jaxbandit.epochs`; params batched last), its runs
    sharded over ``mesh`` (one process's devices) or on the default device (None). A run depends only on its key,
    so the numbers do not depend on the devices."""
    num = len(keys)
    t0, c0 = time.perf_counter(), compilation_cache.compile_seconds()
    pad = _padding(num, mesh)
    keys, params = _pad_keys(keys, pad), _pad_runs(params, pad)
    if mesh is not None:
        params = sharding.place(params, mesh, batch_spec)
        keys = sharding.place(keys, mesh, lambda x: jax.sharding.PartitionSpec(RUNS_AXIS))
    trace = _compiled_in_one_piece(spec, mesh)(keys, params)
    trace = jax.tree.map(lambda x: x[:num], trace)
    pseudo = np.asarray(trace.pseudo_regret).T
    realized = None if trace.regret is None else np.asarray(trace.regret).T
    seconds = time.perf_counter() - t0
    compiling = min(compilation_cache.compile_seconds() - c0, seconds)
    times = spec.record_times
    for name, arr in (("pseudo-regret", pseudo), ("realized regret", realized)):
        if arr is None:
            continue
        bad = ~np.isfinite(arr)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise FloatingPointError(f"{name} is {arr[row, col]} at t={times[row]} for {describe(col)}; parameters "
                                     "or rewards produced a non-finite value")
    return pseudo, realized, np.asarray(trace.counts).T, len(times), seconds, compiling


class _Progress:
    """A progress bar over the steps of T, started after the first chunk so that compilation does not distort its
    rate (``progress=None``: shown once a run has taken 3 s, where the output is a terminal or a notebook, never into
    a log; ``False``: never), and, once the speed is known, one line with the estimated time left when that is over
    a minute, with or without the bar (a piped CLI run or a ``progress=False`` call learns how long it will take,
    too)."""

    def __init__(self, progress, horizon, num, initial, resumable, estimate=True):
        if progress is None and not _interactive():
            progress = False  # a bar's carriage-return frames do not belong in a log file
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

    def write(self, line: str) -> None:
        """One line to stderr, above the bar if there is one."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def estimate(self, seconds_per_block, blocks_left):
        if self.estimated or seconds_per_block is None:
            return
        self.estimated = True
        left = seconds_per_block * blocks_left
        if left > 60:
            rate = self.num * BLOCK / seconds_per_block
            then = "running the same command again resumes" if self.resumable else "pass a checkpoint to resume"
            self.write(f"estimated time left: {_duration(left)} at {rate:.3g} agent-steps/s; Ctrl-C stops, {then}")

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _interactive() -> bool:
    """Whether progress bars can be drawn: stderr is a terminal, or the code runs in a Jupyter kernel."""
    return sys.stderr.isatty() or "ipykernel" in sys.modules


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


CHECKPOINT_FORMAT, CHECKPOINT_VERSION = "jaxbandit-checkpoint", 2


def _save_checkpoint(path, state: EngineState, elapsed: float, fingerprint: str):
    from jaxbandit.version import __version__
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
