"""Local channels between the user and the learner (stateless, PRNG-keyed): a registry from names to factories
``(**params) -> (Privatizer, params)``, one file per family of mechanisms.

  bernoulli.py            seed 000's Bernoulli mechanisms `linear`, `quadratic`, `exponential` (ε-LDP, one bit)
  randomized_response.py  seed 002's per-arm corruption channel `randomized-response` (p00, p11)

Their arithmetic is `jaxbandit.mechanisms`; each carries its accountant (ε-LDP of each report).

A privatizer parameter with one dimension is per-arm: it has one entry per arm and `apply` reads the pulled arm's.
"""
from __future__ import annotations

from jaxbandit.privatizers import bernoulli, randomized_response
from jaxbandit.registry import PRIVATIZERS, Golden
from jaxbandit.types import IDENTITY, EmptyParams

__all__ = ["IDENTITY", "REGISTRY", "identity", "names", "private_names", "make", "bernoulli", "randomized_response"]


def identity(**params):
    """No privacy: the learner sees the reward itself."""
    if params:
        raise ValueError(f"privatizer 'identity' takes no parameters, got {sorted(params)}")
    return IDENTITY, EmptyParams()


#: The privatizers (local channels) by name (`jaxbandit list`), each registered with its privacy claim, audits and
#: golden case by its family module (`jaxbandit.registry.PRIVATIZERS`).
REGISTRY = PRIVATIZERS
REGISTRY.register("identity", identity, golden=Golden())


def names():
    """The registered privatizers' names."""
    return REGISTRY.names()


def private_names():
    """The privatizers that state a privacy claim (registered ``private``: they carry an accountant)."""
    return REGISTRY.private_names()


def make(name: str, **params):
    """``(privatizer, params)`` for a registered channel."""
    priv, p = REGISTRY[name](**params)
    priv.validate(p)
    return priv, p
