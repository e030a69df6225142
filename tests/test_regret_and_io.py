"""Regret sanity on a fast instance, input validation before compilation, results I/O and the CLI."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from jaxbandit import Results, rerun, resolve, run_spec, simulate, sweep
from tests.helpers import Z

MEANS9 = [round(0.1 * i, 1) for i in range(1, 10)]


@pytest.fixture(scope="module")
def baselines():
    kw = dict(env="bernoulli", env_params={"means": MEANS9}, horizon=2000, runs=64, seed=1, progress=False)
    return {p: simulate(policy=p, **kw) for p in ["thompson", "klucb", "ucb1", "uniform"]}


@pytest.mark.slow
def test_regret_ordering_on_bernoulli_arms(baselines):
    final = {p: r.mean()[-1] for p, r in baselines.items()}
    se = {p: r.se()[-1] for p, r in baselines.items()}
    # uniform play: exactly linear in expectation, slope Σ Δ / K = 0.4
    assert abs(final["uniform"] - 0.4 * 2000) < Z * se["uniform"]
    for p in ("thompson", "klucb"):
        assert final[p] < final["uniform"] / 10
    assert final["klucb"] + Z * np.hypot(se["klucb"], se["ucb1"]) < final["ucb1"]


def test_validation_happens_before_compilation(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("compiled before validating")
    monkeypatch.setattr(sys.modules["jaxbandit.simulation"], "make_advance", boom)
    cases = [
        (dict(env_params={"means": [0.5, 1.1]}), r"means=.*\[0, 1\]"),
        (dict(horizon=0), r"horizon=0 .*\[1, inf\)"),
        (dict(horizon=-5), "horizon=-5"),
        (dict(runs=0), "runs=0"),
        (dict(policy="thomson"), r"unknown policy 'thomson' \(did you mean 'thompson'\?\); valid names: .*thompson"),
        (dict(env="bernouli"), "unknown environment 'bernouli'"),
        (dict(privatizer="laplace-ish"), "unknown privatizer"),
        (dict(policy="epsilon-greedy", policy_params={"epsilon": float("nan")}), "no NaN"),
        (dict(policy="epsilon-greedy", policy_params={"epsilon": float("inf")}), r"epsilon=inf is outside the valid range \[0, 1\]"),
        (dict(env="gaussian", env_params={"means": [0.1, 0.2], "stds": [1.0, 1.0, 1.0]}), "mismatched lengths"),
        (dict(env="gaussian", env_params={"means": [0.1, 0.2]}), "needs observations in \\[0, 1\\]"),
        (dict(record=np.array([5, 3])), "strictly increasing"),
        (dict(seed=-1), "seed=-1"),
    ]
    base = dict(env="bernoulli", env_params={"means": [0.1, 0.5]}, policy="thompson", horizon=10, runs=2)
    for override, match in cases:
        with pytest.raises(ValueError, match=match):
            simulate(**{**base, **override})


def test_results_statistics_save_load_rerun(tmp_path):
    res = simulate(env="bernoulli", env_params={"means": MEANS9}, policy="ucb1", horizon=2000, runs=64, seed=1,
                   progress=False)
    np.testing.assert_allclose(res.mean(), res.pseudo_regret.mean(axis=0))
    np.testing.assert_allclose(res.se(), res.pseudo_regret.std(axis=0, ddof=1) / np.sqrt(64))
    assert res.quantile([0.1, 0.9]).shape == (2, len(res.t))
    path = str(tmp_path / "ucb1")
    res.save(path)
    back = Results.load(path)
    for f in ("t", "pseudo_regret", "regret", "counts"):
        np.testing.assert_array_equal(getattr(back, f), getattr(res, f))
    assert back.config == json.loads(json.dumps(res.config))
    again = rerun(back)
    np.testing.assert_array_equal(again.pseudo_regret, res.pseudo_regret)
    s = res.summary()
    assert s["runs"] == 64 and s["horizon"] == 2000 and s["final_regret_mean"] == pytest.approx(res.mean()[-1])


def test_first_run_simulates_a_later_slice_of_the_same_runs():
    """``first_run``: runs first..first + runs − 1 of the seed, an int for every point or one per point; the slice
    is recorded (its configuration re-runs it) and nothing else changes (runs from 0 keep their configuration)."""
    points = resolve("bernoulli", "epsilon-greedy", env_params={"means": [0.3, 0.6]}, horizon=200,
                     grid={"policy.epsilon": [0.05, 0.5]})
    whole = run_spec(points, runs=6, seed=4, progress=False)
    later = run_spec(points, runs=3, seed=4, first_run=2, progress=False)
    np.testing.assert_array_equal(later.pseudo_regret, whole.pseudo_regret[:, 2:5])
    assert later.config["first_run"] == 2 and "first_run" not in whole.config
    mixed = run_spec(points, runs=2, seed=4, first_run=[4, 0], progress=False)
    np.testing.assert_array_equal(mixed.pseudo_regret[0], whole.pseudo_regret[0, 4:6])
    np.testing.assert_array_equal(mixed.pseudo_regret[1], whole.pseudo_regret[1, 0:2])
    assert mixed.config["first_run"] == [4, 0]
    np.testing.assert_array_equal(rerun(later).pseudo_regret, later.pseudo_regret)
    np.testing.assert_array_equal(rerun(mixed).pseudo_regret, mixed.pseudo_regret)
    with pytest.raises(ValueError, match=r"first_run=-1 is outside the valid range \[0, inf\)"):
        run_spec(points, runs=2, seed=4, first_run=-1)
    with pytest.raises(ValueError, match=r"first_run=2147483647 with runs=2 reaches run 2147483648, beyond"):
        run_spec(points, runs=2, seed=4, first_run=2 ** 31 - 1)
    with pytest.raises(ValueError, match="first_run has 3 entries; it needs one per point \\(2\\)"):
        run_spec(points, runs=2, seed=4, first_run=[0, 1, 2])


def test_sweep_results_select_and_iterate():
    res = sweep("bernoulli", "epsilon-greedy", env_params={"means": [0.3, 0.6]},
                grid={"policy.epsilon": [0.05, 0.5]}, horizon=100, runs=2, progress=False)
    coords = [c for c, _ in res.points()]
    assert coords == [{"policy.epsilon": 0.05}, {"policy.epsilon": 0.5}]
    with pytest.raises(ValueError, match="not on the grid"):
        res.sel(**{"policy.epsilon": 0.2})
    with pytest.raises(ValueError, match="single configuration"):
        res.summary()


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "jaxbandit.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})


def test_cli_list_run_and_errors(tmp_path):
    out = _cli("list")
    assert out.returncode == 0
    for word in ("policies:", "thompson", "environments:", "truncexp", "privatizers:", "experiments:"):
        assert word in out.stdout
    js, png = tmp_path / "r.json", tmp_path / "r.png"
    out = _cli("run", "--env", "bernoulli", "--means", "0.2,0.5,0.8", "--policy", "epsilon-greedy",
               "--policy-param", "epsilon=0.2", "--horizon", "500", "--runs", "8", "--seed", "3",
               "--json", str(js), "--plot", str(png))
    assert out.returncode == 0, out.stderr
    data = json.loads(js.read_text())
    for k in ("final_regret_mean", "final_regret_se", "runs", "horizon", "seconds", "agent_steps_per_second"):
        assert k in data
    assert data["runs"] == 8 and data["horizon"] == 500 and png.stat().st_size > 10_000
    bad = _cli("run", "--env", "bernoulli", "--means", "0.2,1.5", "--policy", "ucb1", "--horizon", "5", "--runs", "1")
    assert bad.returncode == 2 and "means=" in bad.stderr and "[0, 1]" in bad.stderr


@pytest.mark.slow
def test_cli_reproduce_quick_writes_summary_and_figures(tmp_path):
    out = _cli("reproduce", "baselines-bernoulli9", "--quick", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    rows = (tmp_path / "summary.csv").read_text().splitlines()
    header = rows[0].split(",")
    for col in ("label", "policy", "horizon", "runs", "final_regret_mean", "final_regret_se", "policy.epsilon"):
        assert col in header
    assert len(rows) == 7
    assert (tmp_path / "regret.png").stat().st_size > 10_000
    again = _cli("reproduce", "baselines-bernoulli9", "--quick", "--out", str(tmp_path))
    assert again.returncode == 0 and again.stdout.count("already done") == 6


def test_public_simulate_is_the_function_and_its_module_is_importable():
    import importlib

    import jaxbandit as jb
    module = importlib.import_module("jaxbandit.simulation")
    assert jb.simulate is module.simulate and jb.sweep is module.sweep and callable(jb.simulate)


def test_plotting_marks_legend_entries_outside_the_axes_and_stamps_titles(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from jaxbandit import plotting
    fig, (ax, ax2) = plt.subplots(1, 2)
    ax.plot([1, 10], [1, 2], label="curve")
    ax.plot([1, 10], [50, 60], label="bound")            # far above the axes once the limits are set
    ax.plot([1, 10], [-5, 5], label="crossing")          # both ends outside, crosses the axes
    ax.axhline(1.5, label="level")                       # x in axes coordinates
    ax.set_ylim(0, 3)
    ax.legend()
    ax2.set_yscale("log")
    ax2.plot([1, 2], [1e-3, 1e-2], label="small")
    ax2.set_ylim(1e-1, 1)
    ax2.legend()
    fig.suptitle("TS is itself DP Fig. 2")
    with plotting.stamped("QUICK"):
        plotting.save(fig, tmp_path / "f.png")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "curve", "bound (outside the plotted range)", "crossing", "level"]
    assert ax2.get_legend().get_texts()[0].get_text() == "small (outside the plotted range)"
    assert fig._suptitle.get_text() == "QUICK: TS is itself DP Fig. 2"
    fig, ax = plt.subplots()
    ax.set_title("regret")
    with plotting.stamped(None):
        plotting.save(fig, tmp_path / "g.png")
    assert ax.get_title() == "regret"
