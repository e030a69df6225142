"""Speed of jaxbandit.random.samplers against jax.random, on blocks and in situ.

Run:  PYTHONPATH=. python benchmarks/bench_sampling.py [--steps 10000] [--attempts 2 3 4]

Part 1, "block": variates per second for one (64, 20, 1000) block (noise
drawing included), with Thompson-sampling-like integer shapes.
Part 2, "in situ": K = 10-armed Bernoulli Thompson sampling, 1000 runs, as the
engine runs it (jaxbandit/engine.py): lax.scan over blocks of 50 steps; per
block the noise of every run is drawn by a vmap over run keys (out_axes=-1,
non-partitionable threefry, optimization_barrier); an inner scan (unroll 5)
runs a step vmapped over runs with in_axes=-1, whose key is fold_in(key, t).
Shapes S + 1, F + 1 grow as in a real run because it is a real run.
  * Gaussian TS: theta = S/(n+1) + z/sqrt(n+1), K pre-drawn normals per step;
  * Beta TS with samplers.beta (one row per `attempts` setting);
  * Beta TS with jax.random.beta (fewer steps, continuing from the final
    samplers.beta state so the shapes are realistic; reported per step).
Timing: best of --repeats calls after one warm-up call, block_until_ready.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import jax
import jax.numpy as jnp
from jax import lax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from jaxbandit.random import threefry
from jaxbandit.random import samplers

K, R, BLOCK, UNROLL = 10, 1000, 50, 5


def timeit(f, *args, repeats=3):
    jax.block_until_ready(f(*args))  # warm-up: compile + first run
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(f(*args))
        best = min(best, time.perf_counter() - t0)
    return best


# ------------------------------------------------------------------ block part
def ts_like_shapes(key, shape):
    """Integers 1..1e4, log-uniform-ish with most mass at small values (like
    S + 1, F + 1 in a 1e4-step run: median ~5, 10 % above ~400)."""
    ka, kb = jax.random.split(key)
    one = lambda k: jnp.floor(jnp.exp(jax.random.uniform(k, shape) ** 2 * jnp.log(1e4)))
    return one(ka), one(kb)


def bench_block(attempts_list, repeats):
    shape = (64, 20, 1000)
    n = 64 * 20 * 1000
    key = jax.random.key(0)
    a, b = ts_like_shapes(jax.random.key(1), shape)
    rows = [
        ("jax.random.normal", timeit(jax.jit(lambda k: jax.random.normal(k, shape)), key, repeats=repeats)),
        ("jax.random.uniform", timeit(jax.jit(lambda k: jax.random.uniform(k, shape)), key, repeats=repeats)),
    ]
    for m in attempts_list:
        def fb(k, a, b, m=m):
            k1, k2 = jax.random.split(k)
            return samplers.beta(k2, a, b, samplers.draw_beta_noise(k1, shape, attempts=m))

        rows.append((f"samplers.beta (attempts={m})", timeit(jax.jit(fb), key, a, b, repeats=repeats)))

    def fg(k, a):
        k1, k2 = jax.random.split(k)
        return samplers.gamma(k2, a, samplers.draw_gamma_noise(k1, shape))

    rows.append(("samplers.gamma", timeit(jax.jit(fg), key, a, repeats=repeats)))
    # jax.random.beta / gamma are slow: time a 1/16 slice and scale up.
    sl = (slice(0, 4),)
    t = timeit(jax.jit(lambda k, a, b: jax.random.beta(k, a, b)), key, a[sl], b[sl], repeats=1)
    rows.append(("jax.random.beta", 16 * t))
    t = timeit(jax.jit(lambda k, a: jax.random.gamma(k, a)), key, a[sl], repeats=1)
    rows.append(("jax.random.gamma", 16 * t))
    print(f"\nBlock {shape}, TS-like integer shapes 1..1e4 (noise drawing included)")
    print(f"{'sampler':30s} {'Mvariates/s':>12s}")
    for name, t in rows:
        print(f"{name:30s} {n / t / 1e6:12.2f}")


# ---------------------------------------------------------------- in-situ part
def _play(theta, mu, u):
    """argmax arm and its Bernoulli(mu) reward from the pre-drawn uniform u."""
    hit = jnp.arange(K) == jnp.argmax(theta)
    return hit, (u < jnp.sum(jnp.where(hit, mu, 0.0))).astype(jnp.float32)


def beta_step(state, key, noise, u, mu):
    s, f = state
    hit, r = _play(samplers.beta(key, s + 1, f + 1, noise), mu, u)
    return s + hit * r, f + hit * (1 - r)


def jax_beta_step(state, key, noise, u, mu):
    s, f = state
    hit, r = _play(jax.random.beta(key, s + 1, f + 1), mu, u)
    return s + hit * r, f + hit * (1 - r)


def gauss_step(state, key, z, u, mu):
    tot, cnt = state
    hit, r = _play(tot / (cnt + 1) + z * lax.rsqrt(cnt + 1), mu, u)
    return tot + hit * r, cnt + hit


def make_sim(step, draw, n_blocks):
    """Engine-like simulation: per block, per-run noise draws; inner scan of a
    step vmapped over runs (batch axis last)."""
    vstep = jax.vmap(step, in_axes=(-1, 0, -1, -1, -1), out_axes=-1)

    def one_block(state, b, run_keys, mu):
        kb = jax.vmap(lambda k: jax.random.fold_in(k, b))(run_keys)
        kp, kt = jax.vmap(lambda k: tuple(jax.random.split(k)))(kb)
        noise = jax.vmap(draw, out_axes=-1)(kp)  # leaves (BLOCK, K, ..., R)
        u = jax.vmap(lambda k: jax.random.uniform(k, (BLOCK,)), out_axes=-1)(kt)
        noise, u = lax.optimization_barrier((noise, u))

        def inner(st, xs):
            t, nz, ut = xs
            keys = jax.vmap(jax.random.fold_in, in_axes=(0, None))(kp, t)
            return vstep(st, keys, nz, ut, mu), None

        state, _ = lax.scan(inner, state, (jnp.arange(BLOCK), noise, u), unroll=UNROLL)
        return state

    @jax.jit
    def sim(state, run_keys, mu):
        return lax.scan(lambda st, b: (one_block(st, b, run_keys, mu), None), state, jnp.arange(n_blocks))[0]

    return sim


def bench_in_situ(attempts_list, n_steps, repeats):
    n_blocks = max(1, n_steps // BLOCK)
    steps = n_blocks * BLOCK
    run_keys = jax.random.split(threefry.key(42), R)  # the engine's generator
    mu = jax.random.uniform(jax.random.key(3), (K, R))  # arm means, uniform on [0, 1]
    zeros = jnp.zeros((K, R))
    rows, final = [], None
    sim = make_sim(gauss_step, lambda k: jax.random.normal(k, (BLOCK, K)), n_blocks)
    t_gauss = timeit(sim, (zeros, zeros), run_keys, mu, repeats=repeats)
    rows.append(("Gaussian TS (K normals/step)", steps, t_gauss))
    for m in attempts_list:
        draw = lambda k, m=m: samplers.draw_beta_noise(k, (BLOCK, K), attempts=m)
        sim = make_sim(beta_step, draw, n_blocks)
        rows.append((f"Beta TS, samplers.beta, att={m}", steps, timeit(sim, (zeros, zeros), run_keys, mu, repeats=repeats)))
        final = sim((zeros, zeros), run_keys, mu)
    jb_blocks = 3
    sim = make_sim(jax_beta_step, lambda k: jnp.zeros((BLOCK, K)), jb_blocks)
    rows.append(("Beta TS, jax.random.beta", jb_blocks * BLOCK, timeit(sim, final, run_keys, mu, repeats=1)))

    print(f"\nIn situ: Bernoulli TS, K={K}, {R} runs vmapped (runs axis last), blocks of {BLOCK} steps")
    print(f"{'variant':32s} {'steps':>6s} {'total s':>8s} {'us/step':>8s} {'x Gauss':>8s} {'Mbeta/s':>8s}")
    g_per = t_gauss / steps
    for name, st, t in rows:
        per = t / st
        print(f"{name:32s} {st:6d} {t:8.2f} {per * 1e6:8.1f} {per / g_per:8.2f} {K * R / per / 1e6:8.2f}")
    s, f = final
    ab = jnp.concatenate([s.ravel() + 1, f.ravel() + 1])
    q = jnp.percentile(ab, jnp.array([25, 50, 75, 90, 99]))
    print(f"final shapes S+1, F+1: quartiles/p90/p99 {[int(v) for v in q]}, max {int(ab.max())}")
    # rejection probability of one Cheng attempt at the final shapes (Monte Carlo)
    C = samplers._beta_consts(s + 1, f + 1)
    u = jax.random.uniform(jax.random.key(9), (2, 64) + s.shape) + jnp.finfo(jnp.float32).epsneg
    rej = 1 - jnp.mean(jax.vmap(lambda u1, u2: samplers._cheng_attempt(u1, u2, C)[0])(u[0], u[1]))
    print(f"P(Cheng attempt rejected) at final shapes: {float(rej):.4f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--attempts", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--steps", type=int, default=10_000)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--skip-block", action="store_true")
    args = p.parse_args()
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, {os.cpu_count()} CPUs")
    if not args.skip_block:
        bench_block(args.attempts, args.repeats)
    bench_in_situ(args.attempts, args.steps, args.repeats)


if __name__ == "__main__":
    main()
