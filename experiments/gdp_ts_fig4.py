"""Seed 001, Figure 4: modified Thompson sampling under GDP budgets η ∈ {1, 2, 5}, regret curves
(settings in experiments/gdp_ts.py)."""
from __future__ import annotations

import os

from experiments import gdp_ts
from jaxbandit import plotting

TITLE = "Seed 001 Fig. 4"


def configs(quick: bool):
    return gdp_ts.regret_configs(gdp_ts.TRUNCEXP, quick)


def figures(results, out_dir):
    plotting.save(gdp_ts.regret_curves_figure(results, gdp_ts.TRUNCEXP, 4), os.path.join(out_dir, "fig4.png"))
