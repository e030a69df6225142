"""Seed 002 Exp. 6.3 / Fig. 2c: local DP (kl-UCB-CF and TS-CF under the ε = 1 optimal randomized response) against
global DP (DP-UCB-INT with ε = 1, v = 1.1, and DP-UCB, DP-UCB-BOUND at ε = 1, all seeing the true rewards) on
μ = (0.9, 0.8 × 9) (settings in experiments/corrupt.py). The paper expects global DP to have lower regret, since
local DP is the stronger guarantee. Figures: fig2c.png; summary.csv adds DP-UCB-INT's composed (ε_total, δ).
"""
from __future__ import annotations

import os

from experiments import corrupt
from experiments.runner import default_rows
from jaxbandit import plotting

TITLE = "Seed 002 Exp. 6.3 (Fig. 2c)"


def configs(quick: bool):
    return corrupt.exp63_configs(corrupt.MAIN, quick)


def summary_rows(results):
    return corrupt.rows_with_bounds(results, default_rows, corrupt.MAIN)


def figures(results, out_dir):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.9))
    for ax, scale in zip(axes, ("linear", "log")):
        corrupt.exp63_panel(ax, results, corrupt.MAIN)
        ax.set_xscale(scale)
        ax.set_title(f"{scale} time axis", fontsize=10)
    fig.suptitle("Seed 002 Exp. 6.3: local DP (ε = 1 randomized response) against global DP\n"
                 + corrupt.caption(results, corrupt.MAIN), fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig2c.png"))
