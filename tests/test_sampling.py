"""Tests for jaxbandit.random.samplers: exactness against the exact CDFs, every code
path (pre-drawn noise, noise=None, forced fallback), dtypes, jit/vmap, ranges,
and that the statistical check does catch a broken sampler.

Statistical tests are one-sample Kolmogorov–Smirnov tests against the exact CDF
(jax.scipy.special.betainc / gammainc in float64).  By the Dvoretzky–Kiefer–
Wolfowitz inequality with Massart's constant, P(sqrt(n) D_n > t) <= 2 exp(-2 t^2)
for any n, so t = sqrt(log(2/1e-6)/2) = 2.694 gives a false-alarm rate <= 1e-6
per test (each shape is one test).  All seeds are fixed, so the outcome is
deterministic anyway; the rate says how unlucky a seed would have to be.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbandit.random import samplers

ALPHA = 1e-6  # per-test false-alarm rate of every KS check
T_CRIT = math.sqrt(math.log(2 / ALPHA) / 2)  # DKW–Massart, = 2.694
N = 20_000  # samples per shape: critical D = 0.019
beta_j, gamma_j = jax.jit(samplers.beta), jax.jit(samplers.gamma)  # one compilation each (eager: dozens)

# Shapes: a < 1, a = 1 (closed form), small integers, moderate, large, mixed.
BETA_SHAPES = [
    (0.3, 2.5), (0.5, 0.5), (0.8, 1.0), (1.0, 1.0), (1.0, 7.0), (4.0, 1.0), (2.0, 3.0),
    (5.0, 5.0), (3.0, 10.0), (37.5, 10.5), (2.0, 1e4), (1e4, 1e4), (1e4, 1.0),
]
GAMMA_SHAPES = [0.3, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 10.0, 37.5, 1e4]
# Shapes that are never resolved by exact sums / closed forms: for forced-fallback tests.
BETA_REJECTABLE = [(0.3, 2.5), (0.5, 0.5), (2.0, 3.0), (5.0, 5.0), (37.5, 10.5), (2.0, 1e4), (1e4, 1e4)]
GAMMA_REJECTABLE = [0.3, 0.7, 2.2, 3.7, 10.5, 37.3, 10000.25]


def ks_stat(x, cdf):
    """sqrt(n) * sup |F_n - F| for samples x, given cdf(sorted x)."""
    x = np.sort(np.asarray(x, np.float64))
    f = np.asarray(cdf(x), np.float64)
    n = len(x)
    i = np.arange(1, n + 1)
    return math.sqrt(n) * max(np.max(i / n - f), np.max(f - (i - 1) / n))


def beta_cdf(a, b):
    def cdf(x):
        with jax.enable_x64(True):
            return jax.scipy.special.betainc(a, b, jnp.asarray(x, jnp.float64))
    return cdf


def gamma_cdf(a):
    def cdf(x):
        with jax.enable_x64(True):
            return jax.scipy.special.gammainc(a, jnp.asarray(x, jnp.float64))
    return cdf


def grid(pairs, n=N):
    a = jnp.asarray([p[0] for p in pairs], jnp.float32)[:, None] * jnp.ones((1, n), jnp.float32)
    b = jnp.asarray([p[1] for p in pairs], jnp.float32)[:, None] * jnp.ones((1, n), jnp.float32)
    return a, b


def assert_beta_exact(x, pairs):
    x = np.asarray(x)
    assert np.all(np.isfinite(x)) and np.all(x > 0) and np.all(x < 1)
    for row, (a, b) in zip(x, pairs):
        t = ks_stat(row, beta_cdf(a, b))
        assert t < T_CRIT, f"Beta({a}, {b}): sqrt(n) D = {t:.3f} >= {T_CRIT:.3f}"


def assert_gamma_exact(g, shapes):
    g = np.asarray(g)
    assert np.all(np.isfinite(g)) and np.all(g > 0)
    for row, a in zip(g, shapes):
        t = ks_stat(row, gamma_cdf(a))
        assert t < T_CRIT, f"Gamma({a}): sqrt(n) D = {t:.3f} >= {T_CRIT:.3f}"


# --------------------------------------------------------------------- Beta
def test_beta_exact_predrawn():  # false alarm <= 1e-6 per shape
    a, b = grid(BETA_SHAPES)
    noise = samplers.draw_beta_noise(jax.random.key(1), a.shape)
    assert_beta_exact(jax.jit(samplers.beta)(jax.random.key(2), a, b, noise), BETA_SHAPES)


def test_beta_exact_noise_none():  # false alarm <= 1e-6 per shape
    a, b = grid(BETA_SHAPES)
    assert_beta_exact(beta_j(jax.random.key(5), a, b), BETA_SHAPES)


def test_beta_exact_forced_fallback():  # false alarm <= 1e-6 per shape
    # U1 = 0.9 (V != 0) and U2 = largest uniform below 1: both pre-drawn Cheng
    # attempts are rejected, so every variate comes from the fallback loop.
    a, b = grid(BETA_REJECTABLE)
    u1 = jnp.full(a.shape, 0.9, jnp.float32)
    u2 = jnp.full(a.shape, 1 - 2.0**-24, jnp.float32)
    acc, _ = samplers._cheng_attempt(u1, u2, samplers._beta_consts(a, b))
    assert not bool(jnp.any(acc))
    noise = samplers.BetaNoise(jnp.stack([u1, u2] * 2, axis=-1))
    assert_beta_exact(beta_j(jax.random.key(6), a, b, noise), BETA_REJECTABLE)


@pytest.mark.slow
def test_compact_idx_matches_nonzero():
    # the fallback's compaction (bit-packed prefix counts + scatter) must
    # equal jnp.nonzero, also for sizes that are not multiples of the row width,
    # for more True entries than the buffer holds, and for none at all
    for n, p, cap in [(1, 1.0, 1), (127, 0.3, 16), (129, 0.5, 128), (10_000, 0.07, 834), (10_000, 0.5, 834),
                      (140_000, 1.0, 11_667), (3000, 0.0, 250)]:
        mask = jax.random.uniform(jax.random.key(n), (n,)) < p
        want = jnp.nonzero(mask, size=cap, fill_value=n)[0]
        np.testing.assert_array_equal(jax.jit(samplers._compact_idx, static_argnums=1)(mask, cap), want)


def test_prefix_count_exact():
    # bit-packed prefix counts (32 flags per word, popcounts) equal np.cumsum,
    # also for sizes that are not multiples of 32 and for all-True / all-False
    f = jax.jit(samplers._prefix_count)
    for n, p in [(1, 1.0), (31, 0.5), (32, 1.0), (33, 0.3), (1000, 0.0), (10_000, 0.12), (10_000, 1.0),
                 (140_001, 0.5)]:
        flags = (jax.random.uniform(jax.random.key(n), (n,)) < p).astype(jnp.int32)
        np.testing.assert_array_equal(f(flags), np.cumsum(np.asarray(flags)))


@pytest.mark.slow
def test_beta_float64_exact_forced_fallback():  # false alarm <= 1e-6 per shape
    # float64 fallback uniforms (two Threefry words per uniform, top-bit
    # counters keyed by the key's own words): every variate from the fallback
    pairs = [(0.3, 2.5), (2.0, 3.0), (37.5, 10.5), (1e4, 1e4)]
    with jax.enable_x64(True):
        a = jnp.asarray([p[0] for p in pairs])[:, None] * jnp.ones((1, N))
        b = jnp.asarray([p[1] for p in pairs])[:, None] * jnp.ones((1, N))
        u1 = jnp.full(a.shape, 0.9)
        u2 = jnp.full(a.shape, 1 - 2.0**-53)
        acc, _ = samplers._cheng_attempt(u1, u2, samplers._beta_consts(a, b))
        assert not bool(jnp.any(acc))
        x = samplers.beta(jax.random.key(8), a, b, samplers.BetaNoise(jnp.stack([u1, u2], axis=-1)))
        assert x.dtype == jnp.float64
    assert_beta_exact(x, pairs)


def test_beta_float64_exact_and_small_shapes():  # false alarm <= 1e-6 per shape
    pairs = [(0.05, 2.0), (0.3, 0.7), (3.0, 4.0), (1e4, 3e4)]
    with jax.enable_x64(True):
        a = jnp.asarray([p[0] for p in pairs])[:, None] * jnp.ones((1, N))
        b = jnp.asarray([p[1] for p in pairs])[:, None] * jnp.ones((1, N))
        x = samplers.beta(jax.random.key(7), a, b)
        assert x.dtype == jnp.float64
        assert bool(jnp.any(x != x.astype(jnp.float32)))  # really computed in float64
    assert_beta_exact(x, pairs)


# -------------------------------------------------------------------- Gamma
def gamma_grid(shapes, n=N):
    return jnp.asarray(shapes, jnp.float32)[:, None] * jnp.ones((1, n), jnp.float32)


def test_gamma_exact_predrawn():  # false alarm <= 1e-6 per shape
    a = gamma_grid(GAMMA_SHAPES)
    noise = samplers.draw_gamma_noise(jax.random.key(11), a.shape)
    assert_gamma_exact(jax.jit(samplers.gamma)(jax.random.key(12), a, noise), GAMMA_SHAPES)


def test_gamma_exact_noise_none():  # false alarm <= 1e-6 per shape
    a = gamma_grid(GAMMA_SHAPES)
    assert_gamma_exact(gamma_j(jax.random.key(13), a), GAMMA_SHAPES)


def test_gamma_exact_forced_fallback():  # false alarm <= 1e-6 per shape
    # Normals x = -1e6 give v = (1 + c x)^3 < 0: every pre-drawn attempt is
    # rejected (shapes chosen so that none is an exact half-integer sum); the
    # exponentials stay genuine, since a < 1 uses one of them for its boost.
    a = gamma_grid(GAMMA_REJECTABLE)
    noise = samplers.draw_gamma_noise(jax.random.key(16), a.shape)
    noise = noise._replace(normal=jnp.full_like(noise.normal, -1e6))
    assert_gamma_exact(gamma_j(jax.random.key(14), a, noise), GAMMA_REJECTABLE)


@pytest.mark.slow
def test_gamma_float64():  # false alarm <= 1e-6 per shape
    shapes = [0.2, 2.5, 1e4]
    with jax.enable_x64(True):
        a = jnp.asarray(shapes)[:, None] * jnp.ones((1, N))
        g = samplers.gamma(jax.random.key(15), a)
        assert g.dtype == jnp.float64
    assert_gamma_exact(g, shapes)


# ------------------------------------------------------- the test can fail
@pytest.mark.slow
def test_ks_check_catches_broken_samplers(monkeypatch):
    """Skipping the acceptance tests (delivering every proposal) must fail the
    same KS checks; otherwise the exactness tests above would prove nothing."""
    jax.clear_caches()
    monkeypatch.setattr(
        samplers, "_cheng_attempt",
        lambda u1, u2, C, f=samplers._cheng_attempt: (jnp.ones(u1.shape, bool), f(u1, u2, C)[1]),
    )
    monkeypatch.setattr(
        samplers, "_mt_attempt",
        lambda x, e, d, c, f=samplers._mt_attempt: ((1 + c * x) > 0, f(x, e, d, c)[1]),
    )
    pairs = [(3.0, 4.0), (10.0, 10.0)]
    a, b = grid(pairs, N + 1)
    with pytest.raises(AssertionError, match="sqrt"):
        assert_beta_exact(samplers.beta(jax.random.key(21), a, b), pairs)
    # Marsaglia–Tsang rejects only ~4 % at a ~ 1.1, so use 5x more samples here.
    a = gamma_grid([1.05, 1.2], 5 * N)
    with pytest.raises(AssertionError, match="sqrt"):
        assert_gamma_exact(samplers.gamma(jax.random.key(22), a), [1.05, 1.2])
    jax.clear_caches()


# ------------------------------------------------------------------ dtypes
def test_dtypes():
    key = jax.random.key(0)
    dt = lambda f, *args: jax.eval_shape(f, key, *args).dtype  # traces, does not compile
    i3 = jnp.ones(3, jnp.int32)
    assert dt(samplers.beta, 2.0, 3.0) == jnp.float32
    assert dt(samplers.beta, i3, 3) == jnp.float32
    assert dt(samplers.gamma, jnp.ones(3)) == jnp.float32
    assert samplers.draw_beta_noise(key, (4, 2)).uniform.dtype == jnp.float32
    with jax.enable_x64(True):
        assert dt(samplers.beta, 2.0, 3.0) == jnp.float64
        assert dt(samplers.beta, i3, 3) == jnp.float64
        assert dt(samplers.beta, jnp.ones(3, jnp.float32), 3.0) == jnp.float32
        assert dt(samplers.gamma, 2.5) == jnp.float64
        assert dt(samplers.gamma, jnp.ones(3, jnp.float32)) == jnp.float32
        assert samplers.draw_gamma_noise(key, (2,)).normal.dtype == jnp.float64
        assert samplers.draw_beta_noise(key, (2,)).uniform.dtype == jnp.float64


# --------------------------------------------------------------- jit / vmap
def test_noise_layout_and_block_slicing():
    steps, k = 6, 5
    noise = samplers.draw_beta_noise(jax.random.key(1), (steps, k), attempts=2)
    assert noise.uniform.shape == (steps, k, 4)
    gnoise = samplers.draw_gamma_noise(jax.random.key(1), (steps, k))
    assert gnoise.normal.shape == gnoise.exponential.shape == (steps, k, samplers.DEFAULT_GAMMA_ATTEMPTS)
    a = jnp.arange(1.0, k + 1)
    for t in range(steps):  # the engine's use: slice one step's noise off a block
        one_step = jax.tree_util.tree_map(lambda leaf: leaf[t], noise)
        x = beta_j(jax.random.key(t), a, a[::-1], one_step)
        assert x.shape == (k,) and bool(jnp.all((x > 0) & (x < 1)))


@pytest.mark.slow  # 18 s of compiling; the default suite keeps the batch-independence test below (a batched Beta
# draw equals the element drawn alone) and the slow tier runs this one
def test_jit_and_vmap_equal_unbatched_loop():
    k, runs = 5, 3
    a = (jnp.arange(k * runs, dtype=jnp.float32).reshape(k, runs) % 13) * 0.75 + 0.25
    b = a[::-1] * 2 + 1
    keys = jax.random.split(jax.random.key(3), runs)
    bnoise = jax.vmap(lambda kk: samplers.draw_beta_noise(kk, (k,), attempts=2), out_axes=-1)(keys)
    gnoise = jax.vmap(lambda kk: samplers.draw_gamma_noise(kk, (k,)), out_axes=-1)(keys)
    vb = jax.jit(jax.vmap(samplers.beta, in_axes=(0, -1, -1, -1), out_axes=-1))(keys, a, b, bnoise)
    vg = jax.jit(jax.vmap(samplers.gamma, in_axes=(0, -1, -1), out_axes=-1))(keys, a, gnoise)
    for r in range(runs):
        nb = samplers.BetaNoise(bnoise.uniform[..., r])
        ng = samplers.GammaNoise(gnoise.normal[..., r], gnoise.exponential[..., r])
        np.testing.assert_array_equal(vb[:, r], beta_j(keys[r], a[:, r], b[:, r], nb))
        np.testing.assert_array_equal(vg[:, r], gamma_j(keys[r], a[:, r], ng))
    nb = samplers.BetaNoise(bnoise.uniform[..., 0])  # eager == jit
    np.testing.assert_array_equal(vb[:, 0], samplers.beta(keys[0], a[:, 0], b[:, 0], nb))
    # nested vmap, no noise, unbatched shape arguments
    vv = jax.jit(jax.vmap(jax.vmap(samplers.beta, in_axes=(0, None, None)), in_axes=(0, None, None)))(
        jnp.stack([keys, keys]), 2.5, 3.5
    )
    np.testing.assert_array_equal(vv[0], vv[1])
    np.testing.assert_array_equal(vv[0, 2], jax.jit(samplers.beta)(keys[2], 2.5, 3.5))


def test_batch_element_independent_of_the_others_when_the_fallback_overflows():
    """A batch element's draws are a pure function of its own key, noise and shapes, even when more entries are
    pending than the fallback buffer holds (1/12 of the batch) and some wait for later loop iterations: element 0
    computed alone equals element 0 in a batch whose other elements all fall back (forced rejection), and in a
    batch where none of them do."""
    k, runs = 20, 60
    a = jnp.full((k, runs), 3.5, jnp.float32)
    b = jnp.full((k, runs), 7.0, jnp.float32)
    keys = jax.random.split(jax.random.key(8), runs)
    noise = samplers.draw_beta_noise(jax.random.key(9), (k, runs)).uniform  # (k, runs, 2)
    reject = jnp.broadcast_to(jnp.asarray([0.9, 1 - 2.0**-24], jnp.float32), noise.shape)
    assert not bool(jnp.any(samplers._cheng_attempt(reject[..., 0], reject[..., 1], samplers._beta_consts(a, b))[0]))
    # element 0: its own noise, with half of its entries forced to the fallback too
    own = noise[:, 0].at[: k // 2].set(reject[: k // 2, 0])
    batched = jax.jit(jax.vmap(samplers.beta, in_axes=(0, -1, -1, -2), out_axes=-1))
    alone = beta_j(keys[0], a[:, 0], b[:, 0], samplers.BetaNoise(own))
    for others in (reject, noise):  # all others pending (buffer overflows) / almost none pending
        u = others.at[:, 0].set(own)
        together = batched(keys, a, b, samplers.BetaNoise(u))
        np.testing.assert_array_equal(together[:, 0], alone)
    assert_beta_exact(batched(keys, a, b, samplers.BetaNoise(reject)).reshape(1, -1), [(3.5, 7.0)])


def test_raw_uint32_keys_accepted():
    x = samplers.beta(jax.random.PRNGKey(0), jnp.full(4, 2.0), 3.0)
    assert x.shape == (4,) and bool(jnp.all((x > 0) & (x < 1)))


# ------------------------------------------------------------------ ranges
def test_finite_and_in_range_for_extreme_shapes():
    vals = jnp.asarray([1e-3, 0.1, 1.0, 3.0, 1e3, 1e6], jnp.float32)
    a, b = jnp.meshgrid(vals, vals)
    a = jnp.repeat(a.reshape(-1, 1), 500, axis=1)
    b = jnp.repeat(b.reshape(-1, 1), 500, axis=1)
    x = beta_j(jax.random.key(8), a, b)
    assert bool(jnp.all(jnp.isfinite(x) & (x > 0) & (x < 1)))
    g = gamma_j(jax.random.key(9), jnp.repeat(jnp.asarray([1e-3, 0.1, 0.5, 1.0, 2.5, 1e3, 1e6])[:, None], 500, 1))
    assert bool(jnp.all(jnp.isfinite(g) & (g > 0)))
