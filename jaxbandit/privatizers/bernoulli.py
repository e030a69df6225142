"""Bernoulli mechanisms of local DP (seed 000: Jiang, Zhao & Li, "Thompson Sampling under Bernoulli Rewards
with Local Differential Privacy", arXiv 2307.00863, Sec. 3): privatizers `linear`, `quadratic`, `exponential`, each a
reward r in [0, 1] sent as one bit Y ~ Bernoulli(p(r)), ε-LDP as realized in floating point. Their arithmetic (p(r),
the thresholds snapped onto the uniform's grid, the exact realized level, the privatized means) is
`jaxbandit.mechanisms.bernoulli`.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import numpy as np

from jaxbandit import checks
from jaxbandit.accounting.accountants import epsilon_of, pure_dp
from jaxbandit.mechanisms.bernoulli import MECHANISMS, b_range, threshold
from jaxbandit.registry import PRIVATIZERS, Golden
from jaxbandit.types import Privatizer


class EpsilonParams(NamedTuple):
    """The LDP level ε of the linear and exponential mechanisms (∞: no privacy)."""
    epsilon: jax.Array  # float: ε in (0, ∞]; ∞ means no privacy (p(r) = r)


class QuadraticParams(NamedTuple):
    """The quadratic mechanism's LDP level ε and its b ∈ [0, 2(e^ε − 1)]."""
    epsilon: jax.Array  # float: ε in (0, ∞]
    b: jax.Array        # float: linear coefficient, in [0, 2(e^ε − 1)]; b = e^ε − 1 is the linear mechanism


def _validate_epsilon(epsilon):
    checks.in_range("epsilon", epsilon, 0.0, math.inf, low_open=True)  # ∞ allowed: no privacy


def _validate_quadratic(params):
    _validate_epsilon(params.epsilon)
    dtype = np.asarray(params.b).dtype
    # b = 2(e^ε − 1) rounded to the parameters' dtype must pass: a few ulp of slack (the clipped threshold of
    # `apply` keeps the channel ε-LDP whatever b is).
    slack = 4 * float(np.finfo(dtype if dtype.kind == "f" else np.float64).eps)
    eps, b = np.broadcast_arrays(np.asarray(params.epsilon, np.float64), np.asarray(params.b, np.float64))
    for e, bb in zip(eps.ravel(), b.ravel()):
        low, high = b_range(e)
        if not np.isfinite(bb):
            raise ValueError(f"quadratic mechanism parameter b={bb:g} must be finite in the parameters' dtype "
                             f"(float32 holds up to 3.4e38); valid range [0, 2(e^ε - 1)] = [{low:g}, {high:g}] "
                             f"for epsilon={e:g}")
        if not low <= bb <= high * (1 + slack):
            raise ValueError(f"quadratic mechanism parameter b={bb:g} is outside the valid range "
                             f"[0, 2(e^ε - 1)] = [{low:g}, {high:g}] for epsilon={e:g}; outside it p(r) is not "
                             f"monotone and the mechanism is not epsilon-LDP")


_PROTECTS = "one user's reward in [0, 1] changed; the output is that user's bit (seed 000, Eq. 1)"


def _draw(key, steps, params):
    del params
    return jax.random.uniform(key, (steps,))


def _mechanism(name: str) -> Privatizer:
    validate = _validate_quadratic if name == "quadratic" else lambda params: _validate_epsilon(params.epsilon)
    # Python floats (weakly typed, like jnp.asarray(1.0)): no device array at import, so that importing jaxbandit
    # leaves JAX unconfigured (e.g. the number of CPU devices can still be set).
    default = QuadraticParams(1.0, 0.0) if name == "quadratic" else EpsilonParams(1.0)

    def apply(rng, arm, reward, params):
        # Y = 1{u < t(r)}, t(r) = p(r) snapped inside [g, 1 − g]: exactly ε-LDP in floating point (module doc).
        return (rng.drawn < threshold(name, reward, params)).astype(reward.dtype)

    accountant = pure_dp(epsilon_of, notion="ldp", scope="report", protects=_PROTECTS,
                         source=f"Jiang, Zhao & Li 2023 (seed 000), Corollary 1: the {name} mechanism is ε-LDP (as "
                                "realized in floating point: `jaxbandit.mechanisms.bernoulli.realized_probability`)")
    return Privatizer(name=name, draw=_draw, apply=apply, validate=validate, default_params=default,
                      reward_range=(0.0, 1.0), output_range=(0.0, 1.0), accountant=accountant)


#: Seed 000's linear, quadratic and exponential mechanisms as `Privatizer` objects.
LINEAR, QUADRATIC, EXPONENTIAL = (_mechanism(n) for n in MECHANISMS)


def linear(**params):
    """ε-LDP bit, p(r) = ((e^ε−1)r + 1)/(e^ε+1) (LDP Thompson sampling, Cor. 1; CTB of Ren et al. 2020); ε=inf: p(r)=r.

    Registry factory ``(**params) -> (privatizer, params)``; ε defaults to 1."""
    return LINEAR, checks.with_params(LINEAR, **params)


def quadratic(**params):
    """ε-LDP bit, p(r) = ((e^ε−1−b)r² + br + 1)/(e^ε+1), b in [0, 2(e^ε−1)] (LDP Thompson sampling, Cor. 1).

    Registry factory ``(**params) -> (privatizer, params)``; ε defaults to 1, b to 0."""
    return QUADRATIC, checks.with_params(QUADRATIC, **params)


def exponential(**params):
    """ε-LDP bit, p(r) = e^(εr)/(e^ε+1) (LDP Thompson sampling, Cor. 1).

    Registry factory ``(**params) -> (privatizer, params)``; ε defaults to 1."""
    return EXPONENTIAL, checks.with_params(EXPONENTIAL, **params)


# The registrations (`jaxbandit.registry`): each channel's privacy claim, audit and golden case.
PRIVATIZERS.register("linear", linear, private=True, audits=("linear",), golden=Golden(params={"epsilon": 1.0}))
PRIVATIZERS.register("quadratic", quadratic, private=True, audits=("quadratic",),
                     golden=Golden(params={"epsilon": 1.0, "b": 0.5}))
PRIVATIZERS.register("exponential", exponential, private=True, audits=("exponential",),
                     golden=Golden(params={"epsilon": 2.0}))
