"""The notebooks' install cell (notebooks/install_cell.py renders it into every notebook). The default tier runs it
with pip recorded (subprocess.run replaced) and the installed distributions faked; the slow tier runs it for real:
in a fresh virtual environment holding only jax and jaxlib (the runtime's own build), with the wheel built from
this checkout uploaded to its working folder, as in a fresh Colab runtime."""
import glob
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib

import pytest

from jaxbandit.version import __version__

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(REPO, "notebooks", "*.ipynb")))
_spec = importlib.util.spec_from_file_location("install_cell", os.path.join(REPO, "notebooks", "install_cell.py"))
install_cell = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install_cell)
VALUES = install_cell.values()


def _cells(path, kind="code"):
    with open(path, encoding="utf-8") as f:
        return ["".join(c["source"]) for c in json.load(f)["cells"] if c["cell_type"] == kind]


INSTALL = _cells(NOTEBOOKS[0])[0]  # the cell as the notebooks hold it (test_notebooks_are_in_sync: all the same)


# ---------------------------------------------------------------------------------------------- one source, in sync

def test_notebooks_are_in_sync_with_the_template():
    """Every notebook's first code cell is the template rendered with the current version, git URL and jax minimum,
    and its "Run it" paragraph is the rendered one: bumping the version without `install_cell.py --write` fails."""
    assert len(NOTEBOOKS) >= 4
    assert install_cell.sync() == [], "run `python notebooks/install_cell.py --write`"
    for path in NOTEBOOKS:
        assert _cells(path)[0] == install_cell.render(), os.path.basename(path)
        intro = _cells(path, "markdown")[0]
        assert install_cell.run_it(os.path.basename(path)) in intro, os.path.basename(path)
        assert "colab.research.google.com/github/" in intro and "JAXBANDIT_SOURCE" in intro
    assert install_cell.main([]) == 0


def test_values_come_from_where_each_is_set():
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert VALUES["VERSION"] == __version__
    assert VALUES["GIT_URL"] == "git+" + project["urls"]["Source"]
    assert f"jax>={VALUES['JAX_MIN']}" in project["dependencies"]
    assert f'VERSION, GIT_URL, JAX_MIN = "{__version__}", "{VALUES["GIT_URL"]}", "{VALUES["JAX_MIN"]}"' in INSTALL
    # the repository's URL is written once: the other project URLs are under it
    assert all(url.startswith(project["urls"]["Source"]) for url in project["urls"].values()), project["urls"]


def test_sync_rewrites_only_the_install_cell_and_run_it_paragraph(tmp_path):
    """`--write` on a stale copy restores the notebook byte for byte: the other cells, outputs, metadata and the JSON
    formatting (nbformat's) are kept."""
    for path in NOTEBOOKS:
        with open(path, encoding="utf-8") as f:
            original = f.read()
        nb = json.loads(original)
        code = next(c for c in nb["cells"] if c["cell_type"] == "code")
        intro = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
        code["source"] = ["# an old install cell\n", 'JAXBANDIT_SOURCE = ""']
        intro["source"] = ["".join(intro["source"]).replace("**Run it:** locally", "**Run it:** long ago")]
        stale = tmp_path / os.path.basename(path)
        stale.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        assert install_cell.sync([str(stale)]) == [str(stale)]
        assert install_cell.main([str(stale)]) == 1
        assert install_cell.sync([str(stale)], write=True) == [str(stale)]
        assert stale.read_text(encoding="utf-8").rstrip("\n") == original.rstrip("\n"), os.path.basename(path)


# ------------------------------------------------------------------------------------- the cell with pip recorded

class _Dist:
    def __init__(self, name, version):
        self.metadata, self.version = {"Name": name}, version


RUNTIME_JAX = {"jax": "0.10.2", "jaxlib": "0.10.2"}


def _run_cell(monkeypatch, tmp_path, *, installed=False, source=None, variable="", succeed=(), jax=None,
              cell=INSTALL):
    """Execute the install cell in tmp_path with jaxbandit (not) importable, the installed distributions ``jax``
    (name -> version) and pip recorded: a pip call succeeds when its target is one of ``succeed`` (".whl": any
    wheel; "": anything). Returns the
    calls, each as {"argv", "target", "pins" (the constraints file's lines), "env"}."""
    import importlib.util as iu
    calls = []
    real_find_spec = iu.find_spec
    monkeypatch.setattr(iu, "find_spec", lambda name, *a: real_find_spec(name, *a)
                        if installed or name != "jaxbandit" else None)
    jax = RUNTIME_JAX if jax is None else jax
    dists = [_Dist(n, v) for n, v in (jax.items() if isinstance(jax, dict) else jax)]   # or (name, version) pairs
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: iter(dists))

    def pip(argv, **kwargs):
        assert argv[:6] == [sys.executable, "-m", "pip", "install", "-q", "-c"] and len(argv) == 8, argv
        with open(argv[argv.index("-c") + 1]) as f:
            pins = f.read().splitlines()
        calls.append({"argv": argv, "target": argv[-1], "pins": pins, "env": kwargs.get("env")})
        ok = any(s in ("", argv[-1]) or (s == ".whl" and argv[-1].endswith(s)) for s in succeed)
        err = "" if ok else (f"  fatal: unable to access '{argv[-1]}': Could not resolve host\nerror: subprocess-exited"
                             if argv[-1].startswith("git+") else
                             f"ERROR: Could not find a version that satisfies the requirement {argv[-1]}\n"
                             "ERROR: No matching distribution found")
        return subprocess.CompletedProcess(argv, 0 if ok else 1, stdout="", stderr=err)

    monkeypatch.setattr(subprocess, "run", pip)
    if source is None:
        monkeypatch.delenv("JAXBANDIT_SOURCE", raising=False)
    else:
        monkeypatch.setenv("JAXBANDIT_SOURCE", source)
    monkeypatch.chdir(tmp_path)
    exec(compile(cell.replace('JAXBANDIT_SOURCE = ""', f"JAXBANDIT_SOURCE = {variable!r}"), "install", "exec"), {})
    return calls


INDEX, GIT = f"jaxbandit=={__version__}", VALUES["GIT_URL"]
GIT_TAG = f"{GIT}@v{__version__}"


def test_installed_does_nothing(monkeypatch, tmp_path, capsys):
    assert _run_cell(monkeypatch, tmp_path, installed=True, source="git+https://example.org/x.git") == []
    assert "jaxbandit is installed" in capsys.readouterr().out


def test_tries_the_index_first(monkeypatch, tmp_path, capsys):
    calls = _run_cell(monkeypatch, tmp_path, succeed=[INDEX])
    assert [c["target"] for c in calls] == [INDEX]  # pinned to the notebooks' release: no other release, no other
    assert "installed jaxbandit from the package index" in capsys.readouterr().out


def test_then_the_git_repository_at_the_release_tag(monkeypatch, tmp_path, capsys):
    calls = _run_cell(monkeypatch, tmp_path, succeed=[GIT_TAG])
    assert [c["target"] for c in calls] == [INDEX, GIT_TAG]   # the release these notebooks are written for
    assert GIT.startswith("git+https://") and "@" not in GIT.removeprefix("git+https://")
    assert all(c["env"]["GIT_TERMINAL_PROMPT"] == "0" for c in calls)  # a missing repository fails, never prompts
    out = capsys.readouterr().out
    # the index's failure, expected until jaxbandit is published, is one line
    assert f"not installed from the package index ({INDEX}): ERROR: Could not find a version" in out
    assert out.count("\n") == 2 and "installed jaxbandit from the git repository's tag" in out


def test_then_the_git_repositorys_default_branch(monkeypatch, tmp_path, capsys):
    calls = _run_cell(monkeypatch, tmp_path, succeed=[GIT])   # no tag v<VERSION> in the repository
    assert [c["target"] for c in calls] == [INDEX, GIT_TAG, GIT]
    assert "installed jaxbandit from the git repository's default branch" in capsys.readouterr().out


def test_then_the_newest_uploaded_wheel(monkeypatch, tmp_path, capsys):
    old, new = tmp_path / "jaxbandit-0.3.0-py3-none-any.whl", tmp_path / f"jaxbandit-{__version__}-py3-none-any.whl"
    for i, wheel in enumerate((new, old)):  # the newest by time, whatever the name
        wheel.write_bytes(b"")
        os.utime(wheel, (1e9 + i, 1e9 + i))
    calls = _run_cell(monkeypatch, tmp_path, succeed=[".whl"])
    assert [c["target"] for c in calls] == [INDEX, GIT_TAG, GIT, str(old)]
    out = capsys.readouterr().out
    assert "not installed from the git repository" in out and "fatal: unable to access" in out
    assert f"installed jaxbandit from an uploaded wheel: {old}" in out


def test_all_failing_says_what_was_tried_and_how_to_fix(monkeypatch, tmp_path):
    with pytest.raises(RuntimeError) as no_wheel:
        _run_cell(monkeypatch, tmp_path)
    message = str(no_wheel.value)
    for tried in (f"the package index ({INDEX})", f"the git repository's tag ({GIT_TAG})",
                  f"the git repository's default branch ({GIT})",
                  f"an uploaded wheel: no jaxbandit-*.whl in {tmp_path}"):
        assert tried in message, message
    assert "pip wheel --no-deps ." in message and "JAXBANDIT_SOURCE" in message
    wheel = tmp_path / "jaxbandit-9.9.9-py3-none-any.whl"
    wheel.write_bytes(b"")
    with pytest.raises(RuntimeError, match=r"(?s)an uploaded wheel \(.*9\.9\.9.*\): pip said:\n.*No matching"):
        _run_cell(monkeypatch, tmp_path)  # the wheel's own failure is shown in pip's words


def test_constraints_pin_the_runtimes_jax(monkeypatch, tmp_path):
    runtime = {"jax": "0.8.1", "jaxlib": "0.8.1", "jax-cuda12-plugin": "0.8.1", "jax_cuda12_pjrt": "0.8.1",
               "jax-cuda13-plugin": "0.8.1", "libtpu": "0.0.21", "numpy": "2.0.0", "jaxtyping": "0.2.36",
               "optax": "0.2.4", "jax-md": "0.2.8"}
    calls = _run_cell(monkeypatch, tmp_path, jax=runtime, succeed=[GIT])
    assert len(calls) == 3
    for call in calls:
        assert call["pins"] == ["jax==0.8.1", "jax-cuda12-pjrt==0.8.1", "jax-cuda12-plugin==0.8.1",
                                "jax-cuda13-plugin==0.8.1", "jaxlib==0.8.1", "libtpu==0.0.21"]
    # a distribution found twice (a shadowed copy further down sys.path): the first, which is imported, is pinned
    twice = [("jax", "0.10.2"), ("jaxlib", "0.10.2"), ("jax", "0.9.0")]
    assert _run_cell(monkeypatch, tmp_path, jax=twice, succeed=[INDEX])[0]["pins"] == ["jax==0.10.2",
                                                                                      "jaxlib==0.10.2"]
    # no jax in the runtime: nothing to keep, pip installs jaxbandit's
    assert _run_cell(monkeypatch, tmp_path, jax={"numpy": "2.0.0"}, succeed=[INDEX])[0]["pins"] == []


def test_an_older_jax_than_needed_is_refused_before_pip(monkeypatch, tmp_path):
    with pytest.raises(RuntimeError, match=re.escape(f"this runtime's jax 0.7.2 is older than jaxbandit needs "
                                                     f"(jax>={VALUES['JAX_MIN']})")) as refused:
        _run_cell(monkeypatch, tmp_path, jax={"jax": "0.7.2", "jaxlib": "0.7.2"}, succeed=[INDEX])
    assert 'jax[cuda12]' in str(refused.value) and "restart" in str(refused.value)
    with pytest.raises(RuntimeError, match="older than jaxbandit needs"):  # an explicit source too
        _run_cell(monkeypatch, tmp_path, jax={"jax": "0.4.38"}, source="git+https://example.org/x.git")
    # versions compare as numbers (0.10 > 0.8), and the minimum is the rendered one, from pyproject.toml
    assert _run_cell(monkeypatch, tmp_path, jax={"jax": "0.10.0rc1"}, succeed=[INDEX])
    # a pre-release of the minimum is older than it (pip's order): refused here, not by pip's resolver
    for pre in ("0.8.0rc1", "0.8.dev0", "0.8.0.dev3", "0.8b2"):
        with pytest.raises(RuntimeError, match=f"jax {re.escape(pre)} is older"):
            _run_cell(monkeypatch, tmp_path, jax={"jax": pre}, succeed=[INDEX])
    assert _run_cell(monkeypatch, tmp_path, jax={"jax": "0.8"}, succeed=[INDEX])          # 0.8 == 0.8.0
    assert _run_cell(monkeypatch, tmp_path, jax={"jax": "0.8.0.post1"}, succeed=[INDEX])  # a post-release is newer
    later = install_cell.render({**VALUES, "JAX_MIN": "0.11"})
    with pytest.raises(RuntimeError, match=r"jax 0\.10\.2 is older than jaxbandit needs \(jax>=0\.11\)"):
        _run_cell(monkeypatch, tmp_path, cell=later)


def test_does_not_mistake_a_cloned_checkout_for_an_install(tmp_path):
    """In Colab a clone lands in /content/jaxbandit, a child of the working folder: `find_spec` then finds the
    checkout's root as a namespace package, which is not an install. Run in a child Python without site-packages
    (-S -E), so the jaxbandit installed here is invisible, with pip recorded."""
    (tmp_path / "jaxbandit").mkdir()
    (tmp_path / "jaxbandit" / "pyproject.toml").write_text("")
    script = ("import subprocess; calls = []\n"
              "subprocess.run = lambda argv, **kw: calls.append(argv[-1]) or subprocess.CompletedProcess(argv, 0, "
              "'', '')\n"
              f"exec(compile({INSTALL!r}, 'install', 'exec'), {{}})\n"
              "print('pip:', calls)\n")
    # the clone given as JAXBANDIT_SOURCE goes to pip as an absolute path: pip reads a bare "jaxbandit" as a name
    for env, target in (({"JAXBANDIT_SOURCE": "jaxbandit"}, str(tmp_path / "jaxbandit")), ({}, INDEX)):
        out = subprocess.run([sys.executable, "-S", "-E", "-c", script], cwd=tmp_path, capture_output=True,
                             text=True, env=env, timeout=60)
        assert out.returncode == 0, out.stderr
        assert f"pip: [{target!r}]" in out.stdout and "installed jaxbandit from" in out.stdout, out.stdout


def test_installs_each_kind_of_explicit_source(monkeypatch, tmp_path):
    repo = REPO
    wheel = tmp_path / "jaxbandit-0.3.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    archive = tmp_path / "jaxbandit.zip"
    archive.write_bytes(b"")
    for source in ("git+https://github.com/someone/jaxbandit.git@v0.3.0", str(wheel), str(archive), repo,
                   "https://example.org/jaxbandit-0.3.0.tar.gz"):
        calls = _run_cell(monkeypatch, tmp_path, source=source, succeed=[source])
        assert [c["target"] for c in calls] == [source]  # only it: neither the index nor git nor the wheel
        assert calls[0]["pins"] == ["jax==0.10.2", "jaxlib==0.10.2"]
    # pasted with a trailing space or newline
    assert _run_cell(monkeypatch, tmp_path, source=f" {repo}\n", succeed=[repo])[0]["target"] == repo
    # the variable in the cell works as the environment variable does
    assert _run_cell(monkeypatch, tmp_path, variable=repo, succeed=[repo])[0]["target"] == repo


def test_a_failing_explicit_source_is_not_replaced_by_another(monkeypatch, tmp_path):
    with pytest.raises(RuntimeError, match=r"(?s)JAXBANDIT_SOURCE \(git\+https://example.org/x.git\): pip said:.*"
                                           r"fatal: unable to access.*To fix: check JAXBANDIT_SOURCE"):
        _run_cell(monkeypatch, tmp_path, source="git+https://example.org/x.git", succeed=[INDEX, ".whl"])


@pytest.mark.parametrize("make, message", [
    (lambda p: str(p / "missing.whl"), "does not exist here"),
    (lambda p: str(p), "folder without pyproject.toml"),
    (lambda p: (p / "notes.txt").write_text("") or str(p / "notes.txt"), "not a wheel"),
    (lambda p: "git+https://github.com/OWNER/REPO.git", "placeholder OWNER/REPO"),
    (lambda p: "https://github.com/someone/jaxbandit", "'git\\+https://github.com/someone/jaxbandit'"),
])
def test_rejects_bad_explicit_sources_clearly(monkeypatch, tmp_path, make, message):
    folder = tmp_path / "sources"
    folder.mkdir()
    with pytest.raises((FileNotFoundError, ValueError), match=message):
        _run_cell(monkeypatch, tmp_path, source=make(folder), succeed=[""])


# ------------------------------------------------------------------------------------------------- for real (slow)

SNAPSHOT = """
import hashlib, importlib.metadata, json, os
out = {}
for name in ("jax", "jaxlib"):
    dist = importlib.metadata.distribution(name)
    record = next(f for f in dist.files if f.name == "RECORD" and f.parent.name.endswith(".dist-info")).locate()
    stat = os.stat(record)
    out[name] = [dist.version, str(record), hashlib.sha256(open(record, "rb").read()).hexdigest(), stat.st_ino,
                 stat.st_mtime_ns]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_the_cell_for_real_in_a_fresh_venv(tmp_path_factory, tmp_path):
    """A fresh venv with jax and jaxlib installed first (standing for the runtime's accelerator build), the wheel of
    this checkout copied into the working folder (as an upload to /content), and the notebooks' cell run there by
    the venv's python. The cell is rendered with a version never published and a git URL that cannot exist, so that
    the index and both git attempts fail here whatever is published or reachable (they fail fast, without a
    prompt); the wheel installs. jaxbandit then imports and simulates in a new process, and jax and jaxlib are the
    very distributions installed before (same version, same RECORD file, never reinstalled). About 1 to 2 minutes
    with a warm pip cache."""
    from tests import packaging_helpers as ph
    wheel, _ = ph.built_dists(tmp_path_factory)
    python = ph.fresh_venv(tmp_path / "venv")
    work = tmp_path / "content"
    work.mkdir()
    ph.run([python, "-m", "pip", "install", "-q", "jax", "jaxlib"], cwd=work)
    before = json.loads(ph.run([python, "-c", SNAPSHOT], cwd=work).stdout)
    shutil.copy(wheel, work)

    start = time.perf_counter()
    unpublished, nowhere = "0.0.0.dev0", "git+file:///nonexistent/jaxbandit.git"
    rendered = install_cell.render({**VALUES, "VERSION": unpublished, "GIT_URL": nowhere})
    cell = ph.run([python, "-c", rendered], cwd=work, timeout=900)
    seconds = time.perf_counter() - start
    print(cell.stdout, f"the cell took {seconds:.0f} s", sep="\n")
    lines = cell.stdout.splitlines()
    assert lines[0].startswith(f"not installed from the package index (jaxbandit=={unpublished}): ERROR:"), cell.stdout
    assert lines[1].startswith(f"not installed from the git repository's tag ({nowhere}@v{unpublished}): "), \
        cell.stdout
    assert lines[2].startswith(f"not installed from the git repository's default branch ({nowhere}): "), cell.stdout
    assert lines[3].startswith(f"installed jaxbandit from an uploaded wheel: {work / os.path.basename(wheel)}"), \
        cell.stdout

    check = ("import jaxbandit as jb; r = jb.simulate('bernoulli', 'thompson', env_params={'means': [0.3, 0.7]}, "
             "horizon=100, runs=2); print(jb.__file__, jb.__version__, r.final().shape)")
    ran = ph.run([python, "-c", check], cwd=tmp_path, extra_env={"JAXBANDIT_COMPILATION_CACHE": "0"})
    assert ran.stdout.startswith(str(tmp_path / "venv")) and f" {__version__} (2,)" in ran.stdout, ran.stdout
    after = json.loads(ph.run([python, "-c", SNAPSHOT], cwd=work).stdout)
    assert after == before, (before, after)
