"""The tuner's answer, `Tuned`, and its file: `Tuned.save` writes it as JSON, `Tuned.load` reads it back (every
file written since the format began, version 1, reads)."""
from __future__ import annotations

import dataclasses
import json
import os
import warnings
from typing import Any

from jaxbandit import checks

__all__ = ["Tuned", "TUNED_FORMAT", "TUNED_VERSION"]

#: The ``format`` and ``version`` fields of a saved `Tuned`.
TUNED_FORMAT, TUNED_VERSION = "jaxbandit-tuned", 1
# A version-1 file also writes modified Thompson sampling's b and c at its top level (beside ``params``), where
# readers of the first files look for them.
_TOP_LEVEL = ("b", "c")
_REQUIRED = ("params", "agent_steps", "trace", "config", "seconds")


@dataclasses.dataclass
class Tuned:
    """The outcome of `jaxbandit.tune`.

    Attributes:
      params: every parameter the tuner set: the tuned one and, under a budget, the calibrated one on the budget's
        boundary, e.g. ``{"b": 1890, "c": 52.9}`` for modified Thompson sampling (b an integer meeting the budget
        with c) or ``{"epsilon": 0.05, "v": 1.37}`` for DP-UCB-INT.
      eta, epsilon, delta: the privacy of ``params`` by the policy's accountant, or None without a budget: for a
        μ-GDP claim its μ (``eta``) and the (ε, δ)-DP it implies at the budget's δ (10⁻⁶ for a μ budget); for an
        ε-DP, (ε, δ)-DP or ε-LDP claim its ε and δ (``eta`` None).
      agent_steps: simulated agent-steps the optimisation spent (runs × horizon over every step, pilots included).
      trace: one dict per optimisation step: the coordinate ``u`` and the parameters at it, the regret estimate at
        it with its standard error, and the gradient in u with its standard error.
      config: the request (environment, policy, budget, horizon, runs, steps, seed, estimator, the parameter tuned
        ``param`` and its ``range``, ...).
      seconds: wall time.
      warnings: what the answer's user should know (e.g. that the budget forces near-uniform play, or that the
        tuner did not converge within its steps).
      converged: whether the last steps' gradients are consistent with a stationary point (`convergence`).
      convergence: the test's numbers (`jaxbandit.tuning.diagnostics.convergence`): ``window`` (steps), ``grad``
        and ``grad_se`` (their mean gradient in u and its standard error), ``z``, ``gain_per_window`` (|grad|·σ)
        against ``regret_se``, ``at_bound`` (the iterate at an end of its range, pushed outward).
      claim: the accountant's `jaxbandit.accounting.Guarantee` of ``params`` under a budget (not saved: a loaded
        answer has ``None``).
    """

    params: dict
    eta: float | None
    epsilon: float | None
    delta: float | None
    agent_steps: int
    trace: list
    config: dict
    seconds: float
    warnings: list = dataclasses.field(default_factory=list)
    converged: bool | None = None
    convergence: dict = dataclasses.field(default_factory=dict)
    claim: Any = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def b(self):
        """The tuned ``params["b"]``, deprecated for it (a DeprecationWarning says so)."""
        return self._deprecated("b")

    @property
    def c(self):
        """The tuned ``params["c"]``, deprecated for it (a DeprecationWarning says so)."""
        return self._deprecated("c")

    def _deprecated(self, name):
        warnings.warn(f"Tuned.{name} is deprecated: use Tuned.params[{name!r}] (Tuned.params holds every tuned and "
                      "calibrated parameter, of any policy)", DeprecationWarning, stacklevel=3)
        return self.params.get(name)

    def to_dict(self) -> dict:
        """The JSON shape of `save` (format `TUNED_FORMAT`, version `TUNED_VERSION`)."""
        out = {"format": TUNED_FORMAT, "version": TUNED_VERSION, "params": self.params}
        if self.epsilon is not None:
            out.update({k: self.params[k] for k in _TOP_LEVEL if k in self.params})
            out.update(eta=self.eta, epsilon=self.epsilon, delta=self.delta)
        out.update(agent_steps=self.agent_steps, seconds=self.seconds, config=self.config, trace=self.trace,
                   converged=self.converged, convergence=self.convergence, warnings=self.warnings)
        return out

    def save(self, path: str) -> None:
        """Write `to_dict` as JSON (written to a temporary file, then renamed: never half a file)."""
        checks.writable_file("path", path)
        with open(path + ".tmp", "w") as f:
            json.dump(self.to_dict(), f, indent=1)
        os.replace(path + ".tmp", path)

    @classmethod
    def from_dict(cls, data: dict, source: str = "the data") -> "Tuned":
        """The `Tuned` of `to_dict`'s shape (a ``jaxbandit tune --json`` file's ``grid`` is left out); ValueError,
        naming ``source``, on another shape."""
        if not isinstance(data, dict) or data.get("format") != TUNED_FORMAT:
            raise ValueError(f"{source} is not a saved jaxbandit.tuning.Tuned (its format is not {TUNED_FORMAT!r})")
        version = data.get("version")
        if not isinstance(version, int) or not 1 <= version <= TUNED_VERSION:
            raise ValueError(f"{source} is version {version!r} of {TUNED_FORMAT!r}; this jaxbandit reads versions 1 "
                             f"to {TUNED_VERSION}")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise ValueError(f"{source} lacks {', '.join(missing)}: not a complete saved Tuned")
        return cls(dict(data["params"]), data.get("eta"), data.get("epsilon"), data.get("delta"),
                   int(data["agent_steps"]), list(data["trace"]), dict(data["config"]), float(data["seconds"]),
                   list(data.get("warnings", [])), data.get("converged"), dict(data.get("convergence", {})))

    @classmethod
    def load(cls, path: str) -> "Tuned":
        """Read a file written by `save` (or ``jaxbandit tune --json``); ValueError naming the file where it is not
        one."""
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path} is not valid JSON ({err}): not a saved Tuned, or a truncated one") from None
        return cls.from_dict(data, path)

    def __repr__(self) -> str:
        if self.eta is not None:
            priv = f", eta={self.eta:.4g}, epsilon={self.epsilon:.4g}, delta={self.delta:.3g}"
        elif self.epsilon is not None:
            priv = f", epsilon={self.epsilon:.4g}, delta={self.delta:.3g}"
        else:
            priv = ""
        return (f"Tuned(params={self.params}{priv}, agent_steps={self.agent_steps:.3g}, steps={len(self.trace)}, "
                f"converged={self.converged})")
