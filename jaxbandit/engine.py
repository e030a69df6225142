"""The pure core: one step of the bandit protocol, blocks of steps, and `rollout`, a pure ``run(key, params)``.

`rollout` returns a function of one run that `jax.jit`, `jax.vmap` and `jax.grad` compose with: no host side
effects, no registry names, no chunking. The drivers in `jaxbandit.simulation` (`simulate`, `sweep`) run the very
same block function, batched with the layout that makes it fast, and add validation, grids, chunks, checkpoints and
progress on the host. Both paths give the same numbers bit for bit (tests/test_engine.py, tests/test_golden.py).

Layout and randomness (the choices that make it fast, docs/DESIGN.md):
  * In the drivers every leaf of the batched state has the batch axis (grid points × runs) LAST, e.g. counts are
    (K, N): the per-run step is vmapped with ``in_axes=-1, out_axes=-1`` inside the scan over time.
  * Randomness is drawn once per block of ``BLOCK`` steps per run, from ``fold_in(run_key, block)`` split into
    env / policy / privatizer keys. Run keys are `jaxbandit.random.threefry` keys: JAX's Threefry with the hash unrolled
    (the same bits as ``jax.random`` in non-partitionable mode on every backend, faster on CPU). A run's draws
    depend only on its key and the block index, so a chunked run equals one long run bit for bit, a run equals
    itself simulated alone, a run of horizon T is the prefix of a longer one, and every grid point sees the same
    reward randomness (common random numbers).
  * A policy that says so (`Policy.run_major`: costly Gaussian noise) has its draws of more than one value a step
    laid out run-major (time, batch, values): the generator writes each run's values contiguously. Layout only.
  * Pseudo-regret is recorded as gaps · (int32 pull counts), never a running float sum; realized regret is a
    Kahan-compensated sum of μ* − r_t. Records are kept at chosen times only, so memory does not grow with T; above
    `ORDERED_MAX` arms the K-term sum itself runs only at the steps a record falls on (a branch: the record times
    are the same for every run of a batch).
  * Contexts (linear and contextual bandits, `jaxbandit.types`): a contextual environment draws each round's
    context from its step randomness, which every component receives through `jaxbandit.types.with_context`.
    Where the expected rewards change from round to round (``env.means`` is ``None``) the pseudo-regret is a
    Kahan-compensated per-step sum of max_a E[r | x_t, a] − E[r | x_t, a_t]; where they do not, it stays the exact
    sum over pull counts. A law of random instances (``env.instance``) draws each run's instance from
    `instance_key` of its run key, so it too depends on the run only.
"""
from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.policies.common import kahan_add
from jaxbandit.types import (IDENTITY, Env, Policy, Privatizer, SimParams, Simulator, StepRandom, sample_with_context, summarize,
                             with_context)

BLOCK = 50  # steps per randomness block; part of the random stream's definition (changing it changes draws)
UNROLL = 5  # inner-scan unroll: on the 2-core CPU, unroll=1 is 3-4x slower than 2..10 (benchmarks/RESULTS.md)

__all__ = ["SIMULATOR", "check_arms", "block_plan", "BLOCK", "UNROLL", "ORDERED_MAX", "MAX_HORIZON", "SimParams", "Trace", "EngineState", "RunState", "rollout", "step",
           "record_times", "horizon_and_records", "check", "bind", "record_slots", "compiler_options", "instance_key",
           "run_instance"]

MAX_HORIZON = 2 ** 31 - 1  # time and pull counters are int32
# The block index whose key a run's random instance is drawn from: no block reaches it (T <= MAX_HORIZON).
INSTANCE_BLOCK = 2 ** 31 - 1


@functools.lru_cache(maxsize=None)
def compiler_options() -> dict:
    """XLA options of the engine's compilation (empty where they do not apply).

    On CPU, XLA (jaxlib 0.10) hands small add-reductions to the YNNPACK library. The engine's step has a few
    per step over K × runs elements, and the library-call overhead made the step about 2x slower
    (benchmarks/RESULTS.md). So library fusions are turned off for the engine's jit only, where this XLA
    knows the option (checked once by compiling a trivial function).
    """
    if jax.default_backend() != "cpu":
        return {}
    options = {"xla_cpu_experimental_ynn_fusion_type": ""}
    try:
        jax.jit(lambda x: x.sum(0), compiler_options=options).lower(jnp.ones((2, 2))).compile()
    except Exception:  # an XLA without the option: keep its defaults
        return {}
    return options


class Trace(NamedTuple):
    """What `rollout`'s ``run`` returns for one run.

    Attributes:
      pseudo_regret: f[n_rec] Σ_a Δ_a n_a(t) at the record times (from integer pull counts).
      regret: f[n_rec] realized regret μ* t − Σ_s r_s at the record times.
      counts: int32[K] pulls per arm at the horizon.
    """

    pseudo_regret: jax.Array
    regret: jax.Array
    counts: jax.Array

    def __repr__(self) -> str:
        return summarize(self)


class RunState(NamedTuple):
    """Per-run state (batch axis last once batched by the drivers)."""

    policy: Any
    counts: jax.Array        # int32[K] pulls per arm
    regret: jax.Array        # float: Kahan sum of μ* − r_t (realized regret)
    regret_comp: jax.Array   # float: its compensation term
    # Only where the expected rewards change each round (a contextual env without fixed means), else None (no
    # leaves: the context-free state and its checkpoints are unchanged): the per-step pseudo-regret, Kahan-summed.
    pseudo: Any = None
    pseudo_comp: Any = None


class EngineState(NamedTuple):
    """Everything a block reads and writes; saving the drivers' batched one is a checkpoint."""

    run: RunState
    pseudo: jax.Array        # float[n_rec + slots, (N)] pseudo-regret at the record times
    realized: jax.Array      # float[n_rec + slots, (N)] realized regret at the record times
    ptr: jax.Array           # int32: index of the next record time
    block: jax.Array         # int32: index of the next block


def record_times(horizon: int, num: int = 100) -> np.ndarray:
    """Record times in [1, horizon] (t = steps completed): half log-spaced, half evenly spaced, always T."""
    horizon = checks.positive_int("horizon", horizon)
    num = checks.positive_int("record", num)
    half = max(num // 2, 1)
    log = np.geomspace(1, horizon, half)
    lin = np.linspace(horizon / half, horizon, half)
    times = np.concatenate([np.round(log), np.round(lin), [horizon]])
    return np.unique(np.clip(times, 1, horizon)).astype(np.int64)  # short horizons: T/half rounds to 0 below T = 25


def horizon_and_records(horizon, record=None) -> tuple[int, np.ndarray]:
    """``(T, record times)``: ``record`` is None (the default 100 times), a number of times, or an explicit
    strictly increasing array in [1, T]."""
    horizon = checks.positive_int("horizon", horizon)
    if horizon > MAX_HORIZON:
        raise ValueError(f"horizon={horizon} is outside the valid range [1, {MAX_HORIZON}] (int32 step counters)")
    if record is None or np.ndim(record) == 0:
        return horizon, record_times(horizon, 100 if record is None else record)
    times = np.asarray(record)
    if (times.ndim != 1 or len(times) == 0 or not np.all(np.isfinite(times)) or np.any(times != np.round(times))
            or np.any(np.diff(times) <= 0) or times[0] < 1 or times[-1] > horizon):
        raise ValueError(f"record times must be strictly increasing integers in [1, horizon={horizon}], got "
                         f"{checks._fmt(times)}")
    return horizon, times.astype(np.int64)


def _traced(tree) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves(tree))


def check_arms(env: Env, policy: Policy) -> None:
    """The policy is built for the environment's number of arms (a clear error otherwise)."""
    if policy.num_arms != env.num_arms:
        raise ValueError(f"policy {policy.name!r} is built for {policy.num_arms} arms but environment "
                         f"{env.name!r} has {env.num_arms}")


def check(env: Env, policy: Policy, privatizer: Privatizer, params: SimParams) -> None:
    """Every check of one configuration of component objects: each component's own ``validate`` and the
    cross-component ones (arms, contexts, reward ranges). Shapes are always checked; values only where they are
    concrete (inside ``jit``/``vmap``/``grad`` the caller that made them concrete checks them)."""
    check_arms(env, policy)
    for role, comp in (("policy", policy), ("privatizer", privatizer)):
        if comp.contextual and env.context is None:
            raise ValueError(f"{role} {comp.name!r} needs a context each round (features of the arms) but "
                             f"environment {env.name!r} emits none: use a contextual environment, e.g. 'linear'")
    for name, leaf in zip(getattr(params.privatizer, "_fields", ()), params.privatizer):
        if np.ndim(leaf) == 1 and np.shape(leaf)[0] != env.num_arms:
            raise ValueError(f"privatizer {privatizer.name!r} parameter {name} is per-arm with {np.shape(leaf)[0]} "
                             f"entries, but environment {env.name!r} has {env.num_arms} arms")
    if _traced(params):
        return
    env.validate(params.env)
    policy.validate(params.policy)
    privatizer.validate(params.privatizer)
    low, high = env.support(params.env)
    if privatizer.reward_range is not None:
        need = privatizer.reward_range
        if low < need[0] or high > need[1]:
            raise ValueError(f"privatizer {privatizer.name!r} needs rewards in [{need[0]:g}, {need[1]:g}] but "
                             f"environment {env.name!r} has support [{low:g}, {high:g}]")
    if privatizer.output_range is not None:
        low, high = privatizer.output_range
    if policy.reward_range is not None:
        need = policy.reward_range
        if low < need[0] or high > need[1]:
            raise ValueError(f"policy {policy.name!r} needs observations in [{need[0]:g}, {need[1]:g}] but gets "
                             f"values in [{low:g}, {high:g}] (clip a Gaussian env with low=0, high=1?)")


def bind(policy: Policy, params: SimParams, horizon: int) -> SimParams:
    """``params`` with the policy's horizon-dependent parameters filled (its ``bind_horizon``: the T known to the
    algorithm, β = 1/T, where left ``None``), then checked against the horizon (its ``validate(params, horizon)``,
    where concrete)."""
    if policy.bind_horizon is not None:
        params = params._replace(policy=policy.bind_horizon(params.policy, horizon))
    if not _traced(params.policy):
        policy.validate(params.policy, horizon)
    return params


ORDERED_MAX = 16  # `ordered_sum` adds up to this many terms left to right, more in 8 lanes


def ordered_sum(terms):
    """Σ_k terms[k] over the first axis in an order fixed by the program, so that its bits do not depend on the
    machine: ``jnp.sum`` leaves the order to XLA, whose vectorized reductions follow the CPU's vector width (the
    pseudo-regret of testbed20, K = 20, differed in its last bits between machines). Up to 16 terms: left to right,
    the order XLA itself used for small K (the recorded K = 4 values are unchanged); more: 8 lanes, each a pairwise
    tree over its terms, then the lanes left to right (within 13% of ``jnp.sum``'s time from K = 4 to 1000,
    benchmarks/RESULTS.md)."""
    n = terms.shape[0]
    if n > ORDERED_MAX:
        terms = jnp.concatenate([terms, jnp.zeros((-n % 8,) + terms.shape[1:], terms.dtype)])
        terms = terms.reshape((-1, 8) + terms.shape[1:])
        while terms.shape[0] > 1:
            half = terms.shape[0] // 2
            head = terms[:half] + terms[half:2 * half]
            terms = jnp.concatenate([head, terms[2 * half:]]) if terms.shape[0] % 2 else head
        terms = terms[0]
    total = terms[0]
    for k in range(1, terms.shape[0]):
        total = total + terms[k]
    return total


def record_slots(record_times: np.ndarray) -> int:
    """The largest number of record times falling in one block (static shape of the per-block gather)."""
    blocks = (np.asarray(record_times) - 1) // BLOCK
    return int(np.max(np.bincount(blocks))) if len(blocks) else 1


def init_state(policy: Policy, params: SimParams, num_arms: int, n_records: int, slots: int,
               num_runs: int | None = None, per_step_regret: bool = False) -> EngineState:
    """The initial state of one run (``num_runs=None``) or of ``num_runs`` runs batched last (params leaves then
    carry a trailing batch axis). ``per_step_regret``: the run sums its pseudo-regret step by step (a contextual
    environment without fixed means, ``env.means is None``)."""
    dtype = jnp.zeros(()).dtype
    batch = () if num_runs is None else (num_runs,)
    if num_runs is None:
        pstate = policy.init(params.policy)
    else:
        pstate = jax.vmap(policy.init, in_axes=-1, out_axes=-1, axis_size=num_runs)(params.policy)
    # Distinct buffers per field: the drivers donate the state to each chunk, and a buffer cannot be donated twice.
    run = RunState(pstate, jnp.zeros((num_arms,) + batch, jnp.int32), jnp.zeros(batch, dtype),
                   jnp.zeros(batch, dtype))
    if per_step_regret:
        run = run._replace(pseudo=jnp.zeros(batch, dtype), pseudo_comp=jnp.zeros(batch, dtype))
    rec = lambda: jnp.full((n_records + slots,) + batch, jnp.nan, dtype)
    return EngineState(run, rec(), rec(), jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))


def regret_reference(env: Env, env_params):
    """(μ*, gaps) of one run's environment; ``(None, None)`` where the expected rewards change each round (a
    contextual environment without fixed means: the engine then sums the pseudo-regret step by step)."""
    if env.means is None:
        return None, None
    means = env.means(env_params)
    mu_star = jnp.max(means, axis=0)
    return mu_star, mu_star - means


def instance_key(run_key):
    """The key a run's random instance is drawn from (`Env.instance`): ``fold_in(run_key, INSTANCE_BLOCK)``, a
    block index no run reaches, so it is independent of every block's draws."""
    return jax.random.fold_in(run_key, INSTANCE_BLOCK)


def run_instance(env: Env, run_key, env_params):
    """One run's environment parameters: ``env.instance(instance_key(run_key), env_params)`` for a law of random
    instances, else ``env_params`` as given."""
    if env.instance is None:
        return env_params
    return env.instance(instance_key(run_key), env_params)




def make_block(env: Env, policy: Policy, privatizer: Privatizer, steps: int, slots: int, *, batched: bool,
               unroll: int = UNROLL):
    """``block(state, b, run_keys, params, record_times, mu_star, gaps) -> state``: steps ``b·BLOCK + 1 ...
    b·BLOCK + steps`` of one run (``batched=False``) or of a batch of runs whose every leaf has the batch axis
    last (``batched=True``). The batched version is the per-run one with its per-run parts vmapped, so both
    compute the same numbers."""
    K = env.num_arms
    lift = (lambda f, in_axes=-1: jax.vmap(f, in_axes=in_axes, out_axes=-1)) if batched else (lambda f, in_axes=-1: f)
    sample, channel = sample_with_context(env), with_context(privatizer)
    contextual = env.context is not None

    def per_run_step(run: RunState, rng_e, rng_p, rng_q, params: SimParams, mu_star, gaps):
        context = env.context(rng_e, params.env) if contextual else None

        def respond(arm):
            reward = sample(rng_e, arm, params.env, context)
            return channel.apply(rng_q, arm, reward, params.privatizer, context), reward

        pstate, arm, reward = step(policy, rng_p, run.policy, params.policy, respond, context)
        counts = run.counts + (jnp.arange(K) == arm).astype(jnp.int32)
        if mu_star is None:  # expected rewards that change each round: this round's best and chosen arm
            expected = env.expected(params.env, context)
            mu_star = jnp.max(expected)
            best_minus_chosen = mu_star - jnp.sum(jnp.where(jnp.arange(K) == arm, expected, 0))
            pseudo_sum, pseudo_comp = kahan_add(run.pseudo, run.pseudo_comp, best_minus_chosen)
        # Kahan summation keeps the realized regret accurate over 10^7+ steps in float32.
        total, comp = kahan_add(run.regret, run.regret_comp, mu_star - reward)
        if gaps is None:
            return RunState(pstate, counts, total, comp, pseudo_sum, pseudo_comp), (pseudo_sum, total)
        if K > ORDERED_MAX:  # summed at the record steps only (`block`)
            return RunState(pstate, counts, total, comp), (None, total)
        return RunState(pstate, counts, total, comp), (pseudo_regret(counts, gaps), total)

    def pseudo_regret(counts, gaps):
        return ordered_sum(gaps * counts.astype(gaps.dtype))

    def block_keys(key, b):
        return tuple(jax.random.split(jax.random.fold_in(key, b), 3))

    def draws(keys, params: SimParams):
        ke, kp, kq = keys
        draw = lambda comp, key, p: comp.draw(key, BLOCK, p)
        per_run = lambda ke, kp, kq, params: (draw(env, ke, params.env), draw(policy, kp, params.policy),
                                              draw(privatizer, kq, params.privatizer))
        # keys are batched first (an array of keys), params last
        if not batched:
            return per_run(ke, kp, kq, params), None
        shapes = jax.eval_shape(jax.vmap(per_run, in_axes=(0, 0, 0, -1)), ke, kp, kq, params)
        run_major = lambda x: 1 if math.prod(x.shape[2:]) > 1 else -1  # `Policy.run_major`: leaves of many values
        axes = (jax.tree.map(lambda _: -1, shapes[0]),
                jax.tree.map(run_major if policy.run_major else (lambda _: -1), shapes[1]),
                jax.tree.map(lambda _: -1, shapes[2]))
        return jax.vmap(per_run, in_axes=(0, 0, 0, -1), out_axes=axes)(ke, kp, kq, params), axes

    def block(state: EngineState, b, run_keys, params: SimParams, record_times, mu_star, gaps):
        keys = lift(block_keys, in_axes=(0, None))(run_keys, b)
        noise, axes = draws(keys, params)
        noise = jax.tree.map(lambda x: x[:steps], noise)  # a short tail block uses the head of a full draw
        # Materialize the block's draws before the loop: otherwise XLA may fuse the generator into the per-step
        # slice and regenerate it inside the loop.
        noise = jax.lax.optimization_barrier(noise)
        fold = lift(jax.random.fold_in, in_axes=(0, None))

        def records():
            """The record times falling in this block: record times are sorted, so they fill slots ptr, ptr+1, ...
            Returns (start, times, valid, offset in the block)."""
            start = b * BLOCK
            times = jnp.take(record_times, state.ptr + jnp.arange(slots), mode="fill", fill_value=-1)
            return start, times, (times > start) & (times <= start + steps), jnp.clip(times - start - 1, 0, steps - 1)

        # Traced before the scan only where its step reads them (the program of ≤ ORDERED_MAX arms is unchanged).
        start, times, valid, offset = records() if K > ORDERED_MAX else (None,) * 4

        # `Policy.state_run_major`: within the block the policy's state has its batch axis first (moved once
        # before the scan and back after it), so that a per-run row update is in place, not a transpose of a table
        state_first = batched and policy.state_run_major
        if batched:  # a step's slice of a run-major draw has its batch axis first (`Policy.run_major`)
            step_axes = tuple(StepRandom(0, jax.tree.map(lambda a: 0 if a == 1 else -1, a)) for a in axes)
            run_axes = jax.tree.map(lambda _: -1, state.run)
            if state_first:
                run_axes = run_axes._replace(policy=jax.tree.map(lambda _: 0, state.run.policy))
            per_run = jax.vmap(per_run_step, in_axes=(run_axes, *step_axes, -1, -1, -1), out_axes=(run_axes, -1))
        else:
            per_run = per_run_step

        def step(run, xs):
            i, (ne, np_, nq) = xs
            ke, kp, kq = keys
            rngs = (StepRandom(fold(ke, i), ne), StepRandom(fold(kp, i), np_), StepRandom(fold(kq, i), nq))
            run, (pseudo, total) = per_run(run, *rngs, params, mu_star, gaps)
            if gaps is not None and K > ORDERED_MAX:
                # Σ_a Δ_a n_a only at the steps a record falls on: the predicate is the same for every run of a
                # batch, so this stays a branch under vmap (a branch costs more than a sum of up to ORDERED_MAX terms).
                pseudo = jax.lax.cond(jnp.any(valid & (times == start + i + 1)), lift(pseudo_regret),
                                      lambda c, g: jnp.full(total.shape, jnp.nan, total.dtype), run.counts, gaps)
            return run, (pseudo, total)

        move = lambda run, a, b: run._replace(policy=jax.tree.map(lambda x: jnp.moveaxis(x, a, b), run.policy))
        run, (pseudo, realized) = jax.lax.scan(step, move(state.run, -1, 0) if state_first else state.run,
                                               (jnp.arange(steps), noise), unroll=unroll)
        if state_first:
            run = move(run, 0, -1)

        # Copy the records falling in this block.
        if K <= ORDERED_MAX:
            start, times, valid, offset = records()

        def write(buf, values):
            window = jax.lax.dynamic_slice_in_dim(buf, state.ptr, slots, axis=0)
            mask = valid.reshape(valid.shape + (1,) * (values.ndim - 1))
            window = jnp.where(mask, jnp.take(values, offset, axis=0), window)
            return jax.lax.dynamic_update_slice_in_dim(buf, window, state.ptr, axis=0)

        return EngineState(run, write(state.pseudo, pseudo), write(state.realized, realized),
                           state.ptr + jnp.sum(valid, dtype=jnp.int32), state.block + 1)

    return block


def step(policy: Policy, rng: StepRandom, state, params, respond, context=None):
    """One round of the protocol, the one place a policy is stepped: the policy selects an arm, ``respond(arm) ->
    (observation, extra)`` answers it (the engine: the environment's reward through the privatizer; an audit: a
    fixed reward stream), and the policy updates on the observation. ``context``: the round's context (``None`` for
    a context-free environment), given to the policy through `jaxbandit.types.with_context`. Returns ``(state,
    arm, extra)``."""
    policy = with_context(policy)
    arm = policy.select(rng, state, params, context)
    observation, extra = respond(arm)
    return policy.update(rng, state, arm, observation, params, context), arm, extra


def rollout(env: Env, policy: Policy, privatizer: Privatizer | None = None, *, horizon: int, record_times=None,
            unroll: int = UNROLL):
    """The pure simulation of one run: ``run(key, params) -> Trace``.

    Args:
      env, policy, privatizer: component objects (`Env`, `Policy`, `Privatizer`); ``privatizer=None`` is the
        identity channel. Registry names are resolved a layer above (`jaxbandit.rollout`, `jaxbandit.resolve`).
      horizon: T, steps of the run (static).
      record_times: strictly increasing times in [1, T] at which the regrets are recorded (static; default
        `record_times`: 100 points, half log-spaced, half even, always T).
      unroll: unroll factor of the scan over the steps of a block (numbers are those of the drivers with the same
        unroll; see `jaxbandit.sweep`).

    Returns:
      ``run(key, params: SimParams) -> Trace``, pure: ``key`` is a run key (e.g. ``fold_in(jaxbandit.random.threefry.key(seed),
      r)``, which is run r of `simulate`), ``params`` unbatched. ``jax.jit(jax.vmap(run))`` maps over keys and over
      any params leaf, and gives the numbers of `simulate`/`sweep` for the same keys and parameters.
      When ``params`` are concrete (not traced), ``run`` first validates them with the same checks as the drivers
      (`check`, `bind`); under ``jit``/``vmap`` it checks what the shapes tell.

    The drivers are faster for many runs on CPU: they batch the runs axis last (docs/DESIGN.md); ``vmap(run)`` batches it
    first.
    """
    privatizer = IDENTITY if privatizer is None else privatizer
    for role, obj, kind in (("env", env, Env), ("policy", policy, Policy), ("privatizer", privatizer, Privatizer)):
        if not isinstance(obj, kind):
            raise ValueError(f"{role} must be a jaxbandit.{kind.__name__} (engine.rollout takes component objects; "
                             f"jaxbandit.rollout also takes registry names), got {type(obj).__name__} {obj!r:.60}")
    horizon, times = horizon_and_records(horizon, record_times)
    slots = record_slots(times)
    plan = [(steps, blocks, make_block(env, policy, privatizer, steps, slots, batched=False, unroll=unroll))
            for steps, blocks in block_plan(horizon)]
    n_rec = len(times)

    def run(key, params: SimParams) -> Trace:
        check(env, policy, privatizer, params)
        return simulated(key, bind(policy, params, horizon))  # bound outside: it warns of concrete values

    # One program even where ``run`` is called eagerly: there each ``lax.scan`` was compiled alone with the concrete
    # key and parameters as constants, and XLA took over 250 s on DPRUCB's 5-step tail block (2 s under one jit).
    @jax.jit
    def simulated(key, params: SimParams) -> Trace:
        params = params._replace(env=run_instance(env, key, params.env))
        rec = jnp.asarray(times, jnp.int32)
        mu_star, gaps = regret_reference(env, params.env)
        state = init_state(policy, params, env.num_arms, n_rec, slots, per_step_regret=env.means is None)

        first = 0
        for steps, blocks, block in plan:
            if steps == BLOCK:  # the whole blocks, scanned
                body = lambda s, b, block=block: (block(s, b, key, params, rec, mu_star, gaps), None)
                state, _ = jax.lax.scan(body, state, jnp.arange(first, first + blocks))
            else:  # the tail block
                state = block(state, jnp.asarray(first, jnp.int32), key, params, rec, mu_star, gaps)
            first += blocks
        return Trace(state.pseudo[:n_rec], state.realized[:n_rec], state.run.counts)

    return run


def block_plan(horizon: int, done: int = 0, chunk=lambda: None):
    """The one plan by which every driver runs T steps in blocks: ``(steps, blocks)`` pairs from block ``done`` on,
    the whole blocks of `BLOCK` steps ``chunk()`` blocks at a time (``None``: all that are left; the drivers size
    chunks by their timings, asked afresh before each), then the tail block of T mod `BLOCK` steps, if any. Used by
    `rollout` (under ``lax.scan``), the chunked driver (`jaxbandit.simulation.run_engine`) and the tuner's
    evaluation (`jaxbandit.simulation.final_state`)."""
    n_full, tail = divmod(horizon, BLOCK)
    while done < n_full:
        blocks = min(chunk() or n_full - done, n_full - done)
        yield BLOCK, blocks
        done += blocks
    if tail and done == n_full:
        yield tail, 1


_ADVANCE_CACHE: dict = {}
RUNS_AXIS = "runs"  # the mesh axis the drivers shard the batch (grid points × runs) over


def batch_spec(x) -> jax.sharding.PartitionSpec:
    """The partition of a driver-batched leaf: its last axis (the batch) over the mesh's runs axis."""
    return jax.sharding.PartitionSpec(*([None] * (x.ndim - 1)), RUNS_AXIS)


def state_specs(state: EngineState) -> EngineState:
    """Partition specs of a batched `EngineState`: every per-run leaf by its last axis; the record pointer and the
    block index, the same on every shard, replicated."""
    replicated = jax.sharding.PartitionSpec()
    return EngineState(jax.tree.map(batch_spec, state.run), batch_spec(state.pseudo), batch_spec(state.realized),
                       replicated, replicated)


def _compiled_advance(env: Env, policy: Policy, privatizer: Privatizer, steps: int, slots: int, unroll: int,
                      mesh: jax.sharding.Mesh | None = None):
    """`make_advance`'s compiled function for one policy. Memoized on the identity of the components, on the
    static sizes and on the mesh's devices, so calling it again with new parameter values, a new start block or a
    new chunk length does not recompile. (Components hold arrays, so they are not hashable by value; the cache
    keeps them alive, so their ids stay unique.)

    With a ``mesh`` (a 1-D mesh over `RUNS_AXIS`), each device runs the same program on its slice of the batch
    (`jax.shard_map`): runs never communicate, since a run's draws depend only on its own key, so a run's numbers
    do not depend on how many devices share the batch."""
    devices = None if mesh is None else tuple(d.id for d in mesh.devices.flat)
    key = (id(env), id(policy), id(privatizer), steps, slots, unroll, devices)
    if key not in _ADVANCE_CACHE:
        block = make_block(env, policy, privatizer, steps, slots, batched=True, unroll=unroll)

        def advance(state: EngineState, num_blocks, run_keys, params: SimParams, record_times):
            if env.instance is not None:  # drawn again at each chunk from the run keys: the same instance
                instances = jax.vmap(functools.partial(run_instance, env), in_axes=(0, -1), out_axes=-1)
                params = params._replace(env=instances(run_keys, params.env))
            mu_star, gaps = jax.vmap(functools.partial(regret_reference, env), in_axes=-1, out_axes=-1)(params.env)

            def body(_, s):
                return block(s, s.block, run_keys, params, record_times, mu_star, gaps)

            return jax.lax.fori_loop(0, num_blocks, body, state)

        if mesh is not None:
            single = advance
            replicated = jax.sharding.PartitionSpec()

            def advance(state, num_blocks, run_keys, params, record_times):
                specs = state_specs(state)
                # check_vma=False: ptr and block are computed alike on every shard, which the checker cannot see.
                return jax.shard_map(single, mesh=mesh, out_specs=specs, check_vma=False,
                                     in_specs=(specs, replicated, jax.sharding.PartitionSpec(RUNS_AXIS),
                                               jax.tree.map(batch_spec, params), replicated),
                                     )(state, num_blocks, run_keys, params, record_times)

        _ADVANCE_CACHE[key] = (env, policy, privatizer,
                               jax.jit(advance, donate_argnums=0, compiler_options=compiler_options()))
    return _ADVANCE_CACHE[key][-1]


def make_advance(env: Env, policy: Policy, privatizer: Privatizer, steps: int, slots: int, unroll: int = UNROLL,
                 mesh: jax.sharding.Mesh | None = None):
    """The drivers' ``advance(state, num_blocks, run_keys, params, record_times) -> state`` running ``num_blocks``
    blocks of ``steps`` (<= BLOCK) steps of a batch of runs (batch axis last), from block ``state.block`` on,
    jitted. ``num_blocks`` is a traced loop bound, so chunks of any length share one compilation (the drivers size
    chunks by time). ``mesh``: shard the batch over its devices (the batch size must be a multiple of their
    number; `jaxbandit.simulation.run_engine` pads it)."""
    return _compiled_advance(env, policy, privatizer, steps, slots, unroll, mesh)


#: The engine as a simulator component (`jaxbandit.types.Simulator`): every policy, step by step, in chunks.
SIMULATOR = Simulator(
    "steps", lambda env, policy, privatizer, *, horizon, record_times, unroll, realized: rollout(
        env, policy, privatizer, horizon=horizon, record_times=record_times, unroll=unroll),
    chunked=True, unsupported=lambda env, policy, privatizer: None)
