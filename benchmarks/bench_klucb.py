"""kl-UCB index: the former 26-step bisection, the Newton solver without and with its batch-axis-last vmap rule
(`jaxbandit.policies.ucb.klucb_index`), side by side in one run, on (K = 10, 1000 runs) blocks of means and
exploration levels — once as plain arrays, once per run under vmap as a policy computes it (level = f(t)/n_a,
which JAX batches with the batch axis first) — and the end-to-end speed of `klucb-cf` in the engine (1000 runs,
K = 10, seed 002 Exp. 6.1).

Run:  PYTHONPATH=. python benchmarks/bench_klucb.py [--repeats 5] [--horizon 5000] [--record]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from jaxbandit.policies.ucb import bernoulli_kl, klucb_index  # noqa: E402


def bisection_index(mean, level, steps=26):
    """The previous implementation (for comparison only): bisection on [mean, 1] of d(mean, q) <= level."""
    def body(_, bounds):
        lo, hi = bounds
        mid = (lo + hi) / 2
        ok = bernoulli_kl(mean, mid) <= level
        return jnp.where(ok, mid, lo), jnp.where(ok, hi, mid)
    return jax.lax.fori_loop(0, steps, body, (mean, jnp.ones_like(mean)))[0]


def best_time(f, *args, repeats):
    jax.block_until_ready(f(*args))
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(f(*args))
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--horizon", type=int, default=5000)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    mean = jnp.asarray(rng.uniform(0, 1, (200, 10, 1000)), jnp.float32)
    level = jnp.asarray(np.exp(rng.uniform(np.log(1e-4), np.log(5), (200, 10, 1000))), jnp.float32)
    counts = jnp.asarray(rng.integers(1, 1000, (200, 10, 1000)), jnp.float32)
    f_run = jnp.asarray(rng.uniform(2, 20, (200, 1000)), jnp.float32)
    rows = []
    solvers = (("bisection, 26 steps (before)", bisection_index),
               ("Newton, 8 steps, no batch rule", klucb_index.fun),
               ("Newton, 8 steps, batch axis last (now)", klucb_index))
    for name, fn in solvers:
        block = jax.jit(jax.vmap(fn))  # 200 "steps" of a (K, runs) block, one layout
        # As in a policy under the engine: per run, level = f(t) / n_a, a per-run scalar over per-arm counts.
        per_run = jax.vmap(lambda m, n, f: fn(m, f / n), in_axes=(-1, -1, -1), out_axes=-1)
        engine = jax.jit(lambda m, n, f: jax.lax.scan(lambda c, x: (c + per_run(*x).sum(), None), 0.0, (m, n, f))[0])
        rows.append((name, mean.size / best_time(block, mean, level, repeats=args.repeats),
                     mean.size / best_time(engine, mean, counts, f_run, repeats=args.repeats)))
    import jaxbandit as jb
    from jaxbandit.policies.corrupt import channel_params
    ch = channel_params([0.6] + [0.9] * 9, [0.6] + [0.9] * 9, 10)
    kw = dict(env="bernoulli", env_params={"means": [0.9] + [0.8] * 9}, privatizer="randomized-response",
              privatizer_params=ch, policy_params={**ch, "c": 3.0}, runs=1000, progress=False)
    short = jb.simulate(policy="klucb-cf", horizon=100, **kw).seconds          # compilation + 100 steps
    long = jb.simulate(policy="klucb-cf", horizon=100 + args.horizon, **kw).seconds
    engine = 1000 * args.horizon / max(long - short, 1e-9)
    from bench_engine import machine
    text = "\n".join([
        f"### kl-UCB index — {time.strftime('%Y-%m-%d %H:%M')} — {machine()}, jax {jax.__version__}",
        "Index evaluations per second on (200, 10, 1000) float32 blocks (means uniform on [0, 1], levels "
        "log-uniform on [1e-4, 5]); best of the repeats after a warm-up.", "",
        "| solver | indices/s, one layout | indices/s, per-run vmap as in a policy |", "|---|---|---|",
        *[f"| {n} | {a:.3g} | {b:.3g} |" for n, a, b in rows], "",
        f"klucb-cf in the engine (Exp. 6.1, K = 10, 1000 runs, {args.horizon} steps net of compilation): "
        f"{engine:.3g} agent-steps/s.", ""])
    print(text)
    if args.record:
        from results_file import record
        record(text, section="## kl-UCB index (issue 5)")


if __name__ == "__main__":
    main()
