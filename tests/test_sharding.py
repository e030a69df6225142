"""Sharding the runs over devices and processes (`jaxbandit.sharding`): the same numbers on any number of devices,
checkpoints that resume across device counts (one process) or per shard (several), and clear errors.

A JAX process's devices are fixed when it starts, so the runs on several devices happen in fresh interpreters
(tests/sharded_worker.py), compared bit for bit against the values the engine recorded on one device.
"""
import json
import os
import re
import socket
import subprocess
import sys

import jax
import pytest

import jaxbandit as jb
from jaxbandit import cli, sharding
from tests import golden

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env():
    """The subprocesses' environment: CPU devices only (on a GPU host too), the repository importable."""
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["JAX_PLATFORMS"] = "cpu"
    return env


def _worker(*args, timeout=600):
    out = subprocess.run([sys.executable, "-m", "tests.sharded_worker", *args], cwd=ROOT, env=_env(),
                         capture_output=True, text=True, timeout=timeout)
    assert out.returncode in (0, 1), out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1]), out.returncode


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_same_numbers_on_two_and_three_devices_and_resume_across_them(tmp_path):
    """3 runs over 2 devices pad the batch, over 3 they do not. Each run is interrupted after a chunk with a
    checkpoint and resumed on the other device count; the results equal the one-device record."""
    result, rc = _worker("--devices", "3", "--use", "2,3", "--resume", str(tmp_path), "gaussian-thompson", "dp-ucb")
    assert result["mismatches"] == [] and rc == 0
    assert [r["devices"] for r in result["ran"]] == [3, 2, 3, 2]  # interrupted on 2, resumed on 3, and back


@pytest.mark.slow
def test_larger_batches_equal_one_device():
    """37 runs (13 on each of 3 devices, 19 and a padded 18 on 2): shards long enough for XLA's vectorized loops and
    their remainders, against the same call on one device."""
    result, rc = _worker("--devices", "3", "--use", "2,3", "--runs", "37", "gaussian-thompson", "klucb")
    assert result["mismatches"] == [] and rc == 0
    assert [r["devices"] for r in result["ran"]] == [2, 3, 2, 3]


@pytest.mark.slow
def test_epoch_simulator_same_numbers_on_two_and_three_devices():
    """The epoch-by-epoch simulation shards its runs too (5 runs: padded on 2 devices and on 3), bit for bit the same
    as on one device."""
    result, rc = _worker("--devices", "3", "--use", "2,3", "--runs", "5", "--simulator", "epochs", "dp-rse")
    assert result["mismatches"] == [] and rc == 0
    assert [r["devices"] for r in result["ran"]] == [2, 3]


def _two_processes(*args, devices=(2, 1)):
    port = str(_free_port())
    return [subprocess.Popen([sys.executable, "-m", "tests.sharded_worker", "--devices", str(devices[i]),
                              "--processes", "2", "--process-id", str(i), "--port", port, *args], cwd=ROOT,
                             env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]


@pytest.mark.slow
def test_two_processes_equal_one_process_and_resume_per_shard(tmp_path):
    """Two processes (2 and 1 CPU devices, gloo collectives), each checkpointing its own runs: interrupted after
    a chunk, resumed, and the gathered `Results` of each process equal the one-device record."""
    procs = _two_processes("--resume", str(tmp_path), "gaussian-thompson", "dp-ucb")
    try:
        outs = [p.communicate(timeout=600) for p in procs]
    finally:
        for p in procs:
            p.kill()
    for i, (p, (stdout, stderr)) in enumerate(zip(procs, outs)):
        assert p.returncode == 0, stderr[-3000:]
        result = json.loads(stdout.strip().splitlines()[-1])
        assert result["process"] == i and result["mismatches"] == []
        assert all(r["devices"] == 3 and r["processes"] == 2 for r in result["ran"])
    assert os.listdir(tmp_path) == []  # each process removed its own checkpoint


@pytest.mark.slow
def test_two_processes_pad_a_larger_batch_and_time_their_own_chunks():
    """2 + 2 devices, 37 runs (3 of padding), chunks sized by each process's own timings (no chunk_steps: process 0's
    choice is taken by all): equal to one device of the same process."""
    procs = _two_processes("--runs", "37", "--horizon", "6000", "--chunks", "timed", "gaussian-thompson",
                           devices=(2, 2))
    for i, p in enumerate(procs):
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr[-3000:]
        result = json.loads(stdout.strip().splitlines()[-1])
        assert result["mismatches"] == [] and all(r["devices"] == 4 for r in result["ran"])


@pytest.mark.slow
def test_cli_run_as_two_processes(tmp_path):
    """`jaxbandit run` with --coordinator/--num-processes/--process-id: process 0 writes the JSON, equal to the
    one-process command's numbers."""
    args = ["run", "--env", "bernoulli", "--means", "0.2,0.5,0.8", "--policy", "thompson", "--horizon", "3000",
            "--runs", "11", "--checkpoint", str(tmp_path / "ck.npz")]
    port = str(_free_port())
    procs = [subprocess.Popen([sys.executable, "-m", "jaxbandit.cli", *args, "--devices", "1", "--coordinator",
                               f"127.0.0.1:{port}", "--num-processes", "2", "--process-id", str(i), "--json",
                               str(tmp_path / "two.json")], cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs[0][1][-2000:] + outs[1][1][-2000:]
    assert "on 2 devices of 2 processes" in outs[0][0] and "pseudo-regret" not in outs[1][0]
    one = subprocess.run([sys.executable, "-m", "jaxbandit.cli", *args, "--devices", "1", "--json",
                          str(tmp_path / "one.json")], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                         timeout=600)
    assert one.returncode == 0, one.stderr[-3000:]
    two, one = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("two", "one"))
    for key in ("final_regret_mean", "final_regret_se", "final_realized_regret_mean"):
        assert two[key] == one[key], key
    assert sorted(os.listdir(tmp_path)) == ["one.json", "two.json"]  # every checkpoint removed after the write


@pytest.mark.slow
def test_every_policy_same_numbers_on_two_devices():
    """Every registered policy's contract case on 2 devices (3 runs: one padded) equals its one-device record."""
    result, rc = _worker("--devices", "2", "--use", "2", *sorted(golden.POLICY_CASES), timeout=1200)
    assert result["mismatches"] == [] and rc == 0
    assert {r["case"] for r in result["ran"]} == set(golden.POLICY_CASES)


def test_importing_jaxbandit_starts_no_jax_backend():
    """So that `use_cpu_devices` (and `jax.distributed`) can still configure JAX after ``import jaxbandit``."""
    code = ("import jax, jaxbandit, jaxbandit.cli, jaxbandit.experiments\n"
            "jax.config.update('jax_num_cpu_devices', 3)  # raises once JAX has started\n"
            "assert jaxbandit.use_cpu_devices(3) == 3 and len(jax.devices()) == 3")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]


def test_device_choice_errors_name_the_value_and_range():
    n = len(jax.devices())
    assert sharding.device_mesh(1) is None and (n > 1 or sharding.device_mesh(None) is None)  # the plain program
    for bad in (0, n + 1, -1):
        with pytest.raises(ValueError, match=rf"devices={bad} must be in \[1, {n}\]"):
            sharding.device_mesh(bad)
    for bad in ([], "cpu", True, [0, 1], jax.devices() * 2):
        with pytest.raises(ValueError, match="must be None"):
            sharding.device_mesh(bad)
    with pytest.raises(ValueError, match=r"devices=\[.*\] must be None"):
        sharding.device_mesh(list(jax.devices()) + ["cpu"])
    with pytest.raises(ValueError, match=r"devices=7 must be in"):  # before any compilation
        jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=10, runs=2, devices=7)


def test_use_cpu_devices_after_jax_started():
    have = len(jax.local_devices(backend="cpu"))
    assert jb.use_cpu_devices(have) == have
    with pytest.raises(RuntimeError, match=rf"already started with {have} CPU device\(s\), not {have + 1}"):
        jb.use_cpu_devices(have + 1)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="must be a positive integer"):
            jb.use_cpu_devices(bad)
    with pytest.raises(RuntimeError, match="before JAX computes anything"):
        sharding.initialize("127.0.0.1:1", 2, 0)


@pytest.mark.parametrize("flags, message", [
    (["--devices", "0"], "--devices 0 must be a positive integer"),
    (["--devices", "9"], r"--devices 9 is outside the valid range \[1, \d\]: this host has \d cpu device"),
    (["--num-processes", "2"], "needs --coordinator, --num-processes and --process-id"),
    (["--coordinator", "127.0.0.1:1", "--num-processes", "0", "--process-id", "0"], "--num-processes 0 must be at least 1"),
    (["--coordinator", "127.0.0.1:1", "--num-processes", "2", "--process-id", "2"],
     r"--process-id 2 must be in \[0, 2\)"),
    (["--cluster", "--process-id", "0"], "--cluster finds the processes itself: drop --process-id"),
    (["--coordinator", "127.0.0.1:1", "--num-processes", "2", "--process-id", "1"],
     "must start JAX itself: run the command in a fresh process"),
])
def test_cli_device_and_process_flags(flags, message, capsys):
    if len(jax.devices()) >= 9 and "9" in flags:
        pytest.skip("expects fewer than 9 devices")
    code = cli.main(["run", "--env", "bernoulli", "--means", "0.2,0.8", "--policy", "ucb1", "--horizon", "10",
                     "--runs", "2", "--checkpoint", "none", *flags])
    assert code == 2
    assert re.search(message, capsys.readouterr().err)


def test_cli_devices_beyond_the_cores_are_refused_in_a_fresh_process():
    """The rule of Python's ``devices=N`` (the devices that exist): a fresh CLI process makes one CPU device per core
    and refuses more, before simulating (it used to make N devices and run on them)."""
    out = subprocess.run([sys.executable, "-m", "jaxbandit.cli", "run", "--env", "bernoulli", "--means", "0.2,0.8",
                          "--policy", "ucb1", "--horizon", "10", "--runs", "2", "--checkpoint", "none", "--devices",
                          str(sharding.cores() + 1)], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 2
    assert (f"--devices {sharding.cores() + 1} is outside the valid range [1, {sharding.cores()}]: this host has "
            f"{sharding.cores()} cpu device(s)") in out.stderr


def test_process_start_up_is_library_code_with_the_callers_names():
    """`sharding.start_processes` / `start_devices` (the CLI's start-up, in the library): each bad setting named as
    the caller spells it, before JAX is touched; no setting: nothing to do."""
    from jaxbandit import sharding
    assert sharding.start_processes(None, None, None) is False
    with pytest.raises(ValueError, match="needs coordinator, num_processes and process_id"):
        sharding.start_processes("127.0.0.1:1", None, None)
    with pytest.raises(ValueError, match="--process-id 3 must be in"):
        sharding.start_processes("127.0.0.1:1", 2, 3, names={"process_id": "--process-id"})
    with pytest.raises(ValueError, match="devices 0 must be a positive integer"):
        sharding.start_devices(0)
