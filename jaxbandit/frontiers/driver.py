"""The frontier's driver: `frontier(env, budgets, ...)` calibrates, tunes and evaluates every algorithm at every
level, writing each finished algorithm to its file as it goes and resuming from it."""
from __future__ import annotations

import json
import os
import time
from typing import Mapping, Sequence

import numpy as np

from jaxbandit import checks
from jaxbandit import spec as specs
from jaxbandit.simulation import MAX_SEED, simulate
from jaxbandit.frontiers.algorithm import audit_row, evaluate_more, run_algorithm
from jaxbandit.frontiers.catalogue import TRUST_MODELS, algorithms, instance_of, params_for
from jaxbandit.frontiers.result import FORMAT, VERSION, Frontier, compare, write_json


def frontier(env, budgets: Sequence[float], *, horizon: int, env_params: Mapping | None = None, delta: float = 0.0,
             notion: str = "central", include: Sequence[str] | None = None, exclude: Sequence[str] | None = None,
             policy_params: Mapping | None = None, policy_options: Mapping | None = None, runs: int = 200,
             tuning_runs: int = 50, tuning_steps: int = 24, seed: int = 0, record: int = 50,
             out: str | None = None, audit: bool = False, more_runs: int | None = None,
             gradient: Sequence[str] | None = None, progress: bool = True) -> Frontier:
    """The privacy–regret frontier of an instance (module docstring).

    Args:
      env, env_params: the instance: a registered environment's name and parameters, or an `Env` object.
      budgets: the privacy levels ε (positive, finite).
      horizon: T.
      delta: the user's δ: central budgets are (ε, δ)-DP (δ = 0: pure ε-DP, which no (ε, δ) or GDP claim meets),
        and μ-GDP claims are shown as (ε, δ) at this δ.
      notion: ``"central"`` (default) or ``"local"``: whose claims a recommendation is taken among.
      include, exclude: algorithm, policy or channel names or families (`algorithms`).
      policy_params: ``{algorithm or policy: {parameter: value}}`` fixed for that algorithm (not tuned).
      policy_options: ``{algorithm or policy: {option: value}}`` build-time options (default: the policies').
      runs: evaluation runs per point. tuning_runs: runs per tuning point (the search) or per simulated point per
        step (gradient). tuning_steps: gradient steps.
      gradient: algorithms or policies whose accountant leaves one parameter free (modified Thompson sampling's b)
        to tune by gradient (`jaxbandit.tune`) instead of the expanding grid search, which tunes every other one
        (on 101 arms the search took 146 s a level, the gradient 363 s, to the same regret).
      seed: root of every draw: tuning and evaluation draw from disjoint seeds derived from it.
      record: number of record times along the horizon.
      out: a folder to save into and resume from: ``frontier.json`` after every algorithm (and its results under
        ``results/``); run the same call again to skip the algorithms done (a different request is refused).
      audit: also run the Monte-Carlo audit of each point's private component at its calibrated parameters
        (`jaxbandit.audit`, its default trials) and add its lower bound to the row (``audit``; ``None`` where the
        component has no audit of its name).
      more_runs: a budget of agent-steps (runs × T) for resolving ties: while a level's recommendation is not
        significantly better than some runner-up on the same runs (`jaxbandit.frontiers.result.compare`), the tied
        rows are simulated again on as many new runs as they have, from a new seed shared by all of them (never the
        tuning one), until every order is resolved or the next doubling would exceed the budget; ``None``: no more
        runs (the table still says where the recommendation is a tie).
      progress: print a line per algorithm and phase.

    Returns:
      `Frontier`.

    Raises:
      ValueError: on bad input, before any compilation; on an ``out`` folder that holds another request.
      FloatingPointError: on a non-finite regret.
    """
    t_start = time.perf_counter()
    levels = _levels(budgets)
    horizon = checks.positive_int("horizon", horizon)
    checks.in_range("delta", delta, 0.0, 1.0, high_open=True)
    checks.known_name("notion", notion, TRUST_MODELS)
    runs = checks.positive_int("runs", runs, minimum=2)
    tuning_runs = checks.positive_int("tuning_runs", tuning_runs, minimum=2)
    tuning_steps = checks.positive_int("tuning_steps", tuning_steps)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    record = checks.positive_int("record", record, minimum=2)
    if more_runs is not None:
        more_runs = checks.positive_int("more_runs", more_runs)
    options = dict(policy_options or {})
    for k, v in options.items():
        if not isinstance(v, Mapping):
            raise ValueError(f"policy_options maps algorithm or policy names to {{option: value}}; {k!r} maps to {v!r}")
    found, skipped = algorithms(env, env_params, include=include, exclude=exclude, policy_params=policy_params)
    env_o, env_p, _ = instance_of(env, env_params)
    # disjoint draws: the tuning's, the evaluation's, the tuning's confirmation runs' (the first two as before it)
    tuning_seed, eval_seed, confirm_seed = (int(s) % (MAX_SEED + 1)
                                            for s in np.random.SeedSequence(seed).generate_state(3))
    if len({tuning_seed, eval_seed, confirm_seed}) < 3:  # (a collision of 32-bit draws: never seen, still refused)
        raise ValueError(f"seed={seed} draws the same seed for two of tuning, evaluation and confirmation: "
                         "choose another seed")
    if env_o.context is None:
        means = np.asarray(env_o.means(env_p), np.float64)
        uniform_regret = float(horizon * np.mean(means.max() - means))
    else:  # the expected rewards change with the context (or the instance): uniform play simulated
        uniform_regret = float(simulate(env, "uniform", env_params=env_params, horizon=horizon, runs=runs,
                                        seed=eval_seed, progress=False).mean()[-1])
    config = {"env": env if isinstance(env, str) else env_o.name, "env_params": specs.jsonable(dict(env_params or {})),
              "env_label": f"{env if isinstance(env, str) else env_o.name} with {env_o.num_arms} arms",
              "levels": levels, "delta": float(delta), "notion": notion, "horizon": horizon, "runs": runs,
              "tuning_runs": tuning_runs, "tuning_steps": tuning_steps, "seed": seed, "tuning_seed": tuning_seed,
              "evaluation_seed": eval_seed, "confirmation_seed": confirm_seed, "record": record, "include": list(include) if include else None,
              "exclude": list(exclude) if exclude else None, "audit": bool(audit),
              "policy_params": specs.jsonable(policy_params or {}),
              "policy_options": specs.jsonable(options), "algorithms": [a.name for a in found],
              "uniform_regret": uniform_regret, "more_runs": more_runs,
              "gradient": sorted(gradient) if gradient else None}
    state = _resume(out, config)
    rows, curves, seconds = state["rows"], state["curves"], state["seconds"]
    before = seconds.pop("total", 0.0)  # the wall time of the calls this one resumes
    skipped = {**skipped, **state["skipped"]}
    done = set(state["done"])
    for i, alg in enumerate(found):
        if alg.name in done:
            if progress:
                print(f"[{i + 1}/{len(found)}] {alg.name}: done before (resumed from {out})", flush=True)
            continue
        outcome = run_algorithm(alg, env, env_params, levels, delta, horizon, runs, tuning_runs, tuning_steps, tuning_seed,
                       eval_seed, record, params_for(alg, policy_params), params_for(alg, options), out,
                       progress, f"[{i + 1}/{len(found)}] {alg.name}", confirm_seed,
                       bool(set(gradient or ()) & {alg.name, alg.policy}))
        if audit:
            t_audit = time.perf_counter()
            for row in outcome["rows"]:
                row["audit"] = audit_row(alg, row, seed)
            seconds["audit"] = seconds.get("audit", 0.0) + time.perf_counter() - t_audit
        if outcome["rows"]:
            rows += outcome["rows"]
            curves[alg.name] = outcome["curve"]
            skipped.update({_level_key(alg.name, lv): reason for lv, reason in outcome["skipped_levels"].items()})
        else:
            skipped[alg.name] = outcome["reason"]
            if progress:
                print(f"[{i + 1}/{len(found)}] {alg.name}: not included: {outcome['reason']}", flush=True)
        seconds["tuning"] += outcome["tuning_seconds"]
        seconds["evaluation"] += outcome["evaluation_seconds"]
        done.add(alg.name)
        if out:
            write_json(os.path.join(out, "frontier.json"),
                        {"format": FORMAT, "version": VERSION, "config": config, "rows": rows, "curves": curves,
                         "skipped": {k: v for k, v in skipped.items() if k.partition(_AT)[0] in done},
                         "done": sorted(done),
                         "seconds": {**seconds, "total": before + time.perf_counter() - t_start}})
    _recommend(rows, levels, notion)
    resolution = {}
    if more_runs:
        t_more = time.perf_counter()
        by_name = {a.name: a for a in found}
        resolution = _resolve_ties(rows, levels, notion, more_runs, {tuning_seed, eval_seed, confirm_seed}, seed, progress,
                                   lambda name, tied, n, s: evaluate_more(
                                       by_name[name], env, env_params, horizon, record,
                                       params_for(by_name[name], policy_params), params_for(by_name[name], options),
                                       tied, n, s), horizon)
        seconds["more_runs"] = time.perf_counter() - t_more
    seconds["total"] = before + time.perf_counter() - t_start
    result = Frontier(rows, curves, skipped, config, seconds, resolution)
    if out:
        write_json(os.path.join(out, "frontier.json"), {**result.to_dict(), "done": sorted(done)})
    return result


_AT = " at epsilon = "


def _resolve_ties(rows, levels, notion, budget, used_seeds, seed, progress, evaluate, horizon) -> dict:
    """Simulate the tied rows again on more runs (`frontier`'s ``more_runs``) until no recommendation is a tie or
    the budget is spent; returns ``{"budget", "agent_steps", "batches": [{"seed", "runs", "rows"}], "unresolved":
    [levels], "stopped": reason}``."""
    spent, batches, used = 0, [], set(used_seeds)
    while True:
        tied = {}
        for level in levels:
            best = next((r for r in rows if r["level"] == level and r["recommended"]), None)
            names = [c["algorithm"] for c in (best or {}).get("comparisons", ()) if not c["significant"]]
            if names:
                for name in [best["algorithm"]] + names:
                    tied.setdefault(name, []).append(next(r for r in rows if r["level"] == level
                                                          and r["algorithm"] == name))
        unresolved = sorted({r["level"] for rs in tied.values() for r in rs})
        if not tied:
            return {"budget": budget, "agent_steps": spent, "batches": batches, "unresolved": [],
                    "stopped": "every recommendation is resolved"}
        extra = max(r["runs"] for rs in tied.values() for r in rs)  # doubles the tied rows' runs
        cost = sum(len(rs) for rs in tied.values()) * extra * horizon
        if spent + cost > budget:
            return {"budget": budget, "agent_steps": spent, "batches": batches, "unresolved": unresolved,
                    "stopped": f"the next doubling ({cost:.3g} agent-steps) would exceed the budget"}
        k = len(batches) + 1
        new = int(np.random.SeedSequence([seed, 1, k]).generate_state(1)[0]) % (MAX_SEED + 1)
        while new in used:  # never a seed the tuning or an earlier evaluation drew from
            new = (new + 1) % (MAX_SEED + 1)
        used.add(new)
        if progress:
            print(f"more runs: {extra} more of {', '.join(sorted(tied))} (tied at epsilon = "
                  f"{', '.join(f'{lv:g}' for lv in unresolved)})", flush=True)
        for name, tied_rows in tied.items():
            evaluate(name, tied_rows, extra, new)
        spent += cost
        batches.append({"seed": new, "runs": extra, "rows": {n: [r["level"] for r in rs] for n, rs in tied.items()}})
        _recommend(rows, levels, notion)


def _level_key(name: str, level: float) -> str:
    """`Frontier.skipped`'s key for one level an included algorithm cannot reach."""
    return f"{name}{_AT}{level:g}"


def _levels(budgets) -> list:
    values = np.atleast_1d(np.asarray(budgets, np.float64))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"budgets must be a non-empty list of privacy levels epsilon, got {budgets!r}")
    checks.in_range("budgets", values, 0.0, low_open=True, high_open=True)
    checks.distinct("budgets", values)  # a repeated level would be merged silently, one table block for two asked
    return sorted(float(v) for v in values)


def _resume(out, config) -> dict:
    """The state saved in ``out`` by an interrupted call with the same request (else a fresh one); ``out``'s folder
    checked writable before any work."""
    fresh = {"rows": [], "curves": {}, "skipped": {}, "done": [], "seconds": {"tuning": 0.0, "evaluation": 0.0,
                                                                              "total": 0.0}}
    if out is None:
        return fresh
    path = os.path.join(out, "frontier.json")
    checks.writable_file("out", path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return fresh
    try:
        saved = checks.read_json("frontier file", path)
    except ValueError as err:
        raise ValueError(f"out {out}: {err}; choose another folder") from err
    try:
        Frontier.from_dict(saved)  # the format, version and shape checked in one place
    except ValueError as err:
        raise ValueError(f"out {out}: {path} is not a frontier file of this version ({err}); choose another "
                         "folder") from err
    if saved["config"] != json.loads(json.dumps(config)):
        differ = sorted(k for k in config if saved["config"].get(k) != json.loads(json.dumps(config))[k])
        raise ValueError(f"out {out} holds a frontier of another request (differs in {', '.join(differ)}); choose "
                         "another folder or repeat that request")
    return {"rows": saved["rows"], "curves": saved["curves"], "skipped": saved["skipped"], "done": saved["done"],
            "seconds": {k: float(v) for k, v in saved["seconds"].items()}}


def _recommend(rows, levels, notion):
    """Mark each level's best point of each family among those meeting the family's notion (``best_of_family``),
    the user's notion's as ``recommended``, and compare each best point with its family's runner-ups on the same
    runs (``comparisons``, `jaxbandit.frontiers.result.compare`)."""
    for r in rows:
        r["best_of_family"] = r["recommended"] = False
        r["comparisons"] = []
    for level in levels:
        for family in TRUST_MODELS:
            # a row whose tuned value sits at an edge that could still move is shown, never recommended
            eligible = [r for r in rows if r["level"] == level and r["meets"] and r["family"] == family
                        and not r.get("movable_edge")]
            if eligible:
                best = min(eligible, key=lambda r: r["regret_mean"])
                best["best_of_family"] = True
                best["recommended"] = family == notion
                best["comparisons"] = compare(best, [r for r in eligible if r is not best])


# ------------------------------------------------------------------------------------------------ one algorithm
