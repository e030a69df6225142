"""Randomized response, the corruption channel of seed 002 (Gajane, Urvoy & Kaufmann, "Corrupt Bandits for
Preserving Local Privacy", ALT 2018): privatizer `randomized-response`, per-arm 2×2 channels (p00, p11) whose
arithmetic (mean maps, exact LDP level, thresholds snapped onto the uniform's grid so that the channel as realized
is never above the level of its parameters) is `jaxbandit.mechanisms.randomized_response`.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.accounting.accountants import Accountant
from jaxbandit.mechanisms import randomized_response as channel
from jaxbandit.mechanisms.randomized_response import epsilon_optimal, thresholds, toward_interior
from jaxbandit.registry import PRIVATIZERS, Golden
from jaxbandit.types import Privatizer


class RRParams(NamedTuple):
    """Randomized response's channel per arm: P(feedback 0 | reward 0) = p00, P(1 | 1) = p11."""
    p00: jax.Array  # float, scalar (every arm) or [K]: Pr(F = 0 | R = 0)
    p11: jax.Array  # float, scalar (every arm) or [K]: Pr(F = 1 | R = 1)


def _per_arm(x, arm):
    return x[arm] if jnp.ndim(x) else x


def _apply(rng, arm, reward, params):
    t0, t1 = thresholds(_per_arm(params.p00, arm), _per_arm(params.p11, arm))
    # Clamp the input as the Bernoulli mechanisms do: the threshold then stays between t0 and t1 for every input
    # (a reward of 2 or NaN would otherwise leave [0, 1] and make the channel's level infinite). NaN counts as 1/2.
    r = jnp.clip(jnp.where(jnp.isnan(reward), 0.5, reward), 0, 1)
    return (rng.drawn < t0 + (t1 - t0) * r).astype(reward.dtype)


def _draw(key, steps, params):
    del params
    return jax.random.uniform(key, (steps,))


def validate(params: RRParams) -> None:
    """p00, p11 in [0, 1] and s = p00 + p11 − 1 ≠ 0 for every arm (g_a strictly monotone)."""
    channel.check(params.p00, params.p11)


def _boundary(budget, params, horizon, num_arms):
    """The ε-optimal channel (Eq. 5) at the largest ε the budget allows, for every arm."""
    p = epsilon_optimal(budget.pure_epsilon())["p00"]
    return {"p00": np.broadcast_to(p, np.shape(params.p00)), "p11": np.broadcast_to(p, np.shape(params.p11))}


#: The channel's accountant, which claims ε-LDP of each report at its exact per-arm level
#: (`mechanisms.randomized_response.ldp_level`).
ACCOUNTANT = Accountant(
    "ldp", "report", lambda p, T, K: {"epsilon": float(np.max(channel.ldp_level(p.p00, p.p11)))},
    "one user's reward changed; the output is that user's reported bit (the level is the largest over the arms)",
    "Gajane, Urvoy & Kaufmann 2018 (seed 002), Def. 1 and Eq. (2): the exact level of each arm's channel, "
    "max(|log(p00/(1 − p11))|, |log(p11/(1 − p00))|) (`jaxbandit.mechanisms.randomized_response.ldp_level`)",
    calibrated="p00", boundary=_boundary)

_FLOAT = jax.dtypes.canonicalize_dtype(np.float64)  # JAX's float type, known without starting a backend
#: Seed 002's per-arm randomized response (corruption) channel as a `Privatizer`.
RANDOMIZED_RESPONSE = Privatizer(name="randomized-response", draw=_draw, apply=_apply, validate=validate,
                                 default_params=RRParams(*(np.asarray(v, _FLOAT) for v in epsilon_optimal(1.0).values())),
                                 reward_range=(0.0, 1.0), output_range=(0.0, 1.0), accountant=ACCOUNTANT)


def randomized_response(**params):
    """Per-arm corruption channel, Pr(F=0|R=0)=p00, Pr(F=1|R=1)=p11 (Corrupt bandits Eq. 2); p00=p11=e^ε/(1+e^ε): ε-LDP.

    Registry factory ``(**params) -> (privatizer, params)``: p00 and p11 scalars or per-arm vectors (default: the
    ε = 1 optimal channel, p = 0.731), stored `toward_interior`, so the channel as realized is never above the
    level of the values given."""
    if "p00" in params and "p11" in params:
        given = RRParams(checks.as_array("p00", params["p00"]), checks.as_array("p11", params["p11"]))
        validate(given)  # before rounding: p00 + p11 = 1 exactly is rejected, not rounded away
        stored = toward_interior(given.p00, given.p11)
        if np.any(np.sign(np.add(*stored.values()) - 1) != np.sign(given.p00 + given.p11 - 1)):
            raise ValueError(f"p00={_fmt(given.p00)}, p11={_fmt(given.p11)}: p00 + p11 is closer to 1 than the "
                             f"parameters' float resolution; g would not be reliably monotone")
        params.update(stored)
    return RANDOMIZED_RESPONSE, checks.with_params(RANDOMIZED_RESPONSE, **params)


def _fmt(x):
    return np.array2string(np.asarray(x), precision=9, separator=",")


# The registration (`jaxbandit.registry`): the channel's privacy claim, audit and golden case (a per-arm channel).
PRIVATIZERS.register("randomized-response", randomized_response, private=True, audits=("randomized-response",),
                     golden=Golden(params={"p00": [0.6, 0.9, 0.8, 0.7], "p11": [0.7, 0.9, 0.85, 0.6]}))
