"""Per-family speed against NumPy (issue 18, item 3): for one policy of each family, jaxbandit's engine and a
hand-written NumPy loop of the same policy vectorised across runs (benchmarks/numpy_policies.py, checked against
the engine's regret in tests/test_numpy_references.py), side by side in one process, alternating, best of N.

K = 10 Bernoulli arms (the corrupt family: K = 10 under a randomized-response channel of ε = 1 on every arm),
R runs, horizon T; jaxbandit's compilation excluded (a warm-up call first). Private policies are timed with their
default floating-point-safe draw and with the float draw (the option ``release="float"``), the NumPy loops' own
kind of noise.

    python benchmarks/bench_families.py [--runs 1000 --horizon 2000 --rounds 3] [--only NAME ...] [--record]
    python benchmarks/bench_families.py --runs 100000 --horizon 2000 --numpy-horizon 50 --rounds 2  # GPU
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SECTION = "## Per-family speed against NumPy (bench_families.py)"

MEANS = [0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
RR = 1 / (1 + math.exp(-1.0))  # randomized response at ε = 1: p00 = p11 = e/(1 + e)
CHANNEL = {"p00": [RR] * len(MEANS), "p11": [RR] * len(MEANS)}
CASES = {  # family -> (policy, policy params (the NumPy loop's too), privatizer params or None)
    "Beta TS": ("thompson", {}, None),
    "Gaussian TS": ("gaussian-thompson", {}, None),
    "modified TS": ("modified-thompson", {"b": 5, "c": 2.0}, None),
    "UCB1": ("ucb1", {}, None),
    "kl-UCB": ("klucb", {}, None),
    "ε-greedy": ("epsilon-greedy", {"epsilon": 0.1}, None),
    "corrupt: UCB-CF": ("ucb-cf", {**CHANNEL, "c": 3.0}, CHANNEL),
    "corrupt: kl-UCB-CF": ("klucb-cf", {**CHANNEL, "c": 3.0}, CHANNEL),
    "corrupt: TS-CF": ("ts-cf", dict(CHANNEL), CHANNEL),
    "DP-SE": ("dp-se", {"epsilon": 1.0, "beta": 0.1}, None),
    "lazy-UCB": ("lazy-ucb", {"epsilon": 1.0}, None),
    "DP-UCB-BOUND": ("dp-ucb-bound", {"epsilon": 1.0}, None),
    "DP-UCB": ("dp-ucb", {"epsilon": 1.0}, None),
    "DP-UCB-INT": ("dp-ucb-int", {"epsilon": 1.0, "v": 1.1}, None),
    "FTPL: DP-FTPL-New": ("dp-ftpl-new", {"epsilon": 1.0, "delta": 0.01}, None),
    # Heavy-tailed DP bandits on the same Bernoulli arms, with its constants scaled down as in tests/golden.py (epochs end)
    "heavy-tailed: DPRSE": ("dp-rse", {"epsilon": 1.0, "v": 0.9, "u": 1.0, "beta": 0.1, "theta": 1.0}, None),
}


def case_kwargs(params, channel, runs: int, horizon: int) -> dict:
    """`jaxbandit.simulate`'s keyword arguments for a case (its policy params and channel), the draw's option aside:
    one chunk, no progress bar."""
    return dict(env_params={"means": MEANS}, policy_params=params,
                privatizer="randomized-response" if channel else "identity", privatizer_params=channel,
                horizon=horizon, runs=runs, progress=False, chunk_steps=horizon)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3, help="alternations; the best of each side is kept")
    ap.add_argument("--numpy-horizon", type=int, default=None,
                    help="the NumPy loops' horizon (default: --horizon); on a GPU at 10^5 runs the host loops would "
                         "take most of the time, and their rate per agent-step hardly depends on T")
    ap.add_argument("--only", nargs="*", help="a subset of the policies (registry names)")
    ap.add_argument("--record", action="store_true", help="insert the table into benchmarks/RESULTS.md")
    args = ap.parse_args()

    import jaxbandit as jb
    sys.path.insert(0, HERE)
    import numpy_policies
    from results_file import heading, record

    steps = args.runs * args.horizon
    numpy_horizon = args.numpy_horizon or args.horizon
    rows = []
    for family, (name, params, channel) in CASES.items():
        if args.only and name not in args.only:
            continue
        has_mode = "release" in jb.policies.option_names(name)
        modes = (None, 0) if has_mode else (None,)
        kws = {mode: dict(case_kwargs(params, channel, args.runs, args.horizon),
                          policy_options=None if mode is None else {"release": "float"})
               for mode in modes}
        for kw in kws.values():
            jb.simulate("bernoulli", name, seed=0, **kw)  # compile
        best = {mode: math.inf for mode in modes}
        best_numpy = math.inf
        for r in range(args.rounds):
            for mode, kw in kws.items():
                best[mode] = min(best[mode], jb.simulate("bernoulli", name, seed=r + 1, **kw).seconds)
            t0 = time.perf_counter()
            numpy_policies.CASES[name](MEANS, args.runs, numpy_horizon, seed=r, **params)
            best_numpy = min(best_numpy, time.perf_counter() - t0)
        rate = {mode: steps / s for mode, s in best.items()}
        numpy_rate = args.runs * numpy_horizon / best_numpy
        float_cells = (f"{rate[0]:.3g} | {rate[0] / numpy_rate:.2f}×" if has_mode else "— | —")
        rows.append(f"| {family} | `{name}` | {rate[None]:.3g} | {float_cells} | {numpy_rate:.3g} | "
                    f"{rate[None] / numpy_rate:.2f}× |")
        print(rows[-1], flush=True)
    text = "\n".join([
        heading(),
        "",
        f"`python benchmarks/bench_families.py --runs {args.runs} --horizon {args.horizon} --rounds {args.rounds}"
        + (f" --numpy-horizon {numpy_horizon}" if numpy_horizon != args.horizon else "") + "`: "
        f"K = 10, agent-steps/s, best of {args.rounds} alternations (jaxbandit's compilation excluded)"
        + (f"; the NumPy loops ran T = {numpy_horizon}" if numpy_horizon != args.horizon else "") + ".",
        "",
        "| family | policy | jaxbandit (default) | jaxbandit (release=float) | / NumPy | NumPy loop | default / NumPy |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ])
    print(text)
    if args.record:
        record(text, SECTION)


if __name__ == "__main__":
    main()
