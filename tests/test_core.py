"""The pure core and the object-first API: `rollout` composes with jit / vmap / grad and equals the drivers bit for
bit; user-written components run without a registry; one validation layer for every entry point; the registries
share one shape and every subpackage's public names import."""
import importlib
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import envs, policies, privatizers
from jaxbandit.random import threefry
from jaxbandit.privatizers import randomized_response as rr
from jaxbandit.types import StepRandom, no_draw, no_validate
from tests.helpers import default_subset

MEANS = [0.2, 0.5, 0.45, 0.7]
TIMES = np.array([1, 49, 50, 51, 120, 333])


def _keys(seed, runs):
    return jax.vmap(jax.random.fold_in, in_axes=(None, 0))(threefry.key(seed), jnp.arange(runs))


@pytest.mark.parametrize("name", default_subset(["gaussian-thompson", "dp-ucb-int"], ["gaussian-thompson"]))
def test_vmapped_rollout_equals_simulate_bit_for_bit(name):
    env, pol, priv, params = jb.resolve("bernoulli", name, env_params={"means": MEANS})
    run = jb.rollout(env, pol, priv, horizon=333, record_times=TIMES, unroll=1)
    trace = jax.jit(jax.vmap(run, in_axes=(0, None)))(_keys(7, 5), params)
    res = jb.simulate("bernoulli", name, env_params={"means": MEANS}, horizon=333, runs=5, seed=7, record=TIMES,
                      progress=False)
    np.testing.assert_array_equal(np.asarray(trace.pseudo_regret), res.pseudo_regret)
    np.testing.assert_array_equal(np.asarray(trace.regret), res.regret)
    np.testing.assert_array_equal(np.asarray(trace.counts), res.counts)


def test_rollout_vmaps_over_a_params_leaf_like_sweep():
    env, pol, priv, params = jb.resolve("bernoulli", "modified-thompson", env_params={"means": MEANS})
    run = jb.rollout(env, pol, priv, horizon=200, record_times=np.array([200]), unroll=1)
    cs = jnp.asarray([1.0, 4.0, 16.0])
    with_c = lambda c: params._replace(policy=params.policy._replace(c=c))
    over_c = jax.vmap(lambda c: jax.vmap(run, in_axes=(0, None))(_keys(2, 4), with_c(c)))
    trace = jax.jit(over_c)(cs)
    res = jb.sweep("bernoulli", "modified-thompson", env_params={"means": MEANS}, grid={"policy.c": [1.0, 4.0, 16.0]},
                   horizon=200, runs=4, seed=2, record=np.array([200]), progress=False)
    np.testing.assert_array_equal(np.asarray(trace.pseudo_regret), res.pseudo_regret)
    np.testing.assert_array_equal(np.asarray(trace.counts), res.counts)


def test_rollout_is_pure_and_composes_with_grad():
    env, pol, priv, params = jb.resolve("bernoulli", "modified-thompson", env_params={"means": MEANS})
    run = jb.rollout(env, pol, priv, horizon=60, unroll=1)
    key = threefry.key(0)
    a, b = run(key, params), run(key, params)  # no hidden state: same key, same numbers
    np.testing.assert_array_equal(np.asarray(a.regret), np.asarray(b.regret))
    assert a.pseudo_regret.shape == (len(jb.record_times(60)),) and a.counts.shape == (4,)
    assert int(a.counts.sum()) == 60

    # The arm choice is an argmax: the pathwise gradient exists and is zero (issue: score-function estimators).
    def final(c):
        return run(key, params._replace(policy=params.policy._replace(c=c))).regret[-1]
    assert float(jax.grad(final)(jnp.float32(2.0))) == 0.0


def test_an_eager_rollout_is_one_program_with_the_numbers_of_a_jitted_one():
    """Called eagerly, `rollout`'s run compiles one program (its scans compiled alone, with the concrete key and
    parameters as constants, took XLA over 250 s on DPRUCB's 5-step tail block: the slow tier's timeout of stop
    58), and gives the numbers of ``jax.jit(run)``."""
    env, pol, priv, params = jb.resolve("pareto", "dp-rucb", env_params={"means": [0.9, 0.7, 0.5, 0.3, 0.1]})
    run = jb.rollout(env, pol, priv, horizon=5, record_times=[1, 2, 3, 4, 5])
    eager, jitted = run(threefry.key(0), params), jax.jit(run)(threefry.key(0), params)
    for a, b in zip(eager, jitted):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(eager.counts, [1, 1, 1, 1, 1])  # rounds 1..K pull each arm once


def test_rollout_accepts_names_and_checks_its_inputs():
    env, p = envs.make("bernoulli", means=MEANS)
    run = jb.rollout(env, "ucb1", horizon=10)
    params = jb.SimParams(p, policies.make("ucb1", 4)[1], privatizers.make("identity")[1])
    assert run(threefry.key(0), params).counts.sum() == 10
    with pytest.raises(ValueError, match="needs its parameters to know its arms"):
        jb.rollout("bernoulli", "ucb1", horizon=10)
    with pytest.raises(ValueError, match="horizon=0"):
        jb.rollout(env, "ucb1", horizon=0)
    with pytest.raises(ValueError, match="strictly increasing"):
        jb.rollout(env, "ucb1", horizon=10, record_times=[5, 3])
    with pytest.raises(ValueError, match="built for 3 arms but environment 'bernoulli' has 4"):
        jb.rollout(env, policies.get("ucb1", 3), horizon=10)
    with pytest.raises(ValueError, match="policy must be a registry name or a jaxbandit.Policy"):
        jb.rollout(env, 42, horizon=10)
    # concrete params are validated when the run is called eagerly ...
    bad = params._replace(env=p._replace(means=jnp.asarray([0.2, 0.5, 0.45, 1.5])))
    with pytest.raises(ValueError, match=r"means=.*outside the valid range \[0, 1\]"):
        run(threefry.key(0), bad)
    # ... and shapes are checked under jit too
    rr_run = jb.rollout(env, "ucb1", "randomized-response", horizon=10)
    rr_params = params._replace(privatizer=rr.RRParams(jnp.full(3, 0.9), jnp.full(3, 0.9)))
    with pytest.raises(ValueError, match="per-arm with 3 entries, but environment 'bernoulli' has 4"):
        jax.jit(rr_run)(threefry.key(0), rr_params)


# The user-defined policy of docs/concepts/own_policy.md, kept in sync with it (tests/test_readme.py runs the page).
class ETCParams(NamedTuple):
    m: jax.Array  # pulls of each arm before committing


class ETCState(NamedTuple):
    sums: jax.Array
    counts: jax.Array


def explore_then_commit(num_arms):
    def init(params):
        return ETCState(jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32))

    def select(rng, state, params):
        t = state.counts.sum()
        greedy = jnp.argmax(state.sums / jnp.maximum(state.counts, 1))
        return jnp.where(t < params.m * num_arms, t % num_arms, greedy).astype(jnp.int32)

    def update(rng, state, arm, reward, params):
        hit = jnp.arange(num_arms) == arm
        return ETCState(state.sums + hit * reward, state.counts + hit)

    return jb.Policy(name="etc", num_arms=num_arms, init=init, draw=no_draw, select=select, update=update,
                     validate=no_validate, default_params=ETCParams(jnp.asarray(10, jnp.int32)))


def test_user_written_policy_runs_without_any_registry():
    etc = explore_then_commit(4)
    assert "etc" not in policies.names()
    res = jb.simulate("bernoulli", etc, env_params={"means": MEANS}, policy_params={"m": 5}, horizon=300, runs=6,
                      progress=False)
    # the first 5·K rounds are round-robin: every run pulls each arm at least 5 times
    assert np.all(res.counts >= 5) and np.all(res.counts.sum(-1) == 300)
    grid = jb.sweep("bernoulli", etc, env_params={"means": MEANS}, grid={"policy.m": [1, 5, 50]}, horizon=300,
                    runs=6, progress=False)
    np.testing.assert_array_equal(grid.sel(**{"policy.m": 5}).counts, res.counts)
    assert res.config["policy"] == "etc" and res.config["objects"] == ["policy"]
    assert res.config["policy_params"] == {"m": 5}
    with pytest.raises(ValueError, match="user-written policy object"):
        jb.rerun(res)
    again = jb.rerun(res, policy=etc)
    np.testing.assert_array_equal(again.pseudo_regret, res.pseudo_regret)
    with pytest.raises(ValueError, match="unknown parameter"):
        jb.simulate("bernoulli", etc, env_params={"means": MEANS}, policy_params={"n": 5}, horizon=10, runs=1)


def test_user_written_env_and_privatizer_objects():
    env, p = envs.make("bernoulli", means=MEANS)
    priv, q = privatizers.make("linear", epsilon=2.0)
    by_object = jb.simulate(env, "ucb1", privatizer=priv, env_params=p, privatizer_params={"epsilon": 2.0},
                            horizon=120, runs=3, seed=4, progress=False)
    by_name = jb.simulate("bernoulli", "ucb1", privatizer="linear", env_params={"means": MEANS},
                          privatizer_params={"epsilon": 2.0}, horizon=120, runs=3, seed=4, progress=False)
    np.testing.assert_array_equal(by_object.pseudo_regret, by_name.pseudo_regret)
    assert by_object.config["objects"] == ["env", "privatizer"]
    with pytest.raises(ValueError, match="must be a Mapping of fields or a BernoulliParams|must be a Mapping"):
        jb.simulate(env, "ucb1", env_params=[0.1, 0.2], horizon=10, runs=1)


def test_gdp_thompson_policies_need_rewards_in_unit_interval():
    for name in ("gaussian-thompson", "modified-thompson"):
        with pytest.raises(ValueError, match=f"policy '{name}' needs observations in \\[0, 1\\]"):
            jb.simulate("gaussian", name, env_params={"means": [0.2, 0.8]}, horizon=10, runs=1)
    res = jb.simulate("gaussian", "modified-thompson", env_params={"means": [0.2, 0.8], "low": 0.0, "high": 1.0},
                      horizon=10, runs=1, progress=False)  # rewards bounded to [0, 1]: accepted
    assert res.counts.sum() == 10


def test_randomized_response_clamps_its_input():
    """A reward outside [0, 1] (or NaN) is clamped before the channel: the threshold stays between t0 and t1, so
    the released bit keeps the channel's LDP level for any input."""
    params = rr.RRParams(jnp.float32(0.8), jnp.float32(0.7))
    u = jnp.linspace(0, 1, 4001, endpoint=False, dtype=jnp.float32)
    apply = jax.jit(jax.vmap(lambda u, r: rr.RANDOMIZED_RESPONSE.apply(StepRandom(None, u), 0, r, params),
                             in_axes=(0, None)))
    freq = lambda r: float(apply(u, jnp.float32(r)).mean())
    assert freq(2.0) == freq(1.0) and freq(-3.0) == freq(0.0) and freq(float("nan")) == freq(0.5)
    assert freq(1.0) == pytest.approx(0.7, abs=1e-3) and freq(0.0) == pytest.approx(0.2, abs=1e-3)


def test_registries_share_one_shape_with_docstring_descriptions():
    for registry in (policies.REGISTRY, envs.REGISTRY, privatizers.REGISTRY):
        assert list(registry) == registry.names() == sorted(registry.names())
        for name in registry:
            description = registry.describe(name)
            assert description and "\n" not in description and len(description) <= 120, (name, description)
        with pytest.raises(ValueError, match=f"unknown {registry.kind}"):
            registry["no-such-name"]


@pytest.mark.parametrize("module", ["jaxbandit", "jaxbandit.envs", "jaxbandit.policies", "jaxbandit.privatizers",
                                    "jaxbandit.accounting", "jaxbandit.mechanisms", "jaxbandit.audit",
                                    "jaxbandit.random", "jaxbandit.engine", "jaxbandit.simulation", "jaxbandit.epochs",
                                    "jaxbandit.spec", "jaxbandit.registry", "jaxbandit.experiments",
                                    "jaxbandit.mechanisms.counters", "jaxbandit.accounting.composition",
                                    "jaxbandit.accounting.accountants"])
def test_public_names_import(module):
    mod = importlib.import_module(module)
    assert mod.__all__, module
    for name in mod.__all__:
        assert getattr(mod, name) is not None, f"{module}.{name}"
    namespace = {}
    exec(f"from {module} import *", namespace)
    assert set(mod.__all__) <= set(namespace)


def test_step_random_noise_is_the_former_name_of_drawn():
    """``StepRandom.drawn`` is the step's slice of the component's block draw; ``noise``, its former name (which the
    privacy noise also had), still reads it, with a deprecation warning."""
    rng = StepRandom(threefry.key(0), jnp.arange(3))
    assert rng.drawn is rng[1]
    with pytest.warns(DeprecationWarning, match="drawn"):
        assert rng.noise is rng.drawn


def test_with_fields_keeps_each_fields_dtype():
    """`types.with_fields`, the one setter of tuned, swept or calibrated parameters: each value takes the dtype of the
    one it replaces (an int32 b stays int32, a float32 c float32), as a JAX or (``host=True``) a NumPy array."""
    from jaxbandit.types import with_fields
    _, params = policies.make("modified-thompson", 3, b=2, c=1.5)
    new = with_fields(params, {"b": 7.0, "c": 0.1})
    assert new.b.dtype == params.b.dtype and new.c.dtype == params.c.dtype and int(new.b) == 7
    assert float(new.c) == float(np.float32(0.1)) and isinstance(new.c, jax.Array)
    host = with_fields(params, {"c": 0.1}, host=True)
    assert isinstance(host.c, np.ndarray) and host.c.dtype == np.asarray(params.c).dtype
