"""The seed-002 experiments (corrupt-exp61/62/63, corrupt-appendix) in their quick settings: they run, write
their figures and summary.csv with the paper's bounds, and show the strongest effects even at 24 runs."""
import csv
import math

import numpy as np
import pytest

from jaxbandit import experiments
from jaxbandit.experiments import corrupt, runner
from jaxbandit import theory
from jaxbandit.mechanisms import randomized_response as rr

pytestmark = pytest.mark.slow  # slow tier: quick reproductions (minutes)


def _run(name, path):
    results = runner.run(experiments.load(name), str(path), quick=True, progress=False, log=lambda *a: None)
    with open(path / "summary.csv") as f:
        return results, list(csv.DictReader(f))


def test_exp61_quick(tmp_path):
    results, rows = _run("corrupt-exp61", tmp_path)
    assert (tmp_path / "fig2a.png").exists()
    horizon, runs = corrupt.settings(True)
    by = {r["label"]: r for r in rows}
    assert set(by) == {label for _, label, _, _ in corrupt.EXP61_POLICIES}
    for r in rows:
        assert int(r["runs"]) == runs and float(r["C_LB"]) == pytest.approx(45.8147, abs=1e-4)
        assert r["ldp_level_per_arm"].split() == [f"{math.log(1.5):.7g}"] + [f"{math.log(9):.7g}"] * 9
        realized = np.array(r["realized_ldp_level_per_arm"].split(), float)
        assert np.all(realized <= np.array(r["ldp_level_per_arm"].split(), float) + 1e-6)  # 7 printed digits
    # Reversed feedback order: every naive algorithm loses close to the maximal 0.1 per round; kl-UCB-CF does not.
    for label in ("kl-UCB (naive)", "UCB1 (naive)", "TS (naive)"):
        assert float(by[label]["final_regret_mean"]) > 0.09 * horizon
    assert float(by["kl-UCB-CF"]["final_regret_mean"]) < 0.02 * horizon
    assert float(by["kl-UCB-CF"]["final_regret_mean"]) < float(by["kl-UCB-CF"]["klucb_cf_finite_bound_at_T"])


def test_exp62_and_exp63_quick(tmp_path):
    results, rows = _run("corrupt-exp62", tmp_path / "62")
    assert (tmp_path / "62" / "fig2b.png").exists()
    assert len(rows) == 2 * len(corrupt.EPSILONS) + 2
    for r in rows:
        if r["privatizer"] == "identity":  # the ε = ∞ references
            continue
        eps = float(r["ldp_epsilon"])
        # The grid's ε up to float32 storage of p (relative spacing 6e-8 over 1 − p >= 3.4e-4 at ε = 8).
        nearest = min(corrupt.EPSILONS, key=lambda e: abs(e - eps))
        assert nearest - 2e-4 < eps <= nearest + 1e-7  # p rounded down: never above the grid's ε (8 digits printed)
        assert float(r["cor3_upper_bound_at_T"]) == pytest.approx(
            float(theory.ldp_rr_upper_bound(corrupt.MAIN, eps, int(r["horizon"]))), rel=1e-5)  # %.6g
    # Stronger privacy costs regret: ε = 1/8 (s = 0.06) against ε = 8, for both algorithms, beyond 2 SE each.
    for label in ("kl-UCB-CF vs epsilon", "TS-CF vs epsilon"):
        res = results[label]
        mean, se = res.mean()[:, -1], res.se()[:, -1]
        assert mean[0] - 2 * se[0] > mean[-1] + 2 * se[-1]
    results, rows = _run("corrupt-exp63", tmp_path / "63")
    assert (tmp_path / "63" / "fig2c.png").exists()
    by = {r["policy"]: r for r in rows}
    assert set(by) == {"klucb-cf", "ts-cf", "dp-ucb-int", "dp-ucb", "dp-ucb-bound", "ucb1"}
    assert float(by["dp-ucb-int"]["global_dp_epsilon_total_delta_e-10"]) > 1
    assert np.all(np.array(by["klucb-cf"]["realized_ldp_level_per_arm"].split(), float) <= 1.0)
    channel = results["kl-UCB-CF (local, eps=1)"].config["privatizer_params"]
    assert np.all(rr.ldp_level(channel["p00"], channel["p11"]) <= 1.0)


@pytest.mark.slow
def test_appendix_quick(tmp_path):
    results, rows = _run("corrupt-appendix", tmp_path)
    for name in corrupt.SCENARIOS:
        assert (tmp_path / f"{name.replace(' ', '')}.png").exists()
    c_lb = {r["label"].split(":")[0]: float(r["C_LB"]) for r in rows if r["policy"] == "klucb-cf" and "vs" not in r["label"]
            and "local" not in r["label"]}
    assert c_lb == pytest.approx({"scenario 3": 29.299, "scenario 4": 17.417}, abs=6e-4)
