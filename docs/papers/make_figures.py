"""Regenerate the figures of the paper pages: docs/papers/figures/*.png.

    .venv/bin/python docs/papers/make_figures.py [--only ID ...] [--keep DIR] [--list]

For each experiment of `FIGURES`, one after the other (never in parallel), this runs the command line

    jaxbandit reproduce ID [--quick] --out TMP/ID --cache TMP/results --no-progress

and copies the PNGs that the experiment writes into docs/papers/figures/ under stable names. The copies are
re-encoded with a 256-colour palette (a plot has few colours: the image looks the same at about a third of the
size), and scaled down only if one is still over `MAX_BYTES`. All experiments share one result cache, so an
experiment that reuses another's simulations (gdp-ts-fig3 reuses gdp-ts-fig2's) does not run them again.

The setting is the experiment's quick one (`--quick`: small horizon, few runs) unless its full setting ran in
under about 90 s on the 2-core CPU machine (then `quick` is False below). The quick setting is stamped in each
figure's title ("QUICK ..."); the captions on the paper pages say which setting each figure shows.
Measured on the 2-core CPU machine, shared: about 17 minutes for all of them.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES_DIR = os.path.join(HERE, "figures")
MAX_BYTES = 200_000

# (experiment id, quick, {PNG written by the experiment: name in docs/papers/figures/}), in the order they run.
FIGURES = [
    ("ldp-ts-fig2", True, {"fig2.png": "ldp-ts-fig2.png", "regret_vs_epsilon.png": "ldp-ts-regret-vs-epsilon.png"}),
    ("gdp-ts-fig1", False, {"fig1.png": "gdp-ts-fig1.png"}),
    ("gdp-ts-fig2", False, {"fig2.png": "gdp-ts-fig2.png"}),
    ("gdp-ts-fig3", False, {"fig3.png": "gdp-ts-fig3.png"}),   # reuses gdp-ts-fig2's simulations (the cache)
    ("corrupt-exp61", True, {"fig2a.png": "corrupt-fig2a.png"}),
    ("corrupt-exp62", True, {"fig2b.png": "corrupt-fig2b.png"}),
    ("corrupt-exp63", True, {"fig2c.png": "corrupt-fig2c.png"}),
    ("dp-ftpl-fig4", True, {"fig4.png": "dp-ftpl-fig4.png"}),
    ("dp-ftpl-fig5", True, {"fig5.png": "dp-ftpl-fig5.png"}),
    ("dp-ftpl-fig7", True, {"fig7.png": "dp-ftpl-fig7.png"}),
    ("heavy-fig1", True, {"fig1_scaled.png": "heavy-fig1-scaled.png", "fig1_literal.png": "heavy-fig1-literal.png"}),
    ("heavy-fig2", True, {"fig2_scaled.png": "heavy-fig2-scaled.png"}),
    ("cz-table", True, {"cz_table.png": "cz-table.png"}),
    ("ss-gaps", True, {"ss_gaps.png": "ss-gaps.png"}),
    ("adap-regret", False, {"adap_regret.png": "adap-regret.png"}),    # about 2 minutes
    ("adap-epsilon", False, {"adap_epsilon.png": "adap-epsilon.png"}),  # about 2.5 minutes
]


def jaxbandit_command() -> list:
    """The command line of this interpreter's environment: its `jaxbandit` script, else `python -m jaxbandit.cli`."""
    script = os.path.join(os.path.dirname(sys.executable), "jaxbandit")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "jaxbandit.cli"]


def compact_png(source: str, target: str, max_bytes: int = MAX_BYTES) -> int:
    """Copy `source` to `target` as a 256-colour palette PNG, scaled down until it is under `max_bytes` (at most
    to half its size); returns the bytes written."""
    from PIL import Image
    image = Image.open(source).convert("RGB")
    scale = 1.0
    while True:
        size = (round(image.width * scale), round(image.height * scale))
        resized = image if scale == 1.0 else image.resize(size, Image.Resampling.LANCZOS)
        palette = resized.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        palette.save(target, optimize=True)
        written = os.path.getsize(target)
        if written <= max_bytes or scale <= 0.5:
            return written
        scale *= 0.85


def run(experiment: str, quick: bool, pngs: dict, work: str) -> float:
    """Reproduce one experiment into WORK/ID and copy its PNGs; returns the seconds the reproduction took."""
    out = os.path.join(work, experiment)
    command = jaxbandit_command() + ["reproduce", experiment, "--out", out, "--cache", os.path.join(work, "results"),
                                     "--no-progress"] + (["--quick"] if quick else [])
    print(f"$ jaxbandit {' '.join(command[len(jaxbandit_command()):])}", flush=True)
    start = time.perf_counter()
    subprocess.run(command, check=True)
    seconds = time.perf_counter() - start
    os.makedirs(FIGURES_DIR, exist_ok=True)
    for png, name in pngs.items():
        source = os.path.join(out, png)
        written = compact_png(source, os.path.join(FIGURES_DIR, name))
        print(f"  {name}: {written / 1000:.0f} kB (from {png}, {os.path.getsize(source) / 1000:.0f} kB)")
    print(f"  {experiment} ({'quick' if quick else 'full'} setting): {seconds:.0f} s", flush=True)
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="ID", help="only these experiments (default: all of FIGURES)")
    parser.add_argument("--keep", metavar="DIR", help="reproduce into DIR and keep it (summary.csv, the originals)")
    parser.add_argument("--list", action="store_true", help="list the experiments and the figures they give")
    args = parser.parse_args(argv)
    chosen = [f for f in FIGURES if not args.only or f[0] in args.only]
    unknown = set(args.only or ()) - {f[0] for f in FIGURES}
    if unknown:
        parser.error(f"not in FIGURES: {', '.join(sorted(unknown))}")
    if args.list:
        for experiment, quick, pngs in chosen:
            print(f"{experiment:15s} {'quick' if quick else 'full ':5s} {', '.join(pngs.values())}")
        return 0
    work = args.keep or tempfile.mkdtemp(prefix="jaxbandit-paper-figures-")
    total = 0.0
    try:
        for experiment, quick, pngs in chosen:
            total += run(experiment, quick, pngs, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    size = sum(os.path.getsize(os.path.join(FIGURES_DIR, n)) for n in os.listdir(FIGURES_DIR) if n.endswith(".png"))
    print(f"{len(chosen)} experiments in {total:.0f} s; docs/papers/figures/ holds {size / 1e6:.2f} MB of PNGs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
