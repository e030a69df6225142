"""The suite's shared XLA compilation cache (conftest.py): on for the tests and their subprocesses, and pruned by
the controller (oldest entries first, `jaxbandit.compilation_cache.prune`) once it grows past its limit (JAX itself
never evicts)."""
import os
import types

import conftest


def test_compilation_cache_is_shared_with_subprocesses():
    import jax

    path = os.environ["JAX_COMPILATION_CACHE_DIR"]  # inherited by the CLI, README and notebook subprocesses
    assert jax.config.jax_compilation_cache_dir == path
    assert jax.config.jax_persistent_cache_min_compile_time_secs == 0


def test_cache_past_its_limit_is_pruned_by_the_controller_only(tmp_path, monkeypatch):
    cache = tmp_path / "xla"
    cache.mkdir()
    (cache / "old-cache").write_bytes(b"x" * 100)
    os.utime(cache / "old-cache", (1000, 1000))
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(cache))
    monkeypatch.setattr(conftest, "_XLA_CACHE_LIMIT", 100)
    controller, worker = types.SimpleNamespace(), types.SimpleNamespace(workerinput={})
    conftest.pytest_configure(controller)  # at the limit: kept
    assert (cache / "old-cache").exists()
    (cache / "new-cache").write_bytes(b"x")
    conftest.pytest_configure(worker)  # past it, but a worker leaves it to the controller
    assert (cache / "old-cache").exists()
    conftest.pytest_configure(controller)  # the oldest entries go, down to half the limit
    assert sorted(os.listdir(cache)) == ["new-cache"]
