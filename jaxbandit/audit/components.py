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
           "private_components", "claim", "markdown_table", "audit_table"]

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


#: Each audit's planted bugs, read from its registration (its default audit flags each; tests/test_audit.py checks
#: every pair).
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


def private_components() -> list[tuple[str, str, object]]:
    """Every registered component that states a privacy claim: ``(name, kind, accountant)``, the policies then the
    privatizers, by name (``jaxbandit privacy --list``). A claim's notion and scope do not depend on the number of
    arms or the features' dimension, so the accountants are those of the components built for any K (and d)."""
    from jaxbandit import policies, privatizers
    return ([(n, "policy", policies.get(n, 2, 2).accountant) for n in policies.private_names()]
            + [(n, "privatizer", privatizers.make(n)[0].accountant) for n in privatizers.private_names()])


def claim(kind: str, name: str, *, horizon: int, num_arms: int = 2, params: Mapping | None = None,
          options: Mapping | None = None, dim: int | None = None):
    """The privacy claim of registered component ``name`` (``kind`` "policy" or "privatizer") with ``params``
    overriding its defaults, a policy built with ``options`` for ``num_arms`` arms and its run-decided parameters
    bound to ``horizon`` (the T known to the algorithm) and, contextual, for features of dimension ``dim``:
    ``(guarantee, params)``, what ``jaxbandit privacy`` prints. A clear error for an unknown or non-private component, before anything is built."""
    from jaxbandit import checks, engine, policies, privatizers
    from jaxbandit.types import SimParams
    horizon = checks.positive_int("horizon", horizon)
    num_arms = checks.positive_int("arms", num_arms)
    registries = {"policy": policies.REGISTRY, "privatizer": privatizers.REGISTRY}
    if kind not in registries:
        raise ValueError(f"kind={kind!r}: must be one of {sorted(registries)}")
    registry = registries[kind]
    checks.known_name(kind, name, registry)
    if not registry.entry(name).private:
        plural = {"policy": "policies", "privatizer": "privatizers"}[kind]
        raise ValueError(f"{kind} {name!r} states no privacy claim (it is not private); private {plural}: "
                         f"{', '.join(registry.private_names())}")
    if kind == "policy":
        component, values = policies.make(name, num_arms, options=options, dim=dim, **dict(params or {}))
        values = engine.bind(component, SimParams(None, values, None), horizon).policy
    else:
        if options:
            raise ValueError(f"options={dict(options)} apply to a policy; privatizer {name!r} has none")
        component, values = privatizers.make(name, **dict(params or {}))
    return component.accountant.guarantee(values, horizon, num_arms, name), values


def markdown_table() -> str:
    """Every private component, from its registration, as a Markdown table (docs/privacy.md holds it; a test checks
    that it is the registry's): its kind, its claim's notion and scope (its accountant's), the audits that test
    the claim and the bounds that speak about it (`jaxbandit.theory`)."""
    from jaxbandit import policies, privatizers, theory
    from jaxbandit.accounting.accountants import NOTIONS, SCOPES
    registries = {"policy": policies.REGISTRY, "privatizer": privatizers.REGISTRY}
    lines = ["| component | kind | claim | audits | bounds |", "|---|---|---|---|---|"]
    for name, kind, acc in private_components():
        bounds = [b.name for b in theory.for_policy(name)] if kind == "policy" else []
        lines.append(f"| {name} | {kind} | {NOTIONS[acc.notion]} over {SCOPES[acc.scope]} | "
                     f"{', '.join(registries[kind].entry(name).audits)} | {', '.join(bounds) or '—'} |")
    return "\n".join(lines)


def audit_table(rows) -> str:
    """The privacy report's table: one Markdown row per audit result (`jaxbandit.audit.AuditResult.as_json`), with
    the components whose claim it tests (``jaxbandit audit --all --table``)."""
    lines = ["| audit | tests the claim of | claim | audited lower bound | exact level | trials per side | reproduce |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        sym = "ε" if r["claim_kind"] == "epsilon" else "μ"
        claim_text = f"{sym} = {r['claim']:.4g}" + (f", δ = {r['delta']:.3g}" if r.get("delta") else "")
        exact = "—" if r["exact"] is None else f"{r['exact']:.4g}"
        of = ", ".join(audited_components(r["component"]))
        lines.append(f"| {r['component']} | {of} | {claim_text} | {r['lower_bound']:.4g} | {exact} | "
                     f"{r['trials']:,} | `jaxbandit audit {r['component']}` |")
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
