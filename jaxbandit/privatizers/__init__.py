"""Local channels between the user and the learner (stateless, PRNG-keyed).

Only the identity channel lives here so far; the local-DP mechanisms of the seed papers register themselves
in ``REGISTRY`` with a factory ``(**params) -> (Privatizer, params)``.
"""
from __future__ import annotations

from jaxbandit import checks
from jaxbandit.types import EmptyParams, Privatizer, no_draw, no_validate

IDENTITY = Privatizer(name="identity", draw=no_draw, apply=lambda rng, reward, params: reward,
                      validate=no_validate, default_params=EmptyParams())


def _identity(**params):
    if params:
        raise ValueError(f"privatizer 'identity' takes no parameters, got {sorted(params)}")
    return IDENTITY, EmptyParams()


REGISTRY = {"identity": (_identity, "no privacy: the learner sees the reward itself")}


def names():
    return sorted(REGISTRY)


def make(name: str, **params):
    """``(privatizer, params)`` for a registered channel."""
    checks.known_name("privatizer", name, REGISTRY)
    priv, p = REGISTRY[name][0](**params)
    priv.validate(p)
    return priv, p
