"""Validation of `jaxbandit.tune` against an exhaustive grid run by the same engine (findings in
experiments/tuning_findings.md).

For TS is itself DP's Bernoulli and truncated-exponential instances at T = 10^5 and GDP budgets η ∈ {1, 2, 5} (the paper's
accounting, c = c*(b) on the boundary):
  * grid: GRID_POINTS values of b, log-spaced over [0, b_max] (29% apart), then FINE_POINTS more between the
    best point's two neighbours (about 4% apart), GRID_RUNS runs each on the same common random numbers; the grid's
    best is the best of both;
  * tuner: `tune` with its defaults (smoothed gradient, 32 runs per point, 40 Adam steps);
  * fresh seeds: the grid's best b and the tuned b, EVAL_RUNS runs each on a seed neither used (paired), with the
    pseudo-regret and the paper's realized regret;
  * gradient check (Bernoulli, η = 2, three values of b): the smoothed estimate (replicates) and the score-function
    estimate (b relaxed, c = c*(β)) against a finite difference of the simulated regret in u = log(b + 1).

    python -m jaxbandit.experiments.tuning_validation --out out/tuning [--quick]
writes results.json and one figure per instance and budget (the trajectory over the grid).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import time

import numpy as np

import jaxbandit as jb
from jaxbandit import gradients, plotting, tuning

from .gdp_ts import BERNOULLI, ETAS, TRUNCEXP

HORIZON, GRID_POINTS, FINE_POINTS, GRID_RUNS, EVAL_RUNS = 100_000, 40, 13, 200, 1000
QUICK = dict(horizon=2_000, grid_points=12, fine_points=5, grid_runs=50, eval_runs=200, tune_runs=16, steps=15)
GRID_SEED, TUNE_SEED, EVAL_SEED, CHECK_SEED = 1000, 0, 2000, 3000
CHECK_B = (200, 1300, 5000)
FD_H, FD_RUNS, SMOOTH_REPLICATES, SCORE_RUNS = 0.05, 2000, 8, 512
PAPER_DRAW = {"release": "float"}  # modified TS's float draw, which the recorded findings were measured with
PILOT = 0  # the recorded findings started at the middle of the range: the tuner before its pilot grid (2026-11-27)


def settings(quick: bool) -> dict:
    if quick:
        return QUICK
    return dict(horizon=HORIZON, grid_points=GRID_POINTS, fine_points=FINE_POINTS, grid_runs=GRID_RUNS,
                eval_runs=EVAL_RUNS, tune_runs=32, steps=40)


def b_grid(horizon: int, num_arms: int, points: int) -> np.ndarray:
    b_max = math.ceil(horizon / num_arms) - 1
    return np.unique(np.round(np.expm1(np.linspace(0.0, math.log1p(b_max), points)))).astype(int)


def refined(coarse: tuning.Grid, points: int, run) -> tuning.Grid:
    """``coarse`` with ``points`` more values of b log-spaced between its best point's two neighbours (the ones it
    lacks), simulated by ``run(values)`` on the same common random numbers, merged in order of b."""
    i = coarse.best()
    lo, hi = coarse.values[max(i - 1, 0)], coarse.values[min(i + 1, len(coarse.values) - 1)]
    fine = np.unique(np.round(np.expm1(np.linspace(math.log1p(lo), math.log1p(hi), points)))).astype(int)
    fine = np.setdiff1d(fine, coarse.values)
    if not len(fine):
        return coarse
    extra = run(fine)
    values = np.concatenate([coarse.values, extra.values])
    order = np.argsort(values, kind="stable")
    return tuning.Grid(values[order], [(coarse.params + extra.params)[k] for k in order],
                       np.concatenate([coarse.regret, extra.regret])[order], coarse.agent_steps + extra.agent_steps)


def validate(instance, eta: float, s: dict, log=print) -> tuple[dict, tuning.Tuned, tuning.Grid]:
    name, env_params, _ = instance
    common = dict(env_params=env_params, policy_options=PAPER_DRAW, eta_budget=eta, horizon=s["horizon"])
    t0 = time.perf_counter()
    num_arms = len(next(iter(env_params.values())))
    run = lambda values: tuning.grid(name, values=values, runs=s["grid_runs"], seed=GRID_SEED, **common)
    coarse = run(b_grid(s["horizon"], num_arms, s["grid_points"]))
    g = refined(coarse, s["fine_points"], run)
    t_grid = time.perf_counter() - t0
    tuned = tuning.tune(name, runs=s["tune_runs"], steps=s["steps"], seed=TUNE_SEED, pilot=PILOT, **common)
    best = g.best()
    b_best, c_best = int(g.values[best]), g.params[best]["c"]
    tuned_bc = (tuned.params["b"], tuned.params["c"])
    res = jb.sweep(name, "modified-thompson", env_params=env_params, policy_options=PAPER_DRAW,
                   grid={("policy.b", "policy.c"): [(b_best, c_best), tuned_bc]}, horizon=s["horizon"],
                   runs=s["eval_runs"], seed=EVAL_SEED, progress=False, record=np.array([s["horizon"]]))
    pseudo, realized = res.pseudo_regret[..., -1], res.regret[..., -1]  # (2, runs)
    diff = pseudo[1] - pseudo[0]
    row = {
        "instance": name, "eta": eta, "horizon": s["horizon"],
        "grid": {"values": g.values.tolist(), "mean": g.mean.tolist(), "se": g.se.tolist(), "runs": s["grid_runs"],
                 "agent_steps": g.agent_steps, "seconds": t_grid, "coarse_points": len(coarse.values),
                 "fine_points": len(g.values) - len(coarse.values), "coarse_best_b": int(coarse.values[coarse.best()]),
                 "spacing_near_best": float(_spacing(g.values, g.best()))},
        "grid_best": {"b": b_best, "c": c_best, "grid_regret": float(g.mean[best]), "grid_se": float(g.se[best])},
        "tuned": {"b": tuned_bc[0], "c": tuned_bc[1], "eta": tuned.eta, "epsilon": tuned.epsilon, "delta": tuned.delta,
                  "agent_steps": tuned.agent_steps, "seconds": tuned.seconds, "trace": tuned.trace},
        "fresh": {"runs": s["eval_runs"], "seed": EVAL_SEED,
                  "grid_best_pseudo": [float(pseudo[0].mean()), float(pseudo[0].std(ddof=1) / math.sqrt(len(diff)))],
                  "tuned_pseudo": [float(pseudo[1].mean()), float(pseudo[1].std(ddof=1) / math.sqrt(len(diff)))],
                  "grid_best_realized": [float(realized[0].mean()),
                                         float(realized[0].std(ddof=1) / math.sqrt(len(diff)))],
                  "tuned_realized": [float(realized[1].mean()), float(realized[1].std(ddof=1) / math.sqrt(len(diff)))],
                  "paired_diff": [float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(len(diff)))]},
    }
    ratio = row["fresh"]["tuned_pseudo"][0] / row["fresh"]["grid_best_pseudo"][0]
    row["fresh"]["ratio"] = ratio
    log(f"{name} eta={eta:g}: grid best b={b_best} ({row['fresh']['grid_best_pseudo'][0]:.1f}), tuned b={tuned_bc[0]} "
        f"({row['fresh']['tuned_pseudo'][0]:.1f}), ratio {ratio:.4f}; agent-steps tuner {tuned.agent_steps:.3g} vs "
        f"grid {g.agent_steps:.3g}")
    return row, tuned, g


def _spacing(values, i):
    """The largest relative step in b + 1 from point i to its neighbours."""
    v = np.log1p(np.asarray(values, float))
    steps = [v[j + 1] - v[j] for j in (i - 1, i) if 0 <= j < len(v) - 1]
    return math.expm1(max(steps)) if steps else math.nan


def gradient_check(s: dict, log=print) -> list:
    """Smoothed and score-function estimates of dR/du at CHECK_B (Bernoulli, η = 2) against a finite difference."""
    name, env_params, _ = BERNOULLI
    eta, horizon = 2.0, s["horizon"]
    spec = jb.resolve(name, "modified-thompson", env_params=env_params, policy_options=PAPER_DRAW, horizon=horizon)
    space = tuning._BudgetSpace(spec, jb.accounting.Budget(mu=eta))
    point = tuning._point(spec.params, space)
    rows = []
    for b in CHECK_B if horizon == HORIZON else (20, 100):
        u = math.log1p(b)
        lo, hi = (point(np.array([u + d]), 0.5) for d in (-FD_H, FD_H))
        out = gradients.final_regret(spec, [lo, hi], runs=FD_RUNS if horizon == HORIZON else 400, seed=CHECK_SEED)
        fd = (out[1] - out[0]) / (2 * FD_H)
        fd_mean, fd_se = float(fd.mean()), float(fd.std(ddof=1) / math.sqrt(len(fd)))
        smooth = [gradients.smoothed_gradient(spec, point, np.array([u]), sigma=0.15, runs=32,
                                              seed=CHECK_SEED + 1 + i, rng=np.random.default_rng(i)).grad[0]
                  for i in range(SMOOTH_REPLICATES)]
        at = space.score_at(np.array([u]))
        g = gradients.score_gradient(spec, at=at, runs=SCORE_RUNS, seed=CHECK_SEED + 100)
        chained = (g.samples @ space.chain(np.array([u])))[:, 0]
        score, score_se = float(chained.mean()), float(chained.std(ddof=1) / math.sqrt(len(chained)))
        row = {"b": b, "u": u, "fd": [fd_mean, fd_se], "fd_h": FD_H,
               "smoothed": [float(np.mean(smooth)), float(np.std(smooth, ddof=1) / math.sqrt(len(smooth)))],
               "smoothed_single_se": float(np.std(smooth, ddof=1)), "sigma": 0.15,
               "score": [float(score), score_se], "score_runs": SCORE_RUNS,
               "score_partials": {"d_b": [float(g.grad[0]), float(g.grad_se[0])],
                                  "d_c": [float(g.grad[1]), float(g.grad_se[1])]}}
        log(f"gradient check b={b}: FD {fd_mean:.1f} ± {fd_se:.1f}, smoothed {row['smoothed'][0]:.1f} ± "
            f"{row['smoothed'][1]:.1f}, score {score:.1f} ± {score_se:.1f}")
        rows.append(row)
    return rows


EPS_GRID = np.geomspace(1e-4, 0.5, 24)


def beyond_bc(s: dict, log=print) -> tuple[dict, tuning.Tuned, tuning.Grid]:
    """The same tuner on another policy's float parameter: ε-greedy's ε (logit coordinates, no budget), Bernoulli
    instance, against a log-spaced grid of ε and on fresh seeds."""
    name, env_params, _ = BERNOULLI
    common = dict(env_params=env_params, param="epsilon", horizon=s["horizon"])
    g = tuning.grid(name, "epsilon-greedy", values=EPS_GRID, runs=s["grid_runs"], seed=GRID_SEED, **common)
    tuned = tuning.tune(name, "epsilon-greedy", runs=s["tune_runs"], steps=s["steps"], seed=TUNE_SEED, **common)
    best = g.best()
    res = jb.sweep(name, "epsilon-greedy", env_params=env_params,
                   grid={"policy.epsilon": [float(g.values[best]), tuned.params["epsilon"]]}, horizon=s["horizon"],
                   runs=s["eval_runs"], seed=EVAL_SEED, progress=False, record=np.array([s["horizon"]]))
    pseudo = res.pseudo_regret[..., -1]
    se = pseudo.std(1, ddof=1) / math.sqrt(pseudo.shape[1])
    row = {"policy": "epsilon-greedy", "instance": name, "horizon": s["horizon"],
           "grid": {"values": g.values.tolist(), "mean": g.mean.tolist(), "se": g.se.tolist(),
                    "agent_steps": g.agent_steps},
           "grid_best": float(g.values[best]), "tuned": tuned.params["epsilon"], "tuned_agent_steps": tuned.agent_steps,
           "fresh": {"grid_best": [float(pseudo[0].mean()), float(se[0])],
                     "tuned": [float(pseudo[1].mean()), float(se[1])],
                     "ratio": float(pseudo[1].mean() / pseudo[0].mean())}, "trace": tuned.trace}
    log(f"epsilon-greedy: grid best eps={g.values[best]:.4g} ({pseudo[0].mean():.1f}), tuned eps="
        f"{tuned.params['epsilon']:.4g} ({pseudo[1].mean():.1f}), ratio {row['fresh']['ratio']:.4f}; agent-steps "
        f"tuner {tuned.agent_steps:.3g} vs grid {g.agent_steps:.3g}")
    return row, tuned, g


class _SavedGrid:
    """A grid read back from results.json (means and standard errors only), for `replot`."""

    def __init__(self, row, runs):
        self.values = np.asarray(row["values"], float)
        self.mean, self.se = np.asarray(row["mean"]), np.asarray(row["se"])
        self.regret = np.zeros((len(self.values), runs))  # only its shape is read: runs per point

    def best(self):
        return int(np.argmin(self.mean))


def replot(out: str, quick: bool = False) -> None:
    """Draw the figures again from ``out/results.json`` (no simulation)."""
    data = jb.checks.read_json("tuning results file", os.path.join(out, "results.json"))
    s = data["settings"]
    stamp = "QUICK (small T, few runs): " if quick else ""
    for row in data["rows"]:
        t = row["tuned"]
        tuned = tuning.Tuned({"b": t["b"], "c": t["c"]}, t["eta"], t["epsilon"], t["delta"], t["agent_steps"],
                             t["trace"], {"param": "b", "runs": s["tune_runs"], "estimator": "smoothed"}, t["seconds"])
        label = dict(bernoulli=BERNOULLI[2], truncexp=TRUNCEXP[2])[row["instance"]]
        plotting.save(plotting.tuning_figure(
            tuned, _SavedGrid(row["grid"], s["grid_runs"]), tuned_regret=row["fresh"]["tuned_pseudo"],
            title=f"{stamp}modified TS on {label}, η = {row['eta']:g}-GDP (paper accounting), T = {row['horizon']}"),
            os.path.join(out, f"tuning_{row['instance']}_eta{row['eta']:g}.png"))
    eg = data.get("epsilon_greedy")
    if eg:
        tuned = tuning.Tuned({"epsilon": eg["tuned"]}, None, None, None, eg["tuned_agent_steps"], eg["trace"],
                             {"param": "epsilon", "runs": s["tune_runs"], "estimator": "smoothed"}, 0.0)
        plotting.save(plotting.tuning_figure(tuned, _SavedGrid(eg["grid"], s["grid_runs"]),
                                             tuned_regret=eg["fresh"]["tuned"],
                                             title=f"{stamp}epsilon-greedy on {BERNOULLI[2]}, T = {eg['horizon']}"),
                      os.path.join(out, "tuning_epsilon_greedy.png"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="out/tuning")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--skip-gradient-check", action="store_true")
    ap.add_argument("--only", choices=["bc", "epsilon-greedy"], help="run one part only")
    ap.add_argument("--replot", action="store_true", help="redraw the figures from OUT/results.json")
    args = ap.parse_args(argv)
    s = settings(args.quick)
    if args.replot:
        return replot(args.out, args.quick)
    os.makedirs(args.out, exist_ok=True)
    jb.checks.writable_file("--out", os.path.join(args.out, "results.json"))
    rows, beyond = [], None
    if args.only != "bc":
        beyond, tuned, g = beyond_bc(s)
        plotting.save(plotting.tuning_figure(tuned, g, tuned_regret=beyond["fresh"]["tuned"], title=(
            f"{'QUICK (small T, few runs): ' if args.quick else ''}epsilon-greedy on {BERNOULLI[2]}, T = "
            f"{s['horizon']}")), os.path.join(args.out, "tuning_epsilon_greedy.png"))
    for instance in (BERNOULLI, TRUNCEXP) if args.only != "epsilon-greedy" else ():
        for eta in ETAS:
            row, tuned, g = validate(instance, eta, s)
            rows.append(row)
            title = (f"{'QUICK (small T, few runs): ' if args.quick else ''}modified TS on {instance[2]}, "
                     f"η = {eta:g}-GDP (paper accounting), T = {s['horizon']}")
            fresh = row["fresh"]["tuned_pseudo"]
            plotting.save(plotting.tuning_figure(tuned, g, title=title, tuned_regret=fresh),
                          os.path.join(args.out, f"tuning_{instance[0]}_eta{eta:g}.png"))
    checks = [] if args.skip_gradient_check or args.only else gradient_check(s)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"settings": s, "rows": rows, "gradient_check": checks, "epsilon_greedy": beyond}, f, indent=1)
    print(f"wrote {args.out}/results.json and figures")


if __name__ == "__main__":
    main()
