"""Devices for the drivers: every core of a CPU, every accelerator of a host.

Runs are independent given their keys, so the drivers (`jaxbandit.simulate`, `jaxbandit.sweep`) split the batch of
runs (grid points × runs) over a 1-D mesh of devices and each device simulates its slice with the same program
(`jaxbandit.engine.make_advance`); no device waits for another, and a run's numbers are the same on any number of
devices. On CPU, JAX makes one device for the whole host unless told otherwise before its first computation:
`use_cpu_devices` (one per core by default) is that step, and the CLI takes it for you (``--devices``).
"""
from __future__ import annotations

import functools
import os
from typing import Sequence

import jax
import numpy as np

from jaxbandit.engine import RUNS_AXIS

__all__ = ["use_cpu_devices", "choose_devices", "device_mesh", "cores", "spans_processes", "multi_process", "place",
           "to_host", "per_device", "agree", "local_part", "from_local_part", "process_file", "initialize",
           "JaxStarted", "start_devices", "start_processes"]


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it, else ``os.cpu_count()``)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class JaxStarted(RuntimeError):
    """JAX has already started in this process: its devices and processes are fixed."""


def use_cpu_devices(n: int | None = None) -> int:
    """Give JAX ``n`` CPU devices (default: one per core, `cores`), so that the drivers shard runs over every core.

    XLA runs one program per device, and one device's program leaves part of the machine idle (XLA splits some of
    its loops over threads, not all); benchmarks/RESULTS.md has the measured gain. Call it before JAX computes
    anything, e.g. in a notebook's first cell::

        import jaxbandit as jb
        jb.use_cpu_devices()          # then jb.simulate / jb.sweep use every core

    (Importing jaxbandit computes nothing, so importing it first is fine.) The same without jaxbandit:
    ``jax.config.update("jax_num_cpu_devices", n)`` right after ``import jax``, or the environment variable
    ``XLA_FLAGS=--xla_force_host_platform_device_count=n`` before Python starts.

    Returns the number of CPU devices JAX has. Raises ValueError for ``n`` < 1 and `JaxStarted` (a RuntimeError)
    when JAX has already started with another number of CPU devices (then restart the process or kernel and call
    this first).
    """
    want = cores() if n is None else n
    if isinstance(want, bool) or not isinstance(want, (int, np.integer)) or want < 1:
        raise ValueError(f"n={n!r} must be a positive integer number of CPU devices (default: {cores()}, the "
                         f"cores of this machine)")
    want = int(want)
    try:
        jax.config.update("jax_num_cpu_devices", want)
    except RuntimeError:  # JAX has started: its devices are fixed, which the check below reports if it matters
        pass
    have = len(jax.local_devices(backend="cpu"))
    if have != want:
        raise JaxStarted(f"JAX has already started with {have} CPU device(s), not {want}: the number of CPU "
                           f"devices is fixed when JAX first computes; call jaxbandit.use_cpu_devices({want}) "
                           f"before any computation (in a notebook: restart the kernel and call it in the first "
                           f"cell)")
    return have


def choose_devices(devices: int | Sequence[jax.Device] | None = None) -> list:
    """The devices a driver shards its batch over.

    ``devices``: None for every device of JAX's default backend (`jax.devices()`: on an accelerator host its
    accelerators, in a multi-process run those of every process), an int n for the first n of them, or a sequence
    of distinct `jax.Device`. With several processes, the devices are either those of every process (the runs are
    split across processes) or this process's own (it simulates every run alone, e.g. ``jax.local_devices()``).
    Raises ValueError naming the valid choices otherwise."""
    available = jax.devices()
    if devices is None:
        chosen = available
    elif isinstance(devices, (int, np.integer)) and not isinstance(devices, bool):
        if not 1 <= devices <= len(available):
            raise ValueError(f"devices={devices} must be in [1, {len(available)}]: JAX has {len(available)} "
                             f"{available[0].platform} device(s){_more_cpu_devices(available)}")
        chosen = available[:int(devices)]
    else:
        try:
            chosen = list(devices)
        except TypeError:
            chosen = None
        if (not chosen or not all(isinstance(d, jax.Device) for d in chosen)
                or len({d.id for d in chosen}) != len(chosen)):
            raise ValueError(f"devices={devices!r} must be None (all of jax.devices()), a number of devices in "
                             f"[1, {len(available)}], or a list of distinct jax.Device")
    processes = {d.process_index for d in chosen}
    if len(processes) > 1 and len(processes) != jax.process_count():
        raise ValueError(f"devices={devices!r} belong to processes {sorted(processes)} of {jax.process_count()}: "
                         f"give devices of every process (default: all of jax.devices()) or of this one only")
    if len(processes) == 1 and processes != {jax.process_index()}:
        raise ValueError(f"devices={devices!r} belong to process {processes.pop()}, not to this one "
                         f"({jax.process_index()}): give devices of every process (default: all of jax.devices()) "
                         f"or this process's own (jax.local_devices())")
    return chosen


def _more_cpu_devices(available) -> str:
    """How to get one CPU device per core, where JAX has fewer (its CPU default is one device for the host)."""
    if available[0].platform != "cpu" or len(available) >= cores():
        return ""
    return (f"; this machine has {cores()} cores: for one device per core call jaxbandit.use_cpu_devices() before "
            f"JAX's first computation (a notebook's first cell), or start Python with XLA_FLAGS="
            f"--xla_force_host_platform_device_count={cores()}; the CLI does it itself (--devices N)")


def device_mesh(devices: int | Sequence[jax.Device] | None = None) -> jax.sharding.Mesh | None:
    """The 1-D mesh (axis `jaxbandit.engine.RUNS_AXIS`) over `choose_devices`'s devices, or None for a single
    device (the plain one-device program)."""
    chosen = choose_devices(devices)
    if len(chosen) == 1:
        return None
    return jax.sharding.Mesh(np.array(chosen), (RUNS_AXIS,))


def spans_processes(mesh: jax.sharding.Mesh | None) -> bool:
    """Whether ``mesh`` splits the runs across several processes (then every process must take part)."""
    return mesh is not None and len({d.process_index for d in mesh.devices.flat}) > 1


# ---------------------------------------------------------------- several processes (jax.distributed)
# Every process of a multi-process run computes the same inputs on its host (they are cheap and deterministic),
# places them as global arrays, simulates the runs of its own devices and gathers the records of all runs, so every
# process returns the same `Results`. Only checkpoints stay local: each process saves the runs it simulates.

def multi_process() -> bool:
    """Whether this is one of several JAX processes (`jax.distributed.initialize` was called with more than one)."""
    return jax.process_count() > 1


def place(tree, mesh: jax.sharding.Mesh, spec_of):
    """``tree``'s leaves as global arrays on ``mesh``, leaf ``x`` partitioned by ``spec_of(x)``. Every process passes
    the same full values; each keeps only its devices' slices. PRNG keys travel as their key data."""
    P = jax.sharding.PartitionSpec

    def put(x, spec):
        if not multi_process():
            return jax.device_put(x, jax.sharding.NamedSharding(mesh, spec))
        # each process builds its devices' slices from its own copy (device_put would first compare the copies
        # across processes, which assumes as many devices in each)
        host = np.asarray(x)
        return jax.make_array_from_callback(host.shape, jax.sharding.NamedSharding(mesh, spec), lambda i: host[i])

    def one(x):
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            data = put(jax.random.key_data(x), P(*spec_of(x), None))
            return jax.random.wrap_key_data(data, impl=jax.random.key_impl(x))
        return put(x, spec_of(x))

    return jax.tree.map(one, tree)


def to_host(x) -> np.ndarray:
    """A global array as one numpy array on every process (an all-gather across processes where there are
    several)."""
    if not multi_process() or x.is_fully_addressable:
        return np.asarray(x)
    # Resharded to every device (an all-gather; processes may hold different numbers of devices), then read locally.
    whole = _replicate(x.sharding.mesh)(x)
    return np.asarray(whole.addressable_data(0))


def per_device(value: int, mesh: jax.sharding.Mesh) -> np.ndarray:
    """Every process's ``value`` (an int), one per device of ``mesh`` in its order: what each process says."""
    spec = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(RUNS_AXIS))
    local = jax.make_array_from_callback((mesh.size,), spec, lambda i: np.full(len(range(mesh.size)[i[0]]),
                                                                              value, np.int64))
    return to_host(local)


def agree(value: int, mesh: jax.sharding.Mesh) -> int:
    """Process 0's ``value`` in every process: one decision (a chunk's length, a write's success) for all."""
    values = per_device(value, mesh)
    first = next(i for i, d in enumerate(mesh.devices.flat) if d.process_index == 0)
    return int(values[first])


@functools.lru_cache(maxsize=None)
def _replicate(mesh):
    return jax.jit(lambda x: x, out_shardings=jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec()))


def local_part(tree, mesh: jax.sharding.Mesh, specs):
    """The part of the global arrays ``tree`` (partitioned by the tree ``specs``) that this process holds, as host
    arrays: what its checkpoint saves."""
    from jax.experimental import multihost_utils
    local = multihost_utils.global_array_to_host_local_array(tree, mesh, specs)
    return jax.tree.map(np.asarray, local)


def from_local_part(tree, mesh: jax.sharding.Mesh, specs):
    """`local_part`'s inverse: every process's host arrays back into global arrays."""
    from jax.experimental import multihost_utils
    return multihost_utils.host_local_array_to_global_array(tree, mesh, specs)


def process_file(path: str) -> str:
    """This process's own file for ``path`` (a checkpoint): ``run.npz`` -> ``run.process1-of-4.npz``."""
    base, ext = os.path.splitext(path)
    return f"{base}.process{jax.process_index()}-of-{jax.process_count()}{ext}"


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, *, cpu_devices: int | None = None) -> None:
    """Join a multi-process run: `jax.distributed.initialize` with CPU collectives over gloo (TCP), and
    ``cpu_devices`` CPU devices in this process (default: JAX's, one). Call it in every process before any JAX
    computation; then `jaxbandit.sweep` / `simulate` shard the runs over the devices of every process and return
    the same `Results` in each (save them from process 0: ``jax.process_index() == 0``).

    On a cluster with a scheduler JAX knows (SLURM, Open MPI, ...), call it without arguments; elsewhere give the
    coordinator's ``host:port`` (process 0's machine), the number of processes and this one's index, e.g. two
    processes on one machine::

        python my_sweep.py 0 & python my_sweep.py 1     # each calls initialize("localhost:12345", 2, int(argv[1]))

    The CLI's ``--coordinator``, ``--num-processes`` and ``--process-id`` do the same for ``jaxbandit run`` and
    ``jaxbandit reproduce`` (docs/concepts/sharding.md, "Beyond one machine")."""
    if cpu_devices is not None and (isinstance(cpu_devices, bool) or not isinstance(cpu_devices, (int, np.integer))
                                    or cpu_devices < 1):
        raise ValueError(f"cpu_devices={cpu_devices!r} must be a positive integer")
    try:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        if cpu_devices is not None:
            jax.config.update("jax_num_cpu_devices", int(cpu_devices))
        jax.distributed.initialize(coordinator_address, num_processes, process_id)
    except RuntimeError as err:
        if "before any JAX" in str(err) or "before backends are initialized" in str(err):  # JAX's own words
            raise JaxStarted("jaxbandit.sharding.initialize must run before JAX computes anything (restart the "
                             "process and call it first)") from err
        raise


def start_devices(requested: int | None, *, configure: bool = True, name: str = "devices") -> None:
    """One CPU device per core (or ``requested`` of them) before JAX starts, so that sweeps shard over every core
    (``configure=False``: configure nothing unless a number is requested, as a caller's process keeps its own
    settings). When JAX has already started in this process, its devices stay as they are and ``requested`` picks
    the first of them: more than exist is a clear error now (naming ``name``, the CLI's ``--devices``) rather than
    after the first simulation."""
    if requested is not None and requested < 1:
        raise ValueError(f"{name} {requested} must be a positive integer")
    if requested is None and not configure:
        return
    configured = True
    try:  # never more CPU devices than cores: the rule of Python's devices=N, which takes the devices that exist
        use_cpu_devices(requested if requested is not None and requested <= cores() else None)
    except JaxStarted:  # JAX started earlier in this process: its devices stay as they are
        configured = False
    if requested is not None:
        import jax
        available = jax.devices()
        if requested > len(available):
            raise ValueError(f"{name} {requested} is outside the valid range [1, {len(available)}]: this host has "
                             f"{len(available)} {available[0].platform} device(s)"
                             + (" (one per core)" if configured and available[0].platform == "cpu" else ""))


def start_processes(coordinator: str | None, num_processes: int | None, process_id: int | None, *,
                    cluster: bool = False, devices: int | None = None, names: dict | None = None) -> bool:
    """Join a multi-process run (`initialize`), each process with ``devices`` CPU devices (default: one per core),
    from the three process settings or ``cluster=True`` (JAX finds them); ``False`` when none is given. Each bad
    setting is one clear error naming it (``names``: how the caller spells them, e.g. the CLI's flags)."""
    names = {k: k for k in ("coordinator", "num_processes", "process_id", "devices", "cluster")} | dict(names or {})
    given = {names[k]: v for k, v in (("coordinator", coordinator), ("num_processes", num_processes),
                                      ("process_id", process_id)) if v is not None}
    if not given and not cluster:
        return False
    if cluster:
        if given:
            raise ValueError(f"{names['cluster']} finds the processes itself: drop {', '.join(given)}")
    elif len(given) != 3:
        raise ValueError(f"a multi-process run needs {names['coordinator']}, {names['num_processes']} and "
                         f"{names['process_id']} (got only {', '.join(given)})")
    else:
        if num_processes < 1:
            raise ValueError(f"{names['num_processes']} {num_processes} must be at least 1")
        if not 0 <= process_id < num_processes:
            raise ValueError(f"{names['process_id']} {process_id} must be in [0, {num_processes}) for "
                             f"{names['num_processes']} {num_processes}")
    if devices is not None and devices < 1:
        raise ValueError(f"{names['devices']} {devices} must be a positive integer")
    try:
        initialize(coordinator, num_processes, process_id, cpu_devices=devices or cores())
    except JaxStarted as err:
        raise ValueError("a multi-process run must start JAX itself: run the command in a fresh process") from err
    except RuntimeError as err:
        where = ("the processes JAX found on this cluster" if cluster else
                 f"{coordinator} as process {process_id} of {num_processes}")
        raise ValueError(f"could not join {where}: {err}") from err
    return True
