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
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(ARMS), figsize=(11, 4.4), sharey=True)
    for ax, n in zip(axes, ARMS):
        for name, eps in gdp_ts.privacy_curves(curves(n)).items():
            ax.plot(gdp_ts.delta_grid(), eps, lw=1.6, label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("δ")
        ax.set_title(f"N = {n} arms", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("ε such that (ε, δ)-DP holds")
    fig.suptitle(f"Seed 001 Fig. 6: privacy of standard Thompson sampling, T = {T}: GDP vs RDP vs standard DP",
                 fontsize=11)
    fig.tight_layout()
    return fig


def figure7():
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for name, eps in gdp_ts.privacy_curves(curves()).items():
        ax.plot(gdp_ts.delta_grid(), eps, lw=1.6, label=name)
    ax.set_xscale("log")
    ax.set_xlabel("δ")
    ax.set_ylabel("ε such that (ε, δ)-DP holds")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9)
    ax.set_title(f"Seed 001 Fig. 7: GDP vs RDP for standard TS, T = {T}\n(neither depends on the number of arms)",
                 fontsize=10)
    fig.tight_layout()
    return fig


def figures(results, out_dir):
    plotting.save(figure6(), os.path.join(out_dir, "fig6.png"))
    plotting.save(figure7(), os.path.join(out_dir, "fig7.png"))
