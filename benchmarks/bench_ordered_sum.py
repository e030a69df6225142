"""Cost of the engine's machine-independent pseudo-regret sum (`jaxbandit.engine.ordered_sum`) against ``jnp.sum``,
side by side in one run: UCB1 on K Bernoulli arms, R runs, horizon T, compilation excluded (each variant is
compiled by a first call), best of N.

    python benchmarks/bench_ordered_sum.py [--record]
"""
from __future__ import annotations

import argparse
import datetime
import platform
import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxbandit as jb
from jaxbandit import engine


def timed(num_arms, horizon, runs, repeats):
    means = list(np.linspace(0.1, 0.9, num_arms))
    sim = lambda seed: jb.simulate("bernoulli", "ucb1", env_params={"means": means}, horizon=horizon, runs=runs,
                                   seed=seed, progress=False, record=np.array([horizon]))
    sim(0)  # compile
    best = np.inf
    for r in range(repeats):
        t0 = time.perf_counter()
        sim(r + 1)
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arms", type=int, nargs="+", default=[4, 20, 200, 1000])
    ap.add_argument("--horizon", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    ordered = engine.ordered_sum
    rows = []
    for k in args.arms:
        out = {}
        for name, fn in (("jnp.sum", lambda t: jnp.sum(t, axis=0)), ("ordered_sum", ordered)):
            engine.ordered_sum = fn
            engine._ADVANCE_CACHE.clear()  # trace again with this sum
            out[name] = timed(k, args.horizon, args.runs, args.repeats)
        engine.ordered_sum = ordered
        rows.append((k, out["jnp.sum"], out["ordered_sum"]))
        print(f"K={k}: jnp.sum {out['jnp.sum']:.2f} s, ordered_sum {out['ordered_sum']:.2f} s, "
              f"ratio {out['ordered_sum'] / out['jnp.sum']:.2f}", flush=True)
    if args.record:
        from results_file import record
        lines = [f"### {datetime.date.today()}: ordered pseudo-regret sum ({platform.processor() or platform.machine()}, "
                 f"{jax.default_backend()}, jax {jax.__version__})", "",
                 f"UCB1, Bernoulli arms, R = {args.runs}, T = {args.horizon}, best of {args.repeats}, compilation "
                 "excluded.", "", "| K | jnp.sum (s) | ordered_sum (s) | ratio |", "|---|---|---|---|"]
        lines += [f"| {k} | {a:.2f} | {b:.2f} | {b / a:.2f} |" for k, a, b in rows]
        record("\n".join(lines) + "\n", section="## Machine-independent pseudo-regret sum")


if __name__ == "__main__":
    main()
