"""Where one engine step's time goes: the compiled kernels of a policy's simulation, from a `jax.profiler` trace.

    python benchmarks/profile_step.py thompson                 # Beta TS, K = 10 Bernoulli arms, R = 1000, T = 2000
    python benchmarks/profile_step.py dp-ucb --runs 200 --top 30
    python benchmarks/profile_step.py linucb-jdp --env cz --arms 100   # Chowdhury & Zhou's linear instance, d = 5

Runs `simulate` once to compile, once timed without the profiler and once under `jax.profiler.trace`, then sums
each kernel's time on the XLA:CPU worker threads per simulated step. Kernels are grouped by name without XLA's
numeric suffix, so the engine's unrolled copies of one step (`engine.UNROLL`) and the iterations of a loop count
together; "calls per step" then says how often a kernel of that name ran per step (e.g. 1.11 for a rejection
loop's body that needs a second iteration in one step of nine).

Kernel time is thread time: the runtime runs independent kernels on all cores at once, so it can exceed the wall
time per step, and the profiler's own overhead inflates both. Use it to rank kernels and compare variants in one
run, not as throughput (bench_engine.py, bench_families.py). Issue 18, item 4: benchmarks/RESULTS.md, section
"Beta sampler: where the time goes", "Where the engine's time goes".
"""
from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import jax  # noqa: E402

import jaxbandit as jb  # noqa: E402

_RUNTIME = ("ThunkExecutor", "end:")  # runtime bookkeeping events, not kernels


def kernel_times(trace_dir):
    """{kernel name without numeric suffix: (total ns, calls)} over the XLA:CPU worker threads of a trace."""
    path = glob.glob(os.path.join(trace_dir, "**", "*.xplane.pb"), recursive=True)
    if not path:
        raise RuntimeError(f"no profiler trace was written under {trace_dir}")
    data = jax.profiler.ProfileData.from_file(path[0])
    total, calls = collections.Counter(), collections.Counter()
    for plane in data.planes:
        for line in plane.lines:
            if not line.name.startswith("tf_XLAEigen"):  # XLA:CPU's worker threads
                continue
            for event in line.events:
                if event.name.startswith(_RUNTIME):
                    continue
                name = re.sub(r"\.\d+$", "", event.name)
                total[name] += event.duration_ns
                calls[name] += 1
    return {name: (total[name], calls[name]) for name in total}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("policy")
    ap.add_argument("--arms", type=int, default=10, help="K arms (Bernoulli: means evenly spaced on [0.1, 0.9])")
    ap.add_argument("--env", choices=("bernoulli", "cz"), default="bernoulli",
                    help="Bernoulli arms, or Chowdhury & Zhou's linear instance (a new one per run)")
    ap.add_argument("--dim", type=int, default=5, help="d of the linear instance")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--top", type=int, default=25, help="kernels to list")
    args = ap.parse_args()
    for name in ("arms", "runs", "horizon", "top"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be >= 1, got {getattr(args, name)}")
    if jax.default_backend() != "cpu":
        ap.error(f"the trace is read from XLA:CPU's worker threads; this backend is {jax.default_backend()}")
    if args.env == "cz":
        env, env_params = "linear", {"num_arms": args.arms, "dim": args.dim, "instance": "chowdhury-zhou"}
    else:
        env, env_params = "bernoulli", {"means": list(np.round(np.linspace(0.1, 0.9, args.arms), 4))}
    kw = dict(env_params=env_params, horizon=args.horizon, runs=args.runs, progress=False, chunk_steps=args.horizon)
    jb.simulate(env, args.policy, seed=0, **kw)  # compile
    plain = jb.simulate(env, args.policy, seed=1, **kw).seconds
    with tempfile.TemporaryDirectory() as trace_dir:
        with jax.profiler.trace(trace_dir):
            traced = jb.simulate(env, args.policy, seed=1, **kw).seconds
        kernels = kernel_times(trace_dir)
    steps = args.horizon
    busy = sum(ns for ns, _ in kernels.values()) / 1e3 / steps
    print(f"{args.policy}: {args.env}, K = {args.arms}, R = {args.runs}, T = {steps}; jax {jax.__version__}, "
          f"{len(jax.devices())} device(s), {os.cpu_count()} cores")
    print(f"wall time per step: {plain / steps * 1e6:.1f} us ({traced / steps * 1e6:.1f} us under the profiler); "
          f"kernel time per step, all threads: {busy:.1f} us")
    print("| kernel | µs per step | share | calls per step |")
    print("|---|---|---|---|")
    for name, (ns, n) in sorted(kernels.items(), key=lambda kv: -kv[1][0])[:args.top]:
        us = ns / 1e3 / steps
        print(f"| {name} | {us:.1f} | {us / busy:.0%} | {n / steps:.2f} |")


if __name__ == "__main__":
    main()
