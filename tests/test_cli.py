"""The command line as a new user meets it: number and name input, outputs that are never lost, resume by default,
Ctrl-C, and clear errors for bad files."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from jaxbandit import Results, cli, resolve, simulate
from jaxbandit.simulation import checkpoint_path

RUN = ["run", "--env", "bernoulli", "--means", "0.2,0.8", "--policy", "thompson", "--runs", "3"]


def _main(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_integer_flags_accept_exact_float_literals():
    assert cli._integer("1e4") == 10_000 and cli._integer("10_000") == 10_000 and cli._integer("7") == 7
    for bad in ("1.5", "1e-3", "ten", "inf"):
        with pytest.raises(Exception, match="expected an integer"):
            cli._integer(bad)


def test_negative_values_and_1e_horizons_run(tmp_path, capsys):
    js = tmp_path / "new" / "folder" / "run.json"  # folders that do not exist yet are created
    rc, out, err = _main(capsys, "run", "--env", "gaussian", "--means", "-0.1,0.5", "--env-param", "stds=1",
                         "--policy", "ucb1", "--horizon", "2e2", "--runs", "2", "--json", str(js))
    assert rc == 0, err
    assert "final realized regret" in out  # recorded by default (--no-realized: not)
    data = json.loads(js.read_text())
    assert data["horizon"] == 200 and data["config"]["env_params"]["means"] == [-0.1, 0.5]
    assert cli._join_negative_values(["--means", "-1,2", "--x", "-inf", "-v"]) == ["--means=-1,2", "--x=-inf", "-v"]


def test_epoch_simulation_with_the_pseudo_regret_only(tmp_path, capsys):
    """``--no-realized``: the run reports, saves and writes JSON without a realized regret."""
    js, saved = tmp_path / "run.json", tmp_path / "res"
    common = ["run", "--env", "pareto", "--means", "0.9,0.5,0.1", "--env-param", "v=0.9", "--policy", "dp-rse",
              "--policy-param", "epsilon=1", "--policy-param", "v=0.9", "--policy-param", "u=8",
              "--policy-param", "theta=0.5", "--horizon", "20000", "--runs", "3", "--simulator", "epochs"]
    rc, out, err = _main(capsys, *common, "--no-realized", "--json", str(js), "--save", str(saved))
    assert rc == 0, err
    assert "final pseudo-regret" in out and "realized" not in out
    data = json.loads(js.read_text())
    assert data["final_realized_regret_mean"] is None and data["config"]["realized"] is False
    assert Results.load(str(saved)).regret is None


def test_every_listed_environment_can_be_expressed(tmp_path, capsys):
    from jaxbandit import envs
    features = tmp_path / "arms.csv"
    np.savetxt(features, [[1.0, 0.0], [0.0, 1.0]], delimiter=",")
    per_family = {"bernoulli": ["--means", "0.2,0.8"], "gaussian": ["--means", "0.2,0.8"],
                  "truncexp": ["--env-param", "rates=1,2"], "beta": ["--env-param", "alpha=1,2", "--env-param",
                                                                     "beta=2,1"],
                  "uniform": ["--env-param", "low=0,0", "--env-param", "high=0.5,1"],
                  "two-point": ["--env-param", "low=0,0", "--env-param", "high=1,1", "--env-param", "p_high=0.2,0.8"],
                  "pareto": ["--means", "0.2,0.8", "--env-param", "v=0.9"],
                  "student-t": ["--means", "0,1", "--env-param", "df=3,3"],
                  "mixture": ["--arm", "bernoulli:means=0.9", "--arm", "2*beta:alpha=4,beta=1"],
                  "testbed20": [],
                  "linear": ["--env-param", "features=" + str(features), "--env-param", "theta=0.5,0.3"]}
    assert set(per_family) == set(envs.names())  # a new environment needs a CLI line here
    for name, flags in per_family.items():
        args = cli.build_parser().parse_args(["run", "--env", name, *flags, "--policy", "uniform", "--horizon", "60",
                                              "--runs", "2"])
        request = cli.run_request(args)
        env, *_ = resolve(request["env"], request["policy"], env_params=request["env_params"])
        assert env.num_arms == (20 if name == "testbed20" else 3 if name == "mixture" else 2)
    rc, out, err = _main(capsys, "run", "--env", "mixture", "--arm", "bernoulli:means=0.9", "--arm",
                         "2*beta:alpha=4,beta=1", "--policy", "ucb1", "--horizon", "60", "--runs", "2",
                         "--checkpoint", "none")
    assert rc == 0 and "(3 arms)" in out, err
    rc, out, err = _main(capsys, "run", "--env", "mixture", "--arm", "bernouli:means=0.9", "--policy", "uniform",
                         "--horizon", "5", "--runs", "1")
    assert rc == 2 and "did you mean 'bernoulli'" in err
    rc, out, err = _main(capsys, "run", "--env", "mixture", "--arm", "beta:alpha=four", "--policy", "uniform",
                         "--horizon", "5", "--runs", "1")
    assert rc == 2 and "--arm 'beta:alpha=four' must look like FAMILY:KEY=VALUE" in err


def test_name_typos_suggest_the_nearest(capsys):
    for flag, typo, near in (("--policy", "thompsom", "thompson"), ("--env", "bernouli", "bernoulli"),
                             ("--privatizer", "quadratc", "quadratic")):
        argv = dict(zip(RUN[1::2], RUN[2::2]), **{"--horizon": "5"})
        argv[flag] = typo
        rc, out, err = _main(capsys, "run", *[x for kv in argv.items() for x in kv])
        assert rc == 2 and f"did you mean '{near}'" in err, err


def test_bad_values_name_the_parameter(capsys):
    rc, _, err = _main(capsys, *RUN, "--horizon", "10", "--seed", "4294967296")
    assert rc == 2 and "seed=4294967296 is outside the valid range [0, 4294967295]" in err
    with pytest.raises(ValueError, match="bernoulli parameter means='0.2,0.8' is a string"):
        simulate("bernoulli", "thompson", env_params={"means": "0.2,0.8"}, horizon=10, runs=2)
    with pytest.raises(ValueError, match=r"seed=18446744073709551616 is outside the valid range"):
        simulate("bernoulli", "thompson", env_params={"means": [0.2, 0.8]}, horizon=10, runs=2, seed=2 ** 64)


@pytest.mark.parametrize("horizon", [1, 26])
def test_short_horizons_run(horizon, capsys):
    rc, out, err = _main(capsys, *RUN, "--horizon", str(horizon), "--checkpoint", "none")
    assert rc == 0, err
    assert f"T={horizon}," in out


def test_output_paths_are_checked_before_the_run(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(cli, "_write_run_outputs", lambda *a: pytest.fail("ran although an output path is bad"))
    for flag in ("--json", "--plot", "--save"):
        rc, _, err = _main(capsys, *RUN, "--horizon", "10", flag, str(blocker / "x"))
        assert rc == 2 and f"{flag} {blocker / 'x'}" in err and "cannot create its folder" in err
    rc, _, err = _main(capsys, *RUN, "--horizon", "10", "--checkpoint", str(blocker / "c.npz"))
    assert rc == 2 and "checkpoint" in err
    rc, _, err = _main(capsys, "reproduce", "baselines-bernoulli9", "--quick", "--out", str(blocker / "out"))
    assert rc == 2 and "--out" in err


def test_a_failed_write_keeps_the_finished_run(tmp_path, capsys, monkeypatch):
    argv = [*RUN, "--horizon", "300", "--json", str(tmp_path / "run.json"), "--progress"]

    def disk_full(*a):
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as m:
        m.setattr(cli, "_write_run_outputs", disk_full)
        rc, _, err = _main(capsys, *argv)
    assert rc == 2 and "No space left on device" in err and "the finished run is kept in" in err
    kept = err.split("the finished run is kept in ")[1].split(":")[0]
    assert os.path.exists(kept)
    simulated = []
    monkeypatch.setattr("jaxbandit.simulation.make_advance",
                        lambda *a, **k: simulated.append(1) or pytest.fail("simulated again"))
    rc, out, err = _main(capsys, *argv)  # the same command: served from the kept state, nothing simulated
    assert rc == 0, err
    assert json.loads((tmp_path / "run.json").read_text())["horizon"] == 300
    assert not os.path.exists(kept) and not simulated


def test_default_checkpoint_is_removed_after_the_outputs_unless_kept(tmp_path, capsys):
    argv = [*RUN, "--horizon", "120", "--save", str(tmp_path / "r")]
    rc, _, err = _main(capsys, *argv, "--keep-checkpoint")
    assert rc == 0, err
    res = Results.load(str(tmp_path / "r"))
    folder = os.path.dirname(checkpoint_path("x"))
    kept = [f for f in os.listdir(folder) if f.endswith(".npz")]
    assert kept, "the checkpoint was not kept"
    rc, _, err = _main(capsys, *argv)
    assert rc == 0 and len([f for f in os.listdir(folder) if f.endswith(".npz")]) == len(kept) - 1
    np.testing.assert_array_equal(Results.load(str(tmp_path / "r")).pseudo_regret, res.pseudo_regret)


@pytest.mark.slow
def test_ctrl_c_leaves_a_checkpoint_and_says_how_to_resume(tmp_path):
    env = {**os.environ, "JAXBANDIT_CACHE": str(tmp_path)}
    # Python's Ctrl-C handler, even where the test runner was started with SIGINT ignored (a background job)
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from jaxbandit.cli import main; sys.exit(main())")
    argv = [sys.executable, "-c", code, "run", "--env", "bernoulli", "--means", "0.2,0.8", "--policy",
            "gaussian-thompson", "--horizon", "1e8", "--runs", "200", "--save", str(tmp_path / "r"), "--no-progress"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    ckpts = tmp_path / "checkpoints"
    deadline = time.time() + 120
    while not (ckpts.exists() and any(ckpts.iterdir())) and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted at t=" in err and "run the same command again to resume" in err
    assert "Traceback" not in err
    saved = int(err.split("interrupted at t=")[1].split(" ")[0])
    assert 0 < saved < 10 ** 8
    (path,) = ckpts.iterdir()
    assert str(path) in err
