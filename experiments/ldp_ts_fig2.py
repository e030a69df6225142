"""Seed 000, Figure 2: regret of TS-LDP-B (a–c) and LDP-UCB-B (d–f) under the linear, quadratic and exponential
mechanisms for ε ∈ {0.5, 1, 2, 4, ∞} on the 20-arm testbed (settings in experiments/ldp_ts.py). One ε sweep per
(policy, mechanism), one compilation each; ε = ∞ is the same channel p(r) = r in every panel.

Figures: fig2.png (the six panels), regret_vs_epsilon.png (final regret against ε, all six, with the leading
terms of the paper's bounds). summary.csv adds, per row, the privatized gap to the nearest arm and those bounds.
"""
from __future__ import annotations

import math
import os

import numpy as np

from experiments import ldp_ts
from experiments.runner import Config, default_rows
from jaxbandit import plotting, theory
from jaxbandit.privatizers.bernoulli import MECHANISMS

TITLE = "Seed 000 Fig. 2"


def configs(quick: bool):
    horizon, runs = ldp_ts.settings(quick)
    out = []
    for policy, _ in ldp_ts.POLICIES:
        for mech in MECHANISMS:
            out.append(Config(label=f"{policy} {mech}", kwargs=dict(
                env="testbed20", policy=policy, privatizer=mech,
                privatizer_params={"b": ldp_ts.QUADRATIC_B} if mech == "quadratic" else {},
                grid={"privatizer.epsilon": list(ldp_ts.EPSILONS)}, horizon=horizon, runs=runs, seed=0)))
    return out


def bound(policy: str, mechanism: str, eps: float, horizon: int) -> float:
    """The paper's bound for the panel: Thm 2 (TS, linear), Thm 3 (TS, non-linear), Eq. 4 (UCB)."""
    mu, mu_eps = ldp_ts.privatized(mechanism, eps)
    if policy == "ucb1":
        return theory.ldp_ucb_bound(mu, mu_eps, horizon)
    return theory.ldp_ts_bound(mu, mu_eps, horizon, extra=0.0 if mechanism == "linear" or math.isinf(eps) else 1.0)


def summary_rows(results):
    rows = default_rows(results)
    for row in rows:
        policy, mech = row["label"].split()
        eps = float(row["privatizer.epsilon"])
        mu, mu_eps = ldp_ts.privatized(mech, eps)
        row["privatized_gap_min"] = f"{mu_eps[0] - np.max(mu_eps[1:]):.6g}"
        row["paper_bound_leading_term"] = f"{bound(policy, mech, eps, int(row['horizon'])):.6g}"
    return rows


def figures(results, out_dir):
    plotting.save(panels_figure(results), os.path.join(out_dir, "fig2.png"))
    plotting.save(final_regret_figure(results), os.path.join(out_dir, "regret_vs_epsilon.png"))


def panels_figure(results):
    import matplotlib.pyplot as plt
    colors = ldp_ts.epsilon_colors(ldp_ts.EPSILONS)
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.4), sharey="row")
    letters = iter("abcdef")
    res0 = next(iter(results.values()))
    for row, (policy, name) in enumerate(ldp_ts.POLICIES):
        for col, mech in enumerate(MECHANISMS):
            ax = axes[row][col]
            res = results[f"{policy} {mech}"]
            for eps in ldp_ts.EPSILONS:
                plotting.plot_regret(ax, res.sel(**{"privatizer.epsilon": eps}), label=ldp_ts.epsilon_label(eps),
                                     color=colors[eps])
            mech_label = f"{mech}, b = {ldp_ts.QUADRATIC_B:g}" if mech == "quadratic" else mech
            ax.set_title(f"({next(letters)}) {name}, {mech_label} mechanism", fontsize=10)
            ax.set_xlabel("t (rounds)")
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel("pseudo-regret  Σ Δ_i N_i(t)")
            ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"Seed 000 Fig. 2: regret on the privatized bits; {ldp_ts.TESTBED}; T = {res0.horizon}; "
                 f"mean of {res0.runs} runs, bands ±{plotting.BAND_Z:g} SE", fontsize=11)
    fig.tight_layout()
    return fig


def final_regret_figure(results):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12.5, 4.8))
    res0 = next(iter(results.values()))
    horizon = res0.horizon
    finite = [e for e in ldp_ts.EPSILONS if math.isfinite(e)]
    markers = dict(zip(MECHANISMS, "osD"))
    for ax, (policy, name) in zip(axes, ldp_ts.POLICIES):
        for i, mech in enumerate(MECHANISMS):
            res = results[f"{policy} {mech}"]
            mean = [res.sel(**{"privatizer.epsilon": e}).mean()[-1] for e in finite]
            se = [res.sel(**{"privatizer.epsilon": e}).se()[-1] for e in finite]
            line = ax.errorbar(finite, mean, yerr=plotting.BAND_Z * np.asarray(se), marker=markers[mech], ms=5,
                               capsize=2, label=f"{mech}: simulated")
            ax.plot(finite, [bound(policy, mech, e, horizon) for e in finite], ls=":", color=line[0].get_color(),
                    label=f"{mech}: paper's bound (leading term)")
        inf_regret = results[f"{policy} linear"].sel(**{"privatizer.epsilon": math.inf}).mean()[-1]
        ax.axhline(inf_regret, color="black", lw=1, ls="--", label="ε = ∞ (simulated)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(finite, [f"{e:g}" for e in finite])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel("ε (local DP level of each reward)")
        ax.set_ylabel(f"pseudo-regret at T = {horizon}")
        ax.set_title(f"{name} ({policy} on the bits)", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7.5, loc="upper right")
    fig.suptitle(f"Seed 000: final regret against ε; {ldp_ts.TESTBED}; quadratic b = {ldp_ts.QUADRATIC_B:g}\n"
                 f"T = {horizon}, mean of {res0.runs} runs, ±{plotting.BAND_Z:g} SE; dotted: the paper's bounds "
                 f"(Thm 2/3, Eq. 4) with γ → 0 and O-terms dropped", fontsize=10)
    fig.tight_layout()
    return fig
