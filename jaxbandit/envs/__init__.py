"""Reward models: a registry from names to factories ``(**params) -> (Env, params)``; K is the length of the
per-arm lists.

Families (one value per arm, scalars broadcast): ``bernoulli(means)``, ``gaussian(means, stds=1, low=-inf,
high=inf)``, ``truncexp(rates)``, ``beta(alpha, beta)``, ``uniform(low, high)``,
``two-point(low, high, p_high)``; and ``mixture(arms=[(family, {field: value}), ...])`` for a bandit whose
arms come from different families; ``linear(features, theta, ...)``, the linear (contextual) bandit of
`jaxbandit.envs.linear`, whose context each round is the arms' features. Named instances of the papers
(``INSTANCES``, e.g. ``testbed20``) take no parameters.
"""
from __future__ import annotations

import numpy as np

from jaxbandit.envs.distributions import (FAMILIES, MixtureParams, family_env, family_params, mixture_env,
                                          open_uniform, pick)
from jaxbandit.envs.linear import LinearParams, linear
from jaxbandit.registry import Registry

__all__ = ["REGISTRY", "FAMILIES", "INSTANCES", "TESTBED20", "MixtureParams", "LinearParams", "family_env",
           "mixture_env", "family_params", "make", "mixture", "linear", "names", "open_uniform", "pick"]

# The 20-arm testbed of seed 000 Sec. 5 (copied there from Ren et al. 2020), best arm first: means 0.9 / 0.8 /
# 0.7 / 0.6 / 0.5 by arm type; E[R²] 0.9 / 2/3 / 0.58 / 0.6 / 1/3.
TESTBED20 = ([("bernoulli", {"means": 0.9})] + [("beta", {"alpha": 4.0, "beta": 1.0})] * 5
             + [("two-point", {"low": 0.4, "high": 1.0, "p_high": 0.5})] * 5
             + [("bernoulli", {"means": 0.6})] * 5 + [("uniform", {"low": 0.0, "high": 1.0})] * 4)

#: The papers' named instances (``testbed20`` and others): a registered name for a fixed list of arms.
INSTANCES = {
    "testbed20": (TESTBED20, "LDP Thompson sampling, Sec. 5: Bernoulli(0.9), 5 Beta(4,1), 5 uniform on {0.4, 1}, "
                             "5 Bernoulli(0.6), 4 Uniform[0,1]"),
}


def _family_factory(name: str):
    def factory(**params):
        p = family_params(name, **params)
        env = family_env(name, int(np.shape(p[0])[0]))
        env.validate(p)
        return env, p
    factory.__name__ = name.replace("-", "_")
    factory.__doc__ = (f"{FAMILIES[name].description}.\n\nRegistry factory ``(**params) -> (env, params)``; fields "
                       f"{', '.join(FAMILIES[name].fields)}, per-arm lists or scalars.")
    return factory


def mixture(arms=None, **params):
    """Per-arm mixture of the families above: arms=[(family, {field: value}), ...].

    Registry factory ``(arms=...) -> (env, params)``: arm a has the reward family ``arms[a][0]`` with scalar
    fields ``arms[a][1]`` (a dict ``{"family": ..., field: value}`` is accepted too)."""
    if params:
        raise ValueError(f"mixture takes only 'arms', got {sorted(params)}")
    if not arms:
        raise ValueError("mixture needs arms=[(family, {field: value}), ...] with at least one arm")
    arms = [(a[0], dict(a[1])) if not isinstance(a, dict) else (a["family"], {k: v for k, v in a.items()
                                                                                 if k != "family"})
            for a in arms]
    env = mixture_env(tuple(f for f, _ in arms))
    comps = []
    for fam in dict.fromkeys(f for f, _ in arms):
        members = [fields for f, fields in arms if f == fam]
        keys = set().union(*members)
        stacked = {k: [_scalar(fam, k, m.get(k, FAMILIES[fam].defaults.get(k))) for m in members] for k in keys}
        comps.append(family_params(fam, **stacked))
    p = MixtureParams(tuple(comps))
    env.validate(p)
    return env, p


def _instance_factory(name: str):
    arms, description = INSTANCES[name]

    def factory(**params):
        if params:
            raise ValueError(f"environment {name!r} is a fixed instance and takes no parameters, got "
                             f"{sorted(params)}")
        env, p = mixture(arms=arms)
        return env._replace(name=name), p
    factory.__name__ = name
    factory.__doc__ = f"{description}.\n\nA fixed instance: no parameters."
    return factory


#: The environments by name (`jaxbandit list`): the reward families, ``mixture`` and the papers' instances.
REGISTRY = Registry("environment", {**{name: _family_factory(name) for name in FAMILIES}, "mixture": mixture,
                                    "linear": linear, **{name: _instance_factory(name) for name in INSTANCES}})


def names():
    """The registered environments' names."""
    return REGISTRY.names()


def make(name: str, **params):
    """Build a registered environment and its validated params.

    Example: ``env, p = make("bernoulli", means=[0.1, 0.5, 0.9])``.
    """
    return REGISTRY[name](**params)


def _scalar(family, field, value):
    if value is None:
        raise ValueError(f"{family} arm needs parameter {field!r}")
    if np.ndim(value) != 0:
        raise ValueError(f"mixture arm parameter {family}.{field}={value!r} must be a scalar")
    return value
