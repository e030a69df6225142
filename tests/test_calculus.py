"""The privacy calculus (jaxbandit.accounting.profiles): each notion's profile against a closed form or an
independent computation, the conversions, composition within and across notions, and the compositions checked side by
side with Google's dp-accounting (its PLD accountant, a test dependency). Relations tested against PLD, whose ε(δ)
is a pessimistic discretization of the exact value (value_discretization_interval 1e-4):

  exact here (μ-GDP, the optimal pure composition of randomized responses): at most PLD, and at least PLD less its
  discretization bound (k composed events: k·1e-4);
  a bound here (basic or advanced composition of Laplace, zCDP, mixed routes): never below PLD less that bound
  (valid), and not far above it where the route is tight (the ratio is asserted)."""
import math
from statistics import NormalDist

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.rdp import rdp_privacy_accountant

from jaxbandit.accounting import accountants, gdp, profiles
from jaxbandit.accounting.profiles import (GDP, LDP, RDP, ZCDP, ApproxDP, PureDP, Split, Tightest, compose,
                                           optimal_pure_composition)

NORMAL = NormalDist()
INTERVAL = 1e-4  # PLD's value discretization: each event's privacy loss is rounded up by at most this much, so
                 # k composed events put PLD's ε(δ) at most k·INTERVAL above the exact value
NEIGHBOURS = dp_accounting.NeighboringRelation


def pld(events, relation=NEIGHBOURS.ADD_OR_REMOVE_ONE):
    acct = pld_privacy_accountant.PLDAccountant(relation, value_discretization_interval=INTERVAL)
    for event in events:
        acct.compose(event)
    return acct


def laplace_events(eps, k):
    return [dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(1 / eps), k)]


def rr_events(eps, k):
    # one event per response: dp-accounting 0.6's PLD accountant composes a RandomizedResponseDpEvent once
    # whatever its count (a SelfComposedDpEvent of it, or compose(event, k))
    return [dp_accounting.RandomizedResponseDpEvent(2 / (1 + math.exp(eps)), 2)] * k


# ---------------------------------------------------------------------------------------------- one notion each

@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_pure_region_closed_form_and_inverse(eps):
    p = PureDP(eps)
    for e in (0.0, eps / 3, eps, 2 * eps):
        assert p.delta_at(e) == pytest.approx(max(0.0, math.exp(eps) - math.exp(e)) / (1 + math.exp(eps)),
                                              rel=1e-12, abs=1e-300)
    for d in (1e-9, 1e-3, 0.1):
        e = p.epsilon_at(d)
        assert p.delta_at(e) == pytest.approx(d, rel=1e-9) or e == 0.0
    assert LDP(eps).delta_at(0.0) == p.delta_at(0.0) and LDP(eps).notion == "ldp"
    a = ApproxDP(eps, 1e-4)
    assert a.delta_at(eps) == 1e-4 and a.epsilon_at(1e-5) == math.inf


def test_gdp_profile_is_the_gdp_calculus():
    g = GDP(2.0)
    assert g.epsilon_at(1e-6) == pytest.approx(float(gdp.epsilon(1e-6, 2.0)), rel=1e-5)
    assert g.delta_at(3.0) == pytest.approx(NORMAL.cdf(-1.5 + 1) - math.exp(3) * NORMAL.cdf(-1.5 - 1), rel=1e-9)


def test_rdp_conversion_is_cks_prop_12_and_dp_accountings():
    orders, eps = (2.0, 8.0, 32.0), (0.3, 1.9, 9.0)
    r = RDP(orders, eps)
    # closed form at each order, the best kept
    want = min(e + math.log1p(-1 / a) - (math.log(1e-5) + math.log(a)) / (a - 1) for a, e in zip(orders, eps))
    assert r.epsilon_at(1e-5) == pytest.approx(want, rel=1e-12)
    assert r.epsilon_at(1e-5) == pytest.approx(rdp_privacy_accountant.compute_epsilon(orders, eps, 1e-5)[0],
                                               rel=1e-12)
    assert r.delta_at(3.0) == pytest.approx(rdp_privacy_accountant.compute_delta(orders, eps, 3.0)[0], rel=1e-9)
    # below Mironov's Prop. 3
    assert r.epsilon_at(1e-5) < min(e + math.log(1e5) / (a - 1) for a, e in zip(orders, eps))


@pytest.mark.parametrize("rho", [0.01, 0.5, 8.0])
def test_zcdp_between_the_gaussian_and_bun_steinke(rho):
    """ρ-zCDP's ε(δ): at least the exact profile of the Gaussian mechanism, which is ρ-zCDP with μ = √(2ρ) (a
    valid conversion cannot go below a mechanism it covers), and at most Bun & Steinke's ρ + 2√(ρ log(1/δ))."""
    for delta in (1e-10, 1e-6, 1e-2):
        e = ZCDP(rho).epsilon_at(delta)
        assert GDP(math.sqrt(2 * rho)).epsilon_at(delta) <= e * (1 + 1e-9)
        assert e <= rho + 2 * math.sqrt(rho * math.log(1 / delta))
        assert ZCDP(rho).delta_at(e) <= delta * (1 + 1e-6)


@pytest.mark.parametrize("eps", [0.05, 1.0, 6.0])
def test_pure_to_rdp_is_randomized_responses_renyi_divergence(eps):
    p = math.exp(eps) / (1 + math.exp(eps))
    orders = (1.5, 2.0, 10.0, 100.0)
    got = profiles.to_rdp(PureDP(eps), orders).epsilons
    for a, value in zip(orders, got):
        direct = math.log(p ** a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)) / (a - 1)
        assert value == pytest.approx(direct, rel=1e-9)
        assert value <= min(eps, a * eps * eps / 2) * (1 + 1e-12)   # Bun & Steinke Prop. 3.3; D_α ≤ D_∞ = ε


def test_pure_to_mu_and_its_inverse_at_every_epsilon():
    for eps in (1e-3, 0.5, 3.0, 30.0):
        mu = profiles.pure_to_mu(eps)
        assert float(gdp.pure_epsilon(mu)) == pytest.approx(eps, rel=1e-4)
    # where e^ε/(1 + e^ε) rounds to 1: still finite and increasing, ∞ past exp's range
    big = [profiles.pure_to_mu(e) for e in (36.0, 40.0, 100.0, 700.0)]
    assert all(math.isfinite(m) for m in big) and big == sorted(big)
    assert profiles.pure_to_mu(800.0) == math.inf


def test_conversions_and_what_has_none():
    assert profiles.to_gdp(PureDP(1.0)).mu == pytest.approx(profiles.pure_to_mu(1.0))
    assert profiles.to_zcdp(GDP(2.0)) == ZCDP(2.0) and profiles.to_zcdp(PureDP(2.0)) == ZCDP(2.0)
    assert profiles.to_rdp(ZCDP(0.5), (2.0, 4.0)) == RDP((2.0, 4.0), (1.0, 2.0))
    assert profiles.to_approx(GDP(1.0), 1e-6).epsilon == pytest.approx(GDP(1.0).epsilon_at(1e-6))
    for bad, fn in [(ApproxDP(1.0, 1e-6), profiles.to_gdp), (ZCDP(1.0), profiles.to_gdp),
                    (ApproxDP(1.0, 1e-6), profiles.to_zcdp), (ApproxDP(1.0, 1e-6), profiles.to_rdp)]:
        with pytest.raises(ValueError, match="implies no"):
            fn(bad)
    with pytest.raises(ValueError, match=r"orders \[3.0\] are not among"):
        profiles.to_rdp(RDP((2.0,), (1.0,)), (3.0,))


# ------------------------------------------------------------------------------------------------- composition

def test_composition_within_a_notion():
    assert compose(PureDP(0.5), PureDP(0.25)) == PureDP(0.75)
    assert compose(LDP(0.5), LDP(1.0)) == LDP(1.5)
    assert compose(ApproxDP(1.0, 1e-6), PureDP(0.5)) == ApproxDP(1.5, 1e-6)
    assert compose(GDP(3.0), GDP(4.0)) == GDP(5.0)
    assert compose(ZCDP(0.5), ZCDP(0.25)) == ZCDP(0.75)
    assert compose(RDP((2.0, 3.0), (1.0, 2.0)), RDP((3.0, 4.0), (1.0, 1.0))) == RDP((3.0,), (3.0,))
    advanced = compose(*[PureDP(0.1)] * 100, advanced=1e-6)
    assert advanced.delta == 1e-6
    assert advanced.epsilon == pytest.approx(100 * 0.1 * math.tanh(0.05) + math.sqrt(2 * math.log(1e6) * 100 * 0.01))
    assert compose(ApproxDP(0.1, 1e-7), PureDP(0.1), advanced=1e-6).delta == pytest.approx(1.1e-6)


def test_composition_across_notions_is_the_tightest_valid_route():
    parts = [GDP(1.0), PureDP(0.3), ZCDP(0.2)]
    c = compose(*parts)
    assert isinstance(c, Tightest) and len(c.parts) == 2   # RDP and zCDP routes (zCDP has no GDP)
    for delta in (1e-8, 1e-4):
        assert c.epsilon_at(delta) == min(p.epsilon_at(delta) for p in c.parts)
    # every route here is valid: above the exact composition of the Gaussian part alone
    assert c.epsilon_at(1e-6) > GDP(1.0).epsilon_at(1e-6)
    gdp_route = compose(GDP(1.0), PureDP(0.3))
    assert len(gdp_route.parts) == 3 and GDP(math.hypot(1.0, profiles.pure_to_mu(0.3))) in gdp_route.parts
    # (ε, δ) with the rest: basic composition at the best split, never worse than the corner ε_A + ε_R(δ − δ_A)
    s = compose(ApproxDP(0.5, 1e-7), GDP(1.0))
    assert isinstance(s, Split)
    assert s.epsilon_at(1e-6) <= (0.5 + GDP(1.0).epsilon_at(1e-6 - 1e-7)) * (1 + 1e-9)
    assert s.delta_at(0.5 + GDP(1.0).epsilon_at(9e-7)) <= 1e-6 * (1 + 1e-6)


def test_composition_errors():
    with pytest.raises(ValueError, match="at least one"):
        compose()
    with pytest.raises(ValueError, match="ε-LDP claims compose only with ε-LDP"):
        compose(LDP(1.0), PureDP(1.0))
    with pytest.raises(ValueError, match="advanced composition applies"):
        compose(PureDP(1.0), GDP(1.0), advanced=1e-6)
    with pytest.raises(ValueError, match="share no order"):
        compose(RDP((2.0,), (1.0,)), RDP((3.0,), (1.0,)))
    with pytest.raises(ValueError, match="delta=2 is outside"):
        ApproxDP(1.0, 2.0)


def test_optimal_pure_composition_is_kov_theorem_3_3():
    """KOV Thm 3.3: k ε-DP mechanisms compose to (ε_i, δ_i)-DP, ε_i = (k − 2i)ε,
    δ_i = Σ_{l<i} C(k, l)(e^{(k−l)ε} − e^{(k−2i+l)ε})/(1 + e^ε)^k, and to nothing better."""
    k, eps = 12, 0.4
    p = optimal_pure_composition([eps] * k)
    for i in range(k // 2):
        want = sum(math.comb(k, l) * (math.exp((k - l) * eps) - math.exp((k - 2 * i + l) * eps))
                   for l in range(i)) / (1 + math.exp(eps)) ** k
        assert p.delta_at((k - 2 * i) * eps) == pytest.approx(want, rel=1e-9, abs=1e-300)
    assert optimal_pure_composition([eps]).delta_at(0.1) == pytest.approx(PureDP(eps).delta_at(0.1), rel=1e-12)
    # unequal ε_k: the product of the two homogeneous laws
    mixed = optimal_pure_composition([0.2] * 3 + [1.0] * 2)
    assert mixed.epsilon_at(0.0) == pytest.approx(2.6) and 0 < mixed.epsilon_at(1e-3) < 2.6


def test_guarantees_of_the_new_notions_and_the_joint_scope():
    acct = accountants.Accountant("zcdp", "joint", lambda p, T, K: {"rho": 0.125}, "one user's data",
                                  "a test claim")
    g = acct.guarantee(None, 10, 2, "example")
    assert g.describe() == "ρ-zCDP with ρ = 0.125, over the outputs to all other users (joint DP)"
    assert g.epsilon_at(1e-6) == ZCDP(0.125).epsilon_at(1e-6)
    assert g.as_json(delta=1e-6)["profile"] == {"rho": 0.125}
    assert not g.meets(accountants.Budget(mu=10.0))   # zCDP implies no μ-GDP
    assert g.meets(accountants.Budget(epsilon=g.epsilon_at(1e-6) * 1.001, delta=1e-6))
    with pytest.raises(ValueError, match="needs its profile"):
        accountants.Guarantee("rdp", "run", None, None, None, "", "")
    assert "joint" in accountants.SCOPES and set(accountants.NOTIONS) == set(profiles.NOTION_CLASSES)


# ---------------------------------------------------------------------------------- side by side with dp-accounting

def side_by_side():
    """(composition, relation, ours, PLD's, events composed) at δ = 1e-6: the table of the closing note."""
    delta = 1e-6
    rows = []
    k, sigma = 50, 4.0
    ours = compose(*[GDP(1 / sigma)] * k)
    rows.append((f"{k}-fold Gaussian σ = {sigma:g} (μ-GDP, exact)", "equal", ours.epsilon_at(delta),
                 pld([dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(sigma), k)]).get_epsilon(delta),
                 k))
    rows.append((f"{k}-fold Gaussian as zCDP (ρ = k/2σ²)", "≥",
                 compose(*[ZCDP(1 / (2 * sigma ** 2))] * k).epsilon_at(delta), rows[-1][3], k))
    k, eps = 200, 0.05
    for name, ours in [("basic Σε", compose(*[PureDP(eps)] * k)),
                       ("advanced, KOV Thm 3.5", compose(*[PureDP(eps)] * k, advanced=delta / 2)),
                       ("optimal ε-DP composition", optimal_pure_composition([eps] * k))]:
        value = ours.epsilon_at(delta) if not isinstance(ours, ApproxDP) or not ours.delta else ours.epsilon
        rows.append((f"{k}-fold Laplace ε = {eps:g}: {name}", "≥", value,
                     pld(laplace_events(eps, k)).get_epsilon(delta), k))
    k, eps = 20, 0.5
    rows.append((f"{k}-fold randomized response ε = {eps:g} (optimal composition, exact)", "equal",
                 optimal_pure_composition([eps] * k).epsilon_at(delta),
                 pld(rr_events(eps, k), NEIGHBOURS.REPLACE_ONE).get_epsilon(delta), k))
    mixed = compose(*([GDP(0.5)] * 10 + [PureDP(0.2)] * 5))
    rows.append(("10 Gaussian σ = 2 + 5 Laplace ε = 0.2 (tightest route)", "≥", mixed.epsilon_at(delta),
                 pld([dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(2.0), 10),
                      *laplace_events(0.2, 5)]).get_epsilon(delta), 15))
    return rows


def test_side_by_side_with_dp_accounting_pld():
    rows = side_by_side()
    assert len(rows) >= 5
    for name, relation, ours, theirs, count in rows:
        floor = theirs - count * INTERVAL - 1e-9   # the exact value is at least this (module docstring)
        if relation == "equal":
            assert floor <= ours <= theirs * (1 + 1e-9), name
        else:
            assert ours >= floor, name
    by_name = {r[0]: r for r in rows}
    # the bounds' order, and how tight the tightest ones are at these values
    lap = [r[2] for r in rows if "Laplace ε = 0.05" in r[0]]
    assert lap[2] < lap[1] < lap[0] and lap[2] <= 1.03 * rows[4][3]
    mixed = by_name["10 Gaussian σ = 2 + 5 Laplace ε = 0.2 (tightest route)"]
    assert mixed[2] <= 1.05 * mixed[3]


def test_gaussian_delta_direction_and_zcdp_against_pld():
    """δ(ε) of k Gaussians (exact GDP) against PLD's get_delta, and the zCDP route's δ(ε) above it."""
    acct = pld([dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(3.0), 20)])
    ours = GDP(math.sqrt(20) / 3)
    for eps in (0.5, 2.0, 5.0):
        theirs = acct.get_delta(eps)
        assert ours.delta_at(eps) == pytest.approx(theirs, rel=1e-3, abs=1e-12)
        assert ZCDP(20 / 18).delta_at(eps) >= theirs * (1 - 1e-3)


if __name__ == "__main__":   # the table for the notes: python tests/test_calculus.py
    print(f"{'composition (δ = 1e-6)':<64} {'relation':>8} {'ours ε':>10} {'PLD ε':>10}")
    for name, relation, ours, theirs, _ in side_by_side():
        print(f"{name:<64} {relation:>8} {ours:>10.5f} {theirs:>10.5f}")


def test_wishart_profile_claims_only_inside_sheffets_range():
    """Sheffet's theorem is stated for ε in (0, 1), δ in (0, 1/e): outside, nothing beyond what the range gives."""
    w = profiles.Wishart(6, 1006.0)
    assert w.epsilon_at(0.1) == pytest.approx(math.sqrt(28 * math.log(40) / 1000))
    assert w.epsilon_at(0.9) == w.epsilon_at(math.exp(-1) * (1 - 1e-12))  # δ ≥ 1/e: the ε of δ → 1/e
    assert profiles.Wishart(6, 30.0).epsilon_at(0.1) == math.inf       # ε(δ) ≥ 1: no claim
    assert w.delta_at(5.0) == pytest.approx(w.delta_at(1.0 - 1e-12))   # ε ≥ 1: what ε → 1 gives


def test_self_composed_takes_the_better_of_basic_and_advanced_composition():
    """m Wishart nodes: advanced composition (KOV Thm 3.5) over a split of δ beats basic composition for many
    nodes; ε(δ) and δ(ε) are consistent."""
    from jaxbandit.accounting.composition import advanced_composition
    part = profiles.Wishart(6, 139115.0)
    composed = profiles.SelfComposed(part, 27)
    eps = composed.epsilon_at(0.1)
    assert eps < 27 * part.epsilon_at(0.1 / 27)                       # below basic composition
    assert eps <= advanced_composition([part.epsilon_at(0.05 / 27)] * 27, 0.05) + 1e-12  # the paper's split or better
    assert eps < 1.0                                                 # Shariff & Sheffet's (1, 0.1) at their k
    assert composed.delta_at(eps) <= 0.1 * (1 + 1e-6)
    assert composed.delta_at(eps * 0.9) > 0.1 * 0.5
