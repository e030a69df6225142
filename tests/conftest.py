"""Test tiers. The default suite (the README's test command, `python -m pytest -q`) must finish in 10 minutes on
2 CPU cores. Tests marked ``slow`` (long statistical checks, quick experiment reproductions, notebooks, the README
run as written, the full golden comparison) run only with ``--runslow``; CI runs them after the default suite
(`.ci/run`: ``pytest -q --runslow -m slow``). Tests marked ``gpu`` need an accelerator and are skipped without one."""
import os
import tempfile

import pytest

# Tests compile many small programs; keep XLA quiet.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# The CLI checkpoints into $JAXBANDIT_CACHE by default: keep the tests' checkpoints out of the user's cache.
os.environ["JAXBANDIT_CACHE"] = tempfile.mkdtemp(prefix="jaxbandit-tests-")


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
