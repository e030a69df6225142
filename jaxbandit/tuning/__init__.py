"""Tune a policy's parameter on the simulated regret, under any accountant's privacy budget or without one.

One interface for every policy: `tune` (stochastic gradient descent with optax on the simulated regret) and `grid`
(the exhaustive search it is checked against) take a policy, one of its parameters (``param``) and, optionally, a
privacy budget (a `jaxbandit.accounting.Budget`, ``eta_budget`` or ``epsilon``/``delta``). Under a budget the
policy's own accountant decides: the parameter it calibrates (``Accountant.calibrated``) sits on the budget's
boundary at every point and the free one is tuned, so the answer meets the budget exactly. For modified Thompson
sampling (seed 001, Algorithm 2, the default policy) that is b, an integer tuned in u = log(b + 1), with
c = c*(b), the smallest c ≥ 1 meeting the budget; for DP-UCB-INT its block parameter ε with v on the boundary; for a
Laplace policy (DP-SE, lazy-UCB, ...) its free parameter with ε on the boundary. The answer, `Tuned`, holds every
parameter it set in ``Tuned.params``, the answer's privacy, the trace, a convergence test and warnings; it saves as
JSON and loads back.

The jobs, one module each:

- `jaxbandit.tuning.space`: which parameter is tuned, in which coordinate, the calibrated one on the boundary, and
  every bad input refused before anything compiles;
- `jaxbandit.tuning.descent`: `tune`;
- `jaxbandit.tuning.grids`: `grid`, and `grid_values` (a grid over the range a `Tuned` searched);
- `jaxbandit.tuning.search`: `expanding_search`, the frontier's grid search over several parameters that goes
  beyond its grid's edges and refines;
- `jaxbandit.tuning.tuned`: `Tuned` and its file (`Tuned.save`, `Tuned.load`);
- `jaxbandit.tuning.diagnostics`: the convergence test and the near-uniform warning (`near_uniform`, which the
  frontier's rows use too).
"""
from jaxbandit.policies.thompson import ACCOUNTINGS
from jaxbandit.tuning.diagnostics import UNIFORM_FRACTION, near_uniform
from jaxbandit.tuning.descent import ESTIMATORS, tune
from jaxbandit.tuning.grids import Grid, grid, grid_values
from jaxbandit.tuning.tuned import TUNED_FORMAT, TUNED_VERSION, Tuned

__all__ = ["tune", "Tuned", "grid", "Grid", "grid_values", "near_uniform", "ESTIMATORS", "ACCOUNTINGS",
           "UNIFORM_FRACTION"]
