"""Seed 002 Appendix III (Figs 4–7): Exps 6.1, 6.2 and 6.3 on the fully specified scenarios of Table 1,
scenario 3 μ = (0.9, 0.8 × 3, 0.7 × 3, 0.6 × 3) and scenario 4 μ = (0.9, 0.6 × 9), with the main experiments'
parameters (experiments/corrupt.py). Scenarios 1 and 2 lost their means in extraction and are not run.
Figures: one per scenario (scenario3.png, scenario4.png) with the three panels; summary.csv has every row.
"""
from __future__ import annotations

import os

from experiments import corrupt
from experiments.runner import default_rows
from jaxbandit import plotting

TITLE = "Seed 002 Appendix III"


def _prefix(name):
    return f"{name}: "


def configs(quick: bool):
    out = []
    for name, means in corrupt.SCENARIOS.items():
        for build in (corrupt.exp61_configs, corrupt.exp62_configs, corrupt.exp63_configs):
            out += build(means, quick, prefix=_prefix(name))
    return out


def summary_rows(results):
    rows = []
    for name, means in corrupt.SCENARIOS.items():
        mine = {k: v for k, v in results.items() if k.startswith(_prefix(name))}
        rows += corrupt.rows_with_bounds(mine, default_rows, means)
    return rows


def figures(results, out_dir):
    import matplotlib.pyplot as plt
    for name, means in corrupt.SCENARIOS.items():
        fig, axes = plt.subplots(1, 3, figsize=(19, 5.2))
        corrupt.exp61_panel(axes[0], results, means, prefix=_prefix(name))
        axes[0].set_title("(a) Exp. 6.1 corruption (p = 0.6 optimal arm, 0.9 others)", fontsize=10)
        corrupt.exp62_panel(axes[1], results, means, prefix=_prefix(name))
        axes[1].set_title("(b) Exp. 6.2: regret at T against ε", fontsize=10)
        corrupt.exp63_panel(axes[2], results, means, prefix=_prefix(name))
        axes[2].set_title("(c) Exp. 6.3: local (ε = 1) against global DP", fontsize=10)
        mine = {k: v for k, v in results.items() if k.startswith(_prefix(name))}
        fig.suptitle(f"Seed 002 Appendix III, {name}\n" + corrupt.caption(mine, means), fontsize=10)
        fig.tight_layout()
        plotting.save(fig, os.path.join(out_dir, f"{name.replace(' ', '')}.png"))
