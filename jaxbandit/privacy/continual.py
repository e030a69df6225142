"""Continual release of running sums under ε-DP: the hybrid mechanism of Chan, Shi & Song ("Private and Continual
Release of Statistics", ICALP 2010 / ACM TISSEC 2011), the counter behind the DP-UCB algorithms of Tossou &
Dimitrakakis (AAAI 2016; `jaxbandit.policies.dp_ucb`).

A stream x_1, x_2, ... in [0, 1] (one per arm) is released as noisy prefix sums Ŝ_n after every insertion:

  * logarithmic mechanism, budget ε/2: at n = 2^k the exact sum plus accumulated noise, Lap(2/ε) added at each
    power of two (so Ŝ_{2^k} carries k + 1 independent Lap(2/ε) terms);
  * binary (tree) mechanism, budget ε/2, fresh in each epoch (2^k, 2^{k+1}): items n = 2^k + r, 0 < r < 2^k, fill
    dyadic p-sums α_j of 2^j items; the p-sum completed by item r (its lowest set bit i) absorbs the lower ones
    and is released once as α̂_i = α_i + Lap(2k/ε) (each item lies in at most k p-sums of the epoch);
  * Ŝ_{2^k + r} = Ŝ_{2^k} + Σ_{set bits j of r} α̂_j.

Each item enters one logarithmic segment and at most k p-sums with noise calibrated to them, so the whole released
sequence is ε-DP with respect to changing one item (sensitivity 1): ε/2 + ε/2. The noise of Ŝ_n, n = 2^k + r, is a
sum of k + 1 Lap(2/ε) and popcount(r) Lap(2k/ε) terms (`noise_variance`); ε = ∞ switches it off and the counter
is exact. State has fixed shape (`LEVELS` p-sums), so it vmaps over arms and runs; it serves any n < 2^31.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

LEVELS = 31  # p-sum levels: epochs up to 2^31 items


class HybridState(NamedTuple):
    """One counter (leading axes, e.g. arms, broadcast through every field)."""

    n: jax.Array          # int32: items inserted
    total: jax.Array      # float: exact running sum (never released)
    log_noise: jax.Array  # float: accumulated noise of the logarithmic mechanism
    anchor: jax.Array     # float: Ŝ at the last power of two (released)
    alpha: jax.Array      # float[..., LEVELS]: exact p-sums of the current epoch
    alpha_hat: jax.Array  # float[..., LEVELS]: their noisy releases (0 where merged or unused)


def init(shape=(), dtype=None) -> HybridState:
    """An empty counter (or an array of them of ``shape``)."""
    dtype = dtype or jnp.zeros(()).dtype
    zeros = jnp.zeros(shape, dtype)
    levels = jnp.zeros(tuple(shape) + (LEVELS,), dtype)
    return HybridState(jnp.zeros(shape, jnp.int32), zeros, zeros, zeros, levels, levels)


def _floor_log2(n):
    return 31 - jax.lax.clz(n)


def insert(state: HybridState, x, laplace, epsilon, mask=True) -> HybridState:
    """Insert item ``x`` where ``mask`` holds. ``laplace``: one standard Laplace draw per counter (the only
    randomness an insertion uses); ε = ∞ gives the exact counter."""
    dtype = state.total.dtype
    x = jnp.asarray(x, dtype)
    eps = jnp.asarray(epsilon, dtype)
    n = state.n + 1
    total = state.total + x
    power_of_two = (n & (n - 1)) == 0
    k = _floor_log2(n)
    r = n - (1 << k)
    i = jax.lax.population_count((r & -r) - 1)  # lowest set bit of r (0 < r < 2^k in a binary step)
    levels = jnp.arange(LEVELS)
    lower = levels < i[..., None]
    here = levels == i[..., None]
    merged = jnp.sum(jnp.where(lower, state.alpha, 0), axis=-1) + x
    node_scale = 2 * k.astype(dtype) / eps
    alpha = jnp.where(lower, 0, jnp.where(here, merged[..., None], state.alpha))
    alpha_hat = jnp.where(lower, 0, jnp.where(here, (merged + node_scale * laplace)[..., None], state.alpha_hat))
    log_noise = jnp.where(power_of_two, state.log_noise + (2 / eps) * laplace, state.log_noise)
    anchor = jnp.where(power_of_two, total + log_noise, state.anchor)
    # A new epoch starts at each power of two: its binary mechanism begins empty.
    alpha = jnp.where(power_of_two[..., None], 0, alpha)
    alpha_hat = jnp.where(power_of_two[..., None], 0, alpha_hat)
    new = HybridState(n, total, log_noise, anchor, alpha, alpha_hat)
    mask = jnp.asarray(mask)
    return jax.tree.map(lambda a, b: jnp.where(mask if a.ndim == mask.ndim else mask[..., None], a, b), new, state)


def release(state: HybridState):
    """Ŝ_n, the private running sum after n insertions (0 before any)."""
    return state.anchor + jnp.sum(state.alpha_hat, axis=-1)


def noise_variance(n, epsilon) -> float:
    """Var(Ŝ_n − S_n) = (k + 1)·2(2/ε)² + popcount(r)·2(2k/ε)² for n = 2^k + r (Laplace(b) has variance 2b²)."""
    n = int(n)
    k = n.bit_length() - 1
    r = n - (1 << k)
    eps = float(epsilon)
    return (k + 1) * 2 * (2 / eps) ** 2 + bin(r).count("1") * 2 * (2 * k / eps) ** 2


def noise_bound(n, epsilon, log_inv_gamma):
    """ν(n) = (√8/ε) ln(4/γ) · (1 if n is a power of two else 1 + ln n), with ln(1/γ) given (DP-UCB-BOUND uses
    γ = t^-4, i.e. 4 ln t): the bound on |Ŝ_n − S_n| that DP-UCB-BOUND adds to its index (as in both public
    re-implementations of Tossou & Dimitrakakis; the paper's own statement was not available to us). NOTE: Monte
    Carlo shows it is not a 1 − γ quantile for large n (exceeded with probability ~0.1–0.24 at γ = 0.01,
    n >= 10^3); it only sets the optimism of the index, not the privacy."""
    n = jnp.asarray(n)
    power_of_two = (n & (n - 1)) == 0
    dtype = jnp.result_type(float)
    base = math.sqrt(8) / jnp.asarray(epsilon, dtype) * (math.log(4) + jnp.asarray(log_inv_gamma, dtype))
    return base * jnp.where(power_of_two, 1.0, 1 + jnp.log(jnp.maximum(n, 1).astype(dtype)))


def advanced_composition(epsilons, delta: float) -> float:
    """ε_total of the adaptive composition of ε_k-DP mechanisms with slack δ, by the heterogeneous bound of
    Kairouz, Oh & Viswanath ("The Composition Theorem for Differential Privacy", ICML 2015, Thm 3.5):
    Σ ε_k (e^{ε_k} − 1)/(e^{ε_k} + 1) + sqrt(2 ln(1/δ) Σ ε_k²), which is below Dwork, Rothblum & Vadhan's
    Σ ε_k (e^{ε_k} − 1) + sqrt(2 ln(1/δ) Σ ε_k²); the result is (ε_total, δ)-DP. Basic composition Σ ε_k
    (δ = 0) is returned when smaller."""
    e = np.asarray(epsilons, np.float64)
    advanced = math.sqrt(2 * math.log(1 / delta) * np.sum(e ** 2)) + float(np.sum(e * np.tanh(e / 2)))
    return min(advanced, float(np.sum(e)))
