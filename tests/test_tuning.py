"""jaxbandit.tune, tuning.grid, Tuned's file and the CLI verb `jaxbandit tune`: modified Thompson sampling's (b, c)
under a GDP budget (the numbers of the code before the tuner was generalized: tests/data/tuned_v1_*.json), and any
private policy's free parameter under its own accountant's budget (DP-UCB-INT under (ε, δ), DP-SE under pure ε)."""
import json
import math
import os
import warnings

import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import checks, cli, engine, tuning
from jaxbandit.accounting import Budget
from jaxbandit.accounting import thompson as ts_privacy
from jaxbandit.policies.thompson import ACCOUNTINGS
from jaxbandit.tuning import diagnostics

MEANS = [0.75, 0.625, 0.5, 0.375, 0.25]
SMALL = dict(env_params={"means": MEANS}, horizon=400, runs=4, steps=3, seed=0)
DATA = os.path.join(os.path.dirname(__file__), "data")
PURE = dict(epsilon=0.5, delta=0.0)  # a pure ε budget


@pytest.mark.parametrize("kwargs, message", [
    (dict(eta_budget=0.0), r"eta_budget=0 is outside the valid range \(0, inf\)"),
    (dict(eta_budget=-2.0), "eta_budget=-2"),
    (dict(eta_budget=1.0, epsilon=1.0, delta=1e-6), "either as eta_budget or as"),
    (dict(budget=Budget(mu=1.0), eta_budget=1.0), "either as budget or as eta_budget"),
    (dict(budget=1.0), "budget must be a jaxbandit.accounting.Budget"),
    (dict(epsilon=1.0), "needs both epsilon and delta"),
    (dict(epsilon=1.0, delta=1.5), "delta=1.5"),
    (dict(epsilon=1.0, delta=0.0), "a pure epsilon budget .* cannot be met by the mu-GDP claim of policy 'modified-thompson'"),
    (dict(), "give a budget"),
    (dict(eta_budget=1.0, estimator="adam"), "unknown estimator 'adam'"),
    (dict(eta_budget=1.0, accounting="tigth"), "did you mean 'tight'"),
    (dict(eta_budget=1.0, horizon=5), "horizon=5 leaves no sampled round"),
    (dict(eta_budget=1.0, init=100.0), r"init=100 is outside the valid range \[0, 79\]"),
    (dict(eta_budget=1.0, policy_params={"c": 2.0}), "policy_params fixes c, which the tuner sets"),
    (dict(eta_budget=1.0, runs=1), "runs"),
    (dict(eta_budget=1.0, sigma=0.0), "sigma=0"),
    (dict(policy="epsilon-greedy"), "param= to tune one parameter of 'epsilon-greedy' \\(epsilon\\)"),
    (dict(policy="epsilon-greedy", param="eps"), "no parameter 'eps'"),
    (dict(policy="epsilon-greedy", param="epsilon", init=1.5), "init=1.5"),
    (dict(policy="epsilon-greedy", param="epsilon", bounds=(0.5, 0.2)), "low < high"),
    (dict(policy="klucb", param="c", estimator="score"), "needs the policy's log_prob"),
    # a parameter the budget sets, with or without a budget: named, with its value and the valid choices
    (dict(eta_budget=1.0, param="c"), "param='c' is the parameter that the accountant of policy "
                                      "'modified-thompson' calibrates to a privacy budget.*valid choices: b$"),
    (dict(param="c"), "param='c' is the parameter that the accountant .* valid choices: b$"),
    (dict(policy="lazy-ucb", param="epsilon", **PURE), "param='epsilon' is the parameter that the accountant of "
                                                       "policy 'lazy-ucb' calibrates.*valid choices: c1, c2$"),
    # an unknown parameter, one the run sets, several to choose from, none to tune
    (dict(policy="lazy-ucb", param="c3", **PURE), "param='c3': policy 'lazy-ucb' has no parameter 'c3'; the "
                                                  "valid choices: c1, c2$"),
    (dict(policy="dp-rse", param="horizon", **PURE), "param='horizon': the run sets horizon of policy 'dp-rse'.*"
                                                     "valid choices: v, u, theta$"),
    (dict(policy="lazy-ucb", **PURE), "param=None: policy 'lazy-ucb' has several free parameters; give param=, "
                                      "one of c1, c2$"),
    (dict(policy="dp-ucb", **PURE), "param=None: policy 'dp-ucb' has no free parameter to tune under a budget "
                                    "\\(its only parameter, epsilon, is calibrated.*valid choices: none$"),
    (dict(policy="gaussian-thompson", eta_budget=1.0), "policy 'gaussian-thompson' has none \\(its level is set by "
                                                       "its design"),
    (dict(eta_budget=1.0, policy="ucb1"), "policy 'ucb1' is not private"),
    # a start where no calibrated value meets the budget (DP-UCB-INT's v at block length 1)
    (dict(policy="dp-ucb-int", epsilon=1.0, delta=1e-3), "at the start, epsilon=1: no value of v in \\(1, 2\\) meets "
                                                         "the budget .* \\(give init="),
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
    b, c = tuned.params["b"], tuned.params["c"]
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
    assert data["b"] == a.params["b"] and data["trace"][0]["step"] == 0 and data["format"] == "jaxbandit-tuned"
    assert tuning.Tuned.load(str(tmp_path / "out" / "tuned.json")) == a  # the file reads back (seconds included)


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
    still = diagnostics.convergence(_trace([-5.0] * 8, regret_se=0.5), space, u, 0.15)
    assert not still["converged"] and still["z"] == pytest.approx(-5 * math.sqrt(3)) and still["window"] == 3
    # noise around 0: stationary
    assert diagnostics.convergence(_trace([1.0, -1.5, 0.5, 0.2]), space, u, 0.15)["converged"]
    # significant but below what the regret estimates resolve: flat
    flat = diagnostics.convergence(_trace([-5.0] * 8, regret_se=1.0), space, u, 0.15)
    assert flat["converged"] and flat["gain_per_window"] == pytest.approx(0.75)
    # at the upper end, pushed further up: a constrained optimum
    assert diagnostics.convergence(_trace([-5.0] * 8, regret_se=0.5), space, np.array([10.0]), 0.15)["at_bound"]
    with pytest.warns(UserWarning, match="did not converge within its 8 steps.*move up"):
        diagnostics.not_converged(still, space, 8, 0.25)


@pytest.mark.slow
def test_tuner_moves_downhill_from_a_bad_start():
    """From b = 3 (η = 1 then forces c = T/4: near-uniform play) the regret estimate falls and b grows. (From b = 0
    the regret is flat in b, and the noisy gradient moves b slowly: 0 to 0.7 in 12 steps at this size.)"""
    tuned = jb.tune("bernoulli", eta_budget=1.0, init=3.0, env_params={"means": MEANS}, horizon=1000, runs=8,
                    steps=8, seed=1)
    regrets = [row["regret"] for row in tuned.trace]
    assert regrets[-1] < 0.95 * regrets[0] and tuned.params["b"] > 6


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


# ------------------------------------------------------------------------------------------- Tuned: file, names


@pytest.mark.parametrize("name, call", [
    ("tuned_v1_budget.json", lambda c: jb.tune(c["env"], c["policy"], env_params=c["env_params"],
                                               eta_budget=c["eta_budget"], horizon=c["horizon"], runs=c["runs"],
                                               steps=c["steps"], seed=c["seed"])),
    ("tuned_v1_param.json", lambda c: jb.tune(c["env"], c["policy"], env_params=c["env_params"], param=c["param"],
                                              init=c["init"], horizon=c["horizon"], runs=c["runs"], steps=c["steps"],
                                              seed=c["seed"])),
])
def test_a_file_of_the_first_tuner_loads_and_the_same_request_gives_its_numbers(name, call):
    """Files written by the tuner before it took any policy (modified TS's (b, c) under a GDP budget; ε-greedy's ε
    without one) read back, and the same request gives the same answer, trace and file, seconds aside."""
    old = tuning.Tuned.load(os.path.join(DATA, name))
    assert old.config["horizon"] == 400 and old.trace and old.claim is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ε-greedy's 2 steps do not converge: the same warning as before
        new = call(old.config)
    # the calibrated c is now written as its shortest decimal (`checks.as_written`): the same float32 value
    same32 = lambda a, b: {k: np.float32(v) for k, v in a.items()} == {k: np.float32(v) for k, v in b.items()}
    assert same32(new.params, old.params) and new.trace == old.trace
    with open(os.path.join(DATA, name)) as f:
        data = json.load(f)
    again = json.loads(json.dumps(new.to_dict()))
    assert same32(again.pop("params"), data.pop("params"))
    assert same32({"c": again.pop("c", 0.0)}, {"c": data.pop("c", 0.0)})  # the file's own copy of c, likewise
    assert {**again, "seconds": 0} == {**data, "seconds": 0}


def test_b_and_c_are_deprecated_for_params():
    old = tuning.Tuned.load(os.path.join(DATA, "tuned_v1_budget.json"))
    with pytest.deprecated_call(match=r"Tuned.b is deprecated: use Tuned.params\['b'\]"):
        assert old.b == old.params["b"] == 34
    with pytest.deprecated_call(match=r"Tuned.c is deprecated: use Tuned.params\['c'\]"):
        assert old.c == old.params["c"]


def test_load_names_the_file_it_cannot_read(tmp_path):
    text = open(os.path.join(DATA, "tuned_v1_budget.json")).read()
    cut = tmp_path / "cut.json"
    cut.write_text(text[:200])
    with pytest.raises(ValueError, match=f"{cut} is not valid JSON"):
        tuning.Tuned.load(str(cut))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "jaxbandit-frontier", "version": 1}))
    with pytest.raises(ValueError, match=f"{other} is not a saved jaxbandit.tuning.Tuned"):
        tuning.Tuned.load(str(other))
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**json.loads(text), "version": 2}))
    with pytest.raises(ValueError, match=f"{newer} is version 2 of 'jaxbandit-tuned'; this jaxbandit reads "
                                         "versions 1 to 1"):
        tuning.Tuned.load(str(newer))
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"format": "jaxbandit-tuned", "version": 1, "params": {}}))
    with pytest.raises(ValueError, match="lacks agent_steps, trace, config, seconds"):
        tuning.Tuned.load(str(partial))


def test_near_uniform_is_one_test_and_one_message_for_the_tuner_and_the_frontier():
    means = [0.9, 0.1]  # uniform play's regret at T = 100: 100 · 0.4 = 40
    assert diagnostics.near_uniform(35.9, means, 100) is None
    assert diagnostics.near_uniform(36.0, means, 100) == (
        "the tuned point plays (near-)uniformly: its regret 36 is 90% of uniform play's 40 (T·mean gap); the budget "
        "(or the parameter's range) leaves no room to learn")
    assert diagnostics.near_uniform(40.0, means, 100, "evaluated") == (
        "it plays (near-)uniformly up to T: its regret is 100% of uniform play's (T·mean gap); its first phase or "
        "start pulls outlast this horizon")
    assert diagnostics.near_uniform(0.0, [0.5, 0.5], 100) is None  # every arm is best: no uniform play to compare
    assert tuning.UNIFORM_FRACTION == diagnostics.UNIFORM_FRACTION == 0.9
    assert tuning.ACCOUNTINGS is ACCOUNTINGS


# ------------------------------------------------------------------------------- other policies, other accountants


def test_dp_ucb_int_tunes_its_block_parameter_with_v_on_its_own_accountants_boundary(tmp_path):
    """DP-UCB-INT's (ε, δ)-DP accountant (advanced composition) calibrates v by bisection and leaves ε (the block
    length ⌈1/ε⌉) free: every simulated point has v on the budget's boundary at its ε, the answer meets the budget,
    and the range of ε is cut to where some v in (1, 2) meets it."""
    budget = Budget(epsilon=1.0, delta=1e-3)
    tuned = jb.tune("bernoulli", "dp-ucb-int", budget=budget, init=0.05, **{**SMALL, "steps": 2})
    policy = jb.policies.get("dp-ucb-int", 5)
    accountant = policy.accountant
    assert set(tuned.params) == {"epsilon", "v"} and tuned.config["param"] == "epsilon"
    at = policy.default_params._replace(epsilon=np.float32(tuned.params["epsilon"]))
    assert tuned.params["v"] == checks.as_written(accountant.calibrate(at, 400, 5, budget).v)  # as written
    claim = accountant.guarantee(at._replace(v=np.float32(tuned.params["v"])), 400, 5)
    assert claim.meets(budget) and tuned.claim.meets(budget) and tuned.eta is None
    assert (tuned.epsilon, tuned.delta) == (claim.epsilon, claim.delta)
    for row in tuned.trace:  # relaxed points on the boundary, in float64
        values = accountant.boundary_values(policy.default_params._replace(epsilon=row["epsilon"]), 400, 5, budget)
        assert row["v"] == values["v"] and 1 < row["v"] < 2
    low, high = tuned.config["range"]
    assert low < 1e-12 and 0.2 < high < 0.25  # ε above 1/4 (blocks of 4 or fewer) meets no v: cut there
    assert tuned.trace[0]["epsilon"] == pytest.approx(0.05)
    tuned.save(str(tmp_path / "t.json"))
    assert tuning.Tuned.load(str(tmp_path / "t.json")) == tuned
    # the grid has no start: DP-UCB-INT's default ε = 1, where no v meets the budget, is not in the way
    g = tuning.grid("bernoulli", "dp-ucb-int", values=[0.02, 0.1], budget=budget, env_params={"means": MEANS},
                    horizon=400, runs=4, seed=1)
    for value, params in zip([0.02, 0.1], g.params):
        at = policy.default_params._replace(epsilon=params["epsilon"])
        assert params["epsilon"] == pytest.approx(value, rel=1e-12)
        assert params["v"] == accountant.boundary_values(at, 400, 5, budget)["v"]
    assert g.regret.shape == (2, 4)


def test_b_tunes_without_a_budget_as_an_integer_with_c_kept():
    tuned = jb.tune("bernoulli", param="b", policy_params={"c": 2.0}, pilot=0, **{**SMALL, "steps": 1})
    assert set(tuned.params) == {"b"} and isinstance(tuned.params["b"], int)
    assert tuned.eta is tuned.epsilon is tuned.claim is None and set(tuned.trace[0]) >= {"b", "u"}
    assert "c" not in tuned.trace[0] and tuned.config["range"] == [0, 79]
    g = tuning.grid("bernoulli", param="b", values=[0, 7], policy_params={"c": 2.0}, env_params={"means": MEANS},
                    horizon=400, runs=4)
    assert g.params == [{"b": 0}, {"b": 7}]


def test_cli_tunes_lazy_ucb_under_a_pure_epsilon_budget(tmp_path, capsys):
    """Lazy-UCB's ε-DP accountant puts ε on a pure budget's boundary (ε itself); c1, one of its two tunable
    parameters, is tuned in log(c1) from its default, with a grid over it."""
    out = tmp_path / "t.json"
    code = cli.main(["tune", "--env", "bernoulli", "--means", "0.9,0.5,0.1", "--policy", "lazy-ucb", "--param", "c1",
                     "--budget-epsilon", "0.5", "--budget-delta", "0", "--horizon", "300", "--runs", "4", "--steps",
                     "2", "--grid-points", "3", "--grid-runs", "4", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "step 1/2: c1=1.5, epsilon=0.5," in text and "step 2/2: c1=" in text
    assert "privacy: ε-DP with ε = 0.5, over the whole run" in text and "grid of 3 values of c1" in text
    data = json.loads(out.read_text())
    assert data["params"]["epsilon"] == 0.5 and data["params"]["c1"] > 0 and "b" not in data and not data["warnings"]
    assert (data["eta"], data["epsilon"], data["delta"]) == (None, 0.5, 0.0)
    assert data["config"]["range"] == [0.0, math.inf] and data["config"]["budget_delta"] == 0.0
    assert len(data["grid"]["values"]) == 3 and all(v > 0 for v in data["grid"]["values"])


# ------------------------------------------------------------------------------------------- expanding search
def _search(grids, f, valid=lambda v: True, **kw):
    """Run `expanding_search` against ``f``; returns (result, the batches it asked for)."""
    from jaxbandit.tuning.search import Confirm, expanding_search
    gen = expanding_search(grids, valid, **kw)
    batches = []  # the search's own, without its last request (the confirmation of its best points)
    try:
        points = next(gen)
        while True:
            if not isinstance(points, Confirm):
                batches.append(points)
            points = gen.send([f(p) for p in points])
    except StopIteration as done:
        return done.value, batches


def test_the_search_goes_beyond_its_grid_to_an_interior_optimum():
    """An optimum at c1 = 0.003, thirty times below the grid (0.1, 0.5, 1.5): the grid comes first, then steps
    down until the best is interior, then midpoints around it."""
    f = lambda p: (math.log(p["c1"]) - math.log(0.003)) ** 2
    result, batches = _search({"c1": (0.1, 0.5, 1.5)}, f)
    assert [p["c1"] for p in batches[0]] == [0.1, 0.5, 1.5]
    assert result.status == {"c1": "interior"} and 0.0015 < result.best["c1"] < 0.006
    assert result.regret == min(m for _, m in result.points) and not result.movable()


def test_two_parameters_and_an_integer_one():
    f = lambda p: math.log(p["c1"] / 0.02) ** 2 + math.log(p["c2"] / 0.6) ** 2
    result, _ = _search({"c1": (0.1, 0.5, 1.5), "c2": (0.25, 1.0, 3.0)}, f)
    assert result.status == {"c1": "interior", "c2": "interior"}
    assert result.best["c1"] == pytest.approx(0.02, rel=0.5) and result.best["c2"] == pytest.approx(0.6, rel=0.5)
    result, batches = _search({"b": (0, 3, 9, 27)}, lambda p: (math.log1p(p["b"]) - math.log(150)) ** 2,
                              integer=("b",))
    assert all(float(p["b"]).is_integer() for batch in batches for p in batch)
    assert result.status == {"b": "interior"} and 100 <= result.best["b"] <= 220


def test_edges_that_cannot_move_plateaus_and_edges_that_could():
    """β < 1 refused: the search approaches 1 and calls that end hard; a flat regret is a plateau (no step beyond);
    a regret that keeps falling past the steps allowed leaves the best at a movable edge; refused points are
    never asked for."""
    result, batches = _search({"beta": (1e-5, 1e-3, 0.1, 0.5)}, lambda p: -p["beta"], valid=lambda p: p["beta"] < 1)
    assert result.status == {"beta": "hard edge"} and 0.9 < result.best["beta"] < 1
    assert all(p["beta"] < 1 for batch in batches for p in batch)
    result, batches = _search({"x": (1.0, 2.0, 3.0)}, lambda p: 5.0)
    assert result.status == {"x": "plateau"} and max(p["x"] for b in batches for p in b) == 3.0
    result, _ = _search({"x": (1.0, 2.0, 3.0)}, lambda p: -p["x"], max_expansions=3)
    assert result.status == {"x": "movable edge"} and result.movable() == ["x"] and result.best["x"] >= 24
    assert _search({"x": (1.0, 2.0)}, lambda p: 0.0, valid=lambda p: False)[0] is None  # nothing valid


def test_refinement_takes_the_midpoints_on_both_sides():
    """Around an interior best both neighbours' midpoints are simulated (the second one was once lost when the first
    was inserted into the axis)."""
    result, batches = _search({"b": (0, 10, 100, 1000)}, lambda p: abs(p["b"] - 400), integer=("b",), refinements=1)
    assert {p["b"] for p in batches[-1]} == {55.0, 550.0}
    result, batches = _search({"x": (0.1, 1.0, 10.0)}, lambda p: abs(math.log(p["x"])), refinements=1)
    assert sorted(p["x"] for p in batches[-1]) == pytest.approx([math.sqrt(0.1), math.sqrt(10)])


def test_the_answer_is_the_best_of_the_confirmation_runs():
    """The search's few best points are asked for again (a `Confirm` request); the answer is the least on those
    runs, even where another point was least on the search's (a lucky one)."""
    from jaxbandit.tuning.search import Confirm, expanding_search
    gen = expanding_search({"x": (1.0, 2.0, 3.0, 4.0)}, lambda p: True, refinements=0)
    points = next(gen)
    lucky = {1.0: 5.0, 2.0: 1.0, 3.0: 2.0, 4.0: 9.0}  # x = 2 least on the search's runs
    points = gen.send([lucky[p["x"]] for p in points])
    assert isinstance(points, Confirm) and [p["x"] for p in points] == [2.0, 3.0, 1.0]
    with pytest.raises(StopIteration) as done:
        gen.send([4.0, 3.0, 6.0])  # on the confirmation runs x = 3 is the least
    result = done.value.value
    assert result.best == {"x": 3.0} and result.regret == 2.0 and result.status == {"x": "interior"}
    assert result.confirmed == [({"x": 2.0}, 4.0), ({"x": 3.0}, 3.0), ({"x": 1.0}, 6.0)]


def test_refinement_goes_on_until_the_neighbours_are_close():
    """A smooth regret in b (modified TS's shape, optimum 2721 beyond the grid): the rounds of midpoints go on while
    its neighbours are farther than 10%: the best ends within 5% of the optimum (two fixed rounds stopped at 3230)."""
    result, batches = _search({"b": (0, 10, 100, 1000)}, lambda p: (math.log1p(p["b"]) - math.log(2722)) ** 2,
                              integer=("b",))
    assert result.status == {"b": "interior"} and abs(result.best["b"] - 2721) < 0.05 * 2721


def test_validity_is_asked_once_per_point():
    """The frontier calibrates at every `valid` call: a step probed while expanding is not asked again when it is
    simulated."""
    import collections
    calls = collections.Counter()

    def valid(p):
        calls[p["c1"]] += 1
        return p["c1"] < 5.0
    _search({"c1": (0.1, 0.5, 1.5)}, lambda p: (math.log(p["c1"]) - math.log(0.003)) ** 2, valid=valid)
    _search({"c1": (0.1, 0.5, 1.5)}, lambda p: -p["c1"], valid=valid)
    assert calls and max(calls.values()) == 2  # once in each of the two searches
