"""Seed 001, Figure 3: modified Thompson sampling under GDP budgets η ∈ {1, 2, 5}, final regret vs η
(settings in experiments/gdp_ts.py)."""
from __future__ import annotations

import os

from experiments import gdp_ts
from jaxbandit import plotting

TITLE = "Seed 001 Fig. 3"


def configs(quick: bool):
    return gdp_ts.regret_configs(gdp_ts.BERNOULLI, quick)


def figures(results, out_dir):
    plotting.save(gdp_ts.final_regret_by_eta_figure(results, gdp_ts.BERNOULLI, 3), os.path.join(out_dir, "fig3.png"))
