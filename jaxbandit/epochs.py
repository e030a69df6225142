"""The epoch-by-epoch simulator: a second implementation of the engine's interface (`jaxbandit.engine.rollout`:
``run(key, params) -> Trace``) for the phased elimination policies whose epochs have data-independent lengths and
round-robin play (seed 004's DPRSE and LDPRSE), so that a whole epoch is simulated at once: the same law as the
per-step policy, not its random stream. ``jaxbandit.sweep(..., simulator="epochs")`` runs it; `fluid_regret` is
the same schedule without noise (spec 004 §6.4).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, engine, policies
from jaxbandit.envs.distributions import pick_by_selects
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.mechanisms.truncated_mean import central_release, local_report, truncate
from jaxbandit.policies.common import capped_pulls, kahan_add
from jaxbandit.policies.elimination import eliminate
from jaxbandit.policies.phased import round_robin
from jaxbandit.types import Simulator, StepRandom

__all__ = ["SIMULATOR", "supports", "unsupported", "rollout", "EpochTrace", "MAX_EPOCHS", "fluid_regret"]

# The policies this simulator knows, by registry name: their epoch schedule (from a policy's options) and whether
# the learner sees locally privatized rewards.
def supports(policy) -> bool:
    """Whether ``policy`` has an epoch-by-epoch simulation: it declares its epoch schedule (`Policy.epochs`)."""
    return getattr(policy, "epochs", None) is not None


def unsupported(env, policy, privatizer=None) -> str | None:
    """Why the epoch simulation cannot run these components, or ``None`` where it can."""
    if not supports(policy):
        return (f"policy={policy.name!r} has no epoch-by-epoch simulation (only a policy that declares its epoch "
                "schedule, Policy.epochs: dp-rse, ldp-rse): use simulator='steps'")
    if getattr(env, "context", None) is not None:
        return (f"simulator='epochs' draws each arm's rewards without a context; env {env.name!r} emits one each "
                "round: use simulator='steps'")
    if privatizer is not None and privatizer.name != "identity":
        return (f"simulator='epochs' takes the identity privatizer ({policy.name} privatizes inside if it is "
                f"local), got {privatizer.name!r}")
    try:
        engine.check_arms(env, policy)
    except ValueError as err:
        return str(err)
    return None


def _family(policy):
    if not supports(policy):
        raise ValueError(unsupported(None, policy))
    return policy.epochs


# R_τ >= 2 grows about 4x per epoch once its first term exceeds 1 (D_τ halves, power (1+v)/v >= 2): 40 epochs
# outlast 2^31 rounds unless ε is astronomically large. The epoch simulation plays its 40th epoch to T without a
# release (the per-step policy would go on).
MAX_EPOCHS = 40


class EpochTrace(NamedTuple):
    """What `rollout`'s ``run`` returns for one run: a `jaxbandit.engine.Trace` and two more fields.

    Attributes:
      pseudo_regret: f[n_rec] Σ_a Δ_a N_a(t) at the record times (exact: play is round-robin within an epoch).
      regret: f[n_rec] realized regret μ* t − Σ_{s<=t} x_s at the record times (None: ``realized=False``).
      counts: int32[K] pulls per arm at the horizon.
      eliminated: int32[K] the epoch at whose end the arm was eliminated (0: never).
      epochs: int32 epochs completed (releases made) within the horizon.
    """

    pseudo_regret: jax.Array
    regret: jax.Array
    counts: jax.Array
    eliminated: jax.Array
    epochs: jax.Array


def rollout(env, policy, privatizer=None, *, horizon: int, record_times=None, chunk: int = 4096,
            realized: bool = True):
    """DPRSE or LDPRSE simulated epoch by epoch: ``run(key, params: SimParams) -> EpochTrace``, pure, the interface
    of `jaxbandit.engine.rollout` (``privatizer``: the identity only; LDPRSE privatizes inside).

    An epoch's length R_τ·|S| depends only on public quantities and its play is round-robin over the viable arms,
    so the policy needs no step: each epoch draws its rounds' rewards ``chunk`` rounds at a time (and, for LDPRSE,
    the users' Laplace noise) and reduces them to the arms' truncated sums (Kahan-compensated across chunks) and
    to the realized regret at the record times; the pull counts and the pseudo-regret follow from the schedule.
    It is the law of the per-step policy (`dp_rse`, `ldp_rse` under the engine), not its random stream
    (tests/test_heavy_tailed.py compares the two). An epoch cut by T releases nothing; one arm left is played to
    T; the `MAX_EPOCHS`-th epoch is played to T without a release (unreachable at any sensible ε).
    ``record_times``: as for `jaxbandit.rollout` (default 100 points, always T). ``jaxbandit.sweep(...,
    simulator="epochs")`` runs it over runs and grids.

    ``realized=False`` records the pseudo-regret only (the trace's ``regret`` is None). Then a segment that ends
    without a release (one arm left, or an epoch cut by T) decides nothing, so none of its rewards is drawn: its
    pulls and pseudo-regret follow from the schedule alone. On seed 004's S1 at T = 10^6 that leaves the first two
    or three epochs, about 1% of the rounds, to simulate. The pseudo-regret and the pull counts are the same
    numbers as with ``realized=True`` (the same keys for the epochs that are simulated).
    """
    reason = unsupported(env, policy, privatizer)
    if reason:
        raise ValueError(reason)
    schedule, local = _family(policy)
    horizon, times = engine.horizon_and_records(horizon, record_times)
    checks.positive_int("chunk", chunk)
    release = dict(policy.options)["release"]
    K = env.num_arms
    rec_times = np.asarray(times, np.int64)

    def play(key, t0, length, active, bound, mu_star, params_env, params_pol, acc):
        """Rounds t0 + 1 .. t0 + length, round-robin over ``active``: the arms' truncated (privatized) sums and
        (``realized``) the realized regret μ* − x_s accumulated into ``acc`` = (sums, comp[, rec_sums, rec_comp])
        (Kahan pairs; summing μ* − x_s, not x_s, keeps μ* t − Σ x_s free of cancellation, as the engine does)."""
        rec = jnp.asarray(rec_times, jnp.int32)
        # The policy's order within a phase (`round_robin`): round i plays the (i mod n)-th active arm. Each rank's
        # arm is found once per segment and a round's arm is picked by a chain of selects on its rank, elementwise
        # work that fuses with the reward's (an argmax per round, and the sums by a one-hot over the arms, took 30%
        # of DPRSE's time).
        n = jnp.maximum(jnp.sum(active, dtype=jnp.int32), 1)
        arm_of_rank = [round_robin(active, jnp.int32(r)) for r in range(K)]

        def body(c, acc):
            sums, comp = acc[:2]
            k = jax.random.fold_in(key, c)
            ke, kn, kk = jax.random.split(k, 3)
            i = c * chunk + jnp.arange(chunk)                       # offsets within the segment
            valid = i < length
            slot = i % n
            arm = arm_of_rank[0]
            for r in range(1, K):
                arm = jnp.where(slot == r, arm_of_rank[r], arm)
            noise = env.draw(ke, chunk, params_env)
            keys = jax.random.split(kk, chunk)
            with pick_by_selects():  # an arm's parameters for every round: selects, not a one-hot sum
                x = jax.vmap(lambda kk, z, a: env.sample(StepRandom(kk, z), a, params_env))(keys, noise, arm)
            x = jnp.where(valid, x, 0.0)
            if local:
                seen = local_report(x, bound, params_pol.epsilon,
                                    laplace_noise.draw(kn, (chunk,), release, x.dtype))
            else:
                seen = truncate(x, bound)
            # each arm's sum over the chunk: K reductions along the rounds (one over the arms per round was slow)
            sums, comp = kahan_add(sums, comp, jnp.stack([jnp.sum(jnp.where((arm == a) & valid, seen, 0.0))
                                                          for a in range(K)]))
            if not realized:
                return sums, comp
            rec_sums, rec_comp = acc[2:]
            # realized: μ* − x_s of this chunk's rounds up to each record time
            csum = jnp.concatenate([jnp.zeros(1, x.dtype), jnp.cumsum(jnp.where(valid, mu_star - x, 0.0))])
            upto = jnp.clip(rec - (t0 + c * chunk), 0, chunk)
            rec_sums, rec_comp = kahan_add(rec_sums, rec_comp, csum[upto])
            return sums, comp, rec_sums, rec_comp

        return jax.lax.fori_loop(0, (length + chunk - 1) // chunk, body, acc)

    def run(key, sim_params) -> EpochTrace:
        env_params = sim_params.env
        params = policy.bind_horizon(sim_params.policy, horizon)
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
            rec: tuple            # Kahan pair of the realized regret at each record time (empty: not recorded)
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
            # without the realized regret, a segment without a release (the last one) needs no rewards
            played = length if realized else jnp.where(fits, length, 0)
            sums, comp, *rec = play(k_play, s.t, played, s.active, bound, mu_star, env_params, params,
                                    (zero, zero) + s.rec)
            r = pulls.astype(dtype)
            est = (sums - comp) / r
            if not local:
                est = central_release(est, bound, r, params.epsilon,
                                      laplace_noise.draw(k_release, (K,), release, dtype))
            keep = eliminate(s.active, est, params.theta * err)
            return Loop(s.t + length, jnp.where(fits, keep, s.active), s.epoch + fits,
                        s.counts + jnp.where(fits, pulls * s.active, 0),
                        jnp.where(fits & s.active & ~keep, s.epoch, s.eliminated),
                        s.starts.at[slot].set(s.t), s.masks.at[slot].set(s.active), s.base.at[slot].set(s.counts),
                        tuple(rec), ~fits)

        n_rec = len(rec_times)
        init = Loop(jnp.zeros((), jnp.int32), jnp.ones(K, bool), jnp.ones((), jnp.int32), jnp.zeros(K, jnp.int32),
                    jnp.zeros(K, jnp.int32), jnp.full(MAX_EPOCHS + 1, horizon + 1, jnp.int32),
                    jnp.zeros((MAX_EPOCHS + 1, K), bool), jnp.zeros((MAX_EPOCHS + 1, K), jnp.int32),
                    (jnp.zeros(n_rec, dtype), jnp.zeros(n_rec, dtype)) if realized else (), jnp.zeros((), bool))
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
        regret = s.rec[0] - s.rec[1] if realized else None
        return EpochTrace(pseudo, regret, pulls_at(T), s.eliminated, s.epoch - 1)

    return run


def fluid_regret(name: str, means, horizon: int, times=None, options=None, **params):
    """The noise-free ("fluid") pseudo-regret of DPRSE or LDPRSE (spec 004 §6.4): the epochs of the schedule, with
    every estimate equal to its arm's mean, so that arm a is eliminated at the end of the first epoch whose
    threshold θ·err_τ is below its gap. ``params``: the policy's (ε, v, u, β, θ; β = None: 1/T); ``options``: its
    build-time options (e.g. ``{"variant": "printed"}`` for LDPRSE's box as printed). Returns the
    pseudo-regret at ``times`` (default: T alone) as float64, exact for that noise-free play (round-robin within
    epochs). The spec's oracles at T = 10^7, v = 0.9, ε = 1, β = 1/T: regret/T = 0.201 (S1), 0.174 (S2), 0.159 (S3)."""
    means = np.asarray(means, np.float64)
    pol, pp = policies.make(name, len(means), options=options, **params)
    pp = pol.bind_horizon(pp, horizon)
    schedule, _ = _family(pol)
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


#: The epoch-by-epoch simulator as a component (`jaxbandit.types.Simulator`): each run in one piece.
SIMULATOR = Simulator(
    "epochs", lambda env, policy, privatizer, *, horizon, record_times, unroll, realized: rollout(
        env, policy, privatizer, horizon=horizon, record_times=record_times, realized=realized),
    chunked=False, unsupported=unsupported)
