"""DP-FTPL (Wang & Zhu, "Optimal Learning Policies for Differential Privacy in Multi-armed Bandits", JMLR 25, 2024):
the registry entries dp-ftpl-fig1 ... dp-ftpl-fig7 (``EXPERIMENTS``, at the end), their settings and figures.

The paper's setting (§8, spec §5): Bernoulli arms, T = 10^6, mean and standard deviation of 100 runs.
  instance 1: 9 arms, μ = 0.3, 0.35, ..., 0.7;  instance 2: 101 arms, μ = 0.3, 0.304, ..., 0.7 (best arm last).
  Fig. 4  (ε, δ)-DP: DP-FTPL-Gauss, -Beta, -New vs DP-UCB-INT at (1, 0.01) and (1, e^-10) on both instances.
  Fig. 5  (ε, 0)-DP: DP-FTPL-New vs DP-UCB, DP-UCB-BOUND, DP-SE at ε = 1 and 0.1 on both instances.
  Fig. 6  instance 1, Gauss vs New, final regret against δ at ε = 0 and ε = 0.1.
  Fig. 7  instance 1, Gauss vs New, final regret against ε at δ = 1e-10 and δ = 10^-3.
  Figs 1-3 illustrate Lemma 8's band for the three perturbations (no simulation).
Our additions and choices (the paper's figures are images; no plotted value is known): GDP-Elim-New, which the
paper never ran, joins Figs 4 and 5 at the same (ε, δ); instance 1 gets 200 runs (instance 2 the paper's 100);
the δ and ε grids of Figs 6-7 are ours (the paper gives none), and Gauss's points whose start phase
9⌈N_G*⌉ ≥ T cannot run (the policy refuses them) and are left out. DP-UCB-INT takes no δ (its ε = 1, v = 1.1 as
in Corrupt bandits): the same run serves both δ panels of Fig. 4. DP-SE's failure probability is β = 1/T. Bands are
±2 standard errors of the mean (the paper shades ± one standard deviation; summary.csv gives both).
"""
from __future__ import annotations

import math
import os

import numpy as np

from jaxbandit import plotting, theory
from jaxbandit.policies import ftpl as ftpl_policies
from jaxbandit.mechanisms import perturbations as dist

from .runner import Config, Experiment, default_rows, paper_draw

__all__ = ["EXPERIMENTS", "INSTANCES", "E_MINUS_10", "FIG4_PRIVACY", "FIG5_EPSILONS", "FIG6_DELTAS", "FIG6_EPSILONS",
           "FIG7_EPSILONS", "FIG7_DELTAS", "LABELS", "settings", "fig4_configs", "fig5_configs", "fig6_configs",
           "fig7_configs", "gauss_feasible", "start_regret", "summary_rows"]

INSTANCES = {
    "instance 1": tuple(round(0.3 + 0.05 * i, 2) for i in range(9)),
    "instance 2": tuple(round(0.3 + 0.004 * i, 3) for i in range(101)),
}
E_MINUS_10 = math.exp(-10)
FIG4_PRIVACY = ((1.0, 0.01), (1.0, E_MINUS_10))
FIG5_EPSILONS = (1.0, 0.1)
FIG6_EPSILONS = (0.0, 0.1)
FIG6_DELTAS = (0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 5e-3, 2e-3, 1e-3, 1e-4, 1e-5)
FIG7_DELTAS = (1e-10, 1e-3)
FIG7_EPSILONS = (10.0, 5.0, 2.0, 1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 1e-3, 1e-4)
DP_UCB_INT = {"epsilon": 1.0, "v": 1.1}
LABELS = {"dp-ftpl-gauss": "DP-FTPL-Gauss", "dp-ftpl-beta": "DP-FTPL-Beta", "dp-ftpl-new": "DP-FTPL-New",
          "gdp-elim-new": "GDP-Elim-New (not run in the paper)", "dp-ucb-int": "DP-UCB-INT (ε = 1, v = 1.1)",
          "dp-ucb": "DP-UCB", "dp-ucb-bound": "DP-UCB-BOUND", "dp-se": "DP-SE (β = 1/T)"}
COLORS = {"dp-ftpl-gauss": "tab:blue", "dp-ftpl-beta": "tab:orange", "dp-ftpl-new": "tab:green",
          "gdp-elim-new": "tab:olive", "dp-ucb-int": "tab:red", "dp-ucb": "tab:purple", "dp-ucb-bound": "tab:brown",
          "dp-se": "tab:gray"}


def settings(instance: str, quick: bool):
    """(horizon, runs): the paper's T = 10^6 with 200 runs (instance 1) or its 100 (instance 2); quick: T = 2·10^5
    (still past Beta's longest start phase, 191193 rounds on instance 2 at δ = e^-10) and 8 runs."""
    if quick:
        return 200_000, 8
    return 1_000_000, 200 if instance == "instance 1" else 100


def _base(instance, policy, quick, **kw):
    horizon, runs = settings(instance, quick)
    return dict(env="bernoulli", env_params={"means": list(INSTANCES[instance])}, policy=policy, horizon=horizon,
                runs=runs, seed=0, **paper_draw(policy), **kw)


def _delta_label(delta):
    return "e^-10" if delta == E_MINUS_10 else f"{delta:g}"


def fig4_configs(quick: bool):
    """Per instance: each FTPL policy and GDP-Elim-New as one sweep over Fig. 4's δ (one compilation), and
    DP-UCB-INT once (it takes no δ)."""
    out = []
    deltas = [d for _, d in FIG4_PRIVACY]
    for inst in INSTANCES:
        for name in ("dp-ftpl-gauss", "dp-ftpl-beta", "dp-ftpl-new", "gdp-elim-new"):
            out.append(Config(f"{inst}: {name}", _base(inst, name, quick, policy_params={"epsilon": 1.0},
                                                       grid={"policy.delta": deltas})))
        out.append(Config(f"{inst}: dp-ucb-int", _base(inst, "dp-ucb-int", quick, policy_params=DP_UCB_INT)))
    return out


def fig5_configs(quick: bool):
    """Per instance: New, GDP-Elim-New (δ = 0), DP-UCB, DP-UCB-BOUND and DP-SE, each one sweep over Fig. 5's ε."""
    out = []
    for inst in INSTANCES:
        horizon, _ = settings(inst, quick)
        extra = {"dp-ftpl-new": {"delta": 0.0}, "gdp-elim-new": {"delta": 0.0}, "dp-se": {"beta": 1.0 / horizon}}
        for name in ("dp-ftpl-new", "gdp-elim-new", "dp-ucb", "dp-ucb-bound", "dp-se"):
            out.append(Config(f"{inst}: {name} (delta=0)",
                              _base(inst, name, quick, policy_params=extra.get(name, {}),
                                    grid={"policy.epsilon": list(FIG5_EPSILONS)})))
    return out


def gauss_feasible(epsilon, delta, horizon, num_arms) -> bool:
    """Whether DP-FTPL-Gauss's start phase, ⌈N_G*⌉ pulls of each arm, is shorter than T (else it refuses to run)."""
    return int(math.ceil(float(dist.gauss_start(epsilon, delta)))) * num_arms < horizon


# Figs 6 and 7 share one shape: Gauss and New on instance 1, final regret against one privacy parameter ("swept")
# with the other ("fixed") held at each of two values.
FINAL_SWEEPS = {  # figure: (fixed parameter, its values, swept parameter, its values, short name of the fixed one)
    6: ("epsilon", FIG6_EPSILONS, "delta", FIG6_DELTAS, "eps"),
    7: ("delta", FIG7_DELTAS, "epsilon", FIG7_EPSILONS, "delta"),
}


def _privacy(fixed, fixed_value, swept_value):
    """(ε, δ) of a point of a Fig. 6/7 sweep."""
    return (fixed_value, swept_value) if fixed == "epsilon" else (swept_value, fixed_value)


def final_regret_configs(figure: int, quick: bool):
    """Instance 1: Gauss and New, each one sweep over the swept parameter at each fixed value (Fig. 6: δ at ε = 0
    and 0.1; Fig. 7: ε at δ = 1e-10 and 10^-3); Gauss's points whose start phase does not fit in T are left out."""
    fixed, fixed_values, swept, swept_values, short = FINAL_SWEEPS[figure]
    inst = "instance 1"
    horizon, _ = settings(inst, quick)
    out = []
    for v in fixed_values:
        for name in ("dp-ftpl-gauss", "dp-ftpl-new"):
            values = [x for x in swept_values
                      if name != "dp-ftpl-gauss" or gauss_feasible(*_privacy(fixed, v, x), horizon, 9)]
            out.append(Config(f"{name} {short}={v:g}", _base(inst, name, quick, policy_params={fixed: v},
                                                             grid={f"policy.{swept}": values})))
    return out


def fig6_configs(quick: bool):
    return final_regret_configs(6, quick)


def fig7_configs(quick: bool):
    return final_regret_configs(7, quick)


# ------------------------------------------------------------------------------------------------ summary.csv

def start_regret(name, epsilon, delta, means) -> float:
    """The regret of a start phase in block order: ⌈N*⌉·Σ_i Δ_i (Gauss, Beta; 0 for the others)."""
    if name not in ("dp-ftpl-gauss", "dp-ftpl-beta"):
        return 0.0
    gaps = max(means) - np.asarray(means)
    return int(ftpl_policies.start_pulls(name, epsilon, delta)) * float(np.sum(gaps))


def _at(res, t):
    """Mean regret at the record time nearest t."""
    i = int(np.argmin(np.abs(res.t - t)))
    return float(res.mean()[i])


def summary_rows(results) -> list[dict]:
    """`default_rows` plus the standard deviation over runs (the paper's band), the mean regret at T/100 and T/10
    (orderings along the curve), the start phase and its regret, Theorem 16's / 18's upper bound for New /
    GDP-Elim-New and, for GDP-Elim-New, Remark 6's lower-bound rate for globally private policies (constant 1: an
    order, not a bound; it says nothing of the (ε, δ)-DP policies, Remark 7)."""
    rows = default_rows(results)
    extra = []
    for label, res in results.items():
        means = res.config["env_params"]["means"]
        name = res.config["policy"]
        for coords, point in res.points():
            params = {**res.config["policy_params"], **{k.split(".", 1)[1]: v for k, v in coords.items()}}
            eps, delta = float(params.get("epsilon", 0.0)), float(params.get("delta", 0.0))
            T = res.horizon
            row = {"final_regret_std": f"{point.final().std(ddof=1):.6g}",
                   "regret_at_T/100": f"{_at(point, T / 100):.6g}", "regret_at_T/10": f"{_at(point, T / 10):.6g}"}
            if name in ("dp-ftpl-gauss", "dp-ftpl-beta"):
                row["start_pulls_per_arm"] = int(ftpl_policies.start_pulls(name, eps, delta))
                row["start_regret"] = f"{start_regret(name, eps, delta, means):.6g}"
            if name == "dp-ftpl-new":
                row["thm16_upper_bound"] = f"{theory.ftpl_new_bound(means, T, eps, delta):.6g}"
            if name == "gdp-elim-new":
                row["thm18_upper_bound"] = f"{theory.gdp_elim_new_bound(means, T, eps, delta):.6g}"
            if name == "gdp-elim-new" and eps > 0:  # Thm 4 bounds globally private policies only (Remark 7)
                row["global_dp_lower_bound_rate_remark6"] = \
                    f"{theory.global_dp_lower_bound_rate(len(means), T, eps, delta):.6g}"
            extra.append(row)
    return [{**r, **e} for r, e in zip(rows, extra)]


# ------------------------------------------------------------------------------------------------ figures

def _curve(ax, res, name, label=None):
    plotting.plot_regret(ax, res, label=label or LABELS[name], color=COLORS[name])


def _regret_axes(ax, title):
    """Log-log: the early orderings (before t = 10^4) matter as much as the final ones."""
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("t (rounds, log scale)")
    ax.set_ylabel(r"pseudo-regret  $\Sigma_i\, \Delta_i\, N_i(t)$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(left=10)
    ax.set_ylim(bottom=5)
    ax.grid(alpha=0.3, which="both")


def _caption(results, instances=tuple(INSTANCES)):
    T = next(iter(results.values())).horizon
    sizes = {inst: len(INSTANCES[inst]) for inst in instances}
    runs = {inst: next(r.runs for r in results.values() if len(r.config["env_params"]["means"]) == k)
            for inst, k in sizes.items()}
    text = {"instance 1": "instance 1 (9 arms, μ = 0.3, 0.35, ..., 0.7", "instance 2": "instance 2 (101 arms, μ = 0.3, "
            "0.304, ..., 0.7"}
    return (f"Bernoulli arms, {' and '.join(f'{text[i]}; {runs[i]} runs)' for i in instances)}; T = {T:g}; "
            f"means, bands ±{plotting.BAND_Z:g} SE")


BOUND_OF = {"dp-ftpl-gauss": ("Theorem 11", lambda m, t, e, d: theory.ftpl_gauss_bound(m, t, e, d)[0]),
            "dp-ftpl-beta": ("Theorem 13", lambda m, t, e, d: theory.ftpl_beta_bound(m, t, e, d)[0]),
            "dp-ftpl-new": ("Theorem 16", theory.ftpl_new_bound),
            "gdp-elim-new": ("Theorem 18", theory.gdp_elim_new_bound)}


def _draw_bounds(ax, means, T, eps, delta, names, lower=False):
    """The papers' upper bounds of ``names`` against t (λ optimised at each t for Theorems 11 and 13; a vacuous
    one is said in words), and with ``lower`` Remark 6's global-DP rate (N/ε)·log[...] (constant 1: an order)."""
    t = np.geomspace(100, T, 12)
    for name in names:
        if name == "dp-ftpl-gauss" and delta == 0:
            continue
        which, fn = BOUND_OF[name]
        plotting.draw_bound(ax, t, [fn(means, x, eps, delta) for x in t],
                            f"{which} ({LABELS[name].split(' (')[0]})", color=COLORS[name],
                            trivial=theory.trivial_bound("regret", t, means))
    if lower:
        plotting.draw_bound(ax, t, [theory.global_dp_lower_bound_rate(len(means), x, eps, delta) for x in t],
                            "Remark 6, any global-DP policy (constant 1)", kind="lower", asymptotic=True,
                            color="black")


def _fig4(results, out_dir):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(13, 9.5), squeeze=False)
    for row, inst in enumerate(INSTANCES):
        for col, (eps, delta) in enumerate(FIG4_PRIVACY):
            ax = axes[row][col]
            for name in ("dp-ftpl-gauss", "dp-ftpl-beta", "dp-ftpl-new", "gdp-elim-new"):
                _curve(ax, results[f"{inst}: {name}"].sel(**{"policy.delta": delta}), name)
            _curve(ax, results[f"{inst}: dp-ucb-int"], "dp-ucb-int")
            _regret_axes(ax, f"{inst}, (ε, δ) = ({eps:g}, {_delta_label(delta)})")
            _draw_bounds(ax, INSTANCES[inst], results[f"{inst}: dp-ucb-int"].horizon, eps, delta,
                         ("dp-ftpl-gauss", "dp-ftpl-beta", "dp-ftpl-new", "gdp-elim-new"))
            ax.legend(fontsize=7.5, loc="lower right")
    fig.suptitle("DP-FTPL Fig. 4: (ε, δ)-DP policies\n" + _caption(results) + "\nDP-UCB-INT's mean mixes typical "
                 "runs with runs locked on a suboptimal arm (experiments/dp_ftpl_findings.md)", fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig4.png"))


def _fig5(results, out_dir):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(13, 9.5), squeeze=False)
    for row, inst in enumerate(INSTANCES):
        for col, eps in enumerate(FIG5_EPSILONS):
            ax = axes[row][col]
            for name in ("dp-ftpl-new", "gdp-elim-new", "dp-ucb", "dp-ucb-bound", "dp-se"):
                res = results[f"{inst}: {name} (delta=0)"].sel(**{"policy.epsilon": eps})
                _curve(ax, res, name)
            _regret_axes(ax, f"{inst}, ε = {eps:g}, δ = 0")
            _draw_bounds(ax, INSTANCES[inst], res.horizon, eps, 0.0, ("dp-ftpl-new", "gdp-elim-new"), lower=True)
            ax.legend(fontsize=7.5, loc="lower right")
    fig.suptitle("DP-FTPL Fig. 5: (ε, 0)-DP policies\n" + _caption(results), fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig5.png"))


def _final_vs(ax, res, axis, name, label):
    values = np.asarray(res.grid[axis], np.float64)
    ax.errorbar(values, res.mean()[:, -1], yerr=plotting.BAND_Z * res.se()[:, -1], marker="o", ms=4, capsize=2,
                color=COLORS[name], label=label)


def _uniform(ax, T):
    means = np.asarray(INSTANCES["instance 1"])
    uniform = float(np.mean(means.max() - means)) * T
    ax.axhline(uniform, color="tab:red", lw=1, ls="--", label=f"uniform play, {uniform:.3g}")


def _final_regret_figure(figure: int, results, out_dir):
    import matplotlib.pyplot as plt
    fixed, fixed_values, swept, swept_values, short = FINAL_SWEEPS[figure]
    symbol = {"epsilon": "ε", "delta": "δ"}
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), squeeze=False)
    means = INSTANCES["instance 1"]
    for ax, v in zip(axes[0], fixed_values):
        gauss, new = results[f"dp-ftpl-gauss {short}={v:g}"], results[f"dp-ftpl-new {short}={v:g}"]
        T = new.horizon
        _final_vs(ax, gauss, f"policy.{swept}", "dp-ftpl-gauss", "DP-FTPL-Gauss")
        _final_vs(ax, new, f"policy.{swept}", "dp-ftpl-new", "DP-FTPL-New")
        grid = np.geomspace(min(swept_values), max(swept_values), 200)
        feasible = [x for x in grid if gauss_feasible(*_privacy(fixed, v, x), T, len(means))]
        ax.plot(feasible, [start_regret("dp-ftpl-gauss", *_privacy(fixed, v, x), means) for x in feasible],
                color=COLORS["dp-ftpl-gauss"], ls=":", lw=1.2, label="Gauss's start-phase regret ⌈N_G*⌉ΣΔ")
        if plotting.bounds_on():
            ax.plot(grid, [theory.ftpl_new_bound(means, T, *_privacy(fixed, v, x)) for x in grid],
                    color=COLORS["dp-ftpl-new"], ls=":", lw=1.2, label="New: Theorem 16 upper bound")
        _uniform(ax, T)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.3 * min(np.min(gauss.mean()[:, -1]), np.min(new.mean()[:, -1])))
        ax.set_xlabel(symbol[swept])
        ax.set_ylabel(f"pseudo-regret at T = {T:g}")
        dropped = len(swept_values) - len(gauss.grid[f"policy.{swept}"])
        note = f"; Gauss's start phase exceeds T at {dropped} of the {len(swept_values)} values" if dropped else ""
        ax.set_title(f"instance 1, {symbol[fixed]} = {v:g}{note}", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7.5, loc="lower left")
    fig.suptitle(f"DP-FTPL Fig. {figure}: final regret against {symbol[swept]} at fixed {symbol[fixed]}\n"
                 + _caption(results, ["instance 1"]), fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, f"fig{figure}.png"))


# ------------------------------------------------------------------------------ Figs 1-3: Lemma 8's band (analytic)
# For arm i's perturbation CDF F (its history) and F' (one reward of arm i changed), Lemma 8 needs F' inside the
# band max(0, (F − δ)e^-ε) ≤ F' ≤ min(1, 1 − (1 − F − δ)e^-ε). Each panel draws F, F' and the band, and
# summary.csv gives the largest breach (`mechanisms.perturbations.band_violation`, ≤ 0: private at that n).

BAND_PANELS = {
    # fig: (title, [(panel title, kind, n, extra)])
    "fig1": ("DP-FTPL Fig. 1: DP-FTPL-Gauss's N(μ̂, 2/N) at (ε, δ) = (1, 0.01), μ̂ = 0.5; F' after one 0 → 1",
             1.0, 0.01, [("N = 1 < N_G* = 7.68", "gauss", 1), ("N = ⌈N_G*⌉ = 8", "gauss", 8),
                         ("N = 30 > N_G*", "gauss", 30)]),
    "fig2": ("DP-FTPL Fig. 2: DP-FTPL-Beta at (ε, δ) = (1, 0.01), all N rewards 0; F' after one 0 → 1",
             1.0, 0.01, [("with pseudo-counts, N = 10 < N_B* = 826.9", "beta", 10),
                         ("with pseudo-counts, N = ⌈N_B*⌉ = 827", "beta", 827),
                         ("with pseudo-counts, N = 5000 > N_B*", "beta", 5000),
                         ("without pseudo-counts, N = 10", "beta-plain", 10),
                         ("without pseudo-counts, N = 10^4", "beta-plain", 10 ** 4),
                         ("without pseudo-counts, N = 10^7", "beta-plain", 10 ** 7)]),
    "fig3": ("DP-FTPL Fig. 3: DP-FTPL-New's D(N; x0, ε, δ) at (ε, δ) = (0.1, 0), x0 = 0.5; F' after one 0 → 1",
             0.1, 0.0, [("N = 1", "new", 1), ("N = 10", "new", 10), ("N = 100", "new", 100)]),
}


def band_curves(kind, n, epsilon, delta, ones=0):
    """(x, F, F') on a grid covering the bulk of both laws (float64): F of a history of ``n`` rewards (``ones`` of
    them 1, for Beta), F' after one 0 → 1."""
    import jax
    import jax.numpy as jnp
    from jax.scipy.special import betainc
    with jax.enable_x64(True):
        if kind == "gauss":
            sd = math.sqrt(2 / n)
            x = np.linspace(0.5 - 4.5 * sd, 0.5 + 1 / n + 4.5 * sd, 2001)
            F = jax.scipy.stats.norm.cdf(x, 0.5, sd)
            G = jax.scipy.stats.norm.cdf(x, 0.5 + 1 / n, sd)
        elif kind in ("beta", "beta-plain"):
            k = int(dist.beta_pseudo_count(n)) if kind == "beta" else 0
            a, b = ones + 1 + k, n - ones + 1 + k
            centre, spread = (a + 0.5) / (a + b), math.sqrt((a + 1) * b) / (a + b) ** 1.5
            x = np.linspace(max(0.0, centre - 8 * spread), min(1.0, centre + 8 * spread), 4001)
            F = betainc(a, b, jnp.asarray(x))
            G = betainc(a + 1, b - 1, jnp.asarray(x))
        else:
            width = 5 / (n * epsilon) if delta == 0 else float(dist.new_half_width(n, epsilon, delta))
            x = np.linspace(0.5 - width, 0.5 + 1 / n + width, 4001)
            F = dist.new_cdf(x, n, 0.5, epsilon, delta)
            G = dist.new_cdf(x, n, 0.5 + 1 / n, epsilon, delta)
        return x, np.asarray(F), np.asarray(G)


def _violation(kind, n, epsilon, delta, ones=0, both_ways=False):
    """The largest breach of Lemma 8's band at this N, in float64 (``both_ways``: also with the roles of F and F'
    swapped, the neighbour whose one reward goes 1 → 0)."""
    import jax
    x, F, G = band_curves(kind, n, epsilon, delta, ones)
    with jax.enable_x64(True):
        breach = float(dist.band_violation(F, G, epsilon, delta))
        return max(breach, float(dist.band_violation(G, F, epsilon, delta))) if both_ways else breach


def _worst_violation(kind, n, epsilon, delta):
    """Over histories: Gauss and New are location families (one history says all); Beta over every number R of
    ones below N, both ways, up to N = 512 (beyond: R ∈ {0, 1, ⌊N/2⌋, N − 1}, spec §6.8's histories)."""
    if kind == "beta":
        ones = range(n) if n <= 512 else sorted({0, 1, n // 2, n - 1})
        return max(_violation(kind, n, epsilon, delta, r, both_ways=True) for r in ones)
    return _violation(kind, n, epsilon, delta, both_ways=True)


def smallest_private_n(kind, epsilon, delta, limit=10 ** 6, tol=1e-12):
    """The smallest N from which the perturbation stays inside Lemma 8's band (`_worst_violation` ≤ tol; doubling
    then bisecting, as the breach falls with N for these laws): the start phase the privacy condition itself
    needs, against the paper's sufficient N_G* / N_B*. None beyond ``limit``."""
    bad = lambda n: _worst_violation(kind, n, epsilon, delta) > tol
    if not bad(1):
        return 1
    lo, hi = 1, 2
    while bad(hi):
        lo, hi = hi, 2 * hi
        if hi > limit:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if bad(mid) else (lo, mid)
    return hi


def _band_rows(fig_id):
    title, eps, delta, panels = BAND_PANELS[fig_id]
    rows = []
    for panel, kind, n in panels:
        breach = _violation(kind, n, eps, delta)
        rows.append({"panel": panel, "perturbation": kind, "N": n, "epsilon": eps, "delta": delta,
                     "max_band_violation": f"{breach:.4g}", "private_at_this_N": breach <= 1e-12})
    for kind in dict.fromkeys(k for _, k, _ in panels):
        if kind != "beta-plain":
            rows.append({"panel": "smallest private N (over histories)", "perturbation": kind,
                         "N": smallest_private_n(kind, eps, delta), "epsilon": eps, "delta": delta})
    return rows


def _band_figure(fig_id, out_dir):
    import matplotlib.pyplot as plt
    title, eps, delta, panels = BAND_PANELS[fig_id]
    cols = 3
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.2 * rows), squeeze=False)
    for ax, (panel, kind, n) in zip(axes.ravel(), panels):
        x, F, G = band_curves(kind, n, eps, delta)
        low = np.maximum(0, (F - delta) * math.exp(-eps))
        high = np.minimum(1, 1 - (1 - F - delta) * math.exp(-eps))
        ax.fill_between(x, low, high, color="tab:red", alpha=0.25, lw=0, label="feasible band for F' (Lemma 8)")
        ax.plot(x, F, color="black", lw=1.4, label="F (history)")
        ax.plot(x, G, color="tab:blue", lw=1.4, ls="--", label="F' (one reward changed)")
        breach = _violation(kind, n, eps, delta)
        verdict = "inside the band" if breach <= 1e-12 else f"outside the band by {breach:.3g}"
        ax.set_title(f"{panel}\nF' {verdict}", fontsize=9)
        ax.set_xlabel("θ")
        ax.set_ylabel("CDF")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, f"{fig_id}.png"))


def _no_configs(quick: bool):
    return []


EXPERIMENTS = [
    Experiment("dp-ftpl-fig1", "DP-FTPL Fig. 1", "DP-FTPL Fig. 1: DP-FTPL-Gauss's CDFs against Lemma 8's band",
               _no_configs, lambda results, out: _band_figure("fig1", out), lambda results: _band_rows("fig1")),
    Experiment("dp-ftpl-fig2", "DP-FTPL Fig. 2", "DP-FTPL Fig. 2: DP-FTPL-Beta's CDFs with/without pseudo-counts",
               _no_configs, lambda results, out: _band_figure("fig2", out), lambda results: _band_rows("fig2")),
    Experiment("dp-ftpl-fig3", "DP-FTPL Fig. 3", "DP-FTPL Fig. 3: DP-FTPL-New's CDFs on Lemma 8's band, (0.1, 0)",
               _no_configs, lambda results, out: _band_figure("fig3", out), lambda results: _band_rows("fig3")),
    Experiment("dp-ftpl-fig4", "DP-FTPL Fig. 4",
               "DP-FTPL Fig. 4: DP-FTPL Gauss/Beta/New vs DP-UCB-INT, (1, 0.01) and (1, e^-10), T=1e6",
               fig4_configs, _fig4, summary_rows),
    Experiment("dp-ftpl-fig5", "DP-FTPL Fig. 5",
               "DP-FTPL Fig. 5: DP-FTPL-New vs DP-UCB, DP-UCB-BOUND, DP-SE, eps 1 and 0.1, T=1e6",
               fig5_configs, _fig5, summary_rows),
    Experiment("dp-ftpl-fig6", "DP-FTPL Fig. 6", "DP-FTPL Fig. 6: Gauss vs New, final regret against delta, T=1e6",
               fig6_configs, lambda results, out: _final_regret_figure(6, results, out), summary_rows),
    Experiment("dp-ftpl-fig7", "DP-FTPL Fig. 7", "DP-FTPL Fig. 7: Gauss vs New, final regret against eps, T=1e6",
               fig7_configs, lambda results, out: _final_regret_figure(7, results, out), summary_rows),
]
