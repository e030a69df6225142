"""Private linear bandit policies: LinUCB on privately released Gram statistics.

JDP-LinUCB (``linucb-jdp``): Shariff & Sheffet, "Differentially Private Contextual Linear Bandits", NeurIPS 2018
("S&S"), Algorithm 1 ("Linear UCB with changing perturbations") on the tree-released augmented Gram matrix of §4
(`jaxbandit.mechanisms.gram`). Each round t the policy reads the release M̃_t = M_t + N_t, shifted by a multiple of
the identity on its top-left block, and takes

    V_t = G_t + H_t,  ũ_t = u_t + h_t      (H_t, h_t: the noise's top-left block and last column, plus the shift)
    θ̃_t = V_t⁻¹ ũ_t,   x_t = argmax_{x ∈ D_t} ⟨θ̃_t, x⟩ + β_t ‖x‖_{V_t⁻¹}

by a fresh Cholesky factorization of V_t (the release is re-noised every round: no rank-one update applies), with
β_t of S&S Proposition 4 in its data-dependent form, as the authors' code computes it:

    β_t = R √(2 log(2/α) + log det V_t − d log ρ_min) + S √ρ_max + γ.

The noise, its shift and the bounds (ρ_min, ρ_max, γ) that make β_t hold with probability 1 − α (S&S Definition 3,
per round with probability 1 − α/2n), with m = 1 + ⌈log₂ n⌉ tree levels and L̃² = L² + B̃²:

- ``noise="gaussian"`` (S&S §4.2, Proposition 11): each node σ (Z + Zᵀ)/√2, σ = 4√m L̃² ln(4/δ)/ε;
  Υ = σ √(2m) (4√d + 2 ln(2n/α)); shift +2Υ; ρ_min = Υ, ρ_max = 3Υ,
  γ = √m σ (√d + √(2 ln(2n/α))) / √Υ.
- ``noise="wishart"`` (S&S §4.1, Proposition 9, shifted by Eq. (4)): each node L̃² W_{d+1}(I, k),
  k = d + 1 + ⌈224 m ln(8m/δ) ln(2/δ)/ε²⌉; with Δ_W = √d + √(2 ln(8n/α)), shift −c,
  c = L̃² (√(mk) − Δ_W)² − 4 L̃² √(mk) Δ_W; ρ_min = 4 L̃² √(mk) Δ_W, ρ_max = 8 L̃² √(mk) Δ_W,
  γ = L̃ √(√(mk) (√d + √(2 ln(2n/α)))).
- ``noise="wishart-unshifted"`` (Proposition 9, first part): no shift; ρ_min = L̃² (√(mk) − Δ_W)²,
  ρ_max = L̃² (√(mk) + Δ_W)², γ = L̃ (√d + √(2 ln(2n/α))).

Privacy (the accountant, scope "joint": the actions shown to every other user; S&S Claim 7, post-processing of the
releases): each round's row v_t = [x_t; y_t], clipped to ‖v_t‖ ≤ L̃ (`gram.clip_row`), enters one tree node per
level, at most ⌊log₂ T⌋ + 1 nodes. Gaussian: a symmetrized node is (L̃²/σ)-GDP for a replaced row
(`releases.GaussianMatrixRelease`, symmetrized), the nodes compose to μ = √(⌊log₂T⌋ + 1) L̃²/σ-GDP (Dong, Roth &
Su 2022, Cor. 3.3), exact, and (ε, δ) follows from μ exactly: far below the paper's ε (its per-node split
ε/√(8m ln(2/δ)) and δ/2 through advanced composition is loose; the claim states what the noise gives). Wishart:
each node is Sheffet's Wishart mechanism (`profiles.Wishart`, (sqrt(28 ln(4/δ₀)/(k − d − 1)), δ₀)-DP), composed
over the nodes by the better of basic and advanced composition (`profiles.SelfComposed`). Joint DP is not DP of the
action sequence: S&S Claim 13 shows that forces linear regret.

Where the paper and its code differ (S&S's code, `roshanshariff/PrivateBandits.jl`): the code splits δ as δ/(m + 1)
per node and floors k (239 278 at the paper's experiment against the draft's formula's 139 115, implemented here);
its failure probability per round is α/2^⌈log₂T⌉ where the paper's is α/2n (the paper's here); its tree releases
exactly m node noises with shared padding, ours draws the padding afresh (`jaxbandit.mechanisms.gram`). The draft
prints W_{d+1}(L̃ I, k) once, for L̃² I (erratum; L̃² here, as in its proofs and code).

LDP-LinUCB (``linucb-ldp``): Zheng, Cai, Huang, Li & Wang, "Locally Differentially Private (Contextual) Bandits
Learning", NeurIPS 2020. Each user perturbs its own (x_t, y_t) (`gram.local_report`: x xᵀ + σB and y x + σξ, the
Gaussian mechanism), and the server runs LinUCB on the sums of the reports Ṽ_t, ũ_t with a regularizer that
dominates their noise (the authors' code, `src/linucb.py`, and Han et al.'s re-implementation, NeurIPS 2021, agree
on these formulas; the paper's body was not available to us):

    Υ_t = σ √t (4√d + 2 ln(2T/α)),   V_t = Ṽ_t + 2Υ_t I,   θ̂_t = V_t⁻¹ ũ_t,
    β_t = 2σ √(d ln T) + (√(3Υ_t) + σ √(d t/Υ_t)) d ln T,   x_t = argmax ⟨θ̂_t, x⟩ + β_t ‖x‖_{V_t⁻¹},

t the number of reports so far (at least 1: round 1's regularizer is 2Υ_1 I, where the authors' code hard-codes
0.1). σ = Δ √(2 ln(1.25/δ))/ε (the Gaussian mechanism, Dwork & Roth 2014, Thm A.1, for ε < 1), with Δ =
sqrt(2L⁴ + 4L²B̃²) the sensitivity of a report (`gram.report_sensitivity`; the authors' code uses 2√2 for L = B̃ = 1,
their README quotes the paper's reward bound 2). The accountant states the exact claim of the noise, μ = Δ/σ-GDP per
report (scope "report": the server and every other party see only reports), of which (ε, δ) at the paper's δ is a
conversion (below ε for ε < 1). The authors' code adds the bonus as β_t ‖x‖²_{V⁻¹} (no square root); the square root
is the paper's rule (and Han et al.'s and Chowdhury & Zhou's).

A release whose V_t is not positive definite (probability at most α over the run, by the bounds above) cannot give
θ̃_t: that round plays a uniformly random arm, and ``indefinite`` in the state counts such rounds.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.accounting import profiles
from jaxbandit.accounting.accountants import Accountant
from jaxbandit.mechanisms import counters, gram
from jaxbandit.policies import linalg
from jaxbandit.policies.common import argmax_random_tie
from jaxbandit.policies.linear import pick_row
from jaxbandit.registry import POLICIES, Golden
from jaxbandit.types import Policy

__all__ = ["WIDTHS", "JDPParams", "JDPState", "linucb_jdp", "JDP_NOISES", "jdp_constants", "host_constants", "tree_size", "wishart_dof",
           "LDPParams", "LDPState", "linucb_ldp", "ldp_sigma", "ldp_width", "report_width", "chowdhury_zhou_width",
           "report_factor", "report_select", "bind_run", "check_common", "drawn_part"]

#: The servers of a private LinUCB, the paper's regularizer and confidence width (``"theory"``), or Chowdhury & Zhou's
#: code's regularizer 2Γ and constant width (``"chowdhury-zhou"``, `chowdhury_zhou_width`), their experiment's.
WIDTHS = ("theory", "chowdhury-zhou")

#: The noises of JDP-LinUCB, S&S's Gaussian (§4.2), shifted Wishart (§4.1, Eq. (4)) and unshifted Wishart.
JDP_NOISES = ("gaussian", "wishart", "wishart-unshifted")


class JDPParams(NamedTuple):
    """Parameters of JDP-LinUCB.

    Attributes:
      epsilon: the ε the noise is set for by S&S's formulas (ε > 0); the claim the accountant states is at most
        (ε, δ) (module docstring).
      delta: the δ the noise is set for (in (0, 1)).
      alpha: α in (0, 1), the confidence bounds' failure probability; ``None``: 1/(2T), as S&S's code.
      horizon: n = T, the rounds the algorithm is built for (its tree depth m and the 2n/α of its bounds);
        ``None``: the run's.
      feature_bound: L > 0, features are scaled to ‖x‖ ≤ L before they are released.
      reward_bound: B̃ > 0, rewards are clamped to [−B̃, B̃] before they are released.
      noise_scale: R ≥ 0, the rewards' sub-Gaussian scale (S&S's σ; 1/2 for rewards in [0, 1], 1 for ±1).
      theta_bound: S ≥ 0, a bound on ‖θ*‖.
    """
    epsilon: jax.Array
    delta: jax.Array
    alpha: jax.Array | None
    horizon: jax.Array | None
    feature_bound: jax.Array
    reward_bound: jax.Array
    noise_scale: jax.Array
    theta_bound: jax.Array


class JDPState(NamedTuple):
    """JDP-LinUCB's state (per run): the tree of releases and the count of rounds whose V_t was not positive
    definite."""
    tree: gram.GramTree
    indefinite: jax.Array  # int32


def tree_size(horizon):
    """m = 1 + ⌈log₂ n⌉: S&S's number of tree levels for n rounds (traceable; int32)."""
    n = jnp.asarray(horizon).astype(jnp.int32)
    return 1 + (32 - jax.lax.clz(jnp.maximum(n, 1) - 1))


def wishart_dof(epsilon, delta, m, dim):
    """k = d + 1 + ⌈224 m ln(8m/δ) ln(2/δ)/ε²⌉: S&S §4.1's degrees of freedom of one node (Theorem 8 at the
    per-node (ε/√(8m ln(2/δ)), δ/2m)); traceable."""
    m = jnp.asarray(m, jnp.result_type(epsilon))
    return dim + 1 + jnp.ceil(224 * m * jnp.log(8 * m / delta) * jnp.log(2 / delta) / (epsilon * epsilon))


def jdp_constants(params, dim: int, noise: str):
    """The node noise's scale and degrees of freedom, the shift, and ρ_min, ρ_max, γ (module docstring; S&S
    Propositions 9 and 11): a dict of traceable arrays; ``margin``: √(mk) − Δ_W for the Wishart, which
    Proposition 9's eigenvalue bound needs positive (Υ for the Gaussian)."""
    n = params.horizon
    m = tree_size(n).astype(jnp.result_type(params.epsilon))
    lt2 = params.feature_bound ** 2 + params.reward_bound ** 2
    log_n = jnp.log(2 * n / params.alpha)  # ln(2n/α)
    sqrt_d = math.sqrt(dim)
    if noise == "gaussian":
        sigma = 4 * jnp.sqrt(m) * lt2 * jnp.log(4 / params.delta) / params.epsilon
        upsilon = sigma * jnp.sqrt(2 * m) * (4 * sqrt_d + 2 * log_n)
        gamma = jnp.sqrt(m) * sigma * (sqrt_d + jnp.sqrt(2 * log_n)) / jnp.sqrt(upsilon)
        return dict(scale=sigma, dof=jnp.zeros_like(sigma), shift=2 * upsilon, rho_min=upsilon, rho_max=3 * upsilon,
                    gamma=gamma, m=m, margin=upsilon)
    k = wishart_dof(params.epsilon, params.delta, m, dim)
    root = jnp.sqrt(m * k)
    spread = sqrt_d + jnp.sqrt(2 * jnp.log(8 * n / params.alpha))
    if noise == "wishart":
        c = lt2 * (root - spread) ** 2 - 4 * lt2 * root * spread
        return dict(scale=lt2, dof=k, shift=-c, rho_min=4 * lt2 * root * spread, rho_max=8 * lt2 * root * spread,
                    gamma=jnp.sqrt(lt2 * root * (sqrt_d + jnp.sqrt(2 * log_n))), m=m, margin=root - spread)
    return dict(scale=lt2, dof=k, shift=jnp.zeros_like(k), rho_min=lt2 * (root - spread) ** 2,
                rho_max=lt2 * (root + spread) ** 2, gamma=jnp.sqrt(lt2) * (sqrt_d + jnp.sqrt(2 * log_n)), m=m,
                margin=root - spread)


def bind_run(alpha_times_horizon: float):
    """``bind_horizon`` of a private LinUCB: T = the run's where left ``None``, α = ``alpha_times_horizon``/T
    (traceable) where left ``None``."""
    def bind(params, horizon):
        dtype = jnp.zeros(()).dtype
        if params.horizon is None:
            params = params._replace(horizon=jnp.asarray(horizon, dtype))
        if params.alpha is None:
            params = params._replace(alpha=(alpha_times_horizon / jnp.asarray(params.horizon)).astype(dtype))
        return params
    return bind


_bind = bind_run(0.5)  # JDP-LinUCB: α = 1/(2T), as S&S's code


def host_constants(params, dim: int, noise: str) -> dict:
    """`jdp_constants` in float64 on the host (Python floats): for the accountant, the checks and the bound."""
    with jax.default_device(jax.devices("cpu")[0]), jax.enable_x64(True):
        c = jdp_constants(jax.tree.map(lambda v: jnp.asarray(np.float64(v)), params), dim, noise)
        return {k: float(v) for k, v in c.items()}


def _jdp_level(dim: int, noise: str):
    """The accountant's level (module docstring): μ-GDP for the Gaussian; for the Wishart, the profile of its nodes
    composed (an (ε(δ), δ) pair at every δ)."""
    def level(params, horizon, num_arms):
        params = _bind(params, horizon)
        nodes = counters.tree_levels(int(horizon))  # the most nodes a row is in
        c = host_constants(params, dim, noise)
        if noise == "gaussian":
            lt2 = float(params.feature_bound) ** 2 + float(params.reward_bound) ** 2
            return {"mu": math.sqrt(nodes) * lt2 / c["scale"]}
        return {"profile": profiles.SelfComposed(profiles.Wishart(dim + 1, c["dof"]), nodes)}
    return level


_cholesky_or_identity = linalg.cholesky_or_identity


def drawn_part(rng, part):
    """Part ``part`` of a step's block draw, (the tie-breaking uniform, the noise's variates): ``None`` where the
    step has none (an audit's own key), the uniform alone where only it is given."""
    if not isinstance(rng.drawn, tuple):
        return rng.drawn if part == 0 else None
    return rng.drawn[part]


def _cho_solve(chol, b):
    """V⁻¹ b for V = L Lᵀ (two triangular solves, `linalg`)."""
    return linalg.solve_upper_transposed(chol, linalg.solve_lower(chol, b))


def _ucb_arm(chol, ok, theta, beta, features, u, num_arms):
    """argmax ⟨θ, x⟩ + β ‖x‖_{V⁻¹} (V = L Lᵀ), ties at random; a uniformly random arm where V was indefinite."""
    whitened = linalg.solve_lower(chol, features.T)  # L⁻¹ xᵀ: ‖x‖²_{V⁻¹}
    score = linalg.matvec(features, theta) + beta * jnp.sqrt(jnp.sum(whitened * whitened, axis=0))
    random_arm = jnp.minimum(jnp.floor(u * num_arms).astype(jnp.int32), num_arms - 1)
    return jnp.where(ok, argmax_random_tie(score, u), random_arm)


def check_common(params):
    """The checks every private LinUCB's parameters share (privacy level, failure probability, horizon, bounds)."""
    checks.in_range("epsilon", params.epsilon, 0.0, math.inf, low_open=True, high_open=True)
    checks.in_range("delta", params.delta, 0.0, 1.0, low_open=True, high_open=True)
    if params.alpha is not None:
        checks.in_range("alpha", params.alpha, 0.0, 1.0, low_open=True, high_open=True)
    if params.horizon is not None:
        checks.in_range("horizon", params.horizon, 2.0, 2.0 ** 31 - 1)
    checks.in_range("feature_bound", params.feature_bound, 0.0, math.inf, low_open=True, high_open=True)
    checks.in_range("reward_bound", params.reward_bound, 0.0, math.inf, low_open=True, high_open=True)


def linucb_jdp(num_arms: int, dim: int, *, noise: str = "gaussian", width: str = "theory") -> Policy:
    """JDP-LinUCB: LinUCB on a tree of noisy Gram releases, joint (ε, δ)-DP (Shariff & Sheffet 2018, Alg. 1, §4).

    Gaussian or Wishart node noise (``noise``: `JDP_NOISES`); the module docstring has the constants and the claim.
    ``width="theory"`` (default): S&S's shift and β_t; ``"chowdhury-zhou"`` (Gaussian noise only): Chowdhury & Zhou's
    code's regularizer 2Γ and constant width (`chowdhury_zhou_width`, Γ = σ √m √d for the m node noises of each
    release), their JDP baseline's server. Parameters: `JDPParams`."""
    checks.known_name("linucb-jdp noise", noise, JDP_NOISES)
    checks.known_name("linucb-jdp width", width, WIDTHS)
    if width == "chowdhury-zhou" and noise != "gaussian":
        raise ValueError(f"linucb-jdp width='chowdhury-zhou' needs noise='gaussian' (its Γ is a Gaussian noise's "
                         f"scale), got noise={noise!r}")
    d = checks.positive_int("dim", dim)
    K = checks.positive_int("num_arms", num_arms)
    node_law = "gaussian" if noise == "gaussian" else "wishart"
    dtype = jnp.zeros(()).dtype

    def init(params):
        return JDPState(gram.tree_init(d, dtype), jnp.zeros((), jnp.int32))

    def draw(key, steps, params):
        k_u, k_z = jax.random.split(key)
        z = gram.node_normals(k_z, steps, d) if noise == "gaussian" else None
        return jax.random.uniform(k_u, (steps,)), z

    def constants(params):
        c = jdp_constants(params, d, noise)
        if width == "chowdhury-zhou":
            c["gamma_cz"], c["beta_cz"] = chowdhury_zhou_width(c["scale"], c["m"], params.horizon, d,
                                                               params.feature_bound, params.theta_bound,
                                                               params.noise_scale)
            c["shift"] = 2 * c["gamma_cz"]
        return c

    def factor(rng, state, params, c):
        """This round's V_t as a Cholesky factor, whether it is positive definite, and the release."""
        count = c["m"] - gram.live_nodes(state.tree).astype(c["m"].dtype)
        if drawn_part(rng, 1) is None:
            pad = gram.padding_noise(jax.random.fold_in(rng.key, 0), node_law, d, c["scale"], c["dof"], count)
        else:  # the block's normals: the same law (`gram.padding_noise`)
            pad = jnp.sqrt(count).astype(c["scale"].dtype) * gram.gaussian_node(drawn_part(rng, 1)[0], d, c["scale"])
        released = gram.tree_release(state.tree, pad)
        chol, ok = _cholesky_or_identity(released[:d, :d] + c["shift"] * jnp.eye(d, dtype=released.dtype))
        return chol, ok, released

    def select(rng, state, params, features):
        c = constants(params)
        chol, ok, released = factor(rng, state, params, c)
        theta = _cho_solve(chol, released[:d, d])
        if width == "chowdhury-zhou":
            beta = c["beta_cz"]
        else:
            logdet = 2 * jnp.sum(jnp.log(jnp.diagonal(chol)))
            beta = (params.noise_scale * jnp.sqrt(jnp.maximum(
                2 * jnp.log(2 / params.alpha) + logdet - d * jnp.log(c["rho_min"]), 0))
                + params.theta_bound * jnp.sqrt(c["rho_max"]) + c["gamma"])
        return _ucb_arm(chol, ok, theta, beta, features, drawn_part(rng, 0), K)

    def update(rng, state, arm, obs, params, features):
        c = constants(params)
        _, ok, _ = factor(rng, state, params, c)  # the release select used (the same key): count a failure
        v = gram.clip_row(pick_row(features, arm), obs, params.feature_bound, params.reward_bound)
        if drawn_part(rng, 1) is None:
            node = gram.node_noise(jax.random.fold_in(rng.key, 1), node_law, d, c["scale"], c["dof"], v.dtype)
        else:
            node = gram.gaussian_node(drawn_part(rng, 1)[1], d, c["scale"])
        return JDPState(gram.tree_insert(state.tree, v, node), state.indefinite + (~ok).astype(jnp.int32))

    def validate(params, horizon=None):
        check_common(params)
        checks.in_range("noise_scale", params.noise_scale, 0.0, math.inf, high_open=True)
        checks.in_range("theta_bound", params.theta_bound, 0.0, math.inf, high_open=True)
        if horizon is not None and params.horizon is not None and params.alpha is not None:
            _check_regularizer(params, d, noise)

    defaults = JDPParams(jnp.asarray(1.0, dtype), jnp.asarray(0.1, dtype), None, None, jnp.asarray(1.0, dtype),
                         jnp.asarray(1.0, dtype), jnp.asarray(0.5, dtype), jnp.asarray(1.0, dtype))
    accountant = Accountant("gdp" if noise == "gaussian" else "approx-dp", "joint", _jdp_level(d, noise),
                            "one round's (features, reward) replaced",
                            "Shariff & Sheffet 2018, §4 and Claim 7 (tree of "
                            + ("Gaussian releases, composed as μ-GDP: Dong, Roth & Su 2022, Cor. 3.3)"
                               if noise == "gaussian" else
                               "Wishart releases, Sheffet 2015 Thm 4.1, composed by KOV 2015 Thm 3.5)"),
                            calibrated="epsilon", calibrated_range=(0.0, math.inf))
    return Policy("linucb-jdp", K, init, draw, select, update, validate, defaults, accountant=accountant,
                  options={"noise": noise, "width": width}, bind_horizon=_bind, contextual=True, run_major=True)


def _check_regularizer(params, dim, noise):
    """A clear error where S&S's bounds give no regularizer (Proposition 9 needs √(mk) > Δ_W: too few degrees of
    freedom for the horizon and α), before any compilation."""
    c = host_constants(params, dim, noise)
    rho_min, margin = c["rho_min"], c["margin"]
    if not (rho_min > 0 and margin > 0):
        raise ValueError(f"linucb-jdp noise={noise!r}: epsilon={float(params.epsilon):g}, delta="
                         f"{float(params.delta):g}, alpha={float(params.alpha):g} and horizon="
                         f"{float(params.horizon):g} leave S&S's bounds without a regularizer (rho_min={rho_min:g}, "
                         f"sqrt(mk) - Delta_W = {margin:g} must be positive); use noise='gaussian' or a smaller "
                         f"epsilon")


# ------------------------------------------------------------------------------------------------- LDP-LinUCB
class LDPParams(NamedTuple):
    """Parameters of LDP-LinUCB.

    Attributes:
      epsilon: the ε of each user's report the noise is set for (σ = Δ √(2 ln(1.25/δ))/ε; ε > 0); the accountant
        states the exact μ-GDP of that σ.
      delta: the δ of each report the noise is set for (in (0, 1)).
      alpha: α in (0, 1), the regularizer's failure probability (Υ_t); ``None``: 1/T.
      horizon: T known to the algorithm (ln T and 2T/α); ``None``: the run's.
      feature_bound: L > 0, the user scales its features to ‖x‖ ≤ L before reporting.
      reward_bound: B̃ > 0, the user clamps its reward to [−B̃, B̃] before reporting.
      noise_scale: R ≥ 0, the rewards' sub-Gaussian scale (``width="chowdhury-zhou"``).
      theta_bound: S ≥ 0, a bound on ‖θ*‖ (``width="chowdhury-zhou"``).
    """
    epsilon: jax.Array
    delta: jax.Array
    alpha: jax.Array | None
    horizon: jax.Array | None
    feature_bound: jax.Array
    reward_bound: jax.Array
    noise_scale: jax.Array
    theta_bound: jax.Array


class LDPState(NamedTuple):
    """LDP-LinUCB's state (per run): the sums of the users' reports and their number, and the count of rounds whose
    V_t was not positive definite."""
    gram: jax.Array       # f[d, d] Ṽ = Σ (x xᵀ + σB)
    xr: jax.Array         # f[d] ũ = Σ (y x + σξ)
    reports: jax.Array    # int32
    indefinite: jax.Array  # int32


def ldp_sigma(params):
    """σ = Δ √(2 ln(1.25/δ))/ε, Δ = `gram.report_sensitivity` (module docstring)."""
    return (gram.report_sensitivity(params.feature_bound, params.reward_bound)
            * jnp.sqrt(2 * jnp.log(1.25 / params.delta)) / params.epsilon)


def ldp_width(params, reports, dim: int):
    """(Υ_t, β_t) after t = max(reports, 1) reports (module docstring; Zheng et al.'s code's formulas)."""
    return report_width(ldp_sigma(params), reports, params.horizon, params.alpha, dim)


def report_width(sigma, reports, horizon, alpha, dim: int):
    """(Υ_t, β_t) of Zheng et al.'s server for reports whose matrix and vector noises have independent (sub-)Gaussian
    entries of scale σ on and above the diagonal, after t = max(reports, 1) of them (module docstring)."""
    t = jnp.maximum(reports, 1).astype(sigma.dtype)
    upsilon = sigma * jnp.sqrt(t) * (4 * math.sqrt(dim) + 2 * jnp.log(2 * horizon / alpha))
    log_t = jnp.log(horizon)
    beta = (2 * sigma * jnp.sqrt(dim * log_t)
            + (jnp.sqrt(3 * upsilon) + sigma * jnp.sqrt(dim * t / upsilon)) * dim * log_t)
    return upsilon, beta


def report_factor(gram_sum, reports, sigma, params, dim: int, width: str):
    """(L, ok, β) of a server on the sums of reports with noise of scale σ: V = Ṽ + 2Υ I and β_t of Zheng et al.
    (``width="theory"``, `report_width`) or 2Γ and Chowdhury & Zhou's constant width (`chowdhury_zhou_width`)."""
    if width == "theory":
        upsilon, beta = report_width(sigma, reports, params.horizon, params.alpha, dim)
    else:
        upsilon, beta = chowdhury_zhou_width(sigma, params.horizon, params.horizon, dim, params.feature_bound,
                                             params.theta_bound, params.noise_scale)
    chol, ok = _cholesky_or_identity(gram_sum + 2 * upsilon * jnp.eye(dim, dtype=gram_sum.dtype))
    return chol, ok, beta


def report_select(rng, factored, xr, features, num_arms: int):
    """The arm of a report server (`report_factor`'s (L, ok, β)): θ̂ = V⁻¹ ũ, the UCB index, ties at random."""
    chol, ok, beta = factored
    return _ucb_arm(chol, ok, _cho_solve(chol, xr), beta, features, drawn_part(rng, 0), num_arms)


def chowdhury_zhou_width(sigma, noise_terms, horizon, dim: int, feature_bound, theta_bound, noise_scale):
    """(Γ, β) of Chowdhury & Zhou's code (``sayakrc/Differentially-Private-Bandits``, ``LinBanditPrivate.py``):
    Γ = σ √(noise terms) √d, the scale of the noise's spectral norm at the horizon n, regularizer 2Γ I, and one
    constant width β = √Γ S + R √(d ln((1 + n L²/Γ) n)) (their ``confidence_ellipsoid_width`` at t = n, α = 1/n;
    they take S = √d, R = 1/2)."""
    gamma = sigma * jnp.sqrt(noise_terms) * math.sqrt(dim)
    beta = (jnp.sqrt(gamma) * theta_bound
            + noise_scale * jnp.sqrt(dim * jnp.log((1 + horizon * feature_bound ** 2 / gamma) * horizon)))
    return gamma, beta


_bind_ldp = bind_run(1.0)  # LDP-LinUCB: α = 1/T, as Zheng et al.'s code


def linucb_ldp(num_arms: int, dim: int, *, width: str = "theory") -> Policy:
    """LDP-LinUCB: LinUCB on the sums of the users' Gaussian reports of (x xᵀ, y x), (ε, δ)-LDP (Zheng et al. 2020).

    Each report is μ-GDP; the module docstring has the regularizer, the width (``width="theory"``, default) and the
    claim; ``width="chowdhury-zhou"``: Chowdhury & Zhou's code's regularizer 2Γ, Γ = σ √T √d, and constant width
    (`chowdhury_zhou_width`), their LDP baseline's server. Parameters: `LDPParams`."""
    checks.known_name("linucb-ldp width", width, WIDTHS)
    d = checks.positive_int("dim", dim)
    K = checks.positive_int("num_arms", num_arms)
    dtype = jnp.zeros(()).dtype

    def init(params):
        return LDPState(jnp.zeros((d, d), dtype), jnp.zeros(d, dtype), jnp.zeros((), jnp.int32),
                        jnp.zeros((), jnp.int32))

    def draw(key, steps, params):
        k_u, k_z = jax.random.split(key)
        return jax.random.uniform(k_u, (steps,)), gram.report_normals(k_z, steps, d)

    def factor(state, params):
        return report_factor(state.gram, state.reports, ldp_sigma(params), params, d, width)

    def select(rng, state, params, features):
        return report_select(rng, factor(state, params), state.xr, features, K)

    def update(rng, state, arm, obs, params, features):
        _, ok, _ = factor(state, params)  # the V_t select used: count a failure
        m, v = gram.local_report(rng.key, pick_row(features, arm), obs, ldp_sigma(params), params.feature_bound,
                                 params.reward_bound, drawn_part(rng, 1))
        return LDPState(state.gram + m, state.xr + v, state.reports + 1,
                        state.indefinite + (~ok).astype(jnp.int32))

    def validate(params, horizon=None):
        check_common(params)
        checks.in_range("noise_scale", params.noise_scale, 0.0, math.inf, high_open=True)
        checks.in_range("theta_bound", params.theta_bound, 0.0, math.inf, high_open=True)

    def level(params, horizon, num_arms):
        sigma = float(ldp_sigma(jax.tree.map(lambda v: np.float64(v), params)))
        return {"mu": float(gram.report_sensitivity(float(params.feature_bound), float(params.reward_bound))) / sigma}

    defaults = LDPParams(jnp.asarray(1.0, dtype), jnp.asarray(0.1, dtype), None, None, jnp.asarray(1.0, dtype),
                         jnp.asarray(1.0, dtype), jnp.asarray(0.5, dtype), jnp.asarray(1.0, dtype))
    accountant = Accountant("gdp", "report", level, "one user's (features, reward) replaced in its report",
                            "Zheng et al. 2020: the Gaussian mechanism on a user's (x xᵀ, y x) (Dong, Roth & Su 2022, "
                            "Thm 2.7, with Δ = sqrt(2L⁴ + 4L²B̃²))", calibrated="epsilon",
                            calibrated_range=(0.0, math.inf))
    return Policy("linucb-ldp", K, init, draw, select, update, validate, defaults, accountant=accountant,
                  options={"width": width}, bind_horizon=_bind_ldp, contextual=True, run_major=True)


# The registration (`jaxbandit.registry`): its claim, audits and golden case (a random instance per run, features
# drawn each round; it reads T: the whole run is replayed).
POLICIES.register("linucb-jdp", linucb_jdp, private=True,
                  audits=("linucb-jdp", "gram-tree-gaussian", "gram-tree-wishart"),
                  golden=Golden(env="linear", env_params={"num_arms": 6, "dim": 3, "instance": "chowdhury-zhou"},
                                params={"epsilon": 50.0, "feature_bound": 1.5}, full_horizon=True))
POLICIES.register("linucb-ldp", linucb_ldp, private=True, audits=("linucb-ldp", "gram-local-report"),
                  golden=Golden(env="linear", env_params={"num_arms": 6, "dim": 3, "instance": "chowdhury-zhou"},
                                params={"epsilon": 50.0, "feature_bound": 1.5}, full_horizon=True))
