"""Selection probabilities (policies' log_prob) and the gradient estimators of jaxbandit.gradients."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.scipy.special import ndtr

import jaxbandit as jb
from jaxbandit import gradients, policies
from jaxbandit.policies.thompson import ModifiedState, gaussian_argmax_prob
from jaxbandit.policies.ucb import MeanState
from jaxbandit.types import StepRandom

MEANS = [0.75, 0.625, 0.5, 0.375, 0.25]


def _random_states(rng, count):
    """Posterior means and scales of Gaussian TS at random pull counts 1..1e5: scale ratios up to ~300."""
    for _ in range(count):
        k = int(rng.integers(2, 9))
        n = np.exp(rng.uniform(0, np.log(1e5), k)).astype(int)
        c = float(np.exp(rng.uniform(0, 4)))
        scales = np.sqrt(c / (n + 1))
        yield rng.uniform(0, 1, k) + rng.normal(size=k) * scales / np.sqrt(c), scales


def test_argmax_prob_two_arms_closed_form():
    """K = 2: P(θ_0 > θ_1) = Φ((m_0 − m_1)/sqrt(s_0² + s_1²)), also at a scale ratio of 1000."""
    for m, s in [([0.5, 0.4], [0.1, 0.2]), ([0.3, 0.35], [0.001, 1.0]), ([0.9, 0.2], [1.0, 0.001]),
                 ([0.0, 3.0], [1.0, 1.0])]:
        m, s = jnp.asarray(m), jnp.asarray(s)
        exact = ndtr((m[0] - m[1]) / jnp.sqrt(s[0] ** 2 + s[1] ** 2))
        np.testing.assert_allclose(gaussian_argmax_prob(m, s, 0), exact, rtol=2e-5, atol=1e-7)
        np.testing.assert_allclose(gaussian_argmax_prob(m, s, 1), 1 - exact, rtol=2e-5, atol=1e-7)


@pytest.mark.slow
def test_argmax_prob_matches_monte_carlo_at_extreme_scale_ratios():
    """Against 10^6 Monte Carlo draws per state, at scale ratios where Gauss–Hermite is 10-100% off: within 5
    binomial standard errors (plus 1e-5), and the probabilities sum to 1."""
    rng = np.random.default_rng(0)
    draws = 1_000_000
    for i, (m, s) in enumerate(_random_states(rng, 10)):
        m, s = jnp.asarray(m, jnp.float32), jnp.asarray(s, jnp.float32)
        probs = jax.vmap(lambda a: gaussian_argmax_prob(m, s, a))(jnp.arange(len(m)))
        np.testing.assert_allclose(float(jnp.sum(probs)), 1.0, atol=2e-5)
        z = jax.random.normal(jax.random.key(i), (draws, len(m)))
        freq = np.bincount(np.asarray(jnp.argmax(m + s * z, axis=1)), minlength=len(m)) / draws
        se = np.sqrt(np.asarray(probs) * (1 - np.asarray(probs)) / draws)
        assert np.all(np.abs(freq - np.asarray(probs)) <= 5 * se + 1e-5), (freq, probs)


def _frequencies(policy, state, params, draws=200_000, seed=0):
    noise = policy.draw(jax.random.key(seed), draws, params)
    keys = jax.random.split(jax.random.key(seed + 1), draws)
    arms = jax.vmap(lambda k, n: policy.select(StepRandom(k, n), state, params))(keys, noise)
    return np.bincount(np.asarray(arms), minlength=policy.num_arms) / draws


@pytest.mark.parametrize("step", [3, 40])
def test_modified_thompson_log_prob_is_its_selection_distribution(step):
    """During pre-pulls the forced arm has probability 1; then exp(log_prob) matches select's frequencies."""
    policy, params = policies.make("modified-thompson", 4, b=5, c=3.0)
    state = ModifiedState(jnp.array([4.0, 3.0, 9.0, 1.0]), jnp.array([6, 5, 20, 5], jnp.int32),
                          jnp.asarray(step, jnp.int32))
    probs = np.exp([float(policy.log_prob(state, a, params)) for a in range(4)])
    freq = _frequencies(policy, state, params)
    np.testing.assert_allclose(probs.sum(), 1.0, atol=1e-5)
    assert np.all(np.abs(freq - probs) <= 5 * np.sqrt(probs * (1 - probs) / 200_000) + 1e-6), (freq, probs)
    if step == 3:
        np.testing.assert_allclose(probs, [1.0, 0.0, 0.0, 0.0], atol=1e-30)


@pytest.mark.parametrize("counts", [[0, 0, 3, 2], [2, 2, 2, 2], [5, 1, 3, 2]])
def test_epsilon_greedy_log_prob_is_its_selection_distribution(counts):
    """Unplayed arms first, ties uniform, ε/K exploration."""
    policy, params = policies.make("epsilon-greedy", 4, epsilon=0.3)
    counts = jnp.asarray(counts, jnp.int32)
    state = MeanState(jnp.array([1.0, 1.0, 2.1, 0.5]) * counts.astype(jnp.float32) / jnp.maximum(counts, 1) *
                      jnp.maximum(counts, 1), counts)
    probs = np.exp([float(policy.log_prob(state, a, params)) for a in range(4)])
    freq = _frequencies(policy, state, params)
    np.testing.assert_allclose(probs.sum(), 1.0, atol=1e-6)
    assert np.all(np.abs(freq - probs) <= 5 * np.sqrt(probs * (1 - probs) / 200_000) + 1e-6), (freq, probs)


def test_log_prob_differentiates_in_c():
    """d log π/dc by autodiff equals a central difference of the quadrature."""
    policy, params = policies.make("modified-thompson", 3, b=0, c=2.0)
    state = ModifiedState(jnp.array([30.0, 20.0, 4.0]), jnp.array([40, 30, 10], jnp.int32), jnp.asarray(80))
    f = lambda c, a: policy.log_prob(state, a, params._replace(c=c))
    for a in range(3):
        h = 1e-2
        fd = (float(f(jnp.asarray(2.0 + h), a)) - float(f(jnp.asarray(2.0 - h), a))) / (2 * h)
        np.testing.assert_allclose(float(jax.grad(f)(jnp.asarray(2.0), a)), fd, rtol=2e-3, atol=1e-4)


def _paired_regret(policy, params_list, runs, seed, horizon=400):
    return np.array([jb.simulate("bernoulli", policy, env_params={"means": MEANS}, policy_params=p, horizon=horizon,
                                 runs=runs, seed=seed, progress=False, record=np.array([horizon])).pseudo_regret[:, -1]
                     for p in params_list])


@pytest.mark.slow  # compiles the scored modified TS (50 s); the tuner's tests run the score gradient by default
def test_score_gradient_plays_as_the_policy():
    """The scored policy plays exactly as modified TS: its regret is simulate's for the same seed."""
    g = gradients.score_gradient("bernoulli", "modified-thompson", env_params={"means": MEANS}, at={"c": 4.0},
                                 policy_params={"b": 3}, horizon=120, runs=16, seed=1)
    same = _paired_regret("modified-thompson", [{"b": 3, "c": 4.0}], 16, seed=1, horizon=120)[0]
    np.testing.assert_allclose(g.value, same.mean(), rtol=1e-5)
    assert g.agent_steps == 120 * (16 + 8) and np.isfinite(g.grad_se[0])


@pytest.mark.slow
def test_score_gradient_matches_finite_differences():
    """The c-gradient agrees with a finite difference of the simulated regret (common random numbers, many runs)
    within 4 standard errors of the two estimates combined, and resolves the sign."""
    runs, horizon = 600, 400
    g = gradients.score_gradient("bernoulli", "modified-thompson", env_params={"means": MEANS}, at={"c": 4.0},
                                 policy_params={"b": 3}, horizon=horizon, runs=runs, seed=1)
    h = 0.5
    lo, hi = _paired_regret("modified-thompson", [{"b": 3, "c": 4.0 - h}, {"b": 3, "c": 4.0 + h}], 8000, seed=9)
    diff = (hi - lo) / (2 * h)
    fd, fd_se = diff.mean(), diff.std(ddof=1) / math.sqrt(len(diff))
    assert abs(g.grad[0] - fd) <= 4 * math.hypot(g.grad_se[0], fd_se), (g, fd, fd_se)
    assert g.grad_se[0] < abs(fd) / 2  # informative: the sign is resolved
    assert g.agent_steps == horizon * (runs + max(8, runs // 4))


@pytest.mark.slow
def test_score_gradient_relaxes_an_integer_exactly():
    """At β = 3.25 the value is the rounding expectation 0.75 R(3) + 0.25 R(4) and the β-derivative the paired
    difference R(4) − R(3), with the runs of simulate (same seed)."""
    g = gradients.score_gradient("bernoulli", "modified-thompson", env_params={"means": MEANS},
                                 at={"b": 3.25, "c": 2.0}, horizon=120, runs=16, seed=4)
    r3, r4 = _paired_regret("modified-thompson", [{"b": 3, "c": 2.0}, {"b": 4, "c": 2.0}], 16, seed=4, horizon=120)
    np.testing.assert_allclose(g.value, (0.75 * r3 + 0.25 * r4).mean(), rtol=1e-5)
    np.testing.assert_allclose(g.grad[0], (r4 - r3).mean(), rtol=1e-4, atol=1e-3)
    assert g.names == ("b", "c")


@pytest.mark.slow
def test_epsilon_greedy_score_gradient_matches_finite_differences():
    g = gradients.score_gradient("bernoulli", "epsilon-greedy", env_params={"means": MEANS}, at={"epsilon": 0.2},
                                 horizon=300, runs=1500, seed=2)
    lo, hi = _paired_regret("epsilon-greedy", [{"epsilon": 0.15}, {"epsilon": 0.25}], 20000, seed=5, horizon=300)
    diff = (hi - lo) / 0.1
    fd, fd_se = diff.mean(), diff.std(ddof=1) / math.sqrt(len(diff))
    assert abs(g.grad[0] - fd) <= 4 * math.hypot(g.grad_se[0], fd_se), (g, fd, fd_se)


@pytest.mark.slow
def test_planted_bug_in_log_prob_is_caught_by_the_finite_difference_check():
    """A log_prob that reports the probabilities of 2c instead of c (a wrong selection model) gives a gradient the
    finite-difference check rejects: the check above can fail."""
    policy, _ = policies.make("modified-thompson", len(MEANS))
    wrong = policy._replace(log_prob=lambda s, a, p: policy.log_prob(s, a, p._replace(c=p.c ** 2)))
    env, env_params = jb.envs.make("bernoulli", means=MEANS)
    g, good = (gradients.score_gradient(env, p, at={"c": 4.0}, env_params=env_params, policy_params={"b": 3},
                                        horizon=400, runs=600, seed=1) for p in (wrong, policy))
    assert abs(g.grad[0] - good.grad[0]) > 4 * math.hypot(g.grad_se[0], good.grad_se[0])


def test_score_gradient_errors():
    with pytest.raises(ValueError, match="does not expose the log-probability"):
        gradients.score_gradient("bernoulli", "ucb1", env_params={"means": MEANS}, at={"c": 1.0}, horizon=10,
                                 runs=4)
    with pytest.raises(ValueError, match="no parameter 'eps'"):
        gradients.score_gradient("bernoulli", "epsilon-greedy", env_params={"means": MEANS}, at={"eps": 0.1},
                                 horizon=10, runs=4)
    with pytest.raises(ValueError, match="b=-1"):
        gradients.score_gradient("bernoulli", "modified-thompson", env_params={"means": MEANS}, at={"b": -1.0},
                                 horizon=10, runs=4)


def test_smoothed_gradient_is_the_paired_central_difference():
    """One coordinate, one pair: exactly (R(u + σ) − R(u − σ))/(2σ) with both points on common random numbers."""
    spec = jb.resolve("bernoulli", "epsilon-greedy", env_params={"means": MEANS}, horizon=300)
    base = spec.params

    def point(u, rounding):
        return base._replace(policy=base.policy._replace(epsilon=jnp.asarray(1 / (1 + math.exp(-u[0])), jnp.float32)))

    g = gradients.smoothed_gradient(spec, point, np.array([-1.0]), sigma=0.2, runs=50, seed=3)
    eps = lambda u: 1 / (1 + math.exp(-u))
    lo, hi = _paired_regret("epsilon-greedy", [{"epsilon": eps(-1.2)}, {"epsilon": eps(-0.8)}], 50, seed=3,
                            horizon=300)
    np.testing.assert_allclose(g.grad[0], ((hi - lo) / 0.4).mean(), rtol=1e-5)
    np.testing.assert_allclose(g.value, ((hi + lo) / 2).mean(), rtol=1e-5)
