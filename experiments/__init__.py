"""Reproducible experiments, installed as ``jaxbandit.experiments`` (the repository's experiments/ folder).

``jaxbandit reproduce ID`` runs the registry entry ``ID``: an `Experiment` (runner.py) with its configurations
and figure function, defined in its paper's module: baselines.py, ldp_ts.py (LDP Thompson sampling), gdp_ts.py (TS is itself DP),
corrupt.py (Corrupt bandits), dp_ftpl.py (DP-FTPL), heavy_tailed.py (Heavy-tailed DP bandits), private_linear.py
(Chowdhury & Zhou's and Shariff & Sheffet's private linear bandits), adap.py (Azize & Basu's AdaP-UCB); each module lists its entries in ``EXPERIMENTS``. Simulations go through a cache of results
keyed by the content of each configuration (runner.py), shared by the figures written to one output root.
"""
from __future__ import annotations

from . import adap, baselines, corrupt, dp_ftpl, gdp_ts, heavy_tailed, ldp_ts, private_linear
from .runner import Config, Experiment

__all__ = ["REGISTRY", "names", "load", "Config", "Experiment"]

REGISTRY: dict[str, Experiment] = {e.id: e for module in (baselines, ldp_ts, gdp_ts, corrupt, dp_ftpl, heavy_tailed,
                                                                 private_linear, adap)
                                   for e in module.EXPERIMENTS}


def names() -> list[str]:
    return sorted(REGISTRY)


def load(name: str) -> Experiment:
    """The registry entry ``name`` (a clear error listing the valid ids otherwise)."""
    from jaxbandit import checks
    checks.known_name("experiment", name, REGISTRY)
    return REGISTRY[name]
