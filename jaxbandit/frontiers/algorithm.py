"""One algorithm of the frontier at its levels: the spec it runs under (the epoch simulator where it applies), its
calibration on the budget's boundary, its tuning (a grid of its tunable parameters, or the gradient where that
is cheaper), its evaluation on fresh runs, and its audit."""
from __future__ import annotations

import math
import os
import time

import numpy as np

from jaxbandit import checks, policies, privatizers
from jaxbandit import spec as specs
from jaxbandit.accounting.accountants import Budget
from jaxbandit.simulation import MAX_SEED, run_spec
from jaxbandit.frontiers.catalogue import SCOPE_OF, instance_of, moment_params
from jaxbandit.tuning.diagnostics import near_uniform
from jaxbandit.tuning.search import MAX_EXPANSIONS, Confirm, expanding_search
from jaxbandit.types import with_fields

QUANTILES = (0.1, 0.5, 0.9)  # the regret quantiles a row reports
CONFIRM_FACTOR = 2  # the confirmation of a search's best points: this many times its tuning runs
GROUP_RUNS = 200  # runs per simulation of the search (`_simulated_means`): one compilation for all its rounds


def _budget(alg, accountant, level, delta) -> Budget:
    """The level as a budget: ε-LDP for a local algorithm whose claim is pure (a channel, or ``accountant``'s notion
    ``"ldp"``/``"pure-dp"``), (ε, δ) at the user's δ for every other (a Gaussian report's local claim included)."""
    if alg.trust == "local" and (alg.private == "privatizer" or accountant.notion in ("ldp", "pure-dp")):
        return Budget(epsilon=level)
    return Budget(epsilon=level, delta=delta)


def _spec(alg, env, env_params, horizon, record, given, options):
    """The algorithm's resolved spec: the epoch simulator where it applies (the same law, faster), pseudo-regret."""
    env_o, env_p, support = instance_of(env, env_params)
    pol = policies.get(alg.policy, env_o.num_arms, env_o.dim, **options)
    moments, _ = moment_params(pol, env_o, env_p, support, given)
    kw = dict(env_params=env_params, policy_params={**moments, **given}, policy_options=options, horizon=horizon,
              record=record, realized=False)
    epochs = specs.SIMULATORS["epochs"]
    simulator = "steps" if epochs.unsupported(env_o, pol, None if alg.privatizer == "identity" else
                                              privatizers.make(alg.privatizer)[0]) else "epochs"
    return specs.resolve(env, alg.policy, alg.privatizer, simulator=simulator, **kw)


def bind_point(spec, point):
    """``point`` (a `jaxbandit.SimParams`) validated and bound to the spec's horizon (its run-decided parameters)."""
    return spec.with_points([point]).points[0]


def _calibrated_point(alg, spec, point, level, delta, given, why=None):
    """``point`` with the private component's calibrated parameter on the level's boundary, the channel's
    parameters copied to a channel-aware learner; ``None`` where no valid value meets the level (the reason in
    ``why[level]`` where ``why`` is a dict)."""
    def fail(reason):
        if why is not None:
            why[level] = reason
        return None

    accountant = getattr(spec, alg.private).accountant
    params = getattr(point, alg.private)
    K, T = spec.env.num_arms, spec.horizon
    name = accountant.calibrated
    try:
        if name is None or name not in params._fields or name in given:  # the level is fixed by the rest
            bound = bind_point(spec, point)
            claim = accountant.guarantee(getattr(bound, alg.private), T, K)
            return bound if claim.meets(_budget(alg, accountant, level, delta)) else fail(
                f"its claim at its parameters ({claim.describe()}) does not meet it")
        bound_params = getattr(bind_point(spec, point), alg.private)
        calibrated = accountant.calibrate(bound_params, T, K, _budget(alg, accountant, level, delta))
        values = {f: getattr(calibrated, f) for f in calibrated._fields if getattr(calibrated, f) is not None}
        point = point._replace(**{alg.private: params._replace(**values)})
        if alg.private == "privatizer":  # a channel-aware learner takes the channel's own parameters
            shared = set(point.privatizer._fields) & set(point.policy._fields)
            if shared:
                point = point._replace(policy=point.policy._replace(
                    **{f: np.asarray(getattr(point.privatizer, f), np.asarray(getattr(point.policy, f)).dtype)
                       for f in shared}))
        return bind_point(spec, point)  # validates: a level beyond the parameter's valid range is refused here
    except ValueError as err:
        return fail(str(err))


def _tune_search(alg, spec, levels, delta, given, tuning_runs, tuning_seed, confirm_seed, why, say):
    """The policy's tunable parameters (those the user fixed left out) at every level by `expanding_search`, the
    calibrated one on the level's boundary at every point, the levels' rounds batched into one simulation each, on
    the tuning seed's runs, its best points confirmed on `CONFIRM_FACTOR` times as many runs of the confirmation
    seed; ``(chosen, tuning, spent, warnings)`` per level, as `_tune_gradient`."""
    grids = {k: v for k, v in dict(spec.policy.tunable).items() if k not in given}
    integer = {k for k in grids if np.issubdtype(np.asarray(getattr(spec.params.policy, k)).dtype, np.integer)}
    chosen, tuning, spent, warns = {}, {}, {}, {}
    if not grids:
        for level in levels:
            point = _calibrated_point(alg, spec, spec.params, level, delta, given, why)
            if point is not None:
                chosen[level], tuning[level], spent[level], warns[level] = point, {"method": "none"}, 0, []
        return chosen, tuning, spent, warns
    points = {}  # (level, values) -> its calibrated point

    def valid_at(level):
        def valid(values):
            base = spec.params._replace(policy=with_fields(spec.params.policy, values, host=True))
            point = _calibrated_point(alg, spec, base, level, delta, given, why)
            points[(level, _values_key(values))] = point
            return point is not None
        return valid

    searches = {level: expanding_search(grids, valid_at(level), integer=integer) for level in levels}
    asked = {}
    for level, search in list(searches.items()):
        try:
            asked[level] = next(search)
        except StopIteration as done:
            searches.pop(level)
            _searched(level, done.value, tuning_runs, spec.horizon, chosen, tuning, spent, warns, points)
    confirm_runs = CONFIRM_FACTOR * tuning_runs
    say(f"tuning {', '.join(sorted(grids))} by an expanding grid search, {tuning_runs} runs a point, the best "
        f"confirmed on {confirm_runs} others")
    while asked:
        means = {}
        for confirming, runs, seed in ((False, tuning_runs, tuning_seed), (True, confirm_runs, confirm_seed)):
            group = [lv for lv in asked if isinstance(asked[lv], Confirm) == confirming]
            batch = [points[(lv, _values_key(v))] for lv in group for v in asked[lv]]
            if not batch:
                continue
            mean = _simulated_means(spec, batch, runs, seed)
            i = 0
            for level in group:
                means[level] = [float(m) for m in mean[i:i + len(asked[level])]]
                i += len(asked[level])
        following = {}
        for level in asked:
            try:
                following[level] = searches[level].send(means[level])
            except StopIteration as done:
                _searched(level, done.value, tuning_runs, spec.horizon, chosen, tuning, spent, warns, points,
                          confirm_runs)
        asked = following
    return chosen, tuning, spent, warns


def _values_key(values) -> tuple:
    return tuple(sorted((k, float(v)) for k, v in values.items()))


def _simulated_means(spec, points, runs, seed) -> np.ndarray:
    """The mean final regret of each point on runs 0..runs − 1 of ``seed``, simulated in groups of `GROUP_RUNS`
    runs (the last group padded with its last point): every round of the search and the confirmation then share
    one compiled program (about 10 s per shape at 101 arms), and at most one group's share is padding. A run's
    numbers do not depend on its batch."""
    per = max(GROUP_RUNS // runs, 1)
    means = []
    for i in range(0, len(points), per):
        group = points[i:i + per]
        padded = group + [group[-1]] * (per - len(group))
        means.extend(run_spec(spec.with_points(padded), runs=runs, seed=seed, progress=False).final().mean(1)[
            :len(group)])
    return np.asarray(means)


def _searched(level, result, tuning_runs, horizon, chosen, tuning, spent, warns, points, confirm_runs=0) -> None:
    """One level's search result into the tuning records (nothing where no grid point was valid there)."""
    if result is None:
        return
    chosen[level] = points[(level, _values_key(result.best))]
    tuning[level] = {"method": "expanding grid search", "runs": tuning_runs, "rounds": result.rounds,
                     "values": [v for v, _ in result.points], "regret": [m for _, m in result.points],
                     "status": dict(result.status), "confirmation_runs": confirm_runs if result.confirmed else 0,
                     "confirmed": [{"values": v, "regret": m} for v, m in result.confirmed]}
    spent[level] = (len(result.points) * tuning_runs + len(result.confirmed) * confirm_runs) * horizon
    warns[level] = [f"the best {n} = {result.best[n]:g} is at an end of its search that could still move (after "
                    f"{MAX_EXPANSIONS} steps beyond its grid): not recommended" for n in result.movable()]


def run_algorithm(alg, env, env_params, levels, delta, horizon, runs, tuning_runs, tuning_steps, tuning_seed, eval_seed,
         record, given, options, out, progress, label, confirm_seed, by_gradient=False) -> dict:
    """Calibrate, tune and evaluate one algorithm at every level."""
    say = (lambda msg: print(f"{label}: {msg}", flush=True)) if progress else (lambda msg: None)
    try:
        spec = _spec(alg, env, env_params, horizon, record, given, options)
    except ValueError as err:  # its defaults cannot run this instance (DP-FTPL's start phase longer than T)
        return {"rows": [], "reason": f"its default parameters cannot run here: {err}", "tuning_seconds": 0.0,
                "evaluation_seconds": 0.0}
    K = spec.env.num_arms
    means = np.asarray(spec.env.means(spec.params.env), np.float64)
    accountant = getattr(spec, alg.private).accountant
    # the gradient where asked (``by_gradient``) for the parameter the accountant leaves free, else the search
    gradient = (by_gradient and alg.private == "policy" and accountant.tuned is not None
                and accountant.calibrated is not None and accountant.calibrated in spec.params.policy._fields
                and not {accountant.calibrated, accountant.tuned[0]} & set(given))
    t0 = time.perf_counter()
    chosen, tuning, spent, warns, why = {}, {}, {}, {}, {}
    if gradient:
        chosen, tuning, spent, warns = _tune_gradient(alg, spec, env, env_params, levels, delta, horizon,
                                                      tuning_runs, tuning_steps, tuning_seed, given, options, say)
    else:
        chosen, tuning, spent, warns = _tune_search(alg, spec, levels, delta, given, tuning_runs, tuning_seed,
                                                    confirm_seed, why, say)
    tuning_seconds = time.perf_counter() - t0
    if not chosen:
        last = f"; at epsilon = {levels[-1]:g}: {why[levels[-1]]}" if levels[-1] in why else ""
        return {"rows": [], "reason": f"no parameter value meets any of the levels {levels} "
                f"({_claim_text(alg, spec, spec.params, delta)}){last}", "tuning_seconds": tuning_seconds,
                "evaluation_seconds": 0.0}
    met = [lv for lv in levels if lv in chosen]
    say(f"evaluating {len(met)} level{'s' * (len(met) > 1)} x {runs} runs")
    t1 = time.perf_counter()
    res = run_spec(spec.with_points([chosen[lv] for lv in met]), runs=runs, seed=eval_seed, progress=False)
    evaluation_seconds = time.perf_counter() - t1
    if out:
        res.save(os.path.join(out, "results", alg.name))
    final = res.final()
    rows = []
    for i, level in enumerate(met):
        point = chosen[level]
        claim = accountant.guarantee(getattr(point, alg.private), horizon, K, component=alg.name)
        budget = _budget(alg, accountant, level, delta)
        # a claim with no ε of its own (μ-GDP, zCDP, RDP) is shown through its profile at the user's δ
        eps, dlt = ((claim.epsilon_at(delta), delta) if claim.epsilon is None else (claim.epsilon, claim.delta))
        x = final[i]
        warned = list(warns.get(level, []))
        uniformly = near_uniform(float(x.mean()), means, horizon, "evaluated")
        if uniformly:
            warned.append(uniformly)
        rows.append({"algorithm": alg.name, "family": alg.trust, "notion": claim.notion, "scope": claim.scope,
                     "claim": claim.describe(), "epsilon": eps, "delta": dlt, "mu": claim.mu, "level": level,
                     "meets": bool(claim.meets(budget) and claim.scope == SCOPE_OF[alg.trust]),
                     "params": _point_params(alg, point), "tuning": tuning[level],
                     "regret_mean": float(x.mean()), "regret_se": float(x.std(ddof=1) / math.sqrt(len(x))),
                     "regret_quantiles": {f"{q:g}": float(v) for q, v in zip(QUANTILES, np.quantile(x, QUANTILES))},
                     "runs": runs, "tuning_agent_steps": int(spent[level]), "warnings": warned,
                     "evaluations": [{"seed": eval_seed, "regret": _finals(x)}],
                     "movable_edge": sorted(n for n, st in tuning[level].get("status", {}).items()
                                            if st == "movable edge"),
                     "best_of_family": False, "recommended": False, "comparisons": []})
    skipped_levels = {lv: why.get(lv, "no parameter value meets it") for lv in levels if lv not in chosen}
    for lv, reason in skipped_levels.items():
        say(f"not at epsilon = {lv:g}: {reason}")
    say(f"done in {tuning_seconds + evaluation_seconds:.1f} s (tuning {tuning_seconds:.1f} s)")
    curve = {"t": res.t.tolist(), "levels": met, "mean": res.mean().tolist(), "se": res.se().tolist()}
    return {"rows": rows, "curve": curve, "tuning_seconds": tuning_seconds, "evaluation_seconds": evaluation_seconds,
            "skipped_levels": skipped_levels}


def _finals(x) -> list:
    """Per-run final regrets as JSON numbers (9 significant digits: a float32 read back exactly)."""
    return [float(f"{v:.9g}") for v in np.asarray(x, np.float64)]


def set_regret(row, quantiles=QUANTILES) -> None:
    """``row``'s regret mean, standard error, quantiles and run count from all of its ``evaluations``."""
    x = np.concatenate([np.asarray(e["regret"], np.float64) for e in row["evaluations"]])
    row.update(regret_mean=float(x.mean()), regret_se=float(x.std(ddof=1) / math.sqrt(len(x))), runs=int(len(x)),
               regret_quantiles={f"{q:g}": float(v) for q, v in zip(quantiles, np.quantile(x, quantiles))})


def evaluate_more(alg, env, env_params, horizon, record, given, options, rows, runs, seed) -> None:
    """Simulate ``runs`` more runs (seed ``seed``) of ``alg`` at the points of its ``rows`` (their levels), and add
    them to each row's ``evaluations`` and regret. The points are rebuilt from the rows' parameters, as tuned and
    calibrated (tests/test_frontier.py checks that the evaluation seed gives the rows' own runs back)."""
    spec = _spec(alg, env, env_params, horizon, record, given, options)
    points = [_row_point(alg, spec, r) for r in rows]
    final = run_spec(spec.with_points(points), runs=runs, seed=seed, progress=False).final()
    for row, x in zip(rows, final):
        row["evaluations"].append({"seed": int(seed), "regret": _finals(x)})
        set_regret(row)


def _row_point(alg, spec, row):
    """The `jaxbandit.SimParams` of ``row`` (its tuned and calibrated parameters on the spec's defaults; those the
    horizon decides, unset in the defaults, bound again)."""
    def fields(params, values):
        return with_fields(params, {k: v for k, v in values.items() if getattr(params, k) is not None}, host=True)
    point = spec.params._replace(policy=fields(spec.params.policy, row["params"]["policy"]))
    if "privatizer" in row["params"]:
        point = point._replace(privatizer=fields(point.privatizer, row["params"]["privatizer"]))
    return bind_point(spec, point)


def _tune_gradient(alg, spec, env, env_params, levels, delta, horizon, tuning_runs, tuning_steps, tuning_seed,
                   given, options, say):
    """Modified Thompson sampling: b by gradient at each level, c = c*(b) on the boundary (`jaxbandit.tune`)."""
    import warnings
    from jaxbandit import tuning as tuner
    accountant = spec.policy.accountant
    free, calibrated = accountant.tuned[0], accountant.calibrated
    chosen, how, spent, warns = {}, {}, {}, {}
    if delta == 0:
        return chosen, how, spent, warns  # a GDP claim meets no pure ε budget
    seeds = np.random.SeedSequence(tuning_seed).generate_state(len(levels))
    for level, s in zip(levels, seeds):
        say(f"tuning {free} by gradient at epsilon = {level:g}: {tuning_steps} steps x {tuning_runs} runs")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                tuned = tuner.tune(env, alg.policy, env_params=env_params, policy_params=given or None,
                                   policy_options=options or None, epsilon=level, delta=delta, horizon=horizon,
                                   runs=tuning_runs, steps=tuning_steps, seed=int(s) % (MAX_SEED + 1),
                                   accounting=options.get("accounting", "paper"))
            except ValueError:
                continue
        values = {free: tuned.params[free], calibrated: tuned.params[calibrated]}
        point = spec.params._replace(policy=with_fields(spec.params.policy, values, host=True))
        chosen[level] = bind_point(spec, point)
        how[level] = {"method": "gradient", "parameter": free, "steps": tuning_steps, "runs": tuning_runs,
                      "pilot": tuned.config["pilot"], "trace": [round(row[free], 3) for row in tuned.trace],
                      "converged": tuned.converged}
        spent[level] = tuned.agent_steps
        warns[level] = list(tuned.warnings) + [str(w.message) for w in caught if str(w.message) not in tuned.warnings]
    return chosen, how, spent, warns


def audit_row(alg, row, seed) -> dict | None:
    """The audit of the row's private component at its parameters: the first audit its registration lists (its own,
    or its mechanism's: DPRSE's epoch mean), with ``{"name", "lower_bound", "claim", "claim_kind", "violated",
    "trials"}``; ``None`` where it lists none."""
    import inspect
    from jaxbandit.audit import components, montecarlo
    listed = components.for_component(alg.private, alg.policy if alg.private == "policy" else alg.privatizer)
    if not listed:
        return None
    name = listed[0]
    params = row["params"][alg.private]
    accepted = inspect.signature(components.REGISTRY[name]).parameters
    audit = components.make(name, **{k: v for k, v in params.items() if k in accepted and k != "bug"})
    result = montecarlo.run(audit, seed=seed)
    return {"name": name, "lower_bound": result.lower_bound, "claim": result.claim,
            "claim_kind": result.claim_kind, "violated": bool(result.violated), "trials": result.trials}


def _point_params(alg, point) -> dict:
    out = {"policy": _plain(point.policy)}
    if alg.privatizer != "identity":
        out["privatizer"] = _plain(point.privatizer)
    return out


def _plain(params) -> dict:
    """A params NamedTuple's set fields as JSON numbers, as the user writes them (`jaxbandit.checks.as_written`:
    a float32 δ = 0.01 is 0.01, not 0.009999999776482582)."""
    return {f: checks.as_written(v) for f, v in params._asdict().items() if v is not None}


def _claim_text(alg, spec, point, delta) -> str:
    """The claim at ``point``, in words; with the user's δ, why its own δ rules out every level where it does."""
    accountant = getattr(spec, alg.private).accountant
    try:
        bound = bind_point(spec, point)
        claim = accountant.guarantee(getattr(bound, alg.private), spec.horizon, spec.env.num_arms)
    except ValueError as err:
        return str(err)
    text = "its claim at its parameters: " + claim.describe()
    if (claim.notion == "approx-dp" and claim.delta is not None and claim.delta > delta
            and "delta" not in getattr(bound, alg.private)._fields):
        text += (f"; its δ = {claim.delta:.3g} is set by its analysis, not by a parameter, and exceeds the "
                 f"requested delta = {delta:g}")
    return text
