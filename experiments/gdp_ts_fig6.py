"""Seed 001, Figures 6 and 7 (App. C.3): ε against δ for standard Thompson sampling at T = 1000, three analyses:
GDP (Theorem 3, η = sqrt(T/2)), RDP (Theorem 8, ε = T/4 + sqrt(T log(1/δ))) and standard DP by advanced
composition (Theorem 7 + Corollary 1, δ split optimised), for N = 2 and N = 10 arms. Fig. 7 zooms on GDP vs RDP.
The standard-DP curve is the paper's, not a certified bound (its Lemma 13 is optimistic; digest §3.5).
Pure accounting: no simulation."""
from __future__ import annotations

import math
import os

from experiments import gdp_ts
from jaxbandit import plotting
from jaxbandit.privacy import gdp
from jaxbandit.privacy import thompson as ts_privacy

TITLE = "Seed 001 Figs 6-7"
ARMS = (2, 10)
T = gdp_ts.PRIVACY_HORIZON
ETA = math.sqrt(T / 2)  # Theorem 3 / Lemma 4


def configs(quick: bool):
    return []


def curves(num_arms=None):
    out = {"GDP (Thm 3)": lambda d: gdp.epsilon(d, ETA), "RDP (Thm 8)": lambda d: gdp.rdp_epsilon(d, ETA)}
    if num_arms is not None:
        out["standard DP (Thm 7 + Cor. 1)"] = lambda d: ts_privacy.advanced_composition_epsilon(d, T, num_arms)
    return out


def summary_rows(results):
    rows = []
    for n in ARMS:
        rows += gdp_ts.privacy_rows(curves(n), num_arms=n, horizon=T)
    return rows


def figure6():
    return gdp_ts.privacy_figure([(f"N = {n} arms", curves(n)) for n in ARMS],
                                 f"Seed 001 Fig. 6: privacy of standard Thompson sampling, T = {T}: "
                                 "GDP vs RDP vs standard DP")


def figure7():
    return gdp_ts.privacy_figure([("neither depends on the number of arms", curves())],
                                 f"Seed 001 Fig. 7: GDP vs RDP for standard TS, T = {T}", logy=False, width=6.4)


def figures(results, out_dir):
    plotting.save(figure6(), os.path.join(out_dir, "fig6.png"))
    plotting.save(figure7(), os.path.join(out_dir, "fig7.png"))
