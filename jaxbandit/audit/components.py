"""The audited private components: for each one, its neighbouring inputs, what is observed, the claim and its
source, the exact level where it can be computed, and its planted bugs (`jaxbandit audit NAME`).

The audits are written in two modules, `jaxbandit.audit.mechanisms` (local channels, central releases, counters,
Gaussian ReportNoisyMax) and `jaxbandit.audit.policies` (a policy's own decisions), and registered with their planted
bugs (`jaxbandit.registry.AUDITS`); a private component's registration lists the audits that test its claim
(`for_component`). Every audit runs the library's own code — the privatizer's ``apply``, the counter's ``insert``/``release``, the
estimator of `jaxbandit.mechanisms.truncated_mean`, or a policy's own ``draw``/``select``/``update`` — so that it audits what
the simulations run. A factory ``(bug=None, **params) -> Audit`` builds one audit; ``bug`` names a deliberately
broken variant from its registration (``AUDITS.entry(name).bugs``, also `BUGS`; the audit must flag it: tests/test_audit.py), whose claim stays the honest one:

  noise-halved       the privacy noise at half its scale (or the mechanism run at 2ε)
  wrong-sensitivity  noise calibrated to half the true sensitivity
  noise-reused       one noise draw used for several releases (across arms, or across insertions)
  no-clamp           the input clamp / truncation skipped, on inputs that need it
  no-start-phase     DP-FTPL-Gauss sampling from the first pull (its start phase is what makes it private)
  no-pseudo-counts   DP-FTPL-Beta's Beta draw without the pseudo-counts (without them Lemma 8 fails)

Neighbours are worst-case where the paper says so (the extremes of the input range for the local channels, the
item lying in the most nodes for the counters). Policy-level audits fix a short reward table and change one
reward; their events (a decision of one round) are far from the worst case of the whole run, so their bounds are
valid but not tight (``tight=None``).
"""
from __future__ import annotations

import inspect
import warnings
from typing import Mapping

from jaxbandit.audit import mechanisms, policies as policy_audits  # noqa: F401  (their audits register on import)
from jaxbandit.audit.montecarlo import Audit
from jaxbandit.audit.policies import play
from jaxbandit.registry import AUDITS

__all__ = ["REGISTRY", "BUGS", "BUG_DESCRIPTIONS", "names", "make", "play", "for_component", "audited_components",
           "markdown_table"]

#: What each planted bug (`--bug NAME`) does to the component.
BUG_DESCRIPTIONS = {
    "noise-halved": "privacy noise at half its scale (mechanism run at 2ε)",
    "wrong-sensitivity": "noise calibrated to half the true sensitivity",
    "noise-reused": "one noise draw reused for several releases",
    "no-clamp": "input clamp / truncation skipped",
    "no-start-phase": "DP-FTPL-Gauss's start phase computed as one pull",
    "no-pseudo-counts": "DP-FTPL-Beta's select without its pseudo-counts",
}

#: The audits by name (`jaxbandit audit --list`), each an `Audit` factory ``(bug=None, **params) -> Audit``.
REGISTRY = AUDITS


class _Bugs(Mapping):
    """The planted bugs of each audit, read from its registration (a read-only view)."""

    def __getitem__(self, name):
        return AUDITS.entry(name).bugs

    def __iter__(self):
        return iter(AUDITS.names())

    def __len__(self):
        return len(AUDITS)


#: The planted bugs of each audit: the ones its default audit flags (tests/test_audit.py checks every pair).
BUGS = _Bugs()


def names() -> list[str]:
    """The audits' names."""
    return REGISTRY.names()


def for_component(kind: str, name: str) -> tuple[str, ...]:
    """The audits that test the claim of a registered component (``kind`` "policy" or "privatizer"), as its
    registration lists them: its own first, then those of the mechanisms it releases through."""
    from jaxbandit import policies, privatizers
    registries = {"policy": policies.REGISTRY, "privatizer": privatizers.REGISTRY}
    if kind not in registries:
        raise ValueError(f"kind={kind!r}: must be one of {sorted(registries)}")
    return registries[kind].entry(name).audits


def audited_components(name: str) -> list[str]:
    """The registered components whose registration lists audit ``name`` (the claims it tests)."""
    from jaxbandit import policies, privatizers
    REGISTRY.entry(name)
    return [e.name for registry in (policies.REGISTRY, privatizers.REGISTRY) for e in registry.entries()
            if name in e.audits]


def markdown_table() -> str:
    """Every private component, from its registration, as a Markdown table (docs/privacy.md holds it; a test checks
    that it is the registry's): its kind, its claim's notion and scope (its accountant's), the audits that test
    the claim and the bounds that speak about it (`jaxbandit.theory`)."""
    from jaxbandit import policies, privatizers, theory
    from jaxbandit.accounting.accountants import NOTIONS, SCOPES
    lines = ["| component | kind | claim | audits | bounds |", "|---|---|---|---|---|"]
    built = {"policy": lambda n: policies.get(n, 2),  # a claim's notion and scope do not depend on K
             "privatizer": lambda n: privatizers.make(n)[0]}
    for kind, registry in (("policy", policies.REGISTRY), ("privatizer", privatizers.REGISTRY)):
        for entry in registry.entries():
            if not entry.private:
                continue
            acc = built[kind](entry.name).accountant
            bounds = [b.name for b in theory.for_policy(entry.name)] if kind == "policy" else []
            lines.append(f"| {entry.name} | {kind} | {NOTIONS[acc.notion]} over {SCOPES[acc.scope]} | "
                         f"{', '.join(entry.audits)} | {', '.join(bounds) or '—'} |")
    return "\n".join(lines)


def make(name: str, bug: str | None = None, **params) -> Audit:
    """The audit ``name`` (a planted ``bug`` from its registration, or ``None``) with its parameters."""
    factory = REGISTRY[name]
    valid = [p for p in inspect.signature(factory).parameters if p != "bug"]
    if "noise" in params and "release" in valid and "release" not in params:  # the 0.3 spelling
        noise = params.pop("noise")
        default = inspect.signature(factory).parameters["release"].default
        params["release"] = "float" if float(noise) == 0 else default
        warnings.warn(f"audit parameter noise={noise:g} is now release={params['release']!r} (noise is deprecated)",
                      DeprecationWarning, stacklevel=2)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"audit {name!r} has no parameter {', '.join(unknown)}; valid: {valid}")
    return factory(bug=bug, **params)
