"""Seed 003's policies (jaxbandit.policies.ftpl): DP-FTPL-Gauss, -Beta, -New (Algorithms 1-3) and GDP-Elim-New
(Algorithm 4) against the paper: start phases in block order, the law of each step's choice against an exact
integral computed here in float64 from the paper's formulas (not the library's), GDP-Elim-New's phase lengths and
commit, the horizon known to the algorithm, the privacy claims, an empirical audit of DP-FTPL-New's step that a
planted bug fails, and clear errors."""
import json
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate, stats

import jaxbandit as jb
from jaxbandit import cli, policies
from jaxbandit.random import threefry
from jaxbandit.policies import ftpl
from jaxbandit.policies.phased import PhasedState
from jaxbandit.audit.montecarlo import clopper_pearson
from jaxbandit.types import StepRandom
from tests.helpers import Z, default_subset

MEANS = [0.3, 0.5, 0.7]


def _record(horizon):
    return np.arange(1, horizon + 1)


@pytest.mark.parametrize("name, pulls", default_subset([("dp-ftpl-gauss", 8), ("dp-ftpl-beta", 827)],
                                                       [("dp-ftpl-gauss", 8)], several=True))
def test_start_phase_pulls_each_arm_in_block_order(name, pulls):
    """⌈N_G*(1, .01)⌉ = ⌈7.68⌉ = 8 and ⌈N_B*(1, .01)⌉ = ⌈826.9⌉ = 827 pulls of arm 0, then arm 1, ... (spec §5's
    table): the regret curve is exactly the block-order ramp, the same in every run."""
    K = len(MEANS)
    start = pulls * K
    res = jb.simulate("bernoulli", name, env_params={"means": MEANS}, policy_params={"epsilon": 1.0, "delta": 0.01},
                      horizon=start + 10, runs=4, seed=1, record=_record(start + 10), progress=False)
    gaps = max(MEANS) - np.asarray(MEANS)
    ramp = np.cumsum(np.repeat(gaps, pulls))
    np.testing.assert_allclose(res.pseudo_regret[:, :start], np.broadcast_to(ramp, (4, start)), rtol=1e-6)
    assert int(ftpl.start_pulls(name, 1.0, 0.01)) == pulls


def test_new_pulls_each_arm_once_then_samples():
    res = jb.simulate("bernoulli", "dp-ftpl-new", env_params={"means": MEANS}, horizon=50, runs=8, seed=2,
                      record=_record(50), progress=False)
    gaps = max(MEANS) - np.asarray(MEANS)
    np.testing.assert_allclose(res.pseudo_regret[:, :3], np.broadcast_to(np.cumsum(gaps), (8, 3)))
    assert res.pseudo_regret[:, 3:].std(axis=0).max() > 0  # sampling starts at once: runs differ after K steps


# ------------------------------------------------------------------ the law of one step, against exact integrals

def new_cdf_paper(x, n, x0, eps, delta):
    """Lemma 15's CDF, written as the paper writes it (four pieces; δ > 0, ε > 0), float64."""
    A = (math.expm1(eps)) / (2 * delta) + 1
    half = math.log(A) / (n * eps)
    if x < x0 - half:
        return 0.0
    if x <= x0:
        return delta * (A * math.exp(n * eps * (x - x0)) - 1) / math.expm1(eps)
    if x <= x0 + half:
        return 1 - delta * (A * math.exp(n * eps * (x0 - x)) - 1) / math.expm1(eps)
    return 1.0


def new_pdf_paper(x, n, x0, eps, delta):
    A = (math.expm1(eps)) / (2 * delta) + 1
    half = math.log(A) / (n * eps)
    return delta * A / math.expm1(eps) * n * eps * math.exp(-n * eps * abs(x - x0)) if abs(x - x0) <= half else 0.0


def _choice_frequency(policy, state, params, n=60_000, seed=3, arm=0):
    keys = jax.random.split(threefry.key(seed), n)

    def one(k):
        noise = jax.tree.map(lambda x: x[0], policy.draw(k, 1, params))
        return policy.select(StepRandom(k, noise), state, params)

    arms = np.asarray(jax.jit(jax.vmap(one))(keys))
    return float(np.mean(arms == arm)), n


def _assert_probability(freq, n, exact, what):
    se = math.sqrt(exact * (1 - exact) / n)
    assert abs(freq - exact) < Z * se, f"{what}: frequency {freq:.5f} vs exact {exact:.5f} (z = {(freq - exact) / se:.2f})"


def _state(name, ones, counts, params):
    """A state past the start phase (``step`` counts rounds played)."""
    policy = policies.get(name, len(counts))
    state = policy.init(params)._replace(ones=jnp.asarray(ones, jnp.float32), counts=jnp.asarray(counts, jnp.int32),
                                         step=jnp.asarray(min(sum(counts), 2 ** 31 - 1), jnp.int32))
    return policy, state


def test_gauss_step_draws_normal_perturbations():
    """θ_i ~ N(R_i/n_i, 2/n_i) (Algorithm 1): P(arm 0) = Φ((μ̂_0 − μ̂_1)/sqrt(2/n_0 + 2/n_1))."""
    params = jb.checks.with_params(policies.get("dp-ftpl-gauss", 2), epsilon=1.0, delta=0.01)
    policy, state = _state("dp-ftpl-gauss", [8, 15], [20, 30], params)
    exact = stats.norm.cdf((8 / 20 - 15 / 30) / math.sqrt(2 / 20 + 2 / 30))
    _assert_probability(*_choice_frequency(policy, state, params), exact, "dp-ftpl-gauss")


def test_beta_step_draws_with_pseudo_counts():
    """θ_i ~ Beta(R_i + 1 + k_i, n_i − R_i + 1 + k_i), k_i = ⌊n_i/8⌋ + 1 (Algorithm 2), past the start phase of
    ⌈N_B*(1, .01)⌉ = 827 pulls per arm."""
    params = jb.checks.with_params(policies.get("dp-ftpl-beta", 2), epsilon=1.0, delta=0.01)
    ones, counts = [400, 480], [900, 1000]
    policy, state = _state("dp-ftpl-beta", ones, counts, params)

    def p_arm0(k):
        a = [r + 1 + kk for r, kk in zip(ones, k)]
        b = [n - r + 1 + kk for r, n, kk in zip(ones, counts, k)]
        return integrate.quad(lambda x: stats.beta(a[0], b[0]).pdf(x) * stats.beta(a[1], b[1]).cdf(x), 0, 1,
                              limit=200, points=[0.45])[0]

    exact = p_arm0([900 // 8 + 1, 1000 // 8 + 1])
    freq, n = _choice_frequency(policy, state, params)
    _assert_probability(freq, n, exact, "dp-ftpl-beta")
    # without the pseudo-counts the law differs by far more than the test's resolution
    assert abs(p_arm0([0, 0]) - exact) > 10 * math.sqrt(exact * (1 - exact) / n)


@pytest.mark.parametrize("eps, delta", [(1.0, 0.01), (0.5, 0.2)])
def test_new_step_draws_the_truncated_laplace_law(eps, delta):
    """θ_i ~ D(n_i; x0_i, ε, δ) with x0_i = μ̂_i + sqrt(log T/n_i) + L_T/(n_i ε) (Algorithm 3), T = 1000."""
    T = 1000.0
    params = jb.checks.with_params(policies.get("dp-ftpl-new", 2), epsilon=eps, delta=delta, horizon=T)
    ones, counts = [8, 15], [20, 30]
    policy, state = _state("dp-ftpl-new", ones, counts, params)
    L = math.log((T * math.expm1(eps) + 2 * T * delta) / (2 * math.expm1(eps) + 2 * T * delta))
    x0 = [r / n + math.sqrt(math.log(T) / n) + L / (n * eps) for r, n in zip(ones, counts)]
    lo = min(x0) - 2
    exact = integrate.quad(lambda x: new_pdf_paper(x, counts[0], x0[0], eps, delta)
                           * new_cdf_paper(x, counts[1], x0[1], eps, delta), lo, max(x0) + 2, limit=400,
                           points=sorted(x0))[0]
    _assert_probability(*_choice_frequency(policy, state, params), exact, "dp-ftpl-new")


def test_new_knows_the_horizon():
    """T enters log T and L_T: horizon = 0 (default) is the run's T; another T changes the choices."""
    kw = dict(env="bernoulli", env_params={"means": MEANS}, horizon=400, runs=6, seed=4, progress=False)
    default = jb.simulate(policy="dp-ftpl-new", **kw)
    explicit = jb.simulate(policy="dp-ftpl-new", policy_params={"horizon": 400.0}, **kw)
    other = jb.simulate(policy="dp-ftpl-new", policy_params={"horizon": 1e6}, **kw)
    np.testing.assert_array_equal(default.counts, explicit.counts)
    assert not np.array_equal(default.counts, other.counts)


# ------------------------------------------------------------------------------------------------ GDP-Elim-New

def _elim_params(eps, delta, T):
    return jb.checks.with_params(policies.get("gdp-elim-new", 2), epsilon=eps, delta=delta, horizon=T)


def test_elim_phase_lengths():
    """Spec §3.4's example (ε = 1, δ = 0.01, T = 10⁶), and the ε = 0 and δ = 0 limits of Algorithm 4, line 4."""
    p = _elim_params(1.0, 0.01, 1e6)
    got = [int(ftpl.elim_phase_pulls(jnp.asarray(k), p)) for k in range(1, 7)]
    assert got == [1769, 7074, 28295, 113177, 452707, 1810827]
    T = 1e4
    for eps, delta in [(0.0, 0.01), (0.05, 0.0), (0.01, 1e-3)]:
        for k in (1, 3):
            gap = 2.0 ** -k
            if eps == 0:
                radius = (T * T - 2) / (T * T * delta)
            else:
                radius = math.log((T * T * math.expm1(eps) + T * T * delta) / (2 * math.expm1(eps) + T * T * delta)) / eps
            want = math.ceil(max(32 * math.log(T) / gap ** 2, 4 * radius / gap))
            assert int(ftpl.elim_phase_pulls(jnp.asarray(k), _elim_params(eps, delta, T))) == pytest.approx(want, abs=1)


@pytest.mark.slow
def test_elim_commits_to_the_best_arm_on_an_easy_instance():
    """μ = (0.9, 0.1), (ε, δ) = (1, 0.01), T = 10⁶: commits to the best arm by phase 2 (2Δ(2) = 0.5 ≤ 0.8) in
    ≥ 1 − 4N/T of runs, after ≤ 2·(1769 + 7074) = 17686 exploration pulls (spec §6.12). Simulated to t = 20000
    with T = 10⁶ known to the algorithm; phase 1 is 2·1769 round-robin pulls."""
    res = jb.simulate("bernoulli", "gdp-elim-new", env_params={"means": [0.9, 0.1]},
                      policy_params={"epsilon": 1.0, "delta": 0.01, "horizon": 1e6}, horizon=20_000, runs=200,
                      seed=5, record=np.array([2 * 1769, 20_000]), progress=False)
    np.testing.assert_allclose(res.pseudo_regret[:, 0], 1769 * 0.8, rtol=1e-6)  # round-robin phase 1
    assert np.all(res.counts[:, 1] <= 1769 + 7074) and np.all(res.counts[:, 1] >= 1769)


@pytest.mark.parametrize("eps, delta", [(1.0, 0.2), (0.5, 0.4)])
def test_elim_release_commits_with_the_exact_probability(eps, delta):
    """At a phase end θ_i ~ D(N; μ̂_i, ε, δ/2) (Algorithm 4, line 6: δ/2), and the commit to arm 0 happens when
    θ_0 ≥ θ_1 + 2^-k: its frequency equals the integral of the paper's law at δ/2, and differs from the one at δ
    (a planted δ-for-δ/2 bug) by far more than the test's resolution."""
    N, sums = 20, [14.0, 5.0]  # μ̂ = (0.7, 0.25), Δ(1) = 0.5
    policy = policies.get("gdp-elim-new", 2)
    params = _elim_params(eps, delta, 1e6)
    inner = ftpl.ElimState(jnp.asarray(sums), jnp.zeros(2), jnp.asarray(1, jnp.int32), jnp.asarray(N, jnp.int32),
                           jnp.asarray(-1, jnp.int32))
    state = PhasedState(inner, jnp.asarray(2 * N - 1, jnp.int32), jnp.asarray(2 * N, jnp.int32))
    keys = jax.random.split(threefry.key(7), 60_000)

    def one(k):
        rng = StepRandom(k, policy.draw(k, 1, params)[0])
        return policy.update(rng, state, jnp.int32(1), jnp.float32(0.0), params).inner

    after = jax.jit(jax.vmap(one))(keys)
    committed = np.asarray(after.committed)
    assert set(np.unique(committed)) <= {-1, 0, 1}
    # the next phase starts on fresh data: phase 2, N(2) pulls, this phase's sums forgotten
    np.testing.assert_array_equal(after.sums, 0)
    assert set(np.asarray(after.phase)) == {2}
    assert set(np.asarray(after.pulls)) == {int(ftpl.elim_phase_pulls(jnp.asarray(2), params))}

    def p_commit(d):
        mu = [s / N for s in sums]
        f = lambda y: new_pdf_paper(y, N, mu[1], eps, d) * (1 - new_cdf_paper(y + 0.5, N, mu[0], eps, d))
        return integrate.quad(f, mu[1] - 2, mu[1] + 2, limit=400, points=[mu[1]])[0]

    exact = p_commit(delta / 2)
    _assert_probability(float(np.mean(committed == 0)), len(keys), exact, "commit to arm 0")
    assert abs(p_commit(delta) - exact) > 10 * math.sqrt(exact * (1 - exact) / len(keys))


def test_elim_release_law_meets_lemma9_at_half_delta_not_at_delta():
    """Lemma 9 at δ/2 for the phase-end law D(N; μ̂, ε, δ/2) and its neighbour shifted by 1/N, over all intervals
    [x, y] of a fine grid (exact CDFs, float64): holds; the law at δ breaks it by δ/2, which is why Algorithm 4 draws
    at δ/2 (that the policy does is the exact-probability test above)."""
    from jaxbandit.mechanisms import perturbations as dist
    eps, delta, n = 1.0, 0.02, 40
    with jax.enable_x64(True):
        grid = np.linspace(0.2, 0.8, 1201)

        def worst(d_used):
            F = np.asarray(dist.new_cdf(grid, n, 0.5, eps, d_used))
            G = np.asarray(dist.new_cdf(grid, n, 0.5 + 1 / n, eps, d_used))
            inside = (F[None, :] - F[:, None]) - math.exp(eps) * (G[None, :] - G[:, None])  # y (cols) >= x (rows)
            outside = (1 - F[None, :] + F[:, None]) - math.exp(eps) * (1 - G[None, :] + G[:, None])
            upper = np.triu(np.ones((len(grid),) * 2, bool))
            return max(np.max(np.where(upper, inside, -1)), np.max(np.where(upper, outside, -1))) - delta / 2

        assert worst(delta / 2) <= 1e-12
        assert worst(delta) == pytest.approx(delta / 2, abs=1e-3)


# ------------------------------------------------------------------- privacy: claims, audit, planted bug

def test_claims_and_cli(tmp_path):
    for name, notion in [("dp-ftpl-gauss", "Def. 1"), ("dp-ftpl-beta", "Def. 1"), ("dp-ftpl-new", "Def. 1"),
                         ("gdp-elim-new", "Def. 3")]:
        policy = policies.get(name, 3)
        params = jb.checks.with_params(policy, epsilon=0.5, delta=0.001)
        claim = policy.accountant.guarantee(params, 10 ** 6, 3)
        assert (claim.epsilon, claim.delta) == (0.5, pytest.approx(0.001)) and notion in claim.protects
        assert claim.scope == ("run" if name == "gdp-elim-new" else "round")
    out = tmp_path / "claim.json"
    argv = ["privacy", "--policy", "dp-ftpl-new", "--policy-param", "epsilon=0", "--policy-param", "delta=0.01",
            "--horizon", "1e6", "--arms", "9", "--json", str(out)]
    assert cli.main(argv) == 0
    data = json.loads(out.read_text())
    assert data["epsilon"] == 0 and data["delta"] == pytest.approx(0.01) and "Lemma 15" in data["source"]
    assert cli.main(["privacy", "--policy", "dp-ftpl-beta", "--horizon", "1000", "--arms", "9"]) == 2  # 9·827 > T
    # below the claim's δ no ε holds: the report says so (∞) rather than hide it
    assert cli.main(["privacy", "--policy", "dp-ftpl-new", "--horizon", "1000", "--at-delta", "1e-6", "--json",
                     str(out)]) == 0
    assert json.loads(out.read_text())["at"] == {"delta": 1e-6, "epsilon": float("inf")}


@pytest.mark.parametrize("planted", [False, True])
def test_new_step_audit_catches_a_planted_bug(planted, monkeypatch):
    """Empirical audit of one step of DP-FTPL-New on neighbouring histories (arm 0's ones R and R + 1, n = 5,
    (ε, δ) = (1, 0.01)), with arm 1 at n = 2^30 so that its θ is a point x and "arm 1 chosen" is the event
    {θ_0 ≤ x}, where Lemma 15 is tight (F(x) − e^ε F(x − 1/n) = δ on the left half of the support). From 2·10^5
    draws per side, the Clopper-Pearson bounds (10^-6 each) give P_R(arm 1)_lo − e^ε P_{R+1}(arm 1)_hi, which
    must not exceed δ; a step drawing its perturbation at 2ε around the same centre (the planted bug: noise scale
    halved) exceeds it by far (0.19 expected)."""
    eps, delta, n = 1.0, 0.01, 5
    T = 1000.0
    big = 2 ** 30
    if planted:
        honest = ftpl.dist.new_quantile
        monkeypatch.setattr(ftpl.dist, "new_quantile", lambda u, n, x0, e, d: honest(u, n, x0, 2 * e, d))
    policy = policies.get("dp-ftpl-new", 2)
    params = jb.checks.with_params(policy, epsilon=eps, delta=delta, horizon=T)
    L = math.log((T * math.expm1(eps) + 2 * T * delta) / (2 * math.expm1(eps) + 2 * T * delta))
    x0 = 2 / n + math.sqrt(math.log(T) / n) + L / (n * eps)  # arm 0's centre at R = 2
    ones1 = round((x0 - 0.05 - math.sqrt(math.log(T) / big)) * big)  # arm 1's θ ≈ x0 − 0.05: F ≈ 0.39
    probs = []
    for R in (2, 3):
        _, state = _state("dp-ftpl-new", [R, ones1], [n, big], params)
        freq, m = _choice_frequency(policy, state, params, n=200_000, seed=11 + R, arm=1)
        probs.append((round(freq * m), m))
    lo = clopper_pearson(*probs[0], 1e-6 / 2)[0]  # two-sided bounds at 1e-6: 5e-7 a side
    hi = clopper_pearson(*probs[1], 1e-6 / 2)[1]
    excess = lo - math.exp(eps) * hi
    if planted:
        assert excess > delta + 0.1, excess
    else:  # near the claim: the step is tight there (expected δ − 0.016 from the bounds' widths, sd 0.0024)
        assert delta - 0.03 < excess <= delta, excess


# ------------------------------------------------------------------------------------------------------ errors

@pytest.mark.parametrize("name, params, match", [
    ("dp-ftpl-gauss", {"delta": 0.0}, r"delta=0 is outside the valid range \(0, 1\)"),
    ("dp-ftpl-beta", {"delta": 1.0}, r"delta=1 is outside the valid range \(0, 1\)"),
    ("dp-ftpl-gauss", {"epsilon": -0.1}, r"epsilon=-0.1 is outside the valid range \[0, inf\)"),
    ("dp-ftpl-new", {"epsilon": 0.0, "delta": 0.0}, "needs epsilon > 0 or delta > 0"),
    ("gdp-elim-new", {"epsilon": 0.0, "delta": 0.0}, "needs epsilon > 0 or delta > 0"),
    ("gdp-elim-new", {"delta": 1.5}, r"delta=1.5 is outside the valid range \[0, 1\)"),
    ("dp-ftpl-new", {"horizon": -5.0}, r"horizon=-5 is outside the valid range \[2, inf\): the T known to the "
                                       r"algorithm \(leave it unset, None, for the run's horizon\)"),
    ("gdp-elim-new", {"horizon": 1.0}, r"horizon=1 is outside the valid range \[2, inf\)"),
    ("dp-ftpl-new", {"epsilon": 90.0}, r"epsilon=90 is outside the valid range \[0, 50\]"),
])
def test_parameter_errors(name, params, match):
    with pytest.raises(ValueError, match=match):
        policies.make(name, 3, **params)


def test_start_phase_longer_than_the_horizon_is_refused_before_compiling():
    from jaxbandit import engine
    before = len(engine._ADVANCE_CACHE)
    with pytest.raises(ValueError, match=r"dp-ftpl-beta's start phase, 827 pulls of each of 9 arms .* takes 7443 >= "
                                         r"horizon=5000"):
        jb.simulate("bernoulli", "dp-ftpl-beta", env_params={"means": [0.5] * 9}, horizon=5000, runs=2,
                    progress=False)
    assert len(engine._ADVANCE_CACHE) == before


def test_an_epsilon_delta_grid_is_one_compilation_with_each_points_start_phase():
    """ε and δ are traced: a grid whose points have different start phases (⌈N_G*⌉ = 8, 19, 45 pulls per arm) runs
    in one compiled program, and each point equals its own simulation."""
    from jaxbandit import engine
    kw = dict(env="bernoulli", env_params={"means": MEANS}, policy="dp-ftpl-gauss", horizon=300, runs=3, seed=6,
              progress=False)
    points = [(1.0, 0.01), (1.0, math.exp(-10)), (1.0, 1e-10)]
    before = len(engine._ADVANCE_CACHE)
    grid = jb.sweep(grid={("policy.epsilon", "policy.delta"): points}, **kw)
    fns = [entry[-1] for entry in list(engine._ADVANCE_CACHE.values())[before:]]
    assert all(f._cache_size() == 1 for f in fns)
    for i, (eps, delta) in enumerate(points):
        alone = jb.simulate(policy_params={"epsilon": eps, "delta": delta}, **kw)
        np.testing.assert_array_equal(grid.counts[i], alone.counts)
        pulls = int(ftpl.start_pulls("dp-ftpl-gauss", eps, delta))
        assert np.all(alone.counts >= pulls)
    assert [int(ftpl.start_pulls("dp-ftpl-gauss", e, d)) for e, d in points] == [8, 19, 45]


@pytest.mark.parametrize("kind, n", [("beta", 827), ("beta", 50_000), ("new", 7), ("new-laplace", 3),
                                     ("new-uniform", 10)])
def test_perturbation_draws_as_the_policies_make_them(kind, n):
    """θ drawn by the library functions the policies call (float32, their noise), against the exact CDF (float64):
    Kolmogorov-Smirnov at false-alarm rate 10^-6 on 2·10^5 draws. Beta(R + 1 + k, n − R + 1 + k) with k = ⌊n/8⌋ + 1
    (exact sampler, large shapes); New D(n; x0, ε, δ) by inverse CDF, and its δ = 0 and ε = 0 limits. (Gauss's
    N(μ̂, 2/n) is a scaled normal: its law is checked through `select`, above.)"""
    from jaxbandit.random import samplers
    from jaxbandit.mechanisms import perturbations as dist
    from tests.helpers import assert_cdf
    m = 200_000
    key = threefry.key(21)
    if kind == "beta":
        k = n // 8 + 1
        a, b = 0.3 * n + 1 + k, 0.7 * n + 1 + k
        theta = samplers.beta(key, jnp.full((m,), a), jnp.full((m,), b), samplers.draw_beta_noise(key, (m,)))
        cdf = stats.beta(a, b).cdf
    else:
        eps, delta = {"new": (1.0, 0.01), "new-laplace": (0.1, 0.0), "new-uniform": (0.0, 0.01)}[kind]
        u = jax.random.uniform(key, (m,))
        theta = dist.new_quantile(u, jnp.float32(n), jnp.float32(0.4), jnp.float32(eps), jnp.float32(delta))
        if eps > 0 and delta > 0:  # the paper's four pieces
            cdf = np.vectorize(lambda x: new_cdf_paper(x, n, 0.4, eps, delta))
        elif delta == 0:  # the Laplace limit (Lemma 15, δ → 0)
            cdf = stats.laplace(0.4, 1 / (n * eps)).cdf
        else:  # the uniform limit (ε → 0): x0 ± 1/(2nδ)
            cdf = stats.uniform(0.4 - 1 / (2 * n * delta), 1 / (n * delta)).cdf
    theta = np.asarray(theta, np.float64)
    assert np.all(np.isfinite(theta))
    assert_cdf(theta, cdf, what=kind)


def test_elim_phase_sums_stay_exact_beyond_float32_integers():
    """A phase can hold more 1-rewards than float32 counts exactly (2^24): the Kahan-compensated sum keeps the
    phase mean exact where a plain float32 sum would stop growing (float32(2^24) + 1 == 2^24)."""
    policy = policies.get("gdp-elim-new", 2)
    params = _elim_params(1.0, 0.01, 1e6)
    big = float(2 ** 24)
    inner = ftpl.ElimState(jnp.asarray([big, 0.0]), jnp.zeros(2), jnp.asarray(1, jnp.int32),
                           jnp.asarray(10 ** 8, jnp.int32), jnp.asarray(-1, jnp.int32))
    state = PhasedState(inner, jnp.asarray(0, jnp.int32), jnp.asarray(2 * 10 ** 8, jnp.int32))
    rng = StepRandom(None, jnp.full(2, 0.5))
    step = jax.jit(lambda s: policy.update(rng, s, jnp.int32(0), jnp.float32(1.0), params))
    for _ in range(5):
        state = step(state)
    exact = np.float64(state.inner.sums[0]) - np.float64(state.inner.comp[0])
    assert exact == big + 5 and float(jnp.float32(big) + 1) == big
