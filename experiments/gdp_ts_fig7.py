"""Seed 001, Figure 7: the GDP vs RDP zoom of Figure 6 (see experiments/gdp_ts_fig6.py)."""
from __future__ import annotations

import os

from experiments import gdp_ts_fig6
from jaxbandit import plotting

TITLE = "Seed 001 Fig. 7"
configs = gdp_ts_fig6.configs


def summary_rows(results):
    return gdp_ts_fig6.summary_rows(results)[:2]  # GDP and RDP rows (the same for every N)


def figures(results, out_dir):
    plotting.save(gdp_ts_fig6.figure7(), os.path.join(out_dir, "fig7.png"))
