"""Private linear bandits: Chowdhury & Zhou's linear experiment ("Shuffle Private Linear Contextual Bandits", ICML
2022, "CZ") and Shariff & Sheffet's synthetic one ("Differentially Private Contextual Linear Bandits", NeurIPS 2018,
"S&S"): the registry entries cz-table, cz-epsilon, cz-slopes and ss-gaps (``EXPERIMENTS``, at the end).

S&S's experiment (their code, ``roshanshariff/PrivateBandits.jl``, Experiment 2; the paper's text was not available
to us): d = 5, a new decision set of K = 25 unit arms each round (`envs.linear`'s ``law="gap"``), θ uniform on the
unit sphere per run, ±1 rewards, (ε, δ) = (1, 0.1), LinUCB with ρ = 1 against JDP-LinUCB with Gaussian, shifted
and unshifted Wishart noise. Their T = 5·10⁷ and gaps {0, 0.1} (an earlier version 0.5); here gaps {0.1, 0.5} and
the T two cores reach in about 20 minutes.

CZ's experiment (their code, ``sayakrc/Differentially-Private-Bandits``, ``LinBanditPrivate.py``; the paper's text
was not available to us): K = 100 arms, d = 5, a new instance per run (features (s, 1) with s uniform on S³, the
first d arms basis-plus-bias, θ = (0.5 u, 0.5): `envs.linear`'s ``instance="chowdhury-zhou"``), Bernoulli rewards,
T = 2·10⁴, ε = 0.2, δ = 0.1, B = 20, 50 runs; LinUCB, JDP, SDP-Amp, SDP-Vec and LDP with one server for all
(``width="chowdhury-zhou"``: regularizer 2Γ and a constant width, S = √d, R = 1/2, L = √2). Three blocks:

- ``code``: the noise of their code. Their σ's carry no sensitivity factor; ours do, so each policy runs at the ε'
  that gives their noise (`code_epsilon`): exactly for LDP, SDP-Amp and SDP-Vec (their b truncated, ours an
  integer: ⌈b⌉), and for JDP the S&S tree whose final release has their JDP surrogate's total off-diagonal
  variance (their ⌊ln n⌋ + 1 prefix-summed terms, symmetrized as (N + Nᵀ)/2, against our 1 + ⌈log₂ n⌉ padded
  nodes). Each row's accountant states what that noise gives.
- ``formula``: each paper's noise at the stated ε with the true sensitivity (the library's defaults), same server.
- ``theory``: each paper's own server (S&S's shifted regularizer and β_t; Zheng et al.'s Υ_t and β_t for LDP,
  SDP-Amp and SDP-Vec; OFUL for LinUCB).

Regret is the pseudo-regret Σ_t max_a ⟨θ, x_a⟩ − ⟨θ, x_t⟩ (CZ plot the realized regret; both are in summary.csv).
"""
from __future__ import annotations

import math
import os

import numpy as np

from jaxbandit import plotting, policies
from jaxbandit.mechanisms import gram
from jaxbandit.policies.private_linear import tree_size

from .runner import Config, Experiment, default_rows

__all__ = ["EXPERIMENTS", "CZ_ENV", "CZ_ALGORITHMS", "BLOCKS", "code_epsilon", "cz_params", "cz_configs",
           "cz_summary_rows", "slope", "SLOPE_RANGE", "CLAIMED_RATES", "SS_GAPS", "SS_ALGORITHMS", "ss_env",
           "ss_configs", "ss_summary_rows"]

CZ_ENV = {"num_arms": 100, "dim": 5, "instance": "chowdhury-zhou"}
EPSILON, DELTA, BATCH = 0.2, 0.1, 20.0
FEATURE_BOUND, NOISE_SCALE, THETA_BOUND = math.sqrt(2), 0.5, math.sqrt(5)  # CZ's L, R and S = √d
CZ_ALGORITHMS = (("LinUCB", "linucb"), ("JDP", "linucb-jdp"), ("SDP-Amp", "linucb-sdp-amp"),
                 ("SDP-Vec", "linucb-sdp-vec"), ("LDP", "linucb-ldp"))
BLOCKS = {"code": "their code's noise, their server", "formula": "the papers' noise at the true sensitivity, their server",
          "theory": "the papers' noise and servers"}
#: The rates the abstract states: central (JDP) Õ(√T), local Õ(T^{3/4}), shuffle "potentially" Õ(T^{3/5}).
CLAIMED_RATES = {"JDP": 0.5, "SDP-Amp": 0.6, "SDP-Vec": 0.6, "LDP": 0.75}
SLOPE_RANGE = (0.01, 1.0)  # the fitted part of a run, as fractions of T


def settings(quick: bool):
    """(T, runs) of the table: CZ's T = 2·10⁴ at 10× their 50 runs; quick: T = 2000, 16 runs."""
    return (2_000, 16) if quick else (20_000, 500)


def code_epsilon(name: str, epsilon: float, horizon: int, delta: float = DELTA, batch: float = BATCH,
                 dim: int = 5) -> float:
    """The ε at which our formula's noise equals CZ's code's noise at ε (L = √2, rewards in [0, 1]: B̃ = 1)."""
    sens = gram.report_sensitivity(FEATURE_BOUND, 1.0)
    if name == "linucb-ldp":  # theirs √(ln(2.5/δ))/ε; ours Δ √(2 ln(1.25/δ))/ε
        return epsilon * sens * math.sqrt(2 * math.log(1.25 / delta)) / math.sqrt(math.log(2.5 / delta))
    if name == "linucb-sdp-amp":  # theirs √(ln(2.5B/δ))/(ε√B); ours Δ times that
        return epsilon * sens
    if name == "linucb-sdp-vec":  # decoded s.d. (L_c/g)√(B b p(1−p)): their L_c = L = √2, ours max(L², L) = 2
        return epsilon * float(gram.coordinate_bound(FEATURE_BOUND, 1.0)) / FEATURE_BOUND
    if name == "linucb-jdp":  # their (N + Nᵀ)/2 terms: off-diagonal variance σ_c²/2 each, ⌊ln n⌋ + 1 of them
        sigma_c = math.sqrt(math.log(horizon)) * math.log(2.5 / delta) / epsilon
        m = int(tree_size(horizon))
        sigma = sigma_c * math.sqrt((math.floor(math.log(horizon)) + 1) / 2 / m)  # ours: σ² per node, m nodes
        lt2 = FEATURE_BOUND ** 2 + 1.0
        return 4 * math.sqrt(m) * lt2 * math.log(4 / delta) / sigma
    raise ValueError(f"no code noise for {name!r}")


def cz_params(name: str, block: str, epsilon: float, horizon: int) -> tuple[dict, dict]:
    """(policy_params, policy_options) of one algorithm in one block."""
    if name == "linucb":
        if block == "theory":
            return {"noise_scale": NOISE_SCALE}, {}
        beta = math.sqrt(5) + NOISE_SCALE * math.sqrt(5 * math.log((1 + horizon * 2) * horizon))  # their Γ = 1
        return {"ridge": 1e-4, "beta": beta}, {"width": "constant"}
    eps = code_epsilon(name, epsilon, horizon) if block == "code" else epsilon
    params = {"epsilon": eps, "delta": DELTA, "feature_bound": FEATURE_BOUND}
    if name in ("linucb-sdp-amp", "linucb-sdp-vec"):
        params["batch"] = BATCH
    if block == "theory":
        return params, ({"noise": "gaussian"} if name == "linucb-jdp" else {})
    params.update(noise_scale=NOISE_SCALE, theta_bound=THETA_BOUND)
    return params, {"width": "chowdhury-zhou"}


def cz_configs(quick: bool, blocks=tuple(BLOCKS), epsilons=None, horizon=None, runs=None, label_eps=False):
    T, n = settings(quick)
    T, n = horizon or T, runs or n
    out = []
    for block in blocks:
        for label, name in CZ_ALGORITHMS:
            if name == "linucb" and block == "formula":
                continue  # the same LinUCB as the code block's
            for eps in (epsilons or (EPSILON,)):
                if name == "linucb" and epsilons and eps != epsilons[0]:
                    continue  # not private: one run serves every ε
                params, options = cz_params(name, block, eps, T)
                tag = f"{block}: {label}" + (f" eps={eps:g}" if label_eps and name != "linucb" else "")
                out.append(Config(tag, dict(env="linear", env_params=CZ_ENV, policy=name, policy_params=params,
                                            policy_options=options, grid=None, horizon=T, runs=n, seed=0)))
    return out


def _claim(res):
    """(the row's claim in words, its ε at δ = 0.1) from its policy's accountant."""
    cfg = res.config
    pol, params = policies.make(cfg["policy"], CZ_ENV["num_arms"], cfg.get("policy_options") or {}, dim=5,
                                **cfg["policy_params"])
    if pol.accountant is None:
        return "not private", ""
    g = pol.accountant.guarantee(params, res.horizon, CZ_ENV["num_arms"], cfg["policy"])
    return g.describe(), f"{g.profile.epsilon_at(DELTA):.4g}"


def slope(res, lo=SLOPE_RANGE[0], hi=SLOPE_RANGE[1]) -> float:
    """The least-squares slope of log mean regret against log t over [lo T, hi T]."""
    t, mean = np.asarray(res.t, np.float64), np.asarray(res.mean(), np.float64)
    keep = (t >= lo * res.horizon) & (t <= hi * res.horizon) & (mean > 0)
    return float(np.polyfit(np.log(t[keep]), np.log(mean[keep]), 1)[0])


def cz_summary_rows(results) -> list[dict]:
    rows = default_rows(results)
    for row, res in zip(rows, results.values()):
        row["claim"], row["epsilon_at_delta_0.1"] = _claim(res)
        row["loglog_slope"] = f"{slope(res):.4f}"
    return rows


def _label_of(tag):
    return tag.split(": ", 1)[1]


COLORS = {"LinUCB": "k", "JDP": "tab:blue", "SDP-Amp": "tab:green", "SDP-Vec": "tab:olive", "LDP": "tab:red"}


def _setting(res, eps=EPSILON):
    return (f"K = 100, d = 5, random instance per run, ε = {eps:g}, δ = {DELTA:g}, B = {BATCH:g}, "
            f"T = {res.horizon:g}, {res.runs} runs")


def _table_figure(results, out_dir):
    import matplotlib.pyplot as plt
    blocks = [b for b in BLOCKS if any(k.startswith(b + ":") for k in results)]
    fig, axes = plt.subplots(1, len(blocks), figsize=(5.2 * len(blocks), 4.2), squeeze=False)
    linucb = next(r for k, r in results.items() if k.endswith(": LinUCB") and not k.startswith("theory"))
    for ax, block in zip(axes[0], blocks):
        for tag, res in results.items():
            if tag.startswith(block + ":") or (block == "formula" and tag.startswith("code: LinUCB")):
                name = _label_of(tag)
                plotting.plot_regret(ax, res, label=name, color=COLORS[name])
        ax.set_title(BLOCKS[block], fontsize=9)
        ax.set_xlabel("t (rounds)")
        ax.set_ylabel(r"pseudo-regret  $\Sigma_t\, \max_a \langle\theta, x_a\rangle - \langle\theta, x_t\rangle$")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(f"Chowdhury & Zhou's linear experiment: {_setting(linucb)}\nmeans, bands ±{plotting.BAND_Z:g} SE",
                 fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "cz_table.png"))


def _epsilon_figure(results, out_dir):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    curves = {}
    for tag, res in results.items():
        name = _label_of(tag).split(" eps=")[0]
        if name == "LinUCB":
            ax.axhline(float(res.mean()[-1]), color="k", lw=1, ls="--", label="LinUCB (not private)")
            continue
        eps = float(tag.split(" eps=")[1])
        curves.setdefault(name, []).append((eps, float(res.mean()[-1]), float(res.se()[-1])))
    for name, pts in curves.items():
        pts.sort()
        e, m, s = map(np.asarray, zip(*pts))
        ax.errorbar(e, m, yerr=plotting.BAND_Z * s, marker="o", color=COLORS[name], label=name, capsize=3)
    ax.set_xscale("log")
    ax.set_xlabel("ε (the paper's; each run at its code's noise)")
    ax.set_ylabel(f"pseudo-regret at T")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    res = next(iter(results.values()))
    ax.set_title(f"Chowdhury & Zhou: final regret against ε\nK = 100, d = 5, δ = {DELTA:g}, B = {BATCH:g}, "
                 f"T = {res.horizon:g}, {res.runs} runs; bars ±{plotting.BAND_Z:g} SE", fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "cz_epsilon.png"))


def _slopes_figure(results, out_dir):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    for tag, res in results.items():
        name = _label_of(tag)
        claimed = CLAIMED_RATES.get(name)
        extra = f", claimed {claimed:g}" if claimed else ""
        plotting.plot_regret(ax, res, label=f"{name}: slope {slope(res):.2f}{extra}", color=COLORS[name])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t (rounds)")
    ax.set_ylabel("pseudo-regret")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    res = next(iter(results.values()))
    ax.set_title(f"Chowdhury & Zhou's setting to T = {res.horizon:g}: log-log slopes on "
                 f"[{SLOPE_RANGE[0]:g} T, T]\n(their code's noise and server; ε = {EPSILON:g}, B = {BATCH:g} fixed; "
                 f"{res.runs} runs; the rates are the abstract's Õ, not bounds)", fontsize=9)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "cz_slopes.png"))


CZ_EPSILONS = (0.2, 1.0, 10.0)


def _epsilon_configs(quick):
    T, _ = settings(quick)
    return cz_configs(quick, blocks=("code",), epsilons=CZ_EPSILONS, runs=16 if quick else 200, label_eps=True)


def _slope_configs(quick):
    return cz_configs(quick, blocks=("code",), horizon=20_000 if quick else 1_000_000, runs=8 if quick else 20)


# ------------------------------------------------------------------------------- Shariff & Sheffet's experiment
SS_GAPS = (0.1, 0.5)
SS_ALGORITHMS = (("LinUCB (ρ = 1)", "linucb", {}), ("Gaussian", "linucb-jdp", {"noise": "gaussian"}),
                 ("Wishart (shifted)", "linucb-jdp", {"noise": "wishart"}),
                 ("Wishart (unshifted)", "linucb-jdp", {"noise": "wishart-unshifted"}))
SS_COLORS = {"LinUCB (ρ = 1)": "k", "Gaussian": "tab:blue", "Wishart (shifted)": "tab:orange",
             "Wishart (unshifted)": "tab:red"}
SS_EPSILON, SS_DELTA = 1.0, 0.1


def ss_settings(quick: bool):
    """(T, runs): the T two cores reach in about 20 minutes for the whole comparison (benchmarks/RESULTS.md), at the
    35 runs of the authors' Experiment 2; quick: T = 2·10⁴, 8 runs."""
    return (20_000, 8) if quick else (SS_HORIZON, 35)


SS_HORIZON = 400_000


def ss_env(gap: float) -> dict:
    """S&S's environment (their code's Experiments 2–3): d = 5, K = d² = 25 unit arms per round, one at mean 3/4,
    the others' means in [−3/4, 3/4 − Δ], θ uniform on the unit sphere per run, ±1 rewards."""
    return {"num_arms": 25, "dim": 5, "law": "gap", "rewards": "signed", "instance": "unit-theta", "gap": gap}


def ss_configs(quick: bool):
    T, n = ss_settings(quick)
    out = []
    for gap in SS_GAPS:
        for label, name, options in SS_ALGORITHMS:
            if name == "linucb":  # S&S's non-private baseline: ρ = 1, their R = 1 for ±1 rewards, S = 1
                params = {"ridge": 1.0, "noise_scale": 1.0, "theta_bound": 1.0}
            else:
                params = {"epsilon": SS_EPSILON, "delta": SS_DELTA, "feature_bound": 1.0, "reward_bound": 1.0,
                          "noise_scale": 1.0, "theta_bound": 1.0}
            out.append(Config(f"gap {gap:g}: {label}", dict(env="linear", env_params=ss_env(gap), policy=name,
                                                             policy_params=params, policy_options=options, grid=None,
                                                             horizon=T, runs=n, seed=0)))
    return out


def ss_summary_rows(results) -> list[dict]:
    from jaxbandit.policies.private_linear import host_constants
    rows = default_rows(results)
    for row, res in zip(rows, results.values()):
        cfg = res.config
        pol, params = policies.make(cfg["policy"], 25, cfg.get("policy_options") or {}, dim=5, **cfg["policy_params"])
        if pol.accountant is None:
            row["claim"] = "not private"
            continue
        g = pol.accountant.guarantee(params, res.horizon, 25, cfg["policy"])
        row["claim"], row["epsilon_at_delta_0.1"] = g.describe(), f"{g.profile.epsilon_at(SS_DELTA):.4g}"
        c = host_constants(pol.bind_horizon(params, res.horizon), 5, cfg["policy_options"]["noise"])
        row["rho_min"], row["rho_max"], row["gamma"] = (f"{c[k]:.6g}" for k in ("rho_min", "rho_max", "gamma"))
    return rows


def _ss_figure(results, out_dir):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(SS_GAPS), figsize=(5.6 * len(SS_GAPS), 4.3), squeeze=False)
    for ax, gap in zip(axes[0], SS_GAPS):
        for tag, res in results.items():
            if tag.startswith(f"gap {gap:g}:"):
                name = _label_of(tag)
                plotting.plot_regret(ax, res, label=name, color=SS_COLORS[name])
        ax.set_title(f"gap Δ = {gap:g}", fontsize=10)
        ax.set_xlabel("t (rounds)")
        ax.set_ylabel("pseudo-regret")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
    res = next(iter(results.values()))
    fig.suptitle(f"Shariff & Sheffet's synthetic experiment: d = 5, K = 25 unit arms per round, ±1 rewards, "
                 f"(ε, δ) = ({SS_EPSILON:g}, {SS_DELTA:g}) joint DP\nT = {res.horizon:g}, {res.runs} runs; means, "
                 f"bands ±{plotting.BAND_Z:g} SE", fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "ss_gaps.png"))


EXPERIMENTS = [
    Experiment("cz-table", "Chowdhury & Zhou, linear experiment",
               "Shuffle private linear bandits: LinUCB, JDP, SDP-Amp, SDP-Vec, LDP at K=100, d=5, eps=0.2, T=2e4",
               lambda quick: cz_configs(quick), _table_figure, cz_summary_rows),
    Experiment("cz-epsilon", "Chowdhury & Zhou, regret against epsilon",
               "Shuffle private linear bandits at eps in {0.2, 1, 10} (their code's noise and server)",
               _epsilon_configs, _epsilon_figure, cz_summary_rows),
    Experiment("cz-slopes", "Chowdhury & Zhou, rates in T",
               "Shuffle private linear bandits to T=1e6: log-log slopes against the claimed rates",
               _slope_configs, _slopes_figure, cz_summary_rows),
    Experiment("ss-gaps", "Shariff & Sheffet, Gaussian against Wishart",
               "Joint-DP LinUCB at d=5, K=25, gaps 0.1 and 0.5, (eps, delta) = (1, 0.1): Gaussian vs Wishart noise",
               ss_configs, _ss_figure, ss_summary_rows),
]
