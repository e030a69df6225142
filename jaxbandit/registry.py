"""The one registry shape of jaxbandit: a name → factory mapping per kind of component (policies, envs,
privatizers), whose one-line descriptions are the factories' docstring summaries (first paragraph, one line).

Registries are a convenience layer for the CLI, saved configurations and experiments: every entry point also
takes the component objects themselves, so a user-written component needs no registration.
"""
from __future__ import annotations

import inspect
from typing import Callable, Iterator, Mapping

from jaxbandit import checks

__all__ = ["Registry"]


class Registry(Mapping):
    """Names of one kind of component mapped to their factories.

    ``registry[name]`` is the factory (a ``ValueError`` listing the valid names, and the nearest one, for an
    unknown name); ``describe(name)`` is its docstring's summary.
    """

    def __init__(self, kind: str, entries: Mapping[str, Callable] | None = None):
        self.kind = kind
        self._entries: dict[str, Callable] = {}
        for name, factory in (entries or {}).items():
            self.register(name, factory)

    def register(self, name: str, factory: Callable) -> Callable:
        """Add ``factory`` under ``name``; it must have a docstring (its summary is the description)."""
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is registered already")
        if not (inspect.getdoc(factory) or "").strip():
            raise ValueError(f"{self.kind} factory {name!r} needs a docstring: its summary is the description")
        self._entries[name] = factory
        return factory

    def __getitem__(self, name: str) -> Callable:
        checks.known_name(self.kind, name, self._entries)
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def describe(self, name: str) -> str:
        """The summary of the factory's docstring: its first paragraph, on one line."""
        return " ".join(inspect.getdoc(self[name]).strip().split("\n\n")[0].split())

    def descriptions(self) -> dict[str, str]:
        return {name: self.describe(name) for name in self.names()}
