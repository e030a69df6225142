"""Floating-point-safe noise (`jaxbandit.privacy.noise`): the discrete Laplace sampler against its law, the level it
keeps as realized in float32 (exact counts), the release on its grid; the Gaussian draw with tails to 2^-73 against
N(0, 1) (exact counts) and the float draw it replaces; and the policies' ``noise`` switch (0: the float draw, bit
for bit the recorded numbers — tests/test_contracts.py; 1: the default)."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import policies, prng
from jaxbandit.privacy import noise
from tests.helpers import Z


def _bits(n, seed=0):
    return jax.random.bits(jax.random.key(seed), (n, noise.WORDS), jnp.uint32)


@pytest.mark.parametrize("eps_u", [2.0, 0.7, 0.05, 2.0 ** -12.5])
def test_discrete_laplace_matches_its_law(eps_u):
    """P(Z = 0) = (1 − q)/(1 + q) and Var Z = 2q/(1 − q)², q = e^{−ε_u} (z-tests at 1e-6)."""
    n = 400_000
    z = np.asarray(noise.discrete_laplace(_bits(n), eps_u), np.float64)
    q = math.exp(-eps_u)
    p0 = (1 - q) / (1 + q)
    assert abs(np.mean(z == 0) - p0) < Z * math.sqrt(p0 * (1 - p0) / n)
    var = 2 * q / (1 - q) ** 2
    kurt = 6 + (1 - q) ** 2 / q  # excess kurtosis of the discrete Laplace, for the variance's standard error
    assert abs(z.var() / var - 1) < Z * math.sqrt((kurt + 2) / n)
    assert abs(z.mean()) < Z * math.sqrt(var / n)


@pytest.mark.parametrize("eps_u, units", [(0.3, 2), (0.05, 3)])
def test_realized_level_is_the_claimed_one(eps_u, units):
    """Counted over all 2^64 inputs of each geometric with the sampler's own float32 code: against shifts up to
    Δ_u the realized Z is (ε, δ)-DP at ε = ε_u·Δ_u/margin (the level its release claims) with δ ~ 1e-19 (the cut
    tail), and not at 0.1% less ε (the level is tight)."""
    claimed = float(np.float32(eps_u)) * units / noise.EPS_MARGIN
    assert noise.realized_delta(eps_u, units, claimed) < 1e-15
    assert noise.realized_delta(eps_u, units, 0.999 * float(np.float32(eps_u)) * units) > 1e-6


def test_production_grid_law_is_within_its_margin():
    """At a release's own grid (b = 62, Δ = 2: a tree node at ε = 1, depth 31), the realized law of G deviates from
    the ideal geometric by η ≤ 1e-5 relative wherever E < 30 (mass beyond: e^-30); so Z's level is at most
    ε_u·Δ_u + 4η, below ε₀ = Δ/b thanks to the 2^-10 margin."""
    lam, units, eps_u = (float(v) for v in noise.grid(62.0, 2.0))
    assert lam == 2.0 ** (5 - noise.GRID_BITS) and units == math.floor(2 / lam) + 1
    pmf = noise.realized_pmf(eps_u)
    q = math.exp(-float(np.float32(eps_u)))
    g = np.arange(len(pmf))
    ideal = (1 - q) * q ** g
    bulk = g * float(np.float32(eps_u)) < 30
    eta = float(np.max(np.abs(pmf[bulk] / ideal[bulk] - 1)))
    assert eta < 1e-5, eta
    assert float(np.float32(eps_u)) * units + 4 * eta <= 2 / 62


def test_release_is_on_the_grid_with_the_scale_it_replaces():
    b, delta, x = 2.0, 1.0, 10.3
    lam, units, _ = (float(v) for v in noise.grid(b, delta))
    r = np.asarray(noise.discrete_release(jnp.full((200_000,), x, jnp.float32), b, delta, _bits(200_000, 1)),
                   np.float64)
    assert np.all(np.mod(r / lam, 1) == 0)                    # every output is an integer multiple of Λ
    assert abs(r.mean() - round(x / lam) * lam) < Z * math.sqrt(2 * b * b / len(r))
    inflation = lam * units / delta                           # the scale in value units: b(1 + Λ/Δ) at most
    assert 1 <= inflation <= 1 + 2.0 ** -noise.GRID_BITS / (delta / b) + 1e-12
    assert abs(r.var() / (2 * (b * inflation) ** 2) - 1) < Z * math.sqrt(5 / len(r))
    # no noise at scale 0 or ∞ (ε = ∞ or 0 sensitivity): the value itself
    for scale in (0.0, math.inf):
        assert float(noise.discrete_release(jnp.float32(x), scale, delta, _bits(1)[0])) == pytest.approx(x)


def test_released_picks_the_float_formula_where_asked():
    lap = jnp.asarray([0.5, -1.0])
    bits = _bits(2, 3)
    both = noise.Noise(lap, bits, jnp.asarray([False, True]))
    float_value = 7.0 + 2.0 * lap
    out = np.asarray(noise.released(float_value, jnp.asarray([7.0, 7.0]), 2.0, 1.0, both))
    assert out[0] == float(float_value[0])                    # noise = 0: the float formula itself
    assert out[1] == float(noise.discrete_release(jnp.float32(7.0), 2.0, 1.0, bits[1]))
    np.testing.assert_array_equal(noise.released(float_value, 7.0, 2.0, 1.0, lap), float_value)  # a plain draw


def test_draw_keeps_the_float_stream():
    """`draw` in the float mode is jax.random.laplace on the same key (the float mode's numbers are unchanged) and
    draws no bits; in the discrete mode it draws the bits only."""
    key = jax.random.key(9)
    f = noise.draw(key, (5, 3), 0, bits_shape=(5,))
    np.testing.assert_array_equal(f.laplace, jax.random.laplace(key, (5, 3)))
    assert not np.any(f.bits) and not np.any(f.discrete)
    d = noise.draw(key, (5, 3), 1, bits_shape=(5,))
    np.testing.assert_array_equal(d.bits, jax.random.bits(jax.random.fold_in(key, 1), (5, noise.WORDS), jnp.uint32))
    assert not np.any(d.laplace) and d.bits.dtype == jnp.uint32 and bool(jnp.all(d.discrete))
    # vmapped over runs with a shared mode: still one branch; with the mode batched, each run gets its own
    modes = jnp.asarray([0, 1])
    both = jax.vmap(lambda m: noise.draw(key, (5, 3), m, bits_shape=(5,)))(modes)
    np.testing.assert_array_equal(both.laplace[0], f.laplace)
    np.testing.assert_array_equal(both.bits[1], d.bits)


@pytest.mark.parametrize("shape", [(50, 10), (7, 3), (1, 2), (4, 2, 3)])
def test_a_deferred_float_draw_is_the_whole_draw(shape):
    """``words_later`` in the fixed float mode defers the draw (`DeferredLaplace`): each step's values, computed
    where read, are ``jax.random.laplace``'s on the block key bit for bit (float32, and float64 under x64), also
    per step slice and under jit; a key of another implementation gets the eager draw."""
    key = jax.random.fold_in(prng.key(4), 2)
    for dtype, x64 in ((jnp.float32, False), (jnp.float64, True)):
        with jax.enable_x64(x64):
            want = np.asarray(jax.random.laplace(key, shape, dtype))
            d = noise.draw(key, shape, 0, dtype=dtype, words_later=True)
            assert isinstance(d.laplace, noise.DeferredLaplace) and d.bits.shape == shape + (0,)
            got = np.asarray(jax.jit(noise.laplace_of)(d))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
            last = jax.tree.map(lambda x: x[-1], d)
            np.testing.assert_array_equal(np.asarray(noise.laplace_of(last)), want[-1])
            np.testing.assert_array_equal(np.asarray(noise.resolved(last).laplace), want[-1])
    other = jax.random.key(4)
    eager = noise.draw(other, shape, 0, words_later=True)
    np.testing.assert_array_equal(eager.laplace, jax.random.laplace(other, shape))
    assert not isinstance(noise.draw(key, shape, 1, words_later=True).laplace, noise.DeferredLaplace)


def test_dp_se_float_mode_defers_its_draw_and_keeps_its_numbers(monkeypatch):
    """DP-SE's float mode reads its epoch ends' Laplace draws from the deferred draw: the same regret as the eager
    draw it replaces, on a bandit where the noise changes eliminations (the discrete mode's regret differs)."""
    kw = dict(env="bernoulli", env_params={"means": [0.4, 0.425, 0.45, 0.475, 0.5]}, policy="dp-se", horizon=30000,
              runs=16, seed=5)
    deferred = jb.simulate(**kw, policy_params={"epsilon": 1.0, "beta": 0.1, "noise": 0}).pseudo_regret
    discrete = jb.simulate(**kw, policy_params={"epsilon": 1.0, "beta": 0.1, "noise": 1}).pseudo_regret
    monkeypatch.setattr(noise, "_deferrable", lambda key, dtype: False)
    eager = jb.simulate(**kw, policy_params={"epsilon": 1.0, "beta": 0.1, "noise": 0}).pseudo_regret
    np.testing.assert_array_equal(np.asarray(deferred), np.asarray(eager))
    assert not np.array_equal(np.asarray(deferred), np.asarray(discrete))


def test_the_samplers_powers_of_two_are_ldexps():
    """`_split` and `_bit_thresholds` scale by exact powers of two where they called ``jnp.ldexp`` (slow on
    XLA:CPU): the same spacing and thresholds on ε_u over 40 binades, and the same discrete Laplace draws even where
    ε_u is subnormal (XLA:CPU flushes it to zero in the product, the division after it already did)."""
    rng = np.random.default_rng(2)
    eps = jnp.asarray(np.concatenate([2.0 ** rng.uniform(-40, 0, 20000), [2 ** -126, 2 ** -15, 0.5, 1.0]]),
                      jnp.float32)

    def ldexp_split(u):  # the formula as first written
        u = jnp.asarray(u, jnp.float32)
        m = jnp.clip(-jnp.frexp(u)[1], 0, noise.M_BITS)
        return m, jnp.ldexp(u, m)

    m = ldexp_split(eps)[0]
    np.testing.assert_array_equal(np.asarray(noise._split(eps)[1]), np.asarray(ldexp_split(eps)[1]))
    j = jnp.arange(noise.M_BITS)
    p = jax.nn.sigmoid(-jnp.ldexp(eps[:, None], j))
    want = jnp.where(j < m[:, None], jnp.minimum(jnp.rint(p * jnp.float32(2.0 ** 32)),
                                                 jnp.float32(2.0 ** 32 - 256)).astype(jnp.uint32), jnp.uint32(0))
    np.testing.assert_array_equal(np.asarray(noise._bit_thresholds(eps)), np.asarray(want))
    tiny = jnp.asarray(np.repeat(np.float32([1e-45, 1e-40]), 50))
    bits = jax.random.bits(jax.random.key(3), (100, noise.WORDS), jnp.uint32)
    fast = noise.discrete_laplace(bits, tiny)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(noise, "_split", ldexp_split)
        np.testing.assert_array_equal(np.asarray(fast), np.asarray(noise.discrete_laplace(bits, tiny)))


def test_a_fixed_mode_is_static_and_releases_one_way():
    """With the mode known (a concrete ``noise``), `Noise.discrete` is static: not a leaf, so it survives
    ``lax.scan`` and ``jit`` as a Python-level choice, the float draw carries no words, and `released` computes
    only the mode's release — with the values of the traced mode's select."""
    key = jax.random.key(4)
    f, d = noise.draw(key, (6, 3), 0), noise.draw(key, (6, 3), 1)
    assert len(jax.tree.leaves(f)) == 2 and f.bits.shape == (6, 3, 0) and not f.discrete
    assert len(jax.tree.leaves(d)) == 2 and bool(d.discrete)
    x = jnp.linspace(0.0, 5.0, 18).reshape(6, 3)

    def release(n, x=x):
        return noise.released(x + 0.3 * noise.laplace_of(n), x, 0.3, 1.0, n)

    def per_step(carry, step):  # the engine's shape: one step's slice of a block
        n, xt = step
        return carry + isinstance(n.discrete, np.bool_), release(n, xt)

    for fixed, mode in ((f, 0), (d, 1)):
        static, got = jax.jit(lambda n: jax.lax.scan(per_step, 0, (n, x)))(fixed)
        assert static == 6  # still static inside the scan
        _, want = jax.jit(lambda m: jax.lax.scan(per_step, 0, (noise.draw(key, (6, 3), m), x)))(mode)
        np.testing.assert_array_equal(got, want)
    # the float mode computes no discrete release (its rounding to the grid), the discrete mode does
    assert "round" not in str(jax.make_jaxpr(release)(f)) and "round" in str(jax.make_jaxpr(release)(d))


@pytest.mark.slow
@pytest.mark.parametrize("name, params, env, ep", [
    ("dp-se", {"epsilon": 2.0, "beta": 0.5}, "bernoulli", {"means": [0.1, 0.9, 0.5, 0.8]}),
    ("lazy-ucb", {"epsilon": 0.5}, "bernoulli", {"means": [0.3, 0.55, 0.5, 0.8]}),
    ("dp-rucb", {"epsilon": 1.0, "v": 0.9, "u": 2.0, "bonus": 0.5}, "pareto", {"means": [0.3, 0.8], "v": 0.9}),
    ("modified-thompson", {"b": 2, "c": 2.0}, "bernoulli", {"means": [0.3, 0.55, 0.5, 0.8]}),
    ("dp-ftpl-gauss", {"epsilon": 4.0, "delta": 0.1}, "bernoulli", {"means": [0.3, 0.55, 0.5, 0.8]}),
])
def test_discrete_and_float_releases_give_the_same_regret(name, params, env, ep):
    """Same law up to the grid: the mean regret of the default (discrete) and the float release agree (z at 1e-6)."""
    T = 3000 if name == "dp-se" else 1000
    res = {mode: jb.simulate(env, name, env_params=ep, policy_params={**params, "noise": mode}, horizon=T, runs=300,
                             seed=mode + 11, progress=False) for mode in (0, 1)}
    a, b = (res[m].final() for m in (0, 1))
    se = math.sqrt(a.var() / len(a) + b.var() / len(b))
    assert abs(a.mean() - b.mean()) < Z * se, (a.mean(), b.mean(), se)


def test_noise_parameter_is_checked():
    with pytest.raises(ValueError, match=r"noise=2 must be one of 0, 1"):
        policies.make("dp-se", 3, noise=2)


@pytest.mark.parametrize("name", ["gaussian-thompson", "modified-thompson", "dp-ftpl-gauss"])
def test_gaussian_noise_parameter_is_checked_and_defaults_to_the_tail_safe_draw(name):
    assert int(policies.get(name, 3).default_params.noise) == 1
    with pytest.raises(ValueError, match=r"noise=3 must be one of 0, 1"):
        policies.make(name, 3, noise=3)


# ------------------------------------------------------------------ Gaussian draws
def _tail_quantile(p):
    """z with P(|Z| ≥ z) = p = erfc(z/√2), by Newton's method in float64 (math.erfc is accurate in the tail)."""
    z = math.sqrt(-2 * math.log(p / 2)) if p < 0.5 else 0.5
    for _ in range(60):
        step = (math.erfc(z / math.sqrt(2)) - p) / (-math.sqrt(2 / math.pi) * math.exp(-z * z / 2))
        z -= step
        if abs(step) < 1e-15 * max(z, 1.0):
            break
    return z


def test_half_normal_quantile_is_accurate_down_to_the_last_binade():
    """√2·erfc⁻¹(p) in float32 against float64 Newton, p from 2^-73 (the smallest the sampler makes) to 1: within
    3e-7 relatively, i.e. float32's own rounding (1 − p near 1, z near 0, is excluded: there z → 0)."""
    p = np.exp(np.linspace(math.log(2.0 ** -73), math.log(0.999), 3000)).astype(np.float32)
    got = np.asarray(noise.half_normal_quantile(p), np.float64)
    want = np.array([_tail_quantile(float(x)) for x in p])
    assert np.max(np.abs(got / want - 1)) < 3e-7


def test_tail_normal_reads_its_words_as_documented():
    """Word 0: 23 mantissa bits, the sign (bit 23), 8 exponent bits; words 1, 2: 64 more. The exponent is the
    number of leading zeros of the 72 bits, 72 if all are zero: the smallest p, 2^-73, and the largest |Z|."""
    w = lambda a, b, c: jnp.asarray([[a], [b], [c]], jnp.uint32)
    q = lambda p: float(noise.half_normal_quantile(np.float32(p)))
    assert float(noise.tail_normal(w(0x80000000, 0, 0))[0]) == -q(0.5)           # e = 0, mantissa 0, sign 0
    assert float(noise.tail_normal(w(0x80800000, 0, 0))[0]) == q(0.5)            # bit 23: positive
    assert float(noise.tail_normal(w(0x01000000 | 5, 7, 7))[0]) == -q(2.0 ** -8 * (1 + 5 * 2.0 ** -23))  # e = 7
    assert float(noise.tail_normal(w(0, 1, 0))[0]) == -q(2.0 ** -40)             # e = 8 + 31
    assert float(noise.tail_normal(w(0, 0, 1))[0]) == -q(2.0 ** -72)             # e = 40 + 31
    deepest = float(noise.tail_normal(w(0x00800000, 0, 0))[0])                   # e = 72
    assert deepest == q(2.0 ** -73) and 9.7 < deepest < 9.9


def test_normal_keeps_the_float_stream_and_draws_the_tail_safe_one_from_its_own_words():
    key = jax.random.key(4)
    np.testing.assert_array_equal(noise.normal(key, (6, 5), 0), jax.random.normal(key, (6, 5)))
    words = jax.random.bits(jax.random.fold_in(key, 1), (noise.NORMAL_WORDS, 6, 5), jnp.uint32)
    np.testing.assert_array_equal(noise.normal(key, (6, 5), 1), noise.tail_normal(words))


def test_tail_normal_is_standard_normal():
    """Moments and tails of 2·10^6 draws against N(0, 1) (z at 1e-6): mean, variance, P(Z > 1), P(Z < −2), and the
    sign balance."""
    x = np.asarray(noise.normal(jax.random.key(8), (2_000_000,), 1), np.float64)
    n = x.size
    assert abs(x.mean()) < Z / math.sqrt(n)
    assert abs(x.var() - 1) < Z * math.sqrt(2 / n)
    for event, p in ((x > 1, 0.5 * math.erfc(1 / math.sqrt(2))), (x < -2, 0.5 * math.erfc(2 / math.sqrt(2))),
                     (x > 0, 0.5)):
        assert abs(event.mean() - p) < Z * math.sqrt(p * (1 - p) / n)


def test_realized_gaussian_tail_is_the_normal_one_down_to_2_to_the_minus_72():
    """P(|Z| ≥ z) as the float32 sampler realizes it, counted exactly over its 73·2^23 values of p, is erfc(z/√2)
    within 1e-5 relatively for every z up to 9.5 (P = 2e-21), and 0 past its last value, 9.81 (where N(0, 1) has
    6e-23 left); the float draw stops at 5.22 above and 5.42 below, where N(0, 1) still has 9e-8 and 3e-8."""
    z = np.array([1.0, 4.0, 7.0, 9.5, 9.85])
    tail = noise.realized_normal_tail(z)
    ideal = np.array([math.erfc(v / math.sqrt(2)) for v in z])
    np.testing.assert_array_less(np.abs(tail[:-1] / ideal[:-1] - 1), 1e-5)
    assert tail[-1] == 0.0
    values, mass = noise.float_normal_law()
    assert mass == 2.0 ** -23 and 5.2 < values.max() < 5.25 and -5.45 < values.min() < -5.4
    assert np.sum(values >= 5.25) == 0 and 0.5 * math.erfc(5.25 / math.sqrt(2)) > 7e-8


@pytest.mark.parametrize("seed", [3, 5])
def test_float_normal_law_is_what_jax_random_normal_draws(seed):
    """`float_normal_law` maps a word's top 23 bits as jax.random.normal does: the same values for the same words."""
    key = jax.random.key(seed)
    values, _ = noise.float_normal_law()
    words = np.asarray(jax.random.bits(key, (100_000,), jnp.uint32))
    np.testing.assert_array_equal(values[words >> 9], jax.random.normal(key, (100_000,)))


def test_mode_runs_one_draw_when_the_batch_agrees():
    """Batched over runs with one mode (as the drivers batch every parameter), only that draw runs; with a mixed
    batch, both run and each run gets its own. The values are those of the unbatched call either way."""
    calls = {"tail": 0, "float": 0}

    def counted(name, fn):
        def run(*args):
            out = fn(*args)
            jax.debug.callback(lambda: calls.__setitem__(name, calls[name] + 1))
            return out
        return run

    key = jax.random.key(2)
    draw = lambda k: jax.random.normal(k, (3,))
    f = jax.jit(jax.vmap(lambda m: noise._by_mode(m, key, counted("tail", draw), counted("float", draw))))
    for modes, want in (([1, 1, 1], {"tail": 1, "float": 0}), ([0, 0, 0], {"tail": 1, "float": 1}),
                        ([0, 1, 0], {"tail": 2, "float": 2})):
        jax.block_until_ready(f(jnp.asarray(modes)))
        jax.effects_barrier()
        assert calls == want, (modes, calls)
    mixed = jax.vmap(lambda m: noise.normal(key, (4,), m))(jnp.asarray([0, 1]))
    np.testing.assert_array_equal(mixed[0], noise.normal(key, (4,), 0))
    np.testing.assert_array_equal(mixed[1], noise.normal(key, (4,), 1))


def test_specialize_fixes_a_uniform_mode_and_leaves_a_grid_alone():
    policy = policies.get("gaussian-thompson", 3)
    ones, mixed = jnp.ones(4, jnp.int32), jnp.asarray([0, 1, 1, 0])
    fixed = noise.specialize(policy, policy.default_params._replace(noise=ones))
    assert fixed is not policy and fixed is noise.specialize(policy, policy.default_params._replace(noise=ones))
    assert noise.specialize(policy, policy.default_params._replace(noise=mixed)) is policy
    assert noise.specialize(policies.get("thompson", 3), policies.get("thompson", 3).default_params) is not None
    key = jax.random.key(1)
    # the fixed policy draws its mode whatever the (traced) parameter says
    traced = jax.jit(lambda p: fixed.draw(key, 2, p))(policy.default_params._replace(noise=jnp.int32(0)))
    np.testing.assert_array_equal(traced, noise.normal(key, (2, 3), 1))


@pytest.mark.parametrize("name, params", [("gaussian-thompson", {})])
def test_a_grid_over_the_mode_is_each_mode_run_alone(name, params):
    """One sweep over noise = 0, 1 (both draws, selected per run) gives the numbers of each mode simulated alone
    (one draw, fixed while tracing), and `jaxbandit.rollout` (traced mode) the same again. (The Laplace policies'
    fixed and traced modes are compared bit for bit by every contract case, tests/test_contracts.py.)"""
    common = dict(env_params={"means": [0.2, 0.5, 0.6]}, horizon=120, runs=3, seed=4, progress=False)
    grid = jb.sweep("bernoulli", name, policy_params=params, grid={"policy.noise": [0, 1]}, **common)
    for i, mode in enumerate((0, 1)):
        alone = jb.simulate("bernoulli", name, policy_params={**params, "noise": mode}, **common)
        np.testing.assert_array_equal(grid.pseudo_regret[i], alone.pseudo_regret)
        env, policy, privatizer, sim = jb.resolve("bernoulli", name, env_params=common["env_params"],
                                                  policy_params={**params, "noise": mode})
        run = jb.rollout(env, policy, privatizer, horizon=120, record_times=alone.t)
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(prng.key(4), jnp.arange(3))
        traced = jax.jit(jax.vmap(run, in_axes=(0, None)))(keys, sim)
        np.testing.assert_array_equal(np.asarray(traced.pseudo_regret), alone.pseudo_regret)


def test_specialize_reaches_the_policy_inside_a_score_wrapper():
    """The score-function estimator's wrapped policy (params `ScoreParams(inner=...)`) gets its mode fixed too."""
    from jaxbandit import gradients
    policy = policies.get("modified-thompson", 3)
    wrapped = gradients.scored(policy, ("c",))
    batch = gradients.ScoreParams(policy.default_params._replace(noise=jnp.zeros(4, jnp.int32)), jnp.zeros(3),
                                  jnp.zeros(2), jnp.zeros(2))
    fixed = noise.specialize(wrapped, batch)
    assert fixed is not wrapped
    key = jax.random.key(3)
    one = batch._replace(inner=policy.default_params)  # its traced mode says 1: the fixed one (0) is drawn
    np.testing.assert_array_equal(jax.jit(lambda p: fixed.draw(key, 2, p))(one), noise.normal(key, (2, 3), 0))
