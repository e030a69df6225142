"""Agent-steps per second, side by side in one run (issue 2, item 9).

Gaussian TS and Beta–Bernoulli TS on K = 10 Bernoulli arms, R runs, horizon T:
  (a) jaxbandit (`simulate`, compilation excluded: the second of two calls with different seeds),
  (b) a hand-written NumPy loop over t, vectorized across runs,
  (c) the RNG limit: raw `jax.random.normal` throughput for the same number of variates (K per agent-step),
      drawn in (50, K, R) blocks inside a scan: with JAX's Threefry (non-partitionable and default
      partitionable modes) and with the engine's generator (`jaxbandit.random.threefry`, the same bits with the hash
      unrolled), which is the stricter limit.

    python benchmarks/bench_engine.py                    # CPU: R = 1000, T = 10^4
    python benchmarks/bench_engine.py --runs 100000      # GPU
Appends a Markdown table to benchmarks/RESULTS.md with --record.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxbandit as jb
from jaxbandit.random import threefry
from jaxbandit.engine import BLOCK


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def jaxbandit_rate(policy, means, runs, horizon, repeats, policy_options=None):
    kw = dict(env_params={"means": means}, horizon=horizon, runs=runs, progress=False, chunk_steps=horizon,
              policy_options=policy_options)
    jb.simulate("bernoulli", policy, seed=0, **kw)  # compile
    seconds = []
    for seed in range(1, repeats + 1):
        res = jb.simulate("bernoulli", policy, seed=seed, **kw)
        seconds.append(res.seconds)
    return runs * horizon / min(seconds)


def numpy_rate(policy, means, runs, horizon, repeats):
    means = np.asarray(means)
    K = len(means)

    def run():
        rng = np.random.default_rng(0)
        rows = np.arange(runs)
        s = np.zeros((runs, K)); n = np.zeros((runs, K))
        for _ in range(horizon):
            if policy == "gaussian-thompson":
                theta = s / (n + 1) + rng.standard_normal((runs, K)) / np.sqrt(n + 1)
            else:  # Beta(S+1, F+1) with S = successes, F = n − S
                theta = rng.beta(s + 1, n - s + 1)
            a = theta.argmax(axis=1)
            r = (rng.random(runs) < means[a]).astype(float)
            s[rows, a] += r
            n[rows, a] += 1

    return runs * horizon / best_of(run, repeats)


def rng_limit(K, runs, horizon, make_key, partitionable, repeats):
    blocks = horizon // BLOCK

    @jax.jit
    def draw(key):
        def body(acc, b):
            return acc + jnp.sum(jax.random.normal(jax.random.fold_in(key, b), (BLOCK, K, runs))), None
        return jax.lax.scan(body, jnp.float32(0), jnp.arange(blocks))[0]

    with jax.threefry_partitionable(partitionable):
        draw(make_key(0)).block_until_ready()
        t = best_of(lambda: draw(make_key(1)).block_until_ready(), repeats)
    return runs * blocks * BLOCK / t


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    dev = jax.devices()[0]
    return f"{dev.device_kind if dev.platform != 'cpu' else cpu}, {os.cpu_count()} cores, backend {dev.platform}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arms", type=int, default=10)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--numpy-horizon", type=int, default=None, help="shorter horizon for the NumPy loops")
    ap.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = ap.parse_args()
    K, R, T = args.arms, args.runs, args.horizon
    means = list(np.round(np.linspace(0.1, 0.9, K), 4))
    np_T = args.numpy_horizon or min(T, 2000)
    rows = []
    limits = {"jax.random, non-partitionable": rng_limit(K, R, T, jax.random.key, False, args.repeats),
              "jax.random, partitionable (default)": rng_limit(K, R, T, jax.random.key, True, args.repeats),
              "jaxbandit.random.threefry (unrolled hash)": rng_limit(K, R, T, threefry.key, False, args.repeats)}
    jax_limit = max(limits["jax.random, non-partitionable"], limits["jax.random, partitionable (default)"])
    strict = max(limits.values())
    rates = {}
    # Gaussian TS: its default draw (tails to 2^-73, three words per normal) and the float draw (release=float, one
    # word, jax.random.normal: the RNG limit's draw); the NumPy loop's normal is NumPy's.
    for label, policy, options in [("gaussian-thompson", "gaussian-thompson", None),
                                   ("gaussian-thompson, release=float", "gaussian-thompson", {"release": "float"}),
                                   ("thompson", "thompson", None)]:
        rates[label] = jaxbandit_rate(policy, means, R, T, args.repeats, options)
        if label != "gaussian-thompson, release=float":
            npr = numpy_rate(policy, means, R, np_T, 1 if policy == "thompson" else args.repeats)
        rows.append((label, rates[label], npr))
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = [f"### {when} — {machine()}, jax {jax.__version__}",
             f"K = {K} Bernoulli arms, {R} runs, T = {T} (NumPy loops: T = {np_T}); best of {args.repeats}; "
             "compilation excluded.", "",
             "| policy | jaxbandit agent-steps/s | NumPy loop | jaxbandit / NumPy | / RNG limit (jax.random) "
             "| / fastest RNG limit |",
             "|---|---|---|---|---|---|"]
    for policy, jr, npr in rows:
        lines.append(f"| {policy} | {jr:.3g} | {npr:.3g} | {jr / npr:.2f}× | {jr / jax_limit:.0%} | "
                     f"{jr / strict:.0%} |")
    lines += ["", f"RNG limits (raw `jax.random.normal`, K = {K} variates per agent-step, (50, K, R) blocks, "
              "agent-steps/s): " + "; ".join(f"{name}: {v:.3g}" for name, v in limits.items()) + ".",
              f"Beta TS / Gaussian TS speed: {rates['thompson'] / rates['gaussian-thompson']:.2f} (default draw), "
              f"{rates['thompson'] / rates['gaussian-thompson, release=float']:.2f} (float draw).", ""]
    text = "\n".join(lines)
    print(text)
    if args.record:
        from results_file import record
        record(text)


if __name__ == "__main__":
    main()
