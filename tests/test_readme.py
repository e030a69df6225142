"""Every code block of the README runs as written (in a fresh folder): the Python blocks in order as one script,
and each shell command, with `jaxbandit` and `.venv/bin/...` mapped to this interpreter. The set-up commands'
venv creation and install are what CI itself does; the README's test command is this suite and is not re-run."""
import os
import re
import shlex
import subprocess
import sys

import pytest

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
SETUP = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "


def blocks(language):
    with open(README, encoding="utf-8") as f:
        return re.findall(rf"```{language}\n(.*?)```", f.read(), flags=re.S)


def shell_commands():
    """The README's shell commands: continuation lines joined, comments dropped, set-up prefix removed."""
    return [command for command, _ in shell_commands_with_status()]


def shell_commands_with_status():
    """(command, expected exit status): 1 where the command's comment says "(exit status 1)" (a planted privacy
    bug that the audit must flag), else 0."""
    commands = []
    for block in blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            command, _, comment = line.partition("  #")
            command = command.strip()
            status = 1 if "(exit status 1)" in comment else 0
            if command.startswith(SETUP):
                command = command[len(SETUP):]
            if command and not command.startswith("#"):
                commands.append((command, status))
    return commands


def _python_exe_command(command):
    bin_dir = os.path.dirname(sys.executable)
    argv = shlex.split(command.replace(".venv/bin/", bin_dir + "/"))
    if argv[0] in ("jaxbandit", os.path.join(bin_dir, "jaxbandit")):
        argv = [sys.executable, "-m", "jaxbandit.cli"] + argv[1:]
    return argv


def test_readme_has_the_two_setup_commands():
    setup = [c for b in blocks("bash") for c in b.splitlines() if c.startswith(SETUP)]
    assert len(setup) == 2 and any("reproduce" in c for c in setup) and any("pytest" in c for c in setup)


@pytest.mark.slow
def test_readme_python_blocks_run(tmp_path):
    script = "\n\n".join(blocks("python"))
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "out" / "ts.npz").exists()


@pytest.mark.slow
@pytest.mark.parametrize("command, status", [(c, s) for c, s in shell_commands_with_status() if "pytest" not in c])
def test_readme_shell_commands_run(tmp_path, command, status):
    out = subprocess.run(_python_exe_command(command), cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert out.returncode == status, f"{command}\n{out.stderr[-3000:]}"
