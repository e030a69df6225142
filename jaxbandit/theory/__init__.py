"""Every regret bound of the five seed papers as a function of an instance (host-side NumPy, float64), one module
per paper, and a registry of them by name, each a `Bound` that says which theorem and equation it is, upper or
lower, what it bounds, whether it is a finite-T guarantee or only a rate, and which constants its proof leaves
unspecified (parameters):

    ldp_thompson      seed 000  TS and UCB on ε-LDP bits (Theorems 2–3, Eq. 4)
    private_thompson  seed 001  modified Thompson sampling (Theorem 5; Theorem 2 is its (b, c) = (0, 1) case)
    corrupt           seed 002  corrupt bandits (Theorem 1's lower bound, Theorem 2, Corollaries 2–3)
    ftpl              seed 003  DP-FTPL (Theorems 11, 13, 16, 18) and the global-DP lower bound (Theorem 4)
    heavy_tailed      seed 004  DPRUCB, DPRSE, LDPRSE (Theorems 2, 4, 7) and the lower bounds (5, 8–11)
    linear            OFUL      LinUCB's regret (Abbasi-Yadkori et al. 2011, Theorem 3)
    adap              Azize & Basu 2022  AdaP-UCB, AdaP-KLUCB (Theorems 7, 8) and the ε-DP lower bounds (2, 3)

``for_policy(name)`` lists the bounds that speak about a registered policy; ``evaluate(...)`` computes them for a
configuration (what ``jaxbandit bounds`` prints). Where the spec lists an erratum, the default is the corrected
bound and the paper's a ``form``.
"""
from __future__ import annotations

import math
from typing import Mapping, NamedTuple

import numpy as np

from jaxbandit import checks
from jaxbandit.registry import Registry
from jaxbandit.theory import adap, corrupt, ftpl, heavy_tailed, ldp_thompson, linear, private_linear, private_thompson
from jaxbandit.theory.adap import adap_klucb_bound, adap_lower_bound, adap_minimax_lower_bound, adap_ucb_bound
from jaxbandit.theory.base import Bound, NotApplicable
from jaxbandit.theory.corrupt import (bernoulli_kl, corrupt_lower_bound, corrupt_lower_bound_constant,
                                      klucb_cf_bound, ldp_rr_upper_bound, rr_upper_bound)
from jaxbandit.theory.ftpl import (ftpl_beta_bound, ftpl_gauss_bound, ftpl_new_bound, gdp_elim_new_bound,
                                   global_dp_lower_bound, global_dp_lower_bound_rate)
from jaxbandit.theory.ldp_thompson import ldp_ts_bound, ldp_ucb_bound
from jaxbandit.theory.linear import oful_bound
from jaxbandit.theory.private_linear import jdp_linucb_bound
from jaxbandit.theory.private_thompson import modified_ts_bound, modified_ts_minimax_bound, modified_ts_pulls

__all__ = ["Bound", "NotApplicable", "REGISTRY", "Value", "for_policy", "markdown_table", "evaluate", "namespace",
           "trivial_bound", "bernoulli_kl", "corrupt_lower_bound", "corrupt_lower_bound_constant", "klucb_cf_bound",
           "ldp_rr_upper_bound", "rr_upper_bound", "ftpl_beta_bound", "ftpl_gauss_bound", "ftpl_new_bound",
           "gdp_elim_new_bound", "global_dp_lower_bound", "global_dp_lower_bound_rate", "ldp_ts_bound",
           "ldp_ucb_bound", "modified_ts_bound", "modified_ts_minimax_bound", "modified_ts_pulls", "oful_bound",
           "jdp_linucb_bound", "adap_ucb_bound", "adap_klucb_bound", "adap_lower_bound", "adap_minimax_lower_bound"]

#: Every bound of the papers by name (`jaxbandit bounds --list`), each a `Bound`.
REGISTRY = Registry("bound", {b.name: b for module in (adap, ldp_thompson, private_thompson, corrupt, ftpl,
                                                       heavy_tailed, linear, private_linear)
                                 for b in module.BOUNDS})


def markdown_table() -> str:
    """Every registered bound as a Markdown table, one row each (docs/bounds.md holds this table; a test checks
    that it is the registry's): the paper, the result, the registry name, upper or lower, what it bounds, whether
    it is a finite-T guarantee or a rate, and the policies it speaks about."""
    lines = ["| paper | result | bound (registry name) | kind | policies |", "|---|---|---|---|---|"]
    for b in sorted((REGISTRY[n] for n in REGISTRY), key=lambda b: (b.citation, b.name)):
        kind = b.kind + (" (pulls)" if b.quantity == "pulls" else "") + (", asymptotic" if b.asymptotic else "")
        lines.append(f"| {b.citation} | {b.result} | `{b.name}` | {kind} | {', '.join(b.policies)} |")
    return "\n".join(lines)


def for_policy(name: str) -> list[Bound]:
    """The bounds that speak about policy ``name`` (upper bounds proved for it, lower bounds that bind it)."""
    return [REGISTRY[b] for b in REGISTRY if name in REGISTRY[b].policies]


def trivial_bound(quantity: str, horizon, means):
    """What no run can exceed, whatever the policy: T·max gap of pseudo-regret (``quantity="regret"``; ``horizon``
    may be an array of times t), T pulls of an arm (``"pulls"``). ``means=None`` (expected rewards that change each
    round): ``None`` for the regret, which has no such number here."""
    checks.known_name("quantity", quantity, ("regret", "pulls"))
    horizon = np.asarray(horizon, np.float64)
    if quantity == "pulls":
        return horizon
    if means is None:
        return None
    means = np.asarray(means, np.float64)
    return horizon * float(means.max() - means.min())


class Value(NamedTuple):
    """One bound evaluated on a configuration: ``value`` (a number; per-arm pulls a list, the best arm NaN), the
    λ it was optimised at where the theorem leaves one free (``extra``), or ``None`` and the ``reason`` where
    the theorem does not apply. ``trivial``: what no run exceeds on this configuration (`trivial_bound`), for a
    finite-T upper bound; `vacuous` says whether the bound is at or above it."""

    bound: Bound
    value: object
    reason: str = ""
    extra: Mapping | None = None
    trivial: float | None = None

    @property
    def vacuous(self) -> bool:
        """Whether this finite-T upper bound says nothing a run does not already meet, being at or above `trivial`
        (T·max gap of regret, T pulls) for every arm it bounds. Its value is the theorem's all the same."""
        if self.trivial is None or self.value is None:
            return False
        values = np.asarray(self.value, np.float64)
        values = values[~np.isnan(values)]  # a per-arm bound's best arm
        return bool(values.size) and bool(np.all(values >= self.trivial))

    def as_dict(self) -> dict:
        b = self.bound
        value = self.value
        if value is not None:
            value = np.asarray(value, np.float64)
            value = float(value) if value.ndim == 0 else [None if math.isnan(x) else float(x) for x in value]
        return {"name": b.name, "paper": b.paper, "result": b.result, "kind": b.kind, "quantity": b.quantity,
                "asymptotic": b.asymptotic, "value": value, "not_applicable": self.reason or None,
                "constants": dict(b.constants), "forms": dict(b.forms), **({"extra": dict(self.extra)}
                                                                            if self.extra else {}), "note": b.note,
                "trivial": self.trivial, "vacuous": self.vacuous}


def namespace(spec) -> dict:
    """What a `jaxbandit.spec.Spec` (with a horizon) gives the bound functions by name: ``means`` (float64; absent
    where the expected rewards change each round or each run draws its own instance), ``horizon``, ``num_arms``,
    ``dim`` (a contextual environment's d), then the environment's, privatizer's and policy's parameters by field
    name (a later one wins: the policy's ``v``, ``u`` are what it assumes), with the run-decided ones bound to the
    horizon, and the policy's build-time options (``variant``)."""
    if spec.horizon is None:
        raise ValueError("the bounds need a horizon: resolve the configuration with horizon=T")
    out = {"horizon": int(spec.horizon), "num_arms": spec.env.num_arms}
    if spec.env.means is not None and spec.env.instance is None:  # a random instance's params are not its means
        out["means"] = _decimal(spec.env.means(spec.params.env))
    if spec.env.dim is not None:
        out["dim"] = spec.env.dim
    for params in (spec.params.env, spec.params.privatizer, spec.params.policy):
        for field, value in zip(getattr(params, "_fields", ()), params):
            if value is None or field in ("means", "horizon") or isinstance(value, tuple):
                continue  # nested parameters (a mixture's components) are no bound's argument
            arr = _decimal(value)
            out[field] = float(arr) if arr.ndim == 0 else arr
    out.update(spec.policy.options or {})  # build-time options by name: a bound may hold for one variant only
    return out


def _decimal(values) -> np.ndarray:
    """float64 of the parameters as written: a float32 0.9 is 0.9, not 0.89999998 (`checks.as_written`)."""
    return np.asarray(checks.as_written(values), np.float64)


def evaluate(env, policy, privatizer=None, *, horizon: int, constants: Mapping | None = None,
             names=None, **resolve_kwargs) -> list[Value]:
    """Every bound of ``policy`` (or the ``names`` given) on a configuration, resolved like `jaxbandit.simulate`
    (``env_params``, ``policy_params``, ``policy_options``, ``privatizer_params``). ``constants``: values for
    the bounds' unspecified constants or forms, by name (each applied to the bounds that have it; one no bound
    has is an error). A bound whose conditions fail gives ``value=None`` and the reason."""
    from jaxbandit import spec as spec_module
    spec = spec_module.resolve(env, policy, privatizer, horizon=horizon, **resolve_kwargs)
    chosen = [REGISTRY[n] for n in names] if names is not None else for_policy(spec.policy.name)
    constants = dict(constants or {})
    known = set().union(*(set(b.constants) | set(b.forms) for b in chosen)) if chosen else set()
    if set(constants) - known:
        raise ValueError(f"constants={sorted(set(constants) - known)} belong to none of the bounds evaluated "
                         f"({', '.join(b.name for b in chosen) or 'none'}); theirs: {sorted(known) or 'none'}")
    base = namespace(spec)
    out = []
    for b in chosen:
        mine = {k: v for k, v in constants.items() if k in b.constants or k in b.forms}
        try:
            ns = dict(base, **(b.inputs(spec) if b.inputs else {}))
            result = b(**b.bind(ns, mine))
        except NotApplicable as err:
            out.append(Value(b, None, str(err)))
            continue
        extra = None
        if isinstance(result, tuple):  # (value, λ) of a bound with a free λ
            result, extra = result[0], {"lambda": float(result[1])}
        values = np.asarray(result, np.float64)
        if np.any(np.isinf(values)):  # (NaN marks the best arm of a per-arm bound)
            out.append(Value(b, result, "not finite on this instance"))
            continue
        trivial = (trivial_bound(b.quantity, spec.horizon, base.get("means"))
                   if b.kind == "upper" and not b.asymptotic else None)
        out.append(Value(b, result, "", extra, None if trivial is None else float(trivial)))
    return out
