"""Shared test helpers: statistical thresholds and direct sampling of environments and policies."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from jaxbandit import policies
from jaxbandit.random import threefry
from jaxbandit.types import StepRandom

ALPHA = 1e-6                                   # false-alarm rate of every statistical assertion
Z = float(stats.norm.isf(ALPHA / 2))           # two-sided z threshold (4.89)



def _policy_per_module(preferred) -> tuple:
    """One registered policy of each policy module: the ``preferred`` one where the module has it, else its first
    by name (so that a new family module is covered with no edit here)."""
    modules = {}
    for name in policies.names():
        modules.setdefault(policies.REGISTRY[name].__module__, []).append(name)
    return tuple(next((p for p in preferred if p in names), names[0]) for names in modules.values())


# One policy of each policy module (its own step code): the default suite's cases of per-policy tests
# (tests/test_contracts.py checks that every module has exactly one).
POLICY_PER_MODULE = _policy_per_module(("modified-thompson", "klucb", "ucb-cf", "dp-ucb-int", "dp-se", "dp-ftpl-new",
                                        "dp-rse", "epsilon-greedy", "linucb"))


def default_subset(values, default, *, several=False):
    """``values`` as pytest parameters, those outside ``default`` marked slow: the default suite runs one case per
    family (or as ``default`` says), the slow tier the rest, so every case runs once in CI. ``several``: each value
    is a tuple of several arguments."""
    missing = [v for v in default if v not in values]
    assert not missing, f"default cases not among the values: {missing}"
    slow = lambda v: pytest.param(*(v if several else (v,)), marks=pytest.mark.slow)
    return [v if v in default else slow(v) for v in values]


def ks_threshold(n):
    """Kolmogorov–Smirnov critical value at false-alarm rate ALPHA (asymptotic, n large)."""
    return math.sqrt(-math.log(ALPHA / 2) / (2 * n))


def sample_env(env, params, arm, n, seed=0):
    """n rewards of ``arm`` drawn exactly as the engine draws them (block noise + per-step keys)."""
    # key, arm and params are arguments, not constants: other arms and seeds of an environment are the same program
    # (a persistent-cache hit, not a compilation)
    @jax.jit
    def go(key, arm, params):
        noise = env.draw(key, n, params)
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(key, jnp.arange(n))
        return jax.vmap(lambda k, nz: env.sample(StepRandom(k, nz), arm, params))(keys, noise)

    return np.asarray(go(threefry.key(seed), jnp.int32(arm), params), dtype=np.float64)


def assert_mean(x, mean, var=None, what=""):
    """z-test of the sample mean against ``mean`` (variance: exact if given, else the sample variance)."""
    n = len(x)
    var = np.var(x, ddof=1) if var is None else var
    if var == 0:
        assert np.all(x == mean), what
        return
    z = (np.mean(x) - mean) / math.sqrt(var / n)
    assert abs(z) < Z, f"{what}: sample mean {np.mean(x):.6g} vs {mean:.6g} (z={z:.2f}, threshold {Z:.2f})"


def assert_variance(x, var, mu4, what=""):
    """z-test of the sample variance against ``var``; Var(s^2) ≈ (μ4 − σ^4)/n with μ4 the 4th central moment."""
    n = len(x)
    se = math.sqrt(max(mu4 - var ** 2, 0.0) / n)
    if se == 0:
        assert np.var(x) == var, what
        return
    z = (np.var(x, ddof=1) - var) / se
    assert abs(z) < Z, f"{what}: sample variance {np.var(x, ddof=1):.6g} vs {var:.6g} (z={z:.2f})"


def assert_cdf(x, cdf, what=""):
    """One-sample KS test against an exact CDF at false-alarm rate ALPHA."""
    d = stats.kstest(x, cdf).statistic
    assert d < ks_threshold(len(x)), f"{what}: KS distance {d:.4g} >= {ks_threshold(len(x)):.4g}"
