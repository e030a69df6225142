"""Local channels between the user and the learner (stateless, PRNG-keyed): a registry from names to
factories ``(**params) -> (Privatizer, params)``, one file per family of mechanisms.

  bernoulli.py            seed 000's Bernoulli mechanisms `linear`, `quadratic`, `exponential` (ε-LDP, one bit)
  randomized_response.py  seed 002's per-arm corruption channel `randomized-response` (p00, p11)

A privatizer parameter with one dimension is per-arm: it has one entry per arm and `apply` reads the pulled arm's.
"""
from __future__ import annotations

from jaxbandit import checks
from jaxbandit.privatizers import bernoulli, randomized_response
from jaxbandit.types import EmptyParams, Privatizer, no_draw, no_validate

IDENTITY = Privatizer(name="identity", draw=no_draw, apply=lambda rng, arm, reward, params: reward,
                      validate=no_validate, default_params=EmptyParams())


def _identity(**params):
    if params:
        raise ValueError(f"privatizer 'identity' takes no parameters, got {sorted(params)}")
    return IDENTITY, EmptyParams()


REGISTRY = {
    "identity": (_identity, "no privacy: the learner sees the reward itself"),
    "linear": (bernoulli.factory(bernoulli.LINEAR),
               "ε-LDP bit, p(r) = ((e^ε−1)r + 1)/(e^ε+1) (seed 000 Cor. 1; CTB of Ren et al. 2020); ε=inf: p(r)=r"),
    "quadratic": (bernoulli.factory(bernoulli.QUADRATIC),
                  "ε-LDP bit, p(r) = ((e^ε−1−b)r² + br + 1)/(e^ε+1), b in [0, 2(e^ε−1)] (seed 000 Cor. 1)"),
    "exponential": (bernoulli.factory(bernoulli.EXPONENTIAL), "ε-LDP bit, p(r) = e^(εr)/(e^ε+1) (seed 000 Cor. 1)"),
    "randomized-response": (randomized_response.factory,
                            "corruption channel Pr(F=0|R=0)=p00, Pr(F=1|R=1)=p11, per arm or shared (seed 002 Eq. 2); "
                            "p00=p11=e^ε/(1+e^ε) is ε-LDP"),
}


def names():
    return sorted(REGISTRY)


def make(name: str, **params):
    """``(privatizer, params)`` for a registered channel."""
    checks.known_name("privatizer", name, REGISTRY)
    priv, p = REGISTRY[name][0](**params)
    priv.validate(p)
    return priv, p
