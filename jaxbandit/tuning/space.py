"""Where the tuners search: the parameter tuned, its coordinate, and the one a privacy budget sets.

Both tuners (`jaxbandit.tuning.tune`, `jaxbandit.tuning.grid`) take a policy and, optionally, a privacy budget, and
resolve them here into a `Space`, with every bad input refused before anything compiles.

**Under a budget** the policy's own accountant (`jaxbandit.accounting.Accountant`) decides, whatever its notion: the
parameter it calibrates (``Accountant.calibrated``: modified Thompson sampling's c, a Laplace policy's ε, DP-UCB-INT's
v) sits on the budget's boundary at every point (`Accountant.boundary_values`, in float64), and the answer's is the
accountant's own (`Accountant.calibrate`, stored in the parameter's dtype), so the answer meets the budget exactly.
One *free* parameter is tuned: ``param``, by default the one the accountant names (``Accountant.tuned``: b) or else
the policy's only tunable one (`jaxbandit.types.Policy.tunable`, e.g. DP-SE's β). A μ-GDP accountant states its
budget in its own notion: an (ε, δ) budget becomes the μ that meets it exactly (`jaxbandit.accounting.gdp.eta_for`;
a μ-GDP claim meets (ε, δ) exactly when μ ≤ η(ε, δ)).

**Without a budget** ``param`` names any parameter of the policy but a privacy-calibrated one (a budget sets that
one: tuning it for regret alone would trade the privacy away); the others keep their values.

**The coordinate u** in which the optimiser moves (the regret's shape in it is closer to a bowl):

- an integer parameter with range [low, high] (b: [0, ⌈T/K⌉ − 1], the accountant's range, or ``bounds``):
  u = log(x − low + 1) (the regret's U-shape in b spans orders of magnitude). The smoothed estimator rounds
  x = e^u − 1 + low at random (a uniform shared by both points of a pair), the score estimator relaxes it
  (`jaxbandit.gradients`), and the answer is rounded to the nearest integer.
- a float parameter with a bounded range (low, high): u = logit((x − low)/(high − low)), u in [−12, 12];
- a float parameter with range (low, ∞): u = log(x − low), u in [−30, 30].

A float parameter's range is ``bounds``, else (0, 1) where the policy refuses the value 2 (a probability: ε-greedy's
ε, DP-SE's β), else (0, ∞). The range of u is then cut to the values the policy accepts and the budget can be met at
(bisection between the start and a refused end): DP-UCB-INT's v, for example, meets a tight budget only for long
enough blocks.
"""
from __future__ import annotations

import dataclasses
import math
import warnings

import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit import spec as specs
from jaxbandit.accounting import gdp
from jaxbandit.accounting.accountants import Budget
from jaxbandit.policies.thompson import ACCOUNTINGS
from jaxbandit.types import SimParams, with_fields

__all__ = ["Space", "resolve", "budget_of"]


def budget_of(budget=None, eta_budget=None, epsilon=None, delta=None) -> tuple[Budget | None, float | None]:
    """The budget as given (a `Budget`, ``eta_budget`` η: μ-GDP, or ``epsilon`` and ``delta``: (ε, δ)-DP, δ = 0 a
    pure ε budget), checked; with the δ at which to report a μ-GDP answer's ε (the budget's, else ``None``)."""
    ways = [name for name, given in (("budget", budget is not None), ("eta_budget", eta_budget is not None),
                                     ("(epsilon, delta)", epsilon is not None or delta is not None)) if given]
    if len(ways) > 1:
        raise ValueError(f"give the budget either as {ways[0]} or as {ways[1]}, not both")
    if budget is not None:
        if not isinstance(budget, Budget):
            raise ValueError(f"budget must be a jaxbandit.accounting.Budget (epsilon and delta, or mu), got "
                             f"{budget!r}")
        return budget, (None if budget.mu is not None else budget.delta)
    if eta_budget is not None:
        checks.in_range("eta_budget", eta_budget, 0.0, low_open=True, high_open=True)
        return Budget(mu=float(eta_budget)), None
    if epsilon is None and delta is None:
        return None, None
    if epsilon is None or delta is None:
        raise ValueError("an (epsilon, delta) budget needs both epsilon and delta (delta=0: a pure epsilon budget)")
    checks.in_range("epsilon", epsilon, 0.0, low_open=True, high_open=True)
    checks.in_range("delta", delta, 0.0, 1.0, high_open=True)
    return Budget(epsilon=float(epsilon), delta=float(delta)), float(delta)


def _in_notion(budget: Budget, accountant, name: str) -> Budget:
    """``budget`` in the accountant's notion where that is μ-GDP: the μ meeting (ε, δ) exactly (module docstring)."""
    if accountant.notion != "gdp" or budget.mu is not None:
        return budget
    if budget.delta == 0:
        raise ValueError(f"a pure epsilon budget (epsilon={budget.epsilon:g}, delta=0) cannot be met by the mu-GDP "
                         f"claim of policy {name!r}: give delta > 0 or eta_budget")
    import jax
    with jax.enable_x64(True):  # the exact conversion, in float64
        return Budget(mu=float(gdp.eta_for(budget.epsilon, budget.delta)))


@dataclasses.dataclass
class Space:
    """One free parameter of a policy in its coordinate u, and the calibrated one on the budget's boundary (module
    docstring). Host side; ``u`` is f[1].

    Attributes:
      spec: the resolved configuration (its params: the policy's values of the parameters not tuned).
      free: the parameter tuned. integer: whether it is an integer (its dtype).
      low, high: its range (an integer's closed, a float's open).
      bounds: the range of u (cut to the values the policy accepts and the budget can be met at).
      accountant, budget: the policy's accountant and the budget in its notion, or ``None`` without a budget.
      calibrated: the parameter on the budget's boundary, or ``None`` without a budget.
      names: ``(free, calibrated)``, or ``(free,)``: the parameters a point sets.
      range: ``[low, high]`` as `jaxbandit.tuning.Tuned` records it (the ends of the cut range where `cut` cut it).
      cut_to: the cut bounds of u, to which u is clipped, or ``None`` where nothing was cut.
    """

    spec: specs.Spec
    free: str
    integer: bool
    low: float
    high: float
    accountant: object = None
    budget: Budget | None = None

    def __post_init__(self):
        self.calibrated = self.accountant.calibrated if self.budget is not None else None
        self.names = (self.free,) + ((self.calibrated,) if self.calibrated else ())
        self.horizon, self.num_arms = self.spec.horizon, self.spec.env.num_arms
        if self.integer:
            self.bounds = (0.0, math.log(self.high - self.low + 1))
        else:
            self.bounds = (-12.0, 12.0) if math.isfinite(self.high) else (-30.0, 30.0)
        self.range = [self.low, self.high]
        self.cut_to = None  # the bounds of u after `cut`, where it cut them: u is clipped to them

    # ---------------------------------------------------------------------------------------------- coordinates
    def x(self, u) -> float:
        """The free parameter at u (an integer's relaxed, real value)."""
        v = float(u[0])
        if self.cut_to is not None:  # the smoothed estimator's window reaches σ past the bounds
            v = min(max(v, self.cut_to[0]), self.cut_to[1])
        if self.integer:
            return self.low + float(np.clip(math.expm1(v), 0.0, self.high - self.low))
        if math.isfinite(self.high):
            return self.low + (self.high - self.low) / (1 + math.exp(-v))
        return self.low + math.exp(v)

    def to_u(self, x) -> float:
        if self.integer:
            return math.log1p(x - self.low)
        if math.isfinite(self.high):
            f = (x - self.low) / (self.high - self.low)
            return math.log(f / (1 - f))
        return math.log(x - self.low)

    def dx_du(self, x) -> float:
        if self.integer:
            return x - self.low + 1.0
        if math.isfinite(self.high):
            return (x - self.low) * (self.high - x) / (self.high - self.low)
        return x - self.low

    # --------------------------------------------------------------------------------------- the budget's boundary
    def on_boundary(self, x) -> dict:
        """``{calibrated: value}`` on the budget's boundary at a (relaxed) value x of the free parameter (float64);
        ``{}`` without a budget."""
        if self.calibrated is None:
            return {}
        params = self.spec.params.policy._replace(**{self.free: x})
        return {self.calibrated: float(self.accountant.boundary_values(params, self.horizon, self.num_arms,
                                                                       self.budget)[self.calibrated])}

    def slope(self, x) -> float:
        """d calibrated / d free by a central difference of the boundary (0 where it is flat, e.g. at its floor)."""
        if self.integer:
            h = 1e-4 * max(1.0, x)
            lo = max(x - h, float(self.low))
        else:
            h = 1e-4 * min(x - self.low, self.high - x, max(1.0, x))
            lo = x - h
        at = lambda v: self.on_boundary(v)[self.calibrated]
        return (at(x + h) - at(lo)) / (x + h - lo)

    # --------------------------------------------------------------------------------------------- the points
    def values(self, u, rounding) -> dict:
        """The parameters simulated at u: an integer rounded down after adding ``rounding`` (a uniform in [0, 1),
        or 0.5: to the nearest), the calibrated one on the boundary at that value."""
        x = self.x(u)
        if self.integer:
            x = min(math.floor(x + rounding), self.high)
        return {self.free: x, **self.on_boundary(x)}

    def describe(self, u) -> dict:
        """The parameters at u, an integer relaxed (the trace's row)."""
        x = self.x(u)
        return {self.free: x, **self.on_boundary(x)}

    score_at = describe

    def final(self, u) -> dict:
        """The answer at u: an integer rounded to the nearest, the calibrated parameter as stored, meeting the
        budget (`Accountant.calibrate`)."""
        x = int(round(self.x(u))) if self.integer else self.x(u)
        if self.calibrated is None:
            return {self.free: x}
        base = self.spec.params.policy
        params = base._replace(**{self.free: jnp.asarray(x, getattr(base, self.free).dtype)})
        calibrated = self.accountant.calibrate(params, self.horizon, self.num_arms, self.budget)
        return {self.free: x, self.calibrated: checks.as_written(getattr(calibrated, self.calibrated))}

    def chain(self, u) -> np.ndarray:
        """Weights w with d/du = (∂/∂free, ∂/∂calibrated) · w on the boundary: (∂_x + ∂_c c'(x)) dx/du."""
        x = self.x(u)
        dx = self.dx_du(x)
        if self.calibrated is None:
            return np.array([[dx]])
        return np.array([[dx], [self.slope(x) * dx]])

    def point(self, u, rounding) -> SimParams:
        """The simulated point at u (``(u, rounding) -> SimParams``, as `jaxbandit.gradients.smoothed_gradient`
        takes)."""
        base = self.spec.params
        values = self.values(u, rounding)
        inner = with_fields(base.policy, values)
        if self.calibrated is not None:  # stored inside its open range, as `Accountant.calibrate` stores it
            inner = self.accountant.within_range(inner)
        return SimParams(base.env, inner, base.privatizer)

    # ------------------------------------------------------------------------------------------------ the range
    def check(self, u, roundings=(0.5,)) -> None:
        """Raise the policy's (or the accountant's) ValueError where a point at u is refused (an integer rounded
        with each of ``roundings``)."""
        self.spec.with_points([self.point(np.array([u]), r) for r in roundings])

    def cut(self, u0: float) -> None:
        """Cut the range of u to the values the policy accepts and the budget can be met at, by bisection between
        ``u0`` (accepted) and each refused end; the range recorded (``range``) follows."""
        def ok(u):
            with warnings.catch_warnings():  # a probe: the points simulated warn for themselves
                warnings.simplefilter("ignore")
                try:  # an integer: both neighbours, which the smoothed estimator's random rounding reaches
                    self.check(u, (0.0, 1.0 - 1e-9) if self.integer else (0.5,))
                    return True
                except ValueError:
                    return False

        bounds = list(self.bounds)
        for i in (0, 1):
            if ok(bounds[i]):
                continue
            good, bad = u0, bounds[i]
            for _ in range(40):
                mid = 0.5 * (good + bad)
                good, bad = (mid, bad) if ok(mid) else (good, mid)
            bounds[i] = good
        if bounds != list(self.bounds):
            self.bounds = self.cut_to = tuple(bounds)
            ends = [self.values(np.array([b]), 0.5 if self.integer else 0.0)[self.free] for b in bounds]
            self.range = ends


def _fields(policy) -> list:
    """The policy's parameters that hold a value (not those the run binds: the horizon, β = 1/T)."""
    return [f for f in policy.default_params._fields if getattr(policy.default_params, f) is not None]


def _free(pol, param, budget, policy_params) -> str:
    """The free parameter: ``param``, checked, or the default under a budget (module docstring)."""
    accountant = pol.accountant
    fields = _fields(pol)
    calibrated = accountant.calibrated if accountant is not None else None
    choices = [f for f in fields if f != calibrated]
    named = accountant.tuned[0] if accountant is not None and accountant.tuned else None
    listed = ", ".join(choices) or "none"
    if budget is not None:
        if accountant is None:
            raise ValueError(f"a privacy budget tunes a private policy on the budget's boundary; policy {pol.name!r} "
                             "is not private (it has no accountant): tune one of its parameters with param= and no "
                             "budget")
        if calibrated is None or calibrated not in fields:
            what = (f"its level is set by its design, not by a parameter ({calibrated} is fixed)" if calibrated
                    else "no single parameter sets its level")
            raise ValueError(f"a privacy budget needs a parameter the policy's accountant calibrates to it; policy "
                             f"{pol.name!r} has none ({what}): tune it without a budget, with param=")
    if param is None:
        if budget is None:
            raise ValueError(f"give a budget (budget, eta_budget, or epsilon and delta) to tune a private policy's "
                             f"free parameter with the calibrated one on the budget's boundary, or param= to tune "
                             f"one parameter of {pol.name!r} ({listed})")
        tunable = [f for f in dict(pol.tunable) if f in choices]
        default = (named if named in choices else tunable[0] if len(tunable) == 1 else
                   choices[0] if len(choices) == 1 else None)
        if default is None:
            if not choices:
                raise ValueError(f"param=None: policy {pol.name!r} has no free parameter to tune under a budget (its "
                                 f"only parameter, {calibrated}, is calibrated to the budget); the valid choices: "
                                 "none")
            raise ValueError(f"param=None: policy {pol.name!r} has several free parameters; give param=, one of "
                             f"{listed}")
        param = default
    elif param not in pol.default_params._fields:
        raise ValueError(f"param={param!r}: policy {pol.name!r} has no parameter {param!r}; the valid choices: "
                         f"{listed}")
    elif param == calibrated:
        raise ValueError(f"param={param!r} is the parameter that the accountant of policy {pol.name!r} calibrates "
                         f"to a privacy budget (the budget sets it, on its boundary), so it is not tuned; the valid "
                         f"choices: {listed}")
    elif param not in fields:
        raise ValueError(f"param={param!r}: the run sets {param} of policy {pol.name!r} (from the horizon); the "
                         f"valid choices: {listed}")
    if budget is not None:
        fixed = sorted(set(policy_params or {}) & {param, calibrated})
        if fixed:
            raise ValueError(f"policy_params fixes {', '.join(fixed)}, which the tuner sets under a budget ({param} "
                             f"tuned, {calibrated} on the budget's boundary): leave them out")
    return param


def _range(spec, free, integer, bounds):
    """The free parameter's range: ``bounds``, the accountant's for the parameter it leaves free, or the default
    (module docstring)."""
    pol, base = spec.policy, spec.params.policy
    accountant = pol.accountant
    if bounds is not None:
        low, high = bounds
        if not low < high:
            raise ValueError(f"bounds={bounds} must be (low, high) with low < high")
        return (int(low), int(high)) if integer else (float(low), float(high))
    if accountant is not None and accountant.tuned and accountant.tuned[0] == free:
        low, high = accountant.tuned[1](spec.horizon, spec.env.num_arms)
        return (int(low), int(high)) if integer else (float(low), float(high))
    if integer:
        raise ValueError(f"param={free!r} is an integer parameter of policy {pol.name!r} with no range its "
                         "accountant states: give bounds=(low, high)")
    try:
        pol.validate(base._replace(**{free: jnp.asarray(2.0, getattr(base, free).dtype)}))
        return 0.0, math.inf
    except ValueError:
        return 0.0, 1.0


def resolve(env, policy, *, env_params, policy_params, policy_options, privatizer, privatizer_params, budget,
            eta_budget, epsilon, delta, accounting, param, bounds, horizon, init=None, start=True):
    """The resolved spec (once), its `Space`, the budget as requested (``None`` without one), the δ at which to
    report a μ-GDP answer, and, with ``start``, the start u0, checked, with the range of u cut to the values that
    can be simulated (`Space.cut`; ``None`` without ``start``: `jaxbandit.tuning.grid` has no start).
    `jaxbandit.tuning.tune`'s arguments; every check before compiling."""
    horizon = checks.positive_int("horizon", horizon)
    checks.known_name("accounting", accounting, ACCOUNTINGS)
    requested, report_delta = budget_of(budget, eta_budget, epsilon, delta)
    options = dict(policy_options or {})
    if isinstance(policy, str) and "accounting" in _option_names(policy):
        options.setdefault("accounting", accounting)
    elif accounting != "paper":
        raise ValueError(f"accounting={accounting!r} is an option of the private Thompson policies; policy "
                         f"{getattr(policy, 'name', policy)!r} has none")
    spec = specs.resolve(env, policy, privatizer, env_params=env_params, policy_params=policy_params,
                         policy_options=options, privatizer_params=privatizer_params, horizon=horizon)
    pol = spec.policy
    free = _free(pol, param, requested, policy_params)
    integer = bool(np.issubdtype(np.asarray(getattr(pol.default_params, free)).dtype, np.integer))
    low, high = _range(spec, free, integer, bounds)
    in_notion = _in_notion(requested, pol.accountant, pol.name) if requested is not None else None
    space = Space(spec, free, integer, low, high, pol.accountant if requested is not None else None, in_notion)
    if not start:
        return spec, space, requested, report_delta, None
    if integer:
        if init is not None:
            checks.in_range("init", init, low, high)
        u0 = space.to_u(init) if init is not None else sum(space.bounds) / 2
    else:
        if init is not None:
            checks.in_range("init", init, low, high, low_open=True, high_open=True)
        current = float(getattr(spec.params.policy, free))
        # init, else the policy's value where it lies inside the range, else the range's middle (logit 0) or low + 1
        u0 = space.to_u(init) if init is not None else (space.to_u(current) if low < current < high else 0.0)
    try:  # the start's own error (the policy's, or no calibrated value meets the budget there)
        space.check(u0)
    except ValueError as err:
        raise ValueError(f"at the start, {free}={space.x(np.array([u0])):.6g}: {err} (give init=, a value of {free} "
                         "the policy accepts and the budget can be met at)") from None
    space.cut(u0)
    return spec, space, requested, report_delta, u0


def _option_names(name):
    from jaxbandit import policies
    return policies.option_names(name)
