"""Seed 001, Figure 1: the (ε, δ) guarantee of modified Thompson sampling (Theorem 4, η = sqrt(T/(c(b+1)))) at
T = 1000, for several b at c = 1 (left) and several c at b = 0 (right). The paper's grids are not recoverable
(legends are images); ours include the digest's reference settings. Only c(b+1) matters, so the panels coincide
for b + 1 = c (the paper's "nearly identical" panels). Pure accounting: no simulation."""
from __future__ import annotations

import os

from experiments import gdp_ts
from jaxbandit import plotting
from jaxbandit.privacy import thompson as ts_privacy

TITLE = "Seed 001 Fig. 1"
B_VALUES = (0, 1, 4, 9, 99)   # c = 1
C_VALUES = (1, 2, 5, 10, 100)  # b = 0


def configs(quick: bool):
    return []


def _curves():
    T = gdp_ts.PRIVACY_HORIZON
    left = {f"b={b}, c=1": (lambda d, b=b: ts_privacy.guarantee(b, 1.0, T, delta=d).epsilon) for b in B_VALUES}
    right = {f"b=0, c={c}": (lambda d, c=c: ts_privacy.guarantee(0, float(c), T, delta=d).epsilon) for c in C_VALUES}
    return left, right


def summary_rows(results):
    left, right = _curves()
    return gdp_ts.privacy_rows({**left, **right}, horizon=gdp_ts.PRIVACY_HORIZON)


def figures(results, out_dir):
    left, right = _curves()
    fig = gdp_ts.privacy_figure(
        [("varying b (c = 1)", left), ("varying c (b = 0)", right)],
        f"Seed 001 Fig. 1: modified TS is sqrt(T/(c(b+1)))-GDP (Theorem 4), T = {gdp_ts.PRIVACY_HORIZON}")
    plotting.save(fig, os.path.join(out_dir, "fig1.png"))
