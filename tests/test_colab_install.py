"""The notebooks' install cell (the same in every notebook), run in its local mode: pip is recorded, never run."""
import glob
import json
import os
import re
import subprocess
import sys

import pytest

NOTEBOOKS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "notebooks", "*.ipynb")))


def _cells(path, kind="code"):
    with open(path, encoding="utf-8") as f:
        return ["".join(c["source"]) for c in json.load(f)["cells"] if c["cell_type"] == kind]


INSTALL = _cells(NOTEBOOKS[0])[0]


def test_every_notebook_starts_with_the_same_install_cell():
    assert len(NOTEBOOKS) >= 4
    for path in NOTEBOOKS:
        assert _cells(path)[0] == INSTALL, os.path.basename(path)
        assert 'JAXBANDIT_SOURCE = ""' in INSTALL
        intro = _cells(path, "markdown")[0]
        assert "colab.research.google.com/github/" in intro and "JAXBANDIT_SOURCE" in intro, os.path.basename(path)


def _run_cell(monkeypatch, *, installed, source=None, variable=""):
    """Execute the install cell with jaxbandit (not) importable and pip recorded; returns the pip calls."""
    import importlib.util
    calls = []
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: real_find_spec(name, *a) if installed or name != "jaxbandit" else None)
    monkeypatch.setattr(subprocess, "run", lambda argv, check: calls.append(argv))
    if source is None:
        monkeypatch.delenv("JAXBANDIT_SOURCE", raising=False)
    else:
        monkeypatch.setenv("JAXBANDIT_SOURCE", source)
    exec(compile(INSTALL.replace('JAXBANDIT_SOURCE = ""', f"JAXBANDIT_SOURCE = {variable!r}"), "install", "exec"), {})
    return calls


def test_install_cell_local_mode_does_nothing_when_installed(monkeypatch, capsys):
    assert _run_cell(monkeypatch, installed=True, source="git+https://example.org/x.git") == []
    assert "jaxbandit is installed" in capsys.readouterr().out


def test_install_cell_does_not_mistake_a_cloned_checkout_for_an_install(tmp_path):
    """In Colab a clone lands in /content/jaxbandit, a child of the working folder: `find_spec` then finds the
    checkout's root as a namespace package, which is not an install. Run in a child Python without site-packages
    (-S -E), so the jaxbandit installed here is invisible, with pip recorded."""
    (tmp_path / "jaxbandit").mkdir()
    (tmp_path / "jaxbandit" / "pyproject.toml").write_text("")
    script = ("import subprocess, sys; calls = []\n"
              "subprocess.run = lambda argv, check: calls.append(argv[3:])\n"
              f"exec(compile({INSTALL!r}, 'install', 'exec'), {{}})\n"
              "print('pip:', calls)\n")
    out = subprocess.run([sys.executable, "-S", "-E", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         env={"JAXBANDIT_SOURCE": "jaxbandit"}, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "pip: [['install', '-q', 'jaxbandit']]" in out.stdout and "installed jaxbandit from" in out.stdout


def test_install_cell_without_a_source_says_what_to_set(monkeypatch):
    with pytest.raises(RuntimeError, match="set JAXBANDIT_SOURCE at the top of this cell to a git URL"):
        _run_cell(monkeypatch, installed=False)


def test_install_cell_installs_each_kind_of_source(monkeypatch, tmp_path):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    wheel = tmp_path / "jaxbandit-0.3.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    archive = tmp_path / "jaxbandit.zip"
    archive.write_bytes(b"")
    for source in ("git+https://github.com/someone/jaxbandit.git@v0.3.0", str(wheel), str(archive), repo,
                   "https://example.org/jaxbandit-0.3.0.tar.gz"):
        calls = _run_cell(monkeypatch, installed=False, source=source)
        assert calls == [[sys.executable, "-m", "pip", "install", "-q", source]]
    # pasted with a trailing space or newline
    assert _run_cell(monkeypatch, installed=False, source=f" {repo}\n")[0][-1] == repo
    # the variable in the cell works as the environment variable does
    assert _run_cell(monkeypatch, installed=False, variable=repo)[0][-1] == repo


@pytest.mark.parametrize("make, message", [
    (lambda p: str(p / "missing.whl"), "does not exist here"),
    (lambda p: str(p), "folder without pyproject.toml"),
    (lambda p: (p / "notes.txt").write_text("") or str(p / "notes.txt"), "not a wheel"),
    (lambda p: "git+https://github.com/OWNER/REPO.git", "placeholder OWNER/REPO"),
    (lambda p: "https://github.com/someone/jaxbandit", "'git\\+https://github.com/someone/jaxbandit'"),
])
def test_install_cell_rejects_bad_sources_clearly(monkeypatch, tmp_path, make, message):
    with pytest.raises((FileNotFoundError, ValueError), match=message):
        _run_cell(monkeypatch, installed=False, source=make(tmp_path))


def fenced_blocks(markdown: str) -> list:
    """The fenced Python code blocks (```python or ```) of a markdown text."""
    return re.findall(r"```(?:python|py)?\n(.*?)```", markdown, flags=re.S)


def test_fenced_block_extraction():
    text = "intro\n```python\nx = 1\n```\ntext `inline`\n```\ny = 2\n```\n```bash\nls\n```"
    assert fenced_blocks(text) == ["x = 1\n", "y = 2\n"]


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_code_blocks_in_notebook_markdown_run(path, tmp_path):
    """Every fenced code block in a notebook's markdown cells runs (none today: then nothing to run)."""
    for block in (b for md in _cells(path, "markdown") for b in fenced_blocks(md)):
        out = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True,
                             timeout=600, env={**os.environ, "JAXBANDIT_QUICK": "1", "MPLBACKEND": "Agg"})
        assert out.returncode == 0, f"{block}\n{out.stderr[-2000:]}"
