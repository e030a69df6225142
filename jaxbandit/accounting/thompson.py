"""Privacy guarantees of Gaussian-prior Thompson sampling (seed 001: Ou, Avella Medina & Cummings,
"Thompson Sampling Itself is Differentially Private", arXiv 2407.14879).

Privacy model: the data are the rewards r_1..r_T, neighbours differ in one reward, the output is the arm
sequence (central, streaming DP). Each TS round releases argmax_i of θ_i ~ N(S_i/(n_i+1), c/(n_i+1)), a
Gaussian mechanism on the arm j that holds the differing reward (sensitivity 1/(n_j+1), rewards in [0, 1]),
so a round is 1/sqrt(c(n_j+1))-GDP, and rounds compose by GDP composition.

Two accountings are offered (the digest's §3.3):
  * ``tight=False`` (default, the paper's): η = sqrt(T/(c(b+1))) (Lemma 5, Theorem 4; Section 5 uses it,
    e.g. "316-GDP" for b=0, c=1, T=10⁵).
  * ``tight=True``: only the T − bN data-dependent rounds compose (pre-pull outputs are fixed), and an arm
    holding the differing reward has n_j ≥ max(b, 1), so η = sqrt((T − bN)/(c(max(b, 1)+1))). At (b, c) = (0, 1)
    this is Theorem 3's sqrt(T/2) for standard TS (223.6 at T = 10⁵), which Lemma 5 loosens by sqrt(2).
"""
from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.accounting import gdp
from jaxbandit.types import summarize


def _check_design(b, c, horizon, num_arms, tight):
    checks.concrete_in_range("horizon", horizon, 1.0)
    checks.concrete_in_range("b", b, 0.0)
    if c is not None:
        checks.concrete_in_range("c", c, 0.0, low_open=True)
    if tight and num_arms is None:
        raise ValueError("tight=True counts only the T - bN data-dependent rounds: pass num_arms (N)")
    if num_arms is not None:
        checks.positive_int("num_arms", num_arms)
        if not any(isinstance(x, jax.core.Tracer) for x in (b, horizon)):
            warn_if_all_prepulls(b, num_arms, horizon)


def warn_if_all_prepulls(b, num_arms: int, horizon) -> None:
    """Warn where b·N ≥ T: every round is then a pre-pull, so play is uniform and data-independent. Such a design
    is legal: the accounting still holds (Lemma 5's η = sqrt(T/(c(b+1))) bounds it; the tight accounting gives
    η = 0) and a simulation of it runs. `jaxbandit.simulate` and `guarantee`/`eta`/`min_scale` (and the CLI's
    ``run`` and ``privacy``) give the same warning."""
    pre = np.asarray(b, np.float64) * num_arms
    if np.any(pre >= np.asarray(horizon, np.float64)):
        warnings.warn(f"b={checks._fmt(b)} pre-pulls of each of N={num_arms} arms use b*N={checks._fmt(pre)} >= "
                      f"horizon T={checks._fmt(horizon)} rounds: every round is a pre-pull (uniform, data-independent "
                      f"play; Lemma 5's eta still bounds it, the tight accounting gives eta = 0)", UserWarning,
                      stacklevel=3)


def _rounds_and_floor(b, horizon, num_arms, tight):
    """(number of composed rounds, lower bound on n_j + 1 for the arm holding the differing reward)."""
    if tight:  # no data-dependent round when b·N ≥ T
        return jnp.maximum(horizon - b * num_arms, 0.0), jnp.maximum(b, 1.0) + 1
    return horizon, b + 1.0


def eta(b, c, horizon, *, num_arms=None, tight=False):
    """GDP parameter η of modified Thompson sampling (Algorithm 2) with b pre-pulls per arm and variance scale c
    over T rounds: sqrt(T/(c(b+1))) (Lemma 5), or the tight accounting of the module docstring.

    (b, c) = (0, 1) is standard TS (Algorithm 1). Smooth in (b, c) once b is relaxed to a real ≥ 0
    (∂η/∂c = −η/(2c), ∂η/∂b = −η/(2(b+1)) in the paper's form).
    """
    _check_design(b, c, horizon, num_arms, tight)
    b, c, horizon = jnp.broadcast_arrays(*gdp._floats(b, c, horizon))
    rounds, floor = _rounds_and_floor(b, horizon, num_arms, tight)
    return jnp.sqrt(rounds / (c * floor))


class Guarantee(NamedTuple):
    """η-GDP and the (ε, δ)-DP it implies (seed 001, Theorem 4)."""

    eta: jax.Array
    epsilon: jax.Array
    delta: jax.Array

    def __repr__(self) -> str:
        return summarize(self)


def guarantee(b, c, horizon, *, delta=None, epsilon=None, num_arms=None, tight=False) -> Guarantee:
    """η of Algorithm 2 and its (ε, δ) pair: give ``delta`` to get ε(δ; η), or ``epsilon`` to get δ(ε; η)
    (default: δ = 10⁻⁶, as in the paper's App. D)."""
    if delta is not None and epsilon is not None:
        raise ValueError("give either delta or epsilon, not both")
    e = eta(b, c, horizon, num_arms=num_arms, tight=tight)
    # η = 0 (tight accounting, b·N ≥ T: no data-dependent round) is perfect privacy, the limit ε, δ → 0 of the
    # conversions, which are defined for η > 0
    positive = jnp.maximum(e, jnp.finfo(e.dtype).tiny)
    if epsilon is not None:
        e, eps = jnp.broadcast_arrays(e, jnp.asarray(epsilon, e.dtype))
        return Guarantee(e, eps, jnp.where(e > 0, gdp.delta(eps, positive), 0.0))
    e, d = jnp.broadcast_arrays(e, jnp.asarray(1e-6 if delta is None else delta, e.dtype))
    return Guarantee(e, jnp.where(e > 0, gdp.epsilon(d, positive), 0.0), d)


def min_scale(b, horizon, num_arms, *, eta_budget=None, epsilon=None, delta=None, tight=False):
    """The smallest variance scale c ≥ 1 meeting a privacy budget with b pre-pulls per arm (seed 001, §5: "for
    each b the minimal c"): c*(b) = T/(η_B²(b+1)) in the paper's accounting (the tight one:
    (T − bN)/(η_B²(max(b, 1)+1))), raised to 1 where smaller, because the regret analysis (Theorem 5) needs c ≥ 1
    (η then lies below the budget).

    The budget is either ``eta_budget`` (η_B) or ``(epsilon, delta)``, converted by η_B = ``gdp.eta_for``.
    Differentiable in b (relaxed to a real) and in the budget; vmappable over a grid of b.

    Raises:
      ValueError: if b·N ≥ T (no rounds left after the pre-pulls), a budget is missing, given twice, or out of
        range.
    """
    if (eta_budget is None) == (epsilon is None and delta is None):
        raise ValueError("give the budget either as eta_budget or as (epsilon, delta)")
    if eta_budget is None:
        if epsilon is None or delta is None:
            raise ValueError("an (epsilon, delta) budget needs both epsilon and delta")
        eta_budget = gdp.eta_for(epsilon, delta)
    else:
        checks.concrete_in_range("eta_budget", eta_budget, 0.0, low_open=True)
    _check_design(b, None, horizon, num_arms, tight)
    b, horizon, eta_budget = jnp.broadcast_arrays(*gdp._floats(b, horizon, eta_budget))
    rounds, floor = _rounds_and_floor(b, horizon, num_arms, tight)
    return jnp.maximum(rounds / (eta_budget * eta_budget * floor), 1.0)


def _per_round_epsilon(delta0, num_arms):
    """Theorem 7 (via Theorem 6): one round of Algorithm 1 is (ε0, δ0)-DP with ε0 = sqrt(log((N−1)/(2δ0)))/(2√2)."""
    return jnp.sqrt(jnp.log((num_arms - 1) / (2 * delta0))) / (2 * jnp.sqrt(2.0))


def advanced_composition_epsilon(delta_target, horizon, num_arms, grid=2048):
    """The paper's standard-DP curve for Algorithm 1 (seed 001, App. C, Theorem 7 + Corollary 1, for Fig. 6):
    ε_TS = ε0 sqrt(2T log(1/(δ_TS − Tδ0))) + T ε0 (e^{ε0} − 1), with ε0(δ0) of Theorem 7.

    The paper does not say how δ_TS is split into Tδ0 and the slack; here the split is optimised over
    f = Tδ0/δ_TS on a logit grid (``grid`` points over f ∈ [e⁻⁴⁰, 1 − e⁻⁴⁰]) refined by golden-section search.

    Not a certified bound: Theorem 6 rests on a lemma (the paper's Lemma 13) whose constant is more optimistic
    than any Gaussian shift bound allows (digest §3.5, erratum); use it only to reproduce the paper's curve.
    """
    checks.concrete_in_range("delta", delta_target, 0.0, 1.0, low_open=True, high_open=True)
    checks.positive_int("num_arms", num_arms, minimum=2)
    checks.positive_int("horizon", horizon)
    (delta_target,) = gdp._floats(delta_target)
    T = float(horizon)

    def eps_ts(u, d):  # u = logit(f), f = Tδ0/δ_TS
        e0 = _per_round_epsilon(jax.nn.sigmoid(u) * d / T, num_arms)
        slack = jax.nn.sigmoid(-u) * d  # δ_TS − Tδ0 = (1 − f) δ_TS
        return e0 * jnp.sqrt(2 * T * -jnp.log(slack)) + T * e0 * jnp.expm1(e0)

    def minimise(d):
        us = jnp.linspace(-40.0, 40.0, grid, dtype=d.dtype)
        vals = eps_ts(us, d)
        i = jnp.argmin(vals)
        inv_phi = (np.sqrt(5.0) - 1) / 2

        def golden(_, bracket):
            lo, hi = bracket
            x1, x2 = hi - inv_phi * (hi - lo), lo + inv_phi * (hi - lo)
            left = eps_ts(x1, d) < eps_ts(x2, d)
            return jnp.where(left, lo, x1), jnp.where(left, x2, hi)

        lo, hi = jax.lax.fori_loop(0, 60, golden, (us[jnp.maximum(i - 1, 0)], us[jnp.minimum(i + 1, grid - 1)]))
        return jnp.minimum(eps_ts(0.5 * (lo + hi), d), vals[i])

    return jnp.reshape(jax.vmap(minimise)(jnp.reshape(delta_target, (-1,))), jnp.shape(delta_target))


def accountant(tight: bool = False, design=None):
    """The `jaxbandit.accounting.accountants.Accountant` of private Thompson sampling: μ-GDP over the whole run with
    μ = `eta` (b, c, T) (Lemma 5, Theorem 4; ``tight``: the T − bN data-dependent rounds), the variance scale c
    calibrated in closed form (`min_scale`: the smallest c ≥ 1 on the budget's boundary) and b left free in
    [0, ⌈T/N⌉ − 1] (at least one sampled round). ``design``: ``params -> (b, c)`` (default: the params' own b and c;
    Gaussian TS, Algorithm 1, is (0, 1))."""
    from jaxbandit.accounting.accountants import Accountant
    design = design or (lambda p: (p.b, p.c))

    def level(params, horizon, num_arms):
        b, c = design(params)
        with jax.enable_x64(True):
            return {"mu": float(eta(int(b), float(c), horizon, num_arms=num_arms, tight=tight))}

    def boundary(budget, params, horizon, num_arms):
        b, _ = design(params)
        if budget.mu is None and budget.delta == 0:
            raise ValueError(f"a pure epsilon budget ({budget}) cannot be met by a mu-GDP mechanism with mu > 0: "
                             "give delta > 0 or a mu budget")
        kw = {"eta_budget": budget.mu} if budget.mu is not None else {"epsilon": budget.epsilon,
                                                                      "delta": budget.delta}
        with jax.enable_x64(True):
            return {"c": float(min_scale(float(b), horizon, num_arms, tight=tight, **kw))}

    source = ("Ou, Avella Medina & Cummings 2024 (seed 001), " +
              ("the tight accounting: T − bN data-dependent rounds, n_j ≥ max(b, 1)" if tight else
               "Lemma 5 / Theorem 4: sqrt(T/(c(b+1)))"))
    return Accountant("gdp", "run", level,
                      "one reward changed; the output is the arm sequence (central, streaming DP)", source,
                      calibrated="c", calibrated_range=(0.0, math.inf), boundary=boundary,
                      tuned=("b", prepull_range))


def prepull_range(horizon: int, num_arms: int) -> tuple[int, int]:
    """The range [0, ⌈T/N⌉ − 1] of b with at least one sampled round (b·N < T); ValueError where there is none."""
    if num_arms >= horizon:
        raise ValueError(f"horizon={horizon} leaves no sampled round after one pre-pull of each of {num_arms} arms: "
                         f"need horizon > {num_arms}")
    return 0, math.ceil(horizon / num_arms) - 1
