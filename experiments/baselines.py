"""Baseline policies on the 9-arm Bernoulli bandit with means 0.1, 0.2, ..., 0.9.

Exercises every baseline of the engine on one instance: Thompson sampling (Beta–Bernoulli and Gaussian),
UCB1, kl-UCB, ε-greedy (ε = 0.1) and uniform play. Expected ordering (well known): kl-UCB and Beta TS lowest,
uniform linear with slope Σ Δ_a / K = 0.4.
"""
from __future__ import annotations

import os

from jaxbandit import plotting

from .runner import Config, Experiment, paper_draw

__all__ = ["EXPERIMENTS", "TITLE", "MEANS", "POLICIES", "configs", "figures"]

TITLE = "Baselines on 9 Bernoulli arms, means 0.1..0.9"
MEANS = [round(0.1 * i, 1) for i in range(1, 10)]
POLICIES = [("thompson", {}), ("klucb", {}), ("gaussian-thompson", {}), ("ucb1", {}),
            ("epsilon-greedy", {"epsilon": 0.1}), ("uniform", {})]


def configs(quick: bool):
    horizon, runs = (2_000, 50) if quick else (10_000, 500)
    return [Config(label=name + "".join(f" {k}={v}" for k, v in params.items()),
                   kwargs=dict(env="bernoulli", env_params={"means": MEANS}, policy=name, policy_params=params,
                               horizon=horizon, runs=runs, seed=0, **paper_draw(name)))
            for name, params in POLICIES]


def figures(results, out_dir):
    curves = [(label, res) for label, res in results.items()]
    horizon = curves[0][1].horizon
    fig = plotting.regret_figure(curves, f"{TITLE}, T = {horizon}")
    plotting.save(fig, os.path.join(out_dir, "regret.png"))
    no_uniform = [(label, res) for label, res in curves if not label.startswith("uniform")]
    fig = plotting.regret_figure(no_uniform, f"{TITLE}, T = {horizon} (without uniform play)")
    plotting.save(fig, os.path.join(out_dir, "regret_zoom.png"))


EXPERIMENTS = [Experiment("baselines-bernoulli9", TITLE, "six baseline policies on 9 Bernoulli arms, means 0.1..0.9",
                          configs, figures)]
