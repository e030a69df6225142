"""Seed 000's Bernoulli mechanisms (linear, quadratic, exponential), the 20-arm testbed and TS / UCB1 on the
private bits. The oracles are the spec's (docs/spec/000_ldp_ts_bernoulli.md §6): endpoints, tight ε-LDP
ratio on a dense reward grid, monotonicity iff b is in range, reductions, Monte-Carlo frequencies against the
closed-form privatized means written out here from §5 (not from the library), gap identities."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from tests.helpers import assert_mean, sample_env
from jaxbandit import envs, privatizers
from jaxbandit.random import threefry
from jaxbandit.mechanisms import bernoulli
from jaxbandit.privatizers.bernoulli import EpsilonParams, QuadraticParams
from jaxbandit.types import StepRandom

EPSILONS = (0.01, 0.5, 1.0, math.log(3), 2.0, 4.0, 10.0, 30.0)
R_GRID = np.linspace(0.0, 1.0, 10_001)


def params_of(mechanism, eps, b_fraction=0.0):
    """Params with b = b_fraction · 2(e^ε − 1) for the quadratic (at most float32's largest value)."""
    if mechanism == "quadratic":
        b = b_fraction * bernoulli.b_range(eps)[1] if b_fraction else 0.0
        return QuadraticParams(eps, min(b, float(np.finfo(np.float32).max)))
    return EpsilonParams(eps)


def paper_probability(mechanism, r, eps, b=0.0):
    """The paper's fractions (Corollary 1) in float64, as printed."""
    e = math.exp(eps)
    if mechanism == "linear":
        return ((e - 1) * r + 1) / (1 + e)
    if mechanism == "quadratic":
        return ((e - 1 - b) * r * r + b * r + 1) / (1 + e)
    return np.exp(eps * r) / (e + 1)


def p64(mechanism, r, params):
    with jax.enable_x64(True):
        return np.asarray(bernoulli.probability(mechanism, np.asarray(r, np.float64), params), np.float64)


CASES = [("linear", 0.0), ("exponential", 0.0)] + [("quadratic", f) for f in (0.0, 0.25, 0.5, 0.875, 1.0)]


@pytest.mark.parametrize("mechanism,b_fraction", CASES)
@pytest.mark.parametrize("eps", EPSILONS)
def test_exact_probabilities_are_tight_eps_ldp(mechanism, b_fraction, eps):
    """On 10^4+1 rewards: p matches the paper's fraction, is non-decreasing, has p(0) = 1/(1+e^ε),
    p(1) = e^ε/(1+e^ε), and the exact LDP level log max(sup p/inf p, sup(1−p)/inf(1−p)) equals ε (float64;
    up to ε = 10, beyond which 1 − p(1) < 5e-5 loses digits to the subtraction)."""
    params = params_of(mechanism, eps, b_fraction)
    p = p64(mechanism, R_GRID, params)
    np.testing.assert_allclose(p, paper_probability(mechanism, R_GRID, eps, getattr(params, "b", 0.0)),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([p[0], p[-1]], [1 / (1 + math.exp(eps)), math.exp(eps) / (1 + math.exp(eps))],
                               rtol=1e-12)
    assert np.all(np.diff(p) >= -1e-15)
    if eps <= 10:
        assert bernoulli.ldp_ratio(p) == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("mechanism,b_fraction", CASES)
@pytest.mark.parametrize("eps", EPSILONS + (100.0, 1e4))
def test_realized_channel_is_eps_ldp_in_floating_point(mechanism, b_fraction, eps):
    """The probabilities `apply` realizes with float32 uniforms (⌈t(r)·2^23⌉/2^23, exact) have LDP level ≤ ε
    with no tolerance, on 10^4+1 rewards and at every ε. It is tight up to the grid: the endpoints move by at
    most about 2^-23 + 8 ulp·p(0), which lowers the level by at most 2·2^-23(1 + e^ε) + 1e-5 (5e-3 at
    ε = 10); above ε ≈ 16 the level is float32's cap log(2^23 − 1)."""
    params = params_of(mechanism, eps, b_fraction)
    r = R_GRID.astype(np.float32)
    q = bernoulli.realized_probability(mechanism, r, params)
    level = bernoulli.ldp_ratio(q)
    assert level <= eps
    cap = math.log(2 ** 23 - 1)
    if eps < 15:
        assert level >= eps - (2 * 2 ** -23 * (1 + math.exp(eps)) + 1e-5)
    elif eps > 17:
        assert level == pytest.approx(cap, rel=1e-12)
    # Shape kept: the grid and the snap (2^-23 + 8 ulp·p(0)), plus float32 rounding of e^{ε(r−1)} (relative ~ε ulp).
    # (Above ε ≈ 87, σ(−ε) is a float32 denormal and the quadratic's b·σ(−ε) loses digits: privacy is unaffected.)
    if eps <= 30:
        np.testing.assert_allclose(q, p64(mechanism, R_GRID, params), rtol=2 * eps * 2 ** -23, atol=7e-7)


@pytest.mark.parametrize("eps", (0.01, 20.0))
def test_naive_comparison_with_p_would_leak(eps):
    """Why `apply` snaps its threshold: comparing float32 uniforms with p(r) itself realizes ⌈p·2^23⌉/2^23,
    whose level exceeds ε (at ε = 20 it is infinite: p(1) rounds to 1, Pr(Y = 0 | r = 1) = 0)."""
    p = np.asarray(bernoulli.probability("exponential", R_GRID.astype(np.float32), EpsilonParams(eps)), np.float64)
    assert bernoulli.ldp_ratio(np.ceil(p * 2 ** 23) / 2 ** 23) > eps


@pytest.mark.parametrize("eps", (0.5, 1.0, 2.0, 4.0))
@pytest.mark.parametrize("b_fraction", (-0.01, 1.01, 1.5))
def test_b_outside_range_breaks_ldp_and_monotonicity_and_is_rejected(eps, b_fraction):
    """Spec §6.3: p is monotone iff b ∈ [0, 2(e^ε − 1)]; outside, the LDP level exceeds ε (negative test)."""
    params = params_of("quadratic", eps, b_fraction)
    p = p64("quadratic", R_GRID, params)
    assert np.any(np.diff(p) < 0)
    assert bernoulli.ldp_ratio(p) > eps * (1 + 1e-4)
    with pytest.raises(ValueError, match=r"b=.*outside the valid range \[0, 2\(e\^ε - 1\)\] = \[0, "):
        privatizers.make("quadratic", epsilon=eps, b=float(params.b))


def test_reductions():
    """Quadratic with b = e^ε − 1 is the linear mechanism; all agree on r ∈ {0, 1}; ε → ∞ gives p(r) = r and
    ε = ∞ is exactly p(r) = r for every mechanism."""
    for eps in EPSILONS:
        np.testing.assert_allclose(p64("quadratic", R_GRID, QuadraticParams(eps, math.expm1(eps))),
                                   p64("linear", R_GRID, EpsilonParams(eps)), rtol=1e-12, atol=1e-15)
        ends = [p64(m, [0.0, 1.0], params_of(m, eps, 0.3)) for m in bernoulli.MECHANISMS]
        np.testing.assert_allclose(ends[0], ends[1], rtol=1e-12)
        np.testing.assert_allclose(ends[0], ends[2], rtol=1e-12)
    np.testing.assert_allclose(p64("linear", R_GRID, EpsilonParams(40.0)), R_GRID, atol=1e-15)
    for m in bernoulli.MECHANISMS:
        np.testing.assert_array_equal(p64(m, R_GRID, params_of(m, math.inf, 0.0)), R_GRID)


def test_probability_is_finite_and_differentiable_everywhere():
    """No overflow at large ε, and gradients in ε and b are finite (ε = ∞ included) for tuning b by gradient."""
    for m in bernoulli.MECHANISMS:
        for eps in (1e-3, 1.0, 80.0, 200.0, math.inf):
            p = bernoulli.probability(m, jnp.linspace(0, 1, 101), params_of(m, eps, 0.5))
            assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1 + 1e-6))
    g = jax.grad(lambda e, b: bernoulli.probability("quadratic", 0.3, QuadraticParams(e, b)), argnums=(0, 1))
    for eps in (0.5, 4.0, math.inf):
        assert all(np.isfinite(x) for x in g(jnp.float32(eps), jnp.float32(0.5)))
    # d p_lin / d r = tanh(ε/2) = (e^ε − 1)/(e^ε + 1)
    assert jax.grad(lambda r: bernoulli.probability("linear", r, EpsilonParams(1.0)))(0.4) == pytest.approx(
        math.tanh(0.5), rel=1e-6)


def bits(mechanism, params, rewards, seed):
    priv, _ = privatizers.make(mechanism, **params._asdict())
    key = threefry.key(seed)
    u = priv.draw(key, len(rewards), params)
    y = priv.apply(StepRandom(key, u), 0, jnp.asarray(rewards, jnp.float32), params)
    return np.asarray(y, np.float64)


@pytest.mark.parametrize("mechanism", bernoulli.MECHANISMS)
def test_output_frequency_matches_probability_at_fixed_rewards(mechanism):
    """Y = 1{u < p(r)} is Bernoulli(p(r)): frequencies over 2e5 draws per reward, z-test at false-alarm rate
    ALPHA = 1e-6 per reward, exact variance p(1 − p)."""
    n = 200_000
    for eps in (0.5, 2.0):
        params = params_of(mechanism, eps, 0.3)
        for i, r in enumerate((0.0, 0.25, 0.5, 0.9, 1.0)):
            y = bits(mechanism, params, np.full(n, r), seed=17 + i)
            p = float(bernoulli.realized_probability(mechanism, np.float32(r), params))
            assert_mean(y, p, var=p * (1 - p), what=f"{mechanism} eps={eps} r={r}")


# Spec §5, per arm type of the testbed (means 0.9 / 0.8 / 0.7 / 0.6 / 0.5): E[R²] and E[e^{εR}].
SECOND_MOMENTS = (0.9, 2 / 3, 0.58, 0.6, 1 / 3)


def mgf_closed_forms(eps):
    e = math.exp(eps)
    return (0.1 + 0.9 * e, 4 * (e * (eps ** 3 - 3 * eps ** 2 + 6 * eps - 6) + 6) / eps ** 4,
            (math.exp(0.4 * eps) + e) / 2, 0.4 + 0.6 * e, (e - 1) / eps)


def closed_form_means(mechanism, eps, b):
    """μ_{i,ε} per arm type from spec §6.5 (Eqs. 5, 12, 22)."""
    e = math.exp(eps)
    mus = (0.9, 0.8, 0.7, 0.6, 0.5)
    if mechanism == "linear":
        return [((e - 1) * mu + 1) / (e + 1) for mu in mus]
    if mechanism == "quadratic":
        return [((e - 1 - b) * m2 + b * mu + 1) / (e + 1) for mu, m2 in zip(mus, SECOND_MOMENTS)]
    return [m / (e + 1) for m in mgf_closed_forms(eps)]


ARM_OF_TYPE = (0, 1, 6, 11, 16)  # one arm of each type in testbed20


def test_testbed20_layout_and_moments():
    env, p = envs.make("testbed20")
    assert env.num_arms == 20
    np.testing.assert_allclose(env.means(p), [0.9] + [0.8] * 5 + [0.7] * 5 + [0.6] * 5 + [0.5] * 4, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(env.second_moments(p))[list(ARM_OF_TYPE)], SECOND_MOMENTS, rtol=1e-6)
    for eps in (0.5, 1.0, 4.0):
        np.testing.assert_allclose(np.asarray(env.mgf(eps, p))[list(ARM_OF_TYPE)], mgf_closed_forms(eps), rtol=1e-5)
    with pytest.raises(ValueError, match="fixed instance"):
        envs.make("testbed20", means=[0.5])


@pytest.fixture(scope="module")
def testbed_rewards():
    """10^5 rewards of one arm of each type of testbed20, drawn as the engine draws them."""
    env, p = envs.make("testbed20")
    return env, p, [sample_env(env, p, arm, 100_000, seed=5 + k) for k, arm in enumerate(ARM_OF_TYPE)]


def test_testbed20_rewards_have_the_stated_moments(testbed_rewards):
    """Means and E[R²] of each arm type, z-tests at ALPHA."""
    env, p, rewards = testbed_rewards
    for arm, m2, x in zip(ARM_OF_TYPE, SECOND_MOMENTS, rewards):
        assert np.all((x >= 0) & (x <= 1))
        assert_mean(x, float(env.means(p)[arm]), what=f"arm {arm} mean")
        assert_mean(x * x, m2, what=f"arm {arm} E[R^2]")


@pytest.mark.parametrize("mechanism", bernoulli.MECHANISMS)
def test_privatized_means_match_closed_forms_and_monte_carlo(mechanism, testbed_rewards):
    """`privatized_means` equals the spec's closed forms (and its printed values at ε = 1, b = 0), and the
    Monte-Carlo mean of Y over 10^5 testbed rewards per arm type matches it: z-test with the exact Bernoulli
    variance μ(1 − μ), false-alarm rate ALPHA = 1e-6 per check."""
    env, p, rewards = testbed_rewards
    printed = {"linear": (.68485, .63864, .59242, .54621, .50000), "quadratic": (.68485, .57702, .53697, .54621, .42298),
               "exponential": (.68485, .60613, .56614, .54621, .46212)}[mechanism]
    for i, eps in enumerate((0.5, 1.0, 4.0)):
        params = params_of(mechanism, eps, 0.0)
        b = float(getattr(params, "b", 0.0))
        expected = closed_form_means(mechanism, eps, b)
        got = np.asarray(bernoulli.privatized_means(mechanism, params, env, p))[list(ARM_OF_TYPE)]
        np.testing.assert_allclose(got, expected, rtol=2e-6)
        if eps == 1.0:
            np.testing.assert_allclose(got, printed, atol=6e-6)
        for k, (arm, r) in enumerate(zip(ARM_OF_TYPE, rewards)):
            y = bits(mechanism, params, r, seed=200 + 10 * i + k)
            assert_mean(y, expected[k], var=expected[k] * (1 - expected[k]), what=f"{mechanism} eps={eps} arm {arm}")


def test_gap_identities():
    """Spec §6.6: linear gaps are tanh(ε/2)Δ; Bernoulli arms have the same gaps under quad (any b) and exp;
    coth²(ε/2), the linear bound's privacy factor, is 16.671 / 4.6827 / 1.7241 / 1.0760 at ε = 0.5 / 1 / 2 / 4."""
    env, p = envs.make("bernoulli", means=[0.9, 0.7, 0.55, 0.2])
    delta = 0.9 - np.array([0.9, 0.7, 0.55, 0.2])
    for eps, coth2 in zip((0.5, 1.0, 2.0, 4.0), (16.671, 4.6827, 1.7241, 1.0760)):
        assert 1 / math.tanh(eps / 2) ** 2 == pytest.approx(coth2, abs=6e-4)
        for m, frac in (("linear", 0), ("quadratic", 0.0), ("quadratic", 0.8), ("exponential", 0)):
            mu = np.asarray(bernoulli.privatized_means(m, params_of(m, eps, frac), env, p), np.float64)
            np.testing.assert_allclose(mu[0] - mu, math.tanh(eps / 2) * delta, atol=2e-6)


def test_bad_input_is_rejected_before_compilation():
    for bad, match in ((dict(epsilon=0.0), r"epsilon=0 is outside the valid range \(0, inf\]"),
                       (dict(epsilon=-1.0), "epsilon=-1"), (dict(epsilon=float("nan")), "NaN")):
        for m in bernoulli.MECHANISMS:
            with pytest.raises(ValueError, match=match):
                privatizers.make(m, **bad)
    with pytest.raises(ValueError, match="unknown parameter"):
        privatizers.make("linear", b=1.0)
    with pytest.raises(ValueError, match="reward=1.5"):
        bernoulli.probability("linear", 1.5, EpsilonParams(1.0))
    # Rewards outside [0, 1]: an unclipped Gaussian environment.
    with pytest.raises(ValueError, match=r"privatizer 'linear' needs rewards in \[0, 1\]"):
        jb.simulate("gaussian", "thompson", privatizer="linear", env_params={"means": [0.2, 0.5]},
                    horizon=10, runs=1)
    # A grid point with b outside [0, 2(e^ε − 1)]: b = 2 is valid at ε = 1 but not at ε = 0.5.
    with pytest.raises(ValueError, match="epsilon=0.5"):
        jb.sweep("testbed20", "thompson", privatizer="quadratic", privatizer_params={"b": 2.0},
                 grid={"privatizer.epsilon": [1.0, 0.5]}, horizon=10, runs=1)
    with pytest.raises(ValueError, match="no closed-form"):
        env, p = envs.make("truncexp", rates=[1.0, 2.0])
        bernoulli.privatized_means("quadratic", QuadraticParams(1.0, 0.0), env, p)


@pytest.mark.slow
def test_epsilon_infinity_is_the_same_channel_for_every_mechanism():
    """ε = ∞ means p(r) = r for all three mechanisms: with the same seed, the runs are identical bit for bit
    (the privatizer's uniforms are common random numbers), in the same compiled ε sweep as finite ε."""
    kw = dict(grid={"privatizer.epsilon": [1.0, math.inf]}, horizon=300, runs=8, seed=3)
    res = {m: jb.sweep("testbed20", "ucb1", privatizer=m, **kw) for m in bernoulli.MECHANISMS}
    base = res["linear"].pseudo_regret[1]
    for m in ("quadratic", "exponential"):
        np.testing.assert_array_equal(res[m].pseudo_regret[1], base)
        assert not np.array_equal(res[m].pseudo_regret[0], res["linear"].pseudo_regret[0])


@pytest.mark.slow
def test_uninformative_bits_give_uniform_play():
    """Spec §6.12: as ε → 0 the bits carry no information about the arm, so the learner, which sees only the
    bits, plays uniformly: E[regret(T)] = T · mean(Δ) = 0.23 T on testbed20. At ε = 1e-5 the privatized means
    differ by < 3e-6, far below what T = 1000 rounds can resolve. z-test over 400 runs at ALPHA."""
    horizon, runs = 1000, 400
    for policy in ("thompson", "ucb1"):
        res = jb.simulate("testbed20", policy, privatizer="linear", privatizer_params={"epsilon": 1e-5},
                          horizon=horizon, runs=runs, seed=11)
        assert_mean(res.pseudo_regret[:, -1], 0.23 * horizon, what=policy)


def test_learner_posterior_counts_only_the_bits():
    """TS-LDP-B's state after T rounds: S + F equals the pull counts and sums to T (spec §6.7): exactly one arm
    is updated per round, with one bit."""
    from jaxbandit import policies
    from jaxbandit.engine import SimParams, init_state, make_advance, record_slots
    env, ep = envs.make("bernoulli", means=[0.8, 0.3])
    pol, pp = policies.make("thompson", 2)
    priv, qp = privatizers.make("linear", epsilon=1.0)
    runs, horizon = 4, 500
    times = np.array([horizon])
    params = jax.tree.map(lambda x: jnp.repeat(jnp.asarray(x)[..., None], runs, -1), SimParams(ep, pp, qp))
    state = init_state(pol, params, 2, 1, record_slots(times), num_runs=runs)
    keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(threefry.key(0), jnp.arange(runs))
    state = make_advance(env, pol, priv, jb.BLOCK, record_slots(times))(
        state, horizon // jb.BLOCK, keys, params, jnp.asarray(times, jnp.int32))
    s, f = np.asarray(state.run.policy.successes), np.asarray(state.run.policy.failures)
    np.testing.assert_array_equal(s + f, np.asarray(state.run.counts))
    np.testing.assert_array_equal((s + f).sum(0), horizon)



def test_cli_run_with_a_bernoulli_mechanism(tmp_path, capsys):
    import json

    from jaxbandit import cli
    out = tmp_path / "run.json"
    argv = ["run", "--env", "testbed20", "--policy", "ucb1", "--privatizer", "quadratic", "--privatizer-param",
            "epsilon=1", "--horizon", "100", "--runs", "4"]
    assert cli.main(argv + ["--privatizer-param", "b=0.5", "--json", str(out)]) == 0
    config = json.loads(out.read_text())["config"]
    assert config["privatizer"] == "quadratic" and config["privatizer_params"] == {"b": 0.5, "epsilon": 1.0}
    capsys.readouterr()
    assert cli.main(argv + ["--privatizer-param", "b=4"]) == 2
    assert "b=4 is outside the valid range [0, 2(e^ε - 1)] = [0, 3.43656] for epsilon=1" in capsys.readouterr().err
    assert cli.main(argv[:-6] + ["--privatizer-param", "epsilon=inf", "--horizon", "100", "--runs", "4"]) == 0
    capsys.readouterr()
    assert cli.main(argv[:-6] + ["--epsilon", "inf", "--horizon", "100", "--runs", "4"]) == 0  # the 0.3 spelling
    assert "--epsilon is deprecated: use --privatizer-param epsilon=E" in capsys.readouterr().err
