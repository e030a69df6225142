"""Composition of (ε, δ)-DP mechanisms: general accounting, not tied to a mechanism (host-side, NumPy)."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["advanced_composition"]


def advanced_composition(epsilons, delta: float) -> float:
    """ε_total of the adaptive composition of ε_k-DP mechanisms with slack δ, by the heterogeneous bound of
    Kairouz, Oh & Viswanath ("The Composition Theorem for Differential Privacy", ICML 2015, Thm 3.5):
    Σ ε_k (e^{ε_k} − 1)/(e^{ε_k} + 1) + sqrt(2 ln(1/δ) Σ ε_k²), which is below Dwork, Rothblum & Vadhan's
    Σ ε_k (e^{ε_k} − 1) + sqrt(2 ln(1/δ) Σ ε_k²); the result is (ε_total, δ)-DP. Basic composition Σ ε_k
    (δ = 0) is returned when smaller."""
    e = np.asarray(epsilons, np.float64)
    advanced = math.sqrt(2 * math.log(1 / delta) * np.sum(e ** 2)) + float(np.sum(e * np.tanh(e / 2)))
    return min(advanced, float(np.sum(e)))
