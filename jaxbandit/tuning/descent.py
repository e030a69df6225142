"""`tune`: stochastic gradient descent (optax Adam) on the simulated regret, in the coordinate of a `Space`.

Each step estimates the gradient of the expected pseudo-regret at T in u (`jaxbandit.gradients`): ``"smoothed"``
(default; antithetic pairs with common random numbers, the gradient of the regret averaged over a window of
half-width ``sigma`` in u) or ``"score"`` (unbiased, needs the policy's ``log_prob``; under a budget it is chained
through the boundary: d/du = (∂_x + ∂_c c'(x)) dx/du). Each step simulates fresh runs (a seed per step), so the
optimiser sees independent noise. An integer parameter starts at the best of a pilot grid; the answer is the average
of the last quarter of the iterates (Polyak–Ruppert, past Adam's overshoot), an integer rounded, with the calibrated
parameter as its accountant stores it (`jaxbandit.tuning.space`).
"""
from __future__ import annotations

import math
import time
from typing import Callable, Mapping

import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, gradients
from jaxbandit.accounting.accountants import Budget
from jaxbandit.simulation import MAX_SEED
from jaxbandit.tuning import diagnostics
from jaxbandit.tuning.space import resolve
from jaxbandit.tuning.tuned import Tuned
from jaxbandit.types import with_fields

__all__ = ["tune", "ESTIMATORS"]

#: The gradient estimators `tune` can use (`jaxbandit.gradients`).
ESTIMATORS = ("smoothed", "score")


def tune(env, policy="modified-thompson", *, env_params: Mapping | None = None, policy_params: Mapping | None = None,
         policy_options: Mapping | None = None, privatizer=None, privatizer_params: Mapping | None = None,
         budget: Budget | None = None, eta_budget: float | None = None, epsilon: float | None = None,
         delta: float | None = None, accounting: str = "paper", param: str | None = None,
         bounds: tuple | None = None, horizon: int, runs: int = 32, steps: int = 40, seed: int = 0,
         estimator: str = "smoothed", sigma: float = 0.15, learning_rate: float = 0.25, init: float | None = None,
         pilot: int = 6, progress: bool = False, callback: Callable | None = None) -> Tuned:
    """Tune one parameter of a policy by gradient on the simulated regret, under a privacy budget or without one
    (`jaxbandit.tuning.space`: which parameter, its coordinate, the calibrated one on the budget's boundary).

    Args:
      env, env_params, policy, policy_params, policy_options, privatizer, privatizer_params: as for
        `jaxbandit.simulate`.
      budget: a `jaxbandit.accounting.Budget` (ε and δ, or μ), the policy's accountant calibrating its parameter to
        it; or, the same, ``eta_budget`` (a μ-GDP budget η) or ``epsilon`` and ``delta`` (an (ε, δ)-DP budget;
        ``delta=0``: pure ε-DP). Modified Thompson sampling (the default policy) tunes b with c = c*(b) on the
        boundary; DP-UCB-INT its block parameter ε with v on it; a Laplace policy a free parameter with ε on it.
      accounting: ``"paper"`` or ``"tight"``: the ``accounting`` option of a policy that has one (the private
        Thompson policies: η = sqrt(T/(c(b+1))), seed 001 Lemma 5, or the tight one of
        `jaxbandit.accounting.thompson`).
      param: the parameter to tune: under a budget, default the one the accountant leaves free (b) or the policy's
        only tunable one (`jaxbandit.types.Policy.tunable`); required without a budget, e.g. ``"epsilon"`` of
        epsilon-greedy. Never the parameter the accountant calibrates.
      bounds: its range ``(low, high)``; default the accountant's for the parameter it leaves free (b: [0, b_max],
        b_max the largest b with b·K < T), else (0, 1) where the policy refuses 2, else (0, inf).
      horizon: T. runs: runs per simulated point per step. steps: optimisation steps. seed: root of every draw
        (step i simulates seed-derived keys no other step uses).
      estimator: ``"smoothed"`` or ``"score"`` (`jaxbandit.gradients`). sigma: half-width of the smoothing window
        in u. learning_rate: Adam's step size in u (cosine-decayed to a tenth over the steps).
      init: the starting value of the parameter; default: for an integer (b), the best of ``pilot`` values evenly
        spaced in log(b + 1) over its range, simulated with ``runs`` runs each and common random numbers
        (``pilot=0``: the middle of that range); for a float, the policy's value (its default, or
        ``policy_params``') where it lies inside the range, else the middle of the range in its coordinate.
      pilot: the number of pilot values of an integer parameter (above); 0 for none.
      progress: print a line per step. callback: called with the trace (list of dicts) after every step.

    Returns:
      `Tuned`: ``params`` (the tuned parameter and the calibrated one), the answer's privacy, the trace, and
      ``converged`` from the convergence test (`Tuned.convergence`) with a warning where it failed.

    Raises:
      ValueError: on bad input (a non-positive or infeasible budget, an unknown parameter, a calibrated one, a
        policy with nothing to tune, an unknown estimator or accounting, ...), before any compilation.
    """
    import optax

    t0 = time.perf_counter()
    runs = checks.positive_int("runs", runs, minimum=2)
    steps = checks.positive_int("steps", steps)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    pilot = checks.positive_int("pilot", pilot, minimum=0)
    checks.known_name("estimator", estimator, ESTIMATORS)
    checks.in_range("sigma", sigma, 0.0, low_open=True, high_open=True)
    checks.in_range("learning_rate", learning_rate, 0.0, low_open=True, high_open=True)
    spec, space, _, report_delta, u0 = resolve(
        env, policy, env_params=env_params, policy_params=policy_params, policy_options=policy_options,
        privatizer=privatizer, privatizer_params=privatizer_params, budget=budget, eta_budget=eta_budget,
        epsilon=epsilon, delta=delta, accounting=accounting, param=param, bounds=bounds, horizon=horizon, init=init)
    horizon, K, pol_o, base = spec.horizon, spec.env.num_arms, spec.policy, spec.params
    if estimator == "score" and pol_o.log_prob is None:
        raise ValueError(f"estimator='score' needs the policy's log_prob, which {pol_o.name!r} does not expose: use "
                         "estimator='smoothed'")
    point = space.point
    name = space.names[0]

    seeds = np.random.SeedSequence(seed).generate_state(steps + 1)
    spent, pilot_row = 0, None
    if pilot and space.integer and init is None:  # start at the best of a coarse grid in u
        us = np.linspace(*space.bounds, pilot + 2)[1:-1]
        points = [point(np.array([v]), 0.5) for v in us]
        points += points[-1:] * (len(points) % 2)
        pilot_seed = int(seeds[steps]) % (MAX_SEED + 1)
        # in pairs: the smoothed gradient's compiled program (two points), one seed: common random numbers
        regret = np.concatenate([gradients.final_regret(spec, points[i:i + 2], runs=runs, seed=pilot_seed)
                                 for i in range(0, len(points), 2)])[:pilot]
        spent += regret.size * horizon
        u0 = float(us[int(np.argmin(regret.mean(1)))])
        pilot_row = {"u": us.tolist(), "values": [space.values(np.array([v]), 0.5)[name] for v in us],
                     "regret": regret.mean(1).tolist()}
        if progress:
            print(f"pilot: {pilot} values of {name}, {runs} runs each: start at "
                  f"{name}={space.x(np.array([u0])):.4g}", flush=True)

    schedule = optax.cosine_decay_schedule(learning_rate, steps, alpha=0.1)
    opt = optax.adam(schedule)
    u = jnp.asarray([u0], jnp.float32)
    state = opt.init(u)
    trace, iterates = [], []
    for i in range(steps):
        here = np.asarray(u, np.float64)
        step_seed = int(seeds[i]) % (MAX_SEED + 1)
        if estimator == "smoothed":
            g = gradients.smoothed_gradient(spec, point, here, sigma=sigma, runs=runs, seed=step_seed,
                                            rng=np.random.default_rng(step_seed))
            grad, grad_se = g.grad, g.grad_se
        else:
            at = space.score_at(here)
            g = gradients.score_gradient(spec, at=at, runs=runs, seed=step_seed)
            samples = g.samples @ space.chain(here)
            grad, grad_se = samples.mean(0), samples.std(0, ddof=1) / math.sqrt(len(samples))
        spent += g.agent_steps
        row = {"step": i, "u": float(here[0]), **{k: float(v) for k, v in space.describe(here).items()},
               "regret": g.value, "regret_se": g.value_se, "grad": float(grad[0]), "grad_se": float(grad_se[0]),
               "agent_steps": spent}
        trace.append(row)
        iterates.append(here)
        if progress:
            shown = ", ".join(f"{k}={row[k]:.4g}" for k in space.names)
            print(f"step {i + 1}/{steps}: {shown}, regret {g.value:.4g} ± {g.value_se:.2g}, "
                  f"gradient {grad[0]:.3g} ± {grad_se[0]:.2g}", flush=True)
        if callback is not None:
            callback(trace)
        updates, state = opt.update(jnp.asarray(grad, jnp.float32), state, u)
        u = jnp.clip(optax.apply_updates(u, updates), *space.bounds)
    iterates.append(np.asarray(u, np.float64))
    final_u = np.mean(iterates[-max(1, len(iterates) // 4):], axis=0)  # the last quarter: past Adam's overshoot
    params = space.final(final_u)
    eta = eps = dlt = claim = None
    warned = diagnostics.warn_near_uniform(spec, trace)
    convergence = diagnostics.convergence(trace, space, final_u, sigma)
    if not convergence["converged"]:
        warned.append(diagnostics.not_converged(convergence, space, steps, learning_rate))
    if space.budget is not None:  # the claim of the answer, from the policy's accountant (float64)
        answer = with_fields(base.policy, params)
        claim = pol_o.accountant.guarantee(answer, horizon, K, component=pol_o.name)
        if claim.notion == "gdp":
            dlt = 1e-6 if report_delta is None else report_delta
            eta, eps = claim.mu, claim.epsilon_at(dlt)
        else:
            eps, dlt = claim.epsilon, claim.delta
    # the (ε, δ) budget as requested (``eta_budget`` holds a μ one, or the μ an (ε, δ) one is for a μ-GDP claim)
    asked = (budget.epsilon, budget.delta) if budget is not None and budget.mu is None else (epsilon, delta)
    config = {"env": env if isinstance(env, str) else spec.env.name, "env_params": _plain(env_params),
              "policy": pol_o.name, "policy_params": _plain(policy_params), "policy_options": dict(pol_o.options),
              "privatizer": privatizer if isinstance(privatizer, str) or privatizer is None else spec.privatizer.name,
              "eta_budget": None if space.budget is None else space.budget.mu,
              "budget_epsilon": asked[0], "budget_delta": asked[1], "accounting": accounting,
              "param": name, "horizon": horizon, "runs": runs, "steps": steps,
              "seed": seed, "estimator": estimator, "sigma": sigma, "learning_rate": learning_rate,
              "init": init, "pilot": pilot_row, "final_u": float(final_u[0]), "range": space.range}
    return Tuned(params, eta, eps, dlt, int(spent), trace, config, time.perf_counter() - t0, warned,
                 convergence.pop("converged"), convergence, claim)


def _plain(mapping):
    if mapping is None:
        return None
    return {k: np.asarray(v).tolist() for k, v in dict(mapping).items()}
