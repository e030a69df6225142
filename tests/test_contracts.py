"""Contract tests over every registry (policies, privatizers, environments).

For each registered component, in a small configuration (tests/golden.py's cases):
  * `rollout` jits and vmaps, and is traced once: new parameter values and new keys do not retrace it
    (`chex.assert_max_traces`);
  * vmapped equals looped: a run's numbers do not depend on its place in a batch or its companions, bit for bit
    (a batch of the same shape with other runs, so no second compilation);
  * chunked equals unchunked: the driver streaming one block per chunk equals one `rollout` over the whole horizon;
  * the driver compiles once per chunk shape: new parameter values reuse it;
  * every output is finite, and the pull counts add up to the horizon;
  * same seed, same numbers: the outputs equal those recorded by the engine before the core-v2 refactor
    (tests/golden.py, ``CONTRACT_PATH``; the larger golden cases run in the slow tier, tests/test_golden.py).

The default suite runs a policy of each policy module (on Bernoulli arms), two channels and two environments (a
mixture of families, heavy tails); the slow tier runs the rest.
"""
import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import engine, envs, policies, privatizers
from jaxbandit.random import threefry
from tests import golden
from tests.helpers import POLICY_PER_MODULE, default_subset

HORIZON, RUNS, SEED = 100, 3, 5
TIMES = np.array([1, 50, 51, 100])


def _reversed(tree, num_arms=None):
    """The same parameters with vector leaves (of length ``num_arms`` if given) reversed: new values, still valid."""
    def flip(x):
        return x[::-1] if np.ndim(x) == 1 and (num_arms is None or np.shape(x)[0] == num_arms) else x
    return jax.tree.map(flip, tree)


def _alternative(component, params, num_arms):
    """Other valid values of a component's params, made as a user makes them (`checks.with_params`): scalars from
    its defaults, per-arm leaves reversed; a value set where the default leaves it to the run (``None``: the T known
    to the policy) is kept, so that the params keep their structure."""
    fields = {f: p if np.ndim(p) or d is None else d
              for f, p, d in zip(params._fields, params, component.default_params)}
    return _reversed(jb.checks.with_params(component, **fields), num_arms)


def check_contract(key, env, policy, privatizer="identity", env_params=None, policy_params=None,
                   privatizer_params=None, horizon=HORIZON):
    env_o, pol_o, priv_o, params = jb.resolve(env, policy, privatizer, env_params=env_params,
                                              policy_params=policy_params, policy_options=golden.options(key),
                                              privatizer_params=privatizer_params)
    K = env_o.num_arms
    alt = jb.SimParams(_reversed(params.env), _alternative(pol_o, params.policy, K),
                       _alternative(priv_o, params.privatizer, K))
    jb.spec.check(env_o, pol_o, priv_o, alt)
    assert any(not np.array_equal(a, b) for a, b in zip(jax.tree.leaves(alt), jax.tree.leaves(params)))

    run = jb.rollout(env_o, pol_o, priv_o, horizon=horizon, record_times=TIMES, unroll=1)
    keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(threefry.key(SEED), jnp.arange(RUNS + 2))
    chex.clear_trace_counter()  # chex counts traces per function definition, across tests
    batched = jax.jit(jax.vmap(chex.assert_max_traces(run, n=1), in_axes=(0, None)))
    trace = batched(keys[:RUNS], params)
    # Vmapped equals looped: runs 0 and 2 again, at other places in a batch with other companions.
    again = batched(jnp.stack([keys[RUNS], keys[2], keys[RUNS + 1], keys[0]][:RUNS]), params)
    chex.assert_trees_all_equal(jax.tree.map(lambda x: x[1], again), jax.tree.map(lambda x: x[2], trace))
    other = batched(keys[:RUNS], alt)  # new parameter values: no retrace (assert_max_traces raises otherwise)
    for t in (trace, other):
        for leaf in t:
            assert np.all(np.isfinite(np.asarray(leaf, np.float64)))
        np.testing.assert_array_equal(np.asarray(t.counts).sum(-1), horizon)

    # Chunked equals unchunked: the driver, one block per chunk and runs batched last, equals rollout.
    kwargs = dict(env=env_o, policy=pol_o, privatizer=priv_o, horizon=horizon, runs=RUNS, seed=SEED, record=TIMES,
                  chunk_steps=engine.BLOCK, progress=False, unroll=1)
    before = len(engine._ADVANCE_CACHE)
    chunked = jb.simulate(env_params=params.env, policy_params=params.policy, privatizer_params=params.privatizer,
                          **kwargs)
    np.testing.assert_array_equal(chunked.pseudo_regret, trace.pseudo_regret)
    np.testing.assert_array_equal(chunked.regret, trace.regret)
    np.testing.assert_array_equal(chunked.counts, trace.counts)
    with np.load(golden.CONTRACT_PATH) as recorded:
        for field in ("pseudo_regret", "regret", "counts"):
            np.testing.assert_array_equal(getattr(chunked, field), recorded[f"{key}:{field}"], err_msg=field)
    fns = [entry[-1] for entry in list(engine._ADVANCE_CACHE.values())[before:]]
    jb.simulate(env_params=alt.env, policy_params=alt.policy, privatizer_params=alt.privatizer, **kwargs)
    assert len(engine._ADVANCE_CACHE) == before + len(fns) and all(f._cache_size() == 1 for f in fns)


def test_every_registry_entry_has_a_contract_case():
    assert set(golden.POLICY_CASES) == set(policies.names())
    assert set(golden.PRIVATIZER_CASES) == set(privatizers.names())
    assert set(golden.ENV_CASES) | {"mixture"} == set(envs.names())


def test_every_registration_states_its_privacy_as_its_objects_do():
    """A registration's ``private`` flag is whether the component built on its golden case carries an accountant,
    and a private one lists at least one audit (`jaxbandit.registry`)."""
    for registry in (policies.REGISTRY, privatizers.REGISTRY):
        for entry in registry.entries():
            g = entry.golden
            if registry is policies.REGISTRY:
                env_o, component, _, _ = jb.resolve(g.env, entry.name, g.privatizer, env_params=g.env_params,
                                                    policy_params=g.params, privatizer_params=g.privatizer_params)
            else:
                component = privatizers.make(entry.name, **g.params)[0]
            assert entry.private == (component.accountant is not None), entry.name
            assert bool(entry.audits) == entry.private, entry.name


def test_the_default_suite_covers_every_policy_module_once():
    modules = {name: policies.REGISTRY[name].__module__ for name in policies.names()}
    chosen = sorted(modules[name] for name in POLICY_PER_MODULE)
    assert chosen == sorted(set(modules.values())), chosen


# The default suite checks one policy of each policy module, the slow tier the others; the golden cases (slow tier)
# check every policy bit for bit at a longer horizon with a tail block.
@pytest.mark.parametrize("name", default_subset(sorted(golden.POLICY_CASES), POLICY_PER_MODULE))
def test_policy_contract(name):
    env, ep, pp, priv, qp, _ = golden.POLICY_CASES[name]
    check_contract(f"policy/{name}", env, name, priv, ep, pp, qp, golden.CONTRACT_HORIZONS.get(name, HORIZON))


DISCRETE_DEFAULT = ("dp-ucb", "gaussian-thompson")  # the exact Laplace release and the tail-safe normal: rest slow


@pytest.mark.parametrize("name", default_subset(sorted(golden.DISCRETE_CASES), DISCRETE_DEFAULT))
def test_discrete_noise_policy_contract(name):
    """The default floating-point-safe draws (the float draw is the recorded case above, release="float")."""
    env, ep, pp, priv, qp, _ = golden.DISCRETE_CASES[name]
    check_contract(f"policy-discrete/{name}", env, name, priv, ep, pp, qp, golden.CONTRACT_HORIZONS.get(name, HORIZON))


@pytest.mark.parametrize("name", default_subset(sorted(golden.PRIVATIZER_CASES),
                                                ("randomized-response", "quadratic")))
def test_privatizer_contract(name):
    check_contract(f"privatizer/{name}", "bernoulli", "ucb1", name, {"means": golden.MEANS4}, None,
                   golden.PRIVATIZER_CASES[name])


ENV_CASES = {**golden.ENV_CASES, "mixture": {"arms": [("bernoulli", {"means": 0.4}), ("beta", {"alpha": 2.0, "beta": 1.0}),
                                                      ("bernoulli", {"means": 0.6})]}}


@pytest.mark.parametrize("name", default_subset(sorted(ENV_CASES), ("mixture", "pareto")))
def test_env_contract(name):
    check_contract(f"env/{name}", name, "ucb1", env_params=ENV_CASES[name])
