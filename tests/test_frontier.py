"""The privacy–regret frontier (`jaxbandit.frontier`, in `jaxbandit.frontiers`): which algorithms apply, each point's claim meets its level
(re-checked through the components' own accountants), the recommendation is taken among the points of the user's
notion only, tuning and evaluation use disjoint seeds and the evaluated regret is what `simulate` gives for the same
parameters, resume, bad input, the figure and the CLI."""
import json
import math
import os

import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import frontiers as fr
from jaxbandit.frontiers import algorithm as fr_algorithm, driver as fr_driver
from jaxbandit import policies, privatizers
from jaxbandit.accounting.accountants import Budget

MEANS = [0.2, 0.8]
SMALL = dict(env_params={"means": MEANS}, horizon=400, delta=0.01, runs=20, tuning_runs=10, tuning_steps=2,
             progress=False)
CHOSEN = ["dp-se", "thompson+linear", "gaussian-thompson"]  # tuned, local, fixed (per round: a unit test below)


@pytest.mark.slow  # 30-40 s cold: the default suite keeps the frontier's unit tests (selection, calibration, input)
def test_frontier_end_to_end(tmp_path, monkeypatch):
    """One frontier (xdist would split tests sharing a module fixture over its workers and simulate it in each):
    its rows and recommendation, its grid tuning and an independent re-simulation, resume, and its figure."""
    out = str(tmp_path / "frontier")
    front = fr.frontier("bernoulli", [4.0, 0.5], include=CHOSEN, out=out, **SMALL)
    _check_rows_claims_and_recommendation(front)
    _check_grid_tuning_and_evaluation_against_simulate(front)
    _check_figure(front, tmp_path)
    _check_resume(front, out, monkeypatch)  # last: it stubs the simulation out


def _claim(row, num_arms=len(MEANS), horizon=400):
    """The row's claim from its parameters, through the component's own accountant (not the frontier's code)."""
    policy_name, _, channel = row["algorithm"].partition("+")
    if channel:
        component, params = privatizers.make(channel, **row["params"]["privatizer"])
    else:
        component, params = policies.make(policy_name, num_arms, **row["params"]["policy"])
    return component.accountant.guarantee(params, horizon, num_arms)


# ------------------------------------------------------------------------------------------------ selection
def test_selection_follows_the_instance():
    algs, skipped = fr.algorithms("bernoulli", {"means": MEANS})
    names = {a.name: a for a in algs}
    private = [n for n in policies.private_names() if not policies.is_contextual(n)]  # those need features
    assert set(private) <= set(names) and not skipped
    assert names["ldp-rse"].trust == "local" and names["dp-se"].trust == "central"
    assert names["thompson+linear"].trust == "local" and names["thompson+linear"].private == "privatizer"
    with pytest.warns(DeprecationWarning, match="trust"):  # its former name
        assert names["dp-se"].family == "central"
    # a channel-aware learner only with the channel whose parameters it takes
    assert "klucb-cf+randomized-response" in names and "klucb-cf+linear" not in names
    assert "thompson+randomized-response" in names

    algs, skipped = fr.algorithms("pareto", {"means": [0.5, 0.9], "v": [0.9, 0.9]})
    assert algs == []
    assert "rewards in [0, 1]" in skipped["dp-se"] and "moment bound" in skipped["dp-rse"]
    algs, _ = fr.algorithms("pareto", {"means": [0.5, 0.9], "v": [0.9, 0.9]},
                            policy_params={"dp-rse": {"v": 0.9, "u": 8.142063}})
    assert [a.name for a in algs] == ["dp-rse"]


def test_include_and_exclude_by_name_policy_channel_and_family():
    pick = lambda **kw: sorted(a.name for a in fr.algorithms("bernoulli", {"means": MEANS}, **kw)[0])
    assert pick(include=["local"], exclude=["thompson", "linear", "quadratic", "exponential"]) == sorted(
        ["ldp-rse", "klucb+randomized-response", "ucb1+randomized-response", "klucb-cf+randomized-response",
         "ts-cf+randomized-response", "ucb-cf+randomized-response", "wr-klucb+randomized-response",
         "wr-ts+randomized-response"])
    assert pick(include=["dp-se", "linear"]) == ["dp-se", "klucb+linear", "thompson+linear", "ucb1+linear"]
    with pytest.raises(ValueError, match="dp-sf"):
        pick(include=["dp-sf"])


# ------------------------------------------------------------------------------------------------ calibration
@pytest.mark.parametrize("name", ["dp-se", "dp-ucb-int", "dp-ftpl-new", "thompson+linear",
                                  "klucb-cf+randomized-response", "ldp-rse"])
def test_calibrated_points_meet_their_level_on_its_boundary(name):
    """Every calibrated point's claim meets its budget and a 1% smaller one does not (it is on the boundary, unless
    its parameter is at the least private end of its range), checked by the component's accountant from the point's
    own parameters."""
    alg = next(a for a in fr.algorithms("bernoulli", {"means": MEANS})[0] if a.name == name)
    spec = fr_algorithm._spec(alg, "bernoulli", {"means": MEANS}, 2000, 10, {}, {})
    base = spec.params
    if name == "dp-ucb-int":  # blocks of 50 pulls: few enough releases to meet these levels at T = 2000
        base = base._replace(policy=base.policy._replace(epsilon=np.float32(0.02)))
    for level in (0.5, 2.0):
        point = fr_algorithm._calibrated_point(alg, spec, base, level, 0.01, {})
        component = getattr(spec, alg.private)
        claim = component.accountant.guarantee(getattr(point, alg.private), 2000, 2)
        budget = fr_algorithm._budget(alg, component.accountant, level, 0.01)
        assert claim.meets(budget), (name, level, claim)
        tighter = Budget(epsilon=level * 0.99, delta=budget.delta)
        value = float(getattr(getattr(point, alg.private), component.accountant.calibrated))
        at_end = any(np.isclose(value, end, rtol=1e-5) for end in component.accountant.calibrated_range)
        assert at_end or not claim.meets(tighter), (name, level, claim)  # on the boundary, or as weak as it goes
        if name.startswith("klucb-cf"):  # the learner inverts the channel it is given
            assert float(point.policy.p00) == float(point.privatizer.p00) != 0.5
            assert float(point.policy.p11) == float(point.privatizer.p11)


def test_a_pure_budget_takes_no_gdp_claim():
    alg = next(a for a in fr.algorithms("bernoulli", {"means": MEANS})[0] if a.name == "modified-thompson")
    spec = fr_algorithm._spec(alg, "bernoulli", {"means": MEANS}, 2000, 10, {}, {})
    assert fr_algorithm._calibrated_point(alg, spec, spec.params, 1.0, 0.0, {}) is None
    assert fr_algorithm._calibrated_point(alg, spec, spec.params, 1.0, 0.01, {}) is not None



def test_a_claim_whose_delta_is_fixed_above_the_request_says_so():
    alg = next(a for a in fr.algorithms("bernoulli", {"means": MEANS})[0] if a.name == "dp-ucb-int")
    spec = fr_algorithm._spec(alg, "bernoulli", {"means": MEANS}, 2000, 10, {}, {})
    assert fr_algorithm._calibrated_point(alg, spec, spec.params, 35.0, 1e-6, {}) is None  # its δ = e^-10 > 1e-6
    assert "exceeds the requested delta = 1e-06" in fr_algorithm._claim_text(alg, spec, spec.params, 1e-6)
    assert "exceeds" not in fr_algorithm._claim_text(alg, spec, spec.params, 0.01)
    ftpl = next(a for a in fr.algorithms("bernoulli", {"means": MEANS})[0] if a.name == "dp-ftpl-gauss")
    ftpl_spec = fr_algorithm._spec(ftpl, "bernoulli", {"means": MEANS}, 2000, 10, {}, {})  # its δ is a parameter
    assert "exceeds" not in fr_algorithm._claim_text(ftpl, ftpl_spec, ftpl_spec.params, 1e-6)
    assert fr_algorithm._calibrated_point(alg, spec, spec.params, 35.0, 0.01, {}) is not None


# ------------------------------------------------------------------------------------------------ the frontier
def _check_rows_claims_and_recommendation(front):
    rows = front.rows
    assert front.config["levels"] == [0.5, 4.0]
    assert {r["algorithm"] for r in rows} == set(CHOSEN) - {"gaussian-thompson"}
    assert "mu = " in front.skipped["gaussian-thompson"] or "μ = " in front.skipped["gaussian-thompson"]
    keys = {"algorithm", "family", "notion", "epsilon", "delta", "params", "regret_mean", "regret_se", "runs",
            "tuning_agent_steps", "level", "meets", "recommended", "regret_quantiles", "warnings"}
    for r in rows:
        assert keys <= set(r)
        claim = _claim(r)
        assert claim.describe() == r["claim"]
        budget = Budget(epsilon=r["level"]) if r["family"] == "local" else Budget(epsilon=r["level"], delta=0.01)
        assert claim.meets(budget)
        assert r["meets"] == (claim.scope == ("report" if r["family"] == "local" else "run"))
        assert r["runs"] == 20 and r["regret_se"] >= 0 and 0 <= r["regret_mean"] <= 0.6 * 400
    for level in front.config["levels"]:
        central = [r for r in rows if r["level"] == level and r["family"] == "central" and r["meets"]]
        chosen = [r for r in rows if r["level"] == level and r["recommended"]]
        assert len(chosen) == 1 and chosen[0] in central
        assert chosen[0]["regret_mean"] == min(r["regret_mean"] for r in central)
        local = [r for r in rows if r["level"] == level and r["family"] == "local"]
        best_local = [r for r in local if r["best_of_family"]]
        assert len(best_local) == 1 and best_local[0]["regret_mean"] == min(r["regret_mean"] for r in local)
    assert "*" in front.table() and "gaussian-thompson" in front.table()
    # DP-SE's first epoch outlasts T = 400: uniform play, and the row says so; the others learn and do not
    uniform = front.uniform_regret()
    assert uniform == pytest.approx(400 * 0.3)
    for r in rows:
        near_uniform = r["regret_mean"] >= 0.9 * uniform
        assert near_uniform == any("uniformly" in w for w in r["warnings"]), r
    assert any(r["regret_mean"] >= 0.9 * uniform for r in rows if r["algorithm"] == "dp-se")


def _check_grid_tuning_and_evaluation_against_simulate(front):
    """The tuned point is the least tuning regret; one row re-simulated with `simulate` and the evaluation seed
    gives its numbers."""
    c = front.config
    assert c["tuning_seed"] != c["evaluation_seed"]
    for r in (r for r in front.rows if r["algorithm"] == "dp-se"):
        t = r["tuning"]
        grid = policies.get("dp-se", 2).tunable["beta"]
        betas = [v["beta"] for v in t["values"]]
        assert t["method"] == "expanding grid search" and betas[:len(grid)] == list(grid)  # the grid first
        assert len(betas) > len(grid) and t["status"]["beta"] in ("interior", "hard edge", "plateau")
        assert r["tuning_agent_steps"] == (len(betas) * 10 + 3 * 20) * 400
        # every point of the search is what `sweep` gives at that β on the tuning seed's runs (common random numbers)
        again = jb.sweep("bernoulli", "dp-se", env_params={"means": MEANS}, policy_params={"epsilon": r["level"]},
                         grid={"policy.beta": betas}, horizon=400, runs=10, seed=c["tuning_seed"], realized=False)
        assert again.final().mean(1) == pytest.approx(t["regret"], rel=1e-6)
        # its best points again on twice the runs of the confirmation seed; the row's is the least of those
        assert len({c["tuning_seed"], c["evaluation_seed"], c["confirmation_seed"]}) == 3
        confirmed = [p["values"]["beta"] for p in t["confirmed"]]
        assert len(confirmed) == 3 and t["confirmation_runs"] == 20
        check = jb.sweep("bernoulli", "dp-se", env_params={"means": MEANS}, policy_params={"epsilon": r["level"]},
                         grid={"policy.beta": confirmed}, horizon=400, runs=20, seed=c["confirmation_seed"],
                         realized=False)
        assert check.final().mean(1) == pytest.approx([p["regret"] for p in t["confirmed"]], rel=1e-6)
        assert r["params"]["policy"]["beta"] == pytest.approx(confirmed[int(np.argmin(check.final().mean(1)))],
                                                              rel=1e-6)
    # an independent re-simulation of its rows with `sweep` and the evaluation seed gives their numbers
    rows = sorted((r for r in front.rows if r["algorithm"] == "thompson+linear"), key=lambda r: r["level"])
    res = jb.sweep("bernoulli", "thompson", privatizer="linear", env_params={"means": MEANS},
                   grid={"privatizer.epsilon": [r["params"]["privatizer"]["epsilon"] for r in rows]}, horizon=400,
                   runs=20, seed=c["evaluation_seed"], realized=False)
    assert res.final().mean(1) == pytest.approx([r["regret_mean"] for r in rows], rel=1e-6)


def _check_resume(front, out, monkeypatch):
    """Resume skips what is done (no simulation) and refuses another request."""
    saved = json.load(open(os.path.join(out, "frontier.json")))
    assert saved["format"] == "jaxbandit-frontier" and sorted(saved["done"]) == sorted(CHOSEN)
    assert os.path.exists(os.path.join(out, "results", "dp-se.npz"))
    loaded = fr.Frontier.load(os.path.join(out, "frontier.json"))
    assert loaded.rows == json.loads(json.dumps(front.rows)) and loaded.table() == front.table()
    monkeypatch.setattr(fr_algorithm, "run_spec", lambda *a, **k: pytest.fail("a resumed frontier simulated again"))
    again = fr.frontier("bernoulli", [4.0, 0.5], include=CHOSEN, out=out, **SMALL)
    assert [(r["algorithm"], r["level"], r["regret_mean"], r["recommended"]) for r in again.rows] == [
        (r["algorithm"], r["level"], r["regret_mean"], r["recommended"]) for r in front.rows]
    with pytest.raises(ValueError, match="another request.*runs"):
        fr.frontier("bernoulli", [4.0, 0.5], include=CHOSEN, out=out, **{**SMALL, "runs": 21})


def _check_figure(front, tmp_path):
    from jaxbandit import plotting
    fig = plotting.frontier_figure(front)
    assert [ax.get_title() for ax in fig.axes][:2] == ["central: (ε, δ)-DP over the whole run, δ = 0.01",
                                                       "local: ε-LDP of each report"]
    plotting.save(fig, str(tmp_path / "frontier.png"))
    assert os.path.getsize(tmp_path / "frontier.png") > 10_000


@pytest.mark.parametrize("kw, match", [
    ({"budgets": []}, "budgets"), ({"budgets": [-1.0]}, "budgets"), ({"budgets": [math.inf]}, "budgets"),
    ({"delta": 1.0}, "delta"), ({"notion": "global"}, "notion"), ({"runs": 1}, "runs"),
    ({"tuning_runs": 1}, "tuning_runs"), ({"horizon": 0}, "horizon"), ({"include": ["nope"]}, "nope"),
    ({"policy_params": {"dp-se": 3}}, "policy_params"), ({"out": "/proc/frontier"}, "out"),
])
def test_bad_input_is_refused_before_any_simulation(kw, match, monkeypatch):
    monkeypatch.setattr(fr_algorithm, "run_spec", lambda *a, **k: pytest.fail("simulated before checking its input"))
    args = {"budgets": [1.0], **kw}
    with pytest.raises(ValueError, match=match):
        fr.frontier("bernoulli", args.pop("budgets"), **{**SMALL, "include": ["dp-se"], **args})


def test_a_file_that_is_not_a_frontier_is_refused(tmp_path, monkeypatch):
    other = {"format": "jaxbandit-results", "rows": [], "skipped": {}, "config": {}, "seconds": {}}
    with pytest.raises(ValueError, match="not a frontier of this version"):
        fr.Frontier.from_dict(other)
    (tmp_path / "frontier.json").write_text(json.dumps(other))  # nor is it resumed from
    monkeypatch.setattr(fr_algorithm, "run_spec", lambda *a, **k: pytest.fail("simulated before refusing"))
    with pytest.raises(ValueError, match="is not a frontier file of this version.*choose another folder"):
        fr.frontier("bernoulli", [1.0], include=["dp-se"], out=str(tmp_path), **SMALL)


def test_per_round_claims_are_shown_but_never_recommended():
    """The recommendation per level is the least regret among the rows that meet the level under the notion asked;
    a per-round row (DP-FTPL) never meets a whole-run level, however low its regret."""
    def row(name, family, scope, meets, regret):
        return {"algorithm": name, "family": family, "scope": scope, "meets": meets, "level": 1.0,
                "regret_mean": regret, "best_of_family": None, "recommended": None}
    rows = [row("dp-ftpl-new", "central", "round", False, 10.0), row("dp-se", "central", "run", True, 50.0),
            row("lazy-ucb", "central", "run", True, 40.0), row("thompson+linear", "local", "report", True, 20.0)]
    fr_driver._recommend(rows, [1.0], "central")
    assert [r["algorithm"] for r in rows if r["recommended"]] == ["lazy-ucb"]
    assert [r["algorithm"] for r in rows if r["best_of_family"]] == ["lazy-ucb", "thompson+linear"]
    fr_driver._recommend(rows, [1.0], "local")
    assert [r["algorithm"] for r in rows if r["recommended"]] == ["thompson+linear"]


def test_a_level_beyond_a_parameters_valid_range_is_skipped_with_its_reason(tmp_path, monkeypatch):
    """DP-FTPL's ε is valid up to 50 (e^ε in float32): at seed 001's η = 10 (ε = 96.7 at δ = 1e-6) that level is
    skipped with the validation's message, kept in `Frontier.skipped` (and through save and resume); the others run."""
    alg = next(a for a in fr.algorithms("bernoulli", {"means": MEANS})[0] if a.name == "dp-ftpl-new")
    spec = fr_algorithm._spec(alg, "bernoulli", {"means": MEANS}, 400, 10, {}, {})
    why = {}
    assert fr_algorithm._calibrated_point(alg, spec, spec.params, 96.7, 0.01, {}, why) is None
    assert "epsilon=96.7 is outside the valid range [0, 50]" in why[96.7]
    assert fr_algorithm._calibrated_point(alg, spec, spec.params, 1.0, 0.01, {}, why) is not None and 1.0 not in why

    def one(alg, *args, **kwargs):  # the simulation stubbed out: what _one returns for one level met, one not
        row = {"algorithm": alg.name, "family": "central", "scope": "round", "meets": False, "level": 1.0,
               "regret_mean": 5.0, "regret_se": 1.0, "warnings": [], "params": {}, "notion": "approx-dp",
               "epsilon": 1.0, "delta": 0.01, "mu": None}
        return {"rows": [row], "curve": {}, "tuning_seconds": 0.0, "evaluation_seconds": 0.0,
                "skipped_levels": {96.7: why[96.7]}}
    monkeypatch.setattr(fr_driver, "run_algorithm", one)
    kw = dict(SMALL, include=["dp-ftpl-new"], out=str(tmp_path))
    for _ in range(2):  # the second call resumes from the saved file
        front = fr.frontier("bernoulli", [1.0, 96.7], **kw)
        assert front.skipped == {"dp-ftpl-new at epsilon = 96.7": why[96.7]}
        assert "dp-ftpl-new at epsilon = 96.7: epsilon=96.7 is outside the valid range" in front.table()


@pytest.mark.slow  # docs/frontier.md's command runs the CLI in the slow tier too
def test_cli(tmp_path, capsys):
    from jaxbandit.cli import main
    path = tmp_path / "f.json"
    code = main(["frontier", "--env", "bernoulli", "--means", "0.2,0.8", "--epsilons", "0.5,4", "--delta", "0.01",
                 "--horizon", "400", "--include", "thompson+linear", "--runs", "20", "--tuning-runs", "10",
                 "--json", str(path), "--no-progress"])
    assert code == 0
    rows = json.load(open(path))["rows"]
    assert [(r["algorithm"], r["level"]) for r in rows] == [("thompson+linear", 0.5), ("thompson+linear", 4.0)]
    assert "thompson+linear" in capsys.readouterr().out
    assert main(["frontier", "--env", "bernoulli", "--means", "0.2,0.8", "--epsilons", "1", "--horizon", "400",
                 "--policy-param", "dp-se=3"]) == 2
    assert "ALGORITHM:KEY=VALUE" in capsys.readouterr().err


@pytest.mark.slow
def test_modified_thompson_is_searched_or_tuned_by_gradient_on_the_boundary():
    front = fr.frontier("bernoulli", [1.0], include=["modified-thompson"], **{**SMALL, "horizon": 2000})
    (row,) = front.rows
    assert row["tuning"]["method"] == "expanding grid search" and float(row["params"]["policy"]["b"]).is_integer()
    claim = _claim(row, horizon=2000)
    assert claim.notion == "gdp" and claim.epsilon_at(0.01) == pytest.approx(1.0, rel=1e-6)
    front = fr.frontier("bernoulli", [1.0], include=["modified-thompson"], gradient=["modified-thompson"],
                        **{**SMALL, "horizon": 2000})
    (row,) = front.rows
    assert row["tuning"]["method"] == "gradient" and len(row["tuning"]["trace"]) == 2
    claim = _claim(row, horizon=2000)
    assert claim.notion == "gdp" and claim.epsilon_at(0.01) == pytest.approx(1.0, rel=1e-6)
    assert row["epsilon"] == pytest.approx(1.0, rel=1e-6) and row["recommended"]


@pytest.mark.slow
def test_audit_adds_the_lower_bound_and_surfaces_a_planted_bug(monkeypatch):
    kw = {**SMALL, "include": ["thompson+linear"]}
    front = fr.frontier("bernoulli", [1.0], audit=True, **kw)
    (row,) = front.rows
    assert row["audit"]["claim"] == pytest.approx(1.0) and 0.5 < row["audit"]["lower_bound"] <= 1.0
    assert not row["audit"]["violated"] and "[audit linear: epsilon >= " in front.table()
    # a policy audited through its mechanism's audit, as its registration lists it (LDPRSE's Laplace channel)
    ldp_rse = fr.Algorithm("ldp-rse", "ldp-rse", trust="local")
    found = fr_algorithm.audit_row(ldp_rse, {"params": {"policy": {"epsilon": 1.0}}}, 0)
    assert found["name"] == "local-laplace" and found["claim"] == 1.0 and not found["violated"]
    assert fr_algorithm.audit_row(fr.Algorithm("ucb1", "ucb1"), {"params": {"policy": {}}}, 0) is None  # lists no audit
    from jaxbandit.audit import components
    make = components.make
    monkeypatch.setattr(components, "make", lambda name, **p: make(name, bug="noise-halved", **p))
    buggy = fr.frontier("bernoulli", [1.0], audit=True, **{**kw, "include": ["thompson+linear"]})
    assert buggy.rows[0]["audit"]["violated"] and "VIOLATED" in buggy.table()


def test_the_papers_instances_select_what_they_name():
    """Every instance of experiments/frontier_instances.py resolves, and each algorithm it names applies (heavy
    tails: with the moment bound given on unbounded rewards); nothing is simulated."""
    from jaxbandit.experiments import frontier_instances
    for name, s in frontier_instances.INSTANCES.items():
        for include in (s["include"], s["quick_include"]):
            algs, skipped = fr.algorithms(s["env"], s["env_params"], include=include,
                                          policy_params=s.get("policy_params"))
            named = {n for n in include if "+" in n or n in policies.names()}
            assert named <= {a.name for a in algs} | {a.policy for a in algs}, (name, skipped)
            assert algs and not (named & set(skipped)), (name, skipped)
    heavy = frontier_instances.INSTANCES["heavy-s1"]
    assert heavy["policy_params"]["dp-rse"]["u"] == pytest.approx(8.142063, rel=1e-6)


def test_the_recorded_frontiers_are_those_of_the_instances_and_their_claims_hold():
    """experiments/frontier_results.json (read by the findings and the notebook) holds every instance as its settings
    ask, and every row's claim, re-derived by the component's own accountant from the row's parameters, is the one
    recorded, meeting its level exactly where the row says so."""
    from jaxbandit import envs
    from jaxbandit.experiments import frontier_instances
    recorded = frontier_instances.recorded_frontiers()
    assert set(recorded) == set(frontier_instances.INSTANCES)
    for name, front in recorded.items():
        s, c = frontier_instances.INSTANCES[name], front.config
        levels = sorted(frontier_instances.budgets_of(s))
        assert (c["env"], c["env_params"], c["levels"], c["delta"]) == (s["env"], s["env_params"], levels,
                                                                       s["delta"]), name
        assert (c["horizon"], c["runs"], c["include"]) == (s["horizon"], s["runs"], s["include"]), name
        num_arms = envs.make(c["env"], **c["env_params"])[0].num_arms
        assert front.rows and {r["level"] for r in front.rows} <= set(c["levels"])
        for r in front.rows:
            claim = _claim(r, num_arms, c["horizon"])
            assert claim.describe() == r["claim"], (name, r["algorithm"], r["level"])
            budget = (Budget(epsilon=r["level"]) if r["family"] == "local" else
                      Budget(epsilon=r["level"], delta=c["delta"]))
            assert r["meets"] == (claim.meets(budget) and claim.scope == ("report" if r["family"] == "local"
                                                                            else "run")), (name, r["algorithm"])
        assert all(front.recommended()[lv]["meets"] for lv in front.recommended())


@pytest.mark.slow
def test_the_instances_script_writes_its_table_and_figure(tmp_path, capsys):
    from jaxbandit.experiments import frontier_instances
    frontier_instances.main(["--out", str(tmp_path), "--only", "heavy-s1", "--quick"])
    folder = tmp_path / "heavy-s1"
    table = (folder / "table.txt").read_text()
    assert "dp-rse" in table and "ldp-rse" in table and table in capsys.readouterr().out
    assert (folder / "frontier.png").stat().st_size > 10_000
    saved = json.loads((folder / "frontier.json").read_text())
    assert {r["algorithm"] for r in saved["rows"]} == {"dp-rse", "ldp-rse"} and saved["config"]["horizon"] == 2000
    fig = frontier_instances.figure("heavy-s1", fr.Frontier.from_dict(saved))  # rows only: no curves needed
    assert [ax.get_title() for ax in fig.axes][:2] == ["central: pure ε-DP over the whole run (δ = 0)",
                                                       "local: ε-LDP of each report"]



def test_comparison_is_the_former_name_of_frontiers():
    """`jaxbandit.comparison` still imports, with a deprecation warning, and gives the same objects."""
    import importlib
    import sys
    sys.modules.pop("jaxbandit.comparison", None)
    with pytest.warns(DeprecationWarning, match="jaxbandit.frontiers"):
        old = importlib.import_module("jaxbandit.comparison")
    assert old.frontier is fr.frontier and old.Frontier is fr.Frontier and old.NOTIONS is fr.TRUST_MODELS


# ------------------------------------------------------------------------------------------------ ties
def _row(name, regret, level=1.0, seed=7, family="central"):
    row = {"algorithm": name, "family": family, "scope": "run", "meets": True, "level": level,
           "evaluations": [{"seed": seed, "regret": list(map(float, regret))}], "best_of_family": None,
           "recommended": None}
    fr_algorithm.set_regret(row)
    return row


def test_the_recommendation_is_compared_with_each_runner_up_run_by_run():
    """The paired difference is computed over the runs both rows share (by seed), with its own standard error: a
    runner-up whose per-run regret is the best's plus 1 ± 0.1 is significantly worse even where the rows' own
    spreads (unpaired SE ≈ 6) hide it; one that differs by noise is a tie, and the line names it."""
    rng = np.random.default_rng(0)
    base = rng.normal(100, 30, size=40)
    best = _row("a", base)
    close = _row("b", base + 1 + rng.normal(0, 0.1, 40))
    noisy = _row("c", base + rng.normal(0, 20, 40))
    rows = [best, close, noisy]
    fr_driver._recommend(rows, [1.0], "central")
    assert best["recommended"]
    by = {c["algorithm"]: c for c in best["comparisons"]}
    d = np.asarray(close["evaluations"][0]["regret"]) - base
    assert by["b"]["difference"] == pytest.approx(d.mean()) and by["b"]["runs"] == 40
    assert by["b"]["se"] == pytest.approx(d.std(ddof=1) / math.sqrt(40))
    assert by["b"]["significant"] and abs(close["regret_mean"] - best["regret_mean"]) < 2 * close["regret_se"]
    assert not by["c"]["significant"]
    line = fr.result.tie_text(best)
    assert line.startswith("recommended: a; no significant difference at 40 paired runs from c (")
    assert "b (" not in line
    # runs of another seed are not paired
    other = _row("d", base + 1, seed=8)
    assert fr.result.paired_difference(other, best) is None


def test_a_resolved_order_is_said_and_rows_without_runs_fall_back_to_the_unpaired_mark():
    base = np.linspace(10, 50, 20)
    best, worse = _row("a", base), _row("b", base + 5 + 0.01 * np.sin(base))
    fr_driver._recommend([best, worse], [1.0], "central")
    assert fr.result.tie_text(best).startswith("recommended: a; better than every runner-up on the same 20 runs "
                                               "(closest b: +5 ± 0.00")
    old = {"algorithm": "x", "regret_mean": 10.0, "regret_se": 3.0}
    assert fr.result._tied({"algorithm": "y", "regret_mean": 14.0, "regret_se": 1.0}, old)


@pytest.mark.slow
def test_more_runs_resolve_a_tie_within_the_budget_on_seeds_the_tuning_never_uses():
    """Two AdaP rows of one level start tied at 16 runs; ``more_runs`` doubles the tied rows' runs on new seeds (the
    same for both, neither the tuning nor the evaluation seed) and stops at its budget; the evaluation seed gives a
    row's own runs back when its point is rebuilt from the row (what the extra runs are simulated at)."""
    kw = dict(env_params={"means": [0.9, 0.6, 0.5]}, horizon=1000, runs=16, tuning_runs=4, progress=False,
              include=["adap-ucb", "adap-klucb"], policy_params={"adap-ucb": {"alpha": 3.1},
                                                                 "adap-klucb": {"alpha": 3.1}})
    plain = fr.frontier("bernoulli", [1.0], **kw)
    budget = 16 * 1000 * 2 + 32 * 1000 * 2  # two doublings of two rows
    front = fr.frontier("bernoulli", [1.0], more_runs=budget, **kw)
    res = front.resolution
    assert res["agent_steps"] <= budget and res["budget"] == budget
    seeds = [b["seed"] for b in res["batches"]]
    assert len(set(seeds)) == len(seeds) and not {front.config["tuning_seed"], front.config["evaluation_seed"],
                                                  front.config["confirmation_seed"]} & set(seeds)
    for row in front.rows:
        assert row["runs"] == sum(len(e["regret"]) for e in row["evaluations"]) >= 16
        assert [e["seed"] for e in row["evaluations"]][0] == front.config["evaluation_seed"]
    if res["unresolved"]:
        assert "no significant difference" in front.table() and "would exceed the budget" in res["stopped"]
    else:
        assert "better than every runner-up" in front.table()
    again = fr.Frontier.from_dict(json.loads(json.dumps(front.to_dict())))
    assert again.resolution == res and again.table() == front.table()
    # the row's point rebuilt from its parameters gives its own evaluation runs back
    row = next(r for r in plain.rows if r["algorithm"] == "adap-klucb")
    alg = next(a for a in fr.algorithms("bernoulli", kw["env_params"])[0] if a.name == "adap-klucb")
    copy = {**row, "evaluations": []}
    fr_algorithm.evaluate_more(alg, "bernoulli", kw["env_params"], 1000, 50, {"alpha": 3.1}, {}, [copy], 16,
                               plain.config["evaluation_seed"])
    assert copy["evaluations"][0]["regret"] == row["evaluations"][0]["regret"]


def test_one_level_is_drawn_as_a_ranked_dot_plot_with_the_names_and_ties(tmp_path):
    """With a single ε each panel ranks its rows by regret (least at the top) with the names beside the points; the
    recommendation is named with a star and ringed (its point stays visible), the rows it is not significantly
    better than say "≈ tie", and the lower bound's line is inside the axis."""
    from jaxbandit import plotting
    rng = np.random.default_rng(1)
    base = rng.normal(60, 10, 30)
    rows = [_row("adap-klucb", base), _row("adap-ucb", base + 1 + 8 * np.sin(np.arange(30))), _row("dp-se", base + 200)]
    for r in rows:
        r.update(scope="run", notion="pure-dp", regret_quantiles={}, params={"policy": {}}, warnings=[])
    fr_driver._recommend(rows, [1.0], "central")
    config = {"env": "bernoulli", "env_params": {"means": [0.9, 0.6, 0.5]}, "env_label": "bernoulli with 3 arms",
              "levels": [1.0], "delta": 0.0, "notion": "central", "horizon": 2000, "runs": 30, "tuning_runs": 8,
              "uniform_regret": 466.7}
    front = fr.Frontier(rows, {}, {}, config, {"tuning": 0.0, "evaluation": 0.0, "total": 0.0})
    fig = plotting.frontier_figure(front)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["★ adap-klucb (recommended)", "adap-ucb  ≈ tie", "dp-se"]
    ticks = list(ax.get_yticks())
    assert ticks[0] > ticks[1] > ticks[2]  # the least regret at the top
    assert "≈ tie: no significant difference from ★ at 30 paired runs" in ax.get_title()
    from jaxbandit import theory
    bound = float(theory.adap_lower_bound([0.9, 0.6, 0.5], 2000, 1.0))
    low, high = ax.get_xlim()
    assert low < bound < high and low < rows[0]["regret_mean"] and high > 466.7
    plotting.save(fig, str(tmp_path / "one_level.png"))


def _race_spec():
    spec = jb.resolve("bernoulli", "lazy-ucb", env_params={"means": [0.7, 0.5, 0.4]}, horizon=300)
    return spec, [spec.params._replace(policy=spec.params.policy._replace(c1=jnp.asarray(c, jnp.float32)))
                  for c in (0.05, 0.1, 0.3, 1.0, 1.5)]


def _counting(monkeypatch, shapes):
    real = fr_algorithm.run_spec

    def counted(s, **kw):
        shapes.append(len(s.points) * kw["runs"])
        return real(s, **kw)
    monkeypatch.setattr(fr_algorithm, "run_spec", counted)
    return real


def test_the_search_simulates_fewer_runs_at_once_on_many_arms():
    """About `GROUP_ARM_RUNS` arms x runs a simulation, in whole slices, at most `GROUP_RUNS` runs."""
    assert [fr_algorithm.group_runs(k) for k in (2, 9, 20, 25, 101, 1000, 10 ** 6)] == [200, 200, 200, 200, 50, 10, 10]


def test_an_unraced_search_gives_each_points_own_means_in_groups_of_one_shape(monkeypatch):
    """With no stopping (`RACE_Z` = ∞) every point gets all its runs, in slices of `RACE_SLICE` and simulations of
    `group_runs` runs (the last padded): the means are those of each point's runs simulated together, alone. Where
    a simulation holds more than one point's runs there is no race: whole points, as many a simulation as fit."""
    spec, points = _race_spec()
    shapes = []
    real = _counting(monkeypatch, shapes)
    monkeypatch.setattr(fr_algorithm, "GROUP_RUNS", 8)
    monkeypatch.setattr(fr_algorithm, "RACE_SLICE", 2)
    monkeypatch.setattr(fr_algorithm, "RACE_Z", math.inf)
    race = fr_algorithm._Race(spec, seed=3, runs=8)
    assert race.slice == 2
    asked = {1.0: [((1.0, i), p) for i, p in enumerate(points[:3])], 2.0: [((2.0, i), p) for i, p in
                                                                          enumerate(points[3:])]}
    got = race.means(asked)
    assert set(shapes) == {8} and len(shapes) == 5  # 5 points x 4 slices of 2 runs, 4 slices a simulation
    # a run's numbers do not depend on its batch: each point alone, in the race's shape (no new compilation)
    whole = [real(spec.with_points([p]), runs=8, seed=3).final().mean() for p in points]
    np.testing.assert_allclose(got[1.0] + got[2.0], whole, rtol=1e-6)
    assert race.simulated == {1.0: 24, 2.0: 16}
    shapes.clear()  # a simulation holds two points' 4 runs: no race, 2 points a simulation, the last padded
    race = fr_algorithm._Race(spec, seed=3, runs=4)
    got = race.means({1.0: [((1.0, i), p) for i, p in enumerate(points)]})
    assert race.slice == 4 and shapes == [8, 8, 8]
    np.testing.assert_allclose(got[1.0], [real(spec.with_points([p, p]), runs=4, seed=3).final()[0].mean()
                                          for p in points], rtol=1e-6)
    shapes.clear()  # runs that are no multiple of the slice: no race, all runs of a point at once
    race = fr_algorithm._Race(spec, seed=3, runs=5)
    got = race.means({1.0: [((1.0, i), p) for i, p in enumerate(points[:2])]})
    assert shapes == [5, 5]
    np.testing.assert_allclose(got[1.0], [real(spec.with_points([p]), runs=5, seed=3).final().mean()
                                          for p in points[:2]], rtol=1e-6)


def test_a_race_stops_a_clearly_worse_point_and_estimates_it_on_the_leaders_runs(monkeypatch):
    """A point far worse than its level's best stops after its first slices; its mean is its paired difference from
    the leader plus the leader's mean on all runs. The best points run to the end, with the one-batch numbers, and
    a point identical to another on every run (a plateau) is never stopped."""
    spec = jb.resolve("bernoulli", "lazy-ucb", env_params={"means": [0.9, 0.2, 0.1]}, horizon=2000)
    good = spec.params._replace(policy=spec.params.policy._replace(c1=jnp.asarray(0.05, jnp.float32)))
    bad = spec.params._replace(policy=spec.params.policy._replace(c1=jnp.asarray(50.0, jnp.float32)))
    shapes = []
    real = _counting(monkeypatch, shapes)
    monkeypatch.setattr(fr_algorithm, "GROUP_RUNS", 20)  # 2 slices of 10 a simulation
    race = fr_algorithm._Race(spec, seed=5, runs=40)
    asked = {1.0: [((1.0, "good"), good), ((1.0, "bad"), bad), ((1.0, "twin"), good)]}
    got = race.means(asked)[1.0]
    assert race.runs_of((1.0, "good")) == race.runs_of((1.0, "twin")) == 40 and (1.0, "good") not in race.stopped
    assert race.runs_of((1.0, "bad")) == 10 and race.stopped[(1.0, "bad")][0] in ((1.0, "good"), (1.0, "twin"))
    # the same runs simulated apart, in the race's shape of 20 runs (no new compilation)
    final = lambda p, first: np.asarray(real(spec.with_points([p]), runs=20, seed=5, first_run=first).final()[0],
                                        np.float64)
    best, worst = np.concatenate([final(good, 0), final(good, 20)]), final(bad, 0)[:10]
    np.testing.assert_allclose(got[0], best.mean(), rtol=1e-6)
    assert got[2] == got[0]
    difference = worst.mean() - best[:10].mean()
    assert difference > 0
    np.testing.assert_allclose(got[1], best.mean() + difference, rtol=1e-6)
    assert race.simulated == {1.0: 90}  # 40 + 40 + 10 runs
    assert set(shapes) == {20}
    # a later request is compared with the best point that has run everything (the leader across rounds)
    worse = spec.params._replace(policy=spec.params.policy._replace(c1=jnp.asarray(20.0, jnp.float32)))
    again = race.means({1.0: [((1.0, "worse"), worse)]})[1.0]
    best = min(((1.0, "good"), (1.0, "twin")), key=lambda k: (race.finals[k].mean(), k))
    assert race.stopped[(1.0, "worse")][0] == best
    assert race.runs_of((1.0, "worse")) < 40 and again[0] > got[0]
