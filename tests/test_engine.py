"""The engine: vmapped equals looped, chunked equals unchunked (bit for bit), horizon prefixes, records,
checkpoint/resume, streaming callback, non-finite detection, sweeps with one compilation, float64."""
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import envs, policies, privatizers, simulate, sweep
from jaxbandit.random import threefry
from jaxbandit.engine import _ADVANCE_CACHE, BLOCK
from jaxbandit.simulation import run_engine

MEANS = [0.2, 0.5, 0.45, 0.7]
KW = dict(env="bernoulli", env_params={"means": MEANS}, progress=False)


def _same(a, b):
    for f in ("pseudo_regret", "regret", "counts", "t"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["thompson", "klucb", "gaussian-thompson"])
def test_vmapped_equals_looped(name):
    """Runs simulated together equal the same runs simulated one at a time with the same keys."""
    env, ep = envs.make("bernoulli", means=MEANS)
    pol, pp = policies.make(name, 4)
    priv, qp = privatizers.make("identity")
    times = np.array([1, 7, 50, 120, 333])
    keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(threefry.key(11), jnp.arange(3))
    spec = jb.resolve(env, pol, priv, env_params=ep, policy_params=pp, privatizer_params=qp, horizon=333)
    together = run_engine(env, pol, priv, spec.stacked(3), keys, 333, times, progress=False)
    for r in range(3):
        alone = run_engine(env, pol, priv, spec.stacked(1), keys[r:r + 1], 333, times, progress=False)
        np.testing.assert_array_equal(alone[0][:5, 0], together[0][:5, r])
        np.testing.assert_array_equal(alone[2][:, 0], together[2][:, r])


@pytest.mark.slow
@pytest.mark.parametrize("horizon", [1000, 1030, 37])
def test_chunked_equals_unchunked_bit_for_bit(horizon):
    one = simulate(policy="thompson", horizon=horizon, runs=5, seed=3, **KW)
    chunked = simulate(policy="thompson", horizon=horizon, runs=5, seed=3, chunk_steps=100, **KW)
    _same(one, chunked)
    assert one.t[-1] == horizon and np.all(one.counts.sum(-1) == horizon)


@pytest.mark.parametrize("name", ["dp-rucb", "dp-ucb-bound"])
def test_a_run_major_state_is_a_layout_only(name):
    """`Policy.state_run_major` (the batch axis first while a block is stepped) gives the numbers of the batch-last
    layout bit for bit, over a block boundary (the unbatched `rollout` has no batch axis: tests/test_golden.py).
    Two whole blocks: one compiled block program per layout (a shorter tail block would compile a second)."""
    env, ep = envs.make("bernoulli", means=MEANS)
    pol, pp = policies.make(name, env.num_arms)
    assert pol.state_run_major
    T = 2 * BLOCK
    times = np.array([1, BLOCK - 1, BLOCK, BLOCK + 1, T])
    results = {}
    for layout in (True, False):
        spec = jb.resolve(env, pol._replace(state_run_major=layout), "identity", env_params=ep, policy_params=pp,
                          horizon=T, record=times)
        results[layout] = jb.run_spec(spec, runs=5, seed=2, progress=False)
    _same(results[True], results[False])


def test_shorter_horizon_is_a_prefix():
    times = np.array([10, 100, 250, 400])
    short = simulate(policy="ucb1", horizon=400, runs=4, record=times, **KW)
    long = simulate(policy="ucb1", horizon=1000, runs=4, record=np.append(times, 1000), **KW)
    np.testing.assert_array_equal(short.pseudo_regret, long.pseudo_regret[..., :4])
    np.testing.assert_array_equal(short.regret, long.regret[..., :4])


def test_records_are_regret_at_the_record_times():
    res = simulate(policy="gaussian-thompson", horizon=300, runs=6, record=np.arange(1, 301), **KW)
    gaps = max(MEANS) - np.array(MEANS, np.float32)
    np.testing.assert_allclose(res.pseudo_regret[:, -1], res.counts @ gaps, rtol=1e-6)
    increments = np.diff(res.pseudo_regret, axis=-1)  # each step adds one gap
    assert np.all(np.isin(np.round(increments, 5), np.round(gaps, 5)))
    assert np.all(np.abs(res.regret[:, 0]) <= 1.0)  # μ* − r_1 with r in {0, 1}
    # realized regret = μ* t − Σ r, and Σ r is an integer count for Bernoulli rewards
    sums = max(MEANS) * res.t - res.regret
    np.testing.assert_allclose(sums, np.round(sums), atol=1e-3)


def test_many_arms_records_are_the_same_at_every_record_density():
    """Above `engine.ORDERED_MAX` arms the pseudo-regret is summed only at the steps a record falls on (a branch
    under vmap): recorded at every step or at a few, the shared times agree bit for bit, and each step adds one gap."""
    means = list(np.linspace(0.1, 0.9, 20))
    kw = dict(env="bernoulli", env_params={"means": means}, policy="ucb1", horizon=130, runs=5, seed=2,
              progress=False)
    every = simulate(record=np.arange(1, 131), **kw)
    few = simulate(record=np.array([1, 49, 50, 51, 100, 130]), **kw)
    np.testing.assert_array_equal(few.pseudo_regret, every.pseudo_regret[:, few.t - 1])
    np.testing.assert_array_equal(few.regret, every.regret[:, few.t - 1])
    gaps = max(means) - np.array(means, np.float32)
    assert np.all(np.isfinite(every.pseudo_regret))
    np.testing.assert_allclose(every.pseudo_regret[:, -1], every.counts @ gaps, rtol=1e-5)
    increments = np.diff(every.pseudo_regret, axis=-1)[..., None]
    assert np.all(np.min(np.abs(increments - gaps), axis=-1) < 1e-4)  # float32 sums of up to 60: ulp 4e-6


def test_default_record_times_and_memory_independent_of_horizon():
    res = simulate(policy="uniform", horizon=100_000, runs=2, record=20, **KW)
    assert len(res.t) <= 21 and res.t[-1] == 100_000 and res.t[0] == 1
    assert res.pseudo_regret.shape == (2, len(res.t))


def test_checkpoint_resume_after_interruption(tmp_path):
    ckpt = str(tmp_path / "run.ckpt.npz")
    calls = []

    def interrupt(partial):
        calls.append(partial.t[-1])
        if len(calls) == 3:
            raise KeyboardInterrupt

    kw = dict(policy="klucb", horizon=1000, runs=4, seed=2, chunk_steps=200, **KW)
    with pytest.raises(KeyboardInterrupt, match=f"interrupted at t=600 of T=1000: .* saved in {ckpt}"):
        simulate(checkpoint=ckpt, callback=interrupt, **kw)
    assert calls == [200, 400, 600]
    resumed_calls = []
    resumed = simulate(checkpoint=ckpt, callback=lambda p: resumed_calls.append(p.t[-1]), **kw)
    assert resumed_calls == [800, 1000]  # only the chunks not yet done
    _same(resumed, simulate(**kw))
    assert not os.path.exists(ckpt)  # removed once the run completed
    simulate(checkpoint=ckpt, keep_checkpoint=True, **kw)
    assert os.path.exists(ckpt)
    with pytest.raises(ValueError, match="different configuration"):
        simulate(checkpoint=ckpt, **{**kw, "seed": 3})


def test_callback_streams_partial_results():
    seen = []
    simulate(policy="ucb1", horizon=500, runs=2, chunk_steps=100, callback=lambda r: seen.append(r), **KW)
    assert [r.t[-1] for r in seen] == [100, 200, 300, 400, 500]
    assert all(r.pseudo_regret.shape[-1] == len(r.t) for r in seen)


def test_non_finite_regret_raises():
    with pytest.raises(FloatingPointError, match="pseudo-regret is (nan|inf) at t=1"):
        simulate(env="gaussian", env_params={"means": [3e38, -3e38]}, policy="uniform", horizon=60, runs=2,
                 progress=False)


def test_sweep_one_compilation_and_common_random_numbers():
    grid = {"policy.epsilon": [0.0, 0.1, 0.5], "env.means": [MEANS, [0.9, 0.1, 0.1, 0.1]]}
    before = len(_ADVANCE_CACHE)
    res = sweep(policy="epsilon-greedy", grid=grid, horizon=200, runs=3, seed=4, **KW)
    new = list(_ADVANCE_CACHE.values())[before:]
    assert len(new) == 1 and new[0][-1]._cache_size() == 1
    assert res.axes == ("policy.epsilon", "env.means", "run", "t")
    assert res.pseudo_regret.shape == (3, 2, 3, len(res.t))
    point = simulate(policy="epsilon-greedy", policy_params={"epsilon": 0.5}, horizon=200, runs=3, seed=4,
                     env="bernoulli", env_params={"means": [0.9, 0.1, 0.1, 0.1]}, progress=False)
    _same(res.sel(**{"policy.epsilon": 0.5, "env.means": [0.9, 0.1, 0.1, 0.1]}), point)


def test_sweep_joint_axis_and_errors():
    res = sweep(policy="klucb", grid={("policy.c", "env.means"): [(0.0, MEANS), (3.0, [0.5, 0.5, 0.5, 0.6])]},
                horizon=100, runs=2, **KW)
    assert list(res.grid) == ["policy.c,env.means"] and res.pseudo_regret.shape[:2] == (2, 2)
    with pytest.raises(ValueError, match="no field 'eps'"):
        sweep(policy="epsilon-greedy", grid={"policy.eps": [0.1]}, horizon=10, runs=1, **KW)
    with pytest.raises(ValueError, match=r"epsilon=.*\[0, 1\]"):
        sweep(policy="epsilon-greedy", grid={"policy.epsilon": [0.1, 2.0]}, horizon=10, runs=1, **KW)
    with pytest.raises(ValueError, match="shape"):
        sweep(policy="ucb1", grid={"env.means": [[0.1, 0.2]]}, horizon=10, runs=1, **KW)


def test_float64_runs_keep_float64():
    with jax.enable_x64(True):
        res = simulate(policy="gaussian-thompson", horizon=200, runs=2, **KW)
    assert res.pseudo_regret.dtype == np.float64
    assert np.all(np.isfinite(res.pseudo_regret))


def test_block_constant_is_part_of_the_config():
    res = simulate(policy="uniform", horizon=60, runs=1, **KW)
    assert res.config["block"] == BLOCK and res.config["jax_version"] == jax.__version__


def test_engine_compiles_without_library_reduce_fusions_on_cpu(monkeypatch):
    """engine.compiler_options turns off XLA:CPU's YNNPACK reduce fusions (slow for the engine's small
    reductions) for the engine's jit only, and falls back to XLA's defaults where the option is unknown."""
    from jaxbandit.engine import compiler_options
    if jax.default_backend() != "cpu":
        assert compiler_options() == {}
        return
    f = lambda x: jnp.sum(x, axis=0)
    x = jnp.ones((10, 1000))
    if "ynn" in jax.jit(f).lower(x).compile().as_text():  # XLA's default (jaxlib 0.10) that the option changes
        assert "ynn" not in jax.jit(f, compiler_options=compiler_options()).lower(x).compile().as_text()

    def unknown_option(*args, **kwargs):
        raise RuntimeError("No such compile option")
    monkeypatch.setattr(jax, "jit", unknown_option)
    assert compiler_options.__wrapped__() == {}


@pytest.mark.parametrize("num_terms", [1, 3, 16, 17, 20, 100])
def test_ordered_sum_adds_in_its_documented_order(num_terms):
    """The engine's pseudo-regret sum has an order fixed by the program (machine-independent bits): up to 16 terms
    left to right, more in 8 lanes of pairwise trees then the lanes left to right; checked against that order in
    NumPy float32 on values whose sum depends on the order."""
    from jaxbandit.engine import ordered_sum
    rng = np.random.default_rng(num_terms)
    x = (rng.standard_normal((num_terms, 3)) * 10.0 ** rng.integers(-3, 8, (num_terms, 1))).astype(np.float32)

    def left_to_right(rows):
        total = rows[0]
        for row in rows[1:]:
            total = np.float32(total + row)
        return total

    def pairwise(rows):
        while len(rows) > 1:
            half = len(rows) // 2
            rows = [np.float32(rows[i] + rows[half + i]) for i in range(half)] + rows[2 * half:]
        return rows[0]

    if num_terms <= 16:
        expected = left_to_right(list(x))
    else:
        padded = np.concatenate([x, np.zeros((-num_terms % 8, 3), np.float32)]).reshape(-1, 8, 3)
        expected = left_to_right([pairwise(list(padded[:, lane])) for lane in range(8)])
    np.testing.assert_array_equal(np.asarray(jax.jit(ordered_sum)(jnp.asarray(x))), expected)
    if num_terms == 3:  # the order matters for these values: 1e8 + 1 rounds to 1e8 in float32
        assert float(ordered_sum(jnp.asarray([1e8, 1.0, -1e8], jnp.float32))) == 0.0
