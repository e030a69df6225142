"""Wall time of the full seed-001 reproduction (issue 3, item 8): experiments gdp-ts-fig1 ... gdp-ts-fig8 at their
full settings (T = 10^5, 200 runs), compilation included, as a user would run them:

    python benchmarks/bench_gdp_ts.py [--record] [--out DIR]

Figs 3 and 5 reuse the simulations of Figs 2 and 4 (same output directory), as `jaxbandit reproduce ID --out DIR`
does. Target: under 5 minutes on the 2-core CPU (the paper: about 2 hours on an M1 Pro laptop, 10 runs).
"""
from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import experiments  # noqa: E402
from experiments import runner  # noqa: E402

PLAN = [("gdp-ts-fig1", "fig1"), ("gdp-ts-fig2", "bernoulli"), ("gdp-ts-fig3", "bernoulli"),
        ("gdp-ts-fig4", "truncexp"), ("gdp-ts-fig5", "truncexp"), ("gdp-ts-fig6", "fig6"), ("gdp-ts-fig7", "fig6"),
        ("gdp-ts-fig8", "fig8")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", action="store_true", help="insert the result into benchmarks/RESULTS.md")
    ap.add_argument("--out", help="output directory (default: a temporary one)")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="gdp-ts-")
    times = {}
    t_all = time.perf_counter()
    for exp_id, sub in PLAN:
        if exp_id not in experiments.REGISTRY:
            print(f"{exp_id}: not implemented yet, skipped")
            continue
        t0 = time.perf_counter()
        runner.run(experiments.load(exp_id), os.path.join(out, sub), quick=False, progress=False, log=lambda *a: None)
        times[exp_id] = time.perf_counter() - t0
        print(f"{exp_id}: {times[exp_id]:.1f} s", flush=True)
    total = time.perf_counter() - t_all
    from bench_engine import machine
    import jax
    missing = [e for e, _ in PLAN if e not in times]
    text = "\n".join([
        f"### {datetime.datetime.now():%Y-%m-%d %H:%M} — {machine()}, jax {jax.__version__}",
        "Full settings (T = 10^5, 200 runs, 3 budgets η, b grids of experiments/gdp_ts.py); wall time with "
        "compilation; Figs 3/5 reuse Figs 2/4's simulations.", "",
        "| experiment | seconds |", "|---|---|",
        *[f"| {e} | {s:.1f} |" for e, s in times.items()],
        f"| **total** | **{total:.1f}** ({total / 60:.2f} min; target < 5 min) |",
        *([f"\nNot yet implemented, not timed: {', '.join(missing)}."] if missing else []), ""])
    print(text)
    if args.record:
        from results_file import record
        record(text, section="## Seed 001 full reproduction (issue 3, item 8)")


if __name__ == "__main__":
    main()
