"""What an experiment is, and how it runs: configurations, the content-keyed result cache, summary.csv.

An `Experiment` is one figure of a paper: its configurations (`Config`: a label and the keyword arguments of
`jaxbandit.sweep`) and the function that draws them. `run` simulates the configurations through a cache of
results keyed by the content of the sweep request, so figures whose configurations are equal (Figs 2 and 3 of
TS is itself DP, the η = 1 and 5 sweeps of its Fig. 8) simulate them once, and a configuration that changed in any
keyword never reuses a stale result. The configuration in progress checkpoints after every chunk, so an
interrupted reproduction resumes where it stopped.

Outputs: ``summary.csv`` (deterministic: identical between identical reproductions), ``timings.csv`` (wall times)
and the figures, whose titles say "QUICK" in a ``--quick`` reproduction.

Cache layout (``cache`` defaults to ``<out_dir>/results``): for a request whose key is ``K`` (`cache_key`),
``K.npz`` and ``K.json`` (`Results.save`), ``K.request.json`` (the canonical request, written last: a result
counts as done only once it exists) and, while it runs, ``K.ckpt.npz``.
"""
from __future__ import annotations

import csv
import dataclasses
import glob
import hashlib
import json
import os
import time
from typing import Callable

import numpy as np

from jaxbandit import plotting
from jaxbandit.results import Results
from jaxbandit.simulation import sweep

QUICK_STAMP = "QUICK (fewer runs or a shorter horizon than the paper)"  # the title prefix of every figure of a --quick reproduction

__all__ = ["Config", "Experiment", "run", "reproduce", "output_dirs", "cached_sweep", "request", "cache_key",
           "default_rows", "write_summary", "write_timings", "paper_draw", "QUICK_STAMP"]


@dataclasses.dataclass
class Config:
    """One configuration of an experiment: a label (its name in the figure and summary.csv, unique within the
    experiment) and the keyword arguments of `jaxbandit.sweep`. Only ``kwargs`` decide what is simulated, so
    configurations with equal kwargs share one cached result whatever their labels."""

    label: str
    kwargs: dict


@dataclasses.dataclass(frozen=True)
class Experiment:
    """A registry entry: one reproduced figure (or table) of a paper.

    Attributes:
      id: the name of ``jaxbandit reproduce ID``.
      title: short title (e.g. "TS is itself DP Fig. 2").
      description: the line of ``jaxbandit list``.
      configs: ``configs(quick) -> [Config]``; ``quick`` gives a small horizon and few runs.
      figures: ``figures(results, out_dir)`` writes the figures from ``{label: Results}``.
      summary_rows: ``summary_rows(results) -> [dict]``, the rows of summary.csv (default: `default_rows`).
    """

    id: str
    title: str
    description: str
    configs: Callable[[bool], list]
    figures: Callable[[dict, str], None]
    summary_rows: Callable[[dict], list] | None = None


def run(experiment: Experiment, out_dir: str, quick: bool = False, progress: bool | None = True, log=print,
        cache: str | None = None, devices=None, bounds: bool = True) -> dict:
    """Run (or load, or resume) every configuration of ``experiment``, then write ``out_dir/summary.csv`` and the
    figures; returns ``{label: Results}``. ``cache``: the result cache (default ``out_dir/results``).
    ``devices``: what `jaxbandit.sweep` shards the runs over (default: every device; not part of the cache key,
    since the numbers do not depend on it). ``bounds=False``: the figures leave out the papers' bounds
    (`plotting.bounds_shown`)."""
    os.makedirs(out_dir, exist_ok=True)
    cache = os.path.join(out_dir, "results") if cache is None else cache
    configs = experiment.configs(quick)
    results = {}
    for i, cfg in enumerate(configs):
        t0 = time.perf_counter()
        res, path, loaded = cached_sweep(cfg.kwargs, cache, progress=progress, devices=devices)
        # "already done" is what a user (and the CLI test) looks for when a reproduction is repeated
        log(f"[{i + 1}/{len(configs)}] {cfg.label}: " +
            (f"already done, loaded {path}.npz" if loaded else
             f"{time.perf_counter() - t0:.1f}s ({res.compile_seconds or 0:.1f}s compiling or loading compiled programs)"))
        results[cfg.label] = res
    rows = experiment.summary_rows(results) if experiment.summary_rows is not None else None
    write_summary(results, os.path.join(out_dir, "summary.csv"), rows)
    write_timings(results, os.path.join(out_dir, "timings.csv"))
    reduced = quick and configs != experiment.configs(False)  # analytic figures are the same in both settings
    with plotting.stamped(QUICK_STAMP if reduced else None), plotting.bounds_shown(bounds):
        experiment.figures(results, out_dir)
    return results


def paper_draw(policy: str) -> dict:
    """The ``policy_options`` keyword a reproduction states for ``policy``: the papers' float noise
    (``release="float"``: float Laplace or ``jax.random.normal``) for a policy that has the choice, which the
    findings were measured with and which reproduces them bit for bit; nothing for the others. The library's
    default, the floating-point-safe release, follows the same law up to its grid or beyond the float draw's cut
    (`jaxbandit.mechanisms`)."""
    from jaxbandit import policies
    return {"policy_options": {"release": "float"}} if "release" in policies.option_names(policy) else {}


def output_dirs(ids, out: str | None = None, quick: bool = False) -> tuple[dict, str]:
    """Where ``jaxbandit reproduce`` writes: ``({id: output folder}, cache folder)``.

    One id with ``out``: the folder ``out`` itself (as before the cache was shared). Otherwise each id gets
    ``<root>/<id>`` (``-quick`` appended for quick runs), root being ``out`` or ``out/`` of the working directory.
    The cache is ``results/`` in the root, so that reproductions writing to the same root share their simulations
    whatever order they run in (``reproduce gdp-ts-fig2`` then ``reproduce gdp-ts-fig3`` simulate once).
    """
    ids = list(ids)
    if out is not None and len(ids) == 1:
        return {ids[0]: out}, os.path.join(out, "results")
    root = "out" if out is None else out
    return {i: os.path.join(root, i + ("-quick" if quick else "")) for i in ids}, os.path.join(root, "results")


def reproduce(ids, out: str | None = None, quick: bool = False, cache: str | None = None, progress=True,
              log=print, devices=None, bounds: bool = True) -> dict:
    """`run` the registered experiments ``ids`` into `output_dirs` with one shared cache (``cache`` overrides
    it); returns ``{id: {label: Results}}``."""
    from . import load
    experiments = [load(i) for i in ids]  # every id checked before anything runs
    dirs, default_cache = output_dirs(ids, out, quick)
    cache = default_cache if cache is None else cache
    out_all = {}
    for exp in experiments:
        if len(experiments) > 1:
            log(f"{exp.id}: {exp.title} -> {dirs[exp.id]}")
        out_all[exp.id] = run(exp, dirs[exp.id], quick=quick, progress=progress, log=log, cache=cache,
                              devices=devices, bounds=bounds)
    return out_all


# ------------------------------------------------------------------------------------------------ the cache

def request(kwargs: dict) -> str:
    """The configuration as requested, canonical JSON (sorted keys; a missing grid is an empty one): equal
    requests simulate the same thing, so they share a cached result."""
    from jaxbandit.spec import jsonable as _jsonable
    kwargs = {"grid": None, **kwargs}
    grid = kwargs["grid"] or {}
    plain = {k: _jsonable(v) for k, v in kwargs.items() if k != "grid"}
    plain["grid"] = [[list(p) if isinstance(p, tuple) else p, _jsonable(v)] for p, v in grid.items()]
    return json.dumps(plain, sort_keys=True)


def cache_key(kwargs: dict) -> str:
    """The file name of a request in the cache: the policy (to browse by) and 16 hex digits of the SHA-256 of
    `request`. The stored request is compared in full before a result is reused, so a collision costs a re-run,
    never a wrong result."""
    digest = hashlib.sha256(request(kwargs).encode()).hexdigest()[:16]
    return f"{_slug(str(kwargs.get('policy', 'sweep')))}-{digest}"


def cached_sweep(kwargs: dict, cache: str, progress: bool | None = True, devices=None) -> tuple[Results, str, bool]:
    """``sweep(**kwargs)`` through the cache folder ``cache``: ``(results, path without extension, loaded)``.

    A finished result with the same request is loaded; otherwise the sweep runs (resuming from its checkpoint
    if an earlier attempt was interrupted) and is stored.
    """
    os.makedirs(cache, exist_ok=True)
    text = request(kwargs)
    base = os.path.join(cache, cache_key(kwargs))
    if not _is_done(base, text):
        _adopt_legacy(cache, text, base)
    if _is_done(base, text):
        return Results.load(base), base, True
    # The epoch simulation runs in one piece (seconds to minutes): nothing to checkpoint.
    resumable = {} if kwargs.get("simulator") == "epochs" else dict(checkpoint=base + ".ckpt.npz", keep_checkpoint=True)
    res = sweep(**{"grid": None, **kwargs}, progress=progress, devices=devices, **resumable)
    res.save(base)
    tmp = base + ".request.json.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, base + ".request.json")  # last and atomic: marks the result as complete
    if os.path.exists(base + ".ckpt.npz"):
        os.remove(base + ".ckpt.npz")
    return res, base, False


def _is_done(base: str, text: str) -> bool:
    if not all(os.path.exists(base + ext) for ext in (".npz", ".json", ".request.json")):
        return False
    with open(base + ".request.json") as f:
        return f.read() == text


def _adopt_legacy(cache: str, text: str, base: str) -> None:
    """Results saved by the runner before the cache was keyed by content are named by their label
    (``results/<label>.npz``, same request format): rename one with an equal request to its key, so output folders
    written by earlier versions are not simulated again."""
    for req in glob.glob(os.path.join(glob.escape(cache), "*.request.json")):
        old = req[:-len(".request.json")]
        if old == base or not all(os.path.exists(old + ext) for ext in (".npz", ".json")):
            continue
        with open(req) as f:
            if f.read() != text:
                continue
        for ext in (".npz", ".json", ".request.json"):  # request last: the marker moves once the data has
            os.replace(old + ext, base + ext)
        return


# ------------------------------------------------------------------------------------------------ summary.csv

def default_rows(results: dict) -> list[dict]:
    """One row per configuration (per grid point of a sweep), with a column per parameter of the policy and the
    privatizer and per swept parameter (a joint axis such as ``("policy.b", "policy.c")`` gives one column per
    path). Experiments extend these rows in their ``summary_rows``."""
    rows = []
    for label, res in results.items():
        for coords, point in res.points():
            swept = {}
            for axis, value in coords.items():
                paths = axis.split(",")
                swept.update(zip(paths, value) if len(paths) > 1 else [(axis, value)])
            rows.append({"label": label, "policy": res.config["policy"], "env": res.config["env"],
                         "privatizer": res.config["privatizer"], "horizon": res.horizon, "runs": res.runs,
                         "final_regret_mean": f"{point.mean()[-1]:.6g}", "final_regret_se": f"{point.se()[-1]:.6g}",
                         "final_realized_regret_mean": f"{point.mean('regret')[-1]:.6g}",
                         "final_realized_regret_se": f"{point.se('regret')[-1]:.6g}",
                         **{f"policy.{k}": _cell(v) for k, v in res.config["policy_params"].items()},
                         **{f"policy.{k}": v for k, v in res.config.get("policy_options", {}).items()},
                         **{f"privatizer.{k}": _cell(v) for k, v in res.config["privatizer_params"].items()},
                         **{k: _cell(v) for k, v in swept.items()}})  # swept values override the base ones
    return rows


def write_summary(results: dict, path: str, rows: list | None = None) -> None:
    """summary.csv: ``rows`` (an experiment's ``summary_rows``) or `default_rows`."""
    rows = default_rows(results) if rows is None else rows
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def write_timings(results: dict, path: str) -> None:
    """timings.csv: the simulation wall time (compilation included), the part of it spent compiling or loading
    compiled programs, and the speed of each configuration with compilation and without, apart from summary.csv so
    that summary.csv is identical between identical reproductions. A configuration served from the cache reports the
    time of the run that computed it."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["label", "seconds", "compile_seconds", "agent_steps_per_second",
                                               "simulation_agent_steps_per_second"])
        writer.writeheader()
        for label, res in results.items():
            steps = res.pseudo_regret[..., 0].size * res.horizon
            known = res.compile_seconds is not None  # unknown for results cached before it was recorded
            simulating = res.seconds - res.compile_seconds if known else 0.0
            writer.writerow({"label": label, "seconds": f"{res.seconds:.3f}",
                             "compile_seconds": f"{res.compile_seconds:.3f}" if known else "",
                             "agent_steps_per_second": f"{steps / res.seconds:.4g}" if res.seconds else "",
                             "simulation_agent_steps_per_second": f"{steps / simulating:.4g}" if simulating > 0
                             else ""})


def _cell(v):
    """A CSV cell: numbers with %g, per-arm lists space-separated, anything else as text."""
    if np.ndim(v):
        return " ".join(f"{x:g}" for x in np.ravel(v))
    if isinstance(v, (int, float, np.number)):
        return f"{float(v):g}"
    return str(v)


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
