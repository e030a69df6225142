"""The privacy of ReportNoisyMax (`jaxbandit.mechanisms.noisy_max`; seed 001, App. C).

Neighbouring databases change one score f_j by at most its sensitivity s_j (the paper's assumption for Theorem 6,
and what one changed reward does to Thompson sampling's posterior means: only the arm holding it moves). Then the
noisy score vector is a Gaussian (Laplace) mechanism on one coordinate and the released argmax is its
post-processing, so

  * Algorithm 4 (Gaussian, σ_i): max_i s_i/σ_i-GDP (Dong, Roth & Su 2022, Thm 2.7), exact for the noisy vector;
    (ε, δ) from its trade-off curve (`jaxbandit.accounting.gdp`).
  * Algorithm 3 (Laplace, scale b): max s/b-DP. Where every score may move (general neighbours) it is 2s/b-DP
    (Dwork & Roth 2014, Claim 3.9 for non-monotone scores).

The paper's Theorem 6, ε ≥ ½ sqrt(log((n − 1)/(2δ))) max_i s_i/σ_i, rests on Lemma 13 ([NRS07]), whose constant is
more optimistic than any Gaussian shift bound (spec 001 §3.5): at its ε the exact δ of the GDP above exceeds the
claimed δ (`theorem6_epsilon` says so, and a test shows it). It is kept as the paper's curve, never as a claim.
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit import checks
from jaxbandit.accounting.accountants import Accountant

__all__ = ["gaussian_mu", "laplace_epsilon", "theorem6_epsilon", "gaussian_accountant", "laplace_accountant"]


def gaussian_mu(sensitivities, scales):
    """μ = max_i s_i/σ_i of Algorithm 4 for one-score neighbours (broadcast; jittable: no checks on traced
    values)."""
    import jax.numpy as jnp
    return jnp.max(jnp.asarray(sensitivities) / jnp.asarray(scales))


def laplace_epsilon(sensitivity, scale, every_score: bool = False) -> float:
    """ε of Algorithm 3: s/b (one score changes), 2s/b (``every_score``: any may)."""
    checks.in_range("sensitivity", sensitivity, 0.0, low_open=True)
    checks.in_range("scale", scale, 0.0, low_open=True)
    return (2.0 if every_score else 1.0) * float(sensitivity) / float(scale)


def theorem6_epsilon(sensitivities, scales, delta: float, num_scores: int) -> float:
    """Seed 001 Theorem 6 as printed: ½ sqrt(log((n − 1)/(2δ))) max_i s_i/σ_i. NOT a certified claim (module
    docstring): use `gaussian_mu` and its exact (ε, δ)."""
    checks.in_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
    n = checks.positive_int("num_scores", num_scores, minimum=2)
    ratio = float(np.max(np.asarray(sensitivities, np.float64) / np.asarray(scales, np.float64)))
    return 0.5 * math.sqrt(math.log((n - 1) / (2 * delta))) * ratio


def gaussian_accountant(protects: str = "one score changed by at most its sensitivity") -> Accountant:
    """The accountant of a Gaussian ReportNoisyMax whose params carry ``sensitivities`` and ``scales`` (σ_i): μ-GDP
    per release."""
    def level(params, horizon=None, num_arms=None):
        return {"mu": float(np.max(np.asarray(params.sensitivities, np.float64)
                                   / np.asarray(params.scales, np.float64)))}
    return Accountant("gdp", "round", level, protects,
                      "Ou, Avella Medina & Cummings 2024 (seed 001), Algorithm 4: post-processing of a Gaussian "
                      "mechanism on the one changed score (Dong, Roth & Su 2022)")


def laplace_accountant(every_score: bool = False) -> Accountant:
    """The accountant of a Laplace ReportNoisyMax whose params carry ``sensitivity`` and ``scale``: ε-DP per
    release (s/b, or 2s/b where every score may change)."""
    def level(params, horizon=None, num_arms=None):
        return {"epsilon": laplace_epsilon(params.sensitivity, params.scale, every_score)}
    return Accountant("pure-dp", "round", level,
                      "every score changed by at most s" if every_score else "one score changed by at most s",
                      "Dwork & Roth 2014, §3.3 (Report Noisy Max; Claim 3.9); seed 001, Algorithm 3")
