"""Every code block of the README and of the documentation site's pages runs as written (in a fresh folder): a
document's Python blocks in order as one script, and each shell command, with `jaxbandit` and `.venv/bin/...`
mapped to this interpreter and `docs/...` to the repository's. The set-up commands' venv creation and install are
what CI itself does; the README's test command is this suite and is not re-run. The documentation's build command
(`docs/build.py`: strict, offline, links and API reference checked) is one of these commands."""
import glob
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
SETUP = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "   # the tests'
DEMO_SETUP = "python3 -m venv .venv && .venv/bin/pip install -e . && "          # the main job's: no test extra
# the site's hand-written pages (not the generated API pages, nor the papers' digests, which hold no commands)
DOCUMENTS = [README] + sorted(p for p in glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)
                              if not any(part in p for part in ("/_build/", "/api/", "/spec/")))


def _name(path):
    return os.path.relpath(path, ROOT)


def blocks(language, path=README):
    with open(path, encoding="utf-8") as f:
        return re.findall(rf"```{language}\n(.*?)```", f.read(), flags=re.S)


def shell_commands_with_status(path=README):
    """A document's shell commands (continuation lines joined, comments dropped, set-up prefix removed), each with
    its expected exit status: 1 where its comment says "(exit status 1)" (a planted privacy bug that the audit must
    flag), else 0."""
    commands = []
    for block in blocks("bash", path):
        for line in re.sub(r"[ \t]*\\\n[ \t]*", " ", block).splitlines():   # a continuation: one space
            command, _, comment = line.partition("  #")
            command = command.strip()
            status = 1 if "(exit status 1)" in comment else 0
            for setup in (SETUP, DEMO_SETUP):
                if command.startswith(setup):
                    command = command[len(setup):].strip()
            if command and not command.startswith("#"):
                commands.append((command, status))
    return commands


def _python_exe_command(command):
    bin_dir = os.path.dirname(sys.executable)
    argv = shlex.split(command.replace(".venv/bin/", bin_dir + "/"))
    if argv[0] in ("jaxbandit", os.path.join(bin_dir, "jaxbandit")):
        argv = [sys.executable, "-m", "jaxbandit.cli"] + argv[1:]
    return [os.path.join(ROOT, a) if a.startswith("docs/") else a for a in argv]   # the repository's docs


def test_readme_has_the_two_setup_commands():
    """The main job installs jaxbandit alone (its dependencies suffice for a reproduction; the test extra is about
    120 packages, the documentation toolchain among them); the test command installs the extra, and the README says
    how long the suite takes."""
    lines = [c for b in blocks("bash") for c in b.splitlines()]
    assert [c for c in lines if c.startswith(DEMO_SETUP)] == [
        DEMO_SETUP + ".venv/bin/jaxbandit reproduce baselines-bernoulli9 --quick"]
    assert [c for c in lines if c.startswith(SETUP)] == [SETUP + ".venv/bin/python -m pytest -q"]
    with open(README, encoding="utf-8") as f:
        assert "at most 8 minutes on 2 cores from a cold cache" in f.read()


def test_shell_commands_fit_the_sites_code_column():
    """A command wider than the code column (117 characters, docs/_static/custom.css) is cut at its right edge on the
    site: long ones are broken with backslash continuations, which `shell_commands_with_status` joins again."""
    wide = [(_name(p), line) for p in DOCUMENTS for b in blocks("bash", p) for line in b.splitlines()
            if len(line) > 117]
    assert wide == []
    getting_started = os.path.join(ROOT, "docs", "getting_started.md")
    assert (".venv/bin/jaxbandit reproduce baselines-bernoulli9 --quick", 0) in shell_commands_with_status(
        getting_started)


def test_documents_are_found():
    names = [_name(p) for p in DOCUMENTS]
    assert "README.md" in names and os.path.join("docs", "getting_started.md") in names
    assert not any("/api/" in n or "/spec/" in n for n in names)


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in DOCUMENTS if blocks("python", p)], ids=_name)
def test_python_blocks_run(tmp_path, path):
    script = "\n\n".join(blocks("python", path))
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("command, status", list(dict.fromkeys(   # a command on two pages runs once
    (c, s) for p in DOCUMENTS for c, s in shell_commands_with_status(p) if "pytest" not in c)))
def test_shell_commands_run(tmp_path, command, status):
    argv = _python_exe_command(command)
    if any(a.endswith("docs/build.py") for a in argv) and "--out" not in argv:
        argv += ["--out", str(tmp_path / "site")]   # not into the checkout's docs/_build, which a user may be reading
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert out.returncode == status, f"{command}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
