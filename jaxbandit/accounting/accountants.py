"""Accountants: what every private component claims, in one shape.

Every private policy and privatizer carries one `Accountant` (``Policy.accountant``, ``Privatizer.accountant``).
For a configuration — its params, the horizon T and the number of arms K — it states a `Guarantee`: the notion
(ε-DP, (ε, δ)-DP, μ-GDP, ρ-zCDP, RDP or ε-LDP), the scope (the whole run, each round given the history, the
outputs to every other user — joint DP — or each user's report), its numbers, what neighbouring inputs it protects
and the result that proves it. `jaxbandit privacy`, `tune`, `audit` and the privacy report (docs/privacy.md) read
it.

A guarantee is a privacy profile (`jaxbandit.accounting.profiles`), as OpenDP's ``epsilon(delta)`` /
``delta(epsilon)``, with the f-DP trade-off curve beside it (Dong, Roth & Su, "Gaussian Differential Privacy",
JRSS-B 2022, Def. 2.1; as in riskcal); the profile of each notion, its conversions and composition are there:

  μ-GDP           δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor. 2.13; `jaxbandit.accounting.gdp`, in float64),
                  f(α) = Φ(Φ⁻¹(1 − α) − μ).
  ε-DP, ε-LDP     the privacy region of ε-DP (Kairouz, Oh & Viswanath, "The Composition Theorem for Differential
                  Privacy", ICML 2015, Thm 2.1; randomized response attains it): δ(ε') = (e^ε − e^ε')₊/(1 + e^ε),
                  f(α) = max(0, 1 − e^ε α, e^−ε (1 − α)).
  (ε, δ)-DP       that of (ε, δ)-DP (same theorem): δ(ε') = δ + (1 − δ)(e^ε − e^ε')₊/(1 + e^ε) for ε' ≥ 0,
                  f(α) = max(0, 1 − δ − e^ε α, e^−ε (1 − δ − α)).
  ρ-zCDP, RDP     through the RDP conversion of Canonne, Kamath & Steinke 2020 (Prop. 12),
                  valid, not exact.

``epsilon_at(δ)`` is the smallest ε' ≥ 0 with δ(ε') ≤ δ (∞ where none: δ below an (ε, δ) claim's δ, or δ = 0 for
μ-GDP). A per-round claim (seed 003's one-step DP), a joint one (Shariff & Sheffet 2018, after Kearns, Pai, Roth &
Ullman 2014: the outputs to every user but t protect t's data; the action shown to t itself depends on it, so a
joint claim is no DP claim about the action sequence), a per-report one (local DP) or a shuffle one (the analyzer's
view of shuffled batches of reports: Chowdhury & Zhou 2022; the users trust the shuffler) keeps its scope: its numbers
are not whole-run protection and are never shown as such.

Calibration: where a component has a privacy-calibrated parameter (``calibrated``), `Accountant.calibrate` returns
the params on the budget's boundary — the parameter value at which the guarantee meets a budget (ε, δ), ε or μ
exactly (c*(b) for modified Thompson sampling, ε for a Laplace policy at ε) — from a closed form where the
component gives one (``boundary``), else by bisection of the monotone map from the parameter to the guarantee.
"""
from __future__ import annotations

import dataclasses
import json
import math
from statistics import NormalDist
from typing import Any, Callable

import numpy as np

from jaxbandit import checks
from jaxbandit.accounting import profiles
from jaxbandit.accounting.profiles import pure_to_mu  # noqa: F401 (defined here before profiles existed)

__all__ = ["NOTIONS", "SCOPES", "Guarantee", "Budget", "Accountant", "pure_dp", "epsilon_of", "epsilon_delta_of"]

#: The privacy notions a claim can state, with how they are written (each a class of
#: `jaxbandit.accounting.profiles`, `profiles.NOTION_CLASSES`).
NOTIONS = {"pure-dp": "ε-DP", "approx-dp": "(ε, δ)-DP", "gdp": "μ-GDP", "ldp": "ε-LDP", "zcdp": "ρ-zCDP",
           "rdp": "RDP"}
#: What a claim protects (its scope), with how it is written. The whole run; each round given the history; the
#: outputs to every other user (joint DP, user t's data against what all users but t are shown, Shariff & Sheffet
#: 2018 after Kearns et al. 2014; not DP of the action sequence, whose action at t is t's own); each user's report.
SCOPES = {"run": "the whole run", "round": "each round, given the history",
          "joint": "the outputs to all other users (joint DP)", "report": "each user's report",
          "shuffle": "the shuffled batches of reports (shuffle DP)"}
_NORMAL = NormalDist()


@dataclasses.dataclass(frozen=True)
class Guarantee:
    """A privacy claim as a privacy profile (module docstring).

    Attributes:
      notion: a key of `NOTIONS` ("pure-dp", "approx-dp", "gdp", "ldp", "zcdp", "rdp").
      scope: a key of `SCOPES` ("run", "round", "joint", "report", "shuffle").
      epsilon, delta: the stated (ε, δ) (δ = 0 for ε-DP and ε-LDP; ``None`` for μ-GDP, zCDP and RDP, whose
        (ε, δ) is `epsilon_at`).
      mu: the μ of a μ-GDP claim, else ``None``.
      protects: the neighbouring inputs, in words (e.g. "one reward changed").
      source: the result that proves it, with the paper.
      component: the registry name of the component it is about (for reports).
      profile: the claim as a `jaxbandit.accounting.profiles.Profile`, which every conversion goes through;
        built from the numbers above for ε-DP, (ε, δ)-DP, μ-GDP and ε-LDP, given for zCDP and RDP.
    """

    notion: str
    scope: str
    epsilon: float | None
    delta: float | None
    mu: float | None
    protects: str
    source: str
    component: str = ""
    profile: profiles.Profile | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self):
        checks.known_name("privacy notion", self.notion, NOTIONS)
        checks.known_name("privacy scope", self.scope, SCOPES)
        if self.profile is None:
            if self.notion in ("zcdp", "rdp"):
                raise ValueError(f"a {NOTIONS[self.notion]} guarantee needs its profile")
            level = {"mu": self.mu, "epsilon": self.epsilon, "delta": self.delta or 0.0}  # `of` reads its own
            object.__setattr__(self, "profile", profiles.of(self.notion, level))

    # -------------------------------------------------------------------------------------------- the profile
    def delta_at(self, epsilon: float) -> float:
        """δ(ε): the smallest δ with (ε, δ)-DP implied by this claim (module docstring), ε ≥ 0."""
        return self.profile.delta_at(epsilon)

    def epsilon_at(self, delta: float) -> float:
        """ε(δ): the smallest ε ≥ 0 with (ε, δ)-DP implied by this claim; ∞ where none (module docstring)."""
        return self.profile.epsilon_at(delta)

    def tradeoff(self, alpha) -> np.ndarray:
        """The f-DP trade-off curve f(α): the least type-II error of any test of the two neighbours at type-I
        error α (module docstring)."""
        return self.profile.tradeoff(alpha)

    def meets(self, budget: "Budget") -> bool:
        """Whether this claim implies the budget under the budget's notion: (ε, δ) via the profile (δ(ε_B) ≤ δ_B);
        μ through the claim's smallest μ-GDP (`profiles.to_gdp`: μ itself, or a pure ε's tight level
        2Φ⁻¹(e^ε/(1 + e^ε)), DRS Prop. 2.6 region; an (ε, δ) claim with δ > 0, zCDP or RDP is no μ-GDP claim)."""
        if budget.mu is not None:
            return profiles.implies_gdp(self.profile) and profiles.to_gdp(self.profile).mu <= budget.mu
        return self.delta_at(budget.epsilon) <= budget.delta * (1 + 1e-12)

    # ----------------------------------------------------------------------------------------------- reports
    @property
    def symbol(self) -> str:
        return NOTIONS[self.notion]

    def describe(self) -> str:
        """One line: the numbers in the notion's own terms and the scope."""
        return f"{self.symbol} with {self.profile.numbers()}, over {SCOPES[self.scope]}"

    def __repr__(self) -> str:
        return f"Guarantee({self.component + ': ' if self.component else ''}{self.describe()})"

    def as_json(self, *, delta: float | None = None, epsilon: float | None = None, **context) -> dict:
        """The one JSON shape of every claim (``jaxbandit privacy --json``): the notion and its numbers (``None``
        where the notion has none), the (ε, δ) at the requested ``delta`` (or δ at ``epsilon``), and ``context``
        (component, params, horizon, number of arms...)."""
        at = {}
        if epsilon is not None:
            at = {"epsilon": float(epsilon), "delta": self.delta_at(epsilon)}
        elif delta is not None:
            at = {"delta": float(delta), "epsilon": self.epsilon_at(delta)}
        out = {"component": self.component, "notion": self.notion, "symbol": self.symbol, "scope": self.scope,
               "epsilon": self.epsilon, "delta": self.delta, "mu": self.mu, "at": at, "protects": self.protects,
               "source": self.source}
        if self.notion in ("zcdp", "rdp"):  # numbers with no field of their own
            out["profile"] = dataclasses.asdict(self.profile)
        out.update(context)
        return json.loads(json.dumps(out, default=_plain))


def _plain(x):
    if isinstance(x, (np.generic, np.ndarray)):
        return np.asarray(x).tolist()
    if hasattr(x, "tolist"):
        return x.tolist()
    return str(x)


@dataclasses.dataclass(frozen=True)
class Budget:
    """A privacy budget: (ε, δ) (δ = 0: pure ε), or μ (μ-GDP). Checked on construction."""

    epsilon: float | None = None
    delta: float = 0.0
    mu: float | None = None

    def __post_init__(self):
        if (self.epsilon is None) == (self.mu is None):
            raise ValueError("a budget is either epsilon (with delta, default 0) or mu, not both or neither")
        if self.mu is not None:
            checks.in_range("mu", self.mu, 0.0, low_open=True, high_open=True)
        else:
            checks.in_range("epsilon", self.epsilon, 0.0, high_open=True)
            checks.in_range("delta", self.delta, 0.0, 1.0, high_open=True)

    def __str__(self) -> str:
        if self.mu is not None:
            return f"μ = {self.mu:g}"
        return f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")

    def pure_epsilon(self) -> float:
        """The largest ε whose ε-DP claim meets this budget: ε_B itself for a pure budget; log((e^ε_B + δ_B)/(1 − δ_B))
        for (ε_B, δ_B) (the profile's δ(ε_B) = δ_B); log(p/(1 − p)), p = Φ(μ_B/2), for μ_B (`pure_to_mu`'s
        inverse)."""
        if self.mu is not None:
            p = _NORMAL.cdf(self.mu / 2)
            return math.log(p / (1 - p)) if p < 1 else math.inf
        if self.delta == 0:
            return float(self.epsilon)
        return math.log((math.exp(self.epsilon) + self.delta) / (1 - self.delta))


@dataclasses.dataclass(frozen=True)
class Accountant:
    """How a component's privacy follows from its parameters (module docstring).

    Attributes:
      notion, scope: keys of `NOTIONS` and `SCOPES`.
      level: ``(params, horizon, num_arms) -> dict``, host side: the numbers of the claim, ``{"epsilon": ε}``,
        ``{"epsilon": ε, "delta": δ}``, ``{"mu": μ}``, ``{"rho": ρ}`` or ``{"orders": ..., "epsilons": ...}``
        (Python floats; may raise ``ValueError`` for a configuration it does not cover).
      protects: the neighbouring inputs, in words.
      source: the result that proves it; a string or ``(params, horizon, num_arms) -> str``.
      calibrated: the parameter `calibrate` sets (``None``: no single parameter sets the level).
      calibrated_range: ``(low, high)`` of that parameter for the bisection (open ends).
      boundary: ``(budget, params, horizon, num_arms) -> {field: value}``, the closed-form boundary where there is
        one (else `calibrate` bisects).
      tuned: the parameter a budget leaves free to tune, with its range ``(horizon, num_arms) -> (low, high)``
        (modified Thompson sampling: b, with c = c*(b) on the boundary), or ``None``.
    """

    notion: str
    scope: str
    level: Callable[[Any, int, int], dict]
    protects: str
    source: str | Callable
    calibrated: str | None = None
    calibrated_range: tuple = (0.0, math.inf)
    boundary: Callable | None = None
    tuned: tuple | None = None

    def __post_init__(self):
        checks.known_name("privacy notion", self.notion, NOTIONS)
        checks.known_name("privacy scope", self.scope, SCOPES)

    def guarantee(self, params, horizon: int, num_arms: int, component: str = "") -> Guarantee:
        """The claim for these parameters (host side; ``params`` concrete, horizon-bound)."""
        level = self.level(params, int(horizon), int(num_arms))
        source = self.source(params, horizon, num_arms) if callable(self.source) else self.source
        profile = profiles.of(self.notion, level)
        epsilon = getattr(profile, "epsilon", None)
        delta = getattr(profile, "delta", None)
        return Guarantee(self.notion, self.scope, epsilon, delta, getattr(profile, "mu", None), self.protects,
                         source, component, profile)

    def calibrate(self, params, horizon: int, num_arms: int, budget: Budget):
        """``params`` with the calibrated parameter on the budget's boundary: the least private value whose
        guarantee still meets ``budget`` (a `Budget`), as stored in the parameter's dtype (moved by ulps towards
        privacy where rounding would leave the budget). ValueError where no value in its range meets it."""
        values = self.boundary_values(params, horizon, num_arms, budget)
        calibrated = self.within_range(_replace(params, values))
        for _ in range(64):
            if self.guarantee(calibrated, horizon, num_arms).meets(budget):
                return calibrated
            calibrated = self._toward_privacy(calibrated, horizon, num_arms, budget)
        raise ValueError(f"the {self.calibrated} of the boundary of {budget} could not be stored in its dtype")

    def boundary_values(self, params, horizon: int, num_arms: int, budget: Budget) -> dict:
        """``{parameter: value}`` (float64, before any rounding to the params' dtype) on the budget's boundary: the
        closed form where the component gives one, else a bisection. ``params`` may carry other fields as Python
        numbers (a relaxed integer, for the tuner)."""
        if self.calibrated is None:
            raise ValueError("this component has no privacy-calibrated parameter: no single parameter sets its level")
        if self.boundary is not None:
            return dict(self.boundary(budget, params, int(horizon), int(num_arms)))
        return {self.calibrated: self._bisect(params, horizon, num_arms, budget)}

    def within_range(self, params):
        """``params`` with the calibrated parameter moved by ulps into its open range where storing it in its dtype
        put it on an end (a boundary 1 + 1e-9 stored in float32 is 1)."""
        value = np.asarray(getattr(params, self.calibrated))
        low, high = self.calibrated_range
        for _ in range(64):
            if value <= low:
                value = np.nextafter(value, np.asarray(np.inf, value.dtype))
            elif value >= high:
                value = np.nextafter(value, np.asarray(-np.inf, value.dtype))
            else:
                break
        return _replace(params, {self.calibrated: value})

    def _toward_privacy(self, params, horizon, num_arms, budget):
        """``params`` with the calibrated parameter one ulp towards the stronger claim (by the notion's level, or,
        for a profile no single number orders, by δ at the budget's ε)."""
        value = np.asarray(getattr(params, self.calibrated))

        def key(g):
            try:
                return g.profile.level()
            except TypeError:
                return g.profile.delta_at(budget.epsilon) if budget.epsilon is not None else g.epsilon_at(1e-9)
        steps = [_replace(params, {self.calibrated: np.nextafter(value, np.asarray(x, value.dtype))})
                 for x in (np.inf, -np.inf)]
        return min(steps, key=lambda p: key(self.guarantee(p, horizon, num_arms)))

    def _bisect(self, params, horizon, num_arms, budget) -> float:
        name = self.calibrated
        low, high = self.calibrated_range
        meets = lambda x: self.guarantee(_replace(params, {name: x}), horizon, num_arms).meets(budget)
        # points strictly inside the open range, geometric where it spans decades
        lo = low + 1e-9 * max(1.0, abs(low)) if math.isfinite(low) else -1e6
        hi = high - 1e-9 * max(1.0, abs(high)) if math.isfinite(high) else 1e6
        at_lo, at_hi = meets(lo), meets(hi)
        if at_lo == at_hi:
            if at_lo:
                return hi if self._grows(params, horizon, num_arms, lo, hi) else lo
            raise ValueError(f"no value of {name} in ({low:g}, {high:g}) meets the budget {budget}")
        for _ in range(200):  # the map is monotone: keep the end that meets the budget
            mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 4 else 0.5 * (lo + hi)
            if meets(mid) == at_lo:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-12 * max(abs(hi), 1e-300):
                break
        return lo if at_lo else hi

    def _grows(self, params, horizon, num_arms, a, b) -> bool:
        """Whether the claim gets weaker from ``a`` to ``b``."""
        ga = self.guarantee(_replace(params, {self.calibrated: a}), horizon, num_arms)
        gb = self.guarantee(_replace(params, {self.calibrated: b}), horizon, num_arms)
        return gb.profile.level() >= ga.profile.level()


def _replace(params, values: dict):
    """``params`` (a NamedTuple) with fields replaced, each in its field's dtype (`jaxbandit.types.with_fields`)."""
    from jaxbandit.types import with_fields
    return with_fields(params, values)


def pure_dp(epsilon_of_params: Callable, *, notion: str = "pure-dp", scope: str = "run", protects: str,
            source, calibrated: str | None = "epsilon") -> Accountant:
    """The accountant of an ε-DP (or ε-LDP) component whose level is ``epsilon_of_params(params, horizon,
    num_arms)``; calibrated through its ``epsilon`` parameter by default: in closed form where the level is the
    parameter itself (`epsilon_of`; `Budget.pure_epsilon`), else by bisection (any increasing function of it)."""
    boundary = None
    if epsilon_of_params is epsilon_of and calibrated == "epsilon":
        boundary = lambda budget, params, horizon, num_arms: {"epsilon": budget.pure_epsilon()}
    return Accountant(notion, scope, lambda p, T, K: {"epsilon": float(epsilon_of_params(p, T, K))}, protects,
                      source, calibrated=calibrated, boundary=boundary)


def epsilon_of(params, horizon=None, num_arms=None) -> float:
    """A component's ``epsilon`` parameter as its ε (its claim is the parameter itself)."""
    return float(params.epsilon)


def epsilon_delta_of(delta_scale: float = 1.0):
    """``level`` of an (ε, δ) claim stated by the parameters themselves (seed 003's policies)."""
    def level(params, horizon=None, num_arms=None):
        return {"epsilon": float(params.epsilon), "delta": float(params.delta) * delta_scale}
    return level
