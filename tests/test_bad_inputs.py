"""The bad inputs a new user hits (issue 33, item 7), each with the message it gets: unwritable outputs refused
before any work (root passes `os.access` for /proc paths: the check writes), writes that fail later turned into one
line with the computed work kept, one rule for the number of devices, a budget that forces uniform play, per-arm
lists of different lengths, an empty --means, progress bars kept out of logs, and a resumed run that says so."""
import os
import warnings

import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import checks, cli, engine, simulation

UNWRITABLE = "/proc/jaxbandit-test/x"  # a folder no one can create files in, even root
needs_proc = pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc (Linux)")
RUN = ["run", "--env", "bernoulli", "--means", "0.2,0.8", "--policy", "ucb1", "--horizon", "50", "--runs", "2",
       "--checkpoint", "none"]


@needs_proc
def test_writable_file_writes_to_check():
    with pytest.raises(ValueError, match=r"--json /proc/x\.json: cannot write there"):
        checks.writable_file("--json", "/proc/x.json")
    with pytest.raises(ValueError, match="cannot create its folder"):
        checks.writable_file("--json", UNWRITABLE + ".json")


def test_writable_file_leaves_files_as_they_were(tmp_path):
    new, old = tmp_path / "a" / "new.json", tmp_path / "old.json"
    old.write_text("kept")
    checks.writable_file("--json", str(new))
    checks.writable_file("--json", str(old))
    assert not new.exists() and new.parent.is_dir() and old.read_text() == "kept"


@needs_proc
@pytest.mark.parametrize("argv", [
    RUN + ["--json", "/proc/x.json"], RUN + ["--plot", "/proc/x.png"], RUN + ["--save", "/proc/x"],
    RUN[:-2] + ["--checkpoint", "/proc/x.npz"],
    ["privacy", "--policy", "dp-se", "--horizon", "100", "--json", "/proc/x.json"],
    ["tune", "--env", "bernoulli", "--means", "0.2,0.8", "--eta-budget", "1", "--horizon", "100", "--json",
     "/proc/x.json"],
    ["audit", "linear", "--json", "/proc/x.json"], ["audit", "linear", "--plot", "/proc/x.png"],
])
def test_unwritable_outputs_are_refused_before_any_work(argv, capsys):
    before = len(engine._ADVANCE_CACHE)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "/proc/x" in err and "cannot write there" in err and "Traceback" not in err
    assert len(engine._ADVANCE_CACHE) == before  # nothing simulated, nothing compiled


@needs_proc
def test_python_outputs_are_checked_too(tmp_path):
    before = len(engine._ADVANCE_CACHE)
    with pytest.raises(ValueError, match=r"checkpoint /proc/x\.npz: cannot write there"):
        jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=50, runs=2,
                    checkpoint="/proc/x.npz")
    assert len(engine._ADVANCE_CACHE) == before
    res = jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=50, runs=2, progress=False)
    with pytest.raises(ValueError, match=r"results file /proc/x\.npz: cannot write there"):
        res.save("/proc/x")
    res.save(str(tmp_path / "ok"))  # the results are still there to save elsewhere
    assert (tmp_path / "ok.npz").exists()


def test_a_failed_checkpoint_write_keeps_the_run_going(monkeypatch, tmp_path, capsys):
    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(simulation, "_save_checkpoint", full_disk)
    res = jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=200, runs=2, progress=False,
                      checkpoint=str(tmp_path / "c.npz"), chunk_steps=50)
    assert res.counts.sum() == 400  # the whole run, despite the checkpoint
    assert "cannot write the checkpoint" in capsys.readouterr().err


def test_devices_beyond_what_exists_are_refused_in_python_and_the_cli(capsys):
    import jax
    n = len(jax.devices()) + 1
    with pytest.raises(ValueError, match=rf"devices={n} must be in \[1, {n - 1}\]"):
        jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=50, runs=2, devices=n)
    assert cli.main(RUN + ["--devices", str(n)]) == 2
    assert f"--devices {n} is outside the valid range [1, {n - 1}]" in capsys.readouterr().err


def test_a_budget_that_forces_uniform_play_is_said():
    with pytest.warns(UserWarning, match=r"plays \(near-\)uniformly: its regret .* of uniform play's"):
        tuned = jb.tune("bernoulli", env_params={"means": [0.9, 0.1]}, eta_budget=1e-9, horizon=200, runs=4, steps=2)
    assert tuned.params["c"] > 1e15 and tuned.warnings and "uniform" in tuned.warnings[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a budget that leaves room to learn says nothing
        assert not jb.tune("bernoulli", env_params={"means": [0.9, 0.1]}, eta_budget=5.0, horizon=200, runs=4,
                           steps=2).warnings


def test_per_arm_channel_lists_of_different_lengths_are_refused():
    from jaxbandit.mechanisms import randomized_response as rr
    with pytest.raises(ValueError, match="per-arm parameters have mismatched lengths: p00 has 2, p11 has 1"):
        rr.ldp_level([0.6, 0.9], [0.6])
    np.testing.assert_allclose(rr.ldp_level([0.6, 0.9], 0.6), rr.ldp_level([0.6, 0.9], [0.6, 0.6]))  # shared


def test_empty_means_names_the_flag(capsys):
    assert cli.main(["run", "--env", "bernoulli", "--means", "", "--policy", "ucb1", "--horizon", "10", "--runs",
                     "2"]) == 2
    assert "--means is empty" in capsys.readouterr().err


def test_progress_stays_out_of_logs_and_a_resumed_run_says_so(tmp_path, capsys, monkeypatch):
    assert simulation._Progress(None, 100, 1, 0, False).progress is False  # stderr is captured: not a terminal
    assert simulation._Progress(True, 100, 1, 0, False).progress is True   # asked for: shown
    kw = dict(env_params={"means": [0.2, 0.8]}, horizon=200, runs=2, chunk_steps=50,
              checkpoint=str(tmp_path / "c.npz"), keep_checkpoint=True)
    first = jb.simulate("bernoulli", "ucb1", **kw)
    capsys.readouterr()
    again = jb.simulate("bernoulli", "ucb1", **kw)
    err = capsys.readouterr().err
    assert "resuming from" in err and "t = 200 of T = 200 already simulated" in err and "\r" not in err
    np.testing.assert_array_equal(first.pseudo_regret, again.pseudo_regret)
