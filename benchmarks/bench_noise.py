"""The cost of the floating-point-safe noise (issue 17): each policy with Laplace releases or Gaussian draws run
through the engine with its default release (the discrete Laplace release, 5 random words per release, or the
Gaussian draw with tails to 2^-73, 3 words per draw) and ``release="float"`` (the float draw, one word), in one process and
alternating, with Gaussian TS's float draw as a reference. Compilation is excluded (a
warm-up call of each first); each variant is timed ``--rounds`` times and the best of each is compared, in
agent-steps per second: the machine is noisy, so only ratios of best-of-N figures mean much.

    python benchmarks/bench_noise.py [--runs 1000 --horizon 2000 --rounds 3] [--record]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SECTION = "## Floating-point-safe noise (noise=1 vs the float draw)"  # the log's heading, kept (0.3's noise=1: the default)

BERNOULLI = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05]
CASES = {  # policy -> (env, env params, policy params)
    "dp-se": ("bernoulli", {"means": BERNOULLI}, {"epsilon": 1.0}),
    "lazy-ucb": ("bernoulli", {"means": BERNOULLI}, {"epsilon": 1.0}),
    "dp-ucb": ("bernoulli", {"means": BERNOULLI}, {"epsilon": 1.0}),
    "dp-ucb-bound": ("bernoulli", {"means": BERNOULLI}, {"epsilon": 1.0}),
    "dp-ucb-int": ("bernoulli", {"means": BERNOULLI}, {"epsilon": 1.0}),
    "dp-rucb": ("pareto", {"means": BERNOULLI, "v": 0.9}, {"epsilon": 1.0, "v": 0.9, "u": 2.0, "bonus": 1.0}),
    "dp-rse": ("pareto", {"means": BERNOULLI, "v": 0.9}, {"epsilon": 1.0, "v": 0.9, "u": 2.0, "theta": 0.5}),
    "ldp-rse": ("pareto", {"means": BERNOULLI, "v": 0.9}, {"epsilon": 10.0, "v": 0.9, "u": 2.0, "theta": 1.0}),
    "gaussian-thompson": ("bernoulli", {"means": BERNOULLI}, {}),
    "modified-thompson": ("bernoulli", {"means": BERNOULLI}, {"b": 5, "c": 2.0}),
    "dp-ftpl-gauss": ("bernoulli", {"means": BERNOULLI}, {"epsilon": 4.0, "delta": 0.1}),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="a subset of the policies")
    ap.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = ap.parse_args()

    import jaxbandit as jb
    sys.path.insert(0, HERE)
    from results_file import heading, record
    steps = args.runs * args.horizon

    def timed(kw):
        t0 = time.perf_counter()
        jb.simulate(**kw)
        return time.perf_counter() - t0

    common = dict(horizon=args.horizon, runs=args.runs, progress=False, seed=0)
    ref = dict(env="bernoulli", policy="gaussian-thompson", env_params={"means": BERNOULLI},
               policy_options={"release": "float"}, **common)
    jb.simulate(**ref)
    ref_best = min(timed(ref) for _ in range(args.rounds))
    rows = []
    for name, (env, ep, pp) in CASES.items():
        if args.only and name not in args.only:
            continue
        kws = {mode: dict(env=env, policy=name, env_params=ep, policy_params=pp,
                          policy_options={"release": "float"} if mode == 0 else None, **common)
               for mode in (0, 1)}
        for kw in kws.values():
            jb.simulate(**kw)  # compile
        best = {0: float("inf"), 1: float("inf")}
        for _ in range(args.rounds):
            for mode, kw in kws.items():
                best[mode] = min(best[mode], timed(kw))
        rows.append(f"| {name} | {steps / best[0]:.3g} | {steps / best[1]:.3g} | {best[1] / best[0]:.2f} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        heading(),
        "",
        f"`python benchmarks/bench_noise.py --runs {args.runs} --horizon {args.horizon} --rounds {args.rounds}`: "
        f"K = 10, best of {args.rounds} (compilation excluded); Gaussian TS (float draw) on the same machine: "
        f"{steps / ref_best:.3g} agent-steps/s.",
        "",
        "| policy | float draw (release=float): agent-steps/s | safe draw (default): agent-steps/s | time ratio |",
        "|---|---|---|---|",
        *rows,
    ])
    print(text)
    if args.record:
        record(text, SECTION)


if __name__ == "__main__":
    main()
