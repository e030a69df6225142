"""jaxbandit as others install it: the wheel and sdist that `python -m build` makes from the checkout, their metadata
(twine check), their contents, and a smoke test of each installed in a fresh virtual environment, run outside the
checkout so that the checkout is never what gets imported."""
import glob
import os
import sys
import tarfile
import time
import zipfile

import pytest

from jaxbandit.version import __version__
from tests import packaging_helpers as ph

pytestmark = pytest.mark.slow  # builds (about 10 s with a warm pip cache) and installs into a fresh venv (minutes)


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    return ph.built_dists(tmp_path_factory)


def test_twine_check_passes(dists):
    out = ph.run([sys.executable, "-m", "twine", "check", "--strict", *dists], cwd=ph.REPO, timeout=300)
    assert out.stdout.count("PASSED") == 2, out.stdout


def test_file_names_carry_the_version(dists):
    wheel, sdist = map(os.path.basename, dists)
    assert wheel == f"jaxbandit-{__version__}-py3-none-any.whl"
    assert sdist == f"jaxbandit-{__version__}.tar.gz"


def test_wheel_contents(dists):
    with zipfile.ZipFile(dists[0]) as whl:
        names = whl.namelist()
        metadata = whl.read(f"jaxbandit-{__version__}.dist-info/METADATA").decode()
        entry_points = whl.read(f"jaxbandit-{__version__}.dist-info/entry_points.txt").decode()
    recorded = {os.path.basename(p) for p in glob.glob(os.path.join(ph.REPO, "experiments", "*.json"))}
    assert recorded and {n.removeprefix("jaxbandit/experiments/") for n in names
                         if n.startswith("jaxbandit/experiments/") and n.endswith(".json")} == recorded
    assert "jaxbandit/experiments/__init__.py" in names
    assert {n.split("/")[0] for n in names} == {"jaxbandit", f"jaxbandit-{__version__}.dist-info"}, \
        "only the jaxbandit package (no tests/, no top-level experiments/)"
    assert "jaxbandit = jaxbandit.cli:main" in entry_points
    assert "Requires-Python: >=3.11" in metadata and "Project-URL: Source, https://" in metadata
    assert "Requires-Dist: jax>=" in metadata and "Description-Content-Type: text/markdown" in metadata


def test_sdist_contents(dists):
    prefix = f"jaxbandit-{__version__}/"
    with tarfile.open(dists[1]) as sdist:
        names = {n.removeprefix(prefix) for n in sdist.getnames()}
    needed = {"pyproject.toml", "setup.py", "README.md", "CHANGELOG.md", "jaxbandit/__init__.py",
              "jaxbandit/version.py", "experiments/__init__.py"}
    needed |= {os.path.relpath(p, ph.REPO) for p in glob.glob(os.path.join(ph.REPO, "experiments", "*.json"))}
    needed |= {os.path.basename(p) for p in glob.glob(os.path.join(ph.REPO, "LICEN[CS]E*"))}
    assert needed <= names, sorted(needed - names)
    for unwanted in (".venv", "out", "docs", "tests", "notebooks", "benchmarks", ".git", "build", "dist"):
        assert not any(n == unwanted or n.startswith(unwanted + "/") for n in names), unwanted


def test_installs_and_runs_in_a_fresh_venv(dists, tmp_path):
    """The wheel in a new venv (its dependencies from the index), then the sdist over it (built by pip), each run
    from a folder outside the checkout. About 1 to 2 minutes with a warm pip cache (most of it installing jax)."""
    start = time.perf_counter()
    wheel, sdist = dists
    python = ph.fresh_venv(tmp_path / "venv")
    cli = os.path.join(os.path.dirname(python), "jaxbandit")
    work = tmp_path / "work"  # the commands' working folder: no jaxbandit in it
    work.mkdir()
    ph.run([python, "-m", "pip", "install", "-q", wheel], cwd=work)
    where = ph.run([python, "-c", "import jaxbandit; print(jaxbandit.__file__, jaxbandit.__version__)"], cwd=work)
    path, version = where.stdout.split()
    assert path.startswith(str(tmp_path / "venv")) and version == __version__, where.stdout
    assert "thompson" in ph.run([cli, "list"], cwd=work).stdout
    ran = ph.run([cli, "run", "--env", "bernoulli", "--means", "0.3,0.7", "--policy", "thompson", "--horizon", "200",
                  "--runs", "4", "--no-progress"], cwd=work)
    assert "final pseudo-regret" in ran.stdout, ran.stdout
    out = tmp_path / "reproduced"
    ph.run([cli, "reproduce", "baselines-bernoulli9", "--quick", "--out", out], cwd=work)
    assert glob.glob(str(out / "*.png")), os.listdir(out)

    ph.run([python, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", sdist], cwd=work)
    assert "thompson" in ph.run([cli, "list"], cwd=work).stdout
    check = ("import importlib.resources, jaxbandit.experiments as e; "
             "print(e.__file__, sorted(p.name for p in importlib.resources.files(e).iterdir() "
             "if p.name.endswith('.json')))")
    listed = ph.run([python, "-c", check], cwd=work).stdout
    assert listed.startswith(str(tmp_path / "venv")) and "tuning_results.json" in listed, listed
    print(f"fresh-venv install and smoke test: {time.perf_counter() - start:.0f} s")
