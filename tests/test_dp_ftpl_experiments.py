"""The seed-003 experiments (dp-ftpl-fig1 ... fig7): the analytic Figs 1-3 against Lemma 8 (default tier), and
Figs 4-7 in their quick settings (slow tier): they run, write figures and summary.csv with the paper's bounds and
start phases, and show the effects that are large and robust even at 8 runs."""
import csv

import pytest

from jaxbandit import experiments, theory
from jaxbandit.experiments import dp_ftpl, runner


def _run(name, path):
    results = runner.run(experiments.load(name), str(path), quick=True, progress=False, log=lambda *a: None)
    with open(path / "summary.csv") as f:
        return results, list(csv.DictReader(f))


@pytest.mark.slow
def test_band_figures(tmp_path):
    """Figs 1-3 (spec §5): Gauss leaves Lemma 8's band below N_G* and stays in from ⌈N_G*⌉; Beta with its
    pseudo-counts likewise around N_B*, without them at every N (10, 10⁴, 10⁷); New (0.1, 0) sits on the band
    at every N, privately. The smallest private N (our addition) is below the paper's sufficient start phases."""
    rows = {}
    for i in (1, 2, 3):
        _, out = _run(f"dp-ftpl-fig{i}", tmp_path / f"fig{i}")
        assert (tmp_path / f"fig{i}" / f"fig{i}.png").stat().st_size > 20_000
        rows.update({(r["perturbation"], r["panel"]): r for r in out})
    private = {k: v["private_at_this_N"] == "True" for k, v in rows.items() if v["private_at_this_N"]}
    assert not private[("gauss", "N = 1 < N_G* = 7.68")] and private[("gauss", "N = ⌈N_G*⌉ = 8")]
    assert not private[("beta", "with pseudo-counts, N = 10 < N_B* = 826.9")]
    assert private[("beta", "with pseudo-counts, N = ⌈N_B*⌉ = 827")]
    assert [v for (kind, _), v in private.items() if kind == "beta-plain"] == [False] * 3
    assert [v for (kind, _), v in private.items() if kind == "new"] == [True] * 3
    smallest = {kind: int(r["N"]) for (kind, panel), r in rows.items() if panel.startswith("smallest")}
    assert smallest == {"gauss": 2, "beta": 32, "new": 1}
    # spec §6.7: at (1, e^-10), n = 4 breaches by +3.5e-4; the breach ends at n = 6, against ⌈N_G*⌉ = 19
    assert dp_ftpl._worst_violation("gauss", 4, 1.0, dp_ftpl.E_MINUS_10) == pytest.approx(3.5e-4, abs=5e-6)
    assert dp_ftpl.smallest_private_n("gauss", 1.0, dp_ftpl.E_MINUS_10) == 6


@pytest.mark.slow
def test_fig4_quick(tmp_path):  # Figs 4 and 5 run as two tests (about 3.5 min each) so that xdist can share them
    _, rows4 = _run("dp-ftpl-fig4", tmp_path / "fig4")
    assert (tmp_path / "fig4" / "fig4.png").exists()
    horizon, runs = dp_ftpl.settings("instance 2", True)
    for r in rows4:
        assert int(r["horizon"]) == horizon and int(r["runs"]) == runs
    by = {(r["label"], r.get("policy.delta")): r for r in rows4}  # the swept axis
    # Beta's start phase: 827 (δ = .01) and 1893 (e^-10) pulls per arm, regret 1488.6 / 3407.4 on instance 1 and
    # 16705 / 38239 on instance 2 (spec §5's table, rounded: 827 and 1893 × ΣΔ = 20.2); it fits in the quick T.
    for inst, want in (("instance 1", (1488.6, 3407.4)), ("instance 2", (16705.4, 38238.6))):
        got = sorted(float(r["start_regret"]) for (label, _), r in by.items() if label == f"{inst}: dp-ftpl-beta")
        assert got == pytest.approx(want, abs=0.5)
    # New: below Theorem 16's bound on instance 1. (Not compared with DP-UCB-INT: its mean over 8 runs depends on
    # how many lock onto a suboptimal arm, see the findings.)
    for r in rows4:
        if r["label"] == "instance 1: dp-ftpl-new":
            assert float(r["final_regret_mean"]) < float(r["thm16_upper_bound"])


@pytest.mark.slow
def test_fig5_quick(tmp_path):
    _, rows5 = _run("dp-ftpl-fig5", tmp_path / "fig5")
    assert (tmp_path / "fig5" / "fig5.png").exists()
    horizon, runs = dp_ftpl.settings("instance 2", True)
    for r in rows5:
        assert int(r["horizon"]) == horizon and int(r["runs"]) == runs
    by = {(r["label"], r["policy.epsilon"]): r for r in rows5}  # the swept axis
    # New far below DP-SE on instance 1
    for eps in ("1", "0.1"):
        new = float(by[("instance 1: dp-ftpl-new (delta=0)", eps)]["final_regret_mean"])
        assert new < 0.5 * float(by[("instance 1: dp-se (delta=0)", eps)]["final_regret_mean"])


@pytest.mark.slow
def test_fig6_and_fig7_quick(tmp_path):
    _, rows6 = _run("dp-ftpl-fig6", tmp_path / "fig6")
    _, rows7 = _run("dp-ftpl-fig7", tmp_path / "fig7")
    assert (tmp_path / "fig6" / "fig6.png").exists() and (tmp_path / "fig7" / "fig7.png").exists()
    horizon, _ = dp_ftpl.settings("instance 1", True)
    gauss0 = [r for r in rows6 if r["label"] == "dp-ftpl-gauss eps=0"]
    # Gauss at ε = 0 runs only where 9⌈1/(4πδ²)⌉ < T, and there its regret is at least its start phase's
    assert [float(r["policy.delta"]) for r in gauss0] == [d for d in dp_ftpl.FIG6_DELTAS
                                                          if dp_ftpl.gauss_feasible(0.0, d, horizon, 9)]
    for r in gauss0 + [r for r in rows7 if r["label"].startswith("dp-ftpl-gauss")]:
        assert float(r["final_regret_mean"]) >= float(r["start_regret"])
    # New below Theorem 16's bound everywhere
    for r in rows6 + rows7:
        if r["label"].startswith("dp-ftpl-new"):
            assert float(r["final_regret_mean"]) <= float(r["thm16_upper_bound"])


def test_theory_rows_match_theory():
    means = dp_ftpl.INSTANCES["instance 1"]
    assert dp_ftpl.start_regret("dp-ftpl-gauss", 1.0, 0.01, means) == pytest.approx(8 * 1.8)
    assert dp_ftpl.start_regret("dp-ftpl-new", 1.0, 0.01, means) == 0.0
    assert theory.ftpl_new_bound(means, 1e6, 1.0, 0.01) == pytest.approx(12052, abs=1)
