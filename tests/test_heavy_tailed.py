"""Seed 004 (Tao et al., AISTATS 2022): heavy-tailed reward models, private robust estimators, their privacy, and the
policies dp-rucb, dp-rse, ldp-rse (spec 004 §7 oracles). Statistical tests use fixed seeds and thresholds whose
false-alarm probability is stated (about 1e-6 each)."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import envs, epochs, policies
from jaxbandit.random import threefry
from jaxbandit.results import config_fingerprint
from jaxbandit.envs import tails as he
from jaxbandit.policies import robust as ht
from jaxbandit.mechanisms import counters, truncated_mean as robust
from jaxbandit.types import StepRandom
from tests.helpers import default_subset

S1 = [0.9, 0.7, 0.5, 0.3, 0.1]
S3 = [0.9, 0.85, 0.7, 0.45, 0.1]
KS_1E6 = math.sqrt(-math.log(0.5e-6) / 2)  # sqrt(n)·D above this has probability < 1e-6 (DKW)


def env_draws(name, params, arm, n, seed=0):
    env, p = envs.make(name, **params)
    noise = env.draw(jax.random.key(seed), n, p)
    keys = jax.random.split(jax.random.key(seed + 1), n)
    return np.asarray(jax.vmap(lambda k, z: env.sample(StepRandom(k, z), arm, p))(keys, noise), np.float64)


def ks_statistic(x, cdf):
    x = np.sort(x)
    n = len(x)
    f = cdf(x)
    return math.sqrt(n) * max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


# ------------------------------------------------------------------------------------------------ reward models

@pytest.mark.parametrize("v,mean", [(0.5, 0.9), (0.9, 0.1)])
def test_pareto_sampler_matches_its_cdf(v, mean):
    x = env_draws("pareto", {"means": [0.3, mean], "v": v}, 1, 40_000)
    alpha = 1.05 + v
    lam = (alpha - 1) * mean / alpha
    assert x.min() >= lam * (1 - 1e-6)
    assert ks_statistic(x, lambda t: 1 - (lam / t) ** alpha) < KS_1E6


def _student_t_cdf(t, df):
    z = df / (df + t * t)
    tail = 0.5 * np.asarray(jax.scipy.special.betainc(df / 2, 0.5, jnp.asarray(z, jnp.float32)), np.float64)
    return np.where(t > 0, 1 - tail, tail)


@pytest.mark.parametrize("df", [1.5, 3.0])
def test_student_t_sampler_matches_its_cdf(df):
    x = env_draws("student-t", {"means": [1.0, 0.0], "scales": [2.0, 0.5], "df": df}, 0, 40_000)
    # float32 betainc: its own error (~1e-6) is far below the KS threshold / sqrt(n) = 0.019
    assert ks_statistic((x - 1.0) / 2.0, lambda t: _student_t_cdf(t, df)) < KS_1E6


def test_pareto_and_student_t_are_registered_with_their_means_and_support():
    env, p = envs.make("pareto", means=[0.9, 0.5], v=0.9)
    np.testing.assert_allclose(env.means(p), [0.9, 0.5], rtol=1e-6)
    low, high = env.support(p)
    assert high == math.inf and low == pytest.approx(0.95 * 0.5 / 1.95, rel=1e-6)
    env, p = envs.make("student-t", means=[0.0, 2.0], df=3.0)
    assert env.support(p) == (-math.inf, math.inf)
    np.testing.assert_allclose(env.means(p), [0.0, 2.0])


@pytest.mark.parametrize("name,params,match", [
    ("pareto", {"means": [0.5, -0.1]}, "means"), ("pareto", {"means": [0.5], "v": 1.5}, "v"),
    ("pareto", {"means": [0.5], "v": 0.0}, "v"), ("student-t", {"means": [0.0], "df": 1.0}, "df"),
    ("student-t", {"means": [0.0], "df": 3.0, "scales": 0.0}, "scales")])
def test_heavy_families_reject_bad_parameters(name, params, match):
    with pytest.raises(ValueError, match=match):
        envs.make(name, **params)


def test_bounded_policies_are_refused_on_heavy_tailed_rewards():
    with pytest.raises(ValueError, match="thompson"):
        jb.simulate("pareto", "thompson", env_params={"means": S1}, horizon=10, runs=1, progress=False)


def test_moment_bound_oracles():
    """Spec 004 §5.1 and §7.1: u = max_a 20 α λ_a^{1+v}, attained by the arm of mean 0.9."""
    for means in (S1, [0.9, 0.55, 0.3, 0.15, 0.1], S3):
        assert he.instance_u(means, 0.5) == pytest.approx(5.594637, abs=5e-7)
        assert he.instance_u(means, 0.9) == pytest.approx(8.142063, abs=5e-7)
    alpha, lam = 1.95, 0.95 * 0.9 / 1.95
    assert he.pareto_moment(0.9, 0.9) == pytest.approx(20 * alpha * lam ** 1.9, rel=1e-12)
    assert he.moment_bound("pareto", {"means": [0.9]}, 0.9)[0] == pytest.approx(8.142063, abs=5e-7)
    with pytest.raises(ValueError, match="p="):
        he.pareto_moment(0.9, 0.5, p=1.6)


def test_pareto_truncated_moments_against_numerical_integration():
    """E[X 1{X<=B}] and E[X² 1{X<=B}] (spec §5.1) against a midpoint rule on a log grid; Lemma 7's bias bound."""
    for v, mean, bound in [(0.5, 0.9, 3.0), (0.9, 0.3, 50.0), (0.5, 0.1, 0.04)]:
        alpha = 1.05 + v
        lam = (alpha - 1) * mean / alpha
        first, second = he.pareto_truncated_moments(mean, v, bound)
        if bound < lam:
            assert first == 0 and second == 0
            continue
        edges = np.geomspace(lam, bound, 200_001)
        x, dx = (edges[1:] + edges[:-1]) / 2, np.diff(edges)
        density = alpha * lam ** alpha / x ** (alpha + 1)
        assert first == pytest.approx(np.sum(x * density * dx), rel=1e-6)
        assert second == pytest.approx(np.sum(x * x * density * dx), rel=1e-6)
        u_a = he.pareto_moment(mean, v)
        assert mean - first <= u_a / bound ** v            # Lemma 7
        assert second <= u_a * bound ** (1 - v)            # the proofs' second-moment bound


def test_student_t_moment_against_numerical_integration():
    t = np.linspace(-4000, 4000, 8_000_001)
    df, p = 3.0, 1.5
    density = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2)) * (1 + t * t / df) ** (
        -(df + 1) / 2)
    numeric = np.sum(np.abs(t) ** p * density) * (t[1] - t[0])
    tail = 2 * 0.0  # |t|^1.5 t^-4 tail beyond 4000 is below 1e-4 relative
    assert he.student_t_moment(1.0, df, p) == pytest.approx(numeric + tail, rel=2e-3)
    assert he.moment_bound("student-t", {"means": [0.0], "df": [df]}, 0.5)[0] == pytest.approx(
        he.student_t_moment(1.0, df, p))


def test_two_point_lower_bound_instances():
    """Spec 004 §7.3: means and moments of Theorems 5, 8 and 10 exactly."""
    v = 0.5
    means = np.array([0.5, 0.45, 0.4])
    inst = he.theorem5_instance(means, v)
    np.testing.assert_allclose(inst["p_high"] * inst["high"], means, rtol=1e-12)
    np.testing.assert_allclose(inst["p_high"] * inst["high"] ** (1 + v), 0.5, rtol=1e-12)
    alt = he.theorem8_alternative(means, v, 2)
    gap = means.max() - means[2]
    assert alt["p_high"][2] * alt["high"][2] == pytest.approx(means[0] + gap)
    assert alt["p_high"][2] * alt["high"][2] ** (1 + v) == pytest.approx(0.5 + gap / means[2])
    gap = 0.04
    for alternative, mean2, moment2 in ((False, 1.5 * gap, 0.3), (True, 3.5 * gap, 0.7)):
        inst = he.theorem10_instance(gap, v, alternative)
        np.testing.assert_allclose(inst["p_high"] * inst["high"], [2.5 * gap, mean2], rtol=1e-12)
        np.testing.assert_allclose(inst["p_high"] * inst["high"] ** (1 + v), [0.5, moment2], rtol=1e-12)
        env, p = envs.make("two-point", **inst)  # valid two-point parameters
        np.testing.assert_allclose(env.means(p), [2.5 * gap, mean2], rtol=1e-5)
    base, alt = he.theorem10_instance(gap, v), he.theorem10_instance(gap, v, True)
    g = (5 * gap) ** (1 / v)
    assert abs(base["p_high"][1] - alt["p_high"][1]) == pytest.approx(2 * gap * g)  # d_TV = 2Δγ
    with pytest.raises(ValueError, match="gap"):
        he.theorem10_instance(0.25, v)


# -------------------------------------------------------------------------------------------------- estimators

@pytest.mark.parametrize("local", [False, True])
def test_private_truncated_means_match_their_closed_form_bias_and_variance(local):
    """4000 estimates of R = 64 Pareto rewards: mean and variance within 5 standard errors of spec §5.1's closed
    forms (two-sided z at 5 SE: false alarm 6e-7 each, normal approximation over 4000 estimates)."""
    mean, v, bound, eps, reps, r = 0.7, 0.5, 4.0, 2.0, 4000, 64
    x = env_draws("pareto", {"means": [mean], "v": v}, 0, reps * r, seed=3).reshape(reps, r)
    x = jnp.asarray(x, jnp.float32)
    if local:
        est = robust.local_mean(x, bound, eps, jax.random.laplace(jax.random.key(4), x.shape))
    else:
        est = robust.central_mean(x, bound, eps, jax.random.laplace(jax.random.key(4), (reps,)))
    est = np.asarray(est, np.float64)
    bias, var = he.pareto_estimator_moments(mean, v, bound, r, eps, local=local)
    assert bias < 0
    assert abs(est.mean() - (mean + bias)) < 5 * math.sqrt(var / reps)
    dev = (est - est.mean()) ** 2
    assert abs(dev.mean() - var) < 5 * dev.std() / math.sqrt(reps)


def test_truncation_zeroes_rather_than_clips():
    np.testing.assert_array_equal(robust.truncate(jnp.array([-3.0, -1.0, 0.5, 2.0, 2.5]), 2.0),
                                  [0.0, -1.0, 0.5, 2.0, 0.0])


def test_local_channel_level_is_exact_and_catches_the_papers_typo():
    """x ↦ x̃ + Lap(b): the log density ratio of two inputs at every output is |x̃ − x̃'|/b at most; its sup over
    inputs is 2B/b (x = B, x' = −B). Scale 2B/ε gives ε; the proof's B/ε gives 2ε."""
    bound, eps = 3.0, 0.8
    y = np.linspace(-30, 30, 6001)
    inputs = np.array([-10.0, -bound, -1.0, 0.0, 0.7, bound, 12.0])

    def level(scale):
        xt = np.asarray(robust.truncate(jnp.asarray(inputs), bound), np.float64)
        logd = -np.abs(y[None, :] - xt[:, None]) / scale
        return np.max(logd[:, None, :] - logd[None, :, :])

    good = robust.local_scale(bound, eps)
    assert level(good) == pytest.approx(eps, rel=1e-9)
    assert robust.channel_level(bound, good) == pytest.approx(eps)
    assert robust.channel_level(bound, bound / eps) == pytest.approx(2 * eps)   # planted: the typo
    assert level(bound / eps) > 1.9 * eps
    # central: R rewards, one changed by at most 2B, against Lap(2B/(Rε))
    assert robust.central_level(bound, 100, robust.central_scale(bound, 100, eps)) == pytest.approx(eps)


def test_ldp_rse_privatizes_with_scale_2B_over_epsilon():
    """The policy's own channel: with a unit Laplace draw, x̂ − x̃ = 2B_τ/ε exactly (a B/ε bug would halve it)."""
    pol, pp = policies.make("ldp-rse", 3, epsilon=2.0, v=0.9, u=1.0, beta=0.1, theta=0.5, horizon=1000.0)
    pp = pol.bind_horizon(pp, 1000)
    state = pol.init(pp)
    rng = StepRandom(jax.random.key(0), jnp.asarray(1.0))
    new = pol.update(rng, state, jnp.int32(1), jnp.asarray(0.3), pp)
    bound = float(state.inner.bound)
    assert float(new.inner.sums[1]) == pytest.approx(0.3 + 2 * bound / 2.0, rel=1e-6)
    big = pol.update(rng, state, jnp.int32(1), jnp.asarray(bound * 1.01), pp)  # truncated to 0, then noise
    assert float(big.inner.sums[1]) == pytest.approx(2 * bound / 2.0, rel=1e-6)


# ----------------------------------------------------------------------------------------- DPRUCB's tree privacy

def test_dp_rucb_tree_noise_has_the_calibrated_scale():
    """An insertion with a unit Laplace draw creates a node whose noise is 2B_n·D/ε (D = ⌊log₂T⌋ + 1)."""
    pol, pp = policies.make("dp-rucb", 2, epsilon=0.5, v=0.9, u=3.0, horizon=1000.0)
    state = pol.init(pp)
    rng = StepRandom(jax.random.key(0), jnp.ones(2))
    for n in range(1, 4):
        new = pol.update(rng, state, jnp.int32(0), jnp.asarray(0.0), pp)
        level = (n & -n).bit_length() - 1
        noise = float(new.tree.alpha_hat[0, level] - new.tree.alpha[0, level])
        bound = (0.5 * 3.0 * n / math.log(1000) ** 1.5) ** (1 / 1.9)
        assert noise == pytest.approx(2 * bound * 10 / 0.5, rel=1e-5)
        assert float(new.tree.alpha_hat[1].sum()) == 0  # the other arm's tree is untouched
        state = new


@pytest.mark.parametrize("horizon", [1000, 4096, 10 ** 6])
def test_dp_rucb_per_item_loss_is_epsilon_and_the_literal_log_overspends(horizon):
    """Spec §7.7: with sensitivities 2B_i and ε′ = ε/(⌊log₂T⌋ + 1) every item of an arm's stream of up to T items
    costs at most ε (exactly ε for a constant B; B_i grows, so a node's noise 2B_c/ε′ over-covers the items before c);
    the literal ε/ln T multiplies every loss by D/ln T (1.45 at 10^6) and spends more than ε."""
    eps, v, u = 1.0, 0.9, 8.142063
    levels = counters.tree_levels(horizon)
    n = np.arange(1, horizon + 1)
    sens = 2 * (eps * u * n / math.log(horizon) ** 1.5) ** (1 / (1 + v))
    loss = counters.tree_privacy_loss(horizon, eps, sens, depth=levels, levels=counters.LEVELS)
    assert loss.max() <= eps * (1 + 1e-12)
    flat = counters.tree_privacy_loss(horizon, eps, sens[-1], depth=levels, levels=counters.LEVELS)
    assert flat.max() == pytest.approx(eps, rel=1e-9) or horizon < 2 ** (levels - 1)  # tight for a constant B
    literal = counters.tree_privacy_loss(horizon, eps, sens, depth=math.log(horizon), levels=counters.LEVELS)
    np.testing.assert_allclose(literal, loss * levels / math.log(horizon), rtol=1e-12)
    assert literal.max() > eps  # the literal reading is caught
    for variant, claimed in (("corrected", eps), ("printed", eps * levels / math.log(horizon))):
        pol, pp = policies.make("dp-rucb", 5, options={"variant": variant}, epsilon=eps, v=v, u=u)
        pp = pol.bind_horizon(pp, horizon)
        assert pol.accountant.guarantee(pp, horizon, 5).epsilon == pytest.approx(claimed, rel=1e-6)
    if horizon == 10 ** 6:
        assert levels / math.log(horizon) == pytest.approx(1.4476, abs=1e-4)


# -------------------------------------------------------------------------------------------------- schedules

def test_dprse_schedule_oracle_and_identities():
    """Spec §7.14–15: v = 0.9, ε = 1, T = 10^6 (β = 1/T), K = 5, τ = 1."""
    pol, pp = policies.make("dp-rse", 5, epsilon=1.0, v=0.9, u=8.142063)
    pp = pol.bind_horizon(pp, 10 ** 6)
    r, bound, err, log_l = ht.rse_schedule(jnp.int32(5), jnp.int32(1), pp)
    assert float(log_l) == pytest.approx(16.811243, abs=2e-6)
    assert float(r) == 612090
    assert float(bound) == pytest.approx(758.53, abs=0.01)
    assert float(err) == pytest.approx(0.0208333, abs=2e-7)
    for tau in range(1, 6):
        r, bound, err, log_l = (float(x) for x in ht.rse_schedule(jnp.int32(5), jnp.int32(tau), pp))
        gap = 2.0 ** -tau
        assert 24 * err <= gap * (1 + 1e-6) and (r < 1e4 or 24 * err > gap * (1 - 1e-3))  # float32 rounding
        assert 8.142063 / bound ** 0.9 == pytest.approx(err, rel=2e-5)
        assert 2 * bound / r * log_l == pytest.approx(2 * err, rel=2e-5)
    # halving ε doubles R_τ (up to the ceiling and the +1); R_τ·|S| fits int32 or the epoch outlasts the run
    r_half = float(ht.rse_schedule(jnp.int32(5), jnp.int32(1), pp._replace(epsilon=jnp.float32(0.5)))[0])
    assert r_half == pytest.approx(2 * 612090 - 1, abs=2)


def test_ldprse_schedule_variants():
    """Spec §7.21–22: proofs' variant 28·err′ <= D_τ = 2^-τ, R_τ >= L_τ, u/B^v = err′; literal D₁ = 1/4 and
    err = err′ · R^{-v/(2(1+v))}."""
    u, v, eps = 8.142063, 0.9, 20.0
    pol, pp = policies.make("ldp-rse", 5, epsilon=eps, v=v, u=u)
    pp = pol.bind_horizon(pp, 10 ** 6)
    for tau in (1, 2):
        r, bound, err, log_l = (float(x) for x in ht.ldp_rse_schedule(jnp.int32(5), jnp.int32(tau), pp))
        assert 28 * err <= 2.0 ** -tau * (1 + 1e-5) and r >= log_l
        assert u / bound ** v == pytest.approx(err, rel=2e-5)
        r_l, bound_l, err_l, _ = (float(x) for x in ht.ldp_rse_schedule(jnp.int32(5), jnp.int32(tau), pp,
                                                                         printed=True))
        d_lit = 4.0 ** -tau
        expected = u ** (2 / v) * 28 ** (2 * (1 + v) / v) * log_l / (eps ** 2 * d_lit ** (2 * (1 + v) / v)) + log_l
        assert r_l == pytest.approx(math.ceil(expected), rel=1e-5)
        err_proof = u ** (1 / (1 + v)) * (math.sqrt(log_l) / (math.sqrt(r_l) * eps)) ** (v / (1 + v))
        assert err_l == pytest.approx(err_proof * r_l ** (-v / (2 * (1 + v))), rel=1e-4)
    assert "proofs' variant" in pol.accountant.guarantee(pp, 10 ** 6, 5).source
    printed = policies.get("ldp-rse", 5, variant="printed")
    assert "the algorithm box as printed" in printed.accountant.guarantee(pp, 10 ** 6, 5).source


@pytest.mark.parametrize("name,params,match", [
    ("dp-rucb", {"v": 1.2}, "v"), ("dp-rucb", {"log_base": 1.0}, "log_base .*is now the build-time option variant"),
    ("dp-rucb", {"u": 0.0}, "u"), ("dp-rse", {"beta": 1.0}, "beta"), ("dp-rse", {"theta": 0.0}, "theta"),
    ("dp-rse", {"epsilon": 0.0}, "epsilon"), ("ldp-rse", {"literal": 2}, "literal .*is now the build-time option"),
    ("ldp-rse", {"horizon": 1.0}, "horizon")])
def test_parameter_errors_name_the_parameter(name, params, match):
    with pytest.raises(ValueError, match=match):
        policies.make(name, 5, **params)


# ---------------------------------------------------------------------------------------------------- behaviour

@pytest.mark.slow
def test_dp_rucb_plays_each_arm_first_then_near_uniformly_with_the_papers_constants():
    """Spec §7.8 and §7.11: rounds 1..K pull arms 0..K−1; with the literal constants on S1 (T = 2·10^4) play is
    within a few percent of uniform (the bonus is 12–160 against gaps <= 0.8) and regret/T ≈ 0.4."""
    u = he.instance_u(S1, 0.9)
    env, ep = envs.make("pareto", means=S1, v=0.9)
    pol, pp = policies.make("dp-rucb", 5, epsilon=1.0, v=0.9, u=u)
    first = jb.rollout(env, pol, horizon=5, record_times=[1, 2, 3, 4, 5])(threefry.key(0), jb.SimParams(ep, pp, ()))
    np.testing.assert_allclose(first.pseudo_regret, np.cumsum([0.0, 0.2, 0.4, 0.6, 0.8]), rtol=1e-6)
    res = jb.simulate(env, pol, env_params=ep, policy_params=pp, horizon=20_000, runs=8, seed=0, progress=False)
    frac = res.counts / 20_000
    assert np.all(np.abs(frac - 0.2) < 0.2 * 0.06)
    assert res.final().mean() / 20_000 == pytest.approx(0.4, abs=0.4 * 0.03)


def test_dprse_with_literal_constants_plays_uniformly_at_one_million():
    """Spec §6.4: epoch 1 alone is 3.06·10^6 rounds at v = 0.9, ε = 1; T = 10^6 is uniform play: regret exactly
    ΣΔ/K per round along the whole curve (round-robin), the fluid prediction 0.400 on S1."""
    u = he.instance_u(S1, 0.9)
    env, ep = envs.make("pareto", means=S1, v=0.9)
    pol, pp = policies.make("dp-rse", 5, epsilon=1.0, v=0.9, u=u)
    run = epochs.rollout(env, pol, horizon=10 ** 6, record_times=[5, 1000, 10 ** 6])
    trace = jax.jit(run)(threefry.key(0), jb.SimParams(ep, pp, ()))
    np.testing.assert_allclose(trace.pseudo_regret, [2.0, 400.0, 400_000.0], rtol=1e-6)
    np.testing.assert_array_equal(trace.counts, [200_000] * 5)
    assert int(trace.epochs) == 0


@pytest.mark.parametrize("name,epsilon", default_subset([("dp-rse", 1e3), ("ldp-rse", 1e4)], [("ldp-rse", 1e4)],
                                                         several=True))
def test_elimination_rollout_equals_the_step_engine_on_deterministic_rewards(name, epsilon):
    """Deterministic rewards (gaps 0.1, 0.3, 0.05) and β = 1e-12: the thresholds θ·err_τ ≈ 2^-τ/2 sit at least 0.018
    from every gap while the privacy noise of a mean is about 2 err_τ/L_τ (central) or 2√2 err′_τ/√L_τ (local),
    L_τ ≈ 30: both simulations take the same decisions (a wrong one has probability below 1e-12), eliminating the
    arms in epochs 1, 3 and 4; so their pulls are equal and their regret curves equal up to float rounding."""
    env, ep = envs.make("two-point", low=0.0, high=[1.0, 0.9, 0.7, 0.95], p_high=1.0)
    pol, pp = policies.make(name, 4, epsilon=epsilon, v=1.0, u=1.0, beta=1e-12)
    T = 30_000
    times = [1, 7, 50, 333, 1000, 2500, 8000, 20000, T]
    step = jb.simulate(env, pol, env_params=ep, policy_params=pp, horizon=T, runs=2, seed=0, record=times,
                       progress=False)
    trace = jax.jit(epochs.rollout(env, pol, horizon=T, record_times=times))(threefry.key(0), jb.SimParams(ep, pp, ()))
    np.testing.assert_array_equal(trace.eliminated, [0, 3, 1, 4])
    for r in range(2):
        np.testing.assert_array_equal(step.counts[r], trace.counts)
        np.testing.assert_allclose(step.pseudo_regret[r], trace.pseudo_regret, rtol=1e-6)
        np.testing.assert_allclose(step.regret[r], trace.regret, rtol=1e-6, atol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("name,theta,T", [("dp-rse", 1.0, 100_000), ("ldp-rse", 0.5, 200_000)])
def test_elimination_rollout_has_the_law_of_the_step_engine(name, theta, T):
    """Pareto arms, scaled constants (epochs end within T): 150 runs of each simulation, final regret means within
    5 combined standard errors (false alarm 6e-7 under the normal approximation). The float release: the two
    simulators share the release code whatever it is, and the discrete one costs five random words a report
    (tests/test_noise.py compares the modes' regret)."""
    u = he.instance_u(S1, 0.9)
    env, ep = envs.make("pareto", means=S1, v=0.9)
    pol, pp = policies.make(name, 5, options={"release": "float"}, epsilon=1.0, v=0.9, u=u, theta=theta)
    runs = 150
    step = jb.simulate(env, pol, env_params=ep, policy_params=pp, horizon=T, runs=runs, seed=0, progress=False)
    run = jax.jit(jax.vmap(epochs.rollout(env, pol, horizon=T), in_axes=(0, None)))
    keys = jax.vmap(lambda r: jax.random.fold_in(threefry.key(99), r))(jnp.arange(runs))
    trace = run(keys, jb.SimParams(ep, pp, ()))
    assert np.all(np.asarray(trace.epochs) >= 1)
    a, b = step.final().astype(np.float64), np.asarray(trace.pseudo_regret[:, -1], np.float64)
    se = math.sqrt(a.var(ddof=1) / runs + b.var(ddof=1) / runs)
    assert abs(a.mean() - b.mean()) < 5 * se
    np.testing.assert_array_equal(step.counts.sum(-1), T)
    np.testing.assert_array_equal(np.asarray(trace.counts).sum(-1), T)


# ------------------------------------------------------------------------------------------------ long horizons

def _pareto_stream(n, seed=5):
    x = env_draws("pareto", {"means": [0.9], "v": 0.5}, 0, n, seed=seed).astype(np.float32)
    return np.where(x <= 300.0, x, 0.0).astype(np.float32)  # truncated at B = 300: sums of order 0.85 n


@pytest.mark.parametrize("n", [2 * 10 ** 6, pytest.param(10 ** 7, marks=pytest.mark.slow)])
def test_float32_sums_stay_exact_over_long_streams(n):
    """A stream of n truncated Pareto rewards (float32) summed as the policies sum it: DPRUCB's tree (ε = ∞: the
    exact counter; its p-sums are a blockwise sum) and DPRSE's Kahan-compensated epoch sums, against float64 sums of
    the same float32 values. A plain float32 running sum is off by ~1e-3 relative at 10^7 (asserted, so the test
    would notice if the stream stopped being hard)."""
    x = _pareto_stream(n)
    exact = np.sum(x.astype(np.float64))

    def tree_step(state, xi):
        return counters.tree_insert(state, xi, 0.0, jnp.inf), None

    tree, _ = jax.jit(lambda xs: jax.lax.scan(tree_step, counters.tree_init(levels=counters.LEVELS), xs))(x)
    assert abs(float(counters.tree_release(tree)) - exact) < 1e-6 * exact

    pol, pp = policies.make("dp-rse", 2, epsilon=1.0, v=0.5, u=1.0, horizon=float(n))
    pp = pol.bind_horizon(pp, n)
    inner = pol.init(pp).inner._replace(bound=jnp.float32(1e9))
    rng = StepRandom(jax.random.key(0), jnp.zeros(2))

    def se_step(state, xi):
        return _observe(pol, rng, state, xi, pp), None

    inner, _ = jax.jit(lambda xs: jax.lax.scan(se_step, inner, xs))(x)
    assert abs(float(inner.sums[0] - inner.comp[0]) - exact) < 1e-6 * exact
    naive = jax.jit(lambda xs: jax.lax.scan(lambda c, xi: (c + xi, None), jnp.float32(0), xs)[0])(x)
    if n >= 10 ** 7:
        assert abs(float(naive) - exact) > 1e-4 * exact


def _observe(pol, rng, inner, x, pp):
    """One DPRSE observation of arm 0 (the phased wrapper's `update` minus the phase bookkeeping)."""
    from jaxbandit.policies.phased import PhasedState
    state = PhasedState(inner, jnp.int32(0), jnp.int32(2 ** 31 - 1))
    return pol.update(rng, state, jnp.int32(0), x, pp).inner


def test_sweep_runs_the_epoch_simulation_over_grids_and_reruns_it():
    u5, u9 = he.instance_u(S1, 0.5), he.instance_u(S1, 0.9)
    kwargs = dict(env_params={"means": S1}, policy_params={"theta": 1.0}, horizon=50_000, runs=4, seed=2,
                  grid={("env.v", "policy.v", "policy.u"): [([0.5] * 5, 0.5, u5), ([0.9] * 5, 0.9, u9)],
                        "policy.epsilon": [0.5, 1.0]})
    res = jb.sweep("pareto", "dp-rse", simulator="epochs", progress=False, **kwargs)
    assert res.pseudo_regret.shape == (2, 2, 4, len(res.t)) and res.config["simulator"] == "epochs"
    np.testing.assert_array_equal(res.counts.sum(-1), 50_000)
    # one grid point equals the epoch simulation alone with run r's key
    env, ep = envs.make("pareto", means=S1, v=0.9)
    pol, pp = policies.make("dp-rse", 5, epsilon=0.5, v=0.9, u=u9, theta=1.0)
    one = jax.jit(epochs.rollout(env, pol, horizon=50_000))(jax.random.fold_in(threefry.key(2), 3), jb.SimParams(ep, pp, ()))
    np.testing.assert_allclose(res.pseudo_regret[1, 0, 3], one.pseudo_regret, rtol=1e-6)
    again = jb.rerun(res)
    np.testing.assert_array_equal(again.pseudo_regret, res.pseudo_regret)
    with pytest.raises(ValueError, match="has no epoch-by-epoch simulation"):
        jb.simulate("pareto", "dp-rucb", env_params={"means": S1}, horizon=100, runs=1, simulator="epochs")
    with pytest.raises(ValueError, match="identity privatizer"):
        jb.simulate("bernoulli", "dp-rse", privatizer="linear", env_params={"means": [0.2, 0.5]}, horizon=100,
                    runs=1, simulator="epochs")
    with pytest.raises(ValueError, match="unknown simulator 'fast'; valid names: epochs, steps"):
        jb.simulate("pareto", "dp-rse", env_params={"means": S1}, horizon=100, runs=1, simulator="fast")
    with pytest.raises(ValueError, match="checkpoint"):
        jb.simulate("pareto", "dp-rse", env_params={"means": S1}, horizon=100, runs=1, simulator="epochs",
                    checkpoint="auto")


def test_the_simulator_is_a_component():
    """A spec holds its simulator as an object (`jaxbandit.types.Simulator`), named or given: the epoch simulator
    takes the policies that declare an epoch schedule (`Policy.epochs`) and says why not otherwise; a simulator
    object a user gives runs like the named one and is recorded by its name."""
    from jaxbandit import engine, spec as specs
    epoch_spec = jb.resolve("pareto", "dp-rse", env_params={"means": S1}, horizon=100, simulator="epochs")
    assert epoch_spec.simulator is specs.SIMULATORS["epochs"] is epochs.SIMULATOR and not epoch_spec.simulator.chunked
    assert jb.resolve("pareto", "dp-rse", env_params={"means": S1}, horizon=100).simulator is engine.SIMULATOR
    env, _ = envs.make("pareto", means=S1, v=0.9)
    assert epochs.supports(policies.get("ldp-rse", 5)) and not epochs.supports(policies.get("dp-rucb", 5))
    assert "no epoch-by-epoch simulation" in epochs.unsupported(env, policies.get("dp-rucb", 5))
    assert "5 arms" in epochs.unsupported(envs.make("pareto", means=[0.2, 0.5], v=0.9)[0], policies.get("dp-rse", 5))
    kwargs = dict(env_params={"means": S1}, horizon=100, runs=3, seed=1, progress=False)
    mine = engine.SIMULATOR._replace(name="my-steps")
    a = jb.simulate("pareto", "dp-rse", simulator=mine, **kwargs)
    b = jb.simulate("pareto", "dp-rse", **kwargs)
    np.testing.assert_array_equal(a.pseudo_regret, b.pseudo_regret)
    assert a.config["simulator"] == "my-steps" and "simulator" not in b.config


@pytest.mark.slow
@pytest.mark.parametrize("name,eps", [("dp-rse", 1.0), ("ldp-rse", 10.0)])
def test_pseudo_regret_only_skips_the_undecided_segments_with_the_same_numbers(name, eps, tmp_path):
    """``realized=False``: the last segment (one arm left, or an epoch cut by T) draws nothing, yet the pseudo-regret
    and the pulls equal those of the full simulation bit for bit; the results say that the realized regret was not
    recorded, and save, load and re-run as such. Bernoulli arms, one sweep: spread means (one arm left early: a long
    last segment) and close ones, at ε and ε/20 (no elimination: an epoch cut by T), 64 runs. The close arms' decisions
    are tight: an epoch played one round short without the realized regret changes DPRSE's pseudo-regret in 1 of their
    64 runs at ε and LDPRSE's in 7."""
    spread, close = [0.9, 0.7, 0.5, 0.3, 0.1], [0.6, 0.55, 0.5, 0.45, 0.4]
    kwargs = dict(env_params={"means": spread}, policy_params={"v": 0.9, "u": 1.0, "theta": 0.5, "epsilon": eps},
                  horizon=200_000, runs=64, seed=4, simulator="epochs", progress=False,
                  grid={"env.means": [spread, close], "policy.epsilon": [eps / 20, eps]})
    full = jb.sweep("bernoulli", name, **kwargs)
    pseudo = jb.sweep("bernoulli", name, realized=False, **kwargs)
    np.testing.assert_array_equal(pseudo.pseudo_regret, full.pseudo_regret)
    np.testing.assert_array_equal(pseudo.counts, full.counts)
    assert full.counts[0, 1].max() > 150_000  # spread arms at ε: one arm has most of the pulls, a long last segment
    assert pseudo.regret is None and pseudo.config["realized"] is False and "realized" not in full.config
    assert config_fingerprint(pseudo.config) != config_fingerprint(full.config)  # caches keep them apart
    with pytest.raises(ValueError, match="pseudo-regret only .realized=False"):
        pseudo.mean("regret")
    one = pseudo.sel(**{"env.means": close, "policy.epsilon": eps})
    assert one.summary()["final_realized_regret_mean"] is None
    pseudo.save(str(tmp_path / "r"))
    back = jb.Results.load(str(tmp_path / "r"))
    assert back.regret is None
    np.testing.assert_array_equal(back.pseudo_regret, pseudo.pseudo_regret)
    again = jb.rerun(back)
    assert again.regret is None
    np.testing.assert_array_equal(again.pseudo_regret, pseudo.pseudo_regret)
    # the engine drops its realized regret alike
    steps = jb.simulate("bernoulli", "ucb1", env_params={"means": [0.2, 0.8]}, horizon=60, runs=2, progress=False,
                        realized=False)
    assert steps.regret is None and steps.pseudo_regret.shape == (2, len(steps.t))
    with pytest.raises(ValueError, match="realized='no' must be True"):
        jb.simulate("bernoulli", name, env_params={"means": spread}, policy_params=kwargs["policy_params"],
                    horizon=100, runs=1, realized="no")


@pytest.mark.parametrize("eps,expected", [(1.0, (0.201, 0.174, 0.159)), (0.5, (0.309, 0.348, 0.234))])
def test_fluid_predictions_match_the_spec_table(eps, expected):
    """Spec §6.4: DPRSE with the paper's constants, noise-free, β = 1/T: uniform at T = 10^6 (and at 10^7 for
    v = 0.5); at T = 10^7, v = 0.9 the regret/T of the table (3 decimals)."""
    for means, value in zip((S1, [0.9, 0.55, 0.3, 0.15, 0.1], S3), expected):
        uniform = float(np.mean(max(means) - np.asarray(means)))
        for v in (0.5, 0.9):
            u = he.instance_u(means, v)
            assert epochs.fluid_regret("dp-rse", means, 10 ** 6, v=v, u=u, epsilon=eps)[0] / 1e6 == pytest.approx(
                uniform, abs=1e-9)
        u = he.instance_u(means, 0.5)
        assert epochs.fluid_regret("dp-rse", means, 10 ** 7, v=0.5, u=u, epsilon=eps)[0] / 1e7 == pytest.approx(uniform)
        u = he.instance_u(means, 0.9)
        assert round(float(epochs.fluid_regret("dp-rse", means, 10 ** 7, v=0.9, u=u, epsilon=eps)[0]) / 1e7, 3) == value
    # LDPRSE with its paper constants: uniform up to 10^8 on S3, either variant (spec §7.23)
    u = he.instance_u(S3, 0.9)
    for variant in ("corrected", "printed"):
        assert epochs.fluid_regret("ldp-rse", S3, 10 ** 8, options={"variant": variant}, v=0.9, u=u,
                                   epsilon=20.0)[0] / 1e8 == \
            pytest.approx(0.3)


_LONG_RUN = """
import json, sys
import jax, numpy as np
import jaxbandit as jb
from jaxbandit import envs, policies
from jaxbandit.random import threefry
from jaxbandit import epochs
env, ep = envs.make("two-point", low=0.0, high=[1.0, 0.9, 0.7, 0.95], p_high=1.0)
pol, pp = policies.make("dp-rse", 4, epsilon=1e3, v=1.0, u=1.0, beta=1e-12)
T = 10 ** 7
times = [1000, 10 ** 5, 3 * 10 ** 6, T]
trace = jax.jit(epochs.rollout(env, pol, horizon=T, record_times=times))(threefry.key(0), jb.SimParams(ep, pp, ()))
step = jb.simulate(env, pol, env_params=ep, policy_params=pp, horizon=T, runs=1, seed=0, record=times,
                   progress=False)
print(json.dumps({"dtype": str(trace.regret.dtype), "epochs": [np.asarray(trace.pseudo_regret).tolist(),
                  np.asarray(trace.regret).tolist(), np.asarray(trace.counts).tolist()],
                  "steps": [step.pseudo_regret[0].tolist(), step.regret[0].tolist(), step.counts[0].tolist()]}))
"""


@pytest.mark.slow
def test_ten_million_rounds_in_float32_match_a_float64_run():
    """T = 10^7, deterministic rewards (the decisions do not depend on the random stream, as in
    `test_elimination_rollout_equals_the_step_engine_on_deterministic_rewards`), both simulations: the float32
    run's pulls equal the float64 run's (JAX_ENABLE_X64) and its pseudo- and realized regret agree to 1e-6 relative
    (integer pull counts; Kahan-compensated realized regret over 10^7 rewards of 0.1-ish gaps)."""
    import json
    import os
    import subprocess
    import sys
    out = {}
    for x64 in ("0", "1"):
        env = {**os.environ, "JAX_ENABLE_X64": x64, "JAX_PLATFORMS": "cpu"}
        proc = subprocess.run([sys.executable, "-c", _LONG_RUN], env=env, capture_output=True, text=True, check=True)
        out[x64] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["0"]["dtype"] == "float32" and out["1"]["dtype"] == "float64"
    for sim in ("epochs", "steps"):
        pseudo32, real32, counts32 = out["0"][sim]
        pseudo64, real64, counts64 = out["1"][sim]
        assert counts32 == counts64 and sum(counts32) == 10 ** 7
        np.testing.assert_allclose(pseudo32, pseudo64, rtol=1e-6)
        np.testing.assert_allclose(real32, real64, rtol=1e-6)
        assert counts32[0] > 9.9e6  # the best arm is found and played


@pytest.mark.parametrize("factor,kept", [(0.999, False), (1.001, True)])
def test_dprse_release_noise_has_scale_2B_over_R_epsilon(factor, kept):
    """At an epoch end with equal sums and a unit Laplace draw on arm 0 only, arm 0 leads by exactly the release
    scale b = 2B_τ/(R_τ ε); b·L_τ = 2 err_τ, so the others are eliminated iff θ < 2/L_τ. θ at 0.1% either side of
    2/L_τ tells the scale to 0.1% (a B/(Rε) bug moves the boundary to 1/L_τ)."""
    K, T = 3, 10 ** 6
    pol, pp = policies.make("dp-rse", K, epsilon=0.7, v=0.8, u=2.0, beta=1e-3)
    log_l = math.log(4 * K * 1 / 1e-3)
    pp = pol.bind_horizon(pp._replace(theta=jnp.float32(2 / log_l * factor)), T)
    state = pol.init(pp)
    state = state._replace(count=state.length - 1)  # the epoch's last pull is next: arm K-1 in round-robin
    rng = StepRandom(jax.random.key(0), jnp.array([1.0, 0.0, 0.0]))
    new = pol.update(rng, state, jnp.int32(K - 1), jnp.float32(0.0), pp)
    assert int(new.inner.epoch) == 2
    np.testing.assert_array_equal(new.inner.active, [True, kept, kept])


def test_cli_runs_the_epoch_simulation(tmp_path, capsys):
    from jaxbandit import cli
    base = ["run", "--env", "pareto", "--means", "0.9,0.5", "--env-param", "v=0.9", "--policy-param", "v=0.9",
            "--policy-param", "u=8.142063", "--horizon", "2000", "--runs", "3"]
    out = tmp_path / "r.json"
    assert cli.main(base + ["--policy", "dp-rse", "--policy-param", "theta=0.5", "--simulator", "epochs",
                            "--json", str(out)]) == 0
    import json
    assert json.loads(out.read_text())["horizon"] == 2000
    capsys.readouterr()
    assert cli.main(base + ["--policy", "dp-rucb", "--simulator", "epochs"]) == 2
    assert "no epoch-by-epoch simulation" in capsys.readouterr().err
