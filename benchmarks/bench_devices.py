"""One device against the default layout (one device per core), per family, side by side in one process (issue 18,
item 1; issue 34, item 4: no family may lose, ≥ 0.97×).

The process starts with one CPU device per core (`jaxbandit.use_cpu_devices`, what the CLI does by default), then
alternates ``simulate(..., devices=1)`` and ``devices=N`` on the same configuration: `bench_families.py`'s case of
each family (K = 10 Bernoulli arms, the default release), and the epoch-by-epoch simulation of DPRSE and LDPRSE on
seed 004's S1 (`bench_epochs.py`'s cases). Compilation is excluded (each configuration runs once before timing);
engine seconds, best of ``--rounds`` alternations. Also reports the process's CPU seconds per engine second of each
timed call: about how many cores the program kept busy.

    python benchmarks/bench_devices.py [--runs 1000 --horizon 4000 --rounds 3] [--only NAME ...] [--record]
    python benchmarks/bench_devices.py --only gaussian-thompson --runs 100000   # a host with several GPUs
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SECTION = "## One device against the default layout (bench_devices.py)"


def timed(jb, kw, devices, seed):
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    res = jb.simulate(**kw, seed=seed, devices=devices)
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    busy = (cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime) / res.seconds
    return res.seconds, busy


def cases(runs: int, horizon: int):
    """(label, policy, `simulate` keyword arguments): every family of bench_families.py, then the epoch simulator."""
    sys.path.insert(0, HERE)
    import bench_epochs
    import bench_families
    for family, (name, params, channel) in bench_families.CASES.items():
        yield family, name, dict(env="bernoulli", policy=name,
                                 **bench_families.case_kwargs(params, channel, runs, horizon))
    for name, kw in bench_epochs.cases(runs, 50 * horizon).items():
        yield f"{name}, epoch by epoch (T = {50 * horizon})", name, dict(kw, simulator="epochs")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=4000, help="T of the step engine's cases (epochs: 50 T)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="a subset of the policies (registry names)")
    ap.add_argument("--devices", type=int, default=None, help="CPU devices (default: one per core)")
    ap.add_argument("--record", action="store_true", help="insert the table into benchmarks/RESULTS.md")
    args = ap.parse_args()
    import jaxbandit as jb
    jb.use_cpu_devices(args.devices)
    import jax
    n = len(jax.devices())  # on an accelerator host, its accelerators
    if n == 1:
        raise SystemExit(f"only one {jax.devices()[0].platform} device: nothing to compare")
    rows = []
    for label, name, kw in cases(args.runs, args.horizon):
        if args.only and name not in args.only:
            continue
        for d in (1, n):  # compile both first
            timed(jb, kw, d, 0)
        best = {1: (math.inf, 0.0), n: (math.inf, 0.0)}
        for r in range(args.rounds):
            for d in (1, n):
                seconds, busy = timed(jb, kw, d, r + 1)
                if seconds < best[d][0]:
                    best[d] = (seconds, busy)
        steps = args.runs * kw["horizon"]
        rows.append(f"| {label} | `{name}` | {steps / best[1][0]:.3g} | {best[1][1]:.2f} | {steps / best[n][0]:.3g} | "
                    f"{best[n][1]:.2f} | {best[1][0] / best[n][0]:.2f}× |")
        print(rows[-1], flush=True)
    sys.path.insert(0, HERE)
    from results_file import heading, record
    dev = jax.devices()[0]
    text = "\n".join([
        f"{heading()}: {n} × {dev.device_kind}",
        "",
        f"`python benchmarks/bench_devices.py --runs {args.runs} --horizon {args.horizon} --rounds {args.rounds}`: "
        f"engine seconds (compilation excluded), best of {args.rounds} alternations; cores busy = CPU seconds of "
        "the process per engine second.",
        "",
        f"| family | policy | 1 device: agent-steps/s | cores busy | {n} devices: agent-steps/s | cores busy | "
        f"{n} devices / 1 |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ])
    print(text)
    if args.record:
        record(text, SECTION)


if __name__ == "__main__":
    main()
