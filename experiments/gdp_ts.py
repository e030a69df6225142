"""Shared settings and figures of the seed-001 reproductions ("Thompson Sampling Itself is Differentially
Private", Ou, Avella Medina & Cummings, arXiv 2407.14879): experiments gdp-ts-fig1 ... gdp-ts-fig8.

Regret experiments (Sec. 5, Figs 2-5): N = 5 arms, T = 10^5, GDP budgets η ∈ {1, 2, 5}; for each b the minimal
c = T/(η²(b+1)) (`jaxbandit.privacy.thompson.min_scale`), configurations with c < 1 or bN ≥ T dropped. The paper
used 10 runs and does not give its b grid (its legends are images); we use 200 runs and the b grid below, which
extends past the optimum predicted by the digest's surrogate (b* ≈ 2240, 1120, 447 for η = 1, 2, 5) so that
the U-shape in b is visible. The paper plots the realized regret μ*t − Σ r_s (its Eq. 3); so do we.
"""
from __future__ import annotations

import numpy as np

from experiments.runner import Config
from jaxbandit import plotting
from jaxbandit.privacy import thompson as ts_privacy

BERNOULLI = ("bernoulli", {"means": [0.75, 0.625, 0.5, 0.375, 0.25]}, "Bernoulli means 0.75, 0.625, 0.5, 0.375, 0.25")
TRUNCEXP = ("truncexp", {"rates": [0.1, 1.0, 2.0, 5.0, 10.0]},
            "truncated exponential on [0,1], rates 0.1, 1, 2, 5, 10")
ETAS = (1.0, 2.0, 5.0)
B_GRID = (0, 1, 5, 10, 50, 100, 200, 500, 1000, 2000, 3000, 5000, 10000)
QUICK_B_GRID = (0, 5, 20, 50, 100)
METRIC = "regret"  # realized regret, the paper's Eq. (3)


def settings(quick: bool):
    """(horizon, runs, b grid)."""
    return (2_000, 20, QUICK_B_GRID) if quick else (100_000, 200, B_GRID)


def b_c_pairs(eta: float, horizon: int, num_arms: int, b_grid) -> list[tuple[int, float]]:
    """(b, minimal c) for each b of the grid with bN < T and T/(η²(b+1)) ≥ 1."""
    pairs = []
    for b in b_grid:
        if b * num_arms >= horizon or horizon / (eta * eta * (b + 1)) < 1:
            continue
        c = float(ts_privacy.min_scale(b, horizon, num_arms, eta_budget=eta))
        pairs.append((int(b), c))
    return pairs


def regret_configs(env, quick: bool) -> list[Config]:
    name, params, _ = env
    horizon, runs, b_grid = settings(quick)
    num_arms = len(next(iter(params.values())))
    return [Config(label=f"{name} eta={eta:g}",
                   kwargs=dict(env=name, env_params=params, policy="modified-thompson",
                               grid={("policy.b", "policy.c"): b_c_pairs(eta, horizon, num_arms, b_grid)},
                               horizon=horizon, runs=runs, seed=0))
            for eta in ETAS]


def b_c_points(res):
    """``((b, c), Results)`` for every grid point of a sweep over the joint (b, c) axis."""
    return zip(next(iter(res.grid.values())), (point for _, point in res.points()))


def _b_colors(bs):
    import matplotlib.pyplot as plt
    all_b = sorted(set(bs))
    cmap = plt.get_cmap("viridis")
    return {b: cmap(i / max(len(all_b) - 1, 1)) for i, b in enumerate(all_b)}


def regret_curves_figure(results, env, figure_number):
    """Figs 2 / 4: cumulative realized regret against t for each (b, c), one panel per η."""
    import matplotlib.pyplot as plt
    labels = list(results)
    fig, axes = plt.subplots(1, len(labels), figsize=(5.2 * len(labels), 4.6), squeeze=False)
    colors = _b_colors([b for res in results.values() for b, _ in next(iter(res.grid.values()))])
    for ax, label in zip(axes[0], labels):
        res = results[label]
        for (b, c), point in b_c_points(res):
            plotting.plot_regret(ax, point, label=f"({int(b)}, {c:.4g})", metric=METRIC, color=colors[b])
        ax.set_title(f"η = {label.split('eta=')[1]} GDP", fontsize=10)
        ax.set_xlabel("t (rounds)")
        ax.set_ylabel("realized regret  μ*t − Σ r")
        ax.grid(alpha=0.3)
        ax.legend(title="(b, c)", fontsize=7, title_fontsize=8, loc="upper left", ncol=2)
    res0 = results[labels[0]]
    fig.suptitle(f"Seed 001 Fig. {figure_number}: modified Thompson sampling, {env[2]}; T = {res0.horizon}, "
                 f"c = T/(η²(b+1)); mean of {res0.runs} runs, bands ±{plotting.BAND_Z:g} SE", fontsize=10)
    fig.tight_layout()
    return fig


def final_regret_by_eta_figure(results, env, figure_number):
    """Figs 3 / 5: final realized regret against the GDP budget η, one line per b."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8.2, 4.8))
    by_b = {}
    for label, res in results.items():
        eta = float(label.split("eta=")[1])
        for (b, _), point in b_c_points(res):
            by_b.setdefault(b, []).append((eta, point.mean(METRIC)[-1], point.se(METRIC)[-1]))
    colors = _b_colors(list(by_b))
    for b, rows in sorted(by_b.items()):
        eta, mean, se = map(np.asarray, zip(*sorted(rows)))
        ax.errorbar(eta, mean, yerr=plotting.BAND_Z * se, marker="o", ms=4, capsize=2, color=colors[b],
                    label=f"b = {int(b)}")
    res0 = next(iter(results.values()))
    ax.set_xlabel("GDP budget η (c minimal for each b)")
    ax.set_ylabel(f"realized regret at T = {res0.horizon}")
    ax.set_yscale("log")
    ax.set_xticks(ETAS)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="pre-pulls")
    ax.set_title(f"Seed 001 Fig. {figure_number}: modified TS, {env[2]}\nT = {res0.horizon}, mean of {res0.runs} runs, "
                 f"error bars ±{plotting.BAND_Z:g} SE", fontsize=10)
    fig.tight_layout()
    return fig


PRIVACY_HORIZON = 1000  # Figs 1, 6, 7 (seed 001: "T = 1000")
TABLE_DELTAS = (1e-2, 1e-4, 1e-6, 1e-8)  # the δ columns of summary.csv


def delta_grid():
    return np.logspace(-10, -1, 181)


def privacy_curves(curves) -> dict:
    """``{name: ε(δ) on delta_grid()}`` in float64 for ``{name: fn(deltas) -> epsilons}``."""
    import jax
    with jax.enable_x64(True):
        deltas = np.asarray(delta_grid())
        return {name: np.asarray(fn(deltas)) for name, fn in curves.items()}


def privacy_figure(panels, title, logy=True, width=5.5):
    """ε against δ (log axes): ``panels`` is a list of ``(panel title, {name: fn(deltas) -> epsilons})``."""
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(panels), figsize=(width * len(panels), 4.4), sharey=True, squeeze=False)
    for ax, (panel_title, curves) in zip(axes[0], panels):
        for name, eps in privacy_curves(curves).items():
            ax.plot(delta_grid(), eps, lw=1.6, label=name)
        ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel("δ")
        ax.set_title(panel_title, fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8, loc="best")
    axes[0][0].set_ylabel("ε such that (ε, δ)-DP holds")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def privacy_rows(curves, **extra) -> list[dict]:
    """summary.csv rows: one per curve, ε at the TABLE_DELTAS."""
    import jax
    with jax.enable_x64(True):
        rows = []
        for name, fn in curves.items():
            eps = np.asarray(fn(np.asarray(TABLE_DELTAS)))
            rows.append({"label": name, **extra, **{f"epsilon(delta={d:g})": f"{e:.6g}" for d, e in zip(TABLE_DELTAS, eps)}})
        return rows
