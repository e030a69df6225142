"""Floating-point-safe Laplace releases (`jaxbandit.privacy.noise`): the discrete Laplace sampler against its law,
the level it keeps as realized in float32 (exact counts), the release on its grid, and the policies' ``noise``
switch (0: the float draw, bit for bit the recorded numbers — tests/test_contracts.py; 1: the default)."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import policies
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


@pytest.mark.slow
@pytest.mark.parametrize("name, params, env, ep", [
    ("dp-se", {"epsilon": 2.0, "beta": 0.5}, "bernoulli", {"means": [0.1, 0.9, 0.5, 0.8]}),
    ("lazy-ucb", {"epsilon": 0.5}, "bernoulli", {"means": [0.3, 0.55, 0.5, 0.8]}),
    ("dp-rucb", {"epsilon": 1.0, "v": 0.9, "u": 2.0, "bonus": 0.5}, "pareto", {"means": [0.3, 0.8], "v": 0.9}),
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
