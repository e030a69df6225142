"""JAX's persistent compilation cache, on by default, and the time a run spends compiling.

Most of a small run's time is XLA compiling its programs (a Beta TS step program takes about 9 s on CPU). JAX can
keep compiled programs on disk and reuse them in later processes; `import jaxbandit` turns that on (`enable`), so a
second run of a configuration in a new process loads its programs instead of compiling them.

* Where: ``$JAXBANDIT_COMPILATION_CACHE`` when it names a folder, else ``<root>/xla``, the root being
  ``$JAXBANDIT_CACHE``, else ``$XDG_CACHE_HOME/jaxbandit``, else ``~/.cache/jaxbandit`` (`root`, which also holds
  the checkpoints of ``checkpoint="auto"``).
* Every program is kept, however quick to compile (JAX's default keeps those over 1 s): a small run's set-up
  compiles about fifty small ones. A second run of 100 steps × 10 runs of Beta TS in a new process: 4.9 s with
  JAX's default, 3.9 s with every program kept, 9.5 s without a cache (the CLI, on 2 CPU cores).
* Bounded: when `enable` finds the folder above ``MAX_BYTES``, it deletes the least recently written entries until
  it holds half of that.
* Safe to delete at any time: an entry is one compiled program, keyed by the program, the jaxlib version and the
  compile options. A hit runs the executable compiled from the same program; on CPU compiling again gives the same
  numbers bit for bit (tests/test_compilation_cache.py). Only JAX's entries (``*-cache`` with their ``*-atime``)
  are pruned, never other files, and not the GPU autotuning folder JAX keeps inside.
* Off: ``JAXBANDIT_COMPILATION_CACHE=0`` (or ``off``, ``false``, ``no``) in the environment before
  ``import jaxbandit``; ``1``/``on``/``true``/``yes`` mean the default folder. A cache the user set for JAX
  (``JAX_COMPILATION_CACHE_DIR``, or ``jax.config`` before the import) is left as it is, and so is a minimum
  compile time set for JAX. A folder that cannot be created or written gets one warning and no cache.
* It is set at import, before jaxbandit compiles anything; JAX reads the folder when it first stores or loads an
  entry, so computations a process ran before ``import jaxbandit`` do not keep it off (unless
  ``jax_enable_compilation_cache`` is off).

`compile_seconds` counts, process-wide, the seconds JAX spends tracing, lowering and compiling or loading compiled
programs (its ``jax.monitoring`` duration events), so that a run reports its compilation apart from its simulation
speed (`jaxbandit.Results.compile_seconds`). Process-wide: compilations of other threads during a run count too (a
run caps its share at its own time).
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading

import jax
import jax.monitoring

__all__ = ["MAX_BYTES", "root", "directory", "enable", "prune", "compile_seconds"]

MAX_BYTES = 1 << 30  # 1 GiB; a step program's entry is 0.1-1 MB
_OFF = ("0", "off", "false", "no")
_ON = ("", "1", "on", "true", "yes")
_ENTRY, _ATIME = "-cache", "-atime"  # JAX's file cache: one entry file, and an access-time file when it evicts
_JAX_DEFAULT_MIN_COMPILE_SECONDS = 1.0
# JAX's duration events of one compilation: tracing, lowering to MLIR, and XLA's compile or the cache's load (the
# backend event wraps both, so the cache's own retrieval event is not added again).
_COMPILE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/jaxpr_to_mlir_module_duration",
                   "/jax/core/compile/backend_compile_duration")
_lock = threading.Lock()
_seconds = 0.0


def _listen(event: str, duration: float, **kwargs) -> None:
    global _seconds
    if event in _COMPILE_EVENTS:
        with _lock:
            _seconds += duration


jax.monitoring.register_event_duration_secs_listener(_listen)


def compile_seconds() -> float:
    """Seconds this process has spent compiling (tracing, lowering, XLA compile or cache load) since jaxbandit was
    imported; a run's share is the difference across it."""
    return _seconds


def root() -> str:
    """jaxbandit's cache folder: ``$JAXBANDIT_CACHE``, else ``$XDG_CACHE_HOME/jaxbandit``, else
    ``~/.cache/jaxbandit``."""
    return os.environ.get("JAXBANDIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "jaxbandit")


def directory() -> str | None:
    """The folder jaxbandit would use for compiled programs, or ``None`` where ``$JAXBANDIT_COMPILATION_CACHE``
    turns the cache off."""
    setting = os.environ.get("JAXBANDIT_COMPILATION_CACHE", "").strip()
    if setting.lower() in _OFF:
        return None
    return os.path.join(root(), "xla") if setting.lower() in _ON else setting


def prune(path: str, max_bytes: int = MAX_BYTES) -> int:
    """Delete the least recently written entries of JAX's cache in ``path`` (``*-cache`` files, each with its
    ``*-atime`` file) while they hold more than ``max_bytes``, down to half of it; returns the bytes deleted. Other
    files are neither counted nor touched; files that vanish or cannot be removed meanwhile are skipped."""
    entries = []
    try:
        with os.scandir(path) as it:
            for e in it:
                try:
                    if e.name.endswith(_ENTRY) and not e.name.startswith(".") and e.is_file(follow_symlinks=False):
                        st = e.stat(follow_symlinks=False)
                        entries.append((st.st_mtime, st.st_size, e.path))
                except OSError:
                    continue
    except OSError:
        return 0
    total = sum(size for _, size, _ in entries)
    if total <= max_bytes:
        return 0
    deleted = 0
    for _, size, file in sorted(entries):
        if total - deleted <= max_bytes // 2:
            break
        try:
            os.remove(file)
            deleted += size
        except OSError:
            continue
        try:
            os.remove(file[:-len(_ENTRY)] + _ATIME)
        except OSError:
            pass
    return deleted


def enable(path: str | None = None, max_bytes: int = MAX_BYTES) -> str | None:
    """Use ``path`` (default `directory`) as JAX's persistent compilation cache, pruned to ``max_bytes``; returns the
    folder in use, or ``None`` when the cache is off (``$JAXBANDIT_COMPILATION_CACHE=0``, or JAX's
    ``jax_enable_compilation_cache``), or when the folder cannot be created or written (a warning says so; runs go
    on compiling). A cache folder already set for JAX is kept and returned (not pruned: it is the user's)."""
    current = jax.config.jax_compilation_cache_dir
    if current:
        return current
    path = path or directory()
    if path is None or not jax.config.jax_enable_compilation_cache:
        return None
    try:  # by writing a file: access() says yes to root where writes still fail (/proc, /sys, read-only mounts)
        os.makedirs(path, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=path, prefix=".jaxbandit-probe-")
        os.close(handle)
        os.remove(probe)
    except OSError as err:
        print(f"jaxbandit: warning: cannot use the compilation cache folder {path} ({err.strerror or err}); "
              "compiling without it (set JAXBANDIT_COMPILATION_CACHE to another folder, or 0)", file=sys.stderr)
        return None
    prune(path, max_bytes)
    jax.config.update("jax_compilation_cache_dir", path)
    if jax.config.jax_persistent_cache_min_compile_time_secs == _JAX_DEFAULT_MIN_COMPILE_SECONDS:
        # JAX's default: keep also the many small programs a run's set-up compiles (0.01-0.1 s each, about 1 s of a
        # small run); a threshold the user chose is kept
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return path
