"""Run an experiment's configurations with per-configuration save/resume, then its figures and summary.csv."""
from __future__ import annotations

import csv
import dataclasses
import json
import os
import time

import numpy as np

from jaxbandit.results import Results
from jaxbandit.simulation import sweep


@dataclasses.dataclass
class Config:
    """One configuration of an experiment: a label and the keyword arguments of `jaxbandit.sweep`."""

    label: str
    kwargs: dict


def run(module, out_dir: str, quick: bool = False, progress: bool = True, log=print) -> dict:
    """Run (or resume) every configuration of ``module``; returns ``{label: Results}``."""
    os.makedirs(os.path.join(out_dir, "results"), exist_ok=True)
    configs = module.configs(quick)
    results = {}
    for i, cfg in enumerate(configs):
        base = os.path.join(out_dir, "results", _slug(cfg.label))
        kwargs = {"grid": None, **cfg.kwargs}
        done = _load_if_same(base, kwargs)
        if done is not None:
            log(f"[{i + 1}/{len(configs)}] {cfg.label}: already done, loaded {base}.npz")
            results[cfg.label] = done
            continue
        t0 = time.perf_counter()
        res = sweep(**kwargs, progress=progress, checkpoint=base + ".ckpt.npz")
        res.save(base)
        with open(base + ".request.json", "w") as f:
            f.write(_request(kwargs))
        if os.path.exists(base + ".ckpt.npz"):
            os.remove(base + ".ckpt.npz")
        log(f"[{i + 1}/{len(configs)}] {cfg.label}: {time.perf_counter() - t0:.1f}s")
        results[cfg.label] = res
    rows = module.summary_rows(results) if hasattr(module, "summary_rows") else None
    write_summary(results, os.path.join(out_dir, "summary.csv"), rows)
    module.figures(results, out_dir)
    return results


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
                         "seconds": f"{res.seconds:.3f}",
                         **{f"policy.{k}": _cell(v) for k, v in res.config["policy_params"].items()},
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


def _cell(v):
    """A CSV cell: numbers with %g, per-arm lists space-separated, anything else as text."""
    if np.ndim(v):
        return " ".join(f"{x:g}" for x in np.ravel(v))
    if isinstance(v, (int, float, np.number)):
        return f"{float(v):g}"
    return str(v)


def _request(kwargs) -> str:
    """The configuration as requested, canonical JSON: a saved result is reused only for the same request."""
    from jaxbandit.simulation import _jsonable
    grid = kwargs.get("grid") or {}
    plain = {k: _jsonable(v) for k, v in kwargs.items() if k != "grid"}
    plain["grid"] = [[list(p) if isinstance(p, tuple) else p, _jsonable(v)] for p, v in grid.items()]
    return json.dumps(plain, sort_keys=True)


def _load_if_same(base, kwargs):
    if not (os.path.exists(base + ".json") and os.path.exists(base + ".request.json")):
        return None
    with open(base + ".request.json") as f:
        if f.read() != _request(kwargs):
            return None
    return Results.load(base)


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
