"""Building jaxbandit's wheel and sdist once per test run, and fresh virtual environments to install them in: shared
by tests/test_packaging.py and the slow test of tests/test_colab_install.py (not a conftest fixture: only they need
it)."""
import contextlib
import glob
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:
    import fcntl
except ImportError:  # not POSIX: no lock (run these tests in one process there)
    fcntl = None


def env(**extra) -> dict:
    """The environment of a child process that must see only its own virtual environment: no PYTHONPATH (nor the
    checkout, nor this interpreter's venv), pip's version check off, plots off-screen."""
    out = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "JAXBANDIT_SOURCE")}
    out.update(PIP_DISABLE_PIP_VERSION_CHECK="1", MPLBACKEND="Agg", **extra)
    return out


def run(argv, *, cwd, timeout=900, extra_env=None, check=True) -> subprocess.CompletedProcess:
    """Run argv in cwd with env(); with ``check``, fail the test with its output when it fails."""
    out = subprocess.run([str(a) for a in argv], cwd=cwd, env=env(**(extra_env or {})), capture_output=True,
                         text=True, timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, argv))} exited with {out.returncode}\n--- stdout\n"
                             f"{out.stdout[-4000:]}\n--- stderr\n{out.stderr[-4000:]}")
    return out


@contextlib.contextmanager
def _locked(path):
    if fcntl is None:
        yield
        return
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def built_dists(tmp_path_factory) -> tuple:
    """(wheel, sdist) of the checkout, built by ``python -m build`` once per test run: the xdist workers of one run
    share the build (the first builds it under a lock, the others wait and reuse it), and two builds never write the
    checkout's jaxbandit.egg-info at once."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # this run's folder, shared by its workers (a run without xdist has its own basetemp)
    out = root / "jaxbandit-dists"
    with _locked(root / "jaxbandit-dists.lock"):
        if not (out / "built").exists():
            start = time.perf_counter()
            run([sys.executable, "-m", "build", "--outdir", out, REPO], cwd=REPO, timeout=600)
            (out / "built").write_text(f"{time.perf_counter() - start:.1f} s\n")
    wheels, sdists = glob.glob(str(out / "*.whl")), glob.glob(str(out / "*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, os.listdir(out)
    return wheels[0], sdists[0]


def fresh_venv(path) -> str:
    """A new virtual environment at path, without the system's site-packages; its python."""
    run([sys.executable, "-m", "venv", path], cwd=os.path.dirname(str(path)), timeout=300)
    python = os.path.join(path, "Scripts" if os.name == "nt" else "bin", "python")
    assert os.path.exists(python), python
    return python
