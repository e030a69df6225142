"""Matplotlib figures (host side only).

The backend is left to matplotlib (it falls back to Agg on a machine without a display): forcing Agg here
would switch a notebook's inline backend off as soon as jaxbandit.plotting is imported, and its figures would
never show.
"""
from __future__ import annotations

import matplotlib.pyplot as plt

BAND_Z = 2.0  # bands are mean ± 2 standard errors over runs


def plot_regret(ax, results, label=None, metric="pseudo_regret", color=None, band=True):
    """Mean regret over runs against t, with a ±2 SE band, on ``ax`` (a result without grid axes)."""
    mean, se = results.mean(metric), results.se(metric)
    line, = ax.plot(results.t, mean, label=label, color=color, lw=1.6)
    if band and results.runs > 1:
        ax.fill_between(results.t, mean - BAND_Z * se, mean + BAND_Z * se, color=line.get_color(), alpha=0.2, lw=0)
    return line


def regret_figure(curves, title, metric="pseudo_regret", logx_panel=True, ylabel=None):
    """A figure of regret curves: ``curves`` is a list of ``(label, Results)``.

    Two panels (linear and log time axis) unless ``logx_panel`` is False.
    """
    ncols = 2 if logx_panel else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.2 * ncols, 4.4), squeeze=False)
    ylabel = ylabel or ("pseudo-regret  Σ Δ_a n_a(t)" if metric == "pseudo_regret" else "realized regret  μ*t − Σ r")
    for i, ax in enumerate(axes[0]):
        for label, res in curves:
            plot_regret(ax, res, label=label, metric=metric)
        ax.set_xlabel("t (rounds)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if i == 1:
            ax.set_xscale("log")
            ax.set_title("log time axis", fontsize=10)
    runs = curves[0][1].runs if curves else 0
    axes[0][0].legend(fontsize=9, loc="upper left")
    fig.suptitle(f"{title}\nmean over {runs} runs, bands ±{BAND_Z:g} SE", fontsize=11)
    fig.tight_layout()
    return fig


def save(fig, path):
    fig.savefig(path, dpi=130)
    plt.close(fig)
