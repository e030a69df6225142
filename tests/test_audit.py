"""Privacy audits (`jaxbandit.audit.montecarlo`, `jaxbandit.audit.components`, `jaxbandit audit`): the
Clopper–Pearson arithmetic against scipy, the held-out event selection, every component's audit (never above its
claim; within a stated fraction of it for the tight mechanisms), every planted bug flagged, and the command line."""
import json
import math

import jax
import numpy as np
import pytest
from scipy import stats

from jaxbandit import cli, policies, privatizers
from jaxbandit.audit import components, montecarlo as audit
from jaxbandit.audit import policies as policy_audits
from tests.helpers import default_subset

BUG_TRIALS = 20_000    # planted bugs are flagged by far: a tenth of the default size keeps the suite quick
QUICK_TRIALS = 20_000  # the default suite's audits of components without a tightness target


# ----------------------------------------------------------------------------------------- Clopper–Pearson
@pytest.mark.parametrize("k, n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1000), (500, 1000), (12_345, 10**6),
                                  (999_990, 10**6), (7, 10**7)])
@pytest.mark.parametrize("alpha", [0.025, 1e-6])
def test_clopper_pearson_matches_scipy(k, n, alpha):
    lo, hi = audit.clopper_pearson(k, n, alpha)
    lo_ref = stats.beta.ppf(alpha, k, n - k + 1) if k > 0 else 0.0
    hi_ref = stats.beta.ppf(1 - alpha, k + 1, n - k) if k < n else 1.0
    assert lo == pytest.approx(lo_ref, rel=1e-9, abs=1e-15)
    assert hi == pytest.approx(hi_ref, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("x, a, b", [(0.3, 2.0, 5.0), (0.9, 0.5, 0.5), (1e-4, 3.0, 1e6), (0.5, 1e5, 1e5)])
def test_beta_cdf_matches_scipy(x, a, b):
    assert audit.beta_cdf(x, a, b) == pytest.approx(stats.beta.cdf(x, a, b), rel=1e-10, abs=1e-300)


def test_lower_bound_formulas():
    """ε_LB = log((p_lo − δ)/p_hi), μ_LB = Φ⁻¹(p_lo) − Φ⁻¹(p_hi), both clamped at 0."""
    assert audit.epsilon_lower_bound(0.5, 0.5 / math.e) == pytest.approx(1.0)
    assert audit.epsilon_lower_bound(0.5, 0.4, delta=0.1) == 0.0  # (0.5 − 0.1)/0.4 = 1
    assert audit.epsilon_lower_bound(0.2, 0.3) == 0.0
    assert audit.mu_lower_bound(stats.norm.cdf(1.0), 0.5) == pytest.approx(1.0)
    assert audit.mu_lower_bound(0.3, 0.4) == 0.0
    with pytest.raises(ValueError, match="counts"):
        audit.clopper_pearson(5, 4, 0.05)


def test_claimed_trade_off_curves():
    """f_{ε,0} passes through (1/(1 + e^ε), 1/(1 + e^ε)); G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)."""
    x = 1 / (1 + math.e)
    assert audit.claimed_trade_off("epsilon", 1.0, 0.0, [x])[0] == pytest.approx(x)
    alpha = np.array([0.01, 0.2, 0.5])
    np.testing.assert_allclose(audit.claimed_trade_off("mu", 0.7, 0.0, alpha),
                               stats.norm.cdf(stats.norm.ppf(1 - alpha) - 0.7), rtol=1e-9)


# ------------------------------------------------------------------------------------------ the procedure
def _laplace_audit(scale, claim, **kw):
    def features(key, side):
        return jax.numpy.stack([side.astype(float) + scale * jax.random.laplace(key)])
    return audit.Audit("laplace", "epsilon", claim, 0.0, features, 1 / scale, "0 vs 1", "x + Lap", "test", **kw)


def test_events_are_chosen_on_held_out_trials(monkeypatch):
    """Selection and test draw from different keys: no trial of the test split is seen by the selection."""
    seen = []
    honest = audit.sample

    def recording(features, key, side, n, chunk=16_384):
        seen.append((np.asarray(jax.random.key_data(key)).tobytes(), side, n))
        return honest(features, key, side, n, chunk)

    monkeypatch.setattr(audit, "sample", recording)
    result = audit.run(_laplace_audit(1.0, 1.0), trials=40_000, selection_trials=10_000)
    assert len(seen) == 4 and len({k for k, _, _ in seen}) == 4
    assert [n for _, _, n in seen] == [10_000, 10_000, 40_000, 40_000]
    assert 0.8 < result.lower_bound <= 1.0


def test_null_mechanism_gives_no_lower_bound():
    """Both neighbours identical, 20 features and a discriminant to overfit: the held-out bound stays ~0."""
    def features(key, side):
        return jax.random.normal(key, (20,))
    null = audit.Audit("null", "epsilon", 0.1, 0.0, features, 0.0, "same", "noise", "test")
    for seed in range(3):
        assert audit.run(null, trials=20_000, seed=seed).lower_bound < 0.1


def test_mu_audit_of_a_gaussian_is_tight():
    """x + N(0, 1) with x ∈ {0, 1} is exactly 1-GDP: every threshold event is tight (reference §5)."""
    def features(key, side):
        return jax.numpy.stack([side.astype(float) + jax.random.normal(key)])
    gauss = audit.Audit("gauss", "mu", 1.0, 0.0, features, 1.0, "0 vs 1", "x + N(0,1)", "test")
    result = audit.run(gauss, trials=200_000)
    assert 0.95 < result.lower_bound <= 1.0 and not result.violated
    halved = audit.run(gauss._replace(claim=0.5), trials=50_000)
    assert halved.violated


def test_confidence_and_trials_are_checked():
    with pytest.raises(ValueError, match="confidence"):
        audit.run(_laplace_audit(1.0, 1.0), trials=1000, confidence=1.0)
    with pytest.raises(ValueError, match="trials"):
        audit.run(_laplace_audit(1.0, 1.0), trials=10)


# ---------------------------------------------------------------------------------- every component's audit
def _check_result(a, result):
    assert not result.violated, result
    if a.exact is not None:
        assert a.exact <= a.claim * (1 + 1e-9)
        assert result.lower_bound <= a.exact * (1 + 1e-9) + 1e-12, result


def _groups() -> dict[str, list[str]]:
    """The audits grouped by the family module of the first registered component that lists them (its own audit
    and those of the mechanisms it releases through), from the registries: what the default suite samples."""
    groups = {}
    for registry in (policies.REGISTRY, privatizers.REGISTRY):
        for entry in registry.entries():
            for name in entry.audits:
                if not any(name in members for members in groups.values()):
                    groups.setdefault(entry.factory.__module__, []).append(name)
    return {module: sorted(members) for module, members in groups.items()}


GROUPS = _groups()
# One audit of each group in the default suite (its first by name), and one of its planted bugs (the first pair by
# name); every audit at its full size, and every other planted bug, in the slow tier.
FAMILY_AUDITS = tuple(members[0] for members in GROUPS.values())
FAMILY_BUGS = tuple(next((n, b) for n in members for b in components.BUGS[n]) for members in GROUPS.values())


@pytest.mark.parametrize("name", FAMILY_AUDITS)
def test_audit_never_exceeds_the_claim(name):
    """The lower bound is at most the claim (and at most the exact level, which is at most the claim); a tight
    mechanism's bound, at its default trials, reaches its stated fraction of the claim. Components without a
    tightness target run a tenth of their trials here. One audit per family: the slow tier runs every audit at
    its full size (`test_full_audit_never_exceeds_the_claim`)."""
    a = components.make(name)
    result = audit.run(a, trials=None if a.tight is not None else QUICK_TRIALS)
    _check_result(a, result)
    if a.tight is not None:
        assert result.lower_bound >= a.tight * a.claim, result


@pytest.mark.slow
@pytest.mark.parametrize("name", components.names())
def test_full_audit_never_exceeds_the_claim(name):
    """The audits without a tightness target at their default trials; the tight ones at five times theirs (where
    the bound gets closer to the claim, and must still not pass it)."""
    a = components.make(name)
    result = audit.run(a, trials=None if a.tight is None else 5 * a.trials, seed=2)
    _check_result(a, result)
    if a.tight is not None:
        assert result.lower_bound >= a.tight * a.claim, result


@pytest.mark.parametrize("name, bug", default_subset([(n, b) for n in components.names() for b in components.BUGS[n]],
                                                     FAMILY_BUGS, several=True))
def test_planted_bug_is_flagged(name, bug):
    result = audit.run(components.make(name, bug=bug), trials=BUG_TRIALS)
    assert result.violated, result
    assert result.bug == bug


def test_every_audit_tests_a_registered_component():
    """Every audit is listed by some private component's registration and every private component lists at least
    one existing audit (its own or its mechanism's); every group of audits has a planted bug."""
    listed = sum(GROUPS.values(), [])
    assert sorted(listed) == components.names()
    for registry in (policies.REGISTRY, privatizers.REGISTRY):
        for entry in registry.entries():
            assert bool(entry.audits) == entry.private, entry.name
            for name in entry.audits:
                components.REGISTRY.entry(name)
            assert components.for_component(registry.kind, entry.name) == entry.audits
    for module, members in GROUPS.items():
        assert any(components.BUGS[m] for m in members), module


@pytest.mark.parametrize("name, probabilities", [
    ("lazy-ucb", lambda eps: [policy_audits._laplace_difference_below(0.5 * eps),
                              policy_audits._laplace_difference_below(-0.5 * eps)]),
])
def test_exact_levels_of_policy_events_match_frequencies(name, probabilities):
    """The exact level of lazy-ucb's round-3 choice comes from P(arm 0 at round 3) on each side: the audit's own
    trials reproduce those probabilities (z-test at 1e-6)."""
    a = components.make(name)
    for side, p in enumerate(probabilities(1.0)):
        x = audit.sample(a.features, jax.random.key(side + 7), side, 100_000)
        freq = float(np.mean(x[:, 2] == 0))
        assert abs(freq - p) < 4.9 * math.sqrt(p * (1 - p) / 100_000), (side, freq, p)


def test_dp_se_exact_level_matches_frequencies():
    a = components.make("dp-se")
    probs = [1 - policy_audits._laplace_difference_below(0.25), 1 - policy_audits._laplace_difference_below(-0.25)]
    for side, p in enumerate(probs):  # P(arm 1 kept) = P(L0 − L1 <= ε(R/2 − s0)) = P(L0 − L1 <= ∓ε/2)
        x = audit.sample(a.features, jax.random.key(side + 3), side, 100_000)
        freq = float(np.mean(x[:, 0] == 1))
        assert abs(freq - p) < 4.9 * math.sqrt(p * (1 - p) / 100_000), (side, freq, p)
    assert a.exact == pytest.approx(policy_audits._binary_level(*probs))


def test_make_rejects_unknown_bugs_and_parameters():
    with pytest.raises(ValueError, match=r"bug='no-clamp' is not a planted bug of audit 'tree-counter'"):
        components.make("tree-counter", bug="no-clamp")
    valid = r"\['epsilon', 'sensitivity', 'items', 'release'\]"
    with pytest.raises(ValueError, match=r"has no parameter foo; valid: " + valid):
        components.make("tree-counter", foo=1)
    with pytest.raises(ValueError, match=r"epsilon=0 .*outside the valid range"):
        components.make("local-laplace", epsilon=0)
    with pytest.raises(ValueError, match="unknown audit"):
        components.make("no-such-audit")


@pytest.mark.parametrize("name", ["dp-se", "lazy-ucb", "dp-ucb", "dp-ucb-bound", "dp-ucb-int"])
def test_baselines_state_their_claims(name):
    policy, params = policies.make(name, 3)
    claim = policy.accountant.guarantee(params, 10**5, 3)
    assert claim.epsilon > 0 and claim.source
    if name == "dp-ucb-int":  # advanced composition at the paper's δ = e^-10 (module docstring: about 16)
        assert claim.delta == pytest.approx(math.exp(-10)) and 10 < claim.epsilon < 25
    else:
        assert claim.epsilon == pytest.approx(float(params.epsilon)) and claim.delta == 0


# --------------------------------------------------------------------------------------------------- the CLI
def test_cli_audit_writes_json_and_plot(tmp_path, capsys):
    js, png = tmp_path / "out" / "a.json", tmp_path / "out" / "a.png"
    rc = cli.main(["audit", "local-laplace", "--param", "epsilon=0.5", "--trials", "20000", "--json", str(js),
                   "--plot", str(png)])
    out = capsys.readouterr().out
    assert rc == 0 and "local-laplace: epsilon claim 0.5" in out and "not violated" in out
    data = json.loads(js.read_text())
    assert {"component", "claim_kind", "claim", "lower_bound", "exact", "trials", "confidence"} <= set(data)
    assert data["component"] == "local-laplace" and data["claim_kind"] == "epsilon" and data["claim"] == 0.5
    assert data["exact"] == pytest.approx(0.5) and data["trials"] == 20_000 and data["confidence"] == 0.95
    assert 0 < data["lower_bound"] <= 0.5 and png.stat().st_size > 10_000


def test_cli_audit_flags_a_planted_bug_with_exit_status_1(capsys):
    assert cli.main(["audit", "randomized-response", "--bug", "no-clamp", "--trials", "20000"]) == 1
    assert "VIOLATED" in capsys.readouterr().out


@pytest.mark.slow
def test_cli_audit_all_writes_the_table(tmp_path, capsys):
    table, js = tmp_path / "t.md", tmp_path / "all.json"
    assert cli.main(["audit", "--all", "--trials", "2000", "--table", str(table), "--json", str(js)]) == 0
    rows = json.loads(js.read_text())
    assert [r["component"] for r in rows] == components.names()
    text = table.read_text()
    assert text.count("`jaxbandit audit ") == len(rows) and "| audit | tests the claim of | claim |" in text


def test_audit_table_rows():
    rows = [{"component": "linear", "claim_kind": "epsilon", "claim": 1.0, "delta": 0.0, "lower_bound": 0.98,
             "exact": 1.0, "trials": 200_000},
            {"component": "modified-thompson", "claim_kind": "mu", "claim": 0.3162, "delta": None,
             "lower_bound": 0.3123, "exact": None, "trials": 200_000}]
    table = cli.audit_table(rows).splitlines()
    assert table[2] == "| linear | linear | ε = 1 | 0.98 | 1 | 200,000 | `jaxbandit audit linear` |"
    assert table[3] == ("| modified-thompson | modified-thompson | μ = 0.3162 | 0.3123 | — | 200,000 | "
                        "`jaxbandit audit modified-thompson` |")


def test_cli_audit_errors_come_before_work(tmp_path, capsys):
    assert cli.main(["audit", "no-such"]) == 2
    assert "unknown audit" in capsys.readouterr().err
    assert cli.main(["audit"]) == 2
    assert cli.main(["audit", "linear", "--all"]) == 2
    assert cli.main(["audit", "--all", "--bug", "noise-halved"]) == 2
    assert cli.main(["audit", "linear", "--trials", "5"]) == 2
    assert cli.main(["audit", "linear", "--confidence", "1.5"]) == 2
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert cli.main(["audit", "linear", "--json", str(blocked / "x.json")]) == 2
    assert "--json" in capsys.readouterr().err
    assert cli.main(["audit", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "planted bugs: noise-halved" in listed and "noise-reused: one noise draw reused" in listed
