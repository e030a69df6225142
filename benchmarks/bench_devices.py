"""Throughput on one device against all devices, side by side in one process (issue 18, item 1).

The process starts with one CPU device per core (`jaxbandit.use_cpu_devices`), then alternates ``simulate(...,
devices=1)`` and ``devices=N`` on the same configuration (compilation excluded: each configuration is run once
before timing; engine seconds, best of ``--rounds`` alternations). Also reports the process's CPU time during each
timed call per second of its simulation (engine seconds): about how many cores the program kept busy.

    python benchmarks/bench_devices.py                       # Gaussian TS and Beta TS, K = 10, R = 1000, T = 10^4
    python benchmarks/bench_devices.py --policies gaussian-thompson --runs 100000   # GPU host with several GPUs
Appends a Markdown table to benchmarks/RESULTS.md with --record.
"""
from __future__ import annotations

import argparse
import datetime
import resource

import numpy as np

import jaxbandit as jb


def timed(policy, devices, means, runs, horizon, seed, options):
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    res = jb.simulate("bernoulli", policy, env_params={"means": means}, policy_options=options, horizon=horizon,
                      runs=runs, seed=seed, progress=False, chunk_steps=horizon, devices=devices)
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    busy = (cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime) / res.seconds
    return res.seconds, busy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--policies", default="gaussian-thompson,gaussian-thompson:release=float,thompson",
                    help="comma-separated NAME[:OPTION=VALUE]")
    ap.add_argument("--arms", type=int, default=10)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--devices", type=int, default=None, help="CPU devices (default: one per core)")
    ap.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = ap.parse_args()
    jb.use_cpu_devices(args.devices)
    import jax
    n = len(jax.devices())  # on an accelerator host, its accelerators
    if n == 1:
        raise SystemExit(f"only one {jax.devices()[0].platform} device: nothing to compare")
    means = list(np.round(np.linspace(0.1, 0.9, args.arms), 4))
    rows = []
    for spec in args.policies.split(","):
        policy, _, param = spec.partition(":")
        params = dict((param.split("="),)) if param else None  # a build-time option of the policy
        for d in (1, n):  # compile both first: the same horizon and record times as the timed runs
            timed(policy, d, means, args.runs, args.horizon, 0, params)
        best = {1: (np.inf, 0.0), n: (np.inf, 0.0)}
        for r in range(args.rounds):
            for d in (1, n):
                seconds, busy = timed(policy, d, means, args.runs, args.horizon, r + 1, params)
                if seconds < best[d][0]:
                    best[d] = (seconds, busy)
        agent_steps = args.runs * args.horizon
        rows.append((spec, agent_steps / best[1][0], best[1][1], agent_steps / best[n][0], best[n][1]))
        print(rows[-1], flush=True)
    dev = jax.devices()[0]
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = [f"### {when} — devices: {n} × {dev.device_kind} ({dev.platform}), jax {jax.__version__}",
             f"`python benchmarks/bench_devices.py --runs {args.runs} --horizon {args.horizon} --rounds "
             f"{args.rounds}`: K = {args.arms} Bernoulli arms, engine seconds (compilation excluded), best of "
             f"{args.rounds} alternations; cores busy = CPU seconds of the process per engine second.", "",
             f"| policy | 1 device: agent-steps/s | cores busy | {n} devices: agent-steps/s | cores busy | gain |",
             "|---|---|---|---|---|---|"]
    for spec, r1, b1, rn, bn in rows:
        lines.append(f"| {spec} | {r1:.3g} | {b1:.2f} | {rn:.3g} | {bn:.2f} | {rn / r1:.2f}× |")
    text = "\n".join(lines + [""])
    print(text)
    if args.record:
        from results_file import record
        record(text)


if __name__ == "__main__":
    main()
