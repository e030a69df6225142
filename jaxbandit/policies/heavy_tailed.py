"""Seed 004 (Tao, Wu, Zhao & Wang, "Optimal Rates of (Locally) Differentially Private Heavy-tailed Multi-Armed
Bandits", AISTATS 2022, arXiv 2106.02575; spec 004): `dp-rucb` (Algorithm 1 on the binary-tree counter of
Algorithm 2), `dp-rse` (Algorithm 3) and `ldp-rse` (Algorithm 4), for rewards with E|X|^{1+v} <= u (eq. 2).

Every constant is a traced parameter with the paper's value as default: ε, v, u, β (0: 1/T, Theorems 4 and 7), the
elimination threshold θ (12 for DPRSE, 14 for LDPRSE; the pull counts R_τ scale with it as (2θ)^{(1+v)/v},
spec §2.6), DPRUCB's bonus constant (18), the sensitivity multiple of its tree (2: items in [−B, B], the paper's)
and the tree's log base (0: ε′ = ε/(⌊log₂T⌋ + 1), ε-DP; e: the paper's literal ε/ln T, which over-spends ≈1.44×,
spec §2.1 errata). T is known to all three: ``horizon`` (0: the run's). An (ε, v, u) grid is one compilation.

With the paper's constants, every algorithm plays (nearly) uniformly at any horizon that can be simulated (spec
§6.4): DPRSE's first epoch alone is 3.06·10⁶ rounds at v = 0.9, ε = 1, K = 5; the experiments therefore also run
a documented scaled-constant preset (experiments/heavy_tailed.py).

The elimination epochs are data-independent in length, so `elimination_rollout` simulates DPRSE and LDPRSE epoch
by epoch (exactly the same law as the per-step policy, without a scan over every round).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.policies.common import bind_run_horizon, capped_pulls, epsilon_claim, kahan_add, onehot
from jaxbandit.policies.elimination import eliminate
from jaxbandit.policies.phased import phased, round_robin
from jaxbandit.privacy import counters, noise as laplace_noise
from jaxbandit.privacy.robust import central_release, local_report, truncate
from jaxbandit.types import Claim, Policy, StepRandom

__all__ = ["dp_rucb", "dp_rse", "ldp_rse", "RUCBParams", "RSEParams", "LDPRSEParams", "RUCBState", "RSEState",
           "rucb_bound", "rucb_bonus", "rse_schedule", "ldp_rse_schedule", "elimination_rollout", "EpochTrace",
           "MAX_EPOCHS", "fluid_regret"]

_DP = "ε-DP of the whole output (arms and releases), one reward of the stream changed (Tao et al. 2022, Def. 1)"
_LDP = "ε-LDP of every reward the learner sees (Tao et al. 2022, Def. 2)"


# ----------------------------------------------------------------------------------------------------- DPRUCB

class RUCBParams(NamedTuple):
    epsilon: jax.Array      # ε of ε-DP (the analysis takes ε <= 1)
    v: jax.Array            # moment order: E|X|^{1+v} <= u, v in (0, 1]
    u: jax.Array            # the moment bound
    horizon: jax.Array      # T known to the algorithm (the trees' depth, log T); 0: the run's
    bonus: jax.Array        # the bonus constant, 18 in the paper
    sensitivity: jax.Array  # the tree's sensitivity as a multiple of B_n: 2 (the paper's, items in [−B, B])
    log_base: jax.Array     # ε′ = ε/log_b T; 0: ε/(⌊log₂T⌋ + 1), the exact ε-DP depth (spec §2.1 errata)
    noise: jax.Array        # int: 1 discrete Laplace releases (floating-point safe, default), 0 the float draw


class RUCBState(NamedTuple):
    tree: counters.TreeState  # one binary-tree counter per arm (leading axis K)
    counts: jax.Array         # int32[K]: n_a
    step: jax.Array           # int32: rounds played


def _log_t(params, dtype):
    return jnp.log(params.horizon.astype(dtype))


def rucb_bound(n, params, dtype=None):
    """B_n = (ε u n / log^{1.5} T)^{1/(1+v)}: the truncation of an arm's n-th reward (Algorithm 1)."""
    dtype = dtype or jnp.result_type(float)
    n = jnp.asarray(n).astype(dtype)
    return (params.epsilon * params.u * n / _log_t(params, dtype) ** 1.5) ** (1 / (1 + params.v))


def rucb_bonus(n, t, params, dtype=None):
    """c·u^{1/(1+v)} (log(2t⁴) log^{1.5+1/v} T / (n ε))^{v/(1+v)}: DPRUCB's exploration bonus (Algorithm 1, Lemma 3)."""
    dtype = dtype or jnp.result_type(float)
    n = jnp.asarray(n).astype(dtype)
    t = jnp.asarray(t).astype(dtype)
    v = params.v
    logs = (math.log(2) + 4 * jnp.log(t)) * _log_t(params, dtype) ** (1.5 + 1 / v)
    return params.bonus * params.u ** (1 / (1 + v)) * (logs / (n * params.epsilon)) ** (v / (1 + v))


def tree_depth(params):
    """D of the trees' ε′ = ε/D: ⌊log₂T⌋ + 1 (log_base 0) or log_b T (`counters.tree_depth`), traced."""
    T = params.horizon
    levels = counters.tree_depth(T.astype(jnp.int32)).astype(T.dtype)
    literal = jnp.log(T) / jnp.log(jnp.where(params.log_base > 0, params.log_base, 2.0))
    return jnp.where(params.log_base > 0, literal, levels)


def _validate_common(params):
    checks.in_range("epsilon", params.epsilon, 0.0, low_open=True, high_open=True)
    checks.in_range("v", params.v, 0.0, 1.0, low_open=True)
    checks.in_range("u", params.u, 0.0, low_open=True, high_open=True)
    T = float(params.horizon)
    if not (T == 0 or 2 <= T < 2 ** 31):
        raise ValueError(f"horizon={checks._fmt(params.horizon)} must be 0 (the run's horizon) or in [2, 2^31): "
                         "the T known to the algorithm")


def _check_k(name, num_arms):
    def check_horizon(params, horizon):
        if num_arms > horizon:
            raise ValueError(f"{name} pulls each of its {num_arms} arms first: horizon={horizon} is too short")
    return check_horizon


def dp_rucb(num_arms: int) -> Policy:
    """DPRUCB: ε-DP robust UCB on one binary-tree counter per arm (seed 004 Algorithm 1, Theorems 1–2).

    Rounds 1..K pull arms 0..K−1; then a_t = argmax Ŝ_a/n_a + bonus(n_a, t) (`rucb_bonus`; ties to the lowest index,
    the paper gives no rule). The n-th reward of an arm is truncated at B_n (`rucb_bound`) and inserted into that
    arm's tree with sensitivity 2B_n and node noise Lap(2B_n/ε′) (Algorithm 2: B_n never decreases, so a node's
    scale covers every item in it). ε-DP by Lemma 2 per arm and parallel composition over the arms' disjoint
    streams (Theorem 1) for the default depth; `jaxbandit.privacy.counters.tree_privacy_loss` is the oracle."""
    K = num_arms

    def init(params):
        return RUCBState(counters.tree_init((K,)), jnp.zeros(K, jnp.int32), jnp.zeros((), jnp.int32))

    def draw(key, steps, params):
        # one node noise per arm, as always (only the pulled arm's is used); the discrete bits once per step
        return laplace_noise.draw(key, (steps, K), params.noise, bits_shape=(steps,))

    def select(rng, state, params):
        dtype = state.tree.alpha.dtype
        n = jnp.maximum(state.counts, 1)
        mean = counters.tree_release(state.tree) / n.astype(dtype)
        index = mean + rucb_bonus(n, state.step + 1, params, dtype)
        return jnp.where(state.step < K, state.step, jnp.argmax(index)).astype(jnp.int32)

    def update(rng, state, arm, obs, params):
        hit = onehot(arm, K) == 1
        counts = state.counts + hit
        n = jnp.sum(jnp.where(hit, counts, 0))
        bound = rucb_bound(n, params, state.tree.alpha.dtype)
        tree = counters.tree_insert(state.tree, truncate(obs, bound), rng.noise, params.epsilon, mask=hit,
                                    sensitivity=params.sensitivity * bound, depth=tree_depth(params))
        return RUCBState(tree, counts, state.step + 1)

    def validate(params):
        _validate_common(params)
        checks.in_range("bonus", params.bonus, 0.0, high_open=True)
        checks.in_range("sensitivity", params.sensitivity, 0.0, low_open=True, high_open=True)
        checks.in_set("noise", params.noise, (0, 1))
        lb = float(params.log_base)
        if not (lb == 0 or 1 < lb < math.inf):
            raise ValueError(f"log_base={checks._fmt(params.log_base)} must be 0 (⌊log2 T⌋ + 1 levels) or a number in "
                             "(1, inf)")

    def privacy(params, horizon):
        T = int(float(params.horizon)) or int(horizon)
        levels = counters.tree_levels(T)
        depth = levels if float(params.log_base) == 0 else math.log(T) / math.log(float(params.log_base))
        # An item enters at most `levels` nodes; each changes by at most 2B_i <= 2B_c against noise s·B_c·D/ε.
        eps = float(params.epsilon) * levels / depth * 2 / float(params.sensitivity)
        src = (f"Tao et al. 2022, Theorem 1 (Lemma 2 per arm, parallel composition): {levels} nodes per item, "
               f"each (2/{float(params.sensitivity):g})·ε/{depth:.4g}")
        return Claim(eps, 0.0, _DP, src)

    return Policy("dp-rucb", K, init, draw, select, update, validate,
                  RUCBParams(*map(jnp.asarray, (1.0, 0.5, 1.0, 0.0, 18.0, 2.0, 0.0, 1))),
                  check_horizon=_check_k("dp-rucb", K), bind_horizon=bind_run_horizon, privacy=privacy)


# ---------------------------------------------------------------------------------------------- DPRSE, LDPRSE

class RSEParams(NamedTuple):
    epsilon: jax.Array  # ε of ε-DP
    v: jax.Array        # moment order
    u: jax.Array        # moment bound
    beta: jax.Array     # failure probability; 0: 1/T (Theorem 4)
    theta: jax.Array    # elimination threshold θ·err_τ; 12 in the paper (R_τ ∝ (2θ)^{(1+v)/v})
    horizon: jax.Array  # T (for β = 1/T); 0: the run's
    noise: jax.Array    # int: 1 discrete Laplace releases (floating-point safe, default), 0 the float draw


class LDPRSEParams(NamedTuple):
    epsilon: jax.Array  # ε of ε-LDP
    v: jax.Array
    u: jax.Array
    beta: jax.Array     # 0: 1/T (Theorem 7)
    theta: jax.Array    # 14 in the paper (R_τ ∝ (2θ)^{2(1+v)/v})
    horizon: jax.Array
    literal: jax.Array  # int32 0: the proofs' variant (D_τ = 2^-τ, err′ with √R_τ; default); 1: the box as printed
    noise: jax.Array    # int: 1 discrete Laplace reports (floating-point safe, default), 0 the float draw


class RSEState(NamedTuple):
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


def ldp_rse_schedule(n_active, epoch, params, dtype=None):
    """(R_τ real, B_τ, err_τ, L_τ) of LDPRSE's epoch τ (Algorithm 4, spec §2.4), L_τ = log(8|S|τ²/β):
    R_τ = ⌈u^{2/v} (2θ)^{2(1+v)/v} L_τ/(ε² D_τ^{2(1+v)/v}) + L_τ⌉, B_τ = (u √R_τ ε/√L_τ)^{1/(1+v)}.
    Proofs' variant (``literal`` = 0): D_τ = 2^-τ and err′_τ = u^{1/(1+v)} (√L_τ/(√R_τ ε))^{v/(1+v)} (eq. 24, so
    28 err′_τ <= D_τ). Literal (1): D_τ = 4^-τ and err_τ = u^{1/(1+v)} (√L_τ/(R_τ ε))^{v/(1+v)} as the box prints
    them (flags A and B of spec §2.4: this threshold falls far below the Laplace noise)."""
    dtype = dtype or jnp.result_type(float)
    v, u, eps = (jnp.asarray(x, dtype) for x in (params.v, params.u, params.epsilon))
    literal = params.literal > 0
    log_l = _log_l(n_active, epoch, params, 8.0, dtype)
    tau = jnp.asarray(epoch).astype(dtype)
    gap = jnp.where(literal, jnp.exp2(-2 * tau), jnp.exp2(-tau))
    power = 2 * (1 + v) / v
    r = jnp.ceil(u ** (2 / v) * (2 * params.theta.astype(dtype)) ** power * log_l / (eps * eps * gap ** power) + log_l)
    bound = (u * jnp.sqrt(r) * eps / jnp.sqrt(log_l)) ** (1 / (1 + v))
    denominator = jnp.where(literal, r, jnp.sqrt(r)) * eps
    err = u ** (1 / (1 + v)) * (jnp.sqrt(log_l) / denominator) ** (v / (1 + v))
    return r, bound, err, log_l


def _bind_beta(params, horizon):
    """T (0: the run's) and β (0: 1/T)."""
    params = bind_run_horizon(params, horizon)
    return params._replace(beta=jnp.where(params.beta > 0, params.beta, 1 / params.horizon.astype(params.beta.dtype)))


def _elimination(name, num_arms, schedule, local: bool, defaults, claim):
    K = num_arms

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
            return laplace_noise.draw(key, (steps,), params.noise)
        return laplace_noise.draw(key, (steps, K), params.noise, words_later=True)

    def phase_length(state, params):
        n = jnp.sum(state.active, dtype=jnp.int32)
        return jnp.where(n > 1, state.pulls * n, 0)  # one arm left: it is played to the end

    def select(rng, state, params):
        return round_robin(state.inner.active, state.count)

    def observe(rng, state, arm, obs, params):
        # LDPRSE: x̂ = x̃ + Lap(2B_τ/ε), drawn by the user (Theorem 6's 2B_τ/ε: its proof's B_τ/ε is a typo)
        x = local_report(obs, state.bound, params.epsilon, rng.noise) if local else truncate(obs, state.bound)
        hit = onehot(arm, K) == 1
        total, comp = kahan_add(state.sums, state.comp, x)
        return state._replace(sums=jnp.where(hit, total, state.sums), comp=jnp.where(hit, comp, state.comp))

    def release(rng, state, arm, length, params):
        r = state.pulls.astype(state.sums.dtype)
        means = (state.sums - state.comp) / r
        if not local:  # μ̃_a = μ̄_a + Lap(2B_τ/(R_τ ε)), independent per arm
            means = central_release(means, state.bound, r, params.epsilon,
                                    laplace_noise.with_words(rng.noise, rng.key))
        _, _, err, _ = schedule(jnp.sum(state.active, dtype=jnp.int32), state.epoch, params)
        # err_τ with the rounded (uncapped) R_τ: the R_τ this epoch used when it is not capped
        active = eliminate(state.active, means, params.theta * err)
        epoch = state.epoch + 1
        zero = jnp.zeros_like(state.sums)
        return RSEState(active, zero, zero, epoch, *start(active, epoch, params))

    def validate(params):
        _validate_common(params)
        checks.in_range("beta", params.beta, 0.0, 1.0, high_open=True)
        checks.in_range("theta", params.theta, 0.0, low_open=True, high_open=True)
        checks.in_set("noise", params.noise, (0, 1))
        if local and int(params.literal) not in (0, 1):
            raise ValueError(f"literal={checks._fmt(params.literal)} must be 0 (the proofs' variant) or 1 (the "
                             "algorithm box as printed)")

    policy = phased(name, K, init=init, phase_length=phase_length, select=select, observe=observe, release=release,
                    draw=draw, validate=validate, default_params=defaults)
    policy = policy._replace(check_horizon=_check_k(name, K), bind_horizon=_bind_beta, privacy=claim)
    return policy._replace(phase_rollout=lambda env, horizon, times: elimination_rollout(
        policy, env, horizon=horizon, record_times=times))


_rse_claim = epsilon_claim("Tao et al. 2022, Theorem 3: each reward enters one epoch mean (sensitivity 2B_τ/R_τ, "
                           "Lap(2B_τ/(R_τ ε))), epochs and arms disjoint (parallel composition)", _DP)


def _ldp_claim(params, horizon):
    variant = "literal box" if int(params.literal) else "proofs' variant"
    return Claim(float(params.epsilon), 0.0, _LDP, f"Tao et al. 2022, Theorem 6 ({variant}): x̃ in [−B_τ, B_τ] "
                 "plus Lap(2B_τ/ε) per reward")


def dp_rse(num_arms: int) -> Policy:
    """DPRSE: ε-DP robust successive elimination (seed 004 Algorithm 3, Theorems 3–4).

    Epoch τ pulls each of the |S| viable arms R_τ times round-robin (`rse_schedule`), truncates at B_τ, releases
    μ̃_a = epoch mean + Lap(2B_τ/(R_τ ε)) and eliminates the arms with max μ̃ − μ̃_a > θ·err_τ (θ = 12); each epoch
    forgets the last one's rewards. One arm left: it is played to T (the run stops at T, mid-epoch if it comes).
    Written on `phased`; `elimination_rollout` simulates the same law epoch by epoch."""
    return _elimination("dp-rse", num_arms, rse_schedule, False,
                        RSEParams(*map(jnp.asarray, (1.0, 0.5, 1.0, 0.0, 12.0, 0.0, 1))), _rse_claim)


def ldp_rse(num_arms: int) -> Policy:
    """LDPRSE: ε-LDP robust successive elimination (seed 004 Algorithm 4, Theorems 6–7).

    Like `dp_rse`, but every reward is truncated at B_τ and privatized by its user as x̃ + Lap(2B_τ/ε) before the
    learner sees it (`ldp_rse_schedule`; θ = 14, L_τ = log(8|S|τ²/β)). ``literal`` picks the variant: 0 (default)
    the proofs' D_τ = 2^-τ and err′_τ with √R_τ; 1 the box's D_τ = 4^-τ and R_τ in err_τ (spec §2.4 flags A, B).
    The privatization is inside the policy because B_τ is the policy's (public) epoch state; use it with the
    identity privatizer."""
    return _elimination("ldp-rse", num_arms, ldp_rse_schedule, True,
                        LDPRSEParams(*map(jnp.asarray, (1.0, 0.5, 1.0, 0.0, 14.0, 0.0)), jnp.asarray(0, jnp.int32),
                                     jnp.asarray(1, jnp.int32)),
                        _ldp_claim)


# --------------------------------------------------------------------------------- epoch-by-epoch simulation

# R_τ >= 2 grows about 4x per epoch once its first term exceeds 1 (D_τ halves, power (1+v)/v >= 2): 40 epochs
# outlast 2^31 rounds unless ε is astronomically large. The epoch simulation plays its 40th epoch to T without a
# release (the per-step policy would go on).
MAX_EPOCHS = 40


class EpochTrace(NamedTuple):
    """What `elimination_rollout`'s ``run`` returns for one run.

    Attributes:
      pseudo_regret: f[n_rec] Σ_a Δ_a N_a(t) at the record times (exact: play is round-robin within an epoch).
      regret: f[n_rec] realized regret μ* t − Σ_{s<=t} x_s at the record times.
      counts: int32[K] pulls per arm at the horizon.
      eliminated: int32[K] the epoch at whose end the arm was eliminated (0: never).
      epochs: int32 epochs completed (releases made) within the horizon.
    """

    pseudo_regret: jax.Array
    regret: jax.Array
    counts: jax.Array
    eliminated: jax.Array
    epochs: jax.Array


def elimination_rollout(policy: Policy, env, *, horizon: int, record_times=None, chunk: int = 4096):
    """DPRSE or LDPRSE simulated epoch by epoch: ``run(key, env_params, policy_params) -> EpochTrace``, pure.

    An epoch's length R_τ·|S| depends only on public quantities and its play is round-robin over the viable arms,
    so the policy needs no step: each epoch draws its rounds' rewards ``chunk`` rounds at a time (and, for LDPRSE,
    the users' Laplace noise) and reduces them to the arms' truncated sums (Kahan-compensated across chunks) and
    to the realized regret at the record times; the pull counts and the pseudo-regret follow from the schedule.
    It is the law of the per-step policy (`dp_rse`, `ldp_rse` under the engine), not its random stream
    (tests/test_heavy_tailed.py compares the two). An epoch cut by T releases nothing; one arm left is played to
    T; the `MAX_EPOCHS`-th epoch is played to T without a release (unreachable at any sensible ε). ``record_times``: as for `jaxbandit.rollout` (default 100 points, always T). ``jaxbandit.sweep(...,
    simulator="epochs")`` runs it over runs and grids.
    """
    from jaxbandit import validation  # validation imports the registries, which import this module

    if policy.name not in ("dp-rse", "ldp-rse"):
        raise ValueError(f"policy={policy.name!r}: the epoch simulation runs dp-rse and ldp-rse only")
    if policy.num_arms != env.num_arms:
        raise ValueError(f"policy has {policy.num_arms} arms but the environment has {env.num_arms}")
    horizon, times = validation.horizon_and_records(horizon, record_times)
    checks.positive_int("chunk", chunk)
    local = policy.name == "ldp-rse"
    schedule = ldp_rse_schedule if local else rse_schedule
    K = env.num_arms
    rec_times = np.asarray(times, np.int64)

    def play(key, t0, length, active, bound, mu_star, params_env, params_pol, acc):
        """Rounds t0 + 1 .. t0 + length, round-robin over ``active``: the arms' truncated (privatized) sums and the
        realized regret μ* − x_s accumulated into ``acc`` = (sums, comp, rec_sums, rec_comp) (Kahan pairs; summing
        μ* − x_s, not x_s, keeps μ* t − Σ x_s free of cancellation, as the engine does)."""
        rec = jnp.asarray(rec_times, jnp.int32)
        order = jax.vmap(round_robin, in_axes=(None, 0))  # the policy's own order within a phase

        def body(c, acc):
            sums, comp, rec_sums, rec_comp = acc
            k = jax.random.fold_in(key, c)
            ke, kn, kk = jax.random.split(k, 3)
            i = c * chunk + jnp.arange(chunk)                       # offsets within the segment
            valid = i < length
            arm = order(active, i)
            noise = env.draw(ke, chunk, params_env)
            keys = jax.random.split(kk, chunk)
            x = jax.vmap(lambda kk, z, a: env.sample(StepRandom(kk, z), a, params_env))(keys, noise, arm)
            x = jnp.where(valid, x, 0.0)
            if local:
                seen = local_report(x, bound, params_pol.epsilon,
                                    laplace_noise.draw(kn, (chunk,), params_pol.noise, x.dtype))
            else:
                seen = truncate(x, bound)
            hits = (arm[:, None] == jnp.arange(K)) & valid[:, None]
            sums, comp = kahan_add(sums, comp, jnp.sum(jnp.where(hits, seen[:, None], 0.0), axis=0))
            # realized: μ* − x_s of this chunk's rounds up to each record time
            csum = jnp.concatenate([jnp.zeros(1, x.dtype), jnp.cumsum(jnp.where(valid, mu_star - x, 0.0))])
            upto = jnp.clip(rec - (t0 + c * chunk), 0, chunk)
            rec_sums, rec_comp = kahan_add(rec_sums, rec_comp, csum[upto])
            return sums, comp, rec_sums, rec_comp

        return jax.lax.fori_loop(0, (length + chunk - 1) // chunk, body, acc)

    def run(key, env_params, policy_params) -> EpochTrace:
        params = policy.bind_horizon(policy_params, horizon)
        means = env.means(env_params)
        mu_star = jnp.max(means)
        gaps = mu_star - means
        T = jnp.asarray(horizon, jnp.int32)
        dtype = means.dtype

        class Loop(NamedTuple):
            t: jax.Array
            active: jax.Array
            epoch: jax.Array
            counts: jax.Array
            eliminated: jax.Array
            starts: jax.Array     # int32[MAX_EPOCHS + 1]: the round each segment starts after
            masks: jax.Array      # bool[MAX_EPOCHS + 1, K]: its viable arms
            base: jax.Array       # int32[MAX_EPOCHS + 1, K]: pulls before it
            rec: tuple            # Kahan pair of the realized regret at each record time
            done: jax.Array

        def body(s: Loop):
            n = jnp.sum(s.active, dtype=jnp.int32)
            r_real, bound, err, _ = schedule(n, s.epoch, params)
            pulls = capped_pulls(r_real, n)
            # a whole epoch before T (else: the last segment); the segment table holds MAX_EPOCHS of them
            fits = (n > 1) & (pulls * n <= T - s.t) & (s.epoch < MAX_EPOCHS)
            slot = s.epoch - 1
            k_play, k_release = jax.random.split(jax.random.fold_in(key, s.epoch))
            zero = jnp.zeros(K, dtype)
            length = jnp.where(fits, pulls * n, T - s.t)
            sums, comp, rec_sums, rec_comp = play(k_play, s.t, length, s.active, bound, mu_star, env_params, params,
                                                  (zero, zero) + s.rec)
            r = pulls.astype(dtype)
            est = (sums - comp) / r
            if not local:
                est = central_release(est, bound, r, params.epsilon,
                                      laplace_noise.draw(k_release, (K,), params.noise, dtype))
            keep = eliminate(s.active, est, params.theta * err)
            return Loop(s.t + length, jnp.where(fits, keep, s.active), s.epoch + fits,
                        s.counts + jnp.where(fits, pulls * s.active, 0),
                        jnp.where(fits & s.active & ~keep, s.epoch, s.eliminated),
                        s.starts.at[slot].set(s.t), s.masks.at[slot].set(s.active), s.base.at[slot].set(s.counts),
                        (rec_sums, rec_comp), ~fits)

        n_rec = len(rec_times)
        init = Loop(jnp.zeros((), jnp.int32), jnp.ones(K, bool), jnp.ones((), jnp.int32), jnp.zeros(K, jnp.int32),
                    jnp.zeros(K, jnp.int32), jnp.full(MAX_EPOCHS + 1, horizon + 1, jnp.int32),
                    jnp.zeros((MAX_EPOCHS + 1, K), bool), jnp.zeros((MAX_EPOCHS + 1, K), jnp.int32),
                    (jnp.zeros(n_rec, dtype), jnp.zeros(n_rec, dtype)), jnp.zeros((), bool))
        s = jax.lax.while_loop(lambda s: ~s.done, body, init)

        def pulls_at(t):
            """N_a(t): the segment holding round t, its full round-robin rounds, then its first arms."""
            seg = jnp.sum(s.starts < t) - 1
            mask, start = s.masks[seg], s.starts[seg]
            n = jnp.maximum(jnp.sum(mask, dtype=jnp.int32), 1)
            q, rem = jnp.divmod(t - start, n)
            rank = jnp.cumsum(mask.astype(jnp.int32)) - 1
            return s.base[seg] + mask * (q + (rank < rem))

        rec = jnp.asarray(rec_times, jnp.int32)
        pulls = jax.vmap(pulls_at)(rec)
        pseudo = jnp.sum(pulls.astype(dtype) * gaps, axis=1)
        realized = s.rec[0] - s.rec[1]
        return EpochTrace(pseudo, realized, pulls_at(T), s.eliminated, s.epoch - 1)

    return run


def fluid_regret(name: str, means, horizon: int, times=None, **params):
    """The noise-free ("fluid") pseudo-regret of DPRSE or LDPRSE (spec 004 §6.4): the epochs of the schedule, with
    every estimate equal to its arm's mean, so that arm a is eliminated at the end of the first epoch whose
    threshold θ·err_τ is below its gap. ``params``: the policy's (ε, v, u, β, θ, literal; β = 0: 1/T). Returns the
    pseudo-regret at ``times`` (default: T alone) as float64, exact for that noise-free play (round-robin within
    epochs). The spec's oracles at T = 10^7, v = 0.9, ε = 1, β = 1/T: regret/T = 0.201 (S1), 0.174 (S2), 0.159 (S3)."""
    from jaxbandit import policies as registry
    means = np.asarray(means, np.float64)
    pol, pp = registry.make(name, len(means), **params)
    pp = pol.bind_horizon(pp, horizon)
    schedule = ldp_rse_schedule if name == "ldp-rse" else rse_schedule
    gaps = means.max() - means
    active = np.ones(len(means), bool)
    segments = []  # (start, active mask, pulls before it)
    t, epoch, counts = 0, 1, np.zeros(len(means), np.int64)
    while True:
        n = int(active.sum())
        r, _, err, _ = (float(x) for x in schedule(jnp.int32(n), jnp.int32(epoch), pp))
        segments.append((t, active.copy(), counts.copy()))
        if n == 1 or t + r * n > horizon:
            break
        t += int(r) * n
        counts = counts + int(r) * active
        active = active & ~(gaps > float(pp.theta) * err)
        epoch += 1
    times = np.asarray([horizon] if times is None else times, np.int64)
    out = np.empty(len(times))
    for i, s in enumerate(times):
        start, mask, base = [seg for seg in segments if seg[0] < s or seg[0] == 0][-1]
        q, rem = divmod(int(s) - start, int(mask.sum()))
        pulls = base + mask * q + (mask & (np.cumsum(mask) - 1 < rem))
        out[i] = float(np.dot(pulls, gaps))
    return out
