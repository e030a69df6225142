"""Reproducible experiments: ``jaxbandit reproduce ID`` runs ``experiments/<module>.py``.

Each experiment module defines ``TITLE``, ``configs(quick) -> [Config]`` and ``figures(results, out_dir)``.
The runner saves each configuration's results as it finishes and checkpoints the one in progress, so an
interrupted reproduction resumes where it stopped.
"""
from __future__ import annotations

import importlib

REGISTRY = {
    "baselines-bernoulli9": ("experiments.baselines", "six baseline policies on 9 Bernoulli arms, means 0.1..0.9"),
}


def names():
    return sorted(REGISTRY)


def load(name: str):
    from jaxbandit import checks
    checks.known_name("experiment", name, REGISTRY)
    return importlib.import_module(REGISTRY[name][0])
