"""The phased-policy combinator (`jaxbandit.policies.phased`) on its own: tiny policies built on it, checked against
hand computations (global phases with elimination and an endless last phase; per-arm doubling batches with
forgetting), and the worked example of its docstring (DPRSE, spec 004 Algorithm 3) executed and checked step for step
against a NumPy reference."""
import math
import textwrap
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbandit.policies import elimination
from jaxbandit.policies.common import onehot
from jaxbandit.policies.phased import PhasedState, phased, round_robin, when
from jaxbandit.types import StepRandom


def run(policy, params, rewards, noise=None):
    """(final state, (arms, states before each step)) of ``policy`` when round t's reward of arm a is
    rewards[t, a] and its noise is noise[t]; ``rewards`` may instead be a pair (arms, observations) forced through
    ``update``."""
    forced = isinstance(rewards, tuple)
    steps = len(rewards[0]) if forced else len(rewards)

    def step(state, xs):
        t, nz = xs
        rng = StepRandom(jax.random.key(0), nz)
        if forced:
            arm, obs = rewards[0][t], rewards[1][t]
        else:
            arm = policy.select(rng, state, params)
            obs = rewards[t, arm]
        return policy.update(rng, state, arm, obs, params), (arm, state)

    noise = jnp.zeros(steps) if noise is None else noise
    out = jax.jit(lambda: jax.lax.scan(step, policy.init(params), (jnp.arange(steps), noise)))()
    return jax.tree.map(np.asarray, out)


class SEState(NamedTuple):
    active: jax.Array
    sums: jax.Array
    phase: jax.Array


def plain_elimination(num_arms, pulls=2, width=0.6):
    """Non-private successive elimination: phase k pulls every active arm ``pulls`` times round-robin, then
    eliminates the arms whose phase mean is more than width/k below the best, and forgets the phase's rewards."""

    def release(rng, s, arm, length, params):
        assert length.shape == ()
        active = elimination.eliminate(s.active, s.sums / pulls, width / s.phase)
        return SEState(active, jnp.zeros_like(s.sums), s.phase + 1)

    return phased(
        "plain-se", num_arms,
        init=lambda p: SEState(jnp.ones(num_arms, bool), jnp.zeros(num_arms), jnp.int32(1)),
        phase_length=lambda s, p: jnp.where(jnp.sum(s.active) > 1, pulls * jnp.sum(s.active), 0),
        select=lambda rng, state, p: round_robin(state.inner.active, state.count),
        observe=lambda rng, s, arm, x, p: s._replace(sums=s.sums + onehot(arm, num_arms, s.sums.dtype) * x),
        end_phase=release)


def test_global_phases_match_a_hand_computation():
    """Rewards 1, 0.5, 0 (arms 0, 1, 2). Phase 1 (6 pulls): means 1, 0.5, 0, width 0.6: arm 2 goes. Phase 2
    (4 pulls): means 1, 0.5, width 0.3: arm 1 goes. Then arm 0 alone: a phase that never ends (length 0)."""
    policy = plain_elimination(3)
    state, (arms, states) = run(policy, None, jnp.tile(jnp.asarray([1.0, 0.5, 0.0]), (14, 1)))
    np.testing.assert_array_equal(arms, [0, 1, 2, 0, 1, 2, 0, 1, 0, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(states.length, [6] * 6 + [4] * 4 + [0] * 4)
    np.testing.assert_array_equal(states.count, [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 0, 1, 2, 3])
    np.testing.assert_array_equal(states.inner.phase, [1] * 6 + [2] * 4 + [3] * 4)
    np.testing.assert_array_equal(states.inner.active[6], [True, True, False])
    np.testing.assert_array_equal(states.inner.active[10], [True, False, False])
    np.testing.assert_array_equal(states.inner.sums[[6, 10]], 0)  # forgotten at each phase end
    np.testing.assert_array_equal(states.inner.sums[9], [2.0, 0.5, 0.0])  # within a phase: accumulated (arms 0, 1, 0)
    assert int(state.count) == 4 and float(state.inner.sums[0]) == 4.0  # the last phase keeps counting


def test_per_arm_phases_match_a_hand_computation():
    """Arm 0 sees 1 | 0 1 | 1 0 1 1 (batches of 1, 2, 4), arm 1 sees 0 | 1 1 | 0 (interleaved): releases at steps
    0, 1, 4, 5, 10; the final means are 3/4 and 2/2; arm 1 is 1 pull into a batch of 4."""
    num_arms = 2

    def release(rng, s, arm, length, params):
        assert length.shape == ()  # the pulled arm's phase
        hit = onehot(arm, num_arms) == 1
        return s._replace(mean=jnp.where(hit, s.buffer / length, s.mean), buffer=jnp.where(hit, 0.0, s.buffer),
                          size=jnp.where(hit, length, s.size))

    class State(NamedTuple):
        mean: jax.Array
        buffer: jax.Array
        size: jax.Array

    with pytest.warns(DeprecationWarning, match="end_phase"):  # release: the former name of end_phase
        policy = phased(
            "batches", num_arms,
            init=lambda p: State(jnp.zeros(num_arms), jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32)),
            phase_length=lambda s, p: jnp.where(s.size == 0, 1, 2 * s.size),
            select=lambda rng, state, p: jnp.int32(0),
            observe=lambda rng, s, arm, x, p: s._replace(buffer=s.buffer + onehot(arm, num_arms, s.buffer.dtype) * x),
            release=release)
    arms = jnp.asarray([0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0])
    obs = jnp.asarray([1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1], jnp.float32)
    final, (_, states) = run(policy, None, (arms, obs))
    sizes = np.concatenate([states.inner.size, final.inner.size[None]])  # before each step, then at the end
    np.testing.assert_array_equal(np.flatnonzero(np.any(np.diff(sizes, axis=0) != 0, axis=1)), [0, 1, 4, 5, 10])
    np.testing.assert_array_equal(states.inner.mean[6], [0.5, 1.0])  # arm 0's batch of 2: (0 + 1) / 2, not 2 / 3
    np.testing.assert_array_equal(final.inner.mean, [0.75, 1.0])
    np.testing.assert_array_equal(final.inner.size, [4, 2])
    np.testing.assert_array_equal(final.count, [0, 1])
    np.testing.assert_array_equal(final.length, [8, 4])
    np.testing.assert_array_equal(final.inner.buffer, [0.0, 0.0])  # arm 1's one pull of its batch of 4 was a 0


def test_state_is_fixed_shape_and_vmaps():
    policy = plain_elimination(3)
    state = policy.init(None)
    assert isinstance(state, PhasedState) and state.count.dtype == jnp.int32 and state.length.dtype == jnp.int32
    states = jax.vmap(lambda x: policy.update(StepRandom(None, None), state, jnp.int32(0), x, None))(jnp.ones(4))
    np.testing.assert_array_equal(states.count, [1] * 4)


# ------------------------------------------------------------------------------- the docstring's DPRSE example
def docstring_example():
    doc = phased.__doc__
    start = doc.index("::\n") + 3
    block = doc[start:doc.index("    The LDP variant")]
    namespace = {"NamedTuple": NamedTuple, "jax": jax, "jnp": jnp}
    exec(textwrap.dedent(block), namespace)
    return namespace


def dprse_reference(rewards, laplace, eps, beta, u, v):
    """Tao et al. 2022, Algorithm 3 (spec 004 §2.3), written from the box in float64; stops at T mid-epoch."""
    T, K = rewards.shape
    active, arms, t, tau = list(range(K)), [], 0, 1
    while t < T:
        if len(active) == 1:
            return np.asarray(arms + [active[0]] * (T - t))
        s = len(active)
        log_l = math.log(4 * s * tau ** 2 / beta)
        R = math.ceil(u ** (1 / v) * 24 ** ((1 + v) / v) * log_l / (eps * (2.0 ** -tau) ** ((1 + v) / v)) + 1)
        B = (u * R * eps / log_l) ** (1 / (1 + v))
        sums = np.zeros(K)
        for p in range(R * s):
            if t == T:
                return np.asarray(arms)
            a = active[p % s]
            arms.append(a)
            sums[a] += rewards[t, a] if abs(rewards[t, a]) <= B else 0.0
            t += 1
        noisy = {a: sums[a] / R + laplace[t - 1, a] * 2 * B / (R * eps) for a in active}
        err = u ** (1 / (1 + v)) * (log_l / (R * eps)) ** (v / (1 + v))
        best = max(noisy.values())
        active = [a for a in active if best - noisy[a] <= 12 * err]
        tau += 1
    return np.asarray(arms)


def test_docstring_dprse_example_matches_its_reference():
    ns = docstring_example()
    K, T = 3, 3000
    policy = ns["dprse"](K)
    params = ns["DPRSEParams"](*map(jnp.asarray, (2.0, 0.5, 0.05, 1.0)))  # ε, β, u, v: short epochs
    rng = np.random.default_rng(4)
    # heavy right tail (Pareto, α = 1.5), means 0.9, 0.3, 0.5: some rewards exceed B_τ and are zeroed
    rewards = ((1 - rng.random((T, K))) ** (-1 / 1.5) * np.asarray([0.3, 0.1, 1 / 6])).astype(np.float32)
    laplace = rng.laplace(size=(T, K)).astype(np.float32)
    _, (arms, states) = run(policy, params, jnp.asarray(rewards), jnp.asarray(laplace))
    expected = dprse_reference(rewards.astype(np.float64), laplace.astype(np.float64), 2.0, 0.5, 0.05, 1.0)
    np.testing.assert_array_equal(arms, expected)
    assert np.asarray(states.inner.active)[-1].sum() == 1  # the test reaches the commitment
    bound = float(states.inner.bound[0])
    assert np.any(rewards[: int(states.length[0])] > bound)  # and exercises the truncation


def test_when_computes_only_where_needed_and_keeps_each_runs_value():
    calls = []

    def double_plus(x, y):
        jax.debug.callback(lambda: calls.append(1))  # one call per evaluation of the batch's release
        return {"v": 2.0 * x + y}

    def step(pred, x):
        return when(pred, double_plus, (x, 1.0), {"v": -x})

    xs = jnp.arange(4.0)
    some = jnp.array([True, False, False, True])
    got = jax.jit(jax.vmap(step))(some, xs)
    np.testing.assert_array_equal(got["v"], [1.0, -1.0, -2.0, 7.0])  # each run its own branch
    assert len(calls) == 1
    calls.clear()
    np.testing.assert_array_equal(jax.jit(jax.vmap(step))(jnp.zeros(4, bool), xs)["v"], -xs)
    assert not calls  # no run needs it: the batch skips it
    # unbatched and nested: plain lax.cond semantics
    assert float(step(True, 3.0)["v"]) == 7.0 and float(step(False, 3.0)["v"]) == -3.0
    both = jax.vmap(jax.vmap(step))(jnp.stack([some, ~some]), jnp.stack([xs, xs]))["v"]
    np.testing.assert_array_equal(both, [[1.0, -1.0, -2.0, 7.0], [-0.0, 3.0, 5.0, -3.0]])
    # differentiable, as the lax.cond it stands for
    grads = jax.vmap(jax.grad(lambda x, p: step(p, x)["v"]))(xs, some)
    np.testing.assert_array_equal(grads, [2.0, -1.0, -1.0, 2.0])


def test_when_gathers_the_runs_that_need_it_in_a_large_batch():
    """With few runs of a batch needing ``fn``, `when` computes it on those runs only, gathered into the smallest
    capacity that holds them (`COMPACT_FRACTIONS` of the batch), and every run gets the value the plain select
    would give: run 0 needing it or not, at a capacity's edge, and past the largest."""
    from jaxbandit.policies import phased as phased_module
    rows = []

    def double_plus(x, y):
        jax.debug.callback(lambda v: rows.append(1), x)  # one call per run computed
        return {"v": 2.0 * x + y, "w": jnp.stack([x, y])}

    step = jax.jit(jax.vmap(lambda pred, x: when(pred, double_plus, (x, 1.0), {"v": -x, "w": jnp.stack([x, x])})))
    runs = 128
    small, large = sorted(runs // f for f in phased_module.COMPACT_FRACTIONS)
    xs = jnp.arange(runs, dtype=jnp.float32)
    cases = [([0], small), ([5, 127], small), (list(range(1, small + 1)), small), (list(range(small + 1)), large),
             ([0, 3] + list(range(90, 90 + large - 2)), large), (list(range(large + 1)), runs)]
    for needing, computed in cases:
        assert max(needing) < runs and len(set(needing)) == len(needing)
        pred = jnp.zeros(runs, bool).at[jnp.asarray(needing)].set(True)
        rows.clear()
        got = step(pred, xs)
        np.testing.assert_array_equal(got["v"], jnp.where(pred, 2 * xs + 1, -xs))
        np.testing.assert_array_equal(got["w"][:, 1], jnp.where(pred, 1.0, xs))
        assert len(rows) == computed, (needing, len(rows))
