"""The simulation engine: ``lax.scan`` over time of a per-run step ``vmap``-ed over runs and grid points.

Layout and randomness (the choices that make it fast, see DESIGN.md):
  * Every leaf of the batched state has the batch axis (grid points × runs) LAST, e.g. counts are (K, N).
  * Randomness is drawn once per block of ``BLOCK`` steps per run, from ``fold_in(run_key, block)`` split into
    env / policy / privatizer keys. Run keys are `jaxbandit.prng` keys: JAX's Threefry with the hash unrolled
    (the same bits as ``jax.random`` in non-partitionable mode on every backend, faster on CPU). A run's draws
    depend only on its key and the block index, so a chunked run equals one long run bit for bit, a run equals
    itself simulated alone, a run of horizon T is the prefix of a longer one, and every grid point sees the same
    reward randomness (common random numbers).
  * Pseudo-regret is recorded as gaps · (int32 pull counts), never a running float sum; realized regret is a
    Kahan-compensated sum of μ* − r_t. Records are kept at chosen times only, so memory does not grow with T.
"""
from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit.types import Env, Policy, Privatizer, StepRandom

BLOCK = 50  # steps per randomness block; part of the random stream's definition (changing it changes draws)
UNROLL = 5  # inner-scan unroll: on the 2-core CPU, unroll=1 is 3-4x slower than 2..10 (benchmarks/RESULTS.md)


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


class SimParams(NamedTuple):
    env: Any
    policy: Any
    privatizer: Any


class RunState(NamedTuple):
    """Per-run state (batch axis last once vmapped)."""

    policy: Any
    counts: jax.Array        # int32[K] pulls per arm
    regret: jax.Array        # float: Kahan sum of μ* − r_t (realized regret)
    regret_comp: jax.Array   # float: its compensation term


class EngineState(NamedTuple):
    """Everything a chunk reads and writes; saving it is a checkpoint."""

    run: RunState
    pseudo: jax.Array        # float[n_rec + slots, N] pseudo-regret at the record times
    realized: jax.Array      # float[n_rec + slots, N] realized regret at the record times
    ptr: jax.Array           # int32: index of the next record time
    block: jax.Array         # int32: index of the next block


def record_slots(record_times: np.ndarray) -> int:
    """The largest number of record times falling in one block (static shape of the per-block gather)."""
    blocks = (np.asarray(record_times) - 1) // BLOCK
    return int(np.max(np.bincount(blocks))) if len(blocks) else 1


def init_state(policy: Policy, params: SimParams, num_runs: int, num_arms: int, n_records: int,
               slots: int) -> EngineState:
    """The batched initial state of ``num_runs`` runs (params leaves carry a trailing batch axis)."""
    pstate = jax.vmap(policy.init, in_axes=-1, out_axes=-1, axis_size=num_runs)(params.policy)
    dtype = jnp.zeros(()).dtype
    # Distinct buffers per field: the state is donated to each chunk, and a buffer cannot be donated twice.
    run = RunState(pstate, jnp.zeros((num_arms, num_runs), jnp.int32), jnp.zeros(num_runs, dtype),
                   jnp.zeros(num_runs, dtype))
    rec = lambda: jnp.full((n_records + slots, num_runs), jnp.nan, dtype)
    return EngineState(run, rec(), rec(), jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))


_ADVANCE_CACHE: dict = {}


def make_advance(env: Env, policy: Policy, privatizer: Privatizer, num_blocks: int, steps: int, slots: int,
                 unroll: int = UNROLL):
    """A jitted ``advance(state, run_keys, params, record_times) -> state`` running ``num_blocks`` blocks of
    ``steps`` (<= BLOCK) steps each. Memoized on the identity of the (long-lived, registry-made) components and
    on the static sizes, so calling it again with new parameter values or a new start block does not
    recompile. (Components hold arrays, so they are not hashable by value.)"""
    key = (id(env), id(policy), id(privatizer), num_blocks, steps, slots, unroll)
    if key not in _ADVANCE_CACHE:
        _ADVANCE_CACHE[key] = (env, policy, privatizer,  # keep the components alive: ids stay unique
                               _build_advance(env, policy, privatizer, num_blocks, steps, slots, unroll))
    return _ADVANCE_CACHE[key][-1]


def _build_advance(env, policy, privatizer, num_blocks, steps, slots, unroll):
    K = env.num_arms
    batched = functools.partial(jax.vmap, in_axes=-1, out_axes=-1)

    def per_run_step(run: RunState, rng_e, rng_p, rng_q, params: SimParams, mu_star, gaps):
        arm = policy.select(rng_p, run.policy, params.policy)
        reward = env.sample(rng_e, arm, params.env)
        obs = privatizer.apply(rng_q, arm, reward, params.privatizer)
        pstate = policy.update(rng_p, run.policy, arm, obs, params.policy)
        counts = run.counts + (jnp.arange(K) == arm).astype(jnp.int32)
        # Kahan summation keeps the realized regret accurate over 10^7+ steps in float32.
        y = (mu_star - reward) - run.regret_comp
        total = run.regret + y
        comp = (total - run.regret) - y
        pseudo = jnp.sum(gaps * counts.astype(gaps.dtype))
        return RunState(pstate, counts, total, comp), (pseudo, total)

    def block_keys(key, b):
        return tuple(jax.random.split(jax.random.fold_in(key, b), 3))

    def one_block(state: EngineState, b, run_keys, params: SimParams, record_times, mu_star, gaps):
        ke, kp, kq = jax.vmap(block_keys, in_axes=(0, None))(run_keys, b)
        draw = lambda comp: jax.vmap(lambda k, p: comp.draw(k, BLOCK, p), in_axes=(0, -1), out_axes=-1)
        noise = (draw(env)(ke, params.env), draw(policy)(kp, params.policy), draw(privatizer)(kq, params.privatizer))
        noise = jax.tree.map(lambda x: x[:steps], noise)  # a short tail block uses the head of a full draw
        # Materialize the block's draws before the loop: otherwise XLA may fuse the generator into the per-step
        # slice and regenerate it inside the loop.
        noise = jax.lax.optimization_barrier(noise)

        def step(run, xs):
            i, (ne, np_, nq) = xs
            fold = jax.vmap(jax.random.fold_in, in_axes=(0, None))
            rngs = (StepRandom(fold(ke, i), ne), StepRandom(fold(kp, i), np_), StepRandom(fold(kq, i), nq))
            return batched(per_run_step)(run, *rngs, params, mu_star, gaps)

        run, (pseudo, realized) = jax.lax.scan(step, state.run, (jnp.arange(steps), noise), unroll=unroll)

        # Copy the records falling in this block: record times are sorted, so they fill slots ptr, ptr+1, ...
        start = b * BLOCK
        idx = state.ptr + jnp.arange(slots)
        times = jnp.take(record_times, idx, mode="fill", fill_value=-1)
        valid = (times > start) & (times <= start + steps)
        offset = jnp.clip(times - start - 1, 0, steps - 1)

        def write(buf, values):
            window = jax.lax.dynamic_slice_in_dim(buf, state.ptr, slots, axis=0)
            window = jnp.where(valid[:, None], jnp.take(values, offset, axis=0), window)
            return jax.lax.dynamic_update_slice_in_dim(buf, window, state.ptr, axis=0)

        return EngineState(run, write(state.pseudo, pseudo), write(state.realized, realized),
                           state.ptr + jnp.sum(valid, dtype=jnp.int32), state.block + 1)

    def advance(state: EngineState, run_keys, params: SimParams, record_times):
        means = jax.vmap(env.means, in_axes=-1, out_axes=-1)(params.env)   # (K, N)
        mu_star = jnp.max(means, axis=0)
        gaps = mu_star - means

        def body(s, b):
            return one_block(s, b, run_keys, params, record_times, mu_star, gaps), None

        state, _ = jax.lax.scan(body, state, state.block + jnp.arange(num_blocks))
        return state

    return jax.jit(advance, donate_argnums=0, compiler_options=compiler_options())

