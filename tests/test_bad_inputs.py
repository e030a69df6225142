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
from jaxbandit.frontiers import Frontier

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


# ------------------------------------------------------------------ issue 48, part 5: what a new user still hits
@pytest.mark.parametrize("content, problem", [
    ('{"format": "jaxbandit-frontier", "rows": [', "is not valid JSON"),        # truncated
    ("[1, 2]", "not a frontier \\(a JSON list"),                                  # valid JSON, another shape
    ('{"format": "jaxbandit-frontier", "version": 1}', "not a complete frontier \\(no rows"),
])
def test_frontier_load_names_the_file_it_cannot_read(tmp_path, content, problem):
    path = tmp_path / "frontier.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=rf"frontier file {path}.*{problem}"):
        Frontier.load(str(path))


def test_every_json_reader_names_its_file(tmp_path):
    from jaxbandit.experiments import frontier_instances, tuning_validation
    bad = tmp_path / "results.json"
    bad.write_text('{"settings": ')
    with pytest.raises(ValueError, match=rf"recorded frontiers file {bad} is not valid JSON"):
        frontier_instances.recorded_frontiers(str(bad))
    with pytest.raises(ValueError, match=rf"tuning results file {bad} is not valid JSON"):
        tuning_validation.replot(str(tmp_path))
    with pytest.raises(ValueError, match=rf"results file {tmp_path}/nothing.json cannot be read"):
        jb.Results.load(str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match=r"missing.json cannot be read \(No such file"):
        checks.read_json("frontier file", str(tmp_path / "missing.json"))


@pytest.mark.parametrize("argv, message", [
    (["--means", "0.2,,0.5"], "argument --means: entry 2 of 3 in '0.2,,0.5' is empty"),
    (["--means", "0.2,0.5,"], "argument --means: entry 3 of 3 in '0.2,0.5,' is empty"),
    (["--means", "0.2,x"], "argument --means: entry 2 of 2 in '0.2,x', 'x', is not a number"),
])
def test_an_empty_or_stray_entry_of_a_number_list_is_refused_not_dropped(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:  # argparse: the usage, then one line naming the flag
        cli.main(["run", "--env", "bernoulli", "--policy", "ucb1", "--horizon", "10", "--runs", "2", *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_every_comma_list_option_parses_the_same_way(capsys):
    with pytest.raises(SystemExit):
        cli.main(["frontier", "--env", "bernoulli", "--means", "0.2,0.8", "--epsilons", "1,,2", "--horizon", "10"])
    assert "argument --epsilons: entry 2 of 3 in '1,,2' is empty" in capsys.readouterr().err
    assert cli.main(["run", "--env", "gaussian", "--means", "0.2,0.8", "--env-param", "stds=0.1,,0.2", "--policy",
                     "ucb1", "--horizon", "10", "--runs", "2", "--checkpoint", "none"]) == 2
    assert "--env-param stds=0.1,,0.2: entry 2 of 3 in '0.1,,0.2' is empty" in capsys.readouterr().err
    assert cli.main(["run", "--env", "mixture", "--arm", "bernoulli:means=0.9,,", "--arm", "bernoulli:means=0.2",
                     "--policy", "ucb1", "--horizon", "10", "--runs", "2", "--checkpoint", "none"]) == 2
    assert "--arm 'bernoulli:means=0.9,,' must look like" in capsys.readouterr().err
    assert cli._key_values(["features=arms.csv", "law=sphere"], "--env-param") == {"features": "arms.csv",
                                                                                    "law": "sphere"}


def test_a_one_arm_bandit_is_refused_before_any_work(capsys):
    before = len(engine._ADVANCE_CACHE)
    assert cli.main(["run", "--env", "bernoulli", "--means", "0.5", "--policy", "ucb1", "--horizon", "10", "--runs",
                     "2", "--checkpoint", "none"]) == 2
    assert ("environment 'bernoulli' has num_arms=1 (means=[0.5]), outside the valid range [2, inf): a bandit needs "
            "at least 2 arms") in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"num_arms=1 \(means=\[0.5\]\), outside the valid range \[2, inf\)"):
        jb.simulate("bernoulli", "ucb1", env_params={"means": [0.5]}, horizon=10, runs=2)
    assert len(engine._ADVANCE_CACHE) == before


@pytest.mark.parametrize("means, message", [
    ([], r"bernoulli parameter means=\[\] is empty: give one value per arm"),
    ([0.5, None], r"bernoulli parameter means=\[0.5, None\]: entry 1 is missing \(None\); give a number there"),
])
def test_empty_or_missing_means_in_python_are_named(means, message):
    with pytest.raises(ValueError, match=message):
        jb.simulate("bernoulli", "ucb1", env_params={"means": means}, horizon=10, runs=2)


def test_a_repeated_privacy_level_is_refused_not_merged(monkeypatch, capsys):
    from jaxbandit import frontiers
    from jaxbandit.frontiers import algorithm
    monkeypatch.setattr(algorithm, "run_spec", lambda *a, **k: pytest.fail("simulated before refusing"))
    assert cli.main(["frontier", "--env", "bernoulli", "--means", "0.2,0.8", "--epsilons", "1,1", "--horizon",
                     "10"]) == 2
    assert "--epsilons=[1, 1] lists 1 twice; give each value once" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"budgets=\[0.5, 1, 0.5\] lists 0.5 twice"):
        frontiers.frontier("bernoulli", [0.5, 1.0, 0.5], env_params={"means": [0.2, 0.8]}, horizon=10)


def test_params_are_printed_as_the_user_wrote_them(tmp_path, capsys):
    assert checks.as_written(np.float32(0.1)) == 0.1 and checks.as_written(np.array([0.1, 3], np.float32)) == [0.1,
                                                                                                                3.0]
    assert checks.as_written(np.int32(7)) == 7 and checks.as_written(0.1 + 0.2) == 0.1 + 0.2  # float64: as it is
    out = tmp_path / "claim.json"
    assert cli.main(["privacy", "--policy", "lazy-ucb", "--policy-param", "c1=0.1", "--horizon", "1000", "--json",
                     str(out)]) == 0
    assert "lazy-ucb (epsilon=1.0, c1=0.1, c2=3.0, release=discrete)" in capsys.readouterr().out
    import json
    assert json.loads(out.read_text())["params"]["c1"] == 0.1
    from jaxbandit import policies
    from jaxbandit.frontiers import algorithm
    _, params = policies.make("lazy-ucb", 2, c1=0.1)
    assert algorithm._plain(params)["c1"] == 0.1  # the frontier's rows


def test_vacuous_bounds_are_said_in_text_json_and_figures(tmp_path, capsys):
    """dp-rse at T = 2·10^4 on means 0.2, 0.5, 0.8: Theorem 4 (7) gives 18001 > T·max gap = 12000 and Lemma 4
    more than T pulls of every arm; each value is the theorem's, flagged, not changed."""
    import json
    from jaxbandit import plotting, theory
    out = tmp_path / "bounds.json"
    assert cli.main(["bounds", "dp-rse", "--env", "bernoulli", "--means", "0.2,0.5,0.8", "--horizon", "2e4",
                     "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "T = 20000: no run exceeds a regret of T·max gap = 12000 or T = 20000 pulls of an arm" in text
    assert "dprse-thm4                 upper 18001  VACUOUS: at or above T·max gap = 12000" in text
    assert "VACUOUS: at or above T = 20000 pulls for every arm" in text
    records = {r["name"]: r for r in json.loads(out.read_text())["bounds"]}
    assert records["dprse-thm4"]["vacuous"] and records["dprse-thm4"]["trivial"] == pytest.approx(12000)
    assert records["dprse-thm4"]["value"] == pytest.approx(18000.98696, rel=1e-6)  # the formula unchanged
    assert records["dprse-lemma4-pulls"]["vacuous"] and not records["dprse-thm4-minimax"]["vacuous"]  # a rate
    assert json.loads(out.read_text())["params"]["policy"]["beta"] == 5e-05
    at_large_t = {v.bound.name: v for v in theory.evaluate("bernoulli", "dp-rse", env_params={"means": [0.2, 0.8]},
                                                          horizon=10**9)}
    assert not at_large_t["dprse-thm4"].vacuous  # the same bound says something at a large T
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    t = np.array([10.0, 100.0])
    ax.plot(t, 0.1 * t)
    line = plotting.draw_bound(ax, t, 0.5 * t, "Theorem X", trivial=theory.trivial_bound("regret", t, [0.2, 0.8]))
    assert "vacuous" not in line.get_label()  # 50 < 60 at t = 100
    line = plotting.draw_bound(ax, t, 0.7 * t, "Theorem W", trivial=theory.trivial_bound("regret", t, [0.2, 0.8]))
    assert line.get_label().endswith("(70 at T, vacuous: no run exceeds 60)")
    note = plotting.draw_bound(ax, t, 1e3 * t, "Theorem Y", trivial=theory.trivial_bound("regret", t, [0.2, 0.8]))
    assert "above this panel, vacuous: no run exceeds 60" in note.get_text()
    plt.close(fig)


def test_a_random_instance_has_no_means_to_call_a_bound_vacuous(capsys):
    """Each run of Chowdhury & Zhou's instance draws its own features and θ: the parameters' placeholder means are no
    instance's, so no T·max gap is stated (it read 0 and called Theorem 5 vacuous)."""
    from jaxbandit import theory
    assert cli.main(["bounds", "linucb-jdp", "--env", "linear", "--env-param", "num_arms=20", "--env-param", "dim=3",
                     "--env-param", "instance=chowdhury-zhou", "--horizon", "2000"]) == 0
    text = capsys.readouterr().out
    assert "T·max gap" not in text and "VACUOUS" not in text
    spec = jb.resolve("linear", "linucb-jdp", env_params={"num_arms": 20, "dim": 3, "instance": "chowdhury-zhou"},
                      horizon=2000)
    assert "means" not in theory.namespace(spec)


def test_too_many_devices_says_how_to_get_one_per_core(monkeypatch):
    """A process that did not ask for CPU devices has one; the message says how to get one per core."""
    import jax
    from jaxbandit import sharding
    if jax.devices()[0].platform != "cpu":
        pytest.skip("the hint is for CPU devices")
    have = len(jax.devices())
    monkeypatch.setattr(sharding, "cores", lambda: have + 3)  # more cores than devices, whatever the test machine
    for bad in (0, have + 1):
        with pytest.raises(ValueError, match=rf"devices={bad} must be in \[1, {have}\]: JAX has {have} cpu device\(s\); "
                                             rf"this machine has {have + 3} cores: .*jaxbandit.use_cpu_devices\(\) "
                                             rf".*XLA_FLAGS=--xla_force_host_platform_device_count={have + 3}"):
            jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=10, runs=2, devices=bad)
    monkeypatch.setattr(sharding, "cores", lambda: have)  # one device per core already: nothing more to say
    with pytest.raises(ValueError, match=r"cpu device\(s\)$"):
        sharding.device_mesh(have + 1)


def test_the_regret_figure_typesets_its_label_and_each_panel_has_its_legend():
    from jaxbandit import plotting
    res = jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=20, runs=2, progress=False)
    fig = plotting.regret_figure([("ucb1", res), ("again", res)], "title")
    for ax in fig.axes:  # mathtext, not "Σ Δ_a n_a(t)" with literal underscores; a legend on the log panel too
        assert ax.get_ylabel() == r"pseudo-regret  $\Sigma_a\, \Delta_a\, n_a(t)$"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["ucb1", "again"]
    plotting.plt.close(fig)
