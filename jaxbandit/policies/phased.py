"""Phased policies: one combinator, `phased`, for policies that act in phases of data-independent length.

Successive elimination (epochs of R_e pulls of every active arm; Even-Dar, Mannor & Mansour, "Action Elimination
and Stopping Conditions for the Multi-Armed Bandit and Reinforcement Learning Problems", JMLR 2006; its private
versions DP-SE, Sajed & Sheffet, ICML 2019, and DPRSE/LDPRSE, Tao et al., AISTATS 2022), doubling batches
(Anytime-Lazy-UCB, Hu, Huang & Mehta, arXiv 2102.07929) and blocks of consecutive pulls (DP-UCB-INT, Tossou &
Dimitrakakis, AAAI 2016) share one shape: the pulls are cut into phases whose length is fixed when the phase starts,
never by the rewards inside it; the policy accumulates each observation, and only at a phase end releases
something (a noisy mean, an elimination, the forgetting of old rewards). The privacy proofs rest on that shape
(each reward enters one release; phases use disjoint rewards), and so can a faster engine: the state says how many
pulls are left in the current phase, so where exact a whole phase can be simulated at once (binomial counts).

`phased` writes the phase bookkeeping once: the counter of pulls in the current phase, the length fixed at its
start, the detection of its end and the release applied only where a phase ends (`when`: fixed shapes,
vmappable, and a batch of runs skips the release at steps where no run needs it). A policy
supplies five pure pieces; phases are either global (one at a time: epochs, blocks) or per arm (each arm's own
phase advances when it is pulled: batches), as the shape of its ``phase_length`` says.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

from jaxbandit.policies.common import inclusive_count, onehot
from jaxbandit.types import EmptyParams, Policy, no_draw, no_validate

__all__ = ["PhasedState", "phased", "round_robin", "when"]

#: `when` under vmap computes ``fn`` for the runs that need it only, gathered into the smallest of these fractions
#: of the batch (1/16, 1/4) that holds them; more, and it computes every run's.
COMPACT_FRACTIONS = (16, 4)


class PhasedState(NamedTuple):
    """State of a phased policy.

    Attributes:
      inner: the policy's own state (statistics, released values, schedule counters).
      count: int32 (global phases) or int32[K] (one phase per arm): pulls made in the current phase.
      length: same shape as ``count``: the current phase's length, fixed when it started (0: it never ends, e.g.
        the commitment to the last arm of successive elimination). ``length - count`` pulls are left in it.
    """

    inner: Any
    count: jax.Array
    length: jax.Array


def phased(name: str, num_arms: int, *, init: Callable, phase_length: Callable, select: Callable,
           observe: Callable, end_phase: Callable | None = None, draw: Callable = no_draw,
           validate: Callable = no_validate, default_params: Any = EmptyParams(), reward_range: tuple | None = None,
           release: Callable | None = None) -> Policy:
    """A `Policy` that acts in phases of data-independent length, from five pure pieces.

    Args:
      name, num_arms, draw, validate, default_params, reward_range: as in `jaxbandit.types.Policy`.
      init: ``(params) -> inner``, the policy's own initial state.
      phase_length: ``(inner, params) -> int32`` the length of the phase starting in state ``inner``; a
        scalar for global phases (one at a time), an int32[K] vector for one phase per arm (only the pulled arm's
        phase advances). 0 means a phase that never ends. Its value is taken at ``init`` and after each release
        only, and stays fixed for the phase (`PhasedState.length`): it must not depend on the rewards of the phase
        it measures, which is what makes the policy phased.
      select: ``(rng, state: PhasedState, params) -> int32 arm``, the choice of a step; ``state.count`` is the
        position in the current phase (e.g. `round_robin` over the active arms, or "keep the block's arm").
      observe: ``(rng, inner, arm, obs, params) -> inner``, run every step: accumulate the observation.
      end_phase: ``(rng, inner, arm, length, params) -> inner``, run when a phase of ``length`` pulls has just
        ended (per arm: ``arm``'s phase), on the state that has observed its last pull: add noise, release,
        eliminate, forget. For per-arm phases it must change only ``arm``'s entries.
      release: the former name of ``end_phase`` (deprecated: ``release`` is also the build-time option that
        chooses how noise is drawn).

    Returns:
      A `Policy` whose state is a `PhasedState`. At most one phase ends per step (the global one, or the pulled
      arm's); the release runs through `when`, so a batch of runs computes it only at steps where some run's
      phase ends (fixed shapes, vmappable); the next phase's length is ``phase_length`` of the released state and
      its count restarts at 0.

    Example: DPRSE, ε-DP robust successive elimination for heavy-tailed rewards with E|X|^{1+v} <= u (Tao, Wu,
    Zhao & Wang, AISTATS 2022, Algorithm 3; spec 004 §2.3). Epoch τ pulls each of the |S| active arms
    R_τ times round-robin, truncates rewards at B_τ (|x| > B_τ becomes 0), releases the epoch mean plus
    Lap(2B_τ/(R_τ ε)) and eliminates the arms more than 12·err_τ below the best, then forgets the epoch's rewards;
    with one arm left the phase never ends (length 0)::

        from jaxbandit.policies import elimination
        from jaxbandit.policies.common import onehot
        from jaxbandit.policies.phased import phased, round_robin

        class DPRSEParams(NamedTuple):
            epsilon: jax.Array; beta: jax.Array; u: jax.Array; v: jax.Array

        class DPRSEState(NamedTuple):
            active: jax.Array  # bool[K]
            sums: jax.Array    # float[K]: truncated rewards of this epoch
            epoch: jax.Array   # int32 τ, from 1
            pulls: jax.Array   # int32 R_τ
            bound: jax.Array   # float B_τ

        def schedule(active, epoch, p):  # (R_τ, B_τ) from |S| and τ only: public quantities
            log_l = jnp.log(4 * jnp.sum(active) * epoch.astype(float) ** 2 / p.beta)
            gap = jnp.exp2(-epoch.astype(float))
            r = jnp.ceil(p.u ** (1 / p.v) * 24 ** ((1 + p.v) / p.v) * log_l / (p.epsilon * gap ** ((1 + p.v) / p.v))
                         + 1)  # cap r·|S| to int32 in real code, as `elimination.epoch_pulls` does
            return r.astype(jnp.int32), (p.u * r * p.epsilon / log_l) ** (1 / (1 + p.v))

        def dprse(num_arms):
            def init(p):
                active, epoch = jnp.ones(num_arms, bool), jnp.int32(1)
                return DPRSEState(active, jnp.zeros(num_arms), epoch, *schedule(active, epoch, p))

            def phase_length(s, p):
                n = jnp.sum(s.active, dtype=jnp.int32)
                return jnp.where(n > 1, s.pulls * n, 0)  # one arm left: play it to the end

            def select(rng, state, p):
                return round_robin(state.inner.active, state.count)

            def observe(rng, s, arm, x, p):
                kept = jnp.where(jnp.abs(x) <= s.bound, x, 0.0)  # truncation zeroes, it does not clip
                return s._replace(sums=s.sums + onehot(arm, num_arms, s.sums.dtype) * kept)

            def end_phase(rng, s, arm, length, p):
                r = s.pulls.astype(s.sums.dtype)
                noisy = s.sums / r + rng.drawn * 2 * s.bound / (r * p.epsilon)  # noise: Lap(1) per arm
                log_l = jnp.log(4 * jnp.sum(s.active) * s.epoch.astype(float) ** 2 / p.beta)
                err = p.u ** (1 / (1 + p.v)) * (log_l / (r * p.epsilon)) ** (p.v / (1 + p.v))
                active = elimination.eliminate(s.active, noisy, 12 * err)
                epoch = s.epoch + 1
                return DPRSEState(active, jnp.zeros_like(s.sums), epoch, *schedule(active, epoch, p))

            return phased("dprse", num_arms, init=init, phase_length=phase_length, select=select,
                          observe=observe, end_phase=end_phase,
                          draw=lambda key, steps, p: jax.random.laplace(key, (steps, num_arms)),
                          default_params=DPRSEParams(*map(jnp.asarray, (1.0, 1e-6, 1.0, 1.0))))

    The LDP variant (Algorithm 4) changes ``schedule``, the noise (per observation, in ``observe``) and the width;
    GDP-Elim-New (seed 003, Algorithm 4) keeps every arm active and commits to one arm at a release.
    """

    if release is not None:
        import warnings
        if end_phase is not None:
            raise ValueError("give end_phase (release is its former name), not both")
        warnings.warn("phased(release=...) is now phased(end_phase=...)", DeprecationWarning, stacklevel=2)
        end_phase = release
    if end_phase is None:
        raise ValueError(f"phased policy {name!r} needs end_phase: (rng, inner, arm, length, params) -> inner")

    def init_state(params):
        inner = init(params)
        length = jnp.asarray(phase_length(inner, params), jnp.int32)
        return PhasedState(inner, jnp.zeros_like(length), length)

    def update(rng, state, arm, obs, params):
        inner = observe(rng, state.inner, arm, obs, params)
        if state.length.ndim:  # one phase per arm: only the pulled arm's advances, so only it can end
            hit = onehot(arm, num_arms) == 1
            count = state.count + hit
            ends = hit & (count == state.length)
            ended = jnp.any(ends)
            length = jnp.sum(jnp.where(hit, state.length, 0))  # the pulled arm's phase
        else:
            count = state.count + 1
            ends = ended = count == state.length
            length = state.length
        inner = when(ended, end_phase, (rng, inner, arm, length, params), inner)
        next_length = jnp.asarray(phase_length(inner, params), jnp.int32)
        return PhasedState(inner, jnp.where(ends, 0, count), jnp.where(ends, next_length, state.length))

    return Policy(name, num_arms, init_state, draw, select, update, validate, default_params, reward_range)


def round_robin(active, count):
    """The arm at position ``count`` of a round-robin over the active arms in arm order: phases that pull every
    active arm equally often (successive elimination). ``active``: bool[K]; ``count``: int32."""
    slot = count % jnp.maximum(jnp.sum(active, dtype=jnp.int32), 1)
    rank = inclusive_count(active) - 1
    return jnp.argmax(active & (rank == slot)).astype(jnp.int32)


def when(pred, fn: Callable, operands: tuple, otherwise):
    """``fn(*operands)`` where ``pred`` (a bool scalar) holds, else ``otherwise`` (a pytree of the same structure,
    shapes and dtypes), computing ``fn`` only when needed, also under ``jax.vmap``.

    A ``lax.cond`` on a batched predicate becomes a select that computes ``fn`` for every run at every step. A
    phase's release (the noisy means of every arm of DP-SE, with the discrete Laplace mechanism's five words each)
    is needed only at the rare steps where a run's phase ends, so the batching rule asks the batch instead: if
    any run's ``pred`` holds, ``fn`` runs for the whole batch and each run keeps its own value (``jnp.where``, as
    if computed every step: the same numbers); if none does, the step skips it. Where few runs need it (at most
    1/4 of a batch of 4 or more, `COMPACT_FRACTIONS`), only those are gathered and computed: AdaP-KLUCB's kl
    indices of 101 arms at its episode ends, which some run of 64 reaches at most steps, cost 3× less so. It pays
    where phase ends are rare across the batch (DP-SE's epochs); where every step ends some run's phase it costs
    one conditional.
    Under one level of ``vmap`` (the drivers'); nested, the outer level selects as ``lax.cond`` does.
    Differentiable (``custom_vmap`` alone is not): derivatives are those of the ``lax.cond``."""

    def plain(pred, operands, otherwise):
        return jax.lax.cond(pred, lambda ops: fn(*ops[0]), lambda ops: ops[1], (operands, otherwise))

    run = custom_vmap(plain)

    @jax.custom_jvp
    def chosen(pred, operands, otherwise):
        return run(pred, operands, otherwise)

    chosen.defjvp(lambda primals, tangents: jax.jvp(plain, primals, tangents))

    @run.def_vmap
    def rule(axis_size, in_batched, pred, operands, otherwise):
        pred_batched, ops_batched, other_batched = in_batched
        spread = lambda x, b: x if b else jnp.broadcast_to(x, (axis_size,) + jnp.shape(x))
        operands = jax.tree.map(spread, operands, ops_batched)
        otherwise = jax.tree.map(spread, otherwise, other_batched)
        pred = spread(pred, pred_batched)

        def taken(ops):
            new = jax.vmap(fn)(*ops[0])
            return jax.tree.map(lambda a, b: jnp.where(pred.reshape(pred.shape + (1,) * (a.ndim - 1)), a, b),
                                new, ops[1])

        def gathered(capacity):
            def compute(ops):
                # the runs whose pred holds, gathered into ``capacity`` rows (padded with run 0, whose row is read
                # by no run that needs it), computed, and each such run's row read back
                rows = jnp.nonzero(pred, size=capacity, fill_value=0)[0]
                new = jax.vmap(fn)(*jax.tree.map(lambda x: x[rows], ops[0]))
                slot = jnp.cumsum(pred, dtype=jnp.int32) - 1  # run r's row where pred[r]
                return jax.tree.map(lambda a, b: jnp.where(pred.reshape(pred.shape + (1,) * (a.ndim - 1)), a[slot], b),
                                    new, ops[1])
            return compute

        # batches of 4 or more: the smallest capacity that holds the runs needing it
        capacities = sorted({axis_size // f for f in COMPACT_FRACTIONS if axis_size // f >= 1})
        count = jnp.sum(pred, dtype=jnp.int32)
        branch = jnp.minimum(count, 1) + sum((count > c).astype(jnp.int32) for c in capacities)
        out = jax.lax.switch(branch, [lambda ops: ops[1], *map(gathered, capacities), taken], (operands, otherwise))
        return out, jax.tree.map(lambda _: True, out)

    return chosen(jnp.asarray(pred), operands, otherwise)
