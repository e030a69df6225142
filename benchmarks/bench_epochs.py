"""Successive elimination epoch by epoch against the engine's step-by-step policy (seed 004, issue 16).

The same configuration (DPRSE or LDPRSE on seed 004's S1, Pareto v = 0.9, u = 8.142063, ε = 1 (central) or 10
(local), the scaled preset's θ, R runs, horizon T) runs through ``jaxbandit.simulate`` with ``simulator="steps"``
(the engine) and ``"epochs"`` (`jaxbandit.epochs`), the latter also with ``realized=False`` (the pseudo-regret only,
which skips the segments that decide nothing), in one process and alternating. Compilation is excluded (a
warm-up call of each first); each variant is timed ``--rounds`` times and the best of each is compared, in
rounds (agent-steps) per second: the machine is noisy, so only ratios of best-of-N figures mean much.

    python benchmarks/bench_epochs.py [--runs 90 --horizon 1000000 --rounds 3] [--record]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cases(runs: int, horizon: int) -> dict:
    """`jaxbandit.simulate`'s keyword arguments (the simulator aside) of DPRSE and LDPRSE on S1, by policy name."""
    s1 = [0.9, 0.7, 0.5, 0.3, 0.1]
    policies = {"dp-rse": {"epsilon": 1.0, "theta": 0.5}, "ldp-rse": {"epsilon": 10.0, "theta": 1.0}}
    return {name: dict(env="pareto", policy=name, env_params={"means": s1, "v": 0.9}, horizon=horizon, runs=runs,
                       progress=False, policy_params={"v": 0.9, "u": 8.142063, **extra})
            for name, extra in policies.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=90)
    ap.add_argument("--horizon", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = ap.parse_args()

    import jaxbandit as jb
    sys.path.insert(0, HERE)
    from results_file import heading, record
    rows = []
    variants = {"steps": {"simulator": "steps"}, "epochs": {"simulator": "epochs"},
                "pseudo": {"simulator": "epochs", "realized": False}}
    for name, kw in cases(args.runs, args.horizon).items():
        best = {}
        for sim, extra in variants.items():
            jb.simulate(**kw, **extra)  # compile
            best[sim] = float("inf")
        for _ in range(args.rounds):
            for sim, extra in variants.items():
                t0 = time.perf_counter()
                jb.simulate(**kw, **extra)
                best[sim] = min(best[sim], time.perf_counter() - t0)
        rate = {sim: args.runs * args.horizon / s for sim, s in best.items()}
        rows.append(f"| {name} | {best['steps']:.2f} | {rate['steps']:.3g} | {best['epochs']:.2f} | "
                    f"{rate['epochs']:.3g} | {best['steps'] / best['epochs']:.2f} | {best['pseudo']:.3f} | "
                    f"{rate['pseudo']:.3g} | {best['steps'] / best['pseudo']:.1f} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        heading(),
        "",
        f"`python benchmarks/bench_epochs.py --runs {args.runs} --horizon {args.horizon} --rounds {args.rounds}`: "
        f"S1, Pareto v = 0.9, best of {args.rounds} (compilation excluded).",
        "",
        "| policy | steps: s | rounds/s | epochs: s | rounds/s | speed-up | epochs, pseudo-regret only: s | rounds/s | "
        "speed-up |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
    ])
    print(text)
    if args.record:
        record(text, "## Epoch-by-epoch successive elimination (issue 16)")


if __name__ == "__main__":
    main()
