"""Reward models: exact CDFs / frequencies, means and variances at fixed seeds (false-alarm rate 1e-6 per
assertion), closed-form means against numerical integration, mixtures, common random numbers."""
import math

import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate, stats

from jaxbandit import envs
from tests.helpers import assert_cdf, assert_mean, assert_variance, sample_env

N = 200_000

# (env name, params, arm, scipy distribution of that arm)
CONTINUOUS = [
    ("gaussian", {"means": [0.2, -1.0], "stds": [0.5, 2.0]}, 1, stats.norm(-1.0, 2.0)),
    ("truncexp", {"rates": [0.1, 1.0, 10.0]}, 0, stats.truncexpon(b=0.1, scale=1 / 0.1)),
    ("truncexp", {"rates": [0.1, 1.0, 10.0]}, 2, stats.truncexpon(b=10.0, scale=1 / 10.0)),
    ("beta", {"alpha": [4.0, 0.5], "beta": [1.0, 0.5]}, 0, stats.beta(4, 1)),
    ("beta", {"alpha": [4.0, 0.5], "beta": [1.0, 0.5]}, 1, stats.beta(0.5, 0.5)),
    ("beta", {"alpha": [2.0, 30.0], "beta": [3.0, 7.5]}, 1, stats.beta(30, 7.5)),
    ("uniform", {"low": [0.0, 0.4], "high": [1.0, 1.0]}, 1, stats.uniform(0.4, 0.6)),
]


@pytest.mark.parametrize("name,params,arm,dist", CONTINUOUS, ids=lambda v: str(v)[:24])
def test_continuous_family_matches_exact_distribution(name, params, arm, dist):
    env, p = envs.make(name, **params)
    x = sample_env(env, p, arm, N, seed=arm + 1)
    assert_cdf(x, dist.cdf, name)
    mean, var, _, kurt = (float(v) for v in dist.stats(moments="mvsk"))
    assert float(env.means(p)[arm]) == pytest.approx(mean, rel=2e-6, abs=1e-7)
    assert_mean(x, mean, var, name)
    assert_variance(x, var, (kurt + 3) * var ** 2, name)


@pytest.mark.parametrize("name,params,arm,values,probs", [
    ("bernoulli", {"means": [0.3, 0.0, 1.0]}, 0, [0.0, 1.0], [0.7, 0.3]),
    ("bernoulli", {"means": [0.3, 0.0, 1.0]}, 1, [0.0], [1.0]),
    ("bernoulli", {"means": [0.3, 0.0, 1.0]}, 2, [1.0], [1.0]),
    ("two-point", {"low": [0.4, 0.0], "high": [1.0, 2.0], "p_high": [0.5, 0.1]}, 0, [0.4, 1.0], [0.5, 0.5]),
    ("two-point", {"low": [0.4, 0.0], "high": [1.0, 2.0], "p_high": [0.5, 0.1]}, 1, [0.0, 2.0], [0.9, 0.1]),
])
def test_discrete_family_frequencies(name, params, arm, values, probs):
    env, p = envs.make(name, **params)
    x = sample_env(env, p, arm, N, seed=7)
    values = [float(np.float32(v)) for v in values]  # rewards are float32
    assert set(np.unique(x)) <= set(values)
    for v, q in zip(values, probs):
        assert_mean((x == v).astype(float), q, q * (1 - q), f"{name} P(X={v})")
    assert float(env.means(p)[arm]) == pytest.approx(sum(v * q for v, q in zip(values, probs)), rel=1e-6)


def test_clipped_gaussian_mean_matches_integration_and_samples():
    env, p = envs.make("gaussian", means=[0.5, 0.9, -0.3], stds=[1.0, 0.3, 0.5], low=0.0, high=1.0)
    for arm, (m, s) in enumerate([(0.5, 1.0), (0.9, 0.3), (-0.3, 0.5)]):
        f = lambda x: np.clip(x, 0, 1) * stats.norm.pdf(x, m, s)
        exact = integrate.quad(f, m - 12 * s, m + 12 * s, points=[0, 1], limit=200)[0]
        assert float(env.means(p)[arm]) == pytest.approx(exact, abs=2e-6)
        x = sample_env(env, p, arm, N, seed=arm)
        assert x.min() >= 0 and x.max() <= 1
        assert_mean(x, exact, what=f"clipped gaussian arm {arm}")
    assert env.support(p) == (0.0, 1.0)


@pytest.mark.parametrize("rate", [1e-4, 5e-3, 0.1, 1.0, 2.0, 5.0, 10.0, 50.0])
def test_truncexp_mean_formula(rate):
    """Mean 1/λ − 1/(e^λ − 1) (seed 001 §5) against numerical integration of the truncated density."""
    env, p = envs.make("truncexp", rates=[rate])
    density = lambda x: rate * math.exp(-rate * x) / -math.expm1(-rate)
    exact = integrate.quad(lambda x: x * density(x), 0, 1)[0]
    assert float(env.means(p)[0]) == pytest.approx(exact, rel=1e-5)


def test_mixture_arms_follow_their_families():
    arms = [("bernoulli", {"means": 0.9}), ("beta", {"alpha": 4.0, "beta": 1.0}),
            ("two-point", {"low": 0.4, "high": 1.0, "p_high": 0.5}), ("uniform", {"low": 0.0, "high": 1.0}),
            ("bernoulli", {"means": 0.6})]
    env, p = envs.make("mixture", arms=arms)
    assert env.num_arms == 5
    np.testing.assert_allclose(np.asarray(env.means(p)), [0.9, 0.8, 0.7, 0.5, 0.6], rtol=1e-6)
    assert_cdf(sample_env(env, p, 1, N, seed=3), stats.beta(4, 1).cdf, "mixture beta arm")
    assert_cdf(sample_env(env, p, 3, N, seed=4), stats.uniform(0, 1).cdf, "mixture uniform arm")
    x = sample_env(env, p, 4, N, seed=5)
    assert set(np.unique(x)) <= {0.0, 1.0}
    assert_mean(x, 0.6, 0.24, "mixture bernoulli arm")


def test_common_random_numbers_across_arms_of_a_step():
    """One uniform per step drives every inverse-CDF family: the same step gives coupled rewards."""
    env, p = envs.make("bernoulli", means=[0.2, 0.7])
    lo, hi = sample_env(env, p, 0, 10_000, seed=9), sample_env(env, p, 1, 10_000, seed=9)
    assert np.all(lo <= hi)  # u < 0.2 implies u < 0.7


def test_open_uniform_excludes_endpoints():
    import jax
    u = np.asarray(envs.open_uniform(jax.random.key(0), (1_000_000,)))
    assert u.min() > 0 and u.max() < 1
    assert_cdf(u, stats.uniform.cdf, "open uniform")


@pytest.mark.parametrize("name,params,match", [
    ("bernoulli", {"means": [0.2, 1.2]}, r"means=.*outside the valid range \[0, 1\]"),
    ("bernoulli", {"means": [0.2, float("nan")]}, "NaN"),
    ("gaussian", {"means": [0.0, float("inf")]}, "finite"),
    ("gaussian", {"means": [0.0], "stds": [0.0]}, r"stds=.*\(0, inf\)"),
    ("gaussian", {"means": [0.0], "low": 1.0, "high": 0.0}, "low"),
    ("truncexp", {"rates": [1.0, -2.0]}, r"rates=.*\(0, inf\)"),
    ("beta", {"alpha": [1.0, 2.0], "beta": [1.0]}, "mismatched lengths"),
    ("beta", {"alpha": [1.0], "beta": [0.0]}, r"beta=.*\(0, inf\)"),
    ("uniform", {"low": [1.0], "high": [0.0]}, "low"),
    ("two-point", {"low": [0.0], "high": [1.0], "p_high": [1.5]}, r"p_high=.*\[0, 1\]"),
    ("bernoulli", {"mean": [0.5]}, "unknown parameter"),
    ("bernoulli", {}, "needs parameter 'means'"),
    ("poisson", {"means": [1.0]}, "unknown environment 'poisson'; valid names: bernoulli"),
])
def test_bad_environment_parameters(name, params, match):
    with pytest.raises(ValueError, match=match):
        envs.make(name, **params)


def test_params_dtype_follows_x64():
    import jax
    with jax.enable_x64(True):
        _, p = envs.make("bernoulli", means=[0.1, 0.2])
        assert p.means.dtype == jnp.float64
    _, p = envs.make("bernoulli", means=[0.1, 0.2])
    assert p.means.dtype == jnp.float32
