"""GDP accounting (jaxbandit.privacy): oracle values from the seed-001 digest (§6) and the DP-accounting reference
notes, cross-checks against Google's dp-accounting library, exact derivatives, and bad input."""
import math

import dp_accounting
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld

from jaxbandit import policies
from jaxbandit.accounting import gdp
from jaxbandit.accounting import thompson as ts_privacy


def printed(value: str):
    """pytest.approx of an oracle printed with a given number of digits: within half a unit of its last digit."""
    from decimal import Decimal
    return pytest.approx(float(value), rel=0, abs=0.5 * 10.0 ** Decimal(value).as_tuple().exponent)


def f64(fn, *args, **kw):
    with jax.enable_x64(True):
        return np.asarray(fn(*(np.float64(a) if np.ndim(a) == 0 else np.asarray(a, np.float64) for a in args), **kw))


# δ(ε; η) oracles: seed-001 digest §6.2 and the reference notes' δ(ε; μ=1) grid (analytic = PLD).
DELTA_ORACLE = [(1, 1, "0.1269367375"), (4, 2, "0.0849533"), (0.5, 0.3, "0.00757348"), (30, 5, "1.31326e-4"),
                (0, 1, "0.3829249225"), (0.5, 1, "0.2384217081"), (2, 1, "0.0209236358"), (3, 1, "1.5371853694e-3")]
# ε(δ; η) oracles: digest §6.3–6.4 and the reference notes.
EPS_ORACLE = [(1e-6, 1, "4.88655"), (1e-6, 2, "10.99715"), (1e-6, 5, "35.56634"), (1e-6, 10, "96.71727"),
              (1e-5, 1, "4.377178"), (1e-5, 2, "9.99726"), (1e-5, 5, "33.10373"), (1e-3, 0.1, "0.197534"),
              (1e-9, 3, "21.945590"), (1e-2, math.sqrt(500), "301.0679"), (1e-8, math.sqrt(500), "374.5963")]
ETA_ORACLE = [(1, 1e-5, "0.268051"), (1, 1e-6, "0.236704"), (3, 1e-5, "0.719117"), (8, 1e-5, "1.666031"),
              (0.5, 1e-5, "0.142211"), (2, 1e-6, "0.448335"), (4.886554, 1e-6, "1.0")]


@pytest.mark.parametrize("eps,eta,expected", DELTA_ORACLE)
def test_delta_oracle_float32_and_float64(eps, eta, expected):
    assert float(gdp.delta(eps, eta)) == pytest.approx(float(expected), rel=2e-5)  # float32
    assert float(f64(gdp.delta, eps, eta)) == printed(expected)


@pytest.mark.parametrize("delta,eta,expected", EPS_ORACLE)
def test_epsilon_oracle(delta, eta, expected):
    assert float(gdp.epsilon(delta, eta)) == pytest.approx(float(expected), rel=1e-5)  # float32
    assert float(f64(gdp.epsilon, delta, eta)) == printed(expected)


@pytest.mark.parametrize("eta", [0.3, 1.0, 2.0, 5.0, 10.0])
def test_pure_epsilon_is_the_largest_pure_dp_inside_gdp(eta):
    """Oracle: the trade-off curves themselves (DRS Def. 2.1, Prop. 2.5), on a grid in float64 with scipy: G_η lies
    below f_{ε,0} at ε = pure_epsilon(η), and 1% more ε crosses it at f's kink."""
    from scipy.stats import norm
    eps = float(f64(gdp.pure_epsilon, eta))
    alpha = np.concatenate([np.logspace(-12, -1, 400), np.linspace(0.1, 1 - 1e-9, 4000)])
    gauss = norm.cdf(norm.isf(alpha) - eta)  # G_η(α) = Φ(Φ^{-1}(1 − α) − η)
    pure = lambda e, a: np.maximum.reduce([np.zeros_like(a), 1 - np.exp(e) * a, np.exp(-e) * (1 - a)])
    assert np.all(gauss <= pure(eps, alpha) + 1e-12)
    kink = 1 / (1 + np.exp(1.01 * eps))
    assert norm.cdf(norm.isf(kink) - eta) > pure(1.01 * eps, np.array([kink]))[0]
    assert float(gdp.pure_epsilon(eta)) == pytest.approx(eps, rel=1e-5)  # float32


@pytest.mark.parametrize("eps,delta,expected", ETA_ORACLE)
def test_eta_for_oracle(eps, delta, expected):
    assert float(gdp.eta_for(eps, delta)) == pytest.approx(float(expected), rel=1e-5)  # float32
    assert float(f64(gdp.eta_for, eps, delta)) == printed(expected)


def test_no_overflow_at_the_papers_scale():
    """Digest §6.6: ε(1e-6; sqrt(1e5)) = 51502.2 and ε(1e-6; sqrt(T/2) at T=1e5) = 26061.9, in both precisions."""
    for eta, expected in [(math.sqrt(1e5), 51502.2), (math.sqrt(5e4), 26061.9)]:
        assert float(gdp.epsilon(1e-6, eta)) == pytest.approx(expected, rel=1e-5)
        assert float(f64(gdp.epsilon, 1e-6, eta)) == pytest.approx(expected, rel=1e-6)
        d = f64(gdp.delta, np.linspace(0, 6e4, 61), eta)
        assert np.all(np.isfinite(d)) and np.all(np.diff(d) <= 0)
    assert np.isfinite(float(gdp.delta(5e4, 316.0)))


def test_matches_dp_accounting_analytic_gaussian_and_pld_composition():
    """An η-GDP mechanism is exactly a Gaussian mechanism with sensitivity 1 and σ = 1/η; T such mechanisms
    compose to sqrt(T)/σ (dp-accounting's analytic conversion and its PLD self-composition)."""
    rng = np.random.default_rng(0)
    for eta, delta in zip(rng.uniform(0.1, 20, 12), 10.0 ** rng.uniform(-10, -2, 12)):
        ref = dp_accounting.get_epsilon_gaussian(1 / eta, delta)
        assert float(f64(gdp.epsilon, delta, eta)) == pytest.approx(ref, rel=1e-6, abs=1e-9)
    # composition: 50 rounds at per-round η = 1/sqrt(2) (standard TS, Lemma 3) -> η = 5
    composed = pld.from_gaussian_mechanism(math.sqrt(2.0), value_discretization_interval=1e-4).self_compose(50)
    eta = float(gdp.compose(jnp.full(50, 1 / math.sqrt(2.0))))
    assert eta == pytest.approx(5.0, rel=1e-6)
    for eps in [1.0, 5.0, 10.0, 20.0]:
        # the discretized PLD is pessimistic: slightly above the exact δ
        ref = composed.get_delta_for_epsilon(eps)
        ours = float(f64(gdp.delta, eps, eta))
        assert ours <= ref * (1 + 1e-9) and ours == pytest.approx(ref, rel=2e-3)


def test_compose():
    assert float(gdp.compose([0.3, 0.4, 1.2])) == pytest.approx(1.3, rel=1e-6)
    assert float(gdp.compose(jnp.full(1000, 1 / math.sqrt(2)))) == pytest.approx(math.sqrt(500), rel=1e-5)


def test_exact_derivatives_match_finite_differences():
    with jax.enable_x64(True):
        e, h = 1.0, 1.0
        d_eps, d_eta = jax.grad(gdp.delta, (0, 1))(e, h)
        assert float(d_eta) == pytest.approx(0.3520653, rel=1e-6)  # digest §6.5
        assert float(d_eps) == pytest.approx(-0.1816008, rel=1e-6)
        fd = lambda f, x, s=1e-6: float((f(x + s) - f(x - s)) / (2 * s))
        for delta, eta in [(1e-5, 1.0), (1e-6, 5.0), (1e-2, 22.36), (1e-8, 0.5)]:
            de = jax.grad(gdp.epsilon, (0, 1))(delta, eta)
            assert float(de[1]) == pytest.approx(fd(lambda x: gdp.epsilon(delta, x), eta), rel=1e-5)
            assert float(de[0]) == pytest.approx(fd(lambda x: gdp.epsilon(x, eta), delta, delta * 1e-4), rel=1e-4)
        for eps, delta in [(1.0, 1e-5), (4.886554, 1e-6), (96.7, 1e-6)]:
            dh = jax.grad(gdp.eta_for, (0, 1))(eps, delta)
            assert float(dh[0]) == pytest.approx(fd(lambda x: gdp.eta_for(x, delta), eps), rel=1e-5)
            assert float(dh[1]) == pytest.approx(fd(lambda x: gdp.eta_for(eps, x), delta, delta * 1e-4), rel=1e-4)
        # reference notes: dε/dη at η = 1, δ = 1e-5 is 5.067781
        assert float(jax.grad(gdp.epsilon, 1)(1e-5, 1.0)) == pytest.approx(5.067781, rel=1e-6)


def test_solvers_are_conservative_vmappable_and_jittable():
    with jax.enable_x64(True):
        deltas = jnp.asarray([1e-2, 1e-4, 1e-6, 1e-8, 1e-10])
        etas = jnp.asarray([0.2, 1.0, 3.0, 30.0, 300.0])
        eps = jax.jit(jax.vmap(gdp.epsilon))(deltas, etas)
        assert np.all(np.asarray(gdp.delta(eps, etas)) <= np.asarray(deltas) * (1 + 1e-9))
        back = jax.vmap(gdp.eta_for)(eps, deltas)
        np.testing.assert_allclose(back, etas, rtol=1e-7)
        assert np.all(np.asarray(gdp.delta(eps, back)) <= np.asarray(deltas) * (1 + 1e-9))
    # δ(0; η) <= δ: no ε is needed
    assert float(gdp.epsilon(0.5, 0.1)) == 0.0


def test_monotonicity_and_limits():
    with jax.enable_x64(True):
        eps = jnp.linspace(0, 50, 101)
        for eta in [0.5, 2.0, 10.0]:
            assert np.all(np.diff(np.asarray(gdp.delta(eps, eta))) <= 0)
        etas = jnp.linspace(0.05, 50, 101)
        assert np.all(np.diff(np.asarray(gdp.delta(3.0, etas))) >= 0)
        assert np.all(np.diff(np.asarray(gdp.epsilon(1e-6, etas))) > 0)
        assert float(gdp.delta(1.0, 1e-3)) < 1e-300 or float(gdp.delta(1.0, 1e-3)) == 0.0
        assert float(gdp.delta(1.0, 1e3)) == pytest.approx(1.0, abs=1e-12)
        assert float(gdp.delta(0.0, 1.0)) == pytest.approx(2 * 0.6914624612740131 - 1, rel=1e-12)
        # ε(δ; η) <= η²/2 + η Φ⁻¹(1−δ), asymptotically tight
        for eta in [1.0, 10.0, 300.0]:
            bound = eta ** 2 / 2 + eta * 4.753424308822899  # Φ⁻¹(1 − 1e-6)
            e = float(gdp.epsilon(1e-6, eta))
            assert e <= bound
        assert e / bound > 0.99


def test_rdp_curve():
    """Theorem 8: ε = T/4 + sqrt(T log(1/δ)) for standard TS (η² = T/2); the minimum over α of the classical
    conversion; never below the exact GDP curve; above dp-accounting's RDP accountant (a tighter conversion)."""
    T = 1000
    eta = math.sqrt(T / 2)
    assert float(gdp.rdp_epsilon(1e-6, eta)) == pytest.approx(367.54, abs=0.01)  # digest §3.5
    for delta in [1e-2, 1e-4, 1e-6, 1e-8]:
        ours = float(f64(gdp.rdp_epsilon, delta, eta))
        assert ours == pytest.approx(T / 4 + math.sqrt(T * math.log(1 / delta)), rel=1e-12)
        alphas = 1 + np.logspace(-4, 2, 200_001)
        assert ours == pytest.approx(np.min(alphas * T / 4 + math.log(1 / delta) / (alphas - 1)), rel=1e-7)
        assert ours >= float(f64(gdp.epsilon, delta, eta))
        acct = dp_accounting.rdp.RdpAccountant()
        acct.compose(dp_accounting.GaussianDpEvent(math.sqrt(2.0)), T)
        assert ours >= acct.get_epsilon(delta)


def test_ts_eta_oracles_and_symmetry():
    assert float(ts_privacy.eta(0, 1, 1e5)) == pytest.approx(316.228, rel=1e-6)  # "≈316-GDP" (Sec. 5)
    assert float(ts_privacy.eta(0, 1, 1e5, num_arms=5, tight=True)) == pytest.approx(223.607, rel=1e-6)  # Thm 3
    assert float(ts_privacy.eta(0, 1, 1000, num_arms=2, tight=True)) == pytest.approx(math.sqrt(500), rel=1e-6)
    assert float(ts_privacy.eta(9, 1, 1000)) == pytest.approx(10.0, rel=1e-6)
    assert float(ts_privacy.eta(0, 10, 1000)) == pytest.approx(10.0, rel=1e-6)
    # only c(b+1) matters (Fig. 1's two panels); tight: T − bN rounds at floor max(b,1)+1
    assert float(ts_privacy.eta(3, 2.5, 777)) == pytest.approx(float(ts_privacy.eta(4, 2.0, 777)), rel=1e-6)
    assert float(ts_privacy.eta(4, 2.0, 1000, num_arms=5, tight=True)) == pytest.approx(math.sqrt(980 / 10), rel=1e-6)
    # gradients: ∂η/∂c = −η/(2c), ∂η/∂b = −η/(2(b+1))
    gb, gc = jax.grad(lambda b, c: ts_privacy.eta(b, c, 1e5), (0, 1))(4.0, 2.0)
    eta = float(ts_privacy.eta(4.0, 2.0, 1e5))
    assert float(gc) == pytest.approx(-eta / 4, rel=1e-5) and float(gb) == pytest.approx(-eta / 10, rel=1e-5)


def test_fig1_reference_values():
    """Digest §5, Fig. 1 table: ε at δ = 1e-2..1e-8 for T = 1000."""
    table = {(0, 1): [572.60, 616.66, 649.39, 676.55], (1, 1): [301.07, 332.24, 355.38, 374.60],
             (0, 2): [301.07, 332.24, 355.38, 374.60], (4, 1): [131.97, 151.71, 166.36, 178.52],
             (9, 1): [72.37, 86.34, 96.72, 105.33], (9, 10): [11.61, 16.10, 19.42, 22.17]}
    deltas = jnp.asarray([1e-2, 1e-4, 1e-6, 1e-8])
    for (b, c), expected in table.items():
        g = ts_privacy.guarantee(b, c, 1000, delta=deltas)
        np.testing.assert_allclose(g.epsilon, expected, atol=0.006)


def test_guarantee_epsilon_direction():
    g = ts_privacy.guarantee(9, 1, 1000, epsilon=96.71727)
    assert float(g.eta) == pytest.approx(10.0) and float(g.delta) == pytest.approx(1e-6, rel=1e-3)
    with pytest.raises(ValueError, match="either delta or epsilon"):
        ts_privacy.guarantee(9, 1, 1000, epsilon=1.0, delta=1e-6)


def test_min_scale():
    b = jnp.asarray([0, 1, 9, 99, 999])
    for eta_b, prod in [(1.0, 1e5), (2.0, 25_000), (5.0, 4000)]:  # c(b+1) = T/η_B² (digest §3.3)
        c = ts_privacy.min_scale(b, 100_000, 5, eta_budget=eta_b)
        np.testing.assert_allclose(c, np.maximum(prod / (np.asarray(b) + 1), 1.0), rtol=1e-6)
        np.testing.assert_allclose(ts_privacy.eta(b, c, 100_000), np.minimum(eta_b, np.sqrt(1e5 / (np.asarray(b) + 1))),
                                   rtol=1e-5)
    # clipped at 1: the regret analysis needs c >= 1
    assert float(ts_privacy.min_scale(999, 100_000, 5, eta_budget=50.0)) == 1.0
    # (ε, δ) budget = the η it converts to
    c1 = ts_privacy.min_scale(9, 100_000, 5, epsilon=4.886554, delta=1e-6)
    assert float(c1) == pytest.approx(1e4, rel=1e-5)
    # tight accounting
    c2 = ts_privacy.min_scale(0, 1000, 2, eta_budget=2.0, tight=True)
    assert float(c2) == pytest.approx(1000 / (4 * 2), rel=1e-6)
    # differentiable in b (relaxed) and vmappable
    g = jax.grad(lambda b: ts_privacy.min_scale(b, 100_000, 5, eta_budget=2.0))(9.0)
    assert float(g) == pytest.approx(-25_000 / 100, rel=1e-5)


def test_min_scale_errors():
    with pytest.warns(UserWarning, match=r"b\*N=1000 >= horizon T=1000 rounds: every round is a pre-pull"):
        assert float(ts_privacy.min_scale(200, 1000, 5, eta_budget=1.0, tight=True)) == 1.0  # no private round
    with pytest.raises(ValueError, match="either as eta_budget or as"):
        ts_privacy.min_scale(1, 1000, 5)
    with pytest.raises(ValueError, match="either as eta_budget or as"):
        ts_privacy.min_scale(1, 1000, 5, eta_budget=1.0, epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="needs both epsilon and delta"):
        ts_privacy.min_scale(1, 1000, 5, epsilon=1.0)
    with pytest.raises(ValueError, match="eta_budget=0 .*outside the valid range"):
        ts_privacy.min_scale(1, 1000, 5, eta_budget=0.0)


def test_advanced_composition_reference_values():
    """Digest §3.5 (split of δ_TS optimised numerically): T = 1000."""
    deltas = jnp.asarray([1e-2, 1e-4, 1e-6, 1e-8])
    np.testing.assert_allclose(ts_privacy.advanced_composition_epsilon(deltas, 1000, 2), [2716, 4411, 6425, 8774], atol=0.6)
    np.testing.assert_allclose(ts_privacy.advanced_composition_epsilon(deltas, 1000, 10), [3465, 5312, 7484, 10000],
                               atol=0.6)
    # the standard-DP curve is at least 7x the GDP one (digest §6.7)
    gdp_eps = ts_privacy.guarantee(0, 1, 1000, delta=deltas, num_arms=2, tight=True).epsilon
    assert np.all(ts_privacy.advanced_composition_epsilon(deltas, 1000, 2) >= 7 * np.asarray(gdp_eps))


@pytest.mark.parametrize("call,match", [
    (lambda: gdp.delta(-1.0, 1.0), r"epsilon=-1 is outside the valid range \[0, inf\]"),
    (lambda: gdp.delta(1.0, 0.0), r"eta=0 is outside the valid range \(0, inf\]"),
    (lambda: gdp.delta(float("nan"), 1.0), "epsilon=nan must not be NaN"),
    (lambda: gdp.epsilon(0.0, 1.0), r"delta=0 is outside the valid range \(0, 1\)"),
    (lambda: gdp.epsilon(1.0, 1.0), r"delta=1 is outside the valid range \(0, 1\)"),
    (lambda: gdp.eta_for(1.0, 2.0), r"delta=2 is outside"),
    (lambda: ts_privacy.eta(-1, 1, 100), r"b=-1 is outside the valid range \[0, inf\]"),
    (lambda: ts_privacy.eta(1, 0, 100), r"c=0 is outside the valid range \(0, inf\]"),
    (lambda: ts_privacy.eta(1, 1, 0), r"horizon=0 is outside"),
    (lambda: ts_privacy.eta(1, 1, 100, tight=True), "pass num_arms"),
    (lambda: ts_privacy.advanced_composition_epsilon(1e-6, 1000, 1), r"num_arms=1 is outside the valid range \[2"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_cli_privacy(tmp_path, capsys):
    import json

    from jaxbandit import cli
    out = tmp_path / "p.json"
    argv = ["privacy", "--policy", "modified-thompson", "--policy-param", "b=9", "--policy-param", "c=1",
            "--horizon", "1000"]
    assert cli.main(argv + ["--at-delta", "1e-6", "--json", str(out)]) == 0
    assert "claim: μ-GDP with μ = 10, over the whole run" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["mu"] == pytest.approx(10.0, rel=1e-12) and data["at"]["delta"] == 1e-6
    assert data["at"]["epsilon"] == pytest.approx(96.71727, rel=1e-6)
    assert data["notion"] == "gdp" and data["scope"] == "run" and data["kind"] == "policy"
    assert cli.main(argv + ["--at-epsilon", "96.71727", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["at"]["delta"] == pytest.approx(1e-6, rel=1e-5)
    assert cli.main(argv + ["--delta", "1e-6", "--json", str(out)]) == 0  # the 0.3 spelling, with a message
    assert "--delta is deprecated: use --at-delta" in capsys.readouterr().err
    # standard TS under the tight accounting is Theorem 3's sqrt(T/2)
    assert cli.main(["privacy", "--policy", "gaussian-thompson", "--horizon", "1000", "--policy-option",
                     "accounting=tight", "--arms", "5", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["mu"] == pytest.approx(math.sqrt(500), rel=1e-12)
    assert cli.main(["privacy", "--policy", "gaussian-thompson", "--horizon", "1000", "--tight", "--arms", "5",
                     "--json", str(out)]) == 0  # the 0.3 spelling of the tight accounting
    assert json.loads(out.read_text())["mu"] == pytest.approx(math.sqrt(500), rel=1e-12)
    capsys.readouterr()
    with pytest.warns(UserWarning, match=r"b\*N=45 >= horizon T=40"):
        assert cli.main(argv[:-2] + ["--horizon", "40", "--arms", "5", "--policy-option", "accounting=tight",
                                     "--json", str(out)]) == 0
    assert json.loads(out.read_text())["mu"] == 0.0 and json.loads(out.read_text())["at"]["epsilon"] == 0.0
    assert cli.main(["privacy", "--policy", "ucb1", "--horizon", "10"]) == 2
    private = policies.private_names()  # from the registrations
    assert {"dp-ftpl-beta", "dp-rse", "dp-ucb", "gaussian-thompson", "lazy-ucb", "modified-thompson"} <= set(private)
    assert (f"policy 'ucb1' states no privacy claim (it is not private); private policies: {', '.join(private)}"
            in capsys.readouterr().err)


def test_the_claim_of_a_registered_component_in_python():
    """`jaxbandit.audit.components.claim` is what `jaxbandit privacy` prints, for Python: the claim at the given
    parameters with the run-decided ones bound to T, and a clear error for what states no claim."""
    from jaxbandit.audit import components
    claim, params = components.claim("policy", "modified-thompson", horizon=1000, params={"b": 9, "c": 1.0})
    assert claim.notion == "gdp" and claim.mu == pytest.approx(10.0, rel=1e-12) and int(params.b) == 9
    claim, _ = components.claim("privatizer", "linear", horizon=1, params={"epsilon": 0.5})
    assert claim.notion == "ldp" and claim.epsilon == pytest.approx(0.5)
    with pytest.raises(ValueError, match="states no privacy claim"):
        components.claim("policy", "ucb1", horizon=10)
    with pytest.raises(ValueError, match="kind='env'"):
        components.claim("env", "bernoulli", horizon=10)
    with pytest.raises(ValueError, match="apply to a policy"):
        components.claim("privatizer", "linear", horizon=10, options={"release": "float"})
    names = [n for n, _, _ in components.private_components()]
    assert names == policies.private_names() + ["exponential", "linear", "quadratic", "randomized-response"]
