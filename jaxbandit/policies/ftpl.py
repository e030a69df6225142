"""Seed 003 (Wang & Zhu, "Optimal Learning Policies for Differential Privacy in Multi-armed Bandits", JMLR 25,
2024): differentially private follow-the-perturbed-leader, `dp-ftpl-gauss` (Algorithm 1), `dp-ftpl-beta`
(Algorithm 2) and `dp-ftpl-new` (Algorithm 3), and its globally private elimination algorithm `gdp-elim-new`
(Algorithm 4).

DP-FTPL draws θ_i independently per arm from a distribution built from arm i's own statistics (pulls n_i, ones
R_i) each step and plays argmax θ (ties have probability zero); by the paper's Lemma 8 the policy is (ε, δ)-DP in
the one-step sense of its Definition 1 (`jaxbandit.mechanisms.perturbations` holds the distributions and the band check).
Rewards in [0, 1] enter as a Bernoulli trial (Agrawal & Goyal), so R_i counts ones; on Bernoulli arms the trial is
the reward itself. GDP-Elim-New pulls every arm N(k) times in phase k and commits to an arm once a draw from the
same truncated-Laplace law, centred on the phase's means, separates it by 2^-k: (ε, δ)-global DP (Definition 3)
by Lemma 9. ε and δ are traced parameters: an (ε, δ) grid is one compilation, start phases and phase lengths
included. Each policy states its claim through its accountant (``Policy.accountant``, printed by ``jaxbandit
privacy``).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxbandit import checks
from jaxbandit.accounting.accountants import Accountant, epsilon_delta_of
from jaxbandit.mechanisms import normal as normal_noise
from jaxbandit.mechanisms import perturbations as dist
from jaxbandit.policies.common import bind_run_horizon, capped_pulls, check_known_horizon, kahan_add, onehot
from jaxbandit.policies.phased import phased
from jaxbandit.random import samplers
from jaxbandit.types import Policy
from jaxbandit.registry import POLICIES, Golden

__all__ = ["dp_ftpl_gauss", "dp_ftpl_beta", "dp_ftpl_new", "gdp_elim_new", "FTPLParams", "NewParams",
           "FTPLState", "ElimState", "start_pulls", "elim_phase_pulls", "MAX_EPSILON"]

_DP = "one reward changed; the output is each arm choice given the history (Wang & Zhu 2024, Def. 1)"
_GLOBAL_DP = ("one reward changed; the output is the whole action sequence under any revision rule with at most one "
              "expected revision (Wang & Zhu 2024, Def. 3: global DP)")


class FTPLParams(NamedTuple):
    """DP-FTPL-Gauss's and DP-FTPL-Beta's (ε, δ), per round."""
    epsilon: jax.Array  # privacy level ε ≥ 0
    delta: jax.Array    # δ in (0, 1)


class NewParams(NamedTuple):
    """DP-FTPL-New's and GDP-Elim-New's (ε, δ) and the horizon T their schedules use."""
    epsilon: jax.Array  # ε ≥ 0
    delta: jax.Array    # δ in [0, 1), not both 0
    horizon: jax.Array | None  # T, known to the algorithm (log T and L_T); None: the run's horizon


class FTPLState(NamedTuple):
    """DP-FTPL's statistics per arm (ones among the rewards, pull counts) and the round."""
    ones: jax.Array    # int32[K]: R_i, Bernoulli trials equal to 1 (an integer: a float32 count stops at 2^24)
    counts: jax.Array  # int32[K]: n_i
    step: jax.Array    # int32: rounds played


def start_pulls(name: str, epsilon, delta):
    """Pulls per arm of the start phase: ⌈N_G*⌉ (Gauss), ⌈N_B*⌉ (Beta), 1 (New) (seed 003, Algorithms 1–3)."""
    if name == "dp-ftpl-gauss":
        return jnp.ceil(dist.gauss_start(epsilon, delta)).astype(jnp.int32)
    if name == "dp-ftpl-beta":
        return jnp.ceil(dist.beta_start(epsilon, delta)).astype(jnp.int32)
    return jnp.ones((), jnp.int32)


def _init(num_arms):
    def init(params):
        return FTPLState(jnp.zeros(num_arms, jnp.int32), jnp.zeros(num_arms, jnp.int32), jnp.zeros((), jnp.int32))
    return init


def _update(num_arms):
    def update(rng, state, arm, obs, params):
        u = rng.drawn[-1]
        trial = (u < obs).astype(jnp.int32)  # Agrawal–Goyal: a reward in [0, 1] as a Bernoulli trial
        hit = onehot(arm, num_arms)
        return FTPLState(state.ones + hit * trial, state.counts + hit, state.step + 1)
    return update


def _start(num_arms, pulls, state, sampled):
    """Block order: arm 0 ``pulls`` times, then arm 1, ...; afterwards the sampled arm."""
    forced = state.step < pulls * num_arms
    return jnp.where(forced, state.step // jnp.maximum(pulls, 1), sampled).astype(jnp.int32)


def _check_start(name, num_arms, params, horizon):
    pulls = int(start_pulls(name, params.epsilon, params.delta))
    if pulls * num_arms >= horizon:
        raise ValueError(f"{name}'s start phase, {pulls} pulls of each of {num_arms} arms (epsilon="
                         f"{checks._fmt(params.epsilon)}, delta={checks._fmt(params.delta)}), takes "
                         f"{pulls * num_arms} >= horizon={horizon} rounds: raise epsilon or delta, or the horizon")


def _accountant(source, protects=_DP, scope="round"):
    """(ε, δ) as the parameters state them; a budget (ε, δ) sets both."""
    def boundary(budget, params, horizon, num_arms):
        if budget.mu is not None:
            raise ValueError(f"a mu budget ({budget}) does not apply to an (epsilon, delta) claim: give (epsilon, "
                             "delta)")
        return {"epsilon": budget.epsilon, "delta": budget.delta}
    return Accountant("approx-dp", scope, epsilon_delta_of(), protects, source, calibrated="epsilon",
                      boundary=boundary)


MAX_EPSILON = 50.0  # e^ε overflows float32 beyond ε ≈ 88; at ε = 50 the truncated Laplace law protects nothing


def _validate_new(name, num_arms):
    def validate(params, horizon=None):
        checks.in_range("epsilon", params.epsilon, 0.0, MAX_EPSILON)
        checks.in_range("delta", params.delta, 0.0, 1.0, high_open=True)
        check_known_horizon(params)  # log T > 0 and N(1) ≥ 1 need T ≥ 2
        if float(params.epsilon) == 0 and float(params.delta) == 0:
            raise ValueError(f"{name} needs epsilon > 0 or delta > 0 (epsilon=0 and delta=0 give no distribution, "
                             "Lemma 15)")
        if horizon is not None and num_arms > horizon:
            raise ValueError(f"{name} pulls each of its {num_arms} arms first: horizon={horizon} is too short")
    return validate


def _validate_gauss_beta(name, num_arms):
    def validate(params, horizon=None):
        checks.in_range("epsilon", params.epsilon, 0.0, high_open=True)
        checks.in_range("delta", params.delta, 0.0, 1.0, low_open=True, high_open=True)
        if horizon is not None:
            _check_start(name, num_arms, params, horizon)
    return validate


def dp_ftpl_gauss(num_arms: int, *, release: str = "tail-safe") -> Policy:
    """DP-FTPL-Gauss: ⌈N_G*⌉ start pulls per arm, then θ_i ~ N(R_i/n_i, 2/n_i), argmax (DP-FTPL, Alg. 1).

    N_G* = min{1/(4πδ²), log(e/(4πδ²))/ε²} (§4.1) makes each step (ε, δ)-DP (Lemma 8); δ > 0 is required.
    ``release``: ``"tail-safe"`` (default) draws the Gaussians with tails to 2^-73
    (`jaxbandit.mechanisms.normal.normal`), ``"float"`` with ``jax.random.normal``."""
    checks.known_name("normal release", release, normal_noise.RELEASES)
    pulls = lambda params: start_pulls("dp-ftpl-gauss", params.epsilon, params.delta)

    def draw(key, steps, params):
        kz, ku = jax.random.split(key)
        return normal_noise.normal(kz, (steps, num_arms), release), jax.random.uniform(ku, (steps,))

    def select(rng, state, params):
        n = jnp.maximum(state.counts, 1).astype(rng.drawn[0].dtype)
        theta = state.ones.astype(n.dtype) / n + rng.drawn[0] * jnp.sqrt(2 / n)
        return _start(num_arms, pulls(params), state, jnp.argmax(theta))

    return Policy("dp-ftpl-gauss", num_arms, _init(num_arms), draw, select, _update(num_arms),
                  _validate_gauss_beta("dp-ftpl-gauss", num_arms), FTPLParams(jnp.asarray(1.0), jnp.asarray(0.01)),
                  reward_range=(0.0, 1.0), options={"release": release},
                  accountant=_accountant("Wang & Zhu 2024, Lemma 8 with the start phase N_G* of §4.1 (Theorem 11)"))


def dp_ftpl_beta(num_arms: int) -> Policy:
    """DP-FTPL-Beta: ⌈N_B*⌉ start pulls per arm, then θ_i ~ Beta with ⌊n_i/8⌋+1 pseudo-counts a side (DP-FTPL, Alg. 2).

    θ_i ~ Beta(R_i+1+k_i, n_i−R_i+1+k_i), k_i = ⌊n_i/8⌋+1.
    N_B* = max{min{40e/(9πδ²), 8000 log(e/(2πδ²))/(81ε²)}, 1000e/(9π)} (§4.2); the k_i pseudo-counts of each side
    are what make it private (without them Lemma 8 fails at every n). Exact Beta draws (`jaxbandit.random.samplers.beta`)."""
    pulls = lambda params: start_pulls("dp-ftpl-beta", params.epsilon, params.delta)

    def draw(key, steps, params):
        kb, ku = jax.random.split(key)
        return samplers.draw_beta_noise(kb, (steps, num_arms)), jax.random.uniform(ku, (steps,))

    def select(rng, state, params):
        k = dist.beta_pseudo_count(state.counts)
        dtype = jnp.result_type(float)
        a = (state.ones + 1 + k).astype(dtype)
        b = (state.counts - state.ones + 1 + k).astype(dtype)
        theta = samplers.beta(rng.key, a, b, rng.drawn[0])
        return _start(num_arms, pulls(params), state, jnp.argmax(theta))

    return Policy("dp-ftpl-beta", num_arms, _init(num_arms), draw, select, _update(num_arms),
                  _validate_gauss_beta("dp-ftpl-beta", num_arms), FTPLParams(jnp.asarray(1.0), jnp.asarray(0.01)),
                  reward_range=(0.0, 1.0),
                  accountant=_accountant("Wang & Zhu 2024, Lemma 8 with the pseudo-counts and start phase N_B* of "
                                         "§4.2 (Theorem 13)"))


def dp_ftpl_new(num_arms: int) -> Policy:
    """DP-FTPL-New: one pull per arm, then θ_i ~ D(n_i; x0_i, ε, δ), the truncated Laplace law (DP-FTPL, Alg. 3).

    The centre is x0_i = R_i/n_i + sqrt(log T/n_i) + L_T/(n_i ε). D is the truncated Laplace law of Lemma 15 (`jaxbandit.mechanisms.perturbations`), sampled exactly by its inverse CDF; it
    meets Lemma 8 at every n ≥ 1, so there is no start phase. T is known to the algorithm: ``horizon`` (default
    ``None``: the run's horizon, set by the drivers). ε = 0 (uniform law, L_T/ε → (T − 2)/(2Tδ)) and δ = 0 (Laplace,
    L_T = log(T/2)) are handled by the same formulas; not both."""

    def draw(key, steps, params):
        kv, ku = jax.random.split(key)
        return jax.random.uniform(kv, (steps, num_arms)), jax.random.uniform(ku, (steps,))

    def select(rng, state, params):
        n = jnp.maximum(state.counts, 1).astype(rng.drawn[0].dtype)
        T = params.horizon.astype(n.dtype)
        x0 = state.ones.astype(n.dtype) / n + jnp.sqrt(jnp.log(T) / n) + dist.tail_log(T, params.epsilon, params.delta) / n
        theta = dist.new_quantile(rng.drawn[0], n, x0, params.epsilon, params.delta)
        return jnp.where(state.step < num_arms, state.step, jnp.argmax(theta)).astype(jnp.int32)

    return Policy("dp-ftpl-new", num_arms, _init(num_arms), draw, select, _update(num_arms),
                  _validate_new("dp-ftpl-new", num_arms), NewParams(jnp.asarray(1.0), jnp.asarray(0.01), None),
                  reward_range=(0.0, 1.0), bind_horizon=bind_run_horizon,
                  accountant=_accountant("Wang & Zhu 2024, Lemma 8 with Lemma 15, for every n >= 1 (Theorem 16)"))


class ElimState(NamedTuple):
    """GDP-Elim-New's state: reward sums (compensated), the phase, its pulls, and the arm committed to."""
    sums: jax.Array       # float[K]: rewards of the current phase (each phase uses fresh data), Kahan-compensated
    comp: jax.Array       # float[K]: their compensation (a phase may hold more than float32's 2^24 exact integers)
    phase: jax.Array      # int32 k, from 1
    pulls: jax.Array      # int32 N(k): pulls of every arm in phase k
    committed: jax.Array  # int32: the arm exploited for good, -1 before the commit


def elim_phase_pulls(phase, params):
    """N(k) = ⌈max{32 log T/Δ(k)², (4/(Δ(k)ε))·log[(T²(e^ε − 1) + T²δ)/(2(e^ε − 1) + T²δ)]}⌉ with Δ(k) = 2^-k (seed 003
    Algorithm 4, line 4; the second term's limit at ε = 0 is 4(T² − 2)/(Δ(k)T²δ)), as a float; ⌈·⌉ is our rounding
    (the paper gives none). Example (spec §3.4): ε = 1, δ = 0.01, T = 10⁶ gives 1769, 7074, 28295, 113177, 452707,
    1810827."""
    dtype = jnp.result_type(float)
    T = params.horizon.astype(dtype)
    gap = jnp.exp2(-phase.astype(dtype))
    n = jnp.maximum(32 * jnp.log(T) / gap ** 2, 4 * dist.gdp_radius(1.0, T, params.epsilon, params.delta) / gap)
    return jnp.ceil(n)


def gdp_elim_new(num_arms: int) -> Policy:
    """GDP-Elim-New: (ε, δ)-global DP elimination with the truncated-Laplace law (DP-FTPL, Alg. 4, Theorem 18).

    Phase k = 1, 2, ... pulls every arm N(k) times (`elim_phase_pulls`; round-robin in arm order, our choice: the
    paper gives no order), then draws θ_i ~ D(N(k); μ̂_i(k), ε, δ/2) around each arm's mean of this phase's rewards
    only; if some θ_i ≥ max_{j≠i} θ_j + 2^-k it plays arm i for the rest of the run (one commit, no arm is ever
    eliminated alone), else phase k + 1 starts. The run stops at T, mid-phase if it comes. Written on `phased`
    (global phases of N(k)·K pulls; the commit is a phase that never ends). Rewards in [0, 1] enter as they are:
    one changed reward moves μ̂_i(k) by at most 1/N(k), the shift Lemma 15 covers. T is known: ``horizon`` (None:
    the run's)."""

    def init(params):
        k = jnp.asarray(1, jnp.int32)
        zero = jnp.zeros(num_arms)
        return ElimState(zero, zero, k, _capped(elim_phase_pulls(k, params)), jnp.asarray(-1, jnp.int32))

    def _capped(n):
        return capped_pulls(n, num_arms)  # N(k)·K fits in int32

    def draw(key, steps, params):
        return jax.random.uniform(key, (steps, num_arms))  # the phase-end draws θ_i, by inverse CDF

    def phase_length(state, params):
        return jnp.where(state.committed >= 0, 0, state.pulls * num_arms)

    def select(rng, state, params):
        inner = state.inner
        return jnp.where(inner.committed >= 0, inner.committed, state.count % num_arms).astype(jnp.int32)

    def observe(rng, state, arm, obs, params):
        hit = onehot(arm, num_arms) == 1
        total, comp = kahan_add(state.sums, state.comp, obs)  # exact for 0/1 rewards below 2^24, compensated beyond
        return state._replace(sums=jnp.where(hit, total, state.sums), comp=jnp.where(hit, comp, state.comp))

    def release_commit(rng, state, arm, length, params):
        n = state.pulls.astype(state.sums.dtype)
        theta = dist.new_quantile(rng.drawn, n, (state.sums - state.comp) / n, params.epsilon, params.delta / 2)
        best = jnp.argmax(theta)
        runner_up = jnp.max(jnp.where(jnp.arange(num_arms) == best, -jnp.inf, theta))
        gap = jnp.exp2(-state.phase.astype(theta.dtype))
        committed = jnp.where(theta[best] >= runner_up + gap, best, -1).astype(jnp.int32)
        k = state.phase + 1
        zero = jnp.zeros_like(state.sums)
        return ElimState(zero, zero, k, _capped(elim_phase_pulls(k, params)), committed)

    policy = phased("gdp-elim-new", num_arms, init=init, phase_length=phase_length, select=select, observe=observe,
                    end_phase=release_commit, draw=draw, validate=_validate_new("gdp-elim-new", num_arms),
                    default_params=NewParams(jnp.asarray(1.0), jnp.asarray(0.01), None), reward_range=(0.0, 1.0))
    return policy._replace(bind_horizon=bind_run_horizon,
                           accountant=_accountant("Wang & Zhu 2024, Lemma 9 with Lemma 15 at δ/2 (Theorem 18)",
                                                  _GLOBAL_DP, scope="run"))


# The registrations (`jaxbandit.registry`): each policy's privacy claim, audits and golden case.
POLICIES.register("dp-ftpl-gauss", dp_ftpl_gauss, private=True, audits=("dp-ftpl-gauss",),
                  golden=Golden(params={"epsilon": 2.0, "delta": 0.05}))
# DP-FTPL-Beta pulls each arm ⌈1000e/(9π)⌉ = 97 times first at least, 827 times at (ε, δ) = (1, 0.01):
# the contract tests' T = 100 cannot hold that
POLICIES.register("dp-ftpl-beta", dp_ftpl_beta, private=True, audits=("dp-ftpl-beta",),
                  golden=Golden(params={"epsilon": 10.0, "delta": 0.05}, contract_horizon=3400))
POLICIES.register("dp-ftpl-new", dp_ftpl_new, private=True, audits=("dp-ftpl-new",),
                  golden=Golden(params={"epsilon": 1.0, "delta": 0.01}, full_horizon=True))
# T known to the algorithm set to 2, so that phase 1 (89 pulls of each arm) ends and commits within the run
POLICIES.register("gdp-elim-new", gdp_elim_new, private=True, audits=("gdp-elim-new",),
                  golden=Golden(env="bernoulli", env_params={"means": [0.2, 0.9]}, params={"epsilon": 5.0, "delta": 0.1, "horizon": 2.0}))
