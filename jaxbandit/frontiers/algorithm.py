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
GROUP_RUNS = 200  # runs per simulation of the search (`_Race`), at most: one compilation for all its rounds
GROUP_ARM_RUNS = 5000  # ... and at least about this many arms x runs (`group_runs`)
RACE_SLICE = 10  # a raced point's runs come in slices of this many (`_Race`)
RACE_Z = 3.0  # a point stops racing where its mean paired difference from its level's leader exceeds this many SEs


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
    seed, both raced (`_Race`); ``(chosen, tuning, spent, warnings)`` per level, as `_tune_gradient`."""
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

    confirm_runs = CONFIRM_FACTOR * tuning_runs
    races = {False: _Race(spec, tuning_seed, tuning_runs), True: _Race(spec, confirm_seed, confirm_runs)}
    searches = {level: expanding_search(grids, valid_at(level), integer=integer) for level in levels}
    asked = {}
    for level, search in list(searches.items()):
        try:
            asked[level] = next(search)
        except StopIteration as done:
            searches.pop(level)
            _searched(level, done.value, spec.horizon, chosen, tuning, spent, warns, points, races)
    raced = " (raced: a point is stopped once clearly worse than the level's best)" if any(
        race.slice < race.runs for race in races.values()) else ""
    say(f"tuning {', '.join(sorted(grids))} by an expanding grid search, {tuning_runs} runs a point, the best "
        f"confirmed on {confirm_runs} others{raced}")
    while asked:
        means = {}
        for confirming, race in races.items():
            group = {lv: [((lv, _values_key(v)), points[(lv, _values_key(v))]) for v in asked[lv]]
                     for lv in asked if isinstance(asked[lv], Confirm) == confirming}
            if group:
                means.update(race.means(group))
        following = {}
        for level in asked:
            try:
                following[level] = searches[level].send(means[level])
            except StopIteration as done:
                _searched(level, done.value, spec.horizon, chosen, tuning, spent, warns, points, races)
        asked = following
    return chosen, tuning, spent, warns


def _values_key(values) -> tuple:
    return tuple(sorted((k, float(v)) for k, v in values.items()))


def group_runs(num_arms: int) -> int:
    """Runs per simulation of the search: `GROUP_RUNS`, or fewer on many arms, down to a multiple of `RACE_SLICE`
    of about `GROUP_ARM_RUNS` / K. A small batch keeps the race's steps fine (a padded simulation costs as much
    as a full one) and on many arms is nearly as fast per run: at K = 101, 50 runs a simulation run at 79-108% of
    the speed of 200 (benchmarks/RESULTS.md), at K = 9 at half of it."""
    runs = -(-GROUP_ARM_RUNS // max(int(num_arms), 1) // RACE_SLICE) * RACE_SLICE
    return int(min(GROUP_RUNS, max(runs, RACE_SLICE)))


class _Race:
    """The search's simulations on one seed's runs 0..runs − 1, raced (the racing of Maron & Moore, "Hoeffding
    races", NIPS 1993, on paired differences). Every point asked for gets its runs in slices of `RACE_SLICE`, one
    slice at a time (and later slices of the points nearest the lead where a simulation of `group_runs` runs has
    room). After each round of
    simulations, a point whose mean paired difference from its level's leader (the least mean on the same runs,
    among the points still racing and the best point that has run them all) exceeds `RACE_Z` standard errors gets no
    more runs. Its mean is then estimated on the leader's runs by common random numbers: its mean difference from
    the leader plus the leader's mean (the leader's own estimate where it was stopped later). Such a point is
    clearly worse than the leader, so the search's choices hardly change. On DP-FTPL's instance 2 the race stopped
    148 of 351 points early and simulated 24% fewer runs (benchmarks/RESULTS.md); the points near a level's optimum,
    which 50 runs cannot tell apart, run to the end.

    Every simulation has the same shape (`group_runs` runs, padded with copies of its last slice), so one compiled
    program serves the whole search; a run's numbers do not depend on its batch, so a point's runs are the same
    runs whichever simulation they fell in. There is no race, each point getting all its runs at once and a
    simulation as many points as it holds, where a simulation holds more than one point's runs (few arms: 200 runs
    for 50 a point; there a simulation is short and the race's looks only add simulations, which made DP-FTPL's
    instance 1 and seed 001's instance 10-20% slower) or where ``runs`` is not a multiple of `RACE_SLICE` (or under
    two slices)."""

    def __init__(self, spec, seed: int, runs: int):
        self.spec, self.seed, self.runs = spec, seed, runs
        raced = runs % RACE_SLICE == 0 and runs >= 2 * RACE_SLICE and group_runs(spec.env.num_arms) <= runs
        self.slice = RACE_SLICE if raced else runs
        self.finals = {}   # (level, values) -> float64[n]: its final regrets on runs 0..n − 1
        self.stopped = {}  # (level, values) -> (its leader's key, its mean difference from the leader's)
        self.simulated = {}  # level -> runs simulated (padding excluded)

    def value(self, key) -> float:
        """The point's mean regret on all runs: simulated, or estimated through the leader it was stopped by."""
        if key in self.stopped:
            leader, difference = self.stopped[key]
            return difference + self.value(leader)
        return float(self.finals[key].mean())

    def runs_of(self, key) -> int:
        return len(self.finals.get(key, ()))

    def means(self, requests: dict) -> dict:
        """``{level: [(key, point)]}`` → ``{level: [mean regret]}``, raced."""
        point_of = {k: p for asked in requests.values() for k, p in asked}
        live = {lv: [k for k, _ in asked if self.runs_of(k) < self.runs and k not in self.stopped]
                for lv, asked in requests.items()}
        per_call = max(group_runs(self.spec.env.num_arms) // self.slice, 1)
        while any(live.values()):
            todo = [k for keys in live.values() for k in keys]
            cells = [(k, self.runs_of(k)) for k in todo]  # the next slice of every point still racing
            further = {k: self.runs_of(k) + self.slice for k in todo}
            # fill the last simulation with later slices, first of the points nearest their level's leader (the
            # likeliest to run on): a simulation costs the same full or padded
            order = sorted(todo, key=lambda k: (self._behind(k, live[k[0]]), todo.index(k)))
            while len(cells) % per_call and any(further[k] < self.runs for k in order):
                for k in order:
                    if len(cells) % per_call == 0:
                        break
                    if further[k] < self.runs:
                        cells.append((k, further[k]))
                        further[k] += self.slice
            cells.sort(key=lambda c: (todo.index(c[0]), c[1]))  # each point's slices in the order of its runs
            for i in range(0, len(cells), per_call):
                group = cells[i:i + per_call]
                padded = group + [group[-1]] * (per_call - len(group))
                final = run_spec(self.spec.with_points([point_of[k] for k, _ in padded]), runs=self.slice,
                                 seed=self.seed, first_run=[f for _, f in padded], progress=False).final()
                for (k, _), x in zip(group, np.asarray(final, np.float64)):
                    self.finals[k] = np.concatenate([self.finals.get(k, np.zeros(0)), x])
                    self.simulated[k[0]] = self.simulated.get(k[0], 0) + self.slice
            for level, keys in live.items():
                live[level] = self._stop_worse(level, keys)
        return {lv: [self.value(k) for k, _ in asked] for lv, asked in requests.items()}

    def _behind(self, key, keys) -> float:
        """How far ``key``'s mean is above its level's leader's on the runs both have (0 before any run)."""
        if not self.runs_of(key):
            return 0.0
        leader = self._leader(key[0], keys)
        n = min(self.runs_of(key), self.runs_of(leader))
        return float(self.finals[key][:n].mean() - self.finals[leader][:n].mean())

    def _leader(self, level, keys):
        """The level's leader among ``keys`` (points still racing) and its best point that has run everything: the
        least mean on the runs all of them have."""
        done = [k for k in self.finals if k[0] == level and self.runs_of(k) == self.runs and k not in self.stopped]
        pool = keys + ([min(done, key=lambda k: (self.finals[k].mean(), k))] if done else [])
        n = min(self.runs_of(k) for k in pool)
        return min(pool, key=lambda k: (self.finals[k][:n].mean(), k))

    def _stop_worse(self, level, keys) -> list:
        """The points of ``keys`` still racing after each is tested against the level's leader on the runs both
        have."""
        keys = [k for k in keys if self.runs_of(k) < self.runs]
        if not keys:
            return []
        leader = self._leader(level, keys)
        for k in keys:
            n = min(self.runs_of(k), self.runs_of(leader))
            d = self.finals[k][:n] - self.finals[leader][:n]
            se = d.std(ddof=1) / math.sqrt(n) if n > 1 else math.inf
            # (se = 0: the same difference on every run; a point the same on every run is never stopped)
            if k != leader and d.mean() > 0 and math.isfinite(RACE_Z) and d.mean() > RACE_Z * se:
                self.stopped[k] = (leader, float(d.mean()))
        return [k for k in keys if k not in self.stopped]


def _searched(level, result, horizon, chosen, tuning, spent, warns, points, races) -> None:
    """One level's search result into the tuning records (nothing where no grid point was valid there)."""
    if result is None:
        return
    race, confirm = races[False], races[True]
    chosen[level] = points[(level, _values_key(result.best))]
    tuning[level] = {"method": "expanding grid search", "runs": race.runs, "rounds": result.rounds,
                     "values": [v for v, _ in result.points], "regret": [m for _, m in result.points],
                     "runs_each": [race.runs_of((level, _values_key(v))) for v, _ in result.points],
                     "status": dict(result.status), "confirmation_runs": confirm.runs if result.confirmed else 0,
                     "confirmed": [{"values": v, "regret": m, "runs": confirm.runs_of((level, _values_key(v)))}
                                   for v, m in result.confirmed]}
    spent[level] = (race.simulated.get(level, 0) + confirm.simulated.get(level, 0)) * horizon
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
