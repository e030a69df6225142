"""Bandit policies: a registry from names to factories ``(num_arms, **options) -> Policy``.

One file per algorithm family; ``make(name, num_arms, options=None, **params)`` returns ``(policy, params)`` with
the user's values validated and cast to the dtypes of the policy's defaults. ``options`` are the factory's
build-time choices (e.g. ``{"release": "float"}``), numbers never are. A contextual policy's factory (linear
bandits, `jaxbandit.policies.linear`) also takes the features' dimension: ``(num_arms, dim, **options)``; ``get``
and ``make`` take it as ``dim`` (the environment's `Env.dim`).
"""
from __future__ import annotations

import functools
import inspect
from typing import Mapping

from jaxbandit import checks
from jaxbandit.policies.adap import adap_klucb, adap_ucb
from jaxbandit.policies.corrupt import klucb_cf, ts_cf, ucb_cf, wr_klucb, wr_ts
from jaxbandit.policies.dp_ucb import dp_ucb, dp_ucb_bound, dp_ucb_int
from jaxbandit.policies.elimination import dp_se
from jaxbandit.policies.ftpl import dp_ftpl_beta, dp_ftpl_gauss, dp_ftpl_new, gdp_elim_new
from jaxbandit.policies.robust import dp_rse, dp_rucb, ldp_rse
from jaxbandit.policies.greedy import epsilon_greedy, uniform
from jaxbandit.policies.linear import lin_ts, linucb
from jaxbandit.policies.private_linear import linucb_jdp, linucb_ldp
from jaxbandit.policies.shuffle_linear import linucb_sdp_amp, linucb_sdp_vec
from jaxbandit.policies.thompson import gaussian_thompson, modified_thompson, thompson
from jaxbandit.policies.ucb import klucb, lazy_ucb, ucb1
from jaxbandit.registry import POLICIES

__all__ = ["REGISTRY", "names", "private_names", "get", "make", "option_names", "adap", "common", "corrupt", "dp_ucb",
           "elimination", "ftpl", "greedy", "linear", "phased", "robust", "thompson", "ucb", "is_contextual"]

#: The policies by name (`jaxbandit list`): each a factory ``(num_arms, **options) -> Policy``, registered with its
#: privacy claim, audits and golden case by its family module (`jaxbandit.registry.POLICIES`).
REGISTRY = POLICIES


def names():
    """The registered policies' names."""
    return REGISTRY.names()


def private_names():
    """The policies that state a privacy claim (registered ``private``: their objects carry an accountant)."""
    return REGISTRY.private_names()


def option_names(name: str) -> dict:
    """The build-time options of policy ``name`` and their defaults (its factory's keyword-only arguments)."""
    params = inspect.signature(REGISTRY[name]).parameters.values()
    return {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


# Former numeric switches, now build-time options: the error a user of an older script gets.
_MOVED = {"noise": "release ('float' for noise=0; the default 'discrete' or 'tail-safe' for noise=1)",
          "literal": "variant ('printed' for literal=1, 'corrected' for 0)",
          "log_base": "variant ('printed' for the paper's ln T, log_base=e; 'corrected' for 0)"}


def is_contextual(name: str) -> bool:
    """Whether policy ``name`` is contextual: its factory takes the features' dimension, ``(num_arms, dim, ...)``."""
    return "dim" in inspect.signature(REGISTRY[name]).parameters


def get(name: str, num_arms: int, dim: int | None = None, **options):
    """The policy object for ``name``, K arms and the build-time ``options`` (memoized, so jit caches hit);
    ``dim``: the features' dimension d, which a contextual policy needs (and a context-free one ignores)."""
    checks.positive_int("num_arms", num_arms)
    if is_contextual(name):
        if dim is None:
            raise ValueError(f"policy {name!r} is contextual: it needs an environment whose context gives each arm "
                             f"d features (e.g. 'linear')")
        return _get(name, int(num_arms), _checked_options(name, options), checks.positive_int("dim", dim))
    return _get(name, int(num_arms), _checked_options(name, options))


def _checked_options(name: str, options) -> tuple:
    valid = option_names(name)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for policy {name!r}; valid: {', '.join(valid) or 'none'}")
    for key, value in options.items():
        if not isinstance(value, str):
            raise ValueError(f"policy {name!r} option {key}={value!r} must be a string, e.g. {valid[key]!r}")
    return tuple(sorted({**valid, **options}.items()))


@functools.lru_cache(maxsize=None)
def _get(name: str, num_arms: int, options: tuple, *dim):
    return REGISTRY[name](num_arms, *dim, **dict(options))


def make(name: str, num_arms: int, options: Mapping | None = None, *, dim: int | None = None, **params):
    """``(policy, params)``: the registered policy built with ``options`` (and, contextual, the features'
    dimension ``dim``) and its defaults overridden by ``params``."""
    policy = get(name, num_arms, dim, **dict(options or {}))
    moved_option(policy, params)
    return policy, checks.with_params(policy, **params)


def moved_option(policy, params) -> None:
    """A clear error for a former numeric switch (``noise``, ``literal``, ``log_base``) given as a parameter."""
    moved = sorted(set(params) & set(_MOVED) - set(getattr(policy.default_params, "_fields", ())))
    if moved:
        raise ValueError(f"policy parameter {moved[0]} of {policy.name!r} is now the build-time option "
                         f"{_MOVED[moved[0]]}: pass it as an option (jaxbandit.simulate(..., policy_options={{...}}); "
                         f"CLI --policy-option KEY=VALUE)")
