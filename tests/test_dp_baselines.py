"""The ε-DP baselines of seed 001's App. D: DP-SE (Sajed & Sheffet 2019) and Anytime-Lazy-UCB (Hu, Huang & Mehta
2021). Each is checked step for step against an independent NumPy re-implementation of the published rule fed with
the same rewards and the same Laplace draws (which checks the released statistics, their noise scales and the
forgetting that the privacy proofs rest on), plus privacy-relevant invariants and regret sanity."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbandit import checks, policies, simulate
from jaxbandit.policies.elimination import epoch_pulls
from jaxbandit.types import StepRandom


def trajectory(policy, params, rewards, noise):
    """(arms, states) of ``policy`` when round t's reward of arm a is rewards[t, a] and its block noise is noise[t]
    (traceable)."""
    def step(state, xs):
        row, nz = xs
        rng = StepRandom(jax.random.key(0), nz)
        arm = policy.select(rng, state, params)
        return policy.update(rng, state, arm, row[arm], params), (arm, state)

    return jax.lax.scan(step, policy.init(params), (rewards, noise))[1]


def drive(policy, params, rewards, noise):
    arms, states = jax.jit(lambda r, n: trajectory(policy, params, r, n))(rewards, noise)
    return np.asarray(arms), states


# ------------------------------------------------------------------------------------------------------ DP-SE
def dpse_reference(rewards, laplace, eps, beta):
    """Sajed & Sheffet's DP-SE written directly from the rule (float64)."""
    T, K = rewards.shape
    active = list(range(K))
    arms, t, e = [], 0, 1
    while t < T:
        if len(active) == 1:
            arms += [active[0]] * (T - t)
            break
        s = len(active)
        l8, l4 = math.log(8 * s * e * e / beta), math.log(4 * s * e * e / beta)
        gap = 2.0 ** -e
        R = math.floor(max(32 * l8 / gap ** 2, 8 * l4 / (eps * gap))) + 1
        sums = np.zeros(K)
        for p in range(R * s):
            if t == T:
                return np.asarray(arms)
            a = active[p % s]
            arms.append(a)
            sums[a] += rewards[t, a]
            t += 1
        lap = laplace[t - 1]  # the draws of the epoch's last round
        noisy = {a: sums[a] / R + lap[a] / (eps * R) for a in active}
        width = math.sqrt(l8 / (2 * R)) + l4 / (eps * R)
        best = max(noisy.values())
        active = [a for a in active if best - noisy[a] <= 2 * width]
        e += 1
    return np.asarray(arms)


def test_epoch_pulls_formula():
    params = checks.with_params(policies.get("dp-se", 5), epsilon=0.5, beta=1e-5)
    for s, e in [(5, 1), (5, 3), (3, 2), (2, 6)]:
        l8, l4 = math.log(8 * s * e * e / 1e-5), math.log(4 * s * e * e / 1e-5)
        gap = 2.0 ** -e
        expected = math.floor(max(32 * l8 / gap ** 2, 8 * l4 / (0.5 * gap))) + 1
        assert int(epoch_pulls(jnp.int32(s), jnp.int32(e), params)) == pytest.approx(expected, rel=1e-6)  # float32


@pytest.mark.parametrize("eps,beta,means", [(0.5, 0.3, [0.9, 0.5, 0.45, 0.1]), (0.05, 0.2, [0.6, 0.55, 0.2])])
def test_dpse_matches_reference_step_for_step(eps, beta, means):
    T, K = 12_000, len(means)
    rng = np.random.default_rng(1)
    rewards = (rng.random((T, K)) < np.asarray(means)).astype(np.float32)
    laplace = rng.laplace(size=(T, K)).astype(np.float32)
    policy, params = policies.make("dp-se", K, epsilon=eps, beta=beta)
    arms, states = drive(policy, params, jnp.asarray(rewards), jnp.asarray(laplace))
    expected = dpse_reference(rewards.astype(np.float64), laplace.astype(np.float64), eps, beta)
    np.testing.assert_array_equal(arms, expected)
    assert int(np.asarray(states.inner.active)[-1].sum()) < K  # the test exercises eliminations
    # forgetting: the epoch sums restart at 0 whenever an epoch begins
    starts = np.flatnonzero(np.diff(np.asarray(states.inner.epoch)) == 1) + 1
    assert len(starts) >= 1 and np.all(np.asarray(states.inner.sums)[starts] == 0)


def test_dpse_noise_scale_is_one_over_eps_r():
    """With equal epoch means, the elimination decision is driven by the noise alone: arm 1 is eliminated exactly
    when (lap_0 − lap_1)/(ε R) > 2(h + c)."""
    policy, params = policies.make("dp-se", 2, epsilon=1.0, beta=0.5)
    state = policy.init(params)
    R = int(state.inner.pulls)
    assert int(state.length) == 2 * R  # the epoch: R pulls of each active arm
    l8, l4 = math.log(8 * 2 / 0.5), math.log(4 * 2 / 0.5)
    width = math.sqrt(l8 / (2 * R)) + l4 / R
    for diff, eliminated in [(2 * width * R * 0.99, False), (2 * width * R * 1.01, True)]:
        s = state._replace(inner=state.inner._replace(sums=jnp.asarray([R / 2.0, R / 2.0 - 0.5])),
                           count=jnp.int32(2 * R - 1))
        rng = StepRandom(None, jnp.asarray([diff, 0.0], jnp.float32))
        new = policy.update(rng, s, jnp.int32(1), jnp.float32(0.5), params)
        assert bool(new.inner.active[1]) != eliminated and int(new.inner.epoch) == 2 and bool(new.inner.active[0])
        assert int(new.count) == 0 and int(new.length) == (0 if eliminated else 2 * int(new.inner.pulls))


# ------------------------------------------------------------------------------------------- Anytime-Lazy-UCB
def lazy_ucb_reference(rewards, uniforms, laplace, eps, c1, c2):
    T, K = rewards.shape
    mean, size = np.zeros(K), np.zeros(K, int)
    buf, filled = np.zeros(K), np.zeros(K, int)
    arms = []
    for t in range(T):
        if np.any(size == 0):  # unplayed arms first, uniformly at random among them
            cand = np.flatnonzero(size == 0)
            a = cand[min(int(uniforms[t] * len(cand)), len(cand) - 1)]
        else:
            lt = math.log(t + 1)
            a = int(np.argmax(mean + np.sqrt(c1 * lt / size) + c2 * lt / (eps * size)))
        arms.append(a)
        buf[a] += rewards[t, a]
        filled[a] += 1
        target = 1 if size[a] == 0 else 2 * size[a]
        if filled[a] == target:
            mean[a] = (buf[a] + laplace[t] / eps) / target
            size[a], buf[a], filled[a] = target, 0.0, 0
    return np.asarray(arms)


def test_lazy_ucb_matches_reference_step_for_step():
    T, means = 6000, [0.7, 0.6, 0.4, 0.2]
    rng = np.random.default_rng(2)
    rewards = (rng.random((T, 4)) < np.asarray(means)).astype(np.float32)
    uniforms = rng.random(T).astype(np.float32)
    laplace = rng.laplace(size=T).astype(np.float32)
    policy, params = policies.make("lazy-ucb", 4, epsilon=0.7, c1=1.5, c2=3.0)
    arms, states = drive(policy, params, jnp.asarray(rewards), (jnp.asarray(uniforms), jnp.asarray(laplace)))
    expected = lazy_ucb_reference(rewards, uniforms, laplace, 0.7, 1.5, 3.0)
    np.testing.assert_array_equal(arms, expected)
    sizes = np.unique(np.asarray(states.inner.size))
    assert set(sizes) <= {0} | {2 ** k for k in range(20)}  # batch sizes are powers of two


def test_lazy_ucb_releases_batch_sum_plus_laplace_over_eps():
    policy, params = policies.make("lazy-ucb", 2, epsilon=0.25)
    s = policy.init(params)
    s = s._replace(inner=s.inner._replace(size=jnp.asarray([4, 1]), buffer=jnp.asarray([0.0, 1.0]),
                                          mean=jnp.asarray([0.5, 1.0]), t=jnp.int32(9)),
                   count=jnp.asarray([0, 1]), length=jnp.asarray([8, 2]))
    new = policy.update(StepRandom(None, (jnp.float32(0.3), jnp.float32(-0.8))), s, jnp.int32(1), jnp.float32(1.0),
                        params)
    assert float(new.inner.mean[1]) == pytest.approx((2.0 - 0.8 / 0.25) / 2)  # (batch sum + Lap/ε) / batch size
    assert int(new.inner.size[1]) == 2 and float(new.inner.buffer[1]) == 0 and int(new.count[1]) == 0
    assert int(new.length[1]) == 4  # the next batch doubles
    assert float(new.inner.mean[0]) == 0.5 and int(new.length[0]) == 8  # other arms untouched


# ------------------------------------------------------------------------------------------------- both
@pytest.mark.slow
@pytest.mark.parametrize("name", ["dp-se", "lazy-ucb"])
def test_regret_sanity_and_more_privacy_costs_more(name):
    """Seed 001 App. D instance: both learn (far below uniform play's 25 000 at T = 1e5 ... here T = 2e4), and a
    smaller ε costs regret."""
    kw = dict(env="bernoulli", env_params={"means": [0.75, 0.625, 0.5, 0.375, 0.25]}, horizon=20_000, runs=32,
              seed=0, progress=False)
    extra = {"beta": 1 / 20_000} if name == "dp-se" else {}
    strict = simulate(policy=name, policy_params={"epsilon": 0.1, **extra}, **kw)
    loose = simulate(policy=name, policy_params={"epsilon": 10.0, **extra}, **kw)
    uniform = 20_000 * 0.25
    assert loose.mean()[-1] < 0.6 * uniform
    assert strict.mean()[-1] > loose.mean()[-1] + 4 * math.hypot(strict.se()[-1], loose.se()[-1])


@pytest.mark.parametrize("name,bad,match", [
    ("dp-se", {"epsilon": 0.0}, r"epsilon=0 .*outside the valid range \(0, inf\)"),
    ("dp-se", {"epsilon": float("inf")}, r"epsilon=inf .*outside the valid range \(0, inf\)"),
    ("lazy-ucb", {"c2": float("inf")}, r"c2=inf .*outside the valid range \[0, inf\)"),
    ("dp-se", {"beta": 1.0}, r"beta=1 .*outside the valid range \(0, 1\)"),
    ("lazy-ucb", {"epsilon": -1.0}, r"epsilon=-1 .*outside"),
    ("lazy-ucb", {"c1": -0.1}, r"c1=-0.1 .*outside the valid range \[0, inf\)"),
])
def test_parameter_errors(name, bad, match):
    with pytest.raises(ValueError, match=match):
        policies.make(name, 3, **bad)


# ------------------------------------------------------------------------------------------ privacy audits
def laplace_difference_tail(d):
    """P(L0 − L1 > d) for independent Lap(1) variables: ½ e^{−d}(1 + d/2) for d ≥ 0 (symmetric)."""
    d = np.asarray(d, float)
    tail = 0.5 * np.exp(-np.abs(d)) * (1 + np.abs(d) / 2)
    return np.where(d >= 0, tail, 1 - tail)


def audit(freqs, m, exact, eps):
    """Monte-Carlo frequencies of one output event under two neighbouring inputs: they match the exact
    probabilities (z-test at ALPHA), the exact ratio is within e^ε, and the Clopper–Pearson lower bound on the
    privacy loss, log(p_hi_lower / p_lo_upper), does not exceed ε."""
    from jaxbandit.audit.montecarlo import clopper_pearson
    from tests.helpers import ALPHA, Z
    for k, p in zip(freqs, exact):
        assert abs(k / m - p) < Z * np.sqrt(p * (1 - p) / m)
    hi, lo = (0, 1) if exact[0] >= exact[1] else (1, 0)
    assert exact[hi] <= math.exp(eps) * exact[lo]
    p_hi_low = clopper_pearson(freqs[hi], m, ALPHA / 4)[0]
    p_lo_up = clopper_pearson(freqs[lo], m, ALPHA / 4)[1]
    assert math.log(p_hi_low / p_lo_up) <= eps


@pytest.mark.slow
def test_dpse_elimination_audit():
    """Neighbouring reward sequences differ in one reward of arm 0 in epoch 1 (epoch sums s0 = R/2 + 1 vs R/2);
    the output event is 'arm 1 is eliminated at the end of epoch 1', drawn with the policy's own noise."""
    eps, m = 0.5, 400_000
    policy, params = policies.make("dp-se", 2, epsilon=eps, beta=0.5)
    base = policy.init(params)
    R = int(base.inner.pulls)
    l8, l4 = math.log(8 * 2 / 0.5), math.log(4 * 2 / 0.5)
    width = math.sqrt(l8 / (2 * R)) + l4 / (eps * R)
    keys = jax.random.split(jax.random.key(5), m)
    freqs, exact = [], []
    for s0 in (R / 2 + 1, R / 2):
        s = base._replace(inner=base.inner._replace(sums=jnp.asarray([s0, R / 2 - 0.5 - 2 * width * R])),
                          count=jnp.int32(2 * R - 1))
        step = lambda k: policy.update(StepRandom(k, jax.tree.map(lambda x: x[0], policy.draw(k, 1, params))), s,
                                       jnp.int32(1), jnp.float32(0.5), params).inner.active[1]
        kept = np.asarray(jax.jit(jax.vmap(step))(keys))
        freqs.append(int(np.sum(~kept)))
        gap = (s0 - (R / 2 - 2 * width * R)) / R  # μ̄_0 − μ̄_1
        exact.append(float(laplace_difference_tail(eps * R * (2 * width - gap))))
    audit(freqs, m, exact, eps)


@pytest.mark.slow
def test_lazy_ucb_first_comparison_audit():
    """Rounds 1-2 play both arms once; round 3 plays the arm with the larger noisy mean. Neighbours differ in
    arm 0's first reward (1 vs 0; arm 1's is 0.5). Event: round 3 plays arm 0."""
    eps, m = 1.0, 400_000
    policy, params = policies.make("lazy-ucb", 2, epsilon=eps)
    keys = jax.random.split(jax.random.key(6), m)
    freqs, exact = [], []
    for x0 in (1.0, 0.0):
        rewards = jnp.asarray([[x0, 0.5]] * 3, jnp.float32)
        run = lambda k: trajectory(policy, params, rewards, policy.draw(k, 3, params))[0][2]
        third = np.asarray(jax.jit(jax.vmap(run))(keys))
        freqs.append(int(np.sum(third == 0)))
        exact.append(float(laplace_difference_tail(eps * (0.5 - x0))))
    audit(freqs, m, exact, eps)
