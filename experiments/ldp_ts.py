"""Shared settings of the seed-000 reproductions ("Thompson Sampling under Bernoulli Rewards with Local
Differential Privacy", Jiang, Zhao & Li, arXiv 2307.00863): experiments ldp-ts-fig2 and ldp-ts-rankflip.

The paper runs TS-LDP-B (`thompson` on the privatized bits) and LDP-UCB-B (`ucb1` on the bits) on the 20-arm
testbed of its Sec. 5 (`testbed20`), 50 trials, but states neither the horizon, nor the ε grid, nor the
quadratic mechanism's b. Our choices (the spec's reproduction defaults): T = 10^5, ε ∈ {0.5, 1, 2, 4, ∞},
b = 0 (the most convex valid quadratic, valid at every ε), 200 runs, pseudo-regret Σ_i Δ_i N_i(t) on the true
means (the paper's Eq. 10 → 11).
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit import envs
from jaxbandit.privatizers import bernoulli

EPSILONS = (0.5, 1.0, 2.0, 4.0, math.inf)
QUADRATIC_B = 0.0
POLICIES = (("thompson", "TS-LDP-B"), ("ucb1", "LDP-UCB-B"))
TESTBED = "testbed 20 arms: Bernoulli(0.9), 5 Beta(4,1), 5 U{0.4,1}, 5 Bernoulli(0.6), 4 U[0,1]"


def settings(quick: bool):
    """(horizon, runs)."""
    return (2_000, 20) if quick else (100_000, 200)


def mechanism_params(mechanism: str, epsilon: float, b: float = QUADRATIC_B):
    if mechanism == "quadratic":
        return bernoulli.QuadraticParams(epsilon, b)
    return bernoulli.EpsilonParams(epsilon)


def privatized(mechanism: str, epsilon: float, env_name: str = "testbed20", b: float = QUADRATIC_B,
               env_params: dict | None = None):
    """(true means, privatized means μ_{i,ε}) of an environment, float64 numpy."""
    env, p = envs.make(env_name, **(env_params or {}))
    mu = np.asarray(env.means(p), np.float64)
    return mu, np.asarray(bernoulli.privatized_means(mechanism, mechanism_params(mechanism, epsilon, b), env, p),
                          np.float64)


def epsilon_label(eps: float) -> str:
    return "ε = ∞ (p(r) = r)" if math.isinf(eps) else f"ε = {eps:g}"


def epsilon_colors(epsilons):
    """A sequential colour per finite ε (dark = strong privacy) and black for ε = ∞."""
    import matplotlib.pyplot as plt
    finite = sorted(e for e in epsilons if math.isfinite(e))
    cmap = plt.get_cmap("plasma")
    colors = {e: cmap(0.85 * i / max(len(finite) - 1, 1)) for i, e in enumerate(finite)}
    colors[math.inf] = "black"
    return colors
