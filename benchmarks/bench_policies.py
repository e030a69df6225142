"""Engine throughput of every registered policy, optionally side by side with another checkout of jaxbandit.

For each policy (its configuration of tests/golden.py: K = 4 arms, its privatizer), `simulate` with R runs and
horizon T, compilation excluded (the best of ``--repeats`` timed calls after a warm-up call). With ``--compare DIR``
the same measurement runs alternately in this checkout and in DIR (e.g. a `git worktree` of the commit before a
refactor), ``--rounds`` times each, in fresh processes, and the table reports the best rate of each side and their
ratio — this machine is noisy, so only ratios of interleaved best-of-N figures mean much.

    python benchmarks/bench_policies.py                              # this checkout
    python benchmarks/bench_policies.py --compare ../before --record # before/after table into RESULTS.md
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def measure(runs: int, horizon: int, repeats: int, names=None) -> dict:
    """``{policy: agent-steps per second}`` in this process (the jaxbandit importable here)."""
    import jaxbandit as jb
    sys.path.insert(0, ROOT)
    from tests import golden
    rates = {}
    for name in names or sorted(golden.POLICY_CASES):
        env, ep, pp, priv, qp, _ = golden.POLICY_CASES[name]
        kw = dict(env_params=ep, policy_params=pp, privatizer=priv, privatizer_params=qp, horizon=horizon,
                  runs=runs, progress=False, chunk_steps=horizon)
        jb.simulate(env, name, seed=0, **kw)  # compile
        best = min(jb.simulate(env, name, seed=s, **kw).seconds for s in range(1, repeats + 1))
        rates[name] = runs * horizon / best
    return rates


def _in_subprocess(checkout: str, args) -> dict:
    code = (f"import json, sys; sys.path.insert(0, {HERE!r}); import bench_policies; "
            f"print(json.dumps(bench_policies.measure({args.runs}, {args.horizon}, {args.repeats}, "
            f"{args.policies!r})))")
    env = {**os.environ, "PYTHONPATH": checkout}
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _commit(checkout: str) -> str:
    out = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--horizon", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--rounds", type=int, default=2, help="alternations with --compare")
    p.add_argument("--policies", nargs="*", default=None)
    p.add_argument("--compare", metavar="DIR", help="another checkout to measure alternately")
    p.add_argument("--record", action="store_true", help="insert the table into benchmarks/RESULTS.md")
    args = p.parse_args(argv)

    sides = {"this": ROOT} if not args.compare else {"before": os.path.abspath(args.compare), "after": ROOT}
    best: dict = {side: {} for side in sides}
    for _ in range(args.rounds if args.compare else 1):
        for side, checkout in sides.items():
            for name, rate in _in_subprocess(checkout, args).items():
                best[side][name] = max(best[side].get(name, 0.0), rate)
    names = sorted(next(iter(best.values())))
    if args.compare:
        lines = ["| policy | before (agent-steps/s) | after | after / before |", "|---|---|---|---|"]
        lines += [f"| {n} | {best['before'][n]:.3g} | {best['after'][n]:.3g} | "
                  f"{best['after'][n] / best['before'][n]:.3f} |" for n in names]
    else:
        lines = ["| policy | agent-steps/s |", "|---|---|"] + [f"| {n} | {best['this'][n]:.3g} |" for n in names]
    table = "\n".join(lines)
    print(table)
    if args.record:
        sys.path.insert(0, HERE)
        from results_file import record
        import jax
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        what = (f"before = commit {_commit(args.compare)}, after = commit {_commit(ROOT)} (+ working tree), "
                f"{args.rounds} alternations") if args.compare else ""
        record(f"### {stamp} — {platform.node()}, {jax.devices()[0].device_kind}, R = {args.runs}, "
               f"T = {args.horizon}, best of {args.repeats}{'; ' + what if what else ''}\n\n{table}\n",
               section="## Per-policy engine throughput (bench_policies.py)")


if __name__ == "__main__":
    main()
