"""Private counters (jaxbandit.mechanisms.counters): the hybrid and binary-tree continual-release counters and their
accounting. Oracles: np.cumsum (noise off), the closed-form variances of spec 004 §7 (oracle 6) and of the hybrid
mechanism, and the exact privacy loss of the counter's own release sequence, computed from its Jacobians (below),
against which the host-side accounting is checked and the ε bound asserted."""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.linalg import solve_triangular

from jaxbandit.random import threefry
from jaxbandit.mechanisms import counters
from tests.helpers import Z

TREE_LEVELS = 10  # a tree holding 1023 items: tight (max loss = ε) for streams of 512 items or more


def tree(levels=TREE_LEVELS, depth=None):
    """The tree counter with ``levels`` levels (and optionally a node-budget divisor ``depth``)."""
    return counters.Counter(functools.partial(counters.tree_init, levels=levels),
                            functools.partial(counters.tree_insert, depth=depth), counters.tree_release)


COUNTERS = {"hybrid": counters.HYBRID, "tree": tree()}
LOSS = {"hybrid": counters.hybrid_privacy_loss,
        "tree": functools.partial(counters.tree_privacy_loss, levels=TREE_LEVELS)}


def releases(counter, x, laplace, epsilon, sensitivity=1.0, dtype=None):
    """Insert the stream x into one counter (Laplace draws and sensitivities per item) and return every release."""
    n = len(x)
    sens = jnp.broadcast_to(jnp.asarray(sensitivity, dtype), (n,))

    def step(state, inputs):
        xi, lap, si = inputs
        state = counter.insert(state, xi, lap, epsilon, sensitivity=si)
        return state, counter.release(state)

    init = counter.init(dtype=dtype)
    return jax.lax.scan(step, init, (jnp.asarray(x, init[-1].dtype), jnp.asarray(laplace, init[-1].dtype), sens))[1]


# ------------------------------------------------------------------------------------------------ noise off: exact

@pytest.mark.parametrize("name", sorted(COUNTERS))
def test_exact_with_noise_off(name):
    counter, n = COUNTERS[name], 1000 if name == "tree" else 3000  # 1023: the tree's capacity
    x = np.asarray(jax.random.uniform(threefry.key(6), (n,)), np.float64)
    lap = np.asarray(jax.random.laplace(threefry.key(7), (n,)), np.float64)
    with jax.enable_x64(True):  # float64: the check is the structure, not float32 rounding
        # ε = ∞ with real draws, and zero draws with a finite ε.
        both = jax.vmap(lambda lp, eps: releases(counter, x, lp, eps, dtype=jnp.float64))
        out = np.asarray(both(jnp.asarray([lap, 0 * lap]), jnp.asarray([math.inf, 0.5])))
    np.testing.assert_allclose(out, np.broadcast_to(np.cumsum(x), out.shape), rtol=1e-12)
    # float32, the policies' dtype: exact up to rounding.
    np.testing.assert_allclose(releases(counter, x.astype(np.float32), lap, math.inf), np.cumsum(x), rtol=2e-6)


@pytest.mark.parametrize("name", sorted(COUNTERS))
def test_batched_masked_counters_are_exact_per_counter(name):
    """A (K,) array of counters under vmap over runs, fed through a mask (an arm's counter gets its pulls only)."""
    counter, runs, n, k = COUNTERS[name], 3, 600, 4
    x = np.asarray(jax.random.uniform(threefry.key(1), (runs, n, k)), np.float32)
    hit = np.asarray(jax.random.bernoulli(threefry.key(2), 0.4, (runs, n, k)))

    def run(x, hit):
        def step(state, inputs):
            xi, mi = inputs
            state = counter.insert(state, xi, jnp.ones(k), math.inf, mask=mi)
            return state, counter.release(state)
        return jax.lax.scan(step, counter.init((k,)), (x, hit))

    final, out = jax.jit(jax.vmap(run))(x, hit)
    np.testing.assert_allclose(out, np.cumsum(np.where(hit, x, 0), axis=1), rtol=2e-6)
    np.testing.assert_array_equal(final.n, hit.sum(axis=1))


def test_tree_structure_and_capacity():
    """Spec 004 §7 oracle 5: popcount(t) live nodes at t; a tree of L levels holds 2^L − 1 items, then ignores."""
    n, levels = 40, 5
    x = np.arange(1, n + 1, dtype=np.float32)

    def step(state, xi):
        state = counters.tree_insert(state, xi, 0.0, 1.0)
        return state, (jnp.sum(state.alpha_hat != 0), counters.tree_release(state), state.n)

    _, (live, out, count) = jax.lax.scan(step, counters.tree_init(levels=levels), x)
    t = np.arange(1, n + 1)
    cap = 2 ** levels - 1
    np.testing.assert_array_equal(live[:cap], [bin(v).count("1") for v in t[:cap]])
    np.testing.assert_array_equal(count, np.minimum(t, cap))
    np.testing.assert_array_equal(out, np.cumsum(x)[np.minimum(t, cap) - 1])


# ------------------------------------------------------------------------------------------------------- noise law

def oracle_hybrid_variance(n, eps):
    """(k + 1)·2(2/ε)² + popcount(r)·2(2k/ε)² for n = 2^k + r: k + 1 Lap(2/ε) and popcount(r) Lap(2k/ε) terms."""
    k = n.bit_length() - 1
    return (k + 1) * 2 * (2 / eps) ** 2 + bin(n - 2 ** k).count("1") * 2 * (2 * k / eps) ** 2


def test_noise_variance_closed_forms():
    for n in [1, 2, 3, 5, 64, 100, 1023, 1024, 1100, 10 ** 6]:
        assert counters.hybrid_noise_variance(n, 0.7) == pytest.approx(oracle_hybrid_variance(n, 0.7), rel=1e-12)
        # Tree, constant Δ: popcount(n) nodes of scale Δ·D/ε.
        want = bin(n).count("1") * 2 * (3.0 * 20 / 0.7) ** 2
        assert counters.tree_noise_variance(n, 0.7, 3.0, levels=20) == pytest.approx(want, rel=1e-12)
    # Time-varying Δ (spec 004 §7 oracle 6): the live node at level j of n = 13 = 1101b was created at 13, 12, 8.
    s = np.arange(1, 14, dtype=np.float64)
    want = 2 * (s[12] * 5 / 0.5) ** 2 + 2 * (s[11] * 5 / 0.5) ** 2 + 2 * (s[7] * 5 / 0.5) ** 2
    assert counters.tree_noise_variance(13, 0.5, s, depth=5, levels=5) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("name", sorted(COUNTERS))
def test_noise_is_data_independent_and_has_the_stated_variance(name):
    counter, variance = COUNTERS[name], {"hybrid": counters.hybrid_noise_variance,
                                         "tree": functools.partial(counters.tree_noise_variance,
                                                                   levels=TREE_LEVELS)}[name]
    n, reps, eps = 1000, 4000, 1.0
    sens = 1 + np.arange(n) / 250  # non-decreasing Δ_t (as seed 004's truncation levels)
    lap = jax.random.laplace(threefry.key(8), (reps, n))
    x1 = np.asarray(jax.random.uniform(threefry.key(9), (n,)), np.float32)
    x2 = x1.copy()
    x2[5] = 1.0 - x2[5]  # a neighbouring stream
    many = jax.jit(jax.vmap(lambda lp, x: releases(counter, x, lp, eps, sens), in_axes=(0, None)))
    r1, r2 = np.asarray(many(lap, jnp.asarray(x1)), np.float64), np.asarray(many(lap, jnp.asarray(x2)), np.float64)
    # Same noise, neighbouring data: releases differ exactly by the change in the true sums (noise ⟂ data).
    np.testing.assert_allclose(r1 - r2, np.broadcast_to(np.cumsum(x1) - np.cumsum(x2), r1.shape), atol=2e-3)
    noise = r1 - np.cumsum(x1)
    for m in (1, 2, 3, 64, 100, 511, 512, 1000):
        e = noise[:, m - 1]
        var = variance(m, eps, sens)
        # z-test of the mean square (the noise has mean 0) at false-alarm rate 1e-6. Var(e²) = μ4 − var² with
        # μ4 ≤ 6 var² (a sum of independent Laplace terms has kurtosis at most Laplace's, 6).
        z = (np.mean(e ** 2) - var) / math.sqrt(5 * var ** 2 / reps)
        assert abs(z) < Z, f"n={m}: mean square {np.mean(e ** 2):.4g} vs {var:.4g} (z={z:.2f})"


# -------------------------------------------------------------------------------------------------- privacy loss
#
# The releases R = A x + N z are linear in the items x and the standard Laplace draws z, with N lower triangular
# (insertion t draws z_t and R_t does not see later draws) and an invertible diagonal. R is then a bijection of
# Y = M x + z, M = N⁻¹A: independent Laplace(1) releases of the queries M_k·x. Changing item i by Δ_i moves the log
# density by at most Σ_k |M_ki| Δ_i, attained for some outputs: the exact pure-DP loss of item i for the whole
# released sequence. For a stream of n items it is the same sum over k ≤ n (A, N lower triangular: the leading
# block of M is that of the shorter stream).

N_MAX = 520
LENGTHS = (1, 2, 3, 5, 7, 8, 100, 255, 256, 257, 300, 511, 512, 513, 520)


@functools.cache
def jacobians(name):
    """(A, N) of the counter ``name``'s releases, a function of (ε, Δ_t, a factor on every draw); compiled once."""
    def run(x, z, epsilon, sensitivity, noise_factor):
        return releases(COUNTERS[name], x, noise_factor * z, epsilon, sensitivity, dtype=jnp.float64)

    def both(epsilon, sensitivity, noise_factor):
        zero = jnp.zeros(N_MAX, jnp.float64)
        return (jax.jacfwd(run, argnums=0)(zero, zero, epsilon, sensitivity, noise_factor),
                jax.jacfwd(run, argnums=1)(zero, zero, epsilon, sensitivity, noise_factor))
    return jax.jit(both)


def exact_loss(name, epsilon, sensitivity, noise_factor=1.0):
    """|M| (N_MAX × N_MAX) of the counter's releases under ε, Δ_t (``noise_factor`` scales every draw)."""
    with jax.enable_x64(True):
        sens = jnp.broadcast_to(jnp.asarray(sensitivity, jnp.float64), (N_MAX,))
        a, noise = map(np.asarray, jacobians(name)(jnp.float64(epsilon), sens, jnp.float64(noise_factor)))
    assert np.all(np.triu(noise, 1) == 0) and np.all(np.diag(noise) > 0)
    return np.abs(solve_triangular(noise, a, lower=True))


def item_losses(abs_m, n, sensitivity):
    return np.broadcast_to(np.asarray(sensitivity, np.float64), (N_MAX,))[:n] * abs_m[:n, :n].sum(axis=0)


@pytest.mark.parametrize("name", sorted(COUNTERS))
@pytest.mark.parametrize("schedule", ["constant", "growing"])
def test_per_item_privacy_loss_is_at_most_epsilon(name, schedule):
    accounting, eps = LOSS[name], 0.8
    sens = 2.0 if schedule == "constant" else 2 * (1 + np.arange(N_MAX)) ** 0.4  # 2B_n, B_n ∝ n^{1/(1+v)}
    abs_m = exact_loss(name, eps, sens)
    tight_from = 2 ** (TREE_LEVELS - 1) if name == "tree" else 4  # tree: item 1; hybrid: item 3 = 2^1 + 1
    for n in LENGTHS:
        exact = item_losses(abs_m, n, sens)
        np.testing.assert_allclose(accounting(n, eps, sens), exact, rtol=1e-9, atol=1e-12, err_msg=f"n={n}")
        assert np.all(exact > 0) and np.all(exact <= eps * (1 + 1e-9)), f"n={n}: max loss {exact.max()}"
        if n >= tight_from and schedule == "constant":
            assert exact.max() == pytest.approx(eps, rel=1e-9), f"n={n}: the construction is tight"


@pytest.mark.parametrize("name", sorted(COUNTERS))
def test_planted_bug_halved_node_noise_exceeds_epsilon(name):
    """The same accounting catches a counter whose noise is half its calibration (every item's loss doubles)."""
    eps = 0.8
    exact = item_losses(exact_loss(name, eps, 1.0, noise_factor=0.5), N_MAX, 1.0)
    assert exact.max() == pytest.approx(2 * eps, rel=1e-9)
    np.testing.assert_allclose(exact, 2 * LOSS[name](N_MAX, eps), rtol=1e-9)


def test_tree_decreasing_sensitivity_or_short_depth_exceeds_epsilon():
    # Δ_t must not decrease: a node scaled by its last item's Δ under-protects the earlier, larger items.
    assert counters.tree_privacy_loss(8, 1.0, [8, 4, 2, 1, 1, 1, 1, 1], levels=4).max() > 1
    # ε′ = ε/D with D below the levels reached: item 1 of 2^L − 1 items sits in L nodes.
    assert counters.tree_privacy_loss(1023, 1.0, depth=9, levels=10).max() == pytest.approx(10 / 9)


def test_tree_log_base_errata():
    """Spec 004 §2.1 / §7 oracle 7: ⌊log₂T⌋ + 1 levels; the literal ε′ = ε/ln T over-spends by levels/ln T."""
    assert [counters.tree_levels(t) for t in (1, 2, 3, 4, 10 ** 6, 2 ** 20 - 1, 2 ** 20)] == [1, 2, 2, 3, 20, 20, 21]
    horizons = jnp.asarray([1, 2, 3, 4, 10 ** 6])
    np.testing.assert_array_equal(jax.jit(jax.vmap(counters.tree_depth))(horizons), [1, 2, 2, 3, 20])
    assert float(counters.tree_depth(10 ** 6, math.e)) == pytest.approx(math.log(10 ** 6), rel=1e-6)
    T = 10 ** 6
    levels = counters.tree_levels(T)
    assert counters.tree_privacy_loss(T, 1.0, levels=levels).max() == pytest.approx(1.0)
    literal = counters.tree_privacy_loss(T, 1.0, depth=math.log(T), levels=levels).max()
    assert literal == pytest.approx(20 / math.log(T)) and literal > 1.44  # ≈ 1.45ε: not ε-DP


def test_hybrid_counter_is_the_dp_ucb_counter():
    """The DP-UCB policies hold one hybrid counter per arm (the layout the golden values were recorded with)."""
    from jaxbandit import policies
    policy, params = policies.make("dp-ucb", 3)
    state = policy.init(params)
    assert isinstance(state.counter, counters.HybridState)
    assert state.counter.noisy.shape == (3, counters.LEVELS)


def reference_hybrid(x, laplace, epsilon):
    """The hybrid counter written from its definition (module docstring), in Python floats: the p-sums of the
    epoch's binary mechanism by level, absorbed and released as they complete, the logarithmic segments at the
    powers of two. Returns every release Ŝ_1..Ŝ_n (float release)."""
    out, total, log_noise, anchor, alpha, alpha_hat = [], 0.0, 0.0, 0.0, {}, {}
    for n, (xi, lap) in enumerate(zip(x, laplace), start=1):
        total += xi
        k = n.bit_length() - 1
        if n == 1 << k:                                  # logarithmic segment; a new epoch
            log_noise += 2 / epsilon * lap
            anchor, alpha, alpha_hat = total + log_noise, {}, {}
        else:
            r = n - (1 << k)
            i = (r & -r).bit_length() - 1                # the level of the p-sum item n completes
            merged = xi + sum(alpha.pop(j) for j in range(i))
            for j in range(i):
                alpha_hat.pop(j)
            alpha[i], alpha_hat[i] = merged, merged + 2 * k / epsilon * lap
        out.append(anchor + sum(alpha_hat.values()))
    return np.asarray(out)


@pytest.mark.parametrize("integer", [True, False])
def test_hybrid_counter_is_its_definition(integer):
    """The stack form (one position read and one written per insertion) releases what the definition releases
    over 700 items (epochs 0..9), float release: for 0/1 items up to the float32 rounding of the noisy
    sums, within 1e-5 relatively for float items."""
    rng = np.random.default_rng(7)
    n, eps = 700, 0.8
    x = (rng.random(n) < 0.4).astype(np.float32) if integer else rng.random(n).astype(np.float32)
    lap = rng.laplace(size=n).astype(np.float32)
    got = np.asarray(releases(counters.HYBRID, jnp.asarray(x), jnp.asarray(lap), eps), np.float64)
    want = reference_hybrid(x.astype(np.float64), lap.astype(np.float64), eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_hybrid_segment_skipped_where_no_counter_needs_it_gives_the_same_numbers():
    """``when`` (DP-UCB's: `phased.when`, which skips the logarithmic segment's release for a batch none of whose
    runs is at a power of two) changes no number, float or discrete release, batched over runs."""
    from jaxbandit.mechanisms import laplace as laplace_noise
    from jaxbandit.policies.phased import when
    runs, arms, n = 4, 3, 70
    key = jax.random.key(2)
    x = (jax.random.uniform(key, (n, runs, arms)) < 0.5).astype(jnp.float32)
    for release in laplace_noise.RELEASES:
        noise = laplace_noise.draw(jax.random.fold_in(key, 1), (n, runs, arms), release)

        def run(skip):
            def step(state, inputs):
                xi, lap = inputs
                insert = lambda st, xr, lr: counters.hybrid_insert(st, xr, lr, 0.7, when=when if skip else None)
                state = jax.vmap(insert)(state, xi, lap)
                return state, counters.hybrid_release(state)
            return jax.lax.scan(step, counters.hybrid_init((runs, arms)), (x, noise))[1]

        np.testing.assert_array_equal(np.asarray(jax.jit(lambda: run(True))()), np.asarray(jax.jit(lambda: run(False))()))


def test_accounting_rejects_streams_it_does_not_describe():
    with pytest.raises(ValueError, match="capacity"):
        counters.tree_privacy_loss(1024, 1.0, levels=10)
    with pytest.raises(ValueError, match="one per item"):
        counters.hybrid_privacy_loss(10, 1.0, np.ones(9))
    with pytest.raises(ValueError, match="epsilon > 0"):
        counters.tree_noise_variance(10, 0.0)
    with pytest.raises(ValueError, match=r"levels=32 must be in \[1, 31\]"):
        counters.tree_init(levels=32)
