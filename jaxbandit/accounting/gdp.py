"""Gaussian differential privacy (GDP) calculus in JAX: jittable, vmappable and differentiable.

A mechanism is η-GDP (Dong, Roth & Su, "Gaussian differential privacy", JRSS-B 2022; seed 001, Def. 2) when
distinguishing two neighbouring datasets from its output is at least as hard as telling N(0, 1) from N(η, 1).

  * Lemma 1 of seed 001 (DRS Cor. 2.13): η-GDP holds iff (ε, δ(ε; η))-DP holds for every ε ≥ 0, with
    δ(ε; η) = Φ(−ε/η + η/2) − e^ε Φ(−ε/η − η/2).
  * Lemma 2 (DRS Cor. 3.3): η_t-GDP mechanisms compose adaptively to sqrt(Σ_t η_t²)-GDP.

The GDP parameter is called η here (the paper also writes μ, which this package keeps for arm means).

Numerics: the naive δ overflows (e^ε) for ε > 88 in float32; here both terms are written with erfcx, using
e^ε φ(ε/η + η/2) = φ(η/2 − ε/η), so nothing overflows even at η ≈ 316, ε ≈ 5·10⁴ (seed 001 at T = 10⁵).
ε(δ; η) and η(ε, δ) are fixed-iteration bisections (vmappable, no data-dependent loop counts) that return the
conservative end of the final bracket, with exact derivatives by implicit differentiation (``jax.custom_jvp``).
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.scipy.special import erfcx, ndtr, ndtri

from jaxbandit import checks

_SQRT2 = math.sqrt(2.0)
_BISECTIONS = 80  # halvings of the bracket: below one ulp of the root in float64 for every bracket used here


def _floats(*xs):
    dtype = jnp.result_type(*xs, float)
    return tuple(jnp.asarray(x, dtype) for x in xs)


def _terms(epsilon, eta):
    """(Φ(a), e^ε Φ(−b), φ(a)) with a = η/2 − ε/η, b = ε/η + η/2, written without overflow:
    e^ε Φ(−b) = φ(a) · Φ(−b)/φ(b) = ½ e^{−a²/2} erfcx(b/√2)."""
    a = eta / 2 - epsilon / eta
    b = epsilon / eta + eta / 2
    gauss = jnp.exp(-0.5 * a * a)
    head = jnp.where(a < 0, 0.5 * gauss * erfcx(-a / _SQRT2), ndtr(a))  # Φ(a); erfcx form keeps tiny values exact
    tail = 0.5 * gauss * erfcx(b / _SQRT2)
    return head, tail, gauss / math.sqrt(2 * math.pi)


@jax.custom_jvp
def _delta(epsilon, eta):
    head, tail, _ = _terms(epsilon, eta)
    return jnp.clip(head - tail, 0.0, 1.0)


@_delta.defjvp
def _delta_jvp(primals, tangents):
    epsilon, eta = primals
    d_eps, d_eta = tangents
    head, tail, pdf = _terms(epsilon, eta)
    # ∂δ/∂ε = −e^ε Φ(−ε/η − η/2),  ∂δ/∂η = φ(η/2 − ε/η)  (seed 001 digest §3.4)
    return jnp.clip(head - tail, 0.0, 1.0), -tail * d_eps + pdf * d_eta


_delta_jit = jax.jit(_delta)  # compiled once per shape and dtype; eager calls would dispatch op by op


def delta(epsilon, eta):
    """δ(ε; η) such that η-GDP implies (ε, δ)-DP, exactly (seed 001, Lemma 1; DRS Cor. 2.13).

    Args:
      epsilon: ε ≥ 0 (array-like; broadcasts with ``eta``).
      eta: GDP parameter η > 0.

    Returns:
      δ in [0, 1), in the floating dtype of the inputs (float32 unless x64 is enabled).
    """
    checks.concrete_in_range("epsilon", epsilon, 0.0)
    checks.concrete_in_range("eta", eta, 0.0, low_open=True)
    return _delta_jit(*_floats(epsilon, eta))


def _bisect(below, lo, hi, iterations=_BISECTIONS):
    """Fixed-iteration bisection for a predicate that is True on [lo, root) and False on (root, hi]."""
    def body(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        go_up = below(mid)
        return jnp.where(go_up, mid, lo), jnp.where(go_up, hi, mid)
    return jax.lax.fori_loop(0, iterations, body, (lo, hi))


@jax.custom_jvp
def _epsilon(delta_target, eta):
    z = -ndtri(delta_target)  # Φ⁻¹(1 − δ) without rounding 1 − δ
    hi = eta * eta / 2 + eta * jnp.maximum(z, 0.0) + 1.0  # δ(hi; η) ≤ δ (digest §3.4), plus a margin
    _, hi = _bisect(lambda e: _delta(e, eta) > delta_target, jnp.zeros_like(hi), hi)
    # the conservative end: δ(ε; η) ≤ δ_target up to rounding; exactly 0 when δ(0; η) ≤ δ_target
    return jnp.where(_delta(jnp.zeros_like(hi), eta) <= delta_target, 0.0, hi)


@_epsilon.defjvp
def _epsilon_jvp(primals, tangents):
    delta_target, eta = primals
    d_delta, d_eta = tangents
    eps = _epsilon(delta_target, eta)
    _, tail, pdf = _terms(eps, eta)
    # implicit function theorem on δ(ε; η) = δ_target:  dε = (φ(a) dη − dδ) / (e^ε Φ(−b)); 0 where clamped at 0
    slope = jnp.where(eps > 0, 1.0 / tail, 0.0)
    return eps, slope * (pdf * d_eta - d_delta)


_epsilon_jit = jax.jit(_epsilon)


def epsilon(delta_target, eta):
    """The smallest ε with δ(ε; η) ≤ δ: the (ε, δ)-DP level implied by η-GDP (seed 001, Lemma 1 / Thm 4).

    Fixed-iteration bisection (vmappable); gradients in δ and η by implicit differentiation:
    dε/dη = φ(η/2 − ε/η) / (e^ε Φ(−ε/η − η/2)), dε/dδ = −1 / (e^ε Φ(−ε/η − η/2)).

    Args:
      delta_target: δ in (0, 1).
      eta: GDP parameter η > 0.
    """
    checks.concrete_in_range("delta", delta_target, 0.0, 1.0, low_open=True, high_open=True)
    checks.concrete_in_range("eta", eta, 0.0, low_open=True)
    return _epsilon_jit(*_floats(delta_target, eta))


@jax.custom_jvp
def _eta(epsilon, delta_target):
    z = jnp.maximum(-ndtri(delta_target), 0.0)
    # η0 = sqrt(z² + 2ε) − z solves η²/2 + ηz = ε, so ε(δ; η0) ≤ ε and δ(ε; η0) ≤ δ; halved against rounding
    lo = 0.5 * (jnp.sqrt(z * z + 2 * epsilon) - z)
    lo = jnp.maximum(lo, jnp.finfo(lo.dtype).tiny)

    def grow(_, hi):  # double until δ(ε; hi) ≥ δ (δ → 1 as η → ∞)
        return jnp.where(_delta(epsilon, hi) < delta_target, 2 * hi, hi)

    hi = jax.lax.fori_loop(0, 64, grow, 2 * lo + 1)
    lo, _ = _bisect(lambda h: _delta(epsilon, h) <= delta_target, lo, hi)
    return lo  # conservative end: δ(ε; η) ≤ δ_target


@_eta.defjvp
def _eta_jvp(primals, tangents):
    epsilon, delta_target = primals
    d_eps, d_delta = tangents
    eta = _eta(epsilon, delta_target)
    _, tail, pdf = _terms(epsilon, eta)
    # δ(ε; η) = δ_target:  dη = (dδ + e^ε Φ(−b) dε) / φ(a)
    return eta, (d_delta + tail * d_eps) / pdf


_eta_jit = jax.jit(_eta)


def eta_for(epsilon, delta_target):
    """The largest η whose η-GDP guarantee implies (ε, δ)-DP: the root of δ(ε; η) = δ in η.

    Used to turn an (ε, δ) budget into a GDP budget (seed 001 App. D: ε(10⁻⁶) = 4.88, 35.57, 96.71 for
    η = 1, 5, 10). Gradients by implicit differentiation: dη/dδ = 1/φ(η/2 − ε/η), dη/dε = e^ε Φ(−b)/φ(a).

    Args:
      epsilon: ε ≥ 0.
      delta_target: δ in (0, 1).
    """
    checks.concrete_in_range("epsilon", epsilon, 0.0)
    checks.concrete_in_range("delta", delta_target, 0.0, 1.0, low_open=True, high_open=True)
    return _eta_jit(*_floats(epsilon, delta_target))


def pure_epsilon(eta):
    """The largest ε whose pure ε-DP implies η-GDP: ε = log(Φ(η/2) / Φ(−η/2)).

    Derived here from DRS's trade-off functions: ε-DP is f_{ε,0}-DP (DRS Prop. 2.5), f_{ε,0} is the polygon through
    (0, 1), (α*, α*) and (1, 0) with α* = 1/(1 + e^ε), and the convex, symmetric G_η = T(N(0,1), N(η,1)) crosses the
    diagonal at Φ(−η/2). G_η ≤ f_{ε,0} everywhere iff Φ(−η/2) ≤ α*, i.e. ε ≤ log(Φ(η/2)/Φ(−η/2)); at equality the
    two touch at the diagonal, so no larger ε works. E.g. η = 1, 2, 5 give ε = 0.807, 1.668, 5.075: an ε-DP
    algorithm must run at these levels to be compared with seed 001's η-GDP algorithms under GDP itself.

    Args:
      eta: η > 0.
    """
    checks.concrete_in_range("eta", eta, 0.0, low_open=True)
    (eta,) = _floats(eta)
    return jnp.log(ndtr(eta / 2)) - jnp.log(ndtr(-eta / 2))


def compose(etas, axis=-1):
    """Adaptive composition of η_t-GDP mechanisms: sqrt(Σ_t η_t²)-GDP (seed 001, Lemma 2; DRS Cor. 3.3)."""
    etas = jnp.asarray(etas)
    etas = etas.astype(jnp.result_type(etas.dtype, float))
    return jnp.sqrt(jnp.sum(etas * etas, axis=axis))


def rdp_epsilon(delta_target, eta):
    """(ε, δ)-DP of T composed Gaussian mechanisms through Rényi DP with the classical conversion, for the
    same total GDP parameter η (seed 001, App. C, Theorem 8).

    Each Gaussian mechanism of GDP parameter η_t is (α, α η_t²/2)-RDP; T of them compose to (α, α η²/2)-RDP
    with η² = Σ_t η_t², and (α, γ)-RDP implies (γ + log(1/δ)/(α − 1), δ)-DP (Mironov 2017, Prop. 3).
    Minimising over α > 1 (α* = 1 + sqrt(2 log(1/δ))/η) gives ε = η²/2 + η sqrt(2 log(1/δ)). For standard TS
    (η² = T/2) this is Theorem 8's T/4 + sqrt(T log(1/δ)); for Algorithm 2 γ(α) = αT/(2c(b+1)).
    """
    checks.concrete_in_range("delta", delta_target, 0.0, 1.0, low_open=True, high_open=True)
    checks.concrete_in_range("eta", eta, 0.0, low_open=True)
    delta_target, eta = _floats(delta_target, eta)
    return eta * eta / 2 + eta * jnp.sqrt(-2 * jnp.log(delta_target))
