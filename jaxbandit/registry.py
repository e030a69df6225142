"""The one registry shape of jaxbandit: a name → `Entry` mapping per kind of component (policies, privatizers,
audits, environments, bounds), whose one-line descriptions are the factories' docstring summaries (first
paragraph, one line).

One registration carries what the rest of the library and its tests need to know of a component, beside its
factory (which builds the component and, for a private one, its accountant):

- ``private``, whether it states a privacy claim (its objects carry an `Accountant`): ``jaxbandit privacy
  --list``, the frontier's catalogue and the privacy report list these;
- ``audits``, the names of the audits (`jaxbandit.audit.components`) that test its claim: its own, and those of
  the mechanisms it releases through (DPRSE's epoch mean, DP-UCB's hybrid counter), so that the frontier and the
  report link a component to its audits by this list, never by a shared name;
- ``bugs`` (an audit's entry), the planted bugs that the audit must flag;
- ``golden``, its regression case (`Golden`): the configuration `tests/golden.py` records and replays bit for bit.

Its bounds name it in their own registration (`jaxbandit.theory.base.Bound.policies`). A new private policy with
its accountant, audit and bound is then three files: its family module (the factory and this registration), its
audit's module and its bound's module, plus the recorded golden values (``python -m tests.golden --add-missing``).

The registries of policies, privatizers and audits live here (`POLICIES`, `PRIVATIZERS`, `AUDITS`) so that each
family module registers its own components where they are written; ``jaxbandit.policies.REGISTRY`` and the others
are the same objects. Registries are a convenience layer for the CLI, saved configurations, experiments and the
tests: every entry point also takes the component objects themselves, so a user-written component needs no
registration.
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Callable, Iterator, Mapping

from jaxbandit import checks

__all__ = ["Registry", "Entry", "Golden", "POLICIES", "PRIVATIZERS", "AUDITS"]

#: The arm means of most golden cases (4 arms, the best one last but not first among near-ties).
GOLDEN_MEANS = (0.3, 0.55, 0.5, 0.8)


@dataclasses.dataclass(frozen=True)
class Golden:
    """A component's regression case: the configuration `tests/golden.py` records once and replays bit for bit
    (6 runs, seed 3; the contract tests replay it at T = 100). For a privatizer, ``params`` are its own and the
    policy is Thompson sampling on `GOLDEN_MEANS`.

    Attributes:
      env, env_params: the environment (default Bernoulli arms on `GOLDEN_MEANS`).
      params: the component's parameters (a policy's ``policy_params``, a privatizer's ``privatizer_params``).
      privatizer, privatizer_params: a policy's channel (default none).
      horizon: the case's T, where the files' default (437 = 8 blocks of 50 and a tail) is not enough.
      full_horizon: replay all T rounds (the policy reads T, so its first rounds depend on it), not a prefix.
      contract_horizon: the contract tests' T, where their T = 100 cannot hold the policy's start phase.
    """

    env: str = "bernoulli"
    env_params: Mapping = dataclasses.field(default_factory=lambda: {"means": list(GOLDEN_MEANS)})
    params: Mapping = dataclasses.field(default_factory=dict)
    privatizer: str = "identity"
    privatizer_params: Mapping = dataclasses.field(default_factory=dict)
    horizon: int | None = None
    full_horizon: bool = False
    contract_horizon: int | None = None


@dataclasses.dataclass(frozen=True)
class Entry:
    """One registration: the component's ``name`` and ``factory`` and what the library knows of it (see the module
    docstring): ``private``, ``audits``, ``bugs``, ``golden``."""

    name: str
    factory: Callable
    private: bool = False
    audits: tuple[str, ...] = ()
    bugs: tuple[str, ...] = ()
    golden: Golden | None = None

    @property
    def description(self) -> str:
        """Its factory's docstring summary (the first paragraph, on one line)."""
        return " ".join(inspect.getdoc(self.factory).strip().split("\n\n")[0].split())


class Registry(Mapping):
    """Names of one kind of component mapped to their factories.

    ``registry[name]`` is the factory (a ``ValueError`` listing the valid names, and the nearest one, for an
    unknown name); ``entry(name)`` its whole registration (`Entry`); ``describe(name)`` its docstring's summary.
    """

    def __init__(self, kind: str, entries: Mapping[str, Callable] | None = None):
        self.kind = kind
        self._entries: dict[str, Entry] = {}
        for name, factory in (entries or {}).items():
            self.register(name, factory)

    def register(self, name: str, factory: Callable, *, private: bool = False, audits=(), bugs=(),
                 golden: Golden | None = None) -> Callable:
        """Add ``factory`` under ``name`` with its registration (`Entry`); the factory must have a docstring (its
        summary is the description). Returns the factory, so that this can decorate it."""
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is registered already")
        if not (inspect.getdoc(factory) or "").strip():
            raise ValueError(f"{self.kind} factory {name!r} needs a docstring: its summary is the description")
        if golden is not None and not isinstance(golden, Golden):
            raise TypeError(f"{self.kind} {name!r}: golden must be a registry.Golden, got {type(golden).__name__}")
        self._entries[name] = Entry(name, factory, bool(private), tuple(audits), tuple(bugs), golden)
        return factory

    def __getitem__(self, name: str) -> Callable:
        return self.entry(name).factory

    def entry(self, name: str) -> Entry:
        """The registration of ``name`` (a ``ValueError`` naming the valid ones for an unknown name)."""
        checks.known_name(self.kind, name, self._entries)
        return self._entries[name]

    def entries(self) -> list[Entry]:
        """Every registration, by name."""
        return [self._entries[name] for name in self.names()]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def private_names(self) -> list[str]:
        """The components that state a privacy claim."""
        return [e.name for e in self.entries() if e.private]

    def describe(self, name: str) -> str:
        """The summary of the factory's docstring: its first paragraph, on one line."""
        return self.entry(name).description

    def descriptions(self) -> dict[str, str]:
        return {name: self.describe(name) for name in self.names()}


#: The policies by name (`jaxbandit list`), each registered by its family module.
POLICIES = Registry("policy")
#: The privatizers (local channels) by name, each registered by its family module.
PRIVATIZERS = Registry("privatizer")
#: The privacy audits by name (`jaxbandit audit --list`), each registered by its module with its planted bugs.
AUDITS = Registry("audit")
