"""Seed 002 Exp. 6.2 / Fig. 2b: regret at T against ε under the ε-optimal randomized response (Eq. 5) on every
arm, ε ∈ {1/8, ..., 8}, μ = (0.9, 0.8 × 9); kl-UCB-CF and TS-CF, one ε sweep (one compilation) each, with
Corollary 3's "UB" and the LB at T (settings in experiments/corrupt.py), and their ε = ∞ limits (kl-UCB and TS on
the true rewards) as references.

The paper claims regret falls with ε and plateaus below ε = 1/4 (near uniform play) and above ε = 4 (s → 1).
Figures: fig2b.png. summary.csv adds per ε the LB, the Corollary 3 bound and the Theorem 2 finite-time bound.
"""
from __future__ import annotations

import os

from experiments import corrupt
from experiments.runner import default_rows
from jaxbandit import plotting

TITLE = "Seed 002 Exp. 6.2 (Fig. 2b)"


def configs(quick: bool):
    return corrupt.exp62_configs(corrupt.MAIN, quick)


def summary_rows(results):
    return corrupt.rows_with_bounds(results, default_rows, corrupt.MAIN)


def figures(results, out_dir):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9.8, 5.6))
    corrupt.exp62_panel(ax, results, corrupt.MAIN)
    fig.suptitle("Seed 002 Exp. 6.2: regret at T against the LDP level ε\n" + corrupt.caption(results, corrupt.MAIN),
                 fontsize=9.5)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig2b.png"))
