"""Linear and contextual bandits (issue 48): the context in the step protocol, the `linear` environment, LinUCB and
linear Thompson sampling, checked against NumPy computations of the same quantities."""
import numpy as np
import pytest

import jax
import jax.numpy as jnp

import jaxbandit as jb
from jaxbandit import envs, policies
from jaxbandit.engine import run_instance
from jaxbandit.envs.linear import linear_env
from jaxbandit.policies.linear import RidgeState, oful_width, paper_scale
from jaxbandit.random import threefry
from jaxbandit.types import StepRandom, with_context

THETA = [0.2, 0.1, 0.5]
FEATURES = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.6, 0.0, 0.8]]


# ------------------------------------------------------------------------------------------------- environment
@pytest.mark.parametrize("params, message", [
    ({"features": [[1.0, 0.0]], "theta": [0.5, 0.5, 0.1]}, "theta has shape"),
    ({"features": [1.0, 0.0], "theta": [0.5]}, "K × d matrix"),
    ({"features": [[1.0, 0.0], [0.0, 1.0]], "theta": [2.0, 0.1]}, "arm 0 has 2"),
    ({"theta": [0.1, 0.2]}, "needs its number of arms"),
    ({"theta": [0.1, 0.2], "num_arms": 3}, "needs features"),
    ({"features": FEATURES}, "needs theta"),
    ({"num_arms": 5, "theta": [0.1, 0.2], "law": "sphere"}, "cannot give"),
    ({"num_arms": 5, "theta": [0.6, 0.5], "law": "sphere-bias"}, "must lie in [0, 1]"),
    ({"features": FEATURES, "theta": THETA, "law": "sphere"}, "features is not used"),
    ({"num_arms": 2, "dim": 3, "instance": "chowdhury-zhou"}, "at least dim=3"),
    ({"num_arms": 4, "dim": 3, "instance": "chowdhury-zhou", "theta": THETA}, "theta is not used"),
    ({"features": FEATURES, "theta": THETA, "law": "ball"}, "law='ball' is not one of"),
    ({"features": FEATURES, "theta": THETA, "rewards": "gaussian", "noise_std": -1.0}, "noise_std"),
    ({"features": FEATURES, "theta": THETA, "num_arms": 3}, "disagrees"),
    ({"features": "no-such-file.npy", "theta": THETA}, "no such file"),
    ({"num_arms": 5, "dim": 3, "law": "gap", "instance": "unit-theta", "gap": 1.5}, "gap=1.5"),
    ({"num_arms": 5, "theta": [2.0, 0.0, 0.0], "law": "gap", "rewards": "signed"}, "0 < |theta| <= 1"),
    ({"features": FEATURES, "instance": "unit-theta"}, "draws only theta"),
])
def test_linear_env_refuses_bad_parameters_naming_them(params, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        envs.make("linear", **params)


def test_features_from_npy_and_csv_files_equal_inline(tmp_path):
    X = np.array(FEATURES)
    np.save(tmp_path / "arms.npy", X)
    np.savetxt(tmp_path / "arms.csv", X, delimiter=",")
    _, inline = envs.make("linear", features=FEATURES, theta=THETA)
    for name in ("arms.npy", "arms.csv"):
        _, p = envs.make("linear", features=str(tmp_path / name), theta=THETA)
        np.testing.assert_array_equal(p.features, inline.features)


def test_fixed_features_give_fixed_means_and_a_context_each_round():
    env, p = envs.make("linear", features=FEATURES, theta=THETA)
    assert env.dim == 3 and env.num_arms == 4
    np.testing.assert_allclose(env.means(p), np.array(FEATURES) @ np.array(THETA), rtol=1e-6)
    np.testing.assert_array_equal(env.context(StepRandom(jax.random.key(0), None), p), p.features)
    logistic, q = envs.make("linear", features=FEATURES, theta=THETA, link="logistic")
    np.testing.assert_allclose(logistic.means(q), 1 / (1 + np.exp(-np.array(FEATURES) @ np.array(THETA))),
                               rtol=1e-6)


@pytest.mark.parametrize("law", ["sphere", "sphere-bias"])
def test_per_round_features_follow_their_law(law):
    theta = [0.1, 0.2, 0.5]
    env, p = envs.make("linear", num_arms=200, theta=theta, law=law, rewards="gaussian")
    assert env.means is None
    x = np.asarray(env.context(StepRandom(jax.random.key(3), None), p))
    assert x.shape == (200, 3)
    if law == "sphere":
        np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1, rtol=1e-5)
    else:
        np.testing.assert_array_equal(x[:, -1], 1)
        np.testing.assert_allclose(np.linalg.norm(x[:, :-1], axis=1), 1, rtol=1e-5)
    # uniform on the sphere: each coordinate has mean 0 (200 draws: |mean| < 6 sigma with sigma = 1/sqrt(200 * d'))
    d_sphere = 3 if law == "sphere" else 2
    assert np.all(np.abs(x[:, :d_sphere].mean(0)) < 6 / np.sqrt(200 * d_sphere))
    np.testing.assert_allclose(env.expected(p, jnp.asarray(x)), x @ np.array(theta, np.float32), rtol=1e-5)


def test_chowdhury_zhou_instance_per_run():
    env, p = envs.make("linear", num_arms=10, dim=4, instance="chowdhury-zhou")
    keys = jb.run_keys(0, 3) if hasattr(jb, "run_keys") else jax.vmap(jax.random.fold_in, in_axes=(None, 0))(
        threefry.key(0), jnp.arange(3))
    insts = [run_instance(env, keys[r], p) for r in range(3)]
    again = run_instance(env, keys[0], p)
    np.testing.assert_array_equal(insts[0].features, again.features)  # a run's instance depends on its key only
    assert not np.array_equal(insts[0].theta, insts[1].theta)
    for inst in insts:
        X, th = np.asarray(inst.features), np.asarray(inst.theta)
        basis = np.eye(4)
        basis[:, -1] = 1
        np.testing.assert_array_equal(X[:4], basis)  # the script's basis rows (e_i + e_d, and e_d)
        np.testing.assert_array_equal(X[:, -1], 1)
        np.testing.assert_allclose(np.linalg.norm(X[4:, :-1], axis=1), 1, rtol=1e-5)
        assert th[-1] == 0.5 and np.isclose(np.linalg.norm(th[:-1]), 0.5, rtol=1e-5)
        mu = X @ th
        assert np.all((mu >= 0) & (mu <= 1))


def test_shariff_sheffet_gap_arms_follow_their_law():
    """One arm at ⟨θ, x⟩ = 3/4, the others uniform on the sphere conditioned on [−3/4, 3/4 − Δ] (density ∝ 1 − h²
    for d = 5), all unit; θ uniform on the unit sphere per run; ±1 rewards with the arm's mean."""
    from jaxbandit.envs.linear import _gap_arms
    env, p = envs.make("linear", num_arms=25, dim=5, law="gap", rewards="signed", instance="unit-theta", gap=0.5)
    p = env.instance(jax.random.PRNGKey(0), p)
    assert np.linalg.norm(p.theta) == pytest.approx(1, rel=1e-6)
    arms = jax.vmap(lambda k: _gap_arms(k, 25, 5, p.theta, 0.5))(jax.random.split(jax.random.PRNGKey(1), 6_000))
    proj = np.sort(np.asarray(arms @ p.theta), axis=1)
    np.testing.assert_allclose(np.linalg.norm(arms, axis=-1), 1, atol=1e-5)
    np.testing.assert_allclose(proj[:, -1], 0.75, atol=1e-5)
    assert proj[:, -2].max() <= 0.25 + 1e-5 and proj[:, 0].min() >= -0.75 - 1e-5
    edges = np.linspace(-0.75, 0.25, 11)
    counts, _ = np.histogram(proj[:, :-1], edges)
    cdf = edges - edges ** 3 / 3
    np.testing.assert_allclose(counts / counts.sum(), np.diff(cdf) / (cdf[-1] - cdf[0]), atol=0.005)
    u = jnp.linspace(0.0005, 0.9995, 1000)
    feats = jnp.asarray(arms[0])
    rewards = jax.vmap(lambda v: env.sample(StepRandom(None, v), jnp.int32(3), p, feats))(u)
    assert set(np.unique(rewards)) <= {-1.0, 1.0}
    assert float(rewards.mean()) == pytest.approx(float(feats[3] @ p.theta), abs=0.003)


# --------------------------------------------------------------------------------------------------- the engine
def test_per_step_pseudo_regret_equals_the_exact_count_sum():
    """The per-step (Kahan-summed) pseudo-regret of a contextual run and the exact sum over pull counts agree on
    fixed features: the same environment with `means` hidden forces the per-step path."""
    env, p = envs.make("linear", features=FEATURES, theta=THETA)
    hidden = env._replace(means=None)
    out = [jb.simulate(e, "linucb", env_params=p, horizon=437, runs=8, seed=1, progress=False)
           for e in (env, hidden)]
    np.testing.assert_array_equal(out[0].counts, out[1].counts)  # the same choices
    np.testing.assert_array_equal(out[0].regret, out[1].regret)  # and the same realized regret
    np.testing.assert_allclose(out[0].pseudo_regret, out[1].pseudo_regret, rtol=1e-5, atol=1e-5)


def test_contextual_policy_needs_a_contextual_environment():
    with pytest.raises(ValueError, match="contextual environment|contextual: it needs"):
        jb.simulate("bernoulli", "linucb", env_params={"means": [0.2, 0.5]}, horizon=10, runs=2)
    with pytest.raises(ValueError, match="is contextual"):
        policies.get("lin-ts", 3)


def test_context_free_policy_runs_on_a_linear_environment():
    res = jb.simulate("linear", "ucb1", env_params={"features": FEATURES, "theta": THETA}, horizon=200, runs=4,
                      progress=False)
    assert res.counts.sum(-1).tolist() == [200] * 4


def test_with_context_adapts_context_free_components_without_changing_them():
    pol = policies.get("ucb1", 3)
    adapted = with_context(pol)
    state = pol.init(pol.default_params)
    rng = StepRandom(None, jnp.float32(0.3))
    assert int(adapted.select(rng, state, pol.default_params, "ignored")) == int(pol.select(rng, state,
                                                                                            pol.default_params))
    lin = policies.get("linucb", 3, dim=2)
    assert with_context(lin) is lin


@pytest.mark.slow  # two simulations of 40 runs (about 5 s); the golden cases run both policies by default
def test_linear_learners_beat_uniform_on_a_random_instance_per_run():
    kw = dict(env_params={"num_arms": 20, "dim": 5, "instance": "chowdhury-zhou"}, horizon=1000, runs=40, seed=2,
              progress=False)
    uniform = jb.simulate("linear", "uniform", **kw)
    for name in ("linucb", "lin-ts"):
        res = jb.simulate("linear", name, **kw)
        # the learners' regret is a fraction of uniform play's (measured: about 0.2 and 0.1 of it at T = 1000)
        assert res.mean()[-1] + 4 * res.se()[-1] < 0.5 * (uniform.mean()[-1] - 4 * uniform.se()[-1]), name


# --------------------------------------------------------------------------------------------------- the policies
def _ridge_stream(d=5, steps=3000, ridge=1.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(steps, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    r = rng.random(steps)
    return X, r


def test_ridge_statistics_are_the_sums_and_their_width_the_theorems():
    d, steps, ridge = 5, 3000, 0.5
    X, r = _ridge_stream(d, steps)
    pol, params = policies.make("linucb", 1, dim=d, ridge=ridge, delta=0.05)
    update = jax.jit(lambda s, x, y: with_context(pol).update(None, s, jnp.int32(0), y, params, x[None]))
    state = pol.init(params)
    for x, y in zip(X.astype(np.float32), r.astype(np.float32)):
        state = update(state, x, y)
    V = ridge * np.eye(d) + X.T @ X
    np.testing.assert_allclose(state.gram, V, rtol=1e-5, atol=1e-3)  # float32 sums of 3000 rounds
    np.testing.assert_allclose(state.xr, X.T @ r, rtol=1e-4)
    logdet = np.linalg.slogdet(V)[1] - d * np.log(ridge)
    np.testing.assert_allclose(oful_width(state, params), 0.5 * np.sqrt(2 * np.log(20) + logdet) + np.sqrt(ridge),
                               rtol=1e-4)


@pytest.mark.slow  # two simulations of 8 runs × 10⁶ rounds (about a minute)
def test_linucb_in_float32_keeps_float64s_regret_over_long_runs():
    """Over 10⁶ rounds of Chowdhury & Zhou's instance (their λ = 10⁻⁴), float32 LinUCB stays where float64 is: its V_t
    is Kahan-summed and factored afresh each round. Sherman–Morrison updates of V⁻¹, or a plain float32 sum of V,
    gave a mean final regret about 6× float64's (19 700 against 3 400 on these runs)."""
    import subprocess
    import sys
    code = ("import sys, math, numpy as np, jax\n"
            "jax.config.update('jax_enable_x64', sys.argv[1] == '64')\n"
            "import jaxbandit as jb\n"
            "r = jb.simulate('linear', 'linucb', env_params={'num_arms': 100, 'dim': 5, 'instance': 'chowdhury-zhou'},"
            " policy_params={'ridge': 1e-4, 'beta': 8.1}, policy_options={'width': 'constant'}, horizon=1_000_000,"
            " runs=8, seed=0, progress=False)\n"
            "print(repr(np.asarray(r.final()).ravel().tolist()))\n")
    out = {bits: np.asarray(eval(subprocess.run([sys.executable, "-c", code, bits], capture_output=True, text=True,
                                                check=True).stdout.strip().splitlines()[-1]))
           for bits in ("32", "64")}
    assert out["32"].mean() < 1.5 * out["64"].mean(), out


def test_linucb_index_is_the_oful_index():
    d, K = 4, 30
    rng = np.random.default_rng(1)
    X, r = _ridge_stream(d, 50, seed=1)
    V = np.eye(d) + X.T @ X
    state = RidgeState(jnp.asarray(V, jnp.float32), jnp.asarray(X.T @ r, jnp.float32), jnp.zeros((d, d)),
                       jnp.zeros(d))
    features = rng.normal(size=(K, d))
    pol, params = policies.make("linucb", K, dim=d, delta=0.05, noise_scale=0.5, theta_bound=2.0)
    beta = 0.5 * np.sqrt(2 * np.log(1 / 0.05) + np.linalg.slogdet(V)[1]) + 1.0 * 2.0  # Theorem 2's radius
    np.testing.assert_allclose(oful_width(state, params), beta, rtol=1e-5)
    Vinv = np.linalg.inv(V)
    index = features @ (Vinv @ (X.T @ r)) + beta * np.sqrt(np.sum((features @ Vinv) * features, axis=1))
    arm = pol.select(StepRandom(None, jnp.float32(0.5)), state, params, jnp.asarray(features, jnp.float32))
    assert int(arm) == int(np.argmax(index))


def test_lin_ts_samples_the_posterior_it_states():
    """θ̃ = θ̂ + v C⁻ᵀ z with V = C Cᵀ (C⁻ᵀ C⁻¹ = V⁻¹): over many z, the index of the arms e_i has mean θ̂_i and variance v² V⁻¹_ii
    (4000 draws; bounds at about 6 standard errors)."""
    d = 3
    X, r = _ridge_stream(d, 40, seed=2)
    V = np.eye(d) + X.T @ X
    Vinv = np.linalg.inv(V)
    state = RidgeState(jnp.asarray(V, jnp.float32), jnp.asarray(X.T @ r, jnp.float32), jnp.zeros((d, d)),
                       jnp.zeros(d))
    pol, params = policies.make("lin-ts", d, dim=d, scale=0.7)
    draws = 4000
    z = jax.random.normal(jax.random.key(0), (draws, d))
    C = np.linalg.cholesky(V)  # V = C Cᵀ: C⁻ᵀ z has covariance V⁻¹
    theta_tilde = Vinv @ (X.T @ r) + 0.7 * np.linalg.solve(C.T, np.asarray(z, np.float64).T).T
    assert np.all(np.abs(theta_tilde.mean(0) - Vinv @ (X.T @ r)) < 6 * 0.7 * np.sqrt(np.diag(Vinv) / draws))
    np.testing.assert_allclose(np.cov(theta_tilde.T), 0.49 * Vinv, atol=6 * 0.49 * np.max(Vinv) * np.sqrt(2 / draws))
    # the policy picks the argmax of x_a·θ̃ for the same z
    feats = jnp.eye(d)
    arms = jax.vmap(lambda zz: pol.select(StepRandom(None, (zz, jnp.float32(0.5))), state, params, feats))(z)
    np.testing.assert_array_equal(np.asarray(arms), np.argmax(theta_tilde, axis=1))


def test_lin_ts_paper_scale():
    pol, params = policies.make("lin-ts", 3, dim=5, options={"scale": "paper"}, noise_scale=0.5, delta=0.01,
                                paper_epsilon=0.5)
    np.testing.assert_allclose(paper_scale(params, 5), 0.5 * np.sqrt(24 * 5 * np.log(100) / 0.5), rtol=1e-6)


@pytest.mark.parametrize("name, bad, message", [
    ("linucb", {"ridge": 0.0}, "ridge"), ("linucb", {"delta": 1.0}, "delta"), ("linucb", {"beta": -1.0}, "beta"),
    ("lin-ts", {"scale": -0.1}, "scale"), ("lin-ts", {"paper_epsilon": 1.5}, "paper_epsilon"),
])
def test_linear_policies_refuse_bad_parameters(name, bad, message):
    with pytest.raises(ValueError, match=message):
        jb.simulate("linear", name, env_params={"features": FEATURES, "theta": THETA}, policy_params=bad,
                    horizon=10, runs=2)


def test_delta_defaults_to_one_over_the_horizon():
    spec = jb.resolve("linear", "linucb", env_params={"features": FEATURES, "theta": THETA}, horizon=400)
    assert float(spec.params.policy.delta) == np.float32(1 / 400)


# ------------------------------------------------------------------------------------------------------ the bound
def test_oful_bound_is_theorem_3_and_lists_for_linucb():
    from jaxbandit import theory
    n, d, lam, delta, R, S = 20000.0, 5, 1.0, 0.01, 0.5, 1.0
    want = 4 * np.sqrt(n * d * np.log(lam + n / d)) * (
        np.sqrt(lam) * S + R * np.sqrt(2 * np.log(1 / delta) + d * np.log(1 + n / (lam * d))))
    assert theory.oful_bound(n, d, lam, delta, R, S) == pytest.approx(want, rel=1e-12)
    # L^2 where the paper prints L (equal at L = 1); lambda >= max(1, L^2) or not applicable
    assert theory.oful_bound(n, d, 2.0, delta, R, S, feature_bound=np.sqrt(2)) == pytest.approx(
        4 * np.sqrt(n * d * np.log(2 + 2 * n / d)) * (np.sqrt(2) * S + R * np.sqrt(
            2 * np.log(1 / delta) + d * np.log(1 + 2 * n / (2 * d)))), rel=1e-12)
    with pytest.raises(theory.NotApplicable, match="ridge"):
        theory.oful_bound(n, d, 1.0, delta, R, S, feature_bound=np.sqrt(2))
    values = theory.evaluate("linear", "linucb", horizon=2000, env_params={"features": FEATURES, "theta": THETA})
    (value,) = values
    assert value.bound.name == "oful-thm3"
    assert value.value == pytest.approx(theory.oful_bound(2000, 3, 1.0, np.float32(1 / 2000), 0.5, 1.0), rel=1e-6)
    (constant,) = theory.evaluate("linear", "linucb", horizon=2000, policy_options={"width": "constant"},
                                  env_params={"features": FEATURES, "theta": THETA})
    assert constant.value is None and "width" in constant.reason


@pytest.mark.slow
def test_linucb_regret_stays_under_the_oful_bound():
    """Simulated mean regret + 4 SE under Theorem 3's value (unit features on the sphere, Gaussian rewards with
    R = 0.5, ‖θ‖ = 0.8 <= S = 1, δ = 1/T)."""
    from jaxbandit import theory
    theta = [0.8, 0.0, 0.0, 0.0, 0.0]
    kw = dict(env_params={"num_arms": 50, "theta": theta, "law": "sphere", "rewards": "gaussian", "noise_std": 0.5},
              horizon=5000, runs=100, seed=3, progress=False)
    res = jb.simulate("linear", "linucb", **kw)
    bound = theory.oful_bound(5000, 5, 1.0, 1 / 5000, 0.5, 1.0)
    assert res.mean()[-1] + 4 * res.se()[-1] < bound


def test_a_contextual_privatizer_receives_the_round_context():
    """A channel that reports the pulled arm's first feature instead of its reward (declared contextual): UCB1,
    which learns from the reports, then favours the arm of the largest first feature (arm 0), not the arm of the
    best mean (arm 2)."""
    from jaxbandit.policies.linear import pick_row
    from jaxbandit.types import EmptyParams, Privatizer, no_draw, no_validate
    report_feature = Privatizer(name="first-feature", draw=no_draw, validate=no_validate, default_params=EmptyParams(),
                                apply=lambda rng, arm, reward, params, context: pick_row(context, arm)[0],
                                contextual=True)
    features = [[0.9, 0.0, 0.0], [0.5, 0.0, 0.2], [0.0, 0.0, 1.0]]
    kw = dict(env_params={"features": features, "theta": [0.1, 0.1, 0.8]}, horizon=600, runs=4, progress=False)
    plain = jb.simulate("linear", "ucb1", **kw)
    reported = jb.simulate("linear", "ucb1", privatizer=report_feature, **kw)
    assert np.all(np.argmax(plain.counts, axis=-1) == 2)
    assert np.all(np.argmax(reported.counts, axis=-1) == 0)
    with pytest.raises(ValueError, match="privatizer 'first-feature' needs a context"):
        jb.simulate("bernoulli", "ucb1", privatizer=report_feature, env_params={"means": [0.2, 0.5]}, horizon=10,
                    runs=2)


@pytest.mark.slow  # three batch sizes compiled (about 5 s)
def test_a_runs_numbers_do_not_depend_on_how_many_runs_share_its_batch():
    """XLA's CPU code computes the last runs of a batch that is not a multiple of its vector width in a scalar
    remainder loop whose rounding differed from the vector loop's in the ridge update (V⁻¹ of runs 96–99 of a
    device's 100 differed from the same runs among 200, and one linear-TS run of 200 left its trajectory at
    t ≈ 14 000 on 2 devices). The drivers pad every device's batch to a multiple of `simulation.LANES`: the first 100
    runs' final states are the same in a batch of 100 and of 200 (without the padding, runs 96–99 differ here)."""
    from jaxbandit import simulation
    spec = jb.resolve("linear", "lin-ts", env_params={"num_arms": 100, "dim": 5, "law": "sphere", "link": "logistic",
                                                      "theta": [5 ** -0.5] * 5}, horizon=300)
    a, b = simulation.final_state(spec, 100, seed=0), simulation.final_state(spec, 200, seed=0)
    for x, y in zip(jax.tree.leaves(a.run), jax.tree.leaves(b.run)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y)[..., :100])
