"""Reproducible experiments: ``jaxbandit reproduce ID`` runs ``experiments/<module>.py``.

Each experiment module defines ``TITLE``, ``configs(quick) -> [Config]`` and ``figures(results, out_dir)``, and
optionally ``summary_rows(results) -> [dict]`` to replace the per-configuration rows of summary.csv.
The runner saves each configuration's results as it finishes and checkpoints the one in progress, so an
interrupted reproduction resumes where it stopped.
"""
from __future__ import annotations

import importlib

REGISTRY = {
    "baselines-bernoulli9": ("experiments.baselines", "six baseline policies on 9 Bernoulli arms, means 0.1..0.9"),
    "gdp-ts-fig1": ("experiments.gdp_ts_fig1", "seed 001 Fig. 1: (epsilon, delta) of modified TS vs b and c, T=1000"),
    "gdp-ts-fig2": ("experiments.gdp_ts_fig2", "seed 001 Fig. 2: modified TS regret curves, Bernoulli, eta 1/2/5"),
    "gdp-ts-fig3": ("experiments.gdp_ts_fig3", "seed 001 Fig. 3: final regret vs eta per b, Bernoulli"),
    "gdp-ts-fig4": ("experiments.gdp_ts_fig4", "seed 001 Fig. 4: modified TS regret curves, truncated exponential"),
    "gdp-ts-fig5": ("experiments.gdp_ts_fig5", "seed 001 Fig. 5: final regret vs eta per b, truncated exponential"),
    "gdp-ts-fig6": ("experiments.gdp_ts_fig6", "seed 001 Figs 6-7: GDP vs RDP vs standard-DP curves of TS, N=2/10"),
    "gdp-ts-fig7": ("experiments.gdp_ts_fig7", "seed 001 Fig. 7: GDP vs RDP zoom for standard TS, T=1000"),
    "gdp-ts-fig8": ("experiments.gdp_ts_fig8", "seed 001 Fig. 8: modified TS vs DP-SE and Anytime-Lazy-UCB at eps=4.9/35.6/96.7"),
    "ldp-ts-fig2": ("experiments.ldp_ts_fig2", "seed 000 Fig. 2: TS / UCB on LDP bits, linear / quadratic / exponential, "
                    "eps 0.5..inf, testbed20"),
    "ldp-ts-rankflip": ("experiments.ldp_ts_rankflip", "seed 000: non-linear mechanisms that make another arm "
                        "privatized-best (linear regret)"),
    "corrupt-exp61": ("experiments.corrupt_exp61", "seed 002 Fig. 2a: CF vs wrapper vs naive under per-arm randomized "
                      "response, regret vs t with the lower bound"),
    "corrupt-exp62": ("experiments.corrupt_exp62", "seed 002 Fig. 2b: kl-UCB-CF / TS-CF regret at T vs eps (1/8..8) with "
                      "Cor. 3 and the lower bound"),
    "corrupt-exp63": ("experiments.corrupt_exp63", "seed 002 Fig. 2c: local DP (eps=1 randomized response) vs global "
                      "DP-UCB-INT / DP-UCB / DP-UCB-BOUND"),
    "corrupt-appendix": ("experiments.corrupt_appendix", "seed 002 App. III: Exps 6.1-6.3 on scenarios 3 and 4"),
}


def names():
    return sorted(REGISTRY)


def load(name: str):
    from jaxbandit import checks
    checks.known_name("experiment", name, REGISTRY)
    return importlib.import_module(REGISTRY[name][0])
