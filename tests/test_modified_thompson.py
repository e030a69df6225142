"""Modified Thompson sampling (seed 001, Algorithm 2): the identities of the digest's §6.8 and the sampling rule."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbandit import policies, resolve, simulate, sweep
from jaxbandit.engine import _ADVANCE_CACHE, BLOCK, UNROLL, _compiled_advance, record_slots
from jaxbandit.types import StepRandom

MEANS = [0.75, 0.625, 0.5, 0.375, 0.25]  # seed 001, Sec. 5.1
GAPS = 0.75 - np.asarray(MEANS)


def test_b0_c1_is_gaussian_thompson_exactly():
    kw = dict(env="bernoulli", env_params={"means": MEANS}, horizon=1500, runs=16, seed=7, progress=False)
    plain = simulate(policy="gaussian-thompson", **kw)
    modified = simulate(policy="modified-thompson", policy_params={"b": 0, "c": 1.0}, **kw)
    for field in ("pseudo_regret", "regret", "counts"):
        np.testing.assert_array_equal(getattr(plain, field), getattr(modified, field))


def test_prepulls_in_arm_order_then_posterior_sampling():
    """The first bN outputs are 0^b 1^b ... (N−1)^b; then n_i = b and μ̂_i = S_i/(b+1)."""
    b, n = 3, len(MEANS)
    policy, params = policies.make("modified-thompson", n, b=b, c=2.0)
    state = policy.init(params)
    arms = []
    for t in range(b * n):
        rng = StepRandom(None, jnp.asarray([9.0, -9.0, 9.0, -9.0, 9.0]))  # noise that would pick arm 0/2/4
        arm = policy.select(rng, state, params)
        arms.append(int(arm))
        state = policy.update(rng, state, arm, jnp.float32(t % 2), params)
    assert arms == [a for a in range(n) for _ in range(b)]
    np.testing.assert_array_equal(state.counts, [b] * n)
    # θ_i = S_i/(n_i+1) + z_i sqrt(c/(n_i+1)) after the pre-pulls
    for z in ([0.0] * 5, [0.0, 0.0, 0.0, 3.0, 0.0], [-1.0, 0.5, 0.0, 0.0, 0.2]):
        theta = np.asarray(state.sums) / (b + 1) + np.asarray(z) * np.sqrt(2.0 / (b + 1))
        assert int(policy.select(StepRandom(None, jnp.asarray(z)), state, params)) == int(np.argmax(theta))


def test_prepull_regret_is_b_sum_of_gaps_piecewise_linear():
    """Digest §6.8: pseudo-regret at t = bN is exactly b·ΣΔ (1.25 b here), with slopes Δ_1..Δ_N in arm order."""
    b = 40
    times = np.arange(1, b * len(MEANS) + 1)
    res = simulate("bernoulli", "modified-thompson", env_params={"means": MEANS}, policy_params={"b": b, "c": 100.0},
                   horizon=b * len(MEANS) + 100, runs=4, record=times, progress=False)
    expected = np.cumsum(np.repeat(GAPS, b))
    np.testing.assert_allclose(res.pseudo_regret, np.broadcast_to(expected, res.pseudo_regret.shape), rtol=1e-6)
    assert res.pseudo_regret[0, -1] == pytest.approx(1.25 * b)


def test_grid_over_b_and_c_compiles_once():
    kw = dict(env="bernoulli", env_params={"means": MEANS}, horizon=600, runs=8, record=np.array([100, 350, 600]),
              progress=False)
    # The advance this configuration runs (memoized: another test of this process may have compiled it already,
    # for another batch size): the grid adds at most one compilation, and new grid values none.
    env, policy, privatizer, params = resolve("bernoulli", "modified-thompson", env_params={"means": MEANS})
    advance = _compiled_advance(env, policy, privatizer, BLOCK, record_slots(kw["record"]), UNROLL)
    before = len(_ADVANCE_CACHE)
    compiled = advance._cache_size()
    grid = {("policy.b", "policy.c"): [(0, 1.0), (5, 4.0), (20, 1.5)]}
    res = sweep(policy="modified-thompson", grid=grid, seed=1, **kw)
    assert len(_ADVANCE_CACHE) == before and advance._cache_size() <= compiled + 1
    compiled = advance._cache_size()
    sweep(policy="modified-thompson", grid={("policy.b", "policy.c"): [(1, 9.0), (2, 2.0), (30, 1.0)]}, seed=2, **kw)
    assert len(_ADVANCE_CACHE) == before and advance._cache_size() == compiled
    # the (0, 1) grid point is gaussian-thompson's run
    plain = simulate(policy="gaussian-thompson", seed=1, **kw)
    np.testing.assert_array_equal(res.pseudo_regret[0], plain.pseudo_regret)
    # b = 20: t = 100 is the end of the pre-pulls, whose cost is exactly 20·ΣΔ
    np.testing.assert_allclose(res.pseudo_regret[2, :, 0], 20 * GAPS.sum(), rtol=1e-6)


def test_parameter_errors():
    with pytest.raises(ValueError, match=r"b=-1 .*outside the valid range \[0, inf\)"):
        policies.make("modified-thompson", 3, b=-1)
    with pytest.raises(ValueError, match=r"modified-thompson parameter b=1.5 must be an integer"):
        policies.make("modified-thompson", 3, b=1.5)
    with pytest.raises(ValueError, match=r"c=0 .*outside the valid range \(0, inf\)"):
        policies.make("modified-thompson", 3, c=0.0)
    with pytest.raises(ValueError, match=r"c=nan"):
        policies.make("modified-thompson", 3, c=float("nan"))


@pytest.mark.slow
def test_more_noise_means_more_regret_and_b0_large_c_is_near_uniform():
    """Qualitative (seed 001 Sec. 5): at T=2000, c = 2000 with b = 0 plays close to uniformly, c = 1 learns."""
    kw = dict(env="bernoulli", env_params={"means": MEANS}, horizon=2000, runs=64, seed=3, progress=False)
    res = sweep(policy="modified-thompson", grid={"policy.c": [1.0, 2000.0]}, **kw)
    final = res.final()  # (2, runs)
    uniform_regret = 2000 * np.mean(GAPS)
    assert final[0].mean() < 0.25 * uniform_regret
    assert final[1].mean() > 0.8 * uniform_regret


def test_privacy_audit_of_one_round():
    """Seed 001 App. A.2: a round of Algorithm 2 is 1/sqrt(c(n_j+1)) <= 1/sqrt(c(b+1))-GDP for the arm j holding
    the differing reward. Audit it on the policy's own `select`: two neighbouring states differ in one reward of
    arm 0 (S_0 = 2 vs 3 after b = 4 pre-pulls); arm 1 is known almost exactly (n_1 = 10^6), so 'arm 0 is played'
    is a threshold event on θ_0, the most revealing one. (1) The Monte-Carlo frequencies match the exact
    probabilities Φ((μ̂_0 − μ̂_1)/sqrt(c/(n_0+1) + c/(n_1+1))); (2) the audited lower bound
    μ_LB = Φ⁻¹(p0_lower) − Φ⁻¹(p1_upper) (Clopper–Pearson at false-alarm rate ALPHA) does not exceed the claimed
    η_round and reaches at least 90% of it (the claim is tight, and a looser noise scale would be caught)."""
    from scipy import stats

    from jaxbandit.accounting import thompson as ts_privacy
    from tests.helpers import ALPHA, Z
    b, c, m = 4, 2.0, 1_000_000
    policy, params = policies.make("modified-thompson", 2, b=b, c=c)
    n1 = 1_000_000
    base = policy.init(params)._replace(counts=jnp.asarray([b, n1]), step=jnp.int32(2 * b))
    keys = jax.random.split(jax.random.key(11), m)
    freqs, exact = [], []
    for s0 in (2.0, 3.0):
        state = base._replace(sums=jnp.asarray([s0, 0.5 * (n1 + 1)]))
        arms = jax.jit(jax.vmap(lambda k: policy.select(StepRandom(k, jax.random.normal(k, (2,))), state, params)))(keys)
        freqs.append(int(np.sum(np.asarray(arms) == 0)))
        gap = s0 / (b + 1) - 0.5
        exact.append(stats.norm.cdf(gap / np.sqrt(c / (b + 1) + c / (n1 + 1))))
    for k, p in zip(freqs, exact):
        assert abs(k / m - p) < Z * np.sqrt(p * (1 - p) / m)
    # Clopper–Pearson bounds (two-sided, ALPHA split over the two estimates)
    from jaxbandit.audit.montecarlo import clopper_pearson
    p_low = clopper_pearson(freqs[1], m, ALPHA / 4)[0]   # neighbour with the larger reward
    p_up = clopper_pearson(freqs[0], m, ALPHA / 4)[1]
    mu_lb = stats.norm.ppf(p_low) - stats.norm.ppf(p_up)
    claimed = 1 / np.sqrt(c * (b + 1))
    assert claimed == pytest.approx(float(ts_privacy.eta(b, c, 1)))  # per-round value = η at T = 1
    assert 0.9 * claimed <= mu_lb <= claimed
