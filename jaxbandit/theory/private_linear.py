"""Private linear bandits: the regret bound of JDP-LinUCB, Shariff & Sheffet, "Differentially Private Contextual
Linear Bandits", NeurIPS 2018, Theorem 5, Eq. (2) (numbering of the authors' draft; `jaxbandit.policies.private_linear`).

With ‖x‖ ≤ L, |⟨θ*, x⟩| ≤ B (B ≥ 1), ‖θ*‖ ≤ S, σ-sub-Gaussian reward noise, and regularizer bounds (ρ_min, ρ_max, γ)
that hold per round with probability 1 − α/2n (Propositions 9 and 11 for the noise the policy uses), with
probability at least 1 − α::

    R_n ≤ B √(8n) [ σ (2 log(2/α) + d log(ρ_max/ρ_min + n L²/(d ρ_min)))
                    + (S √ρ_max + γ) √(d log(1 + n L²/(d ρ_min))) ]

The bound is stated with probability 1 − α, not in expectation: with the per-round regret at most 2B, E[R_n] ≤
bound + 2Bαn (1 at the policy's default α = 1/(2T), B = 1).
"""
from __future__ import annotations

import math

import numpy as np

from jaxbandit.theory.base import Bound, NotApplicable, horizons

__all__ = ["jdp_linucb_bound", "BOUNDS"]


def jdp_linucb_bound(horizon, dim, epsilon, delta, alpha, feature_bound, reward_bound, noise_scale, theta_bound,
                     noise="gaussian", *, mean_bound: float = 1.0):
    """Shariff & Sheffet (2018), Theorem 5, Eq. (2): with probability ≥ 1 − α, JDP-LinUCB's regret after n rounds
    is at most B √(8n) [σ (2 log(2/α) + d log(ρ_max/ρ_min + nL²/(dρ_min))) + (S√ρ_max + γ) √(d log(1 +
    nL²/(dρ_min)))], with the policy's ρ_min, ρ_max, γ for its noise at its horizon (`jdp_constants`). ``horizon``
    n (scalar or array: each point is a policy built for that many rounds, as the bound is); ``mean_bound`` B ≥ 1
    bounds |⟨θ*, x⟩| (S&S Assumption 2)."""
    from jaxbandit.policies.private_linear import JDPParams, JDP_NOISES, host_constants
    if noise not in JDP_NOISES:
        raise NotApplicable(f"noise={noise!r} is not one of {JDP_NOISES}")
    if float(mean_bound) < 1:
        raise NotApplicable(f"mean_bound={float(mean_bound):g} must be at least 1 (S&S Assumption 2)")
    n = horizons(horizon)
    d = int(dim)
    out = []
    for t in np.atleast_1d(n):
        a = float(alpha) if alpha is not None else 1 / (2 * float(t))
        c = host_constants(JDPParams(epsilon, delta, a, t, feature_bound, reward_bound, noise_scale, theta_bound),
                           d, noise)
        if not c["rho_min"] > 0:
            raise NotApplicable(f"rho_min={c['rho_min']:g} is not positive at n={float(t):g}")
        L2 = float(feature_bound) ** 2
        ratio = t * L2 / (d * c["rho_min"])
        width = (float(noise_scale) * (2 * math.log(2 / a) + d * math.log(c["rho_max"] / c["rho_min"] + ratio))
                 + (float(theta_bound) * math.sqrt(c["rho_max"]) + c["gamma"]) * math.sqrt(d * math.log1p(ratio)))
        out.append(float(mean_bound) * math.sqrt(8 * t) * width)
    return np.asarray(out).reshape(np.shape(n))


#: This paper's bounds as `Bound` objects; `jaxbandit.theory.REGISTRY` holds them all.
BOUNDS = (
    Bound("jdp-linucb-thm5", jdp_linucb_bound, paper="Shariff & Sheffet 2018", result="Theorem 5, Eq. (2)",
          kind="upper", policies=("linucb-jdp",),
          note="with probability 1 - alpha (E[R_T] <= bound + 2 B alpha T); each horizon's policy built for it; "
               "numbering of the authors' 2018 draft"),
)
