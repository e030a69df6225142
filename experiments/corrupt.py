"""Corrupt bandits ("Corrupt Bandits for Preserving Local Privacy", Gajane, Urvoy & Kaufmann, ALT 2018): the registry
entries corrupt-exp61, corrupt-exp62, corrupt-exp63 and corrupt-appendix (``EXPERIMENTS``, at the end), their
settings, configuration builders and panels.

The paper's setting (spec §5): Bernoulli arms, T = 10^5, 1000 repetitions, K = 10 with μ = (0.9, 0.8, ..., 0.8).
  6.1  randomized response with p00 = p11 = 0.6 for the optimal arm and 0.9 for the others; kl-UCB-CF, TS-CF,
       WR kl-UCB, WR TS and kl-UCB, UCB1, TS on the raw feedback; "LB" = C_LB log t (Theorem 1).
  6.2  ε-optimal randomized response (Eq. 5) on every arm, ε ∈ {1/8, ..., 8}; regret at T of kl-UCB-CF and TS-CF;
       "UB" = Corollary 3 without its O(sqrt(log T)) term.
  6.3  the same at ε = 1 against the global-DP DP-UCB-INT (ε = 1, v = 1.1; the paper's δ = e^-10 is the slack of
       its privacy statement, not an input of the algorithm). We add DP-UCB and DP-UCB-BOUND at ε = 1.
Unstated in the paper, our choices (spec §2, §7): exploration constant c = 3 in f(t) = log t + c log log t (the
only value the paper writes, Theorem 2) for kl-UCB-CF, WR kl-UCB and naive kl-UCB alike; ties at random; indices
unclipped; pseudo-regret Σ_a Δ_a N_a(t) on the true means.
"""
from __future__ import annotations

import functools
import math
import os

import numpy as np

from jaxbandit import plotting, theory
from jaxbandit.policies.corrupt import channel_params
from jaxbandit.mechanisms import randomized_response as rr

from .runner import Config, Experiment, default_rows, paper_draw

__all__ = ["EXPERIMENTS", "MAIN", "SCENARIOS", "EPSILONS", "C", "GLOBAL_DP", "GLOBAL_DELTA", "EXP61_POLICIES",
           "CF_POLICIES", "GLOBAL_POLICIES", "NON_PRIVATE", "settings", "exp61_channel", "ldp_channel",
           "exp61_configs", "exp62_configs", "exp63_configs", "appendix_configs", "bounds_row", "global_dp_level",
           "instance_label", "exp61_panel", "exp62_panel", "exp63_panel", "caption", "rows_with_bounds"]

MAIN = (0.9,) + (0.8,) * 9
SCENARIOS = {  # Appendix III, Table 1: the fully specified scenarios (1 and 2 were lost in extraction)
    "scenario 3": (0.9, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.6, 0.6, 0.6),
    "scenario 4": (0.9,) + (0.6,) * 9,
}
EPSILONS = (1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0, 8.0)
C = 3.0
GLOBAL_DP = {"epsilon": 1.0, "v": 1.1}
GLOBAL_DELTA = math.exp(-10)

EXP61_POLICIES = (  # (registry name, label, takes the channel, extra params)
    ("klucb-cf", "kl-UCB-CF", True, {"c": C}),
    ("ts-cf", "TS-CF", True, {}),
    ("wr-klucb", "WR kl-UCB", True, {"c": C}),
    ("wr-ts", "WR TS", True, {}),
    ("klucb", "kl-UCB (naive)", False, {"c": C}),
    ("ucb1", "UCB1 (naive)", False, {}),
    ("thompson", "TS (naive)", False, {}),
)
CF_POLICIES = (("klucb-cf", "kl-UCB-CF", {"c": C}), ("ts-cf", "TS-CF", {}))
GLOBAL_POLICIES = (("dp-ucb-int", "DP-UCB-INT (global)", GLOBAL_DP),
                   ("dp-ucb", "DP-UCB (global)", {"epsilon": 1.0}),
                   ("dp-ucb-bound", "DP-UCB-BOUND (global)", {"epsilon": 1.0}))
NON_PRIVATE = ("ucb1", "UCB1 (no privacy)")  # the index all three DP-UCBs perturb, on the true rewards


def settings(quick: bool):
    """(horizon, runs): the paper's 10^5 and 1000, or a quick 2000 and 24."""
    return (2_000, 24) if quick else (100_000, 1000)


def exp61_channel(means):
    """6.1's corruption: p00 = p11 = 0.6 on the optimal arm, 0.9 elsewhere (per arm)."""
    best = int(np.argmax(means))
    p = np.where(np.arange(len(means)) == best, 0.6, 0.9)
    return channel_params(p, p, len(means))


def ldp_channel(epsilon, num_arms):
    """The ε-optimal randomized response (Eq. 5) on every arm, stored ε-LDP (`rr.epsilon_optimal`)."""
    return rr.epsilon_optimal(epsilon, num_arms)


def _base(means, policy, horizon, runs, **kw):
    return dict(env="bernoulli", env_params={"means": list(means)}, policy=policy, horizon=horizon, runs=runs,
                seed=0, **paper_draw(policy), **kw)


def exp61_configs(means, quick, prefix=""):
    horizon, runs = settings(quick)
    ch = exp61_channel(means)
    return [Config(f"{prefix}{label}", _base(means, name, horizon, runs, privatizer="randomized-response",
                                             privatizer_params=ch, policy_params={**(ch if cf else {}), **extra}))
            for name, label, cf, extra in EXP61_POLICIES]


def exp62_configs(means, quick, prefix=""):
    """One ε sweep per CF policy (one compilation): the channel and the policy's knowledge of it move jointly."""
    horizon, runs = settings(quick)
    K = len(means)
    axis = ("privatizer.p00", "privatizer.p11", "policy.p00", "policy.p11")
    values = []
    for eps in EPSILONS:
        ch = ldp_channel(eps, K)
        values.append((ch["p00"], ch["p11"], ch["p00"], ch["p11"]))
    ch1 = ldp_channel(1.0, K)
    sweeps = [Config(f"{prefix}{label} vs epsilon",
                     _base(means, name, horizon, runs, privatizer="randomized-response", privatizer_params=ch1,
                           policy_params={**ch1, **extra}, grid={axis: values}))
              for name, label, extra in CF_POLICIES]
    # ε = ∞ (the learner sees the rewards): the CF algorithms are then kl-UCB and TS themselves.
    limits = [Config(f"{prefix}{label} without privacy", _base(means, naive, horizon, runs, policy_params=extra))
              for (_, label, extra), naive in zip(CF_POLICIES, ("klucb", "thompson"))]
    return sweeps + limits


EXP63_QUICK_HORIZON = 100_000  # at ε = 1 every algorithm plays near-uniformly up to T ≈ 10^4: quick keeps the
                               # paper's T (with few runs) so that the curves separate as in the full figure


def exp63_configs(means, quick, prefix=""):
    horizon, runs = settings(quick)
    horizon = EXP63_QUICK_HORIZON if quick else horizon
    ch = ldp_channel(1.0, len(means))
    local = [Config(f"{prefix}{label} (local, eps=1)", _base(means, name, horizon, runs, privatizer="randomized-response",
                                                             privatizer_params=ch, policy_params={**ch, **extra}))
             for name, label, extra in CF_POLICIES]
    central = [Config(f"{prefix}{label}", _base(means, name, horizon, runs, policy_params=dict(params)))
               for name, label, params in GLOBAL_POLICIES]
    reference = [Config(f"{prefix}{NON_PRIVATE[1]}", _base(means, NON_PRIVATE[0], horizon, runs))]
    return local + central + reference


def bounds_row(means, p00, p11, horizon):
    """Theory columns of summary.csv for an instance and channel."""
    return {"C_LB": f"{theory.corrupt_lower_bound_constant(means, p00, p11):.6g}",
            "lower_bound_at_T": f"{float(theory.corrupt_lower_bound(means, p00, p11, horizon)):.6g}",
            "klucb_cf_finite_bound_at_T": f"{float(theory.klucb_cf_bound(means, p00, p11, horizon)):.6g}",
            "rr_upper_bound_at_T": f"{float(theory.rr_upper_bound(means, p00, p11, horizon)):.6g}"}


def global_dp_level(horizon) -> str:
    """DP-UCB-INT's (ε_total, δ) at the paper's setting, by advanced composition (our reading)."""
    from jaxbandit.policies.dp_ucb import dp_ucb_int_privacy
    eps = dp_ucb_int_privacy(GLOBAL_DP["epsilon"], GLOBAL_DP["v"], GLOBAL_DELTA, horizon)
    return f"{eps:.3g}"


def instance_label(means) -> str:
    mu = np.asarray(means)
    return "μ = (" + ", ".join(f"{m:g}" for m in mu) + ")" if len(set(mu[1:])) > 1 else \
        f"μ = ({mu[0]:g}, {mu[1]:g} × {len(mu) - 1})"


# ------------------------------------------------------------------------------------------------- figures

ASYMPTOTIC_NOTE = ("The lower bound is asymptotic (Thm 1: lim inf R(T)/log T ≥ C_LB as T → ∞);\n"
                   "at a finite horizon regret curves may lie below it.")


def _lb_curve(ax, t, means, p00, p11, label="asymptotic LB: C_LB log t (Thm 1)"):
    if not plotting.bounds_on():  # jaxbandit reproduce --no-bounds
        return
    t = np.asarray(t, np.float64)
    t = t[t >= 2]
    c_lb = theory.corrupt_lower_bound_constant(means, p00, p11)
    ax.plot(t, c_lb * np.log(t), color="black", ls="--", lw=1.4, label=f"{label}, C_LB = {c_lb:.4g}")


def exp61_panel(ax, results, means, prefix="", zoom=False):
    """Regret against t of 6.1's algorithms with the LB curve (zoom: the CF algorithms and the bounds only)."""
    ch = exp61_channel(means)
    for name, label, _, _ in EXP61_POLICIES:
        if zoom and name not in ("klucb-cf", "ts-cf"):
            continue
        plotting.plot_regret(ax, results[f"{prefix}{label}"], label=label)
    res = results[f"{prefix}{EXP61_POLICIES[0][1]}"]
    _lb_curve(ax, res.t, means, ch["p00"], ch["p11"])
    if zoom:  # log t axis: the LB is a straight line; Theorem 2's finite-time bound is mostly off this scale
        top = 1.6 * max(max(np.nanmax(results[f"{prefix}{label}"].mean()) for _, label, _, _ in EXP61_POLICIES[:2]),
                        theory.corrupt_lower_bound_constant(means, ch["p00"], ch["p11"]) * np.log(res.horizon))
        t = res.t[res.t >= 3].astype(np.float64)
        bound = theory.klucb_cf_bound(means, ch["p00"], ch["p11"], t)
        text = f"kl-UCB-CF bound (Thm 2, finite-time): {bound[-1]:.0f} at T"
        if not plotting.bounds_on():
            pass
        elif np.nanmin(bound) < top:
            ax.plot(t, bound, color="gray", ls=":", label=text)
        else:  # every value above the panel: said in words, not as a legend entry for a line nobody sees
            ax.text(0.02, 0.80, text + ",\nabove this panel", transform=ax.transAxes, ha="left", va="top",
                    fontsize=7.5, color="0.3")
        ax.set_xscale("log")
        ax.set_ylim(0, top)
    ax.set_xlabel("t (rounds)" + (", log scale" if zoom else ""))
    ax.set_ylabel(r"pseudo-regret  $\Sigma_a\, \Delta_a\, N_a(t)$")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left" if zoom else "center left")
    if not zoom:
        ax.text(0.99, 0.02, ASYMPTOTIC_NOTE, transform=ax.transAxes, ha="right", va="bottom", fontsize=7,
                style="italic", color="0.3")


def exp62_panel(ax, results, means, prefix=""):
    """Regret at T against ε (log-log) for the CF algorithms, with Corollary 3's UB and the LB at T."""
    res0 = results[f"{prefix}{CF_POLICIES[0][1]} vs epsilon"]
    horizon = res0.horizon
    eps = np.asarray(EPSILONS)
    for (name, label, _), marker in zip(CF_POLICIES, "os"):
        res = results[f"{prefix}{label} vs epsilon"]
        ax.errorbar(eps, res.mean()[:, -1], yerr=plotting.BAND_Z * res.se()[:, -1], marker=marker, ms=5, capsize=2,
                    label=label)
    for (name, label, _), color in zip(CF_POLICIES, ("tab:blue", "tab:orange")):
        free = results.get(f"{prefix}{label} without privacy")
        if free is not None:
            ax.axhline(free.mean()[-1], color=color, lw=1, ls="-.", label=f"{label} without privacy (ε = ∞)")
    grid = np.geomspace(eps[0], eps[-1], 200)
    ps = [rr.optimal_p(e) for e in grid]
    if plotting.bounds_on():
        ax.plot(grid, [theory.ldp_rr_upper_bound(means, e, horizon) for e in grid], color="gray", ls=":",
                label="UB: Cor. 3, asymptotic (without O(sqrt(log T)))")
        ax.plot(grid, [float(theory.corrupt_lower_bound(means, p, p, horizon)) for p in ps], color="black",
                ls="--", label="asymptotic LB: C_LB log T (Thm 1)")
    mu = np.asarray(means)
    uniform = float(np.mean(mu.max() - mu)) * horizon
    ax.axhline(uniform, color="tab:red", lw=1, label=f"uniform play, {uniform:.4g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    ax.minorticks_off()
    ax.set_xlabel("ε (ε-optimal randomized response on every arm, Eq. 5)")
    ax.set_ylabel(f"pseudo-regret at T = {horizon}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7.5, loc="upper right")   # the regret falls with ε; lower left covered the small-ε points


def exp63_panel(ax, results, means, prefix=""):
    for name, label, _ in CF_POLICIES:
        plotting.plot_regret(ax, results[f"{prefix}{label} (local, eps=1)"], label=f"{label} (local DP, ε = 1)")
    horizon = results[f"{prefix}{CF_POLICIES[0][1]} (local, eps=1)"].horizon
    for name, label, params in GLOBAL_POLICIES:
        extra = (f" ε = 1, v = 1.1: (ε_total ≈ {global_dp_level(horizon)}, e^-10)-DP by our reading"
                 if name == "dp-ucb-int" else " ε = 1")
        plotting.plot_regret(ax, results[f"{prefix}{label}"], label=label.replace(" (global)", ", global DP,") + extra)
    plotting.plot_regret(ax, results[f"{prefix}{NON_PRIVATE[1]}"], label=NON_PRIVATE[1] + ", true rewards",
                         color="gray")
    p = rr.optimal_p(1.0)
    _lb_curve(ax, results[f"{prefix}{GLOBAL_POLICIES[0][1]}"].t, means, p, p, label="asymptotic LB at ε = 1 (Thm 1)")
    ax.set_xlabel("t (rounds)")
    ax.set_ylabel(r"pseudo-regret  $\Sigma_a\, \Delta_a\, N_a(t)$")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")


def caption(results, means) -> str:
    res = next(iter(results.values()))
    return (f"Bernoulli arms {instance_label(means)}; T = {res.horizon}, mean of {res.runs} runs, bands/bars "
            f"±2 SE; c = {C:g} in f(t) = log t + c log log t")


def _channel(res, coords):
    """The exact (p00, p11) of a result's grid point (the swept joint axis or the base parameters)."""
    params = dict(res.config.get("privatizer_params", {}))
    for axis, value in coords.items():
        for path, v in zip(axis.split(","), value if "," in axis else (value,)):
            if path.startswith("privatizer."):
                params[path.split(".", 1)[1]] = v
    return np.asarray(params["p00"], np.float64), np.asarray(params["p11"], np.float64)


def rows_with_bounds(results, means):
    """summary.csv rows with the theory columns of each row's channel (and DP-UCB-INT's composed ε), computed
    from the exact parameters (the rows' cells are rounded)."""
    rows = default_rows(results)
    points = [(res, coords) for res in results.values() for coords, _ in res.points()]
    for row, (res, coords) in zip(rows, points):
        horizon = int(row["horizon"])
        if res.config["privatizer"] == "randomized-response":
            p00, p11 = _channel(res, coords)
            row.update(bounds_row(means, p00, p11, horizon))
            if np.all(p00 == p00.ravel()[0]) and np.all(p00 == p11):
                eps = math.log(p00.ravel()[0] / (1 - p00.ravel()[0]))
                row["ldp_epsilon"] = f"{eps:.8g}"
                row["cor3_upper_bound_at_T"] = f"{float(theory.ldp_rr_upper_bound(means, eps, horizon)):.6g}"
            row["ldp_level_per_arm"] = " ".join(f"{e:.7g}" for e in rr.ldp_level(p00, p11))
            row["realized_ldp_level_per_arm"] = " ".join(f"{e:.7g}" for e in rr.realized_level(p00, p11))
        if row["policy"] == "dp-ucb-int":
            row["global_dp_epsilon_total_delta_e-10"] = global_dp_level(horizon)
    return rows


# ------------------------------------------------------------------------------------------------ Exp. 6.1
# Fig. 2a: regret against time under per-arm randomized response (p = 0.6 on the optimal arm, 0.9 elsewhere), on
# μ = (0.9, 0.8 × 9): kl-UCB-CF and TS-CF against the wrapper and naive algorithms, with the lower bound C_LB log t.
# The feedback order is reversed (λ_1 = 0.58 < λ_a = 0.74), so the naive algorithms should lose ≈ 0.1 per round.
# Figures: fig2a.png (all algorithms; the CF ones with the LB and the Theorem 2 bound). summary.csv adds the bounds.

def _main_rows(results):
    return rows_with_bounds(results, MAIN)


def _exp61(results, out_dir):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.9))
    exp61_panel(axes[0], results, MAIN)
    axes[0].set_title("(a) all algorithms", fontsize=10)
    exp61_panel(axes[1], results, MAIN, zoom=True)
    axes[1].set_title("(b) the CF algorithms against the bounds (log time axis)", fontsize=10)
    fig.suptitle("Corrupt bandits Exp. 6.1: randomized response p00 = p11 = 0.6 on the optimal arm, 0.9 on the others\n"
                 + caption(results, MAIN), fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig2a.png"))


# ------------------------------------------------------------------------------------------------ Exp. 6.2
# Fig. 2b: regret at T against ε under the ε-optimal randomized response (Eq. 5) on every arm, ε ∈ {1/8, ..., 8},
# μ = (0.9, 0.8 × 9); kl-UCB-CF and TS-CF, one ε sweep (one compilation) each, with Corollary 3's "UB" and the LB
# at T, and their ε = ∞ limits (kl-UCB and TS on the true rewards) as references.
# The paper claims regret falls with ε and plateaus below ε = 1/4 (near uniform play) and above ε = 4 (s → 1).
# Figures: fig2b.png. summary.csv adds per ε the LB, the Corollary 3 bound and the Theorem 2 finite-time bound.

def _exp62(results, out_dir):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9.8, 5.6))
    exp62_panel(ax, results, MAIN)
    fig.suptitle("Corrupt bandits Exp. 6.2: regret at T against the LDP level ε\n" + caption(results, MAIN), fontsize=9.5)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig2b.png"))


# ------------------------------------------------------------------------------------------------ Exp. 6.3
# Fig. 2c: local DP (kl-UCB-CF and TS-CF under the ε = 1 optimal randomized response) against global DP
# (DP-UCB-INT with ε = 1, v = 1.1, and DP-UCB, DP-UCB-BOUND at ε = 1, all seeing the true rewards) on
# μ = (0.9, 0.8 × 9). The paper expects global DP to have lower regret, since local DP is the stronger guarantee.
# Figures: fig2c.png; summary.csv adds DP-UCB-INT's composed (ε_total, δ).

def _exp63(results, out_dir):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.9))
    for ax, scale in zip(axes, ("linear", "log")):
        exp63_panel(ax, results, MAIN)
        ax.set_xscale(scale)
        ax.set_title(f"{scale} time axis", fontsize=10)
    fig.suptitle("Corrupt bandits Exp. 6.3: local DP (ε = 1 randomized response) against global DP\n"
                 + caption(results, MAIN), fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "fig2c.png"))


# ------------------------------------------------------------------------------------------------ Appendix III
# Figs 4–7: Exps 6.1, 6.2 and 6.3 on the fully specified scenarios of Table 1, scenario 3
# μ = (0.9, 0.8 × 3, 0.7 × 3, 0.6 × 3) and scenario 4 μ = (0.9, 0.6 × 9), with the main experiments' parameters.
# Scenarios 1 and 2 lost their means in extraction and are not run.
# Figures: one per scenario (scenario3.png, scenario4.png) with the three panels; summary.csv has every row.

def _prefix(name):
    return f"{name}: "


def appendix_configs(quick: bool):
    out = []
    for name, means in SCENARIOS.items():
        for build in (exp61_configs, exp62_configs, exp63_configs):
            out += build(means, quick, prefix=_prefix(name))
    return out


def _appendix_rows(results):
    rows = []
    for name, means in SCENARIOS.items():
        mine = {k: v for k, v in results.items() if k.startswith(_prefix(name))}
        rows += rows_with_bounds(mine, means)
    return rows


def _appendix(results, out_dir):
    import matplotlib.pyplot as plt
    for name, means in SCENARIOS.items():
        fig, axes = plt.subplots(1, 3, figsize=(19, 5.2))
        exp61_panel(axes[0], results, means, prefix=_prefix(name))
        axes[0].set_title("(a) Exp. 6.1 corruption (p = 0.6 optimal arm, 0.9 others)", fontsize=10)
        exp62_panel(axes[1], results, means, prefix=_prefix(name))
        axes[1].set_title("(b) Exp. 6.2: regret at T against ε", fontsize=10)
        exp63_panel(axes[2], results, means, prefix=_prefix(name))
        axes[2].set_title("(c) Exp. 6.3: local (ε = 1) against global DP", fontsize=10)
        mine = {k: v for k, v in results.items() if k.startswith(_prefix(name))}
        fig.suptitle(f"Corrupt bandits Appendix III, {name}\n" + caption(mine, means), fontsize=10)
        fig.tight_layout()
        plotting.save(fig, os.path.join(out_dir, f"{name.replace(' ', '')}.png"))


# ------------------------------------------------------------------------------------------------ registry

EXPERIMENTS = [
    Experiment("corrupt-exp61", "Corrupt bandits Exp. 6.1 (Fig. 2a)", "Corrupt bandits Fig. 2a: CF vs wrapper vs naive under "
               "per-arm randomized response, regret vs t with the lower bound",
               functools.partial(exp61_configs, MAIN), _exp61, _main_rows),
    Experiment("corrupt-exp62", "Corrupt bandits Exp. 6.2 (Fig. 2b)", "Corrupt bandits Fig. 2b: kl-UCB-CF / TS-CF regret at T vs "
               "eps (1/8..8) with Cor. 3 and the lower bound",
               functools.partial(exp62_configs, MAIN), _exp62, _main_rows),
    Experiment("corrupt-exp63", "Corrupt bandits Exp. 6.3 (Fig. 2c)", "Corrupt bandits Fig. 2c: local DP (eps=1 randomized "
               "response) vs global DP-UCB-INT / DP-UCB / DP-UCB-BOUND",
               functools.partial(exp63_configs, MAIN), _exp63, _main_rows),
    Experiment("corrupt-appendix", "Corrupt bandits Appendix III", "Corrupt bandits App. III: Exps 6.1-6.3 on scenarios 3 and 4",
               appendix_configs, _appendix, _appendix_rows),
]
