"""AdaP-UCB and AdaP-KLUCB: the experiments of Azize & Basu, "When Privacy Meets Partial Information: A Refined
Analysis of Differentially Private Bandits", NeurIPS 2022 (arXiv 2209.02570), Section 5: the registry entries
adap-regret (their Figure 2) and adap-epsilon (their Figure 3) (``EXPERIMENTS``, at the end).

Figure 2: Bernoulli arms {0.75, 0.625, 0.5, 0.375, 0.25}, ε = 1, α = 3.1, T = 10^7, 20 runs; AdaP-KLUCB, AdaP-UCB,
DP-SE (β = 1/T) and "DP-UCB with γ = 0.1". Which DP-UCB the paper ran, and what its γ sets, the text does not say
and the authors' code is not public: we run Tossou & Dimitrakakis's DP-UCB and DP-UCB-BOUND as the library has them
(`jaxbandit.policies.dp_ucb`; DP-UCB-BOUND's failure probability is t^-4). 32 runs (the batch is padded to 32
lanes anyway), the papers' float Laplace draw (`runner.paper_draw`).

Figure 3: AdaP-KLUCB's regret at T = 10^7 against ε on {0.8, 0.1, 0.1, 0.1, 0.1} (ε from 0.05 to 10, log axis; the
paper's grid is not stated), with the lower bounds: the non-private Σ Δ log T / kl (Lai & Robbins) and the ε-DP one
of Theorem 3, which stops depending on ε above kl(0.1, 0.8)/(6·0.7) = 0.27 (the paper's "about 0.3"). AdaP-UCB is
swept too. Regret is the pseudo-regret Σ_a Δ_a N_a(T) (the paper's Eq. 2).
"""
from __future__ import annotations

import math
import os

import numpy as np

from jaxbandit import plotting, theory

from .runner import Config, Experiment, default_rows, paper_draw

__all__ = ["EXPERIMENTS", "REGRET_MEANS", "SWEEP_MEANS", "SWEEP_EPSILONS", "ALGORITHMS", "regret_configs",
           "epsilon_configs", "summary_rows", "noise_free_regret"]

REGRET_MEANS = (0.75, 0.625, 0.5, 0.375, 0.25)
SWEEP_MEANS = (0.8, 0.1, 0.1, 0.1, 0.1)
SWEEP_EPSILONS = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0)
EPSILON, ALPHA = 1.0, 3.1
ALGORITHMS = (("AdaP-KLUCB", "adap-klucb"), ("AdaP-UCB", "adap-ucb"), ("DP-SE", "dp-se"), ("DP-UCB", "dp-ucb"),
              ("DP-UCB-BOUND", "dp-ucb-bound"))
COLORS = {"AdaP-KLUCB": "tab:red", "AdaP-UCB": "tab:orange", "DP-SE": "tab:blue", "DP-UCB": "tab:green",
          "DP-UCB-BOUND": "tab:olive"}


def settings(quick: bool):
    """(T, runs): the paper's T = 10^7 with 32 runs (its 20, padded to the batch's 32 lanes); quick: 10^5, 16."""
    return (100_000, 16) if quick else (10_000_000, 32)


def _params(name, horizon):
    params = {"epsilon": EPSILON}
    if name.startswith("adap"):
        params["alpha"] = ALPHA
    if name == "dp-se":
        params["beta"] = 1.0 / horizon  # the paper's β = 1/T
    return params


def regret_configs(quick: bool):
    T, runs = settings(quick)
    return [Config(label, dict(env="bernoulli", env_params={"means": list(REGRET_MEANS)}, policy=name,
                               policy_params=_params(name, T), grid=None, horizon=T, runs=runs, seed=0,
                               **paper_draw(name)))
            for label, name in ALGORITHMS]


def epsilon_configs(quick: bool):
    T, runs = settings(quick)
    return [Config(label, dict(env="bernoulli", env_params={"means": list(SWEEP_MEANS)}, policy=name,
                               policy_params={"alpha": ALPHA}, grid={"policy.epsilon": list(SWEEP_EPSILONS)},
                               horizon=T, runs=runs, seed=0, **paper_draw(name)))
            for label, name in ALGORITHMS[:2]]


def _kl_upper(mean, level):
    """max{q ∈ [mean, 1] : kl(mean, q) <= level}, by bisection (float64)."""
    lo, hi = mean, 1.0
    if theory.bernoulli_kl(mean, 1.0) <= level:
        return 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if theory.bernoulli_kl(mean, mid) <= level else (lo, mid)
    return lo


def noise_free_regret(name: str, means, horizon: int, epsilon: float, alpha: float = ALPHA) -> float:
    """The pseudo-regret at T of AdaP-UCB (``"adap-ucb"``, Eq. 7 as printed) or AdaP-KLUCB (``"adap-klucb"``) played
    with every released mean equal to its arm's mean (no Laplace noise, no reward noise), ties to the lower arm:
    the episodes the indices choose when the estimates are exact. Each suboptimal arm then stops at the first power
    of two whose index falls below the best arm's, so the regret is a sum of Δ_a·2^k; where the noise is small
    beside the bonuses every run plays this schedule (zero spread over runs)."""
    mu = np.asarray(means, np.float64)
    K = mu.size
    counts, size = np.ones(K, np.int64), np.ones(K, np.int64)
    t = K
    while t < horizon:
        tl = t + 1
        n = size.astype(np.float64)
        if name == "adap-ucb":
            index = mu + np.sqrt(alpha * math.log(2 * tl) / (2 * n)) + alpha * math.log(tl) / (epsilon * n)
        else:
            level = alpha * math.log(tl) / n
            index = np.asarray([_kl_upper(min(max(m + lv / epsilon, 0.0), 1.0), lv) for m, lv in zip(mu, level)])
        a = int(np.argmax(index))
        length = int(min(counts[a], horizon - t))
        counts[a] += length
        size[a] = length
        t += length
    return float(np.sum((mu.max() - mu) * counts))


def summary_rows(results) -> list[dict]:
    """`default_rows` plus the standard deviation over runs (the paper's band), for AdaP the regret of its noise-free
    schedule (`noise_free_regret`) and, for AdaP-UCB, Theorem 7's upper bound at the point's ε (Theorem 3's lower
    bound, a liminf, is in the figures)."""
    rows = default_rows(results)
    extra = []
    for res in results.values():
        means = res.config["env_params"]["means"]
        for coords, point in res.points():
            params = {**res.config["policy_params"], **{k.split(".", 1)[1]: v for k, v in coords.items()}}
            row = {"final_regret_std": f"{point.final().std(ddof=1):.6g}"}
            if res.config["policy"] in ("adap-ucb", "adap-klucb"):
                row["noise_free_regret"] = f"{noise_free_regret(res.config['policy'], means, res.horizon, params['epsilon'], params['alpha']):.6g}"
            if res.config["policy"] == "adap-ucb":
                row["thm7_upper_bound"] = f"{float(theory.adap_ucb_bound(means, res.horizon, params['epsilon'], ALPHA)):.6g}"
            extra.append(row)
    return [{**r, **e} for r, e in zip(rows, extra)]


def _regret_figure(results, out_dir):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.6, 5.2))
    for label, res in results.items():
        plotting.plot_regret(ax, res, label=label, color=COLORS[label])
    res = next(iter(results.values()))
    T = res.horizon
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(left=10)
    t = np.geomspace(100, T, 20)
    upper = theory.adap_ucb_bound(list(REGRET_MEANS), t, EPSILON, ALPHA)
    ax.set_ylim(1, 2 * float(np.max(upper)))  # room for Theorem 7's line, a finite-T guarantee
    plotting.draw_bound(ax, t, theory.adap_lower_bound(list(REGRET_MEANS), t, EPSILON),
                        "Theorem 3, any ε-DP policy", kind="lower", asymptotic=True, color="black")
    plotting.draw_bound(ax, t, upper, "Theorem 7 (AdaP-UCB)",
                        color=COLORS["AdaP-UCB"], trivial=theory.trivial_bound("regret", t, list(REGRET_MEANS)))
    ax.set_xlabel("t (rounds, log scale)")
    ax.set_ylabel(r"pseudo-regret  $\Sigma_a\, \Delta_a\, N_a(t)$")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(f"Azize & Basu 2022, Fig. 2: Bernoulli {{0.75, 0.625, 0.5, 0.375, 0.25}}, ε = {EPSILON:g}, "
                 f"α = {ALPHA:g}\nT = {T:g}, {res.runs} runs; means, bands ±{plotting.BAND_Z:g} SE", fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "adap_regret.png"))


def _epsilon_figure(results, out_dir):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.2, 5.0))
    for label, res in results.items():
        eps = np.asarray(res.grid["policy.epsilon"], np.float64)
        ax.errorbar(eps, res.mean()[:, -1], yerr=plotting.BAND_Z * res.se()[:, -1], marker="o", ms=4, capsize=2,
                    color=COLORS[label], label=label)
    res = next(iter(results.values()))
    T = res.horizon
    ax.set_xscale("log")
    ax.set_yscale("log")
    grid = np.geomspace(min(SWEEP_EPSILONS), max(SWEEP_EPSILONS), 60)
    means = list(SWEEP_MEANS)
    # the schedule the indices choose with exact estimates: where the runs' spread is zero they all play it
    ax.step(grid, [noise_free_regret("adap-klucb", means, T, e) for e in grid], where="post", color=COLORS[
        "AdaP-KLUCB"], lw=0.8, alpha=0.6, label="AdaP-KLUCB's noise-free schedule")
    at = f"ε = {max(SWEEP_EPSILONS):g}"
    plotting.draw_bound(ax, grid, [float(theory.adap_lower_bound(means, T, e)) for e in grid],
                        "Theorem 3, any ε-DP policy (at T)", kind="lower", asymptotic=True, color="black", at=at)
    best, others = max(means), [m for m in means if m != max(means)]
    free = sum((best - m) * math.log(T) / theory.bernoulli_kl(m, best) for m in others)
    plotting.draw_bound(ax, grid, np.full(grid.shape, free), "Lai & Robbins, no privacy (at T)", kind="lower",
                        asymptotic=True, color="0.5", at=at)
    threshold = theory.bernoulli_kl(0.1, 0.8) / (6 * 0.7)
    ax.axvline(threshold, color="0.6", lw=0.8, ls="-.")
    ax.text(threshold * 1.05, 0.02, f"kl/(6Δ) = {threshold:.2f}", transform=ax.get_xaxis_transform(), fontsize=8,
            color="0.4")
    ax.set_xlabel("ε (log scale)")
    ax.set_ylabel(r"pseudo-regret at T  $\Sigma_a\, \Delta_a\, N_a(T)$")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(f"Azize & Basu 2022, Fig. 3: Bernoulli {{0.8, 0.1, 0.1, 0.1, 0.1}}, α = {ALPHA:g}\n"
                 f"regret at T = {T:g} against ε, {res.runs} runs; means ±{plotting.BAND_Z:g} SE", fontsize=10)
    fig.tight_layout()
    plotting.save(fig, os.path.join(out_dir, "adap_epsilon.png"))


EXPERIMENTS = [
    Experiment("adap-regret", "Azize & Basu, Fig. 2",
               "AdaP-UCB, AdaP-KLUCB, DP-SE, DP-UCB(-BOUND) on 5 Bernoulli arms, eps=1, alpha=3.1, T=1e7",
               regret_configs, _regret_figure, summary_rows),
    Experiment("adap-epsilon", "Azize & Basu, Fig. 3",
               "AdaP-KLUCB and AdaP-UCB regret at T=1e7 against eps in [0.05, 10] on {0.8, 0.1 x4}",
               epsilon_configs, _epsilon_figure, summary_rows),
]
