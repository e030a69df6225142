"""Seed 000: when the privatized best arm is not the best arm. Theorems 2–3 assume μ_{1,ε} > μ_{i,ε} for every
i ≠ 1 (spec §4, "implicit assumption"); the learner estimates only the privatized means μ_{i,ε} = E[p(R_i)], so
where a non-linear p reorders them, TS and UCB converge to the wrong arm and regret grows linearly.

(A) testbed20, quadratic mechanism at ε = 1, b = f·(e^ε − 1) for f ∈ {0, 1 (linear), 1.5, 1.75, 1.9, 2}: from
    f = 1.75 on (spec §5: an exact tie at 1.75 for every ε) the five Beta(4,1) arms (mean 0.8, E[R²] = 2/3) are
    privatized-better than the Bernoulli(0.9) arm, because a concave p favours low-variance arms.
(B) two arms, Beta(60, 40) (mean 0.6, sd 0.049) against Bernoulli(0.5): the exponential mechanism (convex)
    favours the high-variance Bernoulli arm; its privatized mean is 1/2 under every mechanism, while the Beta
    arm's E[e^{εR}]/(e^ε + 1) falls below 1/2 between ε = 0.75 and 1. The linear mechanism never reorders.
T = 10^5, 200 runs (quick: 2000, 20).
"""
from __future__ import annotations

import math
import os

import numpy as np

from experiments import ldp_ts
from experiments.runner import Config, default_rows
from jaxbandit import plotting

TITLE = "Seed 000: privatized best arm flipped"
EPSILON_A = 1.0
B_FRACTIONS = (0.0, 1.0, 1.5, 1.75, 1.9, 2.0)
TWO_ARMS = {"arms": [("beta", {"alpha": 60.0, "beta": 40.0}), ("bernoulli", {"means": 0.5})]}
TWO_ARMS_LABEL = "Beta(60,40) (mean 0.6) vs Bernoulli(0.5)"
EPSILONS_B = (0.25, 0.5, 1.0, 2.0, 4.0, math.inf)


def b_values():
    return [round(f * math.expm1(EPSILON_A), 12) for f in B_FRACTIONS]


def configs(quick: bool):
    horizon, runs = ldp_ts.settings(quick)
    out = []
    for policy, _ in ldp_ts.POLICIES:
        out.append(Config(label=f"A {policy} quadratic", kwargs=dict(
            env="testbed20", policy=policy, privatizer="quadratic", privatizer_params={"epsilon": EPSILON_A},
            grid={"privatizer.b": b_values()}, horizon=horizon, runs=runs, seed=0)))
    for policy, _ in ldp_ts.POLICIES:
        for mech in ("linear", "exponential"):
            out.append(Config(label=f"B {policy} {mech}", kwargs=dict(
                env="mixture", env_params=TWO_ARMS, policy=policy, privatizer=mech,
                grid={"privatizer.epsilon": list(EPSILONS_B)}, horizon=horizon, runs=runs, seed=0)))
    return out


def _private(row):
    """(true means, privatized means) of a summary row."""
    if row["label"].startswith("A"):
        return ldp_ts.privatized("quadratic", EPSILON_A, b=float(row["privatizer.b"]))
    return ldp_ts.privatized(row["privatizer"], float(row["privatizer.epsilon"]), "mixture", env_params=TWO_ARMS)


def summary_rows(results):
    rows = default_rows(results)
    for row in rows:
        mu, mu_eps = _private(row)
        best = int(np.argmax(mu))
        row["privatized_gap_of_best_arm"] = f"{mu_eps[best] - np.max(np.delete(mu_eps, best)):.6g}"
        row["privatized_best_arm"] = int(np.argmax(mu_eps))
        row["final_regret_per_round"] = f"{float(row['final_regret_mean']) / int(row['horizon']):.6g}"
    return rows


def figures(results, out_dir):
    import matplotlib.pyplot as plt
    res0 = next(iter(results.values()))
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    cmap = plt.get_cmap("viridis")
    for col, (policy, name) in enumerate(ldp_ts.POLICIES):
        ax = axes[0][col]
        res = results[f"A {policy} quadratic"]
        for i, (f, b) in enumerate(zip(B_FRACTIONS, b_values())):
            _, mu_eps = ldp_ts.privatized("quadratic", EPSILON_A, b=b)
            gap = mu_eps[0] - np.max(mu_eps[1:])
            plotting.plot_regret(ax, res.sel(**{"privatizer.b": b}), color=cmap(i / (len(B_FRACTIONS) - 1)),
                                 label=f"b = {f:g}(e^ε−1) = {b:.3g}: Δ_ε = {gap:+.4f}")
        ax.set_title(f"(A) {name}, testbed20, quadratic mechanism, ε = {EPSILON_A:g}", fontsize=10)
        ax = axes[1][col]
        colors = ldp_ts.epsilon_colors(EPSILONS_B)
        for mech, style in (("exponential", "-"), ("linear", ":")):
            res = results[f"B {policy} {mech}"]
            for eps in EPSILONS_B:
                if mech == "linear" and math.isinf(eps):
                    continue  # the same channel as exponential at ε = ∞
                _, mu_eps = ldp_ts.privatized(mech, eps, "mixture", env_params=TWO_ARMS)
                line = plotting.plot_regret(ax, res.sel(**{"privatizer.epsilon": eps}), color=colors[eps],
                                            label=f"{mech[:3]}, {ldp_ts.epsilon_label(eps)}: Δ_ε = "
                                                  f"{mu_eps[0] - mu_eps[1]:+.4f}")
                line.set_linestyle(style)
        ax.set_title(f"(B) {name}, {TWO_ARMS_LABEL}\nexponential (solid) vs linear (dotted)", fontsize=10)
    for ax in axes.ravel():
        ax.set_xlabel("t (rounds)")
        ax.set_ylabel("pseudo-regret  Σ Δ_i N_i(t)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"Seed 000: regret when a non-linear mechanism makes another arm privatized-best (Δ_ε < 0); "
                 f"T = {res0.horizon}, mean of {res0.runs} runs, bands ±{plotting.BAND_Z:g} SE\n"
                 f"Δ_ε = privatized mean of the best arm − largest other privatized mean", fontsize=10.5)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "rankflip.png"))
