"""Seed 003's bounds (jaxbandit.theory: Theorem 4 and Remark 6, Theorems 16 and 18) against the spec's oracle values
(docs/spec/003_dp_ftpl.md §6.11-12) and the shapes the paper states."""
import math

import numpy as np
import pytest

from jaxbandit import theory

I1 = [0.3 + 0.05 * i for i in range(9)]
I2 = [0.3 + 0.004 * i for i in range(101)]


def test_lower_bound_oracles():
    assert theory.global_dp_lower_bound(1e6, 1.0, 0.01) == pytest.approx(0.16881, abs=5e-6)
    assert theory.global_dp_lower_bound(1e6, 1.0, 0.0) == pytest.approx(0.20118, abs=5e-6)
    assert theory.global_dp_lower_bound(1e6, 0.1, 0.01) == pytest.approx(0.65733, abs=5e-6)
    with pytest.raises(ValueError, match="validity condition"):
        theory.global_dp_lower_bound(20, 0.01, 0.0, c0=0.001)
    with pytest.raises(ValueError, match="epsilon=0"):
        theory.global_dp_lower_bound(1e6, 0, 0.01)


def test_lower_bound_shapes():
    """Non-increasing in δ; non-increasing in ε for δ ≤ 0.1; like log T at δ = 0, bounded in T for δ > 0."""
    deltas = np.geomspace(1e-8, 1, 40)
    for eps in (0.01, 0.1, 1.0, 5.0):
        values = [theory.global_dp_lower_bound(1e6, eps, d) for d in deltas]
        assert np.all(np.diff(values) <= 1e-12)
    for d in (0.0, 1e-4, 0.1):
        values = [theory.global_dp_lower_bound(1e6, e, d) for e in np.geomspace(1e-4, 10, 40)]
        assert np.all(np.diff(values) <= 1e-12)
    grow = [theory.global_dp_lower_bound(T, 1.0, 0.0) for T in (1e6, 1e8, 1e10)]
    assert grow[1] - grow[0] == pytest.approx(grow[2] - grow[1], rel=1e-3) and grow[2] > grow[1] > 0
    limit = math.log((math.expm1(1.0) + 0.05) / 0.05) / 16  # Remark 5: T → ∞ at δ = 0.01
    flat = [theory.global_dp_lower_bound(T, 1.0, 0.01) for T in (1e8, 1e10, 1e12)]
    assert flat[0] < flat[1] < flat[2] < limit and limit - flat[2] < 1e-3 * limit
    rate = [theory.global_dp_lower_bound_rate(9, T, 1.0, 0.01) for T in (1e8, 1e12)]
    assert rate[1] == pytest.approx(rate[0], rel=1e-4)  # Remark 6: bounded in T when δ > 0
    assert theory.global_dp_lower_bound_rate(9, 1e6, 1.0, 0.0) == pytest.approx(9 * math.log((math.e - 1) * 1e6 / (math.e - 1)))


def test_upper_bounds():
    """Theorem 16 at T = 10⁶, (1, .01): about 12052 on instance 1 and 287069 on instance 2 (spec §6.12); its
    privacy term is (4/ε)L_T = 17.86 per arm (spec §5) and dominates once 16 log T/Δ falls below it."""
    assert theory.ftpl_new_bound(I1, 1e6, 1.0, 0.01) == pytest.approx(12052, abs=1)
    assert theory.ftpl_new_bound(I2, 1e6, 1.0, 0.01) == pytest.approx(287069, abs=1)
    assert theory.ftpl_new_bound([0.0, 1.0], 1e6, 1.0, 0.01) == pytest.approx(16 * math.log(1e6) + 8)
    L = math.log((1e6 * math.expm1(0.01) + 2e6 * 1e-5) / (2 * math.expm1(0.01) + 2e6 * 1e-5))
    assert theory.ftpl_new_bound([0.0, 1.0], 1e6, 0.01, 1e-5) == pytest.approx(4 / 0.01 * L + 8)
    assert theory.ftpl_new_bound([0.0, 1.0], 1e6, 1e-12, 1e-3) == pytest.approx(
        theory.ftpl_new_bound([0.0, 1.0], 1e6, 0.0, 1e-3), rel=1e-4)  # the ε = 0 limit
    gaps = 0.7 - np.asarray(I1[:-1])
    radius = math.log((1e12 * math.expm1(1) + 1e12 * 0.01) / (2 * math.expm1(1) + 1e12 * 0.01))
    want = np.sum(1024 * gaps * math.log(1e6) / 0.05 ** 2 + 32 * gaps * radius / 0.05) + 36
    assert theory.gdp_elim_new_bound(I1, 1e6, 1.0, 0.01) == pytest.approx(want)
    assert theory.gdp_elim_new_bound(I1, 1e6, 1e-12, 0.01) == pytest.approx(
        theory.gdp_elim_new_bound(I1, 1e6, 0.0, 0.01), rel=1e-4)
    with pytest.raises(ValueError, match="unique best arm"):
        theory.ftpl_new_bound([0.5, 0.5], 1e6, 1.0, 0.01)
