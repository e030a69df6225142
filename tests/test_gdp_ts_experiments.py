"""The seed-001 experiments (gdp-ts-fig1 ... fig8) in their quick settings: they run, write their figures and a
summary.csv whose numbers agree with the accounting and with the (b, c) rule of the paper's Section 5."""
import csv

import numpy as np
import pytest

from jaxbandit import experiments
from jaxbandit.experiments import gdp_ts, runner

pytestmark = pytest.mark.slow  # slow tier: quick reproductions (minutes)


def _rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def test_b_c_pairs_follow_the_minimal_c_rule():
    pairs = gdp_ts.b_c_pairs(5.0, 100_000, 5, gdp_ts.B_GRID)
    assert [b for b, _ in pairs] == [b for b in gdp_ts.B_GRID if b <= 3000]  # c = 4000/(b+1) >= 1
    for b, c in pairs:
        assert c == pytest.approx(100_000 / (25 * (b + 1)), rel=1e-6)
    # bN >= T dropped
    assert max(b for b, _ in gdp_ts.b_c_pairs(1.0, 20_000, 5, gdp_ts.B_GRID)) == 3000


def test_fig1_and_fig6_summaries(tmp_path):
    runner.run(experiments.load("gdp-ts-fig1"), str(tmp_path / "f1"), quick=True, progress=False, log=lambda *a: None)
    rows = {r["label"]: r for r in _rows(tmp_path / "f1" / "summary.csv")}
    assert float(rows["b=9, c=1"]["epsilon(delta=1e-06)"]) == pytest.approx(96.7173, rel=1e-5)
    assert rows["b=4, c=1"]["epsilon(delta=0.01)"] == rows["b=0, c=5"]["epsilon(delta=0.01)"]  # only c(b+1) matters
    assert (tmp_path / "f1" / "fig1.png").stat().st_size > 10_000
    runner.run(experiments.load("gdp-ts-fig6"), str(tmp_path / "f6"), quick=True, progress=False, log=lambda *a: None)
    rows = _rows(tmp_path / "f6" / "summary.csv")
    for n in ("2", "10"):
        by = {r["label"]: r for r in rows if r["num_arms"] == n}
        for d in gdp_ts.TABLE_DELTAS:
            col = f"epsilon(delta={d:g})"
            g, r, s = (float(by[k][col]) for k in ("GDP (Thm 3)", "RDP (Thm 8)", "standard DP (Thm 7 + Cor. 1)"))
            assert g < r < s and s > 7 * g
    assert (tmp_path / "f6" / "fig6.png").exists() and (tmp_path / "f6" / "fig7.png").exists()


def test_fig2_then_fig3_share_the_simulations(tmp_path):
    """Different output folders, one cache (as `jaxbandit reproduce` gives figures written to one root)."""
    cache = str(tmp_path / "results")
    logs = []
    results = runner.run(experiments.load("gdp-ts-fig2"), str(tmp_path / "fig2"), quick=True, progress=False,
                         log=logs.append, cache=cache)
    horizon, runs, b_grid = gdp_ts.settings(True)
    rows = _rows(tmp_path / "fig2" / "summary.csv")
    assert len(rows) == sum(len(gdp_ts.b_c_pairs(eta, horizon, 5, b_grid)) for eta in gdp_ts.ETAS)
    for r in rows:
        eta = float(r["label"].split("eta=")[1])
        b, c = float(r["policy.b"]), float(r["policy.c"])
        assert c == pytest.approx(horizon / (eta ** 2 * (b + 1)), rel=1e-5)
        assert int(r["runs"]) == runs and int(r["horizon"]) == horizon
    # pre-pull regret is b·ΣΔ exactly, so large b costs at least that much
    res = results["bernoulli eta=5"]
    for (b, _), point in gdp_ts.b_c_points(res):
        assert point.mean()[-1] >= 1.25 * b - 1e-3
    logs.clear()
    runner.run(experiments.load("gdp-ts-fig3"), str(tmp_path / "fig3"), quick=True, progress=False, log=logs.append,
               cache=cache)
    assert len(logs) == 3 and all("already done" in line for line in logs)
    assert (tmp_path / "fig2" / "fig2.png").exists() and (tmp_path / "fig3" / "fig3.png").exists()
    assert _rows(tmp_path / "fig3" / "summary.csv") == rows


def test_fig8_quick(tmp_path):
    eps = gdp_ts.fig8_epsilons()
    np.testing.assert_allclose(eps, [4.88655, 35.56634, 96.71727], rtol=1e-5)  # the paper's 4.88, 35.57, 96.71
    results = runner.run(experiments.load("gdp-ts-fig8"), str(tmp_path), quick=True, progress=False,
                         log=lambda *a: None)
    picks = gdp_ts.fig8_chosen(results)
    for eta, (i, (b, c)) in picks.items():
        tune = results[f"modified-thompson eta={eta:g} tuning"]
        assert tune.mean("regret")[i, -1] == tune.mean("regret")[:, -1].min()
        assert tune.config["seed"] != results[f"modified-thompson eta={eta:g}"].config["seed"]  # no selection bias
    rows = _rows(tmp_path / "summary.csv")
    dpse = [r for r in rows if r["label"] == "dp-se"]
    assert [float(r["policy.epsilon"]) for r in dpse] == pytest.approx(eps, rel=1e-5)
    assert all(float(r["policy.beta"]) == pytest.approx(1 / gdp_ts.settings(True)[0]) for r in dpse)
    assert (tmp_path / "fig8.png").exists()


def test_fig4_fig5_fig7_quick(tmp_path):
    for exp_id, sub, png in [("gdp-ts-fig4", "texp", "fig4.png"), ("gdp-ts-fig5", "texp", "fig5.png"),
                             ("gdp-ts-fig7", "f7", "fig7.png")]:
        runner.run(experiments.load(exp_id), str(tmp_path / sub), quick=True, progress=False, log=lambda *a: None)
        assert (tmp_path / sub / png).stat().st_size > 10_000
    rows = _rows(tmp_path / "texp" / "summary.csv")
    assert {r["env"] for r in rows} == {"truncexp"} and all(float(r["final_regret_mean"]) > 0 for r in rows)
    assert [r["label"] for r in _rows(tmp_path / "f7" / "summary.csv")] == ["GDP (Thm 3)", "RDP (Thm 8)"]
