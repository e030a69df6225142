"""Seed 003's perturbations (jaxbandit.mechanisms.perturbations) against the spec's oracles (docs/spec/003_dp_ftpl.md §6),
their exact CDFs, and Lemma 8 / Lemma 15, in float64."""
import math

import jax
import numpy as np
import pytest
from scipy import stats

from jaxbandit.mechanisms import perturbations as ftpl

CONFIGS = [(1.0, 0.01, 7), (1.0, math.exp(-10), 50), (0.1, 0.0, 3), (0.0, 0.01, 10), (0.1, 1e-3, 100)]


@pytest.fixture(autouse=True)
def x64():
    with jax.enable_x64(True):
        yield


def test_oracle_values():
    assert float(ftpl.new_half_width(7, 1.0, 0.01)) == pytest.approx(0.63785, abs=5e-6)
    assert ftpl.new_moments(7, 1, 0.01) == pytest.approx((0.135433, 0.033960), abs=5e-7)
    assert ftpl.new_moments(50, 1, math.exp(-10))[1] == pytest.approx(7.9753e-4, rel=1e-4)
    assert ftpl.new_moments(100, 0.1, 1e-3)[1] == pytest.approx(0.0154715, rel=1e-5)
    for (e, d), want in {(1, .01): "4.4647", (1, math.exp(-10)): "9.8111", (1, 0.0): "13.1224", (0.1, .01): "18.339",
                         (0.0, .01): "49.9999"}.items():  # to the digits the spec gives
        assert float(ftpl.tail_log(1e6, e, d)) == pytest.approx(float(want), abs=0.5 * 10.0 ** -len(want.split(".")[1]))
    assert float(ftpl.gdp_tail_log(1e6, 1.0, 0.01)) == pytest.approx(5.1523, abs=1e-4)
    assert float(ftpl.gdp_tail_log(1e6, 1.0, math.exp(-10))) == pytest.approx(10.5414, abs=1e-4)
    for (e, d), want in {(1, .01): 7.6793, (1, math.exp(-10)): 18.469, (0.1, .01): 767.93, (0.1, 1e-3): 1228.45,
                         (1, 1e-10): 44.52}.items():
        assert float(ftpl.gauss_start(e, d)) == pytest.approx(want, rel=1e-4)
    for (e, d), want in {(1, .01): 826.91, (1, math.exp(-10)): 1892.56, (0.1, .01): 38455.8}.items():
        assert float(ftpl.beta_start(e, d)) == pytest.approx(want, rel=1e-5)
    assert float(ftpl.beta_start(100.0, 0.9)) == pytest.approx(1000 * math.e / (9 * math.pi))  # the floor, 96.14
    assert list(np.asarray(ftpl.beta_pseudo_count(np.array([1, 7, 8, 100])))) == [1, 1, 2, 13]


@pytest.mark.parametrize("epsilon, delta, n", CONFIGS)
def test_new_cdf_shape_and_limits(epsilon, delta, n):
    x0 = 0.4
    width = float(ftpl.new_half_width(n, epsilon, delta))
    assert float(ftpl.new_cdf(x0, n, x0, epsilon, delta)) == 0.5
    u = np.linspace(0, 3, 301) * min(width, 20 / max(n * epsilon, 1e-9))
    np.testing.assert_allclose(ftpl.new_cdf(x0 + u, n, x0, epsilon, delta),
                               1 - np.asarray(ftpl.new_cdf(x0 - u, n, x0, epsilon, delta)), atol=1e-15)
    assert np.all(np.diff(np.asarray(ftpl.new_cdf(x0 + u, n, x0, epsilon, delta))) >= -1e-15)  # monotone
    if delta > 0:  # a bounded support whose ends the CDF reaches continuously
        assert float(ftpl.new_cdf(x0 - width, n, x0, epsilon, delta)) == pytest.approx(0, abs=1e-15)
        assert float(ftpl.new_cdf(x0 + width, n, x0, epsilon, delta)) == pytest.approx(1, abs=1e-15)
    if epsilon == 0:  # the uniform limit
        assert width == pytest.approx(1 / (2 * n * delta))
        assert float(ftpl.new_cdf(x0 - width / 2, n, x0, 0.0, delta)) == pytest.approx(0.25)
    if delta == 0:  # the Laplace limit
        x = x0 - 0.3
        assert float(ftpl.new_cdf(x, n, x0, epsilon, 0.0)) == pytest.approx(0.5 * math.exp(-n * epsilon * 0.3))


@pytest.mark.parametrize("epsilon, delta, n", CONFIGS)
def test_sampler_matches_the_exact_cdf(epsilon, delta, n):
    """Inverse-CDF samples of 4e5 uniforms against the CDF: Kolmogorov–Smirnov at a 1% false-alarm rate (fixed
    seeds, so the test is deterministic); every sample inside the support; quantile ∘ CDF is the identity."""
    x0 = 0.25
    u = jax.random.uniform(jax.random.key(n), (400_000,), dtype=np.float64)
    theta = np.asarray(ftpl.new_quantile(u, n, x0, epsilon, delta))
    cdf = lambda x: np.asarray(ftpl.new_cdf(x, n, x0, epsilon, delta))
    assert stats.kstest(theta, cdf).pvalue > 0.01
    assert np.max(np.abs(theta - x0)) <= float(ftpl.new_half_width(n, epsilon, delta))
    grid = np.linspace(1e-6, 1 - 1e-6, 1001)
    np.testing.assert_allclose(cdf(np.asarray(ftpl.new_quantile(grid, n, x0, epsilon, delta))), grid, atol=1e-13)


@pytest.mark.parametrize("epsilon, delta, n", [c for c in CONFIGS if c[0] > 0 or c[1] > 0])
def test_lemma15_inequalities_hold_and_are_tight(epsilon, delta, n):
    """(10) and (11) on a grid of x ≤ y and shifts z in [−1/n, 1/n]; equality F(x) − e^ε F(x − 1/n) = δ on the left
    half of the support (where it is bounded)."""
    x0 = 0.0
    width = min(float(ftpl.new_half_width(n, epsilon, delta)), 30 / (n * max(epsilon, 1e-9)))
    xs = np.linspace(-1.2 * width, 1.2 * width, 121)
    F = lambda x: np.asarray(ftpl.new_cdf(x, n, x0, epsilon, delta))
    x, y = np.meshgrid(xs, xs, indexing="ij")
    keep = x <= y
    worst = -np.inf
    for z in np.linspace(-1 / n, 1 / n, 9):
        inner = F(y) - F(x) - (math.exp(epsilon) * (F(y + z) - F(x + z)) + delta)
        outer = 1 - F(y) + F(x) - (math.exp(epsilon) * (1 - F(y + z) + F(x + z)) + delta)
        worst = max(worst, inner[keep].max(), outer[keep].max())
    assert worst <= 1e-12
    if delta > 0:
        w = float(ftpl.new_half_width(n, epsilon, delta))
        xs = np.linspace(x0 - w + 1 / n, x0, 50)
        np.testing.assert_allclose(F(xs) - math.exp(epsilon) * F(xs - 1 / n), delta, atol=1e-12)


@pytest.mark.parametrize("epsilon, delta, n", [(1.0, 0.01, 7), (1.0, math.exp(-10), 50), (0.1, 0.0, 3)])
def test_fact4_tail(epsilon, delta, n):
    """T·F(x0 − L_T/(nε)) = 1 and the point lies inside the support (L_T ≤ log A)."""
    T = 1e6
    point = -float(ftpl.tail_log(T, epsilon, delta)) / n
    assert T * float(ftpl.new_cdf(point, n, 0.0, epsilon, delta)) == pytest.approx(1.0, rel=1e-9)
    assert -point <= float(ftpl.new_half_width(n, epsilon, delta))


def _gauss_violation(n, epsilon, delta):
    sd = math.sqrt(2 / n)
    x = np.linspace(-12 * sd, 12 * sd + 1 / n, 20001)
    F, G = stats.norm.cdf(x, 0, sd), stats.norm.cdf(x, 1 / n, sd)
    return max(float(ftpl.band_violation(F, G, epsilon, delta)), float(ftpl.band_violation(G, F, epsilon, delta)))


@pytest.mark.parametrize("epsilon, delta", [(1, .01), (1, math.exp(-10)), (0.1, .01), (0.5, .05)])
def test_gauss_is_private_from_its_start_phase(epsilon, delta):
    n = math.ceil(float(ftpl.gauss_start(epsilon, delta)))
    assert _gauss_violation(n, epsilon, delta) <= 0


def test_the_audit_catches_a_gauss_start_phase_too_short():
    """A planted bug (start phase of 4 pulls at (1, e^-10), N_G* = 18.5): the band is breached by about 3.5e-4."""
    assert _gauss_violation(4, 1.0, math.exp(-10)) == pytest.approx(3.5e-4, rel=0.05)


def _beta_violation(N, R, epsilon, delta, pseudo=True):
    k = int(ftpl.beta_pseudo_count(N)) if pseudo else 0
    a, b = R + 1 + k, N - R + 1 + k
    x = np.linspace(0, 1, 20001)
    F, G = stats.beta.cdf(x, a, b), stats.beta.cdf(x, a + 1, b - 1)  # one reward 0 -> 1
    return max(float(ftpl.band_violation(F, G, epsilon, delta)), float(ftpl.band_violation(G, F, epsilon, delta)))


def test_beta_is_private_from_its_start_phase_and_not_without_pseudo_counts():
    epsilon, delta = 1.0, 0.01
    N = math.ceil(float(ftpl.beta_start(epsilon, delta)))
    for R in (0, 1, N // 2, N - 1):
        assert _beta_violation(N, R, epsilon, delta) <= 0, R
    assert _beta_violation(10, 0, epsilon, delta) > 0.02  # too short a start phase
    assert _beta_violation(N, 0, epsilon, delta, pseudo=False) > 0.1  # without k: fails at any N


def test_bad_input():
    with pytest.raises(ValueError, match="epsilon=0 and delta=0 together"):
        ftpl.new_cdf(0.0, 3, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match=r"delta=1 is outside the valid range \[0, 1\)"):
        ftpl.new_quantile(0.5, 3, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon=-1"):
        ftpl.new_half_width(3, -1.0, 0.1)
    with pytest.raises(ValueError, match=r"delta=0 is outside the valid range \(0, 1\)"):
        ftpl.gauss_start(1.0, 0.0)
