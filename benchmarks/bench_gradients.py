"""Cost of the gradient estimators (jaxbandit.gradients) per simulated agent-step, side by side in one run:
modified Thompson sampling on seed 001's Bernoulli instance (K = 5), R runs, horizon T, at b = 1000, c on the
η = 2 boundary; compilation excluded (a first call compiles), best of N.

  (a) plain simulation of the same runs (`final_regret`, the smoothed estimator's inner loop),
  (b) the smoothed estimator (2 points × R runs),
  (c) the score-function estimator (2 neighbouring b × R runs + max(8, R/4) pilot runs; Gaussian argmax
      probabilities by quadrature at every step).

    python benchmarks/bench_gradients.py [--record]
"""
from __future__ import annotations

import argparse
import datetime
import math
import platform
import time

import jax
import numpy as np

import jaxbandit as jb
from jaxbandit import gradients, tuning

MEANS = [0.75, 0.625, 0.5, 0.375, 0.25]


def best_of(fn, repeats):
    fn(0)  # compile
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        steps = fn(r + 1)
        times.append(time.perf_counter() - t0)
    return min(times), steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=32)
    ap.add_argument("--horizon", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    T, R = args.horizon, args.runs
    spec = jb.resolve("bernoulli", "modified-thompson", env_params={"means": MEANS}, horizon=T)
    space = tuning._BudgetSpace(spec, jb.accounting.Budget(mu=2.0))
    point = tuning._point(spec.params, space)
    u = np.array([math.log1p(min(1000, space.b_max // 2))])

    def plain(seed):
        gradients.final_regret(spec, [point(u, 0.5)], runs=2 * R, seed=seed)
        return 2 * R * T

    def smoothed(seed):
        return gradients.smoothed_gradient(spec, point, u, sigma=0.15, runs=R, seed=seed).agent_steps

    def score(seed):
        return gradients.score_gradient(spec, at=space.score_at(u), runs=R, seed=seed).agent_steps

    rows = []
    for name, fn in (("plain simulation", plain), ("smoothed estimator", smoothed), ("score estimator", score)):
        seconds, steps = best_of(fn, args.repeats)
        rows.append((name, seconds, steps, steps / seconds))
        print(f"{name}: {seconds:.2f} s for {steps:.3g} agent-steps, {steps / seconds:.3g} agent-steps/s", flush=True)
    if args.record:
        from results_file import record
        lines = [f"### {datetime.date.today()}: gradient estimators ({platform.processor() or platform.machine()}, "
                 f"{jax.default_backend()}, jax {jax.__version__})", "",
                 f"Modified TS, Bernoulli K = 5, b = {int(np.expm1(u[0]))} on the η = 2 boundary, R = {R}, T = {T}, "
                 f"best of {args.repeats}, compilation excluded.", "",
                 "| | seconds | agent-steps | agent-steps/s | relative to plain |", "|---|---|---|---|---|"]
        lines += [f"| {n} | {s:.2f} | {k:.3g} | {r:.3g} | {rows[0][3] / r:.1f}× slower per agent-step |"
                  for n, s, k, r in rows]
        record("\n".join(lines) + "\n", section="## Gradient estimators (issue 14)")


if __name__ == "__main__":
    main()
