"""The privacy–regret frontier on the five papers' own instances (experiments/frontier_findings.md).

    python -m jaxbandit.experiments.frontier_instances --out out/frontier [--only NAME ...] [--quick] [--record]
    python -m jaxbandit.experiments.frontier_instances --replot --out out/frontier   # the figures, from RECORDED

Each instance runs `jaxbandit.frontier` with the settings of `INSTANCES` and writes OUT/NAME/frontier.json (saved
after every algorithm: the same command resumes), OUT/NAME/table.txt and OUT/NAME/frontier.png. ``--quick``: T =
2000, 20 evaluation and 10 tuning runs, 4 gradient steps, two algorithms per instance (the slow test tier runs it
on heavy-s1). ``--record`` copies each instance's rows (not its curves) into RECORDED, the committed results that
experiments/frontier_findings.md and notebooks/frontier.ipynb read; ``--replot`` redraws the figures from it
without simulating.
"""
from __future__ import annotations

import argparse
import functools
import json
import os

import jaxbandit as jb
from jaxbandit import checks, plotting, sharding
from jaxbandit.frontiers import Frontier
from jaxbandit.accounting import gdp
from jaxbandit.envs.tails import instance_u
from jaxbandit.experiments import dp_ftpl, gdp_ts

S1 = [0.9, 0.7, 0.5, 0.3, 0.1]  # seed 004's S1, Pareto arms with v = 0.9
HEAVY = {"v": 0.9, "u": instance_u(S1, 0.9)}
GDP_DELTA = 1e-6
RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frontier_results.json")


GDP_ETAS = (1.0, 2.0, 5.0, 10.0)  # seed 001's η: 1, 2, 5 in its main text, 1, 5, 10 in App. D's comparison


def _gdp_levels(pure: bool = False) -> list:
    """Seed 001's budgets η-GDP as (ε, δ)-DP at δ = 1e-6, as App. D compares them (exact; `gdp.epsilon`), or
    (``pure``) as the largest pure ε whose ε-DP implies η-GDP (`gdp.pure_epsilon`): the comparison under GDP
    itself, which only pure ε-DP and GDP claims can enter."""
    import jax
    with jax.enable_x64(True):
        return [round(float(gdp.pure_epsilon(eta) if pure else gdp.epsilon(GDP_DELTA, eta)), 4) for eta in GDP_ETAS]


def budgets_of(settings: dict) -> list:
    """An instance's levels. The GDP instances' are computed when asked, not at import: computing them starts JAX,
    and the command line must first give it one device per core."""
    budgets = settings["budgets"]
    return budgets() if callable(budgets) else list(budgets)


INSTANCES = {
    "dp-ftpl-instance-1": dict(
        title="DP-FTPL's instance 1 (9 Bernoulli arms 0.3, 0.35, ..., 0.7)", env="bernoulli",
        env_params={"means": list(dp_ftpl.INSTANCES["instance 1"])}, budgets=[0.5, 1.0, 2.0], delta=0.01,
        horizon=100_000, runs=200, include=["central"], quick_include=["dp-se", "dp-ftpl-new"]),
    "dp-ftpl-instance-2": dict(
        title="DP-FTPL's instance 2 (101 Bernoulli arms 0.3, 0.304, ..., 0.7)", env="bernoulli",
        env_params={"means": list(dp_ftpl.INSTANCES["instance 2"])}, budgets=[0.5, 1.0, 2.0], delta=0.01,
        horizon=100_000, runs=100, include=["central"], quick_include=["dp-se", "dp-ucb-bound"]),
    "gdp-ts-bernoulli": dict(
        title="TS is itself DP's Bernoulli instance (0.75, ..., 0.25); levels: η = 1, 2, 5, 10 as (ε, δ = 1e-6)",
        env="bernoulli", env_params=dict(gdp_ts.BERNOULLI[1]), budgets=_gdp_levels, delta=GDP_DELTA,
        horizon=100_000, runs=200, tuning_steps=96, include=["central"],
        quick_include=["modified-thompson", "dp-se"]),
    "gdp-ts-bernoulli-pure": dict(
        title="TS is itself DP's Bernoulli instance, pure ε-DP at the ε that implies η-GDP (η = 1, 2, 5, 10)",
        env="bernoulli", env_params=dict(gdp_ts.BERNOULLI[1]), budgets=functools.partial(_gdp_levels, pure=True),
        delta=0.0, horizon=100_000, runs=200, include=["central"], quick_include=["lazy-ucb", "dp-se"]),
    "ldp-ts-testbed20": dict(
        title="LDP Thompson sampling's 20-arm testbed, local mechanisms", env="testbed20", env_params={},
        budgets=[0.5, 1.0, 2.0, 4.0], delta=0.0, notion="local", horizon=100_000, runs=200,
        include=["thompson", "ucb1", "klucb-cf+randomized-response", "ts-cf+randomized-response", "ldp-rse"],
        quick_include=["thompson+linear", "ldp-rse"]),
    "heavy-s1": dict(
        title="Heavy-tailed DP bandits' S1 (Pareto arms, v = 0.9, u = 8.142)", env="pareto",
        env_params={"means": S1, "v": 0.9}, budgets=[0.5, 1.0, 2.0], delta=0.0, horizon=100_000, runs=90,
        include=["dp-rse", "dp-rucb", "ldp-rse"], quick_include=["dp-rse", "ldp-rse"],
        policy_params={name: HEAVY for name in ("dp-rse", "dp-rucb", "ldp-rse")}),
}


def run(name: str, out: str, quick: bool = False, progress: bool = True):
    """The frontier of one instance, written to OUT/NAME; returns the `Frontier`."""
    s = dict(INSTANCES[name])
    folder = os.path.join(out, name)
    for f in ("table.txt", "frontier.png"):
        checks.writable_file("--out", os.path.join(folder, f))
    s.pop("title")
    include, quick_include = s.pop("include"), s.pop("quick_include")
    env, budgets = s.pop("env"), budgets_of(s)
    s.pop("budgets")
    if quick:
        s.update(horizon=2_000, runs=20, tuning_runs=10, tuning_steps=4)
    front = jb.frontier(env, budgets, include=quick_include if quick else include, out=folder, progress=progress,
                        **s)
    with open(os.path.join(folder, "table.txt"), "w") as f:
        f.write(front.table() + "\n")
    plotting.save(figure(name, front, quick), os.path.join(folder, "frontier.png"))
    return front


def figure(name: str, front, quick: bool = False):
    """The frontier's figure, titled with its instance."""
    prefix = "QUICK (small T, few runs): " if quick else ""
    return plotting.frontier_figure(front, title=f"{prefix}privacy–regret frontier: {INSTANCES[name]['title']}, "
                                                 f"T = {front.config['horizon']:g}, {front.config['runs']} runs")


def record(names, out: str, path: str = RECORDED) -> None:
    """Copy the rows of OUT/NAME/frontier.json (without the curves) into ``path``, instance by instance."""
    recorded = checks.read_json("recorded frontiers file", path) if os.path.exists(path) else {}
    for name in names:
        saved = Frontier.load(os.path.join(out, name, "frontier.json")).to_dict()
        saved.pop("curves")
        recorded[name] = saved

    def write(tmp):
        with open(tmp, "w") as f:
            json.dump(dict(sorted(recorded.items())), f, indent=1)
    checks.written("the recorded frontiers", path, write)


def recorded_frontiers(path: str = RECORDED) -> dict:
    """``{instance: Frontier}`` (rows only, no curves) from the committed results."""
    return {name: Frontier.from_dict(d) for name, d in checks.read_json("recorded frontiers file", path).items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="out/frontier")
    ap.add_argument("--only", nargs="+", choices=sorted(INSTANCES), metavar="NAME")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true", help=f"copy the rows into {os.path.relpath(RECORDED)}")
    ap.add_argument("--replot", action="store_true", help="draw OUT/NAME/frontier.png from the recorded rows only")
    ap.add_argument("--devices", type=int, help="CPU devices to shard the runs over (default: one per core)")
    args = ap.parse_args(argv)
    # one device per core (a run's numbers do not depend on it; on 2 cores the frontier takes about half the time)
    sharding.start_devices(args.devices, configure=argv is None or args.devices is not None, name="--devices")
    import jax
    print(f"simulating on {jax.device_count()} {jax.default_backend()} device(s)", flush=True)
    names = args.only or list(INSTANCES)
    if args.replot:
        recorded = recorded_frontiers()
        paths = {name: checks.writable_file("--out", os.path.join(args.out, name, "frontier.png")) for name in names}
        for name, path in paths.items():
            plotting.save(figure(name, recorded[name]), path)
            print(path)
        return
    if args.quick and args.record:
        ap.error("--record keeps the full runs only; drop --quick")
    for name in names:
        print(run(name, args.out, args.quick).table())
    if args.record:
        record(names, args.out)


if __name__ == "__main__":
    main()
