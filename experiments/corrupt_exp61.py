"""Seed 002 Exp. 6.1 / Fig. 2a: regret against time under per-arm randomized response (p = 0.6 on the optimal
arm, 0.9 elsewhere), on μ = (0.9, 0.8 × 9): kl-UCB-CF and TS-CF against the wrapper and naive algorithms, with
the lower bound C_LB log t (settings in experiments/corrupt.py).

The feedback order is reversed (λ_1 = 0.58 < λ_a = 0.74), so the naive algorithms should lose ≈ 0.1 per round.
Figures: fig2a.png (all algorithms; the CF ones with the LB and the Theorem 2 bound). summary.csv adds the bounds.
"""
from __future__ import annotations

import os

from experiments import corrupt
from experiments.runner import default_rows
from jaxbandit import plotting

TITLE = "Seed 002 Exp. 6.1 (Fig. 2a)"


def configs(quick: bool):
    return corrupt.exp61_configs(corrupt.MAIN, quick)


def summary_rows(results):
    return corrupt.rows_with_bounds(results, default_rows, corrupt.MAIN)


def figures(results, out_dir):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.9))
    corrupt.exp61_panel(axes[0], results, corrupt.MAIN)
    axes[0].set_title("(a) all algorithms", fontsize=10)
    corrupt.exp61_panel(axes[1], results, corrupt.MAIN, zoom=True)
    axes[1].set_title("(b) the CF algorithms against the bounds (log time axis)", fontsize=10)
    fig.suptitle("Seed 002 Exp. 6.1: randomized response p00 = p11 = 0.6 on the optimal arm, 0.9 on the others\n"
                 + corrupt.caption(results, corrupt.MAIN), fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig2a.png"))
