"""LDP Thompson sampling ("Thompson Sampling under Bernoulli Rewards with Local Differential Privacy", Jiang, Zhao & Li, arXiv
2307.00863): the registry entries ldp-ts-fig2 and ldp-ts-rankflip (``EXPERIMENTS``, at the end), their settings
and figures.

The paper runs TS-LDP-B (`thompson` on the privatized bits) and LDP-UCB-B (`ucb1` on the bits) on the 20-arm
testbed of its Sec. 5 (`testbed20`), 50 trials, but states neither the horizon, nor the ε grid, nor the
quadratic mechanism's b. Our choices (the spec's reproduction defaults): T = 10^5, ε ∈ {0.5, 1, 2, 4, ∞},
b = 0 (the most convex valid quadratic, valid at every ε), 200 runs, pseudo-regret Σ_i Δ_i N_i(t) on the true
means (the paper's Eq. 10 → 11).
"""
from __future__ import annotations

import math
import os

import numpy as np

from jaxbandit import envs, plotting, theory
from jaxbandit.mechanisms import bernoulli as channel
from jaxbandit.privatizers import bernoulli
from jaxbandit.privatizers.bernoulli import MECHANISMS

from .runner import Config, Experiment, default_rows

__all__ = ["EXPERIMENTS", "EPSILONS", "QUADRATIC_B", "POLICIES", "TESTBED", "settings", "mechanism_params",
           "privatized", "epsilon_label", "epsilon_colors", "fig2_configs", "bound", "fig2_summary_rows",
           "fig2_panels_figure", "fig2_final_regret_figure", "EPSILON_A", "B_FRACTIONS", "TWO_ARMS",
           "TWO_ARMS_LABEL", "EPSILONS_B", "rankflip_b_values", "rankflip_configs", "rankflip_summary_rows"]

EPSILONS = (0.5, 1.0, 2.0, 4.0, math.inf)
QUADRATIC_B = 0.0
POLICIES = (("thompson", "TS-LDP-B"), ("ucb1", "LDP-UCB-B"))
TESTBED = "testbed 20 arms: Bernoulli(0.9), 5 Beta(4,1), 5 U{0.4,1}, 5 Bernoulli(0.6), 4 U[0,1]"


def settings(quick: bool):
    """(horizon, runs)."""
    return (2_000, 20) if quick else (100_000, 200)


def mechanism_params(mechanism: str, epsilon: float, b: float = QUADRATIC_B):
    if mechanism == "quadratic":
        return bernoulli.QuadraticParams(epsilon, b)
    return bernoulli.EpsilonParams(epsilon)


def privatized(mechanism: str, epsilon: float, env_name: str = "testbed20", b: float = QUADRATIC_B,
               env_params: dict | None = None):
    """(true means, privatized means μ_{i,ε}) of an environment, float64 numpy."""
    env, p = envs.make(env_name, **(env_params or {}))
    mu = np.asarray(env.means(p), np.float64)
    return mu, np.asarray(channel.privatized_means(mechanism, mechanism_params(mechanism, epsilon, b), env, p),
                          np.float64)


def epsilon_label(eps: float) -> str:
    return "ε = ∞ (p(r) = r)" if math.isinf(eps) else f"ε = {eps:g}"


def epsilon_colors(epsilons):
    """A sequential colour per finite ε (dark = strong privacy) and black for ε = ∞."""
    import matplotlib.pyplot as plt
    finite = sorted(e for e in epsilons if math.isfinite(e))
    cmap = plt.get_cmap("plasma")
    colors = {e: cmap(0.85 * i / max(len(finite) - 1, 1)) for i, e in enumerate(finite)}
    colors[math.inf] = "black"
    return colors


# ------------------------------------------------------------------------------------------------ Fig. 2
# LDP Thompson sampling, Figure 2: regret of TS-LDP-B (a–c) and LDP-UCB-B (d–f) under the linear, quadratic and exponential
# mechanisms for ε ∈ {0.5, 1, 2, 4, ∞} on the 20-arm testbed (settings above). One ε sweep per (policy,
# mechanism), one compilation each; ε = ∞ is the same channel p(r) = r in every panel.
#
# Figures: fig2.png (the six panels), regret_vs_epsilon.png (final regret against ε, all six, with the leading
# terms of the paper's bounds). summary.csv adds, per row, the privatized gap to the nearest arm and those bounds.

def fig2_configs(quick: bool):
    horizon, runs = settings(quick)
    out = []
    for policy, _ in POLICIES:
        for mech in MECHANISMS:
            out.append(Config(label=f"{policy} {mech}", kwargs=dict(
                env="testbed20", policy=policy, privatizer=mech,
                privatizer_params={"b": QUADRATIC_B} if mech == "quadratic" else {},
                grid={"privatizer.epsilon": list(EPSILONS)}, horizon=horizon, runs=runs, seed=0)))
    return out


def bound(policy: str, mechanism: str, eps: float, horizon: int) -> float:
    """The paper's bound for the panel: Thm 2 (TS, linear), Thm 3 (TS, non-linear), Eq. 4 (UCB)."""
    mu, mu_eps = privatized(mechanism, eps)
    if policy == "ucb1":
        return theory.ldp_ucb_bound(mu, mu_eps, horizon)
    return theory.ldp_ts_bound(mu, mu_eps, horizon, extra=0.0 if mechanism == "linear" or math.isinf(eps) else 1.0)


def fig2_summary_rows(results):
    rows = default_rows(results)
    for row in rows:
        policy, mech = row["label"].split()
        eps = float(row["privatizer.epsilon"])
        mu, mu_eps = privatized(mech, eps)
        row["privatized_gap_min"] = f"{mu_eps[0] - np.max(mu_eps[1:]):.6g}"
        row["paper_bound_leading_term"] = f"{bound(policy, mech, eps, int(row['horizon'])):.6g}"
    return rows


def _fig2(results, out_dir):
    plotting.save(fig2_panels_figure(results), os.path.join(out_dir, "fig2.png"))
    plotting.save(fig2_final_regret_figure(results), os.path.join(out_dir, "regret_vs_epsilon.png"))


def fig2_panels_figure(results):
    import matplotlib.pyplot as plt
    colors = epsilon_colors(EPSILONS)
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.4), sharey="row")
    letters = iter("abcdef")
    res0 = next(iter(results.values()))
    for row, (policy, name) in enumerate(POLICIES):
        for col, mech in enumerate(MECHANISMS):
            ax = axes[row][col]
            res = results[f"{policy} {mech}"]
            for eps in EPSILONS:
                plotting.plot_regret(ax, res.sel(**{"privatizer.epsilon": eps}), label=epsilon_label(eps),
                                     color=colors[eps])
            mech_label = f"{mech}, b = {QUADRATIC_B:g}" if mech == "quadratic" else mech
            ax.set_title(f"({next(letters)}) {name}, {mech_label} mechanism", fontsize=10)
            ax.set_xlabel("t (rounds)")
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel(r"pseudo-regret  $\Sigma_i\, \Delta_i\, N_i(t)$")
            ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"LDP Thompson sampling Fig. 2: regret on the privatized bits; {TESTBED}; T = {res0.horizon}; "
                 f"mean of {res0.runs} runs, bands ±{plotting.BAND_Z:g} SE", fontsize=11)
    fig.tight_layout()
    return fig


def fig2_final_regret_figure(results):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(12.5, 4.8))
    res0 = next(iter(results.values()))
    horizon = res0.horizon
    finite = [e for e in EPSILONS if math.isfinite(e)]
    markers = dict(zip(MECHANISMS, "osD"))
    for ax, (policy, name) in zip(axes, POLICIES):
        for i, mech in enumerate(MECHANISMS):
            res = results[f"{policy} {mech}"]
            mean = [res.sel(**{"privatizer.epsilon": e}).mean()[-1] for e in finite]
            se = [res.sel(**{"privatizer.epsilon": e}).se()[-1] for e in finite]
            line = ax.errorbar(finite, mean, yerr=plotting.BAND_Z * np.asarray(se), marker=markers[mech], ms=5,
                               capsize=2, label=f"{mech}: simulated")
            if plotting.bounds_on():
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
    fig.suptitle(f"LDP Thompson sampling: final regret against ε; {TESTBED}; quadratic b = {QUADRATIC_B:g}\n"
                 f"T = {horizon}, mean of {res0.runs} runs, ±{plotting.BAND_Z:g} SE; dotted: the paper's bounds "
                 f"(Thm 2/3, Eq. 4) with γ → 0 and O-terms dropped", fontsize=10)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------------------------ rank flip
# LDP Thompson sampling: when the privatized best arm is not the best arm. Theorems 2–3 assume μ_{1,ε} > μ_{i,ε} for every
# i ≠ 1 (spec §4, "implicit assumption"); the learner estimates only the privatized means μ_{i,ε} = E[p(R_i)], so
# where a non-linear p reorders them, TS and UCB converge to the wrong arm and regret grows linearly.
#
# (A) testbed20, quadratic mechanism at ε = 1, b = f·(e^ε − 1) for f ∈ {0, 1 (linear), 1.5, 1.75, 1.9, 2}: from
#     f = 1.75 on (spec §5: an exact tie at 1.75 for every ε) the five Beta(4,1) arms (mean 0.8, E[R²] = 2/3) are
#     privatized-better than the Bernoulli(0.9) arm, because a concave p favours low-variance arms.
# (B) two arms, Beta(60, 40) (mean 0.6, sd 0.049) against Bernoulli(0.5): the exponential mechanism (convex)
#     favours the high-variance Bernoulli arm; its privatized mean is 1/2 under every mechanism, while the Beta
#     arm's E[e^{εR}]/(e^ε + 1) falls below 1/2 between ε = 0.75 and 1. The linear mechanism never reorders.
# T = 10^5, 200 runs (quick: 2000, 20).

EPSILON_A = 1.0
B_FRACTIONS = (0.0, 1.0, 1.5, 1.75, 1.9, 2.0)
TWO_ARMS = {"arms": [("beta", {"alpha": 60.0, "beta": 40.0}), ("bernoulli", {"means": 0.5})]}
TWO_ARMS_LABEL = "Beta(60,40) (mean 0.6) vs Bernoulli(0.5)"
EPSILONS_B = (0.25, 0.5, 1.0, 2.0, 4.0, math.inf)


def rankflip_b_values():
    return [round(f * math.expm1(EPSILON_A), 12) for f in B_FRACTIONS]


def rankflip_configs(quick: bool):
    horizon, runs = settings(quick)
    out = []
    for policy, _ in POLICIES:
        out.append(Config(label=f"A {policy} quadratic", kwargs=dict(
            env="testbed20", policy=policy, privatizer="quadratic", privatizer_params={"epsilon": EPSILON_A},
            grid={"privatizer.b": rankflip_b_values()}, horizon=horizon, runs=runs, seed=0)))
    for policy, _ in POLICIES:
        for mech in ("linear", "exponential"):
            out.append(Config(label=f"B {policy} {mech}", kwargs=dict(
                env="mixture", env_params=TWO_ARMS, policy=policy, privatizer=mech,
                grid={"privatizer.epsilon": list(EPSILONS_B)}, horizon=horizon, runs=runs, seed=0)))
    return out


def _private(row):
    """(true means, privatized means) of a summary row."""
    if row["label"].startswith("A"):
        return privatized("quadratic", EPSILON_A, b=float(row["privatizer.b"]))
    return privatized(row["privatizer"], float(row["privatizer.epsilon"]), "mixture", env_params=TWO_ARMS)


def rankflip_summary_rows(results):
    rows = default_rows(results)
    for row in rows:
        mu, mu_eps = _private(row)
        best = int(np.argmax(mu))
        row["privatized_gap_of_best_arm"] = f"{mu_eps[best] - np.max(np.delete(mu_eps, best)):.6g}"
        row["privatized_best_arm"] = int(np.argmax(mu_eps))
        row["final_regret_per_round"] = f"{float(row['final_regret_mean']) / int(row['horizon']):.6g}"
    return rows


def _rankflip(results, out_dir):
    import matplotlib.pyplot as plt
    res0 = next(iter(results.values()))
    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    cmap = plt.get_cmap("viridis")
    for col, (policy, name) in enumerate(POLICIES):
        ax = axes[0][col]
        res = results[f"A {policy} quadratic"]
        for i, (f, b) in enumerate(zip(B_FRACTIONS, rankflip_b_values())):
            _, mu_eps = privatized("quadratic", EPSILON_A, b=b)
            gap = mu_eps[0] - np.max(mu_eps[1:])
            plotting.plot_regret(ax, res.sel(**{"privatizer.b": b}), color=cmap(i / (len(B_FRACTIONS) - 1)),
                                 label=f"b = {f:g}(e^ε−1) = {b:.3g}: Δ_ε = {gap:+.4f}")
        ax.set_title(f"(A) {name}, testbed20, quadratic mechanism, ε = {EPSILON_A:g}", fontsize=10)
        ax = axes[1][col]
        colors = epsilon_colors(EPSILONS_B)
        for mech, style in (("exponential", "-"), ("linear", ":")):
            res = results[f"B {policy} {mech}"]
            for eps in EPSILONS_B:
                if mech == "linear" and math.isinf(eps):
                    continue  # the same channel as exponential at ε = ∞
                _, mu_eps = privatized(mech, eps, "mixture", env_params=TWO_ARMS)
                line = plotting.plot_regret(ax, res.sel(**{"privatizer.epsilon": eps}), color=colors[eps],
                                            label=f"{mech[:3]}, {epsilon_label(eps)}: Δ_ε = "
                                                  f"{mu_eps[0] - mu_eps[1]:+.4f}")
                line.set_linestyle(style)
        ax.set_title(f"(B) {name}, {TWO_ARMS_LABEL}\nexponential (solid) vs linear (dotted)", fontsize=10)
    for ax in axes.ravel():
        ax.set_xlabel("t (rounds)")
        ax.set_ylabel(r"pseudo-regret  $\Sigma_i\, \Delta_i\, N_i(t)$")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"LDP Thompson sampling: regret when a non-linear mechanism makes another arm privatized-best (Δ_ε < 0); "
                 f"T = {res0.horizon}, mean of {res0.runs} runs, bands ±{plotting.BAND_Z:g} SE\n"
                 f"Δ_ε = privatized mean of the best arm − largest other privatized mean", fontsize=10.5)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "rankflip.png"))


# ------------------------------------------------------------------------------------------------ registry

EXPERIMENTS = [
    Experiment("ldp-ts-fig2", "LDP Thompson sampling Fig. 2", "LDP Thompson sampling Fig. 2: TS / UCB on LDP bits, linear / quadratic / "
               "exponential, eps 0.5..inf, testbed20", fig2_configs, _fig2, fig2_summary_rows),
    Experiment("ldp-ts-rankflip", "LDP Thompson sampling: privatized best arm flipped", "LDP Thompson sampling: non-linear mechanisms that "
               "make another arm privatized-best (linear regret)", rankflip_configs, _rankflip, rankflip_summary_rows),
]
