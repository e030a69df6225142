"""The perturbations of differentially private follow-the-perturbed-leader and their privacy (seed 003: Wang & Zhu,
"Optimal Learning Policies for Differential Privacy in Multi-armed Bandits", JMLR 25, 2024).

A DP-FTPL policy draws θ_i from a distribution centred on arm i's statistics and plays argmax θ. By the paper's
Lemma 8 it is (ε, δ)-DP when, for the CDFs F and F' of θ_i before and after one reward of arm i changes,
F ≤ e^ε F' + δ and 1 − F ≤ e^ε (1 − F') + δ everywhere (`band_violation` measures the largest breach).

* Gaussian (DP-FTPL-Gauss, §4.1): θ ~ N(μ̂, 2/n), private once n ≥ N_G* (`gauss_start`).
* Beta with pseudo-counts (DP-FTPL-Beta, §4.2): θ ~ Beta(R + 1 + k, n − R + 1 + k), k = ⌊n/8⌋ + 1, private once
  n ≥ N_B* (`beta_start`).
* The new distribution D(n; x0, ε, δ) (Lemma 15; DP-FTPL-New, GDP-Elim-New): a Laplace law of scale 1/(nε) about
  x0, truncated symmetrically at ±Δ_x = log(A)/(nε), A = 1 + (e^ε − 1)/(2δ) (`new_cdf`, `new_quantile`,
  `new_half_width`, `new_moments`). It meets Lemma 8 for every n ≥ 1, with equality: F(x) − e^ε F(x − 1/n) = δ
  for every x in [x0 − Δ_x + 1/n, x0]. Its limits are handled by the same formulas, not by NaN or inf: δ = 0 is the
  Laplace law (unbounded support), ε = 0 the uniform law on x0 ± 1/(2nδ).

All functions are jittable and vmappable in ε, δ, n (ε, δ may be traced: an (ε, δ) grid is one compilation).
Written with q = 1 − 1/A = expm1(ε)/(expm1(ε) + 2δ) and r = ε/q = (expm1(ε) + 2δ)/exprel(ε) (→ 2δ as ε → 0, → ε
as δ → 0): F(x0 + w) = ½ − ½·n|w|·exprel(−nε|w|)·r for w ≤ 0 (mirrored above x0), and the quantile of |θ − x0|
at V is V·L(Vq)/(n r) with L(y) = −log1p(−y)/y.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks

__all__ = ["gauss_start", "beta_start", "beta_pseudo_count", "new_cdf", "new_quantile", "new_half_width",
           "new_moments", "tail_log", "gdp_tail_log", "gdp_radius", "band_violation"]


def _exprel(x):
    """(e^x − 1)/x, 1 at x = 0."""
    small = jnp.abs(x) < 1e-8
    safe = jnp.where(small, 1.0, x)
    return jnp.where(small, 1.0 + x / 2, jnp.expm1(safe) / safe)


def _log1p_ratio(y):
    """−log1p(−y)/y for y in [0, 1], 1 at y = 0 (the quantile of a truncated exponential)."""
    small = y < 1e-8
    safe = jnp.where(small, 0.5, y)
    return jnp.where(small, 1.0 + y / 2, -jnp.log1p(-safe) / safe)


def _check_eps_delta(epsilon, delta, need_delta=False):
    checks.concrete_in_range("epsilon", epsilon, 0.0)
    checks.concrete_in_range("delta", delta, 0.0, 1.0, high_open=True)
    if need_delta:
        checks.concrete_in_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    if not any(isinstance(v, jax.core.Tracer) for v in (epsilon, delta)):
        if np.any((np.asarray(epsilon) == 0) & (np.asarray(delta) == 0)):
            raise ValueError("epsilon=0 and delta=0 together give no distribution (Lemma 15 needs epsilon > 0 or "
                             "delta > 0)")


def _q_r(epsilon, delta):
    e = jnp.expm1(epsilon)
    q = jnp.where(epsilon == 0, 0.0, e / jnp.where(e + 2 * delta > 0, e + 2 * delta, 1.0))
    r = (e + 2 * delta) / _exprel(epsilon)
    return q, r


def new_half_width(n, epsilon, delta):
    """Δ_x = log(1 + (e^ε − 1)/(2δ))/(nε): half the support of D(n; x0, ε, δ) (Lemma 15); 1/(2nδ) at ε = 0, inf at
    δ = 0. Spec oracle: n = 7, ε = 1, δ = 0.01 gives 0.63785."""
    _check_eps_delta(epsilon, delta)
    n, epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (n, epsilon, delta))
    safe_d = jnp.where(delta > 0, delta, 1.0)
    safe_e = jnp.where(epsilon > 0, epsilon, 1.0)
    width = jnp.log1p(jnp.expm1(safe_e) / (2 * safe_d)) / (n * safe_e)
    return jnp.where(delta == 0, jnp.inf, jnp.where(epsilon == 0, 1 / (2 * n * safe_d), width))


def new_cdf(x, n, x0, epsilon, delta):
    """F(x) of D(n; x0, ε, δ), Lemma 15 (its four pieces, continuous; 0 and 1 outside the support)."""
    _check_eps_delta(epsilon, delta)
    x, n, x0, epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (x, n, x0, epsilon, delta))
    q, r = _q_r(epsilon, delta)
    a = jnp.abs(x - x0)
    half = 0.5 * n * a * _exprel(-n * epsilon * a) * r  # F(x0) − F(x0 − a), up to the support's end
    lower = jnp.clip(0.5 - half, 0.0, 0.5)
    return jnp.where(x <= x0, lower, 1.0 - lower)


def new_quantile(u, n, x0, epsilon, delta):
    """The inverse of `new_cdf` for u in [0, 1]: θ = x0 ∓ V·L(Vq)/(n r) with V = |2u − 1| (the spec's sign ×
    truncated-exponential sampler, §2.3). Sampling: ``new_quantile(uniform, ...)``."""
    _check_eps_delta(epsilon, delta)
    u, n, x0, epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (u, n, x0, epsilon, delta))
    q, r = _q_r(epsilon, delta)
    v = jnp.abs(2 * u - 1)
    y = v * _log1p_ratio(v * q) / (n * r)
    return jnp.where(u < 0.5, x0 - y, x0 + y)


def new_moments(n, epsilon, delta):
    """(E|θ − x0|, Var θ) of D(n; x0, ε, δ) (host-side, float64): b − Δ_x/(A − 1) and
    [2b² − (Δ_x² + 2bΔ_x + 2b²)/A]/(1 − 1/A), b = 1/(nε); limits 1/(nε), 2/(nε)² at δ = 0 and 1/(4nδ),
    1/(12n²δ²) at ε = 0. Spec oracles (n, ε, δ) = (7, 1, .01): 0.135433, 0.033960."""
    _check_eps_delta(epsilon, delta)
    n, epsilon, delta = float(n), float(epsilon), float(delta)
    if delta == 0:
        return 1 / (n * epsilon), 2 / (n * epsilon) ** 2
    if epsilon == 0:
        return 1 / (4 * n * delta), 1 / (12 * n * n * delta * delta)
    b = 1 / (n * epsilon)
    A = 1 + math.expm1(epsilon) / (2 * delta)
    w = math.log(A) * b
    return b - w / (A - 1), (2 * b * b - (w * w + 2 * b * w + 2 * b * b) / A) / (1 - 1 / A)


def tail_log(horizon, epsilon, delta):
    """L_T/ε with L_T = log[(T(e^ε − 1) + 2Tδ)/(2(e^ε − 1) + 2Tδ)] (DP-FTPL-New's optimism term, Algorithm 3):
    F(x0 − L_T/(nε)) = 1/T. Limits: log(T/2)/ε at δ = 0, (T − 2)/(2Tδ) at ε = 0. Oracles at T = 10⁶: 4.4647 at
    (1, .01), 13.1224 at δ = 0, 18.339 at (0.1, .01)."""
    _check_eps_delta(epsilon, delta)
    T, epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (horizon, epsilon, delta))
    e = jnp.expm1(epsilon)
    safe_e = jnp.where(epsilon > 0, epsilon, 1.0)
    log_term = jnp.log1p((T - 2) * e / (2 * e + 2 * T * delta))
    return jnp.where(epsilon == 0, (T - 2) / (2 * T * jnp.where(delta > 0, delta, 1.0)), log_term / safe_e)


def gdp_tail_log(horizon, epsilon, delta):
    """log[(T²(e^ε − 1) + T²δ)/(2(e^ε − 1) + T²δ)], GDP-Elim-New's phase length term (Algorithm 4): with D(n; ·, ε,
    δ/2), P(|θ − μ̂| ≥ this/(nε)) = 2/T². Oracles at T = 10⁶: 5.1523 at (1, .01), 10.5414 at (1, e⁻¹⁰)."""
    _check_eps_delta(epsilon, delta)
    T, epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (horizon, epsilon, delta))
    T2 = T * T
    e = jnp.expm1(epsilon)
    return jnp.log1p((T2 - 2) * e / (2 * e + T2 * delta))


def gdp_radius(n, horizon, epsilon, delta):
    """r = log[(T²(e^ε − 1) + T²δ)/(2(e^ε − 1) + T²δ)]/(nε): GDP-Elim-New's radius (Theorem 18's event B(k)),
    P(|θ − μ̂| ≥ r) = 2/T² for θ ~ D(n; μ̂, ε, δ/2); its ε → 0 limit (T² − 2)/(nT²δ) at ε = 0."""
    _check_eps_delta(epsilon, delta)
    n, T, epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (n, horizon, epsilon, delta))
    T2 = T * T
    limit = (T2 - 2) / (T2 * jnp.where(delta > 0, delta, 1.0))
    log_term = gdp_tail_log(horizon, epsilon, delta) / jnp.where(epsilon > 0, epsilon, 1.0)
    return jnp.where(epsilon == 0, limit, log_term) / n


def gauss_start(epsilon, delta):
    """N_G* = min{1/(4πδ²), log(e/(4πδ²))/ε²}: pulls per arm after which DP-FTPL-Gauss's θ ~ N(μ̂, 2/n) is
    (ε, δ)-DP (§4.1; δ > 0 required; ε = 0 gives the first term). Oracles: N_G*(1, .01) = 7.6793,
    N_G*(0.1, 1e−3) = 1228.45."""
    checks.concrete_in_range("epsilon", epsilon, 0.0)
    checks.concrete_in_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (epsilon, delta))
    first = 1 / (4 * math.pi * delta * delta)
    second = (1 + jnp.log(first)) / jnp.where(epsilon > 0, epsilon * epsilon, 1.0)
    return jnp.where(epsilon > 0, jnp.minimum(first, second), first)


def beta_start(epsilon, delta):
    """N_B* = max{min{40e/(9πδ²), 8000 log(e/(2πδ²))/(81ε²)}, 1000e/(9π)} (§4.2; δ > 0): pulls per arm after which
    DP-FTPL-Beta's θ is (ε, δ)-DP. Oracles: N_B*(1, .01) = 826.91, N_B*(0.1, .01) = 38455.8; floor 96.14."""
    checks.concrete_in_range("epsilon", epsilon, 0.0)
    checks.concrete_in_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    epsilon, delta = (jnp.asarray(v, jnp.result_type(float)) for v in (epsilon, delta))
    first = 40 * math.e / (9 * math.pi * delta * delta)
    second = 8000 * (1 + jnp.log(1 / (2 * math.pi * delta * delta))) / (81 * jnp.where(epsilon > 0, epsilon ** 2, 1.0))
    inner = jnp.where(epsilon > 0, jnp.minimum(first, second), first)
    return jnp.maximum(inner, 1000 * math.e / (9 * math.pi))


def beta_pseudo_count(n):
    """k = ⌊n/8⌋ + 1 fake 0s and fake 1s added to Beta(R + 1, n − R + 1) (§4.2), recomputed from the current n."""
    return jnp.asarray(n) // 8 + 1


def band_violation(F, F_neighbour, epsilon, delta):
    """The largest breach of Lemma 8's condition between two CDFs evaluated on the same points:
    max over the points of F − e^ε F' − δ and (1 − F) − e^ε (1 − F') − δ (≤ 0: the condition holds there). Used
    to audit a perturbation at a chosen n and shift, both ways round."""
    F, G = jnp.asarray(F), jnp.asarray(F_neighbour)
    scale = jnp.exp(jnp.asarray(epsilon, F.dtype))
    return jnp.maximum(jnp.max(F - scale * G - delta), jnp.max((1 - F) - scale * (1 - G) - delta))
