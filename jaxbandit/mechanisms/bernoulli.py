"""Bernoulli mechanisms of local DP (seed 000: Jiang, Zhao & Li, "Thompson Sampling under Bernoulli Rewards
with Local Differential Privacy", arXiv 2307.00863, Sec. 3): the arithmetic of the privatizers `linear`,
`quadratic` and `exponential` (`jaxbandit.privatizers.bernoulli`).

A reward r in [0, 1] leaves the user only as one bit Y ~ Bernoulli(p(r)). With

    linear       p(r) = [(e^ε − 1) r + 1] / (e^ε + 1)                      (Corollary 1; Ren et al. 2020's CTB)
    quadratic    p(r) = [(e^ε − 1 − b) r² + b r + 1] / (e^ε + 1),  b ∈ [0, 2(e^ε − 1)]     (Corollary 1)
    exponential  p(r) = e^{εr} / (e^ε + 1)                                   (Corollary 1)

every mechanism has p(0) = 1/(e^ε + 1) and p(1) = e^ε/(e^ε + 1) and is non-decreasing on [0, 1], so
p(r)/p(r') ≤ e^ε and (1 − p(r))/(1 − p(r')) ≤ e^ε for all r, r': ε-LDP (Eq. 1), with equality at the endpoints.
The paper's Theorem 1 calls these conditions necessary; they are only sufficient (erratum in
docs/spec/000_ldp_ts_bernoulli.md §2; `ldp_ratio` computes the exact level of any p). The range of b is
exactly the one that keeps the quadratic monotone: outside it p leaves [p(0), p(1)] and the ratio exceeds e^ε.
ε = ∞ (no privacy) means p(r) = r, for every mechanism (the spec's recommendation; the paper only says
"non-private").

ε and b are traced parameters, so an ε grid (∞ included) is one compilation. The learner never sees r, ε or b:
the engine hands the policy only Y.

The formulas are evaluated in the overflow-free form::

    p_lin = σ(−ε) + tanh(ε/2) r,   p_quad = p_lin(r²) + b σ(−ε) (r − r²),   p_exp = σ(ε) e^{ε(r − 1)},

(σ the logistic function), equal to the paper's fractions and finite for every ε.

Floating point (why the privatizer's `apply` does not simply test u < p(r)). A float32 uniform takes the values k·2^-23, so
Pr(u < t) = ⌈t·2^23⌉/2^23, not t: rounding moves the realized probabilities, and above ε ≈ 16 p(1) rounds to 1,
Pr(Y = 0 | r = 1) becomes 0 and the ratio (1 − p(r))/(1 − p(1)) is infinite — the floating-point attack on DP
(Mironov, CCS 2012). The privatizer therefore compares u with `threshold`: p(r) clipped to [g, 1 − g], where
g = ⌈σ(−ε)·2^m (1 + 8 ulp)⌉ / 2^m ≥ 1/(1 + e^ε) is a point of the uniform's grid (m = 23, or 52 under x64).
Every realized probability Pr(Y = 1 | r) (`realized_probability`, exact) then lies in [g, 1 − g] ⊂
[1/(1 + e^ε), e^ε/(1 + e^ε)], so the channel *as implemented* is ε-LDP for every input r, at every ε; it
differs from p(r) by less than 2^-m + 8 ulp·p(0) (6e-7 in float32) and caps the realized level at log(2^m − 1) ≈ 15.9 in float32.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks

__all__ = ["MECHANISMS", "b_range", "probability", "threshold", "realized_probability", "privatized_means",
           "ldp_ratio"]

#: Seed 000's three Bernoulli mechanisms, by name.
MECHANISMS = ("linear", "quadratic", "exponential")


def b_range(epsilon) -> tuple[float, float]:
    """The valid range [0, 2(e^ε − 1)] of the quadratic mechanism's b (host side, float64)."""
    eps = float(epsilon)
    return 0.0, 2.0 * math.expm1(eps) if eps < 709 else math.inf  # e^709 is float64's largest


def _finite(epsilon):
    """ε with ∞ replaced by 1 (a value whose result is discarded) so that no NaN reaches a gradient."""
    return jnp.where(jnp.isinf(epsilon), jnp.ones_like(epsilon), epsilon)


def _of_moments(mechanism, eps, params, first, second, scaled_exp):
    """p written through what it is linear in: σ(−ε) + tanh(ε/2)·first (linear);
    σ(−ε) + tanh(ε/2)·second + b σ(−ε)(first − second) (quadratic); σ(ε)·scaled_exp (exponential); with
    (first, second, scaled_exp) = (r, r², e^{ε(r−1)}) it is p(r), with their expectations it is E[p(R)]. ε = ∞: first.
    ``second`` / ``scaled_exp`` are thunks, evaluated only by the mechanism that needs them."""
    e = _finite(eps)
    if mechanism == "linear":
        p = jax.nn.sigmoid(-e) + jnp.tanh(e / 2) * first
    elif mechanism == "quadratic":
        m2 = second(e)
        p = jax.nn.sigmoid(-e) + jnp.tanh(e / 2) * m2 + jnp.asarray(params.b, eps.dtype) * jax.nn.sigmoid(-e) * (first - m2)
    else:
        p = jax.nn.sigmoid(e) * scaled_exp(e)
    return jnp.where(jnp.isinf(eps), first, p)


def probability(mechanism: str, reward, params):
    """Pr(Y = 1 | R = reward) of ``mechanism`` (jittable, differentiable in reward, ε and b).

    Args:
      mechanism: "linear", "quadratic" or "exponential".
      reward: rewards in [0, 1] (checked when concrete).
      params: `EpsilonParams` (linear, exponential) or `QuadraticParams`.
    """
    checks.known_name("Bernoulli mechanism", mechanism, MECHANISMS)
    checks.concrete_in_range("reward", reward, 0.0, 1.0)
    r = jnp.asarray(reward, dtype=jnp.result_type(float))
    eps = jnp.asarray(params.epsilon, dtype=r.dtype)
    return _of_moments(mechanism, eps, params, r, lambda e: r * r, lambda e: jnp.exp(e * (r - 1)))


def threshold(mechanism: str, reward, params):
    """The threshold t(r) of `apply` (Y = 1{u < t(r)}): p(r) clipped to [g, 1 − g], with g the smallest point of
    the uniform's grid k·2^-m at or above 1/(1 + e^ε) (with 8 ulp of margin for the rounding of σ), and at
    least 2^-m. ε = ∞: t(r) = r."""
    p = probability(mechanism, reward, params)
    info = jnp.finfo(p.dtype)
    grid = 2.0 ** info.nmant
    eps = jnp.asarray(params.epsilon, dtype=p.dtype)
    low = jnp.maximum(jnp.ceil(jax.nn.sigmoid(-_finite(eps)) * grid * (1 + 8 * info.eps)), 1.0) / grid
    low = jnp.where(jnp.isinf(eps), jnp.zeros_like(low), low)
    # Any p — even NaN from a NaN reward — ends inside [g, 1 − g]: the guarantee holds for every input.
    return jnp.clip(jnp.where(jnp.isnan(p), 0.5, p), low, 1 - low)


def realized_probability(mechanism: str, reward, params) -> np.ndarray:
    """Pr(Y = 1 | R = reward) exactly as `apply` realizes it with uniforms u on the grid {k·2^-m : 0 ≤ k < 2^m}
    (jax.random.uniform): ⌈t(r)·2^m⌉ / 2^m, in float64 (host side). Its LDP level (`ldp_ratio`) is ≤ ε."""
    t = threshold(mechanism, reward, params)
    grid = 2.0 ** jnp.finfo(t.dtype).nmant
    return np.ceil(np.asarray(t, np.float64) * grid) / grid


def privatized_means(mechanism: str, params, env, env_params):
    """μ_{i,ε} = E[p(R_i)] = Pr(Y = 1 | arm i) for every arm of ``env``: what the learner estimates.

    Linear: [(e^ε − 1)μ + 1]/(e^ε + 1) (Eq. 5); quadratic: [(e^ε − 1 − b)E[R²] + bμ + 1]/(e^ε + 1) (Eq. 12);
    exponential: E[e^{εR}]/(e^ε + 1) (Eq. 22). Needs the environment's second moments or moment generating
    function (`Env.second_moments`, `Env.mgf`); differentiable in ε and b.
    """
    checks.known_name("Bernoulli mechanism", mechanism, MECHANISMS)
    mu = env.means(env_params)
    eps = jnp.asarray(params.epsilon, dtype=mu.dtype)
    return _of_moments(mechanism, eps, params, mu, lambda e: _moment(env, "second_moments", env_params),
                       lambda e: jnp.exp(-e) * _moment(env, "mgf", e, env_params))


def _moment(env, field, *args):
    fn = getattr(env, field)
    if fn is None:
        raise ValueError(f"environment {env.name!r} has no closed-form {field.replace('_', ' ')}; privatized "
                         f"means of non-linear mechanisms are available for bernoulli, beta, uniform, two-point "
                         f"arms and their mixtures")
    return fn(*args)


def ldp_ratio(p_values) -> float:
    """The exact LDP level of a binary-output channel with Pr(Y = 1 | r) = p_values over a set of rewards:
    log max(sup p / inf p, sup (1 − p) / inf (1 − p)) (spec §2, the condition that replaces Theorem 1)."""
    p = np.asarray(p_values, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(max(np.log(p.max() / p.min()), np.log((1 - p).max() / (1 - p).min())))
