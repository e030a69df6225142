"""Seed 004 (Tao, Wu, Zhao & Wang, "Optimal Rates of (Locally) Differentially Private Heavy-tailed Multi-Armed
Bandits", AISTATS 2022, arXiv 2106.02575; spec 004): `dp-rucb` (Algorithm 1 on the binary-tree counter of
Algorithm 2), `dp-rse` (Algorithm 3) and `ldp-rse` (Algorithm 4), for rewards with E|X|^{1+v} <= u (eq. 2).

Every constant is a traced parameter with the paper's value as default: ε, v, u, β (``None``: 1/T, Theorems 4 and
7), the elimination threshold θ (12 for DPRSE, 14 for LDPRSE; the pull counts R_τ scale with it as (2θ)^{(1+v)/v},
spec §2.6), DPRUCB's bonus constant (18) and the sensitivity multiple of its tree (2: items in [−B, B], the
paper's). T is known to all three: ``horizon`` (``None``: the run's). An (ε, v, u) grid is one compilation.

Where the paper is wrong, the factories build the corrected algorithm by default and the printed one on request
(``variant="printed"``, a build-time option): DPRUCB's tree depth (corrected: ε′ = ε/(⌊log₂T⌋ + 1), ε-DP; printed:
ε/ln T, which over-spends ≈1.44×, spec §2.1 errata) and LDPRSE's schedule (corrected: the proofs' D_τ = 2^-τ and
err′_τ; printed: the algorithm box's, spec §2.4 flags A, B). ``release`` picks the Laplace release (discrete,
floating-point safe, by default; or the float draw).

With the paper's constants, every algorithm plays (nearly) uniformly at any horizon that can be simulated (spec
§6.4): DPRSE's first epoch alone is 3.06·10⁶ rounds at v = 0.9, ε = 1, K = 5; the experiments therefore also run
a documented scaled-constant preset (experiments/heavy_tailed.py).

The elimination epochs are data-independent in length, so `jaxbandit.epochs` simulates DPRSE and LDPRSE epoch by
epoch (exactly the same law as the per-step policy, without a scan over every round).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks
from jaxbandit.accounting.accountants import epsilon_of, pure_dp
from jaxbandit.policies.common import (arm_slice, bind_run_horizon, capped_pulls, check_known_horizon, kahan_add,
                                       onehot, with_arm)
from jaxbandit.policies.elimination import eliminate
from jaxbandit.policies.phased import phased, round_robin
from jaxbandit.mechanisms import counters, laplace as laplace_noise
from jaxbandit.mechanisms.truncated_mean import central_release, local_report, truncate
from jaxbandit.types import Policy
from jaxbandit.registry import POLICIES, Golden

__all__ = ["dp_rucb", "dp_rse", "ldp_rse", "RUCBParams", "RSEParams", "LDPRSEParams", "RUCBState", "RSEState",
           "VARIANTS", "rucb_bound", "rucb_bonus", "rucb_bonus_scale", "rucb_bonus_rate",
           "rse_schedule", "ldp_rse_schedule", "bind_beta", "tree_depth"]

_DP = "one reward of the stream changed; the output is the whole run, arms and releases (Tao et al. 2022, Def. 1)"
_LDP = "one user's reward changed; the output is that user's report (Tao et al. 2022, Def. 2)"


# ----------------------------------------------------------------------------------------------------- DPRUCB

class RUCBParams(NamedTuple):
    """DPRUCB's parameters (seed 004, Algorithm 1): ε, the moment (v, u), T, the bonus constant and the tree's
    sensitivity."""
    epsilon: jax.Array      # ε of ε-DP (the analysis takes ε <= 1)
    v: jax.Array            # moment order: E|X|^{1+v} <= u, v in (0, 1]
    u: jax.Array            # the moment bound
    horizon: jax.Array | None  # T known to the algorithm (the trees' depth, log T); None: the run's
    bonus: jax.Array        # the bonus constant, 18 in the paper
    sensitivity: jax.Array  # the tree's sensitivity as a multiple of B_n: 2 (the paper's, items in [−B, B])


class RUCBState(NamedTuple):
    """DPRUCB's state: a tree-based private sum per arm, the pull counts and the round."""
    tree: counters.TreeState  # one binary-tree counter per arm (leading axis K)
    counts: jax.Array         # int32[K]: n_a
    step: jax.Array           # int32: rounds played
    released: jax.Array       # float[K]: each arm's released sum Ŝ_a (its tree's release, kept: only the pulled
                              # arm's changes, so a step sums one tree's levels, not K trees')
    rate: jax.Array           # float[K]: each arm's bonus factor max(n_a, 1)^{−v/(1+v)} (`rucb_bonus_rate`), kept


def _log_t(params, dtype):
    return jnp.log(params.horizon.astype(dtype))


def rucb_bound(n, params, dtype=None):
    """B_n = (ε u n / log^{1.5} T)^{1/(1+v)}: the truncation of an arm's n-th reward (Algorithm 1)."""
    dtype = dtype or jnp.result_type(float)
    n = jnp.asarray(n).astype(dtype)
    return (params.epsilon * params.u * n / _log_t(params, dtype) ** 1.5) ** (1 / (1 + params.v))


def rucb_bonus(n, t, params, dtype=None):
    """c·u^{1/(1+v)} (log(2t⁴) log^{1.5+1/v} T / (n ε))^{v/(1+v)}: DPRUCB's exploration bonus (Algorithm 1,
    Lemma 3), computed as `rucb_bonus_scale` (t's part) times `rucb_bonus_rate` (n's), the policy's own factors."""
    return rucb_bonus_scale(t, params, dtype) * rucb_bonus_rate(n, params, dtype)


def rucb_bonus_scale(t, params, dtype=None):
    """c·u^{1/(1+v)} (log(2t⁴) log^{1.5+1/v} T / ε)^{v/(1+v)}: the bonus's factor common to every arm at round t."""
    dtype = dtype or jnp.result_type(float)
    t = jnp.asarray(t).astype(dtype)
    v = params.v
    logs = (math.log(2) + 4 * jnp.log(t)) * _log_t(params, dtype) ** (1.5 + 1 / v)
    return params.bonus * params.u ** (1 / (1 + v)) * (logs / params.epsilon) ** (v / (1 + v))


def rucb_bonus_rate(n, params, dtype=None):
    """n^{−v/(1+v)}: the bonus's factor of an arm pulled n times (DPRUCB keeps each arm's: only the pulled arm's
    changes)."""
    dtype = dtype or jnp.result_type(float)
    n = jnp.asarray(n).astype(dtype)
    return n ** (-params.v / (1 + params.v))


VARIANTS = ("corrected", "printed")  # the ``variant`` option: the errata applied (default), or the paper as printed


def tree_depth(params, printed: bool = False):
    """D of the trees' ε′ = ε/D: ⌊log₂T⌋ + 1 (`counters.tree_depth`), or the printed ln T, traced."""
    T = params.horizon
    if printed:
        return jnp.log(T)
    return counters.tree_depth(T.astype(jnp.int32)).astype(T.dtype)


def _validate_common(name, num_arms, params, horizon):
    checks.in_range("epsilon", params.epsilon, 0.0, low_open=True, high_open=True)
    checks.in_range("v", params.v, 0.0, 1.0, low_open=True)
    checks.in_range("u", params.u, 0.0, low_open=True, high_open=True)
    check_known_horizon(params, 2.0 ** 31)
    if horizon is not None and num_arms > horizon:
        raise ValueError(f"{name} pulls each of its {num_arms} arms first: horizon={horizon} is too short")


def dp_rucb(num_arms: int, *, variant: str = "corrected", release: str = "discrete") -> Policy:
    """DPRUCB: ε-DP robust UCB on one binary-tree counter per arm (Heavy-tailed DP bandits, Algorithm 1, Theorems 1–2).

    Rounds 1..K pull arms 0..K−1; then a_t = argmax Ŝ_a/n_a + bonus(n_a, t) (`rucb_bonus`; ties to the lowest index,
    the paper gives no rule). The n-th reward of an arm is truncated at B_n (`rucb_bound`) and inserted into that
    arm's tree with sensitivity 2B_n and node noise Lap(2B_n/ε′) (Algorithm 2: B_n never decreases, so a node's
    scale covers every item in it). ε-DP by Lemma 2 per arm and parallel composition over the arms' disjoint
    streams (Theorem 1) for the corrected depth; `jaxbandit.mechanisms.counters.tree_privacy_loss` is the oracle.
    ``variant="printed"``: the paper's ε′ = ε/ln T, which spends (⌊log₂T⌋ + 1)/ln T ≈ 1.44 times ε (its accountant
    says so). ``release``: the nodes' Laplace releases, ``"discrete"`` (default) or ``"float"``."""
    K = num_arms
    checks.known_name("variant", variant, VARIANTS)
    laplace_noise.check_release(release)
    printed = variant == "printed"

    def init(params):
        tree = counters.tree_init((K,))
        dtype = tree.alpha.dtype
        return RUCBState(tree, jnp.zeros(K, jnp.int32), jnp.zeros((), jnp.int32), jnp.zeros(K, dtype),
                         jnp.ones(K, dtype))

    def draw(key, steps, params):
        # one node noise per arm, as always (only the pulled arm's is used); the discrete bits once per step
        return laplace_noise.draw(key, (steps, K), release, bits_shape=(steps,))

    def select(rng, state, params):
        dtype = state.tree.alpha.dtype
        n = jnp.maximum(state.counts, 1)
        mean = state.released / n.astype(dtype)
        index = mean + rucb_bonus_scale(state.step + 1, params, dtype) * state.rate
        return jnp.where(state.step < K, state.step, jnp.argmax(index)).astype(jnp.int32)

    def update(rng, state, arm, obs, params):
        hit = onehot(arm, K) == 1
        counts = state.counts + hit
        n = jnp.sum(jnp.where(hit, counts, 0))
        bound = rucb_bound(n, params, state.tree.alpha.dtype)
        # only the pulled arm's tree takes the item: it alone is updated (K times less work than masking every arm's)
        one = counters.tree_insert(arm_slice(state.tree, arm), truncate(obs, bound),
                                   laplace_noise.at_arm(rng.drawn, arm), params.epsilon,
                                   sensitivity=params.sensitivity * bound, depth=tree_depth(params, printed))
        tree = with_arm(state.tree, arm, one)
        released = state.released.at[arm].set(counters.tree_release(one))
        rate = state.rate.at[arm].set(rucb_bonus_rate(n, params, state.rate.dtype))
        return RUCBState(tree, counts, state.step + 1, released, rate)

    def validate(params, horizon=None):
        _validate_common("dp-rucb", K, params, horizon)
        checks.in_range("bonus", params.bonus, 0.0, high_open=True)
        checks.in_range("sensitivity", params.sensitivity, 0.0, low_open=True, high_open=True)

    def depth_of(params):
        T = int(float(params.horizon))
        levels = counters.tree_levels(T)
        return T, levels, (math.log(T) if printed else levels)

    def epsilon(params, horizon, num_arms):
        # An item enters at most `levels` nodes; each changes by at most 2B_i <= 2B_c against noise s·B_c·D/ε.
        _, levels, depth = depth_of(params)
        return float(params.epsilon) * levels / depth * 2 / float(params.sensitivity)

    def source(params, horizon, num_arms):
        _, levels, depth = depth_of(params)
        return (f"Tao et al. 2022, Theorem 1 (Lemma 2 per arm, parallel composition): {levels} nodes per item, "
                f"each (2/{float(params.sensitivity):g})·ε/{depth:.4g}")

    return Policy("dp-rucb", K, init, draw, select, update, validate,
                  RUCBParams(*map(jnp.asarray, (1.0, 0.5, 1.0)), None, *map(jnp.asarray, (18.0, 2.0))),
                  bind_horizon=bind_run_horizon, accountant=pure_dp(epsilon, protects=_DP, source=source),
                  options={"variant": variant, "release": release}, state_run_major=True,
                  tunable={"bonus": (0.25, 1.0, 4.0, 18.0)})  # 18: the paper's; 1: heavy-calibration's scaled choice


# ---------------------------------------------------------------------------------------------- DPRSE, LDPRSE

class RSEParams(NamedTuple):
    """DPRSE's parameters (seed 004, Algorithm 3): ε, the moment (v, u), β, the threshold θ and T."""
    epsilon: jax.Array  # ε of ε-DP
    v: jax.Array        # moment order
    u: jax.Array        # moment bound
    beta: jax.Array | None  # failure probability; None: 1/T (Theorem 4)
    theta: jax.Array    # elimination threshold θ·err_τ; 12 in the paper (R_τ ∝ (2θ)^{(1+v)/v})
    horizon: jax.Array | None  # T (for β = 1/T); None: the run's


class LDPRSEParams(NamedTuple):
    """LDPRSE's parameters (seed 004, Algorithm 4): ε, the moment (v, u), β, the threshold θ and T."""
    epsilon: jax.Array  # ε of ε-LDP
    v: jax.Array
    u: jax.Array
    beta: jax.Array | None  # None: 1/T (Theorem 7)
    theta: jax.Array    # 14 in the paper (R_τ ∝ (2θ)^{2(1+v)/v})
    horizon: jax.Array | None


class RSEState(NamedTuple):
    """DPRSE's and LDPRSE's state: the active arms, this epoch's sums (compensated), the epoch, its pulls and bound."""
    active: jax.Array  # bool[K]: S
    sums: jax.Array    # float[K]: this epoch's (privatized, for LDPRSE) truncated rewards, Kahan-compensated
    comp: jax.Array    # float[K]: their compensation
    epoch: jax.Array   # int32 τ, from 1
    pulls: jax.Array   # int32 R_τ (capped so that R_τ·|S| fits int32: such an epoch outlasts any run)
    bound: jax.Array   # float B_τ


def _log_l(n_active, epoch, params, factor, dtype):
    """L_τ = log(factor·|S|τ²/β) (factor 4 for DPRSE, 8 for LDPRSE)."""
    n = n_active.astype(dtype)
    e = epoch.astype(dtype)
    return jnp.log(factor * n * e * e / params.beta.astype(dtype))


def rse_schedule(n_active, epoch, params, dtype=None):
    """(R_τ real, B_τ, err_τ, L_τ) of DPRSE's epoch τ (Algorithm 3, spec §2.3), from public quantities only:
    R_τ = u^{1/v} (2θ)^{(1+v)/v} L_τ/(ε D_τ^{(1+v)/v}) + 1 before the ceiling, D_τ = 2^-τ, B_τ = (u R_τ ε/L_τ)^{1/(1+v)}
    with the rounded R_τ, err_τ = u^{1/(1+v)} (L_τ/(R_τ ε))^{v/(1+v)}. Example (spec §7.14): v = 0.9, ε = 1, u = 8.142063,
    β = 10^-6, K = 5, τ = 1 gives L₁ = 16.811243, R₁ = 612090, B₁ = 758.53, err₁ = 0.0208333."""
    dtype = dtype or jnp.result_type(float)
    v, u, eps = (jnp.asarray(x, dtype) for x in (params.v, params.u, params.epsilon))
    log_l = _log_l(n_active, epoch, params, 4.0, dtype)
    gap = jnp.exp2(-jnp.asarray(epoch).astype(dtype))
    r = u ** (1 / v) * (2 * params.theta.astype(dtype)) ** ((1 + v) / v) * log_l / (eps * gap ** ((1 + v) / v)) + 1
    r = jnp.ceil(r)
    bound = (u * r * eps / log_l) ** (1 / (1 + v))
    err = u ** (1 / (1 + v)) * (log_l / (r * eps)) ** (v / (1 + v))
    return r, bound, err, log_l


def ldp_rse_schedule(n_active, epoch, params, dtype=None, printed: bool = False):
    """(R_τ real, B_τ, err_τ, L_τ) of LDPRSE's epoch τ (Algorithm 4, spec §2.4), L_τ = log(8|S|τ²/β):
    R_τ = ⌈u^{2/v} (2θ)^{2(1+v)/v} L_τ/(ε² D_τ^{2(1+v)/v}) + L_τ⌉, B_τ = (u √R_τ ε/√L_τ)^{1/(1+v)}.
    Corrected (the proofs' variant, default): D_τ = 2^-τ and err′_τ = u^{1/(1+v)} (√L_τ/(√R_τ ε))^{v/(1+v)} (eq. 24,
    so 28 err′_τ <= D_τ). ``printed``: D_τ = 4^-τ and err_τ = u^{1/(1+v)} (√L_τ/(R_τ ε))^{v/(1+v)} as the box prints
    them (flags A and B of spec §2.4: this threshold falls far below the Laplace noise)."""
    dtype = dtype or jnp.result_type(float)
    v, u, eps = (jnp.asarray(x, dtype) for x in (params.v, params.u, params.epsilon))
    log_l = _log_l(n_active, epoch, params, 8.0, dtype)
    tau = jnp.asarray(epoch).astype(dtype)
    gap = jnp.exp2(-2 * tau) if printed else jnp.exp2(-tau)
    power = 2 * (1 + v) / v
    r = jnp.ceil(u ** (2 / v) * (2 * params.theta.astype(dtype)) ** power * log_l / (eps * eps * gap ** power) + log_l)
    bound = (u * jnp.sqrt(r) * eps / jnp.sqrt(log_l)) ** (1 / (1 + v))
    denominator = (r if printed else jnp.sqrt(r)) * eps
    err = u ** (1 / (1 + v)) * (jnp.sqrt(log_l) / denominator) ** (v / (1 + v))
    return r, bound, err, log_l


def bind_beta(params, horizon):
    """T (None: the run's) and β (None: 1/T)."""
    params = bind_run_horizon(params, horizon)
    if params.beta is not None:
        return params
    return params._replace(beta=1 / params.horizon.astype(jnp.zeros(()).dtype))


def _elimination(name, num_arms, schedule, local: bool, defaults, accountant, options):
    K = num_arms
    laplace_noise.check_release(options["release"])

    def start(active, epoch, params):
        n = jnp.sum(active, dtype=jnp.int32)
        r, bound, _, _ = schedule(n, epoch, params)
        return capped_pulls(r, n), bound

    def init(params):
        active, epoch = jnp.ones(K, bool), jnp.asarray(1, jnp.int32)
        zero = jnp.zeros(K)
        return RSEState(active, zero, zero, epoch, *start(active, epoch, params))

    def draw(key, steps, params):
        # LDPRSE: one Laplace per step (the user's noise); DPRSE: one per arm for the epoch-end release, computed
        # there (the discrete words from that step's key, the float draw deferred), as DP-SE's: releases are rare.
        if local:
            return laplace_noise.draw(key, (steps,), options["release"])
        return laplace_noise.draw(key, (steps, K), options["release"], words_later=True)

    def phase_length(state, params):
        n = jnp.sum(state.active, dtype=jnp.int32)
        return jnp.where(n > 1, state.pulls * n, 0)  # one arm left: it is played to the end

    def select(rng, state, params):
        return round_robin(state.inner.active, state.count)

    def observe(rng, state, arm, obs, params):
        # LDPRSE: x̂ = x̃ + Lap(2B_τ/ε), drawn by the user (Theorem 6's 2B_τ/ε: its proof's B_τ/ε is a typo)
        x = local_report(obs, state.bound, params.epsilon, rng.drawn) if local else truncate(obs, state.bound)
        hit = onehot(arm, K) == 1
        total, comp = kahan_add(state.sums, state.comp, x)
        return state._replace(sums=jnp.where(hit, total, state.sums), comp=jnp.where(hit, comp, state.comp))

    def release_means(rng, state, arm, length, params):
        r = state.pulls.astype(state.sums.dtype)
        means = (state.sums - state.comp) / r
        if not local:  # μ̃_a = μ̄_a + Lap(2B_τ/(R_τ ε)), independent per arm
            means = central_release(means, state.bound, r, params.epsilon,
                                    laplace_noise.with_words(rng.drawn, rng.key))
        _, _, err, _ = schedule(jnp.sum(state.active, dtype=jnp.int32), state.epoch, params)
        # err_τ with the rounded (uncapped) R_τ: the R_τ this epoch used when it is not capped
        active = eliminate(state.active, means, params.theta * err)
        epoch = state.epoch + 1
        zero = jnp.zeros_like(state.sums)
        return RSEState(active, zero, zero, epoch, *start(active, epoch, params))

    def validate(params, horizon=None):
        _validate_common(name, K, params, horizon)
        if params.beta is not None:
            checks.in_range("beta", params.beta, 0.0, 1.0, low_open=True, high_open=True)
        checks.in_range("theta", params.theta, 0.0, low_open=True, high_open=True)

    policy = phased(name, K, init=init, phase_length=phase_length, select=select, observe=observe,
                    end_phase=release_means, draw=draw, validate=validate, default_params=defaults)
    # θ: the paper's (12 central, 14 local), heavy-calibration's scaled choices (0.5, 1), and around them
    theta = (0.25, 1.0, 4.0, 14.0) if local else (0.125, 0.5, 2.0, 12.0)
    return policy._replace(bind_horizon=bind_beta, accountant=accountant, options=options,
                           tunable={"theta": theta}, epochs=(schedule, local))


def dp_rse(num_arms: int, *, release: str = "discrete") -> Policy:
    """DPRSE: ε-DP robust successive elimination (Heavy-tailed DP bandits, Algorithm 3, Theorems 3–4).

    Epoch τ pulls each of the |S| viable arms R_τ times round-robin (`rse_schedule`), truncates at B_τ, releases
    μ̃_a = epoch mean + Lap(2B_τ/(R_τ ε)) and eliminates the arms with max μ̃ − μ̃_a > θ·err_τ (θ = 12); each epoch
    forgets the last one's rewards. One arm left: it is played to T (the run stops at T, mid-epoch if it comes).
    Written on `phased`; `jaxbandit.epochs` simulates the same law epoch by epoch. ``release``: the epoch means'
    Laplace releases, ``"discrete"`` (default) or ``"float"``."""
    accountant = pure_dp(epsilon_of, protects=_DP,
                         source="Tao et al. 2022, Theorem 3: each reward enters one epoch mean (sensitivity "
                                "2B_τ/R_τ, Lap(2B_τ/(R_τ ε))), epochs and arms disjoint (parallel composition)")
    return _elimination("dp-rse", num_arms, rse_schedule, False,
                        RSEParams(*map(jnp.asarray, (1.0, 0.5, 1.0)), None, jnp.asarray(12.0), None), accountant,
                        {"release": release})


def ldp_rse(num_arms: int, *, variant: str = "corrected", release: str = "discrete") -> Policy:
    """LDPRSE: ε-LDP robust successive elimination (Heavy-tailed DP bandits, Algorithm 4, Theorems 6–7).

    Like `dp_rse`, but every reward is truncated at B_τ and privatized by its user as x̃ + Lap(2B_τ/ε) before the
    learner sees it (`ldp_rse_schedule`; θ = 14, L_τ = log(8|S|τ²/β)). ``variant``: ``"corrected"`` (default) the
    proofs' D_τ = 2^-τ and err′_τ with √R_τ; ``"printed"`` the box's D_τ = 4^-τ and R_τ in err_τ (spec §2.4 flags A,
    B). The privatization is inside the policy because B_τ is the policy's (public) epoch state; use it with the
    identity privatizer. ``release``: the users' Laplace reports, ``"discrete"`` (default) or ``"float"``."""
    checks.known_name("variant", variant, VARIANTS)
    printed = variant == "printed"
    kind = "the algorithm box as printed" if printed else "the proofs' variant"
    accountant = pure_dp(epsilon_of, notion="ldp", scope="report", protects=_LDP,
                         source=f"Tao et al. 2022, Theorem 6 ({kind}): x̃ in [−B_τ, B_τ] plus Lap(2B_τ/ε) per reward")
    schedule = lambda n, e, p, dtype=None: ldp_rse_schedule(n, e, p, dtype, printed=printed)
    return _elimination("ldp-rse", num_arms, schedule, True,
                        LDPRSEParams(*map(jnp.asarray, (1.0, 0.5, 1.0)), None, jnp.asarray(14.0), None), accountant,
                        {"variant": variant, "release": release})


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case. Seed 004's
# policies run on Pareto arms (moment order v = 0.9), with constants scaled down so that arms are told apart
# (and epochs end) within the golden horizon.
_PARETO = {"means": [0.3, 0.55, 0.5, 0.8], "v": 0.9}
POLICIES.register("dp-rucb", dp_rucb, private=True, audits=("dp-rucb", "tree-counter"),
                  golden=Golden(env="pareto", env_params=_PARETO,
                                params={"epsilon": 1.0, "v": 0.9, "u": 2.0, "bonus": 0.5}, full_horizon=True))
POLICIES.register("dp-rse", dp_rse, private=True, audits=("central-laplace-mean",),
                  golden=Golden(env="pareto", env_params=_PARETO,
                                params={"epsilon": 5.0, "v": 0.9, "u": 1.0, "beta": 0.1, "theta": 1.0}))
POLICIES.register("ldp-rse", ldp_rse, private=True, audits=("local-laplace",),
                  golden=Golden(env="pareto", env_params=_PARETO,
                                params={"epsilon": 10.0, "v": 0.9, "u": 1.0, "beta": 0.1, "theta": 0.5}))
