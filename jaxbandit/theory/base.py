"""The shape of a bound: one theorem of a seed paper as a function of an instance, with what a reader needs to
trust it (the result and equation it comes from, upper or lower, what it bounds, whether it is a finite-T
guarantee or only a rate, and the constants its proof leaves unspecified, which are parameters)."""
from __future__ import annotations

import inspect
from typing import Callable, Mapping

import numpy as np

from jaxbandit import checks

#: A bound is an upper or a lower bound.
KINDS = ("upper", "lower")
#: A bound bounds the regret, or the expected pulls of each arm.
QUANTITIES = ("regret", "pulls")


class NotApplicable(ValueError):
    """The theorem's conditions do not hold on this instance (its message names the condition and the values)."""


class Bound:
    """One theorem's bound on the regret (or expected pulls) of some policies, as a host-side function.

    ``function(**arguments)`` takes keyword arguments named like the quantities of a configuration: ``means``
    (the arms' means), ``horizon`` (T, a scalar or an array of times), the policy's parameters by their field
    names (``epsilon``, ``delta``, ``b``, ``c``, ``v``, ``u``, ``p00``, ...) and, after a ``*``, the constants the
    proof leaves unspecified (numbers, with defaults) and the bound's forms (strings: ``form="tight"``);
    ``inputs(spec)``, where given, computes arguments that are not a field (seed 000's privatized means). It raises
    `NotApplicable` where the theorem's conditions fail.

    Attributes: ``name`` (the key in `jaxbandit.theory.REGISTRY`), ``paper`` (the seed, "001", or the paper's
    citation, "Abbasi-Yadkori et al. 2011"), ``result`` (the
    theorem and equation), ``kind`` ("upper" | "lower"), ``quantity`` ("regret"; "pulls" is E[n_i(T)] per arm),
    ``asymptotic`` (True: a rate or a liminf whose constant the paper does not give, or that holds only as
    T → ∞, never a finite-T guarantee), ``policies`` (the registry names it speaks about: the policies an upper
    bound is proved for; those a lower bound binds), ``constants`` (unspecified constant → default), ``forms``
    (form → default), ``note`` (errata applied, looseness). Its docstring is the function's.
    """

    def __init__(self, name: str, function: Callable, *, paper: str, result: str, kind: str, policies,
                 quantity: str = "regret", asymptotic: bool = False, note: str = "",
                 inputs: Callable | None = None):
        checks.known_name("kind", kind, KINDS)
        checks.known_name("quantity", quantity, QUANTITIES)
        if not (inspect.getdoc(function) or "").strip():
            raise ValueError(f"bound {name!r}: its function needs a docstring (the theorem and equation)")
        self.name, self.function, self.paper, self.result = name, function, paper, result
        self.kind, self.quantity, self.asymptotic, self.note = kind, quantity, asymptotic, note
        self.policies = tuple(policies)
        self.inputs = inputs
        sig = inspect.signature(function)
        positional = [p for p in sig.parameters.values() if p.kind is not p.KEYWORD_ONLY]
        self.arguments = tuple(p.name for p in positional)
        self.required = tuple(p.name for p in positional if p.default is p.empty)
        keyword = [p for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]
        self.constants = {p.name: p.default for p in keyword if not isinstance(p.default, str)}
        self.forms = {p.name: p.default for p in keyword if isinstance(p.default, str)}
        self.__doc__ = function.__doc__

    def __call__(self, **arguments):
        return self.function(**arguments)

    @property
    def citation(self) -> str:
        """``"seed 004"`` for a seed paper (``paper`` its number), else ``paper`` itself (e.g. "Abbasi-Yadkori et al.
        2011")."""
        return f"seed {self.paper}" if self.paper.isdigit() else self.paper

    def __repr__(self) -> str:
        return f"Bound({self.name!r}: {self.citation} {self.result}, {self.kind} bound on {self.quantity})"

    def bind(self, namespace: Mapping, constants: Mapping | None = None) -> dict:
        """The keyword arguments of ``function`` taken from ``namespace`` (by name) and ``constants``."""
        missing = [a for a in self.required if a not in namespace]
        if missing:
            raise NotApplicable(f"{self.name} needs {', '.join(missing)}, which this configuration does not give")
        unknown = sorted(set(constants or {}) - set(self.constants) - set(self.forms))
        if unknown:
            raise ValueError(f"constants={unknown} are not constants or forms of {self.name} (its constants: "
                             f"{sorted(self.constants) or 'none'}; forms: {sorted(self.forms) or 'none'})")
        for name, value in (constants or {}).items():
            if name in self.forms and not isinstance(value, str):
                raise ValueError(f"{name}={value!r} of {self.name} must be one of its forms (a string, e.g. "
                                 f"{self.forms[name]!r})")
            if name in self.constants and not (isinstance(value, (int, float)) and 0 < value < float("inf")):
                raise ValueError(f"{name}={value!r} of {self.name} must be a positive finite number")
        return {**{a: namespace[a] for a in self.arguments if a in namespace}, **dict(constants or {})}


# ------------------------------------------------------------------------------------------------ shared pieces

def gaps(means):
    """Δ_i = μ* − μ_i of the suboptimal arms, float64; a `NotApplicable` where the best arm is not unique (every
    bound here assumes one)."""
    mu = np.asarray(means, np.float64)
    if mu.ndim != 1 or mu.size < 2:
        raise ValueError(f"means={mu.tolist()} must list at least 2 arms")
    best = int(np.argmax(mu))
    if np.sum(mu == mu[best]) > 1:
        raise NotApplicable(f"means={mu.tolist()} must have a unique best arm (the bounds assume one)")
    return np.delete(mu[best] - mu, best)


def suboptimal(means):
    """Boolean mask of the suboptimal arms."""
    mu = np.asarray(means, np.float64)
    return np.arange(mu.size) != int(np.argmax(mu))


def per_arm(means, values):
    """Per-arm pulls from values over the suboptimal arms (the best arm's entry is NaN: the theorems bound only
    the suboptimal ones)."""
    mu = np.asarray(means, np.float64)
    values = np.asarray(values, np.float64)
    out = np.full(values.shape[:-1] + mu.shape, np.nan)
    out[..., suboptimal(mu)] = values
    return out


def horizons(horizon):
    """T as float64 (a scalar or an array of times), every entry ≥ 2."""
    T = np.asarray(horizon, np.float64)
    if np.any(~np.isfinite(T)) or np.any(T < 2):
        raise ValueError(f"horizon={checks._fmt(horizon)} must be at least 2 (finite)")
    return T


def in_unit_epsilon(epsilon, result: str):
    """Seed 004's upper bounds assume ε ∈ (0, 1] (their proofs use ε ≤ 1)."""
    if not 0 < float(epsilon) <= 1:
        raise NotApplicable(f"epsilon={float(epsilon):g} is outside (0, 1], where {result} is proved")


