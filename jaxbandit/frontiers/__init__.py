"""The privacy–regret frontier of a user's own problem: at each privacy level, which private algorithm, with which
settings, costs how much regret on this instance.

`frontier(env, budgets, horizon=T, delta=δ)` takes an instance (a registered environment and its parameters, or a
user's own `Env`) and privacy levels ε_1, ..., ε_m, and for every private algorithm that applies (`algorithms`):

1. **Calibrates** it at each level from its own accountant (`jaxbandit.accounting.Accountant.calibrate`): the
   privacy-calibrated parameter is put on the budget's boundary, so that the claim meets the level exactly.

   - Central algorithms meet the (ε, δ)-DP budget at the user's δ, through the claim's privacy profile. A pure
     ε'-DP algorithm gets ε' = log((e^ε + δ)/(1 − δ)), the largest ε' whose claim implies (ε, δ) (Kairouz, Oh &
     Viswanath 2015, Thm 2.1). A μ-GDP one gets the μ with δ(ε) = δ (Dong, Roth & Su 2022, Cor. 2.13).
   - Local algorithms meet ε-LDP of each report. Their privacy is the channel's: seed 000's Bernoulli mechanisms,
     seed 002's randomized response, or LDPRSE's own Laplace reports.
   - An algorithm whose level no parameter sets (Gaussian TS: μ = sqrt(T)) enters only at the levels its claim
     meets.

2. **Tunes** the hyperparameters the privacy leaves free, on tuning runs whose seeds no evaluation run uses.

   - A policy's `Policy.tunable` grid (e.g. DP-SE's β, DP-UCB-INT's block length) is searched, with the
     calibration redone at every grid point; the grid point with the least mean regret at T wins.
   - Modified Thompson sampling's b is tuned by gradient (`jaxbandit.tune`), with c = c*(b) on the boundary.

3. **Evaluates** every tuned point on fresh runs (common random numbers across algorithms). It reports the regret
   at T (mean, standard error, quantiles) and along the horizon.

4. **Recommends**, per level, the algorithm with the least mean regret among the points whose claim meets the level
   under the user's notion:

   - ``notion="central"``: whole-run (ε, δ)-DP;
   - ``notion="local"``: ε-LDP of each report.

   Per-round claims (seed 003's DP-FTPL: each round's choice given the history) are evaluated and drawn, marked as
   such. They are never recommended: they are not whole-run protection.

Which algorithms apply:

- every private policy whose reward range holds the instance's rewards (central; LDPRSE is local);
- every pair of an LDP channel and a learner of its reports (local):

  - the plain learners `PLAIN_LEARNERS` with every channel;
  - the channel-aware learners `CHANNEL_AWARE` (seed 002: they invert the channel) with the channel whose
    parameters they take; those parameters are set to the channel's.

- A heavy-tailed algorithm (seed 004) needs the moment bound E|X|^{1+v} ≤ u. On bounded rewards it is set to v = 1
  and u = max_a E[X_a²]. On unbounded rewards the user gives v and u (``policy_params``).

Tuning happens on simulations of the instance the user describes, not on private data: the privacy claims are
about the data the algorithm later runs on.

The package, by job: `catalogue` (which algorithms apply, `Algorithm`, the trust models), `algorithm` (one
algorithm's spec, calibration, tuning, evaluation and audit), `result` (`Frontier`: rows, recommendation, table,
JSON) and `driver` (`frontier`, with resume). `jaxbandit.comparison`, its former name, still imports with a
deprecation warning.
"""
from jaxbandit.frontiers.catalogue import (CHANNEL_AWARE, NOTIONS, PLAIN_LEARNERS, TRUST_MODELS, Algorithm,
                                           algorithms)
from jaxbandit.frontiers.driver import frontier
from jaxbandit.frontiers.result import Frontier

__all__ = ["frontier", "algorithms", "Algorithm", "Frontier", "TRUST_MODELS", "NOTIONS", "PLAIN_LEARNERS",
           "CHANNEL_AWARE", "catalogue", "algorithm", "result", "driver"]
