"""Private linear bandits (issue 49): JDP-LinUCB (Shariff & Sheffet 2018) — its constants against the paper's
formulas and the authors' printed numbers, its tree of Gram releases, its accountant, its fallback and its
behaviour."""
import math

import numpy as np
import pytest

import jax
import jax.numpy as jnp

import jaxbandit as jb
from jaxbandit import policies
from jaxbandit.accounting import profiles
from jaxbandit.accounting.accountants import Budget
from jaxbandit.mechanisms import counters, gram
from jaxbandit.policies import private_linear
from jaxbandit.policies.private_linear import JDPParams, jdp_constants, tree_size, wishart_dof
from jaxbandit.types import StepRandom, with_context


def _params(**kw):
    base = dict(epsilon=1.0, delta=0.1, alpha=1e-8, horizon=5e7, feature_bound=1.0, reward_bound=1.0,
                noise_scale=1.0, theta_bound=1.0)
    base.update(kw)
    return JDPParams(*(jnp.asarray(np.float64(base[f])) for f in JDPParams._fields))


def _constants(noise, **kw):
    with jax.enable_x64(True):
        return {k: float(v) for k, v in jdp_constants(_params(**kw), 5, noise).items()}


# S&S's experiment 2 (their code's experiment2.jl): d = 5, L̃² = 2, ε = 1, δ = 0.1, T = 5·10⁷, α = 1/(2T); their
# code's per-round failure probability is α' = α/2^⌈log₂T⌉ where the paper's is α/2n, so α = 2n·α' here puts the
# same number in every logarithm (ln(2n/α) = ln(1/α'), ln(8n/α) = ln(4/α')).
T_EXP = 5e7
ALPHA_CODE = (1 / (2 * T_EXP)) / 2 ** 26
ALPHA_SAME = 2 * T_EXP * ALPHA_CODE


def test_tree_size_is_one_plus_ceil_log2():
    for n, m in ((2, 2), (3, 3), (4, 3), (5, 4), (1024, 11), (1025, 12), (int(T_EXP), 27)):
        assert int(tree_size(n)) == m == 1 + math.ceil(math.log2(n))


def test_gaussian_constants_reproduce_the_authors_printed_rho_min():
    """Their notebook prints ρ_min = Υ = 92208.7 for the Gaussian mechanism (cell 12)."""
    c = _constants("gaussian", alpha=ALPHA_SAME)
    assert c["rho_min"] == pytest.approx(92208.7, rel=1e-6)
    assert c["rho_max"] == pytest.approx(3 * c["rho_min"]) and c["shift"] == pytest.approx(2 * c["rho_min"])
    # σ = 4√m L̃² ln(4/δ)/ε per node (S&S §4.2): 153.34 at m = 27
    assert c["scale"] == pytest.approx(4 * math.sqrt(27) * 2 * math.log(40), rel=1e-12)
    assert c["scale"] == pytest.approx(153.34, abs=0.01)


def test_wishart_constants_reproduce_the_authors_printed_rho_min(monkeypatch):
    """Given their code's k = 239 278 (its δ split differs from the paper's: the module docstring), the shifted and
    unshifted ρ_min are their notebook's 2.22336e5 and 1.28101e7 (Proposition 9)."""
    monkeypatch.setattr(private_linear, "wishart_dof", lambda *a: jnp.asarray(239278.0, jnp.float64))
    shifted = _constants("wishart", alpha=ALPHA_SAME)
    unshifted = _constants("wishart-unshifted", alpha=ALPHA_SAME)
    assert shifted["rho_min"] == pytest.approx(2.22336e5, rel=1e-5)
    assert unshifted["rho_min"] == pytest.approx(1.28101e7, rel=1e-5)
    # Eq. (4): the shifted release's regularizer is the unshifted one moved down by c; ρ_max = 2 ρ_min shifted
    assert shifted["rho_max"] == pytest.approx(2 * shifted["rho_min"])
    mk = 27 * 239278
    spread = math.sqrt(5) + math.sqrt(2 * math.log(4 / ALPHA_CODE))
    c = 2 * (math.sqrt(mk) - spread) ** 2 - 4 * 2 * math.sqrt(mk) * spread
    assert -shifted["shift"] == pytest.approx(c, rel=1e-9)


def test_wishart_dof_is_the_drafts_formula():
    """k = d + 1 + ⌈224 m ln(8m/δ) ln(2/δ)/ε²⌉: 139 115 at S&S's experiment (d = 5, m = 27, ε = 1, δ = 0.1)."""
    with jax.enable_x64(True):
        k = float(wishart_dof(jnp.float64(1.0), jnp.float64(0.1), 27, 5))
    assert k == 5 + 1 + math.ceil(224 * 27 * math.log(8 * 27 / 0.1) * math.log(2 / 0.1)) == 139115


def test_clip_row_bounds_the_augmented_row():
    v = gram.clip_row(jnp.asarray([3.0, 4.0]), jnp.asarray(-7.0), 2.0, 1.5)
    np.testing.assert_allclose(np.asarray(v), [1.2, 1.6, -1.5], rtol=1e-6)
    inside = gram.clip_row(jnp.asarray([0.3, 0.4]), jnp.asarray(0.5), 2.0, 1.5)
    np.testing.assert_allclose(np.asarray(inside), [0.3, 0.4, 0.5], rtol=1e-6)


@pytest.mark.parametrize("inserted", [0, 3, 6])
def test_every_release_carries_exactly_m_node_noises(inserted):
    """The padding brings a release to m node noises (S&S's analysis; `gram`): the noise of an off-diagonal entry
    of M̃ − M has variance m σ² whatever the number of live nodes (popcount 0, 2, 2 here)."""
    m, sigma, d, reps = 5, 1.0, 2, 20_000

    def release(key):
        k_nodes, k_pad = jax.random.split(key)
        state = gram.tree_init(d, jnp.float32)
        for i, k in enumerate(jax.random.split(k_nodes, max(inserted, 1))[:inserted]):
            state = gram.tree_insert(state, jnp.zeros(d + 1), gram.node_noise(k, "gaussian", d, sigma, 0.0))
        pad = gram.padding_noise(k_pad, "gaussian", d, sigma, 0.0, m - gram.live_nodes(state))
        return gram.tree_release(state, pad)

    noise = np.asarray(jax.vmap(release)(jax.random.split(jax.random.key(1), reps)), np.float64)
    for (i, j), var in (((0, 1), m * sigma ** 2), ((1, 1), 2 * m * sigma ** 2)):  # (Z + Zᵀ)/√2: 2σ² on the diagonal
        z = (noise[:, i, j].var() - var) / (var * math.sqrt(2 / reps))
        assert abs(z) < 5, (i, j, noise[:, i, j].var(), var)


def test_tree_release_is_the_sum_of_the_live_nodes_noises():
    """Oracle: after each of n = 1..70 insertions, the release's noise is the sum of the noises of the live nodes of
    the binary-tree mechanism, computed by hand (float64): node at level j is live iff bit j of n is set, and it was
    created by row n with its bits below j cleared (its noise was drawn then). A tree that kept an absorbed node's
    noise, or lost a live one, fails."""
    d, rows = 1, 70
    entries = (d + 1) * (d + 2) // 2
    rng = np.random.default_rng(0)
    noises = rng.normal(size=(rows + 1, d + 1, d + 1))
    noises = (noises + np.swapaxes(noises, 1, 2)) / 2  # symmetric, as the node noises are
    state = gram.tree_init(d, jnp.float32, levels=8)
    for n in range(1, rows + 1):
        state = gram.tree_insert(state, jnp.zeros(d + 1), jnp.asarray(noises[n], jnp.float32))
        live = [n >> j << j for j in range(8) if n >> j & 1]  # the row that created each live node
        expected = sum(noises[r] for r in live)
        got = np.asarray(gram.tree_release(state, 0.0), np.float64)
        np.testing.assert_allclose(got, expected, atol=1e-5, err_msg=f"n = {n}")
        assert int(gram.live_nodes(state)) == len(live)
    assert np.asarray(state.live).shape == (entries,)


@pytest.mark.slow  # moments of 8000 Wishart draws (about 5 s)
def test_wishart_padding_brings_the_degrees_of_freedom_to_m_k():
    d, k, count, reps = 2, 20.0, 3, 8_000
    w = np.asarray(jax.vmap(lambda key: gram.padding_noise(key, "wishart", d, 1.0, k, count))(
        jax.random.split(jax.random.key(2), reps)), np.float64)
    mk = count * k
    np.testing.assert_allclose(w.mean(0), mk * np.eye(d + 1), atol=6 * math.sqrt(2 * mk / reps))
    z = (w[:, 0, 0].var() - 2 * mk) / (2 * mk * math.sqrt(2 / reps))
    assert abs(z) < 6


def test_gaussian_claim_is_the_composed_gdp_of_the_nodes_and_below_the_papers():
    policy, params = policies.make("linucb-jdp", 10, dim=5, epsilon=1.0, delta=0.1)
    T = 20_000
    bound = jb.engine.bind(policy, jb.types.SimParams(None, params, None), T).policy
    g = policy.accountant.guarantee(bound, T, 10)
    assert (g.notion, g.scope) == ("gdp", "joint")
    c = jdp_constants(bound, 5, "gaussian")
    assert g.mu == pytest.approx(math.sqrt(counters.tree_levels(T)) * 2 / float(c["scale"]), rel=1e-6)
    assert g.mu == pytest.approx(math.sqrt(15) * 1.0 / (4 * math.sqrt(16) * math.log(40)), rel=1e-5)
    assert g.epsilon_at(0.1) < 1.0  # the paper's (1, 0.1) holds, with room: its split is loose


@pytest.mark.slow  # composed-Wishart bisections on the host (about 5 s)
def test_wishart_claim_meets_the_papers_epsilon_and_calibration_finds_the_boundary():
    policy, params = policies.make("linucb-jdp", 10, {"noise": "wishart"}, dim=5, epsilon=1.0, delta=0.1)
    T = 20_000
    bound = jb.engine.bind(policy, jb.types.SimParams(None, params, None), T).policy
    g = policy.accountant.guarantee(bound, T, 10)
    assert (g.notion, g.scope) == ("approx-dp", "joint")
    assert g.epsilon_at(0.1) <= 1.0 and g.delta_at(1.0) <= 0.1
    budget = Budget(epsilon=1.0, delta=0.1)
    calibrated = policy.accountant.calibrate(bound, T, 10, budget)
    assert policy.accountant.guarantee(calibrated, T, 10).meets(budget)
    assert float(calibrated.epsilon) > 1.0  # less noise than the paper's formula: its split is loose


def _indefinite_state(d):
    state = private_linear.JDPState(gram.tree_init(d, jnp.float32), jnp.zeros((), jnp.int32))
    tree = state.tree
    huge = gram.upper_triangle(-1e9 * jnp.eye(d + 1))  # level 0's live node: a release far from positive definite
    return state._replace(tree=tree._replace(n=jnp.ones_like(tree.n), noise=tree.noise.at[:, 0].add(huge),
                                             live=tree.live + huge))


@pytest.mark.slow  # eager selects and updates (about 3 s cold)
def test_an_indefinite_release_plays_a_random_arm_and_is_counted():
    d, K = 2, 4
    policy, params = policies.make("linucb-jdp", K, dim=d, horizon=100.0, alpha=0.01)
    policy = with_context(policy)
    features = jnp.eye(K, d)
    state = _indefinite_state(d)
    arms = [int(policy.select(StepRandom(jax.random.key(i), jnp.float32(u)), state, params, features))
            for i, u in enumerate((0.05, 0.3, 0.55, 0.8))]
    assert arms == [0, 1, 2, 3]  # ⌊u K⌋: uniform from the step's uniform
    after = policy.update(StepRandom(jax.random.key(0), None), state, jnp.int32(0), jnp.float32(1.0), params,
                          features)
    assert int(after.indefinite) == 1
    fresh = policy.update(StepRandom(jax.random.key(0), None), policy.init(params), jnp.int32(0),
                          jnp.float32(1.0), params, features)
    assert int(fresh.indefinite) == 0


@pytest.mark.slow  # three simulations of 1500 rounds per noise (18 s); the golden and contract cases run it by default
@pytest.mark.parametrize("noise", ["gaussian", "wishart"])
def test_jdp_linucb_learns_as_epsilon_grows(noise):
    """On a random Chowdhury–Zhou instance per run: regret falls as ε grows, and beats uniform play at large ε."""
    env, ep = jb.envs.make("linear", num_arms=20, dim=3, instance="chowdhury-zhou")
    T = 1500
    out = {}
    for eps in (0.2, 1e4):
        r = jb.simulate(env, "linucb-jdp", env_params=ep, policy_options={"noise": noise},
                        policy_params={"epsilon": eps, "feature_bound": math.sqrt(2)}, horizon=T, runs=16, seed=1)
        out[eps] = float(r.mean()[-1])
    uniform = float(jb.simulate(env, "uniform", env_params=ep, horizon=T, runs=16, seed=1).mean()[-1])
    assert out[1e4] < out[0.2] < uniform, (out, uniform)
    # the Gaussian's noise vanishes as ε grows; the Wishart's cannot (k ≥ d + 2 and the shift of Eq. (4) leave a
    # regularizer of order L̃² √(mk) Δ_W ≈ 700 here, larger than the Gram matrix of 1500 rounds)
    assert out[1e4] < (0.5 if noise == "gaussian" else 0.75) * uniform, (out, uniform)


@pytest.mark.parametrize("field, value, message", [
    ("epsilon", 0.0, "epsilon"), ("delta", 1.0, "delta"), ("alpha", 2.0, "alpha"), ("feature_bound", -1.0,
                                                                                        "feature_bound"),
    ("reward_bound", 0.0, "reward_bound"), ("noise_scale", -0.5, "noise_scale"), ("horizon", 1.0, "horizon"),
])
def test_bad_parameters_are_refused_naming_them(field, value, message):
    policy, params = policies.make("linucb-jdp", 4, dim=2)
    with pytest.raises(ValueError, match=message):
        policy.validate(params._replace(**{field: jnp.asarray(value)}))


def test_a_wishart_tree_too_small_for_its_horizon_is_refused_before_running():
    """d = 1, T = 10⁶, ε = 10⁴: k = 3, √(mk) = 7.9 < Δ_W = 1 + √(2 ln(8n/α)) = 8.8 (Proposition 9 needs more)."""
    policy, params = policies.make("linucb-jdp", 4, {"noise": "wishart-unshifted"}, dim=1, epsilon=1e4)
    with pytest.raises(ValueError, match="rho_min"):
        jb.engine.bind(policy, jb.types.SimParams(None, params, None), 10**6)


def test_privacy_command_states_the_joint_claim_and_needs_the_dimension(capsys):
    from jaxbandit.cli import main
    args = ["privacy", "--policy", "linucb-jdp", "--horizon", "20000", "--arms", "100", "--at-delta", "0.1"]
    assert main(args) == 2
    assert "--dim D" in capsys.readouterr().err
    assert main(args + ["--dim", "5"]) == 0
    out = capsys.readouterr().out
    assert "μ-GDP" in out and "joint DP" in out and "(epsilon, delta) = (" in out
    assert main(args + ["--dim", "5", "--policy-option", "noise=wishart"]) == 0
    assert "Wishart(d = 6" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------------- LDP-LinUCB
def test_report_sensitivity_bounds_every_change_of_a_report():
    """Δ = sqrt(2L⁴ + 4L²B̃²) is at least the ℓ2 change of (upper triangle of x xᵀ, y x) over random pairs."""
    rng = np.random.default_rng(0)
    L, B = 1.3, 0.7
    bound = float(gram.report_sensitivity(L, B))
    worst = 0.0
    for _ in range(20_000):
        d = rng.integers(1, 5)
        x, z = (rng.normal(size=d) for _ in range(2))
        x, z = x * L / np.linalg.norm(x) * rng.uniform(0.5, 1), z * L / np.linalg.norm(z) * rng.uniform(0.5, 1)
        y, w = rng.uniform(-B, B, 2)
        iu = np.triu_indices(d)
        change = np.sqrt(np.sum((np.outer(x, x) - np.outer(z, z))[iu] ** 2) + np.sum((y * x - w * z) ** 2))
        worst = max(worst, change)
    assert worst <= bound and worst > 0.75 * bound


def test_local_report_is_the_clipped_statistics_plus_gaussian_noise():
    x, y = jnp.asarray([3.0, 4.0]), jnp.asarray(2.0)
    reps = 20_000
    m, v = jax.vmap(lambda k: gram.local_report(k, x, y, 0.5, 1.0, 1.0))(jax.random.split(jax.random.key(4), reps))
    xc = np.array([0.6, 0.8])
    np.testing.assert_allclose(np.asarray(m).mean(0), np.outer(xc, xc), atol=6 * 0.5 / math.sqrt(reps))
    np.testing.assert_allclose(np.asarray(v).mean(0), xc, atol=6 * 0.5 / math.sqrt(reps))
    np.testing.assert_array_equal(np.asarray(m), np.swapaxes(np.asarray(m), -1, -2))
    assert np.asarray(m)[:, 0, 1].std() == pytest.approx(0.5, rel=0.03)
    assert np.asarray(m)[:, 0, 0].std() == pytest.approx(0.5, rel=0.03)  # not doubled on the diagonal


def test_ldp_sigma_width_and_claim():
    policy, params = policies.make("linucb-ldp", 10, dim=5, epsilon=0.5, delta=0.1, feature_bound=math.sqrt(2))
    T = 20_000
    p = jb.engine.bind(policy, jb.types.SimParams(None, params, None), T).policy
    delta_s = math.sqrt(2 * 4 + 4 * 2)
    sigma = delta_s * math.sqrt(2 * math.log(12.5)) / 0.5
    assert float(private_linear.ldp_sigma(p)) == pytest.approx(sigma, rel=1e-5)
    upsilon, beta = (float(v) for v in private_linear.ldp_width(p, jnp.int32(100), 5))
    u = sigma * 10 * (4 * math.sqrt(5) + 2 * math.log(2 * T * T))  # α = 1/T
    assert upsilon == pytest.approx(u, rel=1e-5)
    lt = math.log(T)
    assert beta == pytest.approx(2 * sigma * math.sqrt(5 * lt) + (math.sqrt(3 * u) + sigma * math.sqrt(500 / u)) * 5 * lt,
                                 rel=1e-5)
    g = policy.accountant.guarantee(p, T, 10)
    assert (g.notion, g.scope) == ("gdp", "report")
    assert g.mu == pytest.approx(delta_s / sigma, rel=1e-5)
    assert g.epsilon_at(0.1) < 0.5  # the classic Gaussian mechanism's σ is (ε, δ)-DP with room


def test_ldp_linucb_sums_reports_and_counts_indefinite_rounds():
    d, K = 2, 3
    policy, params = policies.make("linucb-ldp", K, dim=d, horizon=100.0, epsilon=1e6)
    params = jb.engine.bind(policy, jb.types.SimParams(None, params, None), 100).policy
    policy = with_context(policy)
    features = jnp.asarray([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    state = policy.init(params)
    for t, (arm, r) in enumerate([(0, 1.0), (2, 0.0), (1, 1.0)]):
        state = policy.update(StepRandom(jax.random.key(t), None), state, jnp.int32(arm), jnp.float32(r), params,
                              features)
    X = np.asarray(features)[[0, 2, 1]]
    np.testing.assert_allclose(np.asarray(state.gram), X.T @ X, atol=1e-4)  # σ ≈ 4e-6 at ε = 10⁶
    np.testing.assert_allclose(np.asarray(state.xr), X.T @ np.array([1.0, 0.0, 1.0]), atol=1e-4)
    assert int(state.reports) == 3 and int(state.indefinite) == 0
    bad = state._replace(gram=-1e9 * jnp.eye(d))
    assert int(policy.select(StepRandom(jax.random.key(9), jnp.float32(0.9)), bad, params, features)) == 2
    after = policy.update(StepRandom(jax.random.key(9), None), bad, jnp.int32(0), jnp.float32(1.0), params, features)
    assert int(after.indefinite) == 1


# ----------------------------------------------------------------------------- the elementwise linear algebra
@pytest.mark.parametrize("d", [1, 2, 5, 12, 50])  # unrolled up to linalg.UNROLLED_MAX = 8, loops above
def test_elementwise_cholesky_and_solves_match_numpy(d):
    from jaxbandit.policies import linalg
    rng = np.random.default_rng(d)
    a = rng.normal(size=(d, d))
    spd = a @ a.T + d * np.eye(d)
    chol = np.asarray(jax.jit(linalg.cholesky)(jnp.asarray(spd, jnp.float32)))
    np.testing.assert_allclose(chol, np.linalg.cholesky(spd), rtol=1e-4, atol=1e-5)
    b = rng.normal(size=(d, 7))
    np.testing.assert_allclose(linalg.solve_lower(jnp.asarray(chol), jnp.asarray(b, jnp.float32)),
                               np.linalg.solve(chol, b), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(linalg.solve_upper_transposed(jnp.asarray(chol), jnp.asarray(b[:, 0], jnp.float32)),
                               np.linalg.solve(chol.T, b[:, 0]), rtol=1e-3, atol=1e-4)
    # under vmap with the runs last, as the engine steps policies
    batch = jnp.asarray(np.stack([spd, 2 * spd], -1), jnp.float32)
    out = jax.vmap(linalg.cholesky, in_axes=-1, out_axes=-1)(batch)
    np.testing.assert_allclose(out[..., 1], np.sqrt(2) * np.linalg.cholesky(spd), rtol=1e-4, atol=1e-5)
    features = rng.normal(size=(9, d))
    theta = rng.normal(size=d)
    product = jax.vmap(linalg.matvec, in_axes=(-1, -1), out_axes=-1)(
        jnp.asarray(np.stack([features, -features], -1), jnp.float32), jnp.asarray(np.stack([theta, theta], -1),
                                                                                   jnp.float32))
    np.testing.assert_allclose(product[:, 0], features @ theta, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(product[:, 1], -(features @ theta), rtol=1e-5, atol=1e-5)
    if d > 1:
        bad = spd.copy()
        bad[0, 0] = -1.0
        l, ok = linalg.cholesky_or_identity(jnp.asarray(bad, jnp.float32))
        assert not bool(ok) and np.array_equal(np.asarray(l), np.eye(d))


def test_the_linear_algebra_program_does_not_grow_with_d_squared():
    """Above linalg.UNROLLED_MAX the factorization and the solves are loops: the program at d = 50 is the size of
    d = 9's (unrolled, d = 50 took XLA's compiler past 24 GiB and was killed)."""
    from jaxbandit.policies import linalg

    def size(d):
        f = lambda a, x: linalg.solve_lower(linalg.cholesky(a), x)
        return len(jax.jit(f).lower(jnp.eye(d), jnp.ones((d, 1000))).as_text())

    assert size(50) < 1.2 * size(linalg.UNROLLED_MAX + 1)
