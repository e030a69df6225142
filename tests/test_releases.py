"""Counter releases (jaxbandit.mechanisms.releases) and the counters' claims composed from them
(counters.tree_profile, counters.hybrid_profile). Oracles: the moments of N(0, 1), of symmetric Gaussian matrices and
of W_d(I, k); np.cumsum (noise off); the exact μ of each item of a counter with Gaussian releases, from the
counter's Jacobians (as tests/test_counters.py does for Laplace: the releases are an invertible linear map of
x-shifted standard draws, so item i's shift of them, Δ_i·‖M[:, i]‖₂, is its exact GDP level)."""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.linalg import solve_triangular

from jaxbandit.accounting import profiles
from jaxbandit.mechanisms import counters, laplace, releases
from jaxbandit.random import threefry
from tests.helpers import Z

GAUSS = releases.GaussianRelease("float")


# ------------------------------------------------------------------------------------------------------ the draws

def _z_mean(samples, mean, var):
    return (np.mean(samples) - mean) / math.sqrt(var / samples.size)


def test_gaussian_draw_moments():
    z = np.asarray(releases.GaussianRelease().draw(threefry.key(1), (200_000,)), np.float64)
    assert abs(_z_mean(z, 0.0, 1.0)) < Z
    assert abs(_z_mean(z * z, 1.0, 2.0)) < Z  # Var(Z²) = 2


def test_symmetric_normal_matrices():
    d, reps = 4, 50_000
    m = np.asarray(releases.GaussianMatrixRelease(d).draw(threefry.key(2), (reps,)), np.float64)
    assert m.shape == (reps, d, d)
    np.testing.assert_array_equal(m, np.swapaxes(m, -1, -2))
    rows, cols = np.triu_indices(d)
    upper = m[:, rows, cols]   # d(d + 1)/2 entries, i.i.d. N(0, 1)
    for j in range(upper.shape[1]):
        assert abs(_z_mean(upper[:, j], 0.0, 1.0)) < Z and abs(_z_mean(upper[:, j] ** 2, 1.0, 2.0)) < Z
    # independent entries: the correlation of two of them is ~ N(0, 1/reps)
    corr = np.corrcoef(upper.T)[np.triu_indices(upper.shape[1], 1)]
    assert np.max(np.abs(corr)) * math.sqrt(reps) < Z


def test_wishart_moments():
    """W_d(I, k): E W = k I, Var W_ii = 2k, Var W_ij = k (i ≠ j); symmetric positive definite for k ≥ d."""
    d, k, reps = 3, 7, 40_000
    w = np.asarray(releases.WishartRelease(d, k).draw(threefry.key(3), (reps,)), np.float64)
    np.testing.assert_allclose(w, np.swapaxes(w, -1, -2), rtol=1e-6, atol=1e-5)
    assert np.all(np.linalg.eigvalsh(w) > 0)
    for i in range(d):
        for j in range(d):
            var = 2 * k if i == j else k
            assert abs(_z_mean(w[:, i, j], k if i == j else 0.0, var)) < Z, (i, j)
    # the variance itself (fourth moments of a Wishart entry: a z-test with the sample's own spread)
    diag = w[:, 0, 0]
    sq = (diag - k) ** 2
    assert abs((sq.mean() - 2 * k) / (sq.std() / math.sqrt(reps))) < Z


def test_jittable_and_vmappable_draws():
    keys = jax.random.split(threefry.key(4), 3)
    for release in (releases.GaussianMatrixRelease(2), releases.WishartRelease(2, 5)):
        out = jax.jit(jax.vmap(lambda key: release.draw(key, (5,))))(keys)
        assert out.shape == (3, 5, 2, 2)


def test_release_arguments_are_checked():
    with pytest.raises(ValueError, match=r"dof=2 is outside the valid range \[4, inf\)"):
        releases.WishartRelease(3, 2)
    with pytest.raises(ValueError, match="unknown normal release"):
        releases.GaussianRelease("exact")
    with pytest.raises(ValueError, match="dim=0"):
        releases.GaussianMatrixRelease(0)
    assert releases.WishartRelease.dof_for(5, 1.0, 0.1) == 5 + math.ceil(28 * math.log(40))


# ------------------------------------------------------------------------------------------ counters with releases

def _stream(counter_insert, init, x, noise, budget):
    def step(state, inputs):
        xi, zi = inputs
        state = counter_insert(state, xi, zi, budget)
        return state, state
    return jax.lax.scan(step, init, (x, noise))[1]


@pytest.mark.parametrize("release", [GAUSS, releases.GaussianMatrixRelease(3, "float"),
                                     releases.WishartRelease(3, 6, "float")], ids=["gauss", "matrix", "wishart"])
def test_counters_of_matrices_are_exact_with_noise_off(release):
    """A tree and a hybrid counter over d×d items (one counter per entry, in lockstep) with a release's draws:
    ε = ∞ gives the exact running sums."""
    n, d = 40, 3
    x = np.asarray(jax.random.normal(threefry.key(5), (n, d, d)), np.float32)
    x = x + np.swapaxes(x, -1, -2)
    noise = release.draw(threefry.key(6), (n, d, d) if release is GAUSS else (n,))  # matrices append (d, d)
    tree = _stream(functools.partial(counters.tree_insert, release=release), counters.tree_init((d, d), levels=6),
                   x, noise, math.inf)
    hybrid = _stream(functools.partial(counters.hybrid_insert, release=release), counters.hybrid_init((d, d)),
                     x, noise, math.inf)
    np.testing.assert_allclose(jax.vmap(counters.tree_release)(tree), np.cumsum(x, axis=0), rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(jax.vmap(counters.hybrid_release)(hybrid), np.cumsum(x, axis=0), rtol=2e-5,
                               atol=2e-5)


@pytest.mark.slow  # moments of many tree releases (about 3 s)
def test_gaussian_tree_noise_has_the_stated_variance():
    """Ŝ_n − S_n is a sum of popcount(n) nodes of N(0, σ²), σ = Δ·√D/μ (GaussianRelease.spread)."""
    n, reps, mu, levels, d = 100, 6_000, 0.5, 7, 2
    release = releases.GaussianMatrixRelease(d)
    z = release.draw(threefry.key(7), (reps, n))
    x = jnp.zeros((n, d, d))
    run = jax.jit(jax.vmap(lambda zz: _stream(functools.partial(counters.tree_insert, release=release),
                                              counters.tree_init((d, d), levels=levels), x, zz, mu)))
    out = np.asarray(jax.vmap(jax.vmap(counters.tree_release))(run(z)), np.float64)
    sigma2 = levels / mu ** 2
    for m in (1, 3, 64, 100):
        e = out[:, m - 1, 0, 1]
        var = bin(m).count("1") * sigma2
        assert abs(_z_mean(e * e, var, 2 * var * var)) < Z, m   # Gaussian: Var(e²) = 2 var²


# ---------------------------------------------------------------------------------- the claims, composed from them

N_MAX = 300


@functools.cache
def _jacobians(kind):
    """(A, N) of a counter's releases with the Gaussian release: R = A x + N z."""
    insert = {"tree": functools.partial(counters.tree_insert, release=GAUSS),
              "hybrid": functools.partial(counters.hybrid_insert, release=GAUSS)}[kind]
    init = {"tree": counters.tree_init(levels=9, dtype=jnp.float64),
            "hybrid": counters.hybrid_init(dtype=jnp.float64)}[kind]
    release = {"tree": counters.tree_release, "hybrid": counters.hybrid_release}[kind]

    def run(x, z, mu, sens):
        def step(state, inputs):
            xi, zi, si = inputs
            state = insert(state, xi, zi, mu, sensitivity=si)
            return state, release(state)
        return jax.lax.scan(step, init, (x, z, sens))[1]

    def both(mu, sens):
        zero = jnp.zeros(N_MAX, jnp.float64)
        return jax.jacfwd(run, 0)(zero, zero, mu, sens), jax.jacfwd(run, 1)(zero, zero, mu, sens)
    return jax.jit(both)


@pytest.mark.parametrize("kind", ["tree", "hybrid"])
@pytest.mark.parametrize("schedule", ["constant", "growing"])
def test_gaussian_counter_profile_is_its_exact_mu(kind, schedule):
    mu = 0.7
    sens = np.full(N_MAX, 1.5) if schedule == "constant" else 1 + np.sqrt(np.arange(N_MAX))
    with jax.enable_x64(True):
        a, noise = map(np.asarray, _jacobians(kind)(jnp.float64(mu), jnp.asarray(sens)))
    m = solve_triangular(noise, a, lower=True)   # Y = M x + z, z ~ N(0, I)
    for n in (1, 2, 5, 100, 255, 256, 257, N_MAX):
        exact = sens[:n] * np.sqrt(np.sum(m[:n, :n] ** 2, axis=0))   # item i moves Y by Δ_i M[:, i]
        claim = (counters.tree_profile(n, mu, GAUSS, sens, levels=9) if kind == "tree"
                 else counters.hybrid_profile(n, mu, GAUSS, sens))
        assert isinstance(claim, profiles.GDP)
        assert claim.mu == pytest.approx(exact.max(), rel=1e-9), n
        assert claim.mu <= mu * (1 + 1e-9)
    if schedule == "constant":  # tight: the tree's item 1 once n ≥ 2^8, the hybrid's item 3 once n ≥ 4
        assert claim.mu == pytest.approx(mu, rel=1e-9)


def test_laplace_profile_is_the_per_item_loss():
    sens = 1 + np.arange(700) / 100
    for n in (1, 7, 512, 700):
        tree = counters.tree_profile(n, 0.9, sensitivity=sens, levels=10)
        assert tree == profiles.PureDP(float(counters.tree_privacy_loss(n, 0.9, sens, levels=10).max()))
        hybrid = counters.hybrid_profile(n, 0.9, releases.DiscreteLaplaceRelease(), sens)
        assert hybrid == profiles.PureDP(float(counters.hybrid_privacy_loss(n, 0.9, sens).max()))


def test_wishart_tree_profile_composes_its_nodes():
    d, eps, delta, levels = 4, 0.5, 1e-3, 8
    release = releases.WishartRelease(d, releases.WishartRelease.dof_for(d, eps, delta))
    claim = counters.tree_profile(200, 1.0, release, levels=levels)   # budget 1: scale = Δ, Sheffet's noise
    assert claim == profiles.SelfComposed(profiles.Wishart(d, float(release.dof)), levels)
    assert claim.epsilon_at(levels * delta) <= levels * eps
    with pytest.raises(ValueError, match="needs s ≥ Δ"):
        counters.tree_profile(200, 2.0, release, levels=levels)


def test_discrete_laplace_release_needs_its_noise():
    release = releases.DiscreteLaplaceRelease()
    state = counters.tree_init((2,), levels=4)
    with pytest.raises(ValueError, match="needs the discrete release's noise"):
        counters.tree_insert(state, jnp.ones(2), jnp.ones(2), 1.0, release=release)
    noise = release.draw(threefry.key(9), (2,))
    assert isinstance(noise, laplace.Noise) and noise.discrete
    default = counters.tree_insert(state, jnp.ones(2), noise, 1.0)
    explicit = counters.tree_insert(state, jnp.ones(2), noise, 1.0, release=release)
    for a, b in zip(default, explicit):
        np.testing.assert_array_equal(a, b)


def test_default_release_compiles_the_same_program():
    """The Laplace release is the default: passing it changes nothing in the counters' programs."""
    state, x, z = counters.hybrid_init((3,)), jnp.ones(3), jnp.ones(3)
    plain = jax.make_jaxpr(lambda s: counters.hybrid_insert(s, x, z, 1.0))(state)
    given = jax.make_jaxpr(lambda s: counters.hybrid_insert(s, x, z, 1.0, release=releases.LAPLACE))(state)
    assert str(plain) == str(given)
    gauss = jax.make_jaxpr(lambda s: counters.hybrid_insert(s, x, z, 1.0, release=GAUSS))(state)
    assert str(gauss) != str(plain)


def test_symmetrized_gaussian_matrices_double_the_diagonal_variance():
    """(Z + Zᵀ)/√2 (Shariff & Sheffet §4.2): N(0, 1) off the diagonal, N(0, 2) on it; one node (Δ_F/(√2σ))-GDP."""
    d, reps = 3, 50_000
    release = releases.GaussianMatrixRelease(d, symmetrized=True)
    m = np.asarray(release.draw(threefry.key(5), (reps,)), np.float64)
    np.testing.assert_array_equal(m, np.swapaxes(m, -1, -2))
    for i, j, var in ((0, 0, 2.0), (2, 2, 2.0), (0, 1, 1.0), (1, 2, 1.0)):
        assert abs(_z_mean(m[:, i, j] ** 2, var, 2 * var * var)) < Z, (i, j)
    ratios = [np.float64(1.0), np.float64(1.0)]
    assert float(release.item_levels(ratios)) == pytest.approx(1.0)  # sqrt(2)/√2
    assert float(releases.GaussianMatrixRelease(d).item_levels(ratios)) == pytest.approx(math.sqrt(2))


def test_bartlett_wishart_with_many_degrees_of_freedom_and_a_traced_count():
    """Bartlett's W_d(I, k) at Shariff & Sheffet's k (10⁵–10⁶): mean k I, Var W_ii = 2k, Var W_ij = k; the
    degrees of freedom may be traced (one compilation for every k)."""
    d, reps = 3, 20_000
    for k in (7.0, 2.5e5):
        draw = jax.jit(lambda key, dof: releases.wishart(key, (reps,), d, dof, dtype=jnp.float32))
        w = np.asarray(draw(threefry.key(6), jnp.float32(k)), np.float64)
        for i, j in ((0, 0), (2, 2), (0, 1), (1, 2)):
            var = 2 * k if i == j else k
            assert abs(_z_mean(w[:, i, j], k if i == j else 0.0, var)) < Z, (k, i, j)
