"""jaxbandit.tune, tuning.grid and the CLI verb `jaxbandit tune`."""
import json
import math

import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import cli, engine, tuning
from jaxbandit.accounting import thompson as ts_privacy

MEANS = [0.75, 0.625, 0.5, 0.375, 0.25]
SMALL = dict(env_params={"means": MEANS}, horizon=400, runs=4, steps=3, seed=0)


@pytest.mark.parametrize("kwargs, message", [
    (dict(eta_budget=0.0), r"eta_budget=0 is outside the valid range \(0, inf\)"),
    (dict(eta_budget=-2.0), "eta_budget=-2"),
    (dict(eta_budget=1.0, epsilon=1.0, delta=1e-6), "either as eta_budget or as"),
    (dict(epsilon=1.0), "needs both epsilon and delta"),
    (dict(epsilon=1.0, delta=1.5), "delta=1.5"),
    (dict(), "give a budget"),
    (dict(eta_budget=1.0, estimator="adam"), "unknown estimator 'adam'"),
    (dict(eta_budget=1.0, accounting="tigth"), "did you mean 'tight'"),
    (dict(eta_budget=1.0, horizon=5), "horizon=5 leaves no sampled round"),
    (dict(eta_budget=1.0, init=100.0), r"init=100 is outside the valid range \[0, 79\]"),
    (dict(eta_budget=1.0, param="c"), "under a budget the tuned parameter is b"),
    (dict(eta_budget=1.0, policy_params={"c": 2.0}), "policy_params fixes c, which the tuner sets"),
    (dict(eta_budget=1.0, runs=1), "runs"),
    (dict(eta_budget=1.0, sigma=0.0), "sigma=0"),
    (dict(eta_budget=1.0, policy="ucb1"), "policy 'ucb1' has no such accountant"),
    (dict(policy="epsilon-greedy"), "param= to tune one parameter of 'epsilon-greedy' \\(epsilon\\)"),
    (dict(policy="epsilon-greedy", param="eps"), "no parameter 'eps'"),
    (dict(policy="epsilon-greedy", param="epsilon", init=1.5), "init=1.5"),
    (dict(policy="modified-thompson", param="b"), "is an integer"),
    (dict(policy="klucb", param="c", estimator="score"), "needs the policy's log_prob"),
])
def test_bad_input_is_refused_before_any_compilation(kwargs, message):
    before = len(engine._ADVANCE_CACHE)
    args = {**SMALL, **kwargs}
    with pytest.raises(ValueError, match=message):
        jb.tune("bernoulli", **args)
    assert len(engine._ADVANCE_CACHE) == before


@pytest.mark.parametrize("accounting", ["paper", "tight"])
def test_answer_is_an_integer_b_whose_c_meets_the_budget_exactly(accounting):
    tuned = jb.tune("bernoulli", eta_budget=1.5, accounting=accounting, **SMALL)
    b, c = tuned.b, tuned.c
    assert isinstance(b, int) and 0 <= b < 400 / 5
    tight = accounting == "tight"
    eta = float(ts_privacy.eta(b, np.float32(c), 400, num_arms=5, tight=tight))
    assert tuned.eta <= 1.5 and tuned.eta == pytest.approx(eta)  # the accountant's claim (float64) meets it
    expected_c = float(ts_privacy.min_scale(b, 400, 5, eta_budget=1.5, tight=tight))
    assert c == pytest.approx(expected_c, rel=1e-6)
    if expected_c > 1:
        assert eta == pytest.approx(1.5, rel=1e-6)  # on the boundary: the whole budget is used
    g = ts_privacy.guarantee(b, c, 400, delta=1e-6, num_arms=5, tight=tight)
    assert tuned.epsilon == pytest.approx(float(g.epsilon), rel=1e-5) and tuned.delta == pytest.approx(1e-6)
    assert tuned.agent_steps == (6 + 3 * 2) * 4 * 400 and len(tuned.trace) == 3  # the pilot's 6 points, 3 steps


def test_epsilon_delta_budget_is_met():
    tuned = jb.tune("bernoulli", epsilon=3.0, delta=1e-5, **SMALL)
    assert tuned.epsilon <= 3.0 * (1 + 1e-6) and tuned.delta == pytest.approx(1e-5)
    assert tuned.config["eta_budget"] == pytest.approx(float(jb.accounting.gdp.eta_for(3.0, 1e-5)))


def test_same_seed_same_answer_and_json(tmp_path):
    a = jb.tune("bernoulli", eta_budget=2.0, **SMALL)
    b = jb.tune("bernoulli", eta_budget=2.0, **SMALL)
    assert a.params == b.params and [r["regret"] for r in a.trace] == [r["regret"] for r in b.trace]
    a.save(str(tmp_path / "out" / "tuned.json"))
    data = json.loads((tmp_path / "out" / "tuned.json").read_text())
    for key in ("b", "c", "eta", "epsilon", "delta", "agent_steps", "trace"):
        assert key in data
    assert data["b"] == a.b and data["trace"][0]["step"] == 0 and data["format"] == "jaxbandit-tuned"


def test_pilot_start_and_convergence_report():
    tuned = jb.tune("bernoulli", eta_budget=1.5, **SMALL)
    pilot = tuned.config["pilot"]
    assert len(pilot["values"]) == 6 and pilot["values"] == sorted(pilot["values"])
    assert tuned.trace[0]["u"] == pytest.approx(pilot["u"][int(np.argmin(pilot["regret"]))], rel=1e-6)
    assert isinstance(tuned.converged, bool) and {"z", "window", "grad", "grad_se"} <= set(tuned.convergence)
    assert tuned.to_dict()["converged"] == tuned.converged
    plain = jb.tune("bernoulli", eta_budget=1.5, pilot=0, **SMALL)
    assert plain.config["pilot"] is None and plain.agent_steps == 3 * 2 * 4 * 400


def _trace(grads, se=1.0, regret_se=1.0):
    return [{"grad": g, "grad_se": se, "regret_se": regret_se} for g in grads]


def test_convergence_test_on_known_traces():
    space = type("Space", (), {"bounds": (0.0, 10.0), "names": ("b",)})()
    u = np.array([5.0])
    # a gradient of -5 ± 1 at every step: still moving up, and worth 0.75 of regret per window against an SE of 0.5
    still = tuning._convergence(_trace([-5.0] * 8, regret_se=0.5), space, u, 0.15)
    assert not still["converged"] and still["z"] == pytest.approx(-5 * math.sqrt(3)) and still["window"] == 3
    # noise around 0: stationary
    assert tuning._convergence(_trace([1.0, -1.5, 0.5, 0.2]), space, u, 0.15)["converged"]
    # significant but below what the regret estimates resolve: flat
    flat = tuning._convergence(_trace([-5.0] * 8, regret_se=1.0), space, u, 0.15)
    assert flat["converged"] and flat["gain_per_window"] == pytest.approx(0.75)
    # at the upper end, pushed further up: a constrained optimum
    assert tuning._convergence(_trace([-5.0] * 8, regret_se=0.5), space, np.array([10.0]), 0.15)["at_bound"]
    with pytest.warns(UserWarning, match="did not converge within its 8 steps.*move up"):
        tuning._not_converged(still, space, 8, 0.25)


@pytest.mark.slow
def test_tuner_moves_downhill_from_a_bad_start():
    """From b = 3 (η = 1 then forces c = T/4: near-uniform play) the regret estimate falls and b grows. (From b = 0
    the regret is flat in b, and the noisy gradient moves b slowly: 0 to 0.7 in 12 steps at this size.)"""
    tuned = jb.tune("bernoulli", eta_budget=1.0, init=3.0, env_params={"means": MEANS}, horizon=1000, runs=8,
                    steps=8, seed=1)
    regrets = [row["regret"] for row in tuned.trace]
    assert regrets[-1] < 0.95 * regrets[0] and tuned.b > 6


def test_epsilon_greedy_tunes_epsilon_with_either_estimator():
    for estimator in ("smoothed", "score"):
        tuned = jb.tune("bernoulli", "epsilon-greedy", param="epsilon", estimator=estimator, init=0.5,
                        **{**SMALL, "steps": 2})
        assert 0 < tuned.params["epsilon"] < 1 and tuned.eta is None
        assert tuned.trace[0]["epsilon"] == pytest.approx(0.5)


def test_grid_is_on_the_boundary_with_common_random_numbers():
    g = tuning.grid("bernoulli", values=[0, 3, 10], eta_budget=2.0, env_params={"means": MEANS}, horizon=300,
                    runs=6, seed=4)
    assert [p["b"] for p in g.params] == [0, 3, 10]
    for p in g.params:
        assert p["c"] == pytest.approx(float(ts_privacy.min_scale(p["b"], 300, 5, eta_budget=2.0)), rel=1e-6)
    res = jb.simulate("bernoulli", "modified-thompson", env_params={"means": MEANS},
                      policy_params=g.params[1], horizon=300, runs=6, seed=4, progress=False)
    np.testing.assert_allclose(g.regret[1], res.pseudo_regret[:, -1], rtol=1e-6)
    assert g.best() == int(np.argmin(g.mean)) and g.agent_steps == 3 * 6 * 300
    with pytest.raises(ValueError, match="values of b must be integers"):
        tuning.grid("bernoulli", values=[1.5], eta_budget=2.0, env_params={"means": MEANS}, horizon=300, runs=2)
    with pytest.raises(ValueError, match=r"entry 0: 100\) is outside the valid range \[0, 59\]"):
        tuning.grid("bernoulli", values=[100], eta_budget=2.0, env_params={"means": MEANS}, horizon=300, runs=2)


def test_cli_tune_writes_json_and_plot(tmp_path, capsys):
    out = tmp_path / "sub" / "t.json"
    plot = tmp_path / "sub" / "t.png"
    code = cli.main(["tune", "--env", "bernoulli", "--means", "0.75,0.5,0.25", "--eta-budget", "2", "--horizon",
                     "300", "--runs", "4", "--steps", "2", "--grid-points", "4", "--grid-runs", "4", "--json",
                     str(out), "--plot", str(plot)])
    assert code == 0
    text = capsys.readouterr().out
    assert "step 2/2" in text and "privacy: eta = 2-GDP" in text and "grid of 4 values of b" in text
    data = json.loads(out.read_text())
    assert {"b", "c", "eta", "epsilon", "delta", "agent_steps", "trace", "grid"} <= set(data)
    assert plot.stat().st_size > 10_000


def test_cli_tune_errors_and_output_paths_checked_first(tmp_path, capsys):
    assert cli.main(["tune", "--env", "bernoulli", "--means", "0.75,0.5", "--eta-budget", "0", "--horizon",
                     "300"]) == 2
    assert "eta_budget=0 is outside the valid range" in capsys.readouterr().err
    blocked = tmp_path / "file"
    blocked.write_text("")
    before = len(engine._ADVANCE_CACHE)
    assert cli.main(["tune", "--env", "bernoulli", "--means", "0.75,0.5", "--eta-budget", "1", "--horizon", "300",
                     "--json", str(blocked / "t.json")]) == 2
    assert "--json" in capsys.readouterr().err and len(engine._ADVANCE_CACHE) == before


@pytest.mark.slow
def test_validation_script_runs_in_its_quick_setting(tmp_path):
    """experiments/tuning_validation.py (the findings' numbers) end to end, quick, without its gradient check (the
    estimators' own slow tests check them against finite differences: test_gradients); then its figures again from
    the saved results."""
    from jaxbandit.experiments import tuning_validation
    tuning_validation.main(["--quick", "--out", str(tmp_path), "--skip-gradient-check"])
    data = json.loads((tmp_path / "results.json").read_text())
    assert len(data["rows"]) == 6 and data["gradient_check"] == [] and data["epsilon_greedy"]["tuned"] > 0
    for row in data["rows"]:
        assert row["tuned"]["eta"] <= row["eta"] and row["tuned"]["agent_steps"] < row["grid"]["agent_steps"]
    (tmp_path / "tuning_bernoulli_eta1.png").unlink()
    tuning_validation.main(["--quick", "--out", str(tmp_path), "--replot"])
    assert (tmp_path / "tuning_bernoulli_eta1.png").stat().st_size > 10_000
