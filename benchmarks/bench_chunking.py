"""Overhead of streaming: chunks sized by time (progress, callback, checkpoint every ~2 s) against one chunk.

The same configuration (Gaussian TS, K = 10, R runs, horizon T) runs, in one process and interleaved, as
  * ``one chunk``: ``chunk_steps=T`` (no streaming at all);
  * ``time-sized``: the default chunks, no checkpoint or callback;
  * ``+ checkpoint + callback``: the default chunks with a checkpoint file and a callback that builds the partial
    `Results` (what a live plot does before drawing).
Compilation is excluded (a warm-up call first; every variant shares one compiled advance). Each variant is timed
``--rounds`` times, alternating, and the best of each is compared: the machine is noisy, so only ratios of
best-of-N figures mean much. Target (issue 13): overhead under 3%.

    python benchmarks/bench_chunking.py [--runs 1000 --horizon 200000 --rounds 3] [--record]
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--record", action="store_true", help="append the table to benchmarks/RESULTS.md")
    args = ap.parse_args()

    import jax

    import jaxbandit as jb
    kw = dict(env="bernoulli", policy="gaussian-thompson", env_params={"means": [0.1 * i for i in range(1, 11)]},
              horizon=args.horizon, runs=args.runs, progress=False)
    folder = tempfile.mkdtemp()
    chunks = []
    variants = {
        "one chunk": dict(chunk_steps=args.horizon),
        "time-sized": {},
        "+ checkpoint + callback": dict(checkpoint=os.path.join(folder, "c.npz"),
                                        callback=lambda r: chunks.append(r.t[-1])),
    }
    jb.simulate(**kw, chunk_steps=1000)  # compile (one advance serves every variant)
    best = {name: float("inf") for name in variants}
    for _ in range(args.rounds):
        for name, extra in variants.items():
            chunks.clear()
            t0 = time.perf_counter()
            jb.simulate(**kw, **extra)
            best[name] = min(best[name], time.perf_counter() - t0)
    n_chunks = len(chunks)
    base = best["one chunk"]
    lines = [f"### {datetime.datetime.now():%Y-%m-%d %H:%M} — {platform.node() or 'machine'}, "
             f"{jax.devices()[0].device_kind}, Gaussian TS K = 10, R = {args.runs}, T = {args.horizon}, best of "
             f"{args.rounds} (interleaved)", "",
             "| variant | seconds | agent-steps/s | overhead vs one chunk |", "|---|---|---|---|"]
    for name, sec in best.items():
        lines.append(f"| {name} | {sec:.2f} | {args.runs * args.horizon / sec:.3g} | {100 * (sec / base - 1):+.1f}% |")
    lines += ["", f"The last variant streamed {n_chunks} chunks (callbacks) in its last round.", ""]
    text = "\n".join(lines)
    print(text)
    if args.record:
        with open(os.path.join(HERE, "RESULTS.md"), "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
