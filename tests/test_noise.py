"""Floating-point-safe noise: the discrete Laplace sampler (`jaxbandit.mechanisms.laplace`) against its law, the level
it keeps as realized in float32 (exact counts), the release on its grid; the Gaussian draw with tails to 2^-73
(`jaxbandit.mechanisms.normal`) against N(0, 1) (exact counts) and the float draw it replaces; and the policies'
``release`` option ("float": the float draw, bit for bit the recorded numbers — tests/test_contracts.py; the default:
the safe one), chosen when a policy is built."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import policies
from jaxbandit.random import threefry
from jaxbandit.mechanisms import laplace, normal
from tests.helpers import Z, default_subset


def _bits(n, seed=0):
    return jax.random.bits(jax.random.key(seed), (n, laplace.WORDS), jnp.uint32)


@pytest.mark.parametrize("eps_u", [2.0, 0.7, 0.05, 2.0 ** -12.5])
def test_discrete_laplace_matches_its_law(eps_u):
    """P(Z = 0) = (1 − q)/(1 + q) and Var Z = 2q/(1 − q)², q = e^{−ε_u} (z-tests at 1e-6)."""
    n = 400_000
    z = np.asarray(laplace.discrete_laplace(_bits(n), eps_u), np.float64)
    q = math.exp(-eps_u)
    p0 = (1 - q) / (1 + q)
    assert abs(np.mean(z == 0) - p0) < Z * math.sqrt(p0 * (1 - p0) / n)
    var = 2 * q / (1 - q) ** 2
    kurt = 6 + (1 - q) ** 2 / q  # excess kurtosis of the discrete Laplace, for the variance's standard error
    assert abs(z.var() / var - 1) < Z * math.sqrt((kurt + 2) / n)
    assert abs(z.mean()) < Z * math.sqrt(var / n)


@pytest.mark.slow
@pytest.mark.parametrize("eps_u, units", [(0.3, 2), (0.05, 3)])
def test_realized_level_is_the_claimed_one(eps_u, units):
    """Counted over all 2^64 inputs of each geometric with the sampler's own float32 code: against shifts up to
    Δ_u the realized Z is (ε, δ)-DP at ε = ε_u·Δ_u/margin (the level its release claims) with δ ~ 1e-19 (the cut
    tail), and not at 0.1% less ε (the level is tight)."""
    claimed = float(np.float32(eps_u)) * units / laplace.EPS_MARGIN
    assert laplace.realized_delta(eps_u, units, claimed) < 1e-15
    assert laplace.realized_delta(eps_u, units, 0.999 * float(np.float32(eps_u)) * units) > 1e-6


@pytest.mark.slow
def test_production_grid_law_is_within_its_margin():
    """At a release's own grid (b = 62, Δ = 2: a tree node at ε = 1, depth 31), the realized law of Z deviates from
    the ideal discrete Laplace by η ≤ 1e-5 relative wherever ε_u|z| < 30 (mass beyond: e^-30); so Z's level is at
    most ε_u·Δ_u + 2η, below ε₀ = Δ/b thanks to the 2^-10 margin."""
    lam, units, eps_u = (float(v) for v in laplace.grid(62.0, 2.0))
    assert lam == 2.0 ** (5 - laplace.GRID_BITS) and units == math.floor(2 / lam) + 1
    z0, pmf = laplace.realized_pmf(eps_u)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    q = math.exp(-float(np.float32(eps_u)))
    z = z0 + np.arange(len(pmf))
    ideal = (1 - q) / (1 + q) * q ** np.abs(z)
    bulk = np.abs(z) * float(np.float32(eps_u)) < 30
    eta = float(np.max(np.abs(pmf[bulk] / ideal[bulk] - 1)))
    assert eta < 1e-5, eta
    assert float(np.float32(eps_u)) * units + 2 * eta <= 2 / 62


def test_lazy_comparisons_follow_their_counted_law_where_the_stream_runs_out():
    """The lazy comparisons on a one-word stream with seven thresholds (one skipped), where the stream often runs
    out (~14 bits asked of 32): the outcome frequencies of 2·10^6 draws against `realized_stream_law`'s exact law
    (z-tests per outcome), and never an outcome it gives probability 0. A comparison that consumed one bit fewer
    or read its bits in another order would fail (one bit fewer, checked by hand: |z| = 1743)."""
    th = np.array([0x9E3779B9, 0x40000000, 0, 0xFFFFFF00, 0x12345678, 0x80000001, 0x7FFFFFFF], dtype=np.uint32)
    law = laplace.realized_stream_law(th, words=1)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    n = 2_000_000
    words = jax.random.bits(jax.random.key(1), (n, 1), jnp.uint32)
    out = np.asarray(laplace._lazy_bernoullis(words, jnp.asarray(th)))
    freq = np.bincount(out, minlength=len(law)) / n
    support = law > 0
    assert freq[~support].sum() == 0
    z = (freq - law)[support] / np.sqrt(law[support] * (1 - law[support]) / n)
    assert np.max(np.abs(z)) < Z, np.max(np.abs(z))
    # the production stream (3 words, the sign and up to 14 bits) moves at most 2e-13 of mass (where it runs out),
    # no outcome's probability by more than 1e-9 relative to independent bits
    _, thresholds = laplace.realized_thresholds(2.0 ** -14.5)
    assert len(thresholds) == 1 + laplace.M_BITS
    ideal = np.ones(1)
    for t in thresholds:
        p = int(t) / 2.0 ** 32
        ideal = np.concatenate([ideal * (1 - p), ideal * p])
    realized = laplace.realized_stream_law(thresholds)
    assert np.abs(realized - ideal).sum() / 2 < 2e-13
    assert np.max(np.abs(realized / ideal - 1)) < 1e-9


def test_release_is_on_the_grid_with_the_scale_it_replaces():
    b, delta, x = 2.0, 1.0, 10.3
    lam, units, _ = (float(v) for v in laplace.grid(b, delta))
    r = np.asarray(laplace.discrete_release(jnp.full((200_000,), x, jnp.float32), b, delta, _bits(200_000, 1)),
                   np.float64)
    assert np.all(np.mod(r / lam, 1) == 0)                    # every output is an integer multiple of Λ
    assert abs(r.mean() - round(x / lam) * lam) < Z * math.sqrt(2 * b * b / len(r))
    inflation = lam * units / delta                           # the scale in value units: b(1 + Λ/Δ) at most
    assert 1 <= inflation <= 1 + 2.0 ** -laplace.GRID_BITS / (delta / b) + 1e-12
    assert abs(r.var() / (2 * (b * inflation) ** 2) - 1) < Z * math.sqrt(5 / len(r))
    # no noise at scale 0 or ∞ (ε = ∞ or 0 sensitivity): the value itself
    for scale in (0.0, math.inf):
        assert float(laplace.discrete_release(jnp.float32(x), scale, delta, _bits(1)[0])) == pytest.approx(x)


def test_released_picks_the_float_formula_where_asked():
    lap = jnp.asarray([0.5, -1.0])
    bits = _bits(2, 3)
    float_value = 7.0 + 2.0 * lap
    floats = np.asarray(laplace.released(float_value, jnp.asarray([7.0, 7.0]), 2.0, 1.0,
                                         laplace.Noise(lap, bits[:, :0], False)))
    discrete = np.asarray(laplace.released(float_value, jnp.asarray([7.0, 7.0]), 2.0, 1.0,
                                           laplace.Noise(jnp.zeros(2), bits, True)))
    np.testing.assert_array_equal(floats, float_value)            # the float release: its formula itself
    assert discrete[1] == float(laplace.discrete_release(jnp.float32(7.0), 2.0, 1.0, bits[1]))
    np.testing.assert_array_equal(laplace.released(float_value, 7.0, 2.0, 1.0, lap), float_value)  # a plain draw


def test_draw_keeps_the_float_stream():
    """`draw` of the float release is jax.random.laplace on the same key (the float numbers are unchanged) and
    draws no bits; the discrete release draws the bits only; an unknown release is refused by name."""
    key = jax.random.key(9)
    f = laplace.draw(key, (5, 3), "float", bits_shape=(5,))
    np.testing.assert_array_equal(f.laplace, jax.random.laplace(key, (5, 3)))
    assert f.bits.shape == (5, 0) and f.discrete is False
    d = laplace.draw(key, (5, 3), "discrete", bits_shape=(5,))
    np.testing.assert_array_equal(d.bits, jax.random.bits(jax.random.fold_in(key, 1), (5, laplace.WORDS),
                                                          jnp.uint32))
    assert not np.any(d.laplace) and d.bits.dtype == jnp.uint32 and d.discrete is True
    with pytest.raises(ValueError, match="unknown Laplace release 'discrte'.*did you mean 'discrete'"):
        laplace.draw(key, (5, 3), "discrte")


@pytest.mark.parametrize("shape", default_subset([(50, 10), (7, 3), (1, 2), (4, 2, 3)], [(7, 3), (4, 2, 3)]))
def test_a_deferred_float_draw_is_the_whole_draw(shape):
    """``words_later`` in the float release defers the draw (`DeferredLaplace`): each step's values, computed
    where read, are ``jax.random.laplace``'s on the block key bit for bit (float32, and float64 under x64), also
    per step slice and under jit; a key of another implementation gets the eager draw."""
    key = jax.random.fold_in(threefry.key(4), 2)
    for dtype, x64 in ((jnp.float32, False), (jnp.float64, True)):
        with jax.enable_x64(x64):
            want = np.asarray(jax.random.laplace(key, shape, dtype))
            d = laplace.draw(key, shape, "float", dtype=dtype, words_later=True)
            assert isinstance(d.laplace, laplace.DeferredLaplace) and d.bits.shape == shape + (0,)
            got = np.asarray(jax.jit(laplace.laplace_of)(d))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
            last = jax.tree.map(lambda x: x[-1], d)
            np.testing.assert_array_equal(np.asarray(laplace.laplace_of(last)), want[-1])
            np.testing.assert_array_equal(np.asarray(laplace.resolved(last).laplace), want[-1])
    other = jax.random.key(4)
    eager = laplace.draw(other, shape, "float", words_later=True)
    np.testing.assert_array_equal(eager.laplace, jax.random.laplace(other, shape))
    assert not isinstance(laplace.draw(key, shape, "discrete", words_later=True).laplace, laplace.DeferredLaplace)


@pytest.mark.slow
def test_dp_se_float_mode_defers_its_draw_and_keeps_its_numbers(monkeypatch):
    """DP-SE's float release reads its epoch ends' Laplace draws from the deferred draw: the same regret as the eager
    draw it replaces, on a bandit where the noise changes eliminations (the discrete release's regret differs)."""
    kw = dict(env="bernoulli", env_params={"means": [0.4, 0.425, 0.45, 0.475, 0.5]}, policy="dp-se", horizon=30000,
              runs=16, seed=6)
    pp = {"epsilon": 0.1, "beta": 0.1}  # (5 of the 16 runs' regrets differ between the two releases)
    deferred = jb.simulate(**kw, policy_params=pp, policy_options={"release": "float"}).pseudo_regret
    discrete = jb.simulate(**kw, policy_params=pp).pseudo_regret
    monkeypatch.setattr(laplace, "_deferrable", lambda key, dtype: False)
    monkeypatch.setattr(jb.engine, "_ADVANCE_CACHE", {})  # recompile: the draw is chosen while tracing
    eager = jb.simulate(**kw, policy_params=pp, policy_options={"release": "float"}).pseudo_regret
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
        m = jnp.clip(-jnp.frexp(u)[1], 0, laplace.M_BITS)
        return m, jnp.ldexp(u, m)

    m = ldexp_split(eps)[0]
    np.testing.assert_array_equal(np.asarray(laplace._split(eps)[1]), np.asarray(ldexp_split(eps)[1]))
    j = jnp.arange(laplace.M_BITS)
    p = jax.nn.sigmoid(-jnp.ldexp(eps[:, None], j))
    want = jnp.where(j < m[:, None], jnp.minimum(jnp.rint(p * jnp.float32(2.0 ** 32)),
                                                 jnp.float32(2.0 ** 32 - 256)).astype(jnp.uint32), jnp.uint32(0))
    np.testing.assert_array_equal(np.asarray(laplace._bit_thresholds(eps)), np.asarray(want))
    tiny = jnp.asarray(np.repeat(np.float32([1e-45, 1e-40]), 50))
    bits = jax.random.bits(jax.random.key(3), (100, laplace.WORDS), jnp.uint32)
    fast = laplace.discrete_laplace(bits, tiny)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(laplace, "_split", ldexp_split)
        np.testing.assert_array_equal(np.asarray(fast), np.asarray(laplace.discrete_laplace(bits, tiny)))


def test_the_release_is_static_and_releases_one_way():
    """`Noise.discrete` is static (the policy's build-time ``release``): not a leaf, so it survives ``lax.scan`` and
    ``jit`` as a Python-level choice, the float draw carries no words, and `released` computes only that release."""
    key = jax.random.key(4)
    f, d = laplace.draw(key, (6, 3), "float"), laplace.draw(key, (6, 3), "discrete")
    assert len(jax.tree.leaves(f)) == 2 and f.bits.shape == (6, 3, 0) and not f.discrete
    assert len(jax.tree.leaves(d)) == 2 and d.discrete
    x = jnp.linspace(0.0, 5.0, 18).reshape(6, 3)

    def release(n, x=x):
        return laplace.released(x + 0.3 * laplace.laplace_of(n), x, 0.3, 1.0, n)

    def per_step(carry, step):  # the engine's shape: one step's slice of a block
        n, xt = step
        return carry + isinstance(n.discrete, bool), release(n, xt)

    for fixed in (f, d):
        static, got = jax.jit(lambda n: jax.lax.scan(per_step, 0, (n, x)))(fixed)
        assert static == 6  # still static inside the scan
        # the mode's release, step by step (to float32 rounding: XLA may fuse the jitted scan's arithmetic otherwise)
        np.testing.assert_allclose(got, release(fixed), rtol=1e-6)
    # the float release computes no discrete release (its rounding to the grid), the discrete one does
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
    res = {mode: jb.simulate(env, name, env_params=ep, policy_params=params, horizon=T, runs=300, seed=mode + 11,
                             policy_options={} if mode else {"release": "float"}, progress=False) for mode in (0, 1)}
    a, b = (res[m].final() for m in (0, 1))
    se = math.sqrt(a.var() / len(a) + b.var() / len(b))
    assert abs(a.mean() - b.mean()) < Z * se, (a.mean(), b.mean(), se)


def test_release_option_is_checked_and_the_old_switch_explained():
    with pytest.raises(ValueError, match="unknown Laplace release 'gaussian'; valid names: discrete, float"):
        policies.get("dp-se", 3, release="gaussian")
    with pytest.raises(ValueError, match="policy parameter noise of 'dp-se' is now the build-time option release"):
        policies.make("dp-se", 3, noise=0)
    with pytest.raises(ValueError, match="unknown option\\(s\\) \\['noise'\\] for policy 'ucb1'; valid: none"):
        policies.get("ucb1", 3, noise="float")


@pytest.mark.parametrize("name", ["gaussian-thompson", "modified-thompson", "dp-ftpl-gauss"])
def test_gaussian_release_is_checked_and_defaults_to_the_tail_safe_draw(name):
    assert policies.get(name, 3).options["release"] == "tail-safe"
    with pytest.raises(ValueError, match="unknown normal release 'discrete'; valid names: float, tail-safe"):
        policies.get(name, 3, release="discrete")


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
    got = np.asarray(normal.half_normal_quantile(p), np.float64)
    want = np.array([_tail_quantile(float(x)) for x in p])
    assert np.max(np.abs(got / want - 1)) < 3e-7


def test_tail_normal_reads_its_words_as_documented():
    """Word 0: 23 mantissa bits, the sign (bit 23), 8 exponent bits; words 1, 2: 64 more. The exponent is the
    number of leading zeros of the 72 bits, 72 if all are zero: the smallest p, 2^-73, and the largest |Z|."""
    w = lambda a, b, c: jnp.asarray([[a], [b], [c]], jnp.uint32)
    q = lambda p: float(normal.half_normal_quantile(np.float32(p)))
    assert float(normal.tail_normal(w(0x80000000, 0, 0))[0]) == -q(0.5)           # e = 0, mantissa 0, sign 0
    assert float(normal.tail_normal(w(0x80800000, 0, 0))[0]) == q(0.5)            # bit 23: positive
    assert float(normal.tail_normal(w(0x01000000 | 5, 7, 7))[0]) == -q(2.0 ** -8 * (1 + 5 * 2.0 ** -23))  # e = 7
    assert float(normal.tail_normal(w(0, 1, 0))[0]) == -q(2.0 ** -40)             # e = 8 + 31
    assert float(normal.tail_normal(w(0, 0, 1))[0]) == -q(2.0 ** -72)             # e = 40 + 31
    deepest = float(normal.tail_normal(w(0x00800000, 0, 0))[0])                   # e = 72
    assert deepest == q(2.0 ** -73) and 9.7 < deepest < 9.9


def test_normal_keeps_the_float_stream_and_draws_the_tail_safe_one_from_its_own_words():
    key = jax.random.key(4)
    np.testing.assert_array_equal(normal.normal(key, (6, 5), "float"), jax.random.normal(key, (6, 5)))
    words = jax.random.bits(jax.random.fold_in(key, 1), (normal.NORMAL_WORDS, 6, 5), jnp.uint32)
    np.testing.assert_array_equal(normal.normal(key, (6, 5), "tail-safe"), normal.tail_normal(words))


def test_tail_normal_is_standard_normal():
    """Moments and tails of 2·10^6 draws against N(0, 1) (z at 1e-6): mean, variance, P(Z > 1), P(Z < −2), and the
    sign balance."""
    x = np.asarray(normal.normal(jax.random.key(8), (2_000_000,), "tail-safe"), np.float64)
    n = x.size
    assert abs(x.mean()) < Z / math.sqrt(n)
    assert abs(x.var() - 1) < Z * math.sqrt(2 / n)
    for event, p in ((x > 1, 0.5 * math.erfc(1 / math.sqrt(2))), (x < -2, 0.5 * math.erfc(2 / math.sqrt(2))),
                     (x > 0, 0.5)):
        assert abs(event.mean() - p) < Z * math.sqrt(p * (1 - p) / n)


@pytest.mark.slow
def test_realized_gaussian_tail_is_the_normal_one_down_to_2_to_the_minus_72():
    """P(|Z| ≥ z) as the float32 sampler realizes it, counted exactly over its 73·2^23 values of p, is erfc(z/√2)
    within 1e-5 relatively for every z up to 9.5 (P = 2e-21), and 0 past its last value, 9.81 (where N(0, 1) has
    6e-23 left); the float draw stops at 5.22 above and 5.42 below, where N(0, 1) still has 9e-8 and 3e-8."""
    z = np.array([1.0, 4.0, 7.0, 9.5, 9.85])
    tail = normal.realized_normal_tail(z)
    ideal = np.array([math.erfc(v / math.sqrt(2)) for v in z])
    np.testing.assert_array_less(np.abs(tail[:-1] / ideal[:-1] - 1), 1e-5)
    assert tail[-1] == 0.0
    values, mass = normal.float_normal_law()
    assert mass == 2.0 ** -23 and 5.2 < values.max() < 5.25 and -5.45 < values.min() < -5.4
    assert np.sum(values >= 5.25) == 0 and 0.5 * math.erfc(5.25 / math.sqrt(2)) > 7e-8


@pytest.mark.parametrize("seed", [3, 5])
def test_float_normal_law_is_what_jax_random_normal_draws(seed):
    """`float_normal_law` maps a word's top 23 bits as jax.random.normal does: the same values for the same words."""
    key = jax.random.key(seed)
    values, _ = normal.float_normal_law()
    words = np.asarray(jax.random.bits(key, (100_000,), jnp.uint32))
    np.testing.assert_array_equal(values[words >> 9], jax.random.normal(key, (100_000,)))


def test_options_are_separate_policies_and_a_rollout_gives_the_drivers_numbers():
    """A grid over the release is a list of policies: each built once (memoized: the same object, so the same
    compilation), and `jaxbandit.rollout` of each gives the numbers of `jaxbandit.simulate` bit for bit. (The
    Laplace policies' rollout and drivers are compared by every contract case, tests/test_contracts.py.)"""
    name = "gaussian-thompson"
    assert policies.get(name, 3, release="float") is policies.get(name, 3, release="float")
    assert policies.get(name, 3, release="float") is not policies.get(name, 3)
    common = dict(env_params={"means": [0.2, 0.5, 0.6]}, horizon=120, runs=3, seed=4, progress=False)
    runs = {}
    for release in ("float", "tail-safe"):
        alone = jb.simulate("bernoulli", name, policy_options={"release": release}, **common)
        env, policy, privatizer, sim = jb.resolve("bernoulli", name, env_params=common["env_params"],
                                                  policy_options={"release": release})
        run = jb.rollout(env, policy, privatizer, horizon=120, record_times=alone.t)
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(threefry.key(4), jnp.arange(3))
        traced = jax.jit(jax.vmap(run, in_axes=(0, None)))(keys, sim)
        np.testing.assert_array_equal(np.asarray(traced.pseudo_regret), alone.pseudo_regret)
        runs[release] = alone.pseudo_regret
    assert not np.array_equal(runs["float"], runs["tail-safe"])
