"""Test tiers. The default suite (the README's test command, `python -m pytest -q`) must finish in 8 minutes on
2 CPU cores from a cold cache; most of its time is XLA compiling, so it runs one case per family of each
per-component test (`tests.helpers.default_subset`). Tests marked ``slow`` (the other cases, long statistical
checks, quick experiment reproductions, notebooks, the README and the documentation's pages run as written, the
documentation's strict build, the package built and installed in fresh environments, the full golden comparison)
run only with ``--runslow``; CI runs them after the default suite (`.ci/run`: ``pytest -q --runslow -m slow``; 25 minutes,
40 in all). Tests marked ``gpu`` need an accelerator and are skipped without one."""
import os
import tempfile

import pytest

# Tests compile many small programs; keep XLA quiet.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# The CLI checkpoints into $JAXBANDIT_CACHE by default: keep the tests' checkpoints out of the user's cache.
os.environ["JAXBANDIT_CACHE"] = tempfile.mkdtemp(prefix="jaxbandit-tests-")
# Most of the suite's time is XLA compiling; many tests compile the same program (in both xdist workers, in the CLI,
# README and notebook subprocesses, and again in the slow tier). JAX's persistent cache shares those compilations:
# it is keyed by the program, jaxlib version and compile options, so a hit runs the same executable bit for bit.
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "xla"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
_XLA_CACHE_LIMIT = 2 << 30  # bytes; JAX never evicts (without filelock): a run prunes a cache grown past this


def pytest_configure(config):
    if hasattr(config, "workerinput"):  # an xdist worker: its controller has checked
        return
    from jaxbandit import compilation_cache  # the suite's cache is set for JAX above, so jaxbandit leaves it alone
    compilation_cache.prune(os.environ["JAX_COMPILATION_CACHE_DIR"], _XLA_CACHE_LIMIT)  # oldest entries first


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow (and gpu on a GPU)")


def pytest_collection_modifyitems(config, items):
    runslow = config.getoption("--runslow")
    has_gpu = None
    for item in items:
        if "slow" in item.keywords and not runslow:
            item.add_marker(pytest.mark.skip(reason="slow tier: run with --runslow"))
        if "gpu" in item.keywords:
            if has_gpu is None:
                import jax
                has_gpu = jax.default_backend() == "gpu"
            if not (runslow and has_gpu):
                item.add_marker(pytest.mark.skip(reason="needs --runslow and a GPU"))


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
    """Drop the module's compiled programs when it ends. Every XLA:CPU executable keeps memory mappings for its
    code; a worker that kept all of the slow tier's (thousands) reached Linux's vm.max_map_count (65 530 maps, 6 GB
    resident) and crashed with a segmentation fault inside XLA's compiler (CI, the run of stop 54). The persistent
    compilation cache still serves a later module that compiles the same program."""
    yield
    import gc
    import sys
    if "jax" in sys.modules:
        sys.modules["jax"].clear_caches()
    gc.collect()
