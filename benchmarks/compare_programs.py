"""Is the simulation program the same after a change? For a refactor that should not touch the simulated step,
comparing the compiled program settles what timings on a noisy machine cannot (a 5% question with ±20% noise).

For each case of bench_families.py (default draw, and the float draw where the policy has one), this runs the
engine once per checkout in a fresh process with ``XLA_FLAGS=--xla_dump_to``, takes XLA's optimized HLO of the
simulation program (``jit(advance)``), renames its values in order of appearance (operand wiring kept) and drops
source locations, and says whether the two programs are identical.

    python benchmarks/compare_programs.py --before /path/to/old/checkout [--only NAME ...]

``--before`` is a checkout whose package is importable from that folder (``PYTHONPATH=DIR``). The old version's
float draw is the numeric parameter ``noise=0`` where it has no ``release`` option (jaxbandit 0.3).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

RUN_ONE = r"""
import sys
sys.path.insert(0, {here!r})
import jaxbandit as jb
from bench_families import CASES, case_kwargs
name, mode = {name!r}, {mode!r}
params, channel = next((p, c) for n, p, c in CASES.values() if n == name)
kw = case_kwargs(params, channel, runs=1000, horizon=2000)
if mode == "float":
    if "release" in getattr(jb.policies, "option_names", lambda n: ())(name):
        kw["policy_options"] = {{"release": "float"}}
    else:  # jaxbandit 0.3: the float draw was a numeric parameter
        kw["policy_params"] = {{**params, "noise": 0}}
jb.simulate("bernoulli", name, seed=0, **kw)
"""


def canonical(text: str) -> list[str]:
    """The HLO's computations with value names numbered in order of first use and source locations dropped."""
    names: dict[str, str] = {}

    def rename(match):
        return names.setdefault(match.group(0), f"%v{len(names)}")

    out = []
    for line in text.splitlines():
        if line.startswith("HloModule") or re.match(r'^\s*\d+ ', line):  # header and location tables
            continue
        line = re.sub(r", metadata=\{[^}]*\}", "", line)
        line = re.sub(r", stack_frame_id=\d+", "", line)
        out.append(re.sub(r"%[A-Za-z_][A-Za-z_.0-9-]*", rename, line))
    return out


def program(checkout: str | None, name: str, mode: str) -> list[str]:
    with tempfile.TemporaryDirectory() as dump:
        env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={dump} --xla_dump_hlo_as_text",
                   JAX_ENABLE_COMPILATION_CACHE="false")
        if checkout:
            env["PYTHONPATH"] = checkout
        else:
            env.pop("PYTHONPATH", None)
        subprocess.run([sys.executable, "-c", RUN_ONE.format(here=HERE, name=name, mode=mode)], env=env, check=True,
                       cwd=checkout or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = glob.glob(os.path.join(dump, "*jit_advance.*after_optimizations.txt"))  # any backend's name
        if len(found) != 1:
            raise RuntimeError(f"{name} {mode}: expected one optimized jit(advance) program, found {len(found)}")
        with open(found[0]) as f:
            return canonical(f.read())


def main(argv=None):
    sys.path.insert(0, HERE)
    from bench_families import CASES

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the old checkout (a folder holding its jaxbandit package)")
    ap.add_argument("--only", nargs="+", default=None, help="policy names (default: every case)")
    args = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(args.before, "jaxbandit")):
        ap.error(f"--before {args.before}: no jaxbandit package in that folder")
    import jaxbandit as jb
    different = 0
    for name, _, _ in CASES.values():
        if args.only and name not in args.only:
            continue
        modes = ["default"] + (["float"] if "release" in jb.policies.option_names(name) else [])
        for mode in modes:
            old, new = program(args.before, name, mode), program(None, name, mode)
            same = old == new
            different += not same
            print(f"{name:20s} {mode:8s} {'identical' if same else 'DIFFERENT'} ({len(new)} lines)", flush=True)
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
