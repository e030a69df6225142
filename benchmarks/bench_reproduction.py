"""Wall time of a seed paper's full reproduction, compilation included, as a user would run it:

    python benchmarks/bench_reproduction.py SEED [--devices N] [--record] [--out DIR]   # SEED: seed000 ... seed004

``--devices N``: N CPU devices (default 1, one device as before issue 18; 0: one per core), the runs sharded
over them (issue 18, item 6: every seed with and without all cores). ``--only ID ...``: run only these experiments
of the seed's plan (its total is then that part's, not the seed's).

seed000 (issue 4): ldp-ts-fig2 and ldp-ts-rankflip at T = 10^5, 200 runs (the paper: 50 trials, no timing).
seed001 (issue 3, item 8): gdp-ts-fig1 ... gdp-ts-fig8 at T = 10^5, 200 runs; Figs 3 and 5 reuse the
simulations of Figs 2 and 4, and Fig. 8 Fig. 2's η = 1 and 5 sweeps, through the result cache all experiments
share, as `jaxbandit reproduce ID ID ...` does. Target: under 5 minutes on the 2-core CPU (the paper: about 2
hours on an M1 Pro laptop, 10 runs).
seed002 (issue 5): corrupt-exp61, -exp62, -exp63 and corrupt-appendix at T = 10^5, 1000 runs (the paper's).
seed003 (issue 15): dp-ftpl-fig1 ... dp-ftpl-fig7 at T = 10^6, 200 runs on instance 1 and 100 on instance 2.
seed004 (issue 16): heavy-fig1 ... heavy-fig4 and heavy-calibration at T = 10^6, 90 runs.
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
# a first run's wall time: no compiled programs from an earlier run (JAXBANDIT_COMPILATION_CACHE=1 to measure reuse)
os.environ.setdefault("JAXBANDIT_COMPILATION_CACHE", "0")

from jaxbandit.experiments import runner  # noqa: E402

# Experiments in the order they run; each writes to OUT/ID, all share the cache OUT/results (runner.output_dirs).
PLANS = {
    "seed000": dict(
        plan=["ldp-ts-fig2", "ldp-ts-rankflip"],
        section="## Seed 000 full reproduction (issue 4)",
        settings="Full settings (testbed20, T = 10^5, 200 runs, ε ∈ {0.5, 1, 2, 4, ∞}, TS and UCB × 3 "
                 "mechanisms; rank-flip experiment); wall time with compilation.", target=""),
    "seed001": dict(
        plan=["gdp-ts-fig1", "gdp-ts-fig2", "gdp-ts-fig3", "gdp-ts-fig4", "gdp-ts-fig5", "gdp-ts-fig6",
              "gdp-ts-fig7", "gdp-ts-fig8"],
        section="## Seed 001 full reproduction (issue 3, item 8)",
        settings="Full settings (T = 10^5, 200 runs, 3 budgets η, b grids of experiments/gdp_ts.py); wall time "
                 "with compilation; Figs 3/5 reuse Figs 2/4's simulations, Fig. 8 Fig. 2's η = 1, 5 sweeps.",
        target="; target < 5 min"),
    "seed002": dict(
        plan=["corrupt-exp61", "corrupt-exp62", "corrupt-exp63", "corrupt-appendix"],
        section="## Seed 002 full reproduction (issue 5)",
        settings="Full settings (K = 10, T = 10^5, 1000 runs; Exp. 6.1: 7 algorithms; 6.2: 7 ε × 2; 6.3: 5 "
                 "algorithms; Appendix III: all three on scenarios 3 and 4); wall time with compilation.", target=""),
    "seed003": dict(
        plan=["dp-ftpl-fig1", "dp-ftpl-fig2", "dp-ftpl-fig3", "dp-ftpl-fig4", "dp-ftpl-fig5", "dp-ftpl-fig6",
              "dp-ftpl-fig7"],
        section="## Seed 003 full reproduction (issue 15)",
        settings="Full settings (T = 10^6; instance 1, 9 arms, 200 runs; instance 2, 101 arms, 100 runs; Figs 4-5: "
                 "4 + 4 policies with GDP-Elim-New on both instances; Figs 6-7: Gauss and New over 11-12 values of "
                 "δ or ε); wall time with compilation.", target=""),
    "seed004": dict(
        plan=["heavy-fig1", "heavy-fig3", "heavy-fig4", "heavy-fig2", "heavy-calibration"],
        section="## Seed 004 full reproduction (issue 16)",
        settings="Full settings (90 runs, T = 10^6; the literal DPRSE also 10^7; Figs 1, 3, 4: DPRUCB and DPRSE "
                 "on S1-S3; Fig. 2: LDPRSE; the calibration and rate check); wall time with compilation.", target=""),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seed", choices=sorted(PLANS))
    ap.add_argument("--record", action="store_true", help="insert the result into benchmarks/RESULTS.md")
    ap.add_argument("--out", help="output directory (default: a temporary one)")
    ap.add_argument("--devices", type=int, default=1, help="CPU devices to shard the runs over (0: one per core)")
    ap.add_argument("--only", nargs="+", metavar="ID", help="a part of the seed's plan (e.g. corrupt-appendix)")
    args = ap.parse_args()
    if args.devices < 0:
        ap.error(f"--devices={args.devices} must be 0 (one per core) or a positive count")
    spec = PLANS[args.seed]
    plan = spec["plan"]
    unknown = sorted(set(args.only or ()) - set(plan))
    if unknown:
        ap.error(f"--only {' '.join(unknown)}: not in {args.seed}'s plan {', '.join(plan)}")
    import jaxbandit as jb
    devices = jb.use_cpu_devices(args.devices or None)  # before JAX starts
    out = args.out or tempfile.mkdtemp(prefix=f"{args.seed}-")
    times = {}
    t_all = time.perf_counter()
    for exp_id in [e for e in plan if not args.only or e in args.only]:
        t0 = time.perf_counter()
        runner.reproduce([exp_id], os.path.join(out, exp_id), progress=False, log=lambda *a: None,
                         cache=os.path.join(out, "results"), devices=devices)
        times[exp_id] = time.perf_counter() - t0
        print(f"{exp_id}: {times[exp_id]:.1f} s", flush=True)
    total = time.perf_counter() - t_all
    note = ", part of the plan" if args.only else spec["target"]
    from bench_engine import machine
    import jax
    text = "\n".join([
        f"### {datetime.datetime.now():%Y-%m-%d %H:%M} — {machine()}, jax {jax.__version__}, "
        f"{devices} CPU device{'s' if devices > 1 else ''}",
        spec["settings"], "",
        "| experiment | seconds |", "|---|---|",
        *[f"| {e} | {s:.1f} |" for e, s in times.items()],
        f"| **total** | **{total:.1f}** ({total / 60:.2f} min{note}) |", ""])
    print(text)
    print(f"outputs in {out}")
    if args.record:
        from results_file import record
        record(text, section=spec["section"])


if __name__ == "__main__":
    main()
