"""Bandit policies: a registry from names to factories ``(num_arms) -> Policy``.

One file per algorithm family; ``make(name, num_arms, **params)`` returns ``(policy, params)`` with the user's
values validated and cast to the dtypes of the policy's defaults.
"""
from __future__ import annotations

import functools

from jaxbandit import checks
from jaxbandit.policies.corrupt import klucb_cf, ts_cf, ucb_cf, wr_klucb, wr_ts
from jaxbandit.policies.dp_ucb import dp_ucb, dp_ucb_bound, dp_ucb_int
from jaxbandit.policies.elimination import dp_se
from jaxbandit.policies.ftpl import dp_ftpl_beta, dp_ftpl_gauss, dp_ftpl_new, gdp_elim_new
from jaxbandit.policies.heavy_tailed import dp_rse, dp_rucb, ldp_rse
from jaxbandit.policies.greedy import epsilon_greedy, uniform
from jaxbandit.policies.thompson import gaussian_thompson, modified_thompson, thompson
from jaxbandit.policies.ucb import klucb, lazy_ucb, ucb1
from jaxbandit.registry import Registry

__all__ = ["REGISTRY", "names", "get", "make", "common", "corrupt", "dp_ucb", "elimination", "ftpl",
           "greedy", "heavy_tailed", "phased", "thompson", "ucb"]

REGISTRY = Registry("policy", {
    "thompson": thompson,
    "gaussian-thompson": gaussian_thompson,
    "modified-thompson": modified_thompson,
    "ucb1": ucb1,
    "klucb": klucb,
    "klucb-cf": klucb_cf,
    "ucb-cf": ucb_cf,
    "ts-cf": ts_cf,
    "wr-klucb": wr_klucb,
    "wr-ts": wr_ts,
    "dp-ucb-bound": dp_ucb_bound,
    "dp-ucb": dp_ucb,
    "dp-ucb-int": dp_ucb_int,
    "dp-se": dp_se,
    "dp-ftpl-gauss": dp_ftpl_gauss,
    "dp-ftpl-beta": dp_ftpl_beta,
    "dp-ftpl-new": dp_ftpl_new,
    "gdp-elim-new": gdp_elim_new,
    "dp-rucb": dp_rucb,
    "dp-rse": dp_rse,
    "ldp-rse": ldp_rse,
    "lazy-ucb": lazy_ucb,
    "epsilon-greedy": epsilon_greedy,
    "uniform": uniform,
})


def names():
    return REGISTRY.names()


@functools.lru_cache(maxsize=None)
def get(name: str, num_arms: int):
    """The (memoized, so jit caches hit) policy object for ``name`` and K arms."""
    factory = REGISTRY[name]
    checks.positive_int("num_arms", num_arms)
    return factory(num_arms)


def make(name: str, num_arms: int, **params):
    """``(policy, params)``: the registered policy with its defaults overridden by ``params``."""
    policy = get(name, num_arms)
    return policy, checks.with_params(policy, **params)
