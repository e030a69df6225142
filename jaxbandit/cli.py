"""The ``jaxbandit`` command: list, run, privacy, reproduce."""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np


def _number_list(text: str):
    try:
        return [float(x) for x in text.split(",") if x.strip() != ""]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from err


def _key_values(pairs, flag):
    """``["k=v", "k=1,2"]`` -> ``{"k": v, "k": [1, 2]}`` (numbers where they parse)."""
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise SystemExit(f"error: {flag} expects KEY=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        items = value.split(",")
        try:
            nums = [float(x) for x in items]
            out[key] = nums if len(items) > 1 else nums[0]
        except ValueError:
            out[key] = value
    return out


def cmd_list(args) -> int:
    from jaxbandit import envs, experiments, policies, privatizers
    sections = [("policies", policies.REGISTRY.descriptions()),
                ("environments", envs.REGISTRY.descriptions()),
                ("privatizers", privatizers.REGISTRY.descriptions()),
                ("experiments", {k: e.description for k, e in experiments.REGISTRY.items()})]
    for title, entries in sections:
        print(f"{title}:")
        width = max(len(k) for k in entries)
        for name in sorted(entries):
            print(f"  {name:<{width}}  {entries[name]}")
    return 0


def _output_path(path: str | None, flag: str) -> None:
    """Create the folder of an output file and check that it can be written, before any simulation runs."""
    if not path:
        return
    import os
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ValueError(f"{flag} {path}: cannot create its folder ({err.strerror})") from err
    if os.path.isdir(path) or not os.access(folder, os.W_OK):
        raise ValueError(f"{flag} {path}: not a writable file path")


def cmd_run(args) -> int:
    from jaxbandit import simulate
    _output_path(args.json, "--json")
    _output_path(args.plot, "--plot")
    env_params = _key_values(args.env_param, "--env-param")
    if args.means is not None:
        env_params["means"] = args.means
    priv_params = _key_values(args.privatizer_param, "--privatizer-param")
    if args.epsilon is not None:
        priv_params["epsilon"] = args.epsilon
    res = simulate(args.env, args.policy, privatizer=args.privatizer, env_params=env_params,
                   policy_params=_key_values(args.policy_param, "--policy-param"), privatizer_params=priv_params,
                   horizon=args.horizon, runs=args.runs, seed=args.seed, checkpoint=args.checkpoint,
                   progress=None if sys.stderr.isatty() else False)
    s = res.summary()
    print(f"{args.policy} on {args.env} ({res.counts.shape[-1]} arms), privatizer {args.privatizer}: "
          f"T={s['horizon']}, {s['runs']} runs, seed {args.seed}")
    print(f"  final pseudo-regret  {s['final_regret_mean']:.4g} ± {s['final_regret_se']:.2g} (SE)")
    print(f"  final realized regret {s['final_realized_regret_mean']:.4g} ± {s['final_realized_regret_se']:.2g} (SE)")
    print(f"  mean pulls per arm    {np.array2string(res.counts.mean(axis=0), precision=1)}")
    print(f"  {s['seconds']:.2f} s, {s['agent_steps_per_second']:.3g} agent-steps/s (compilation included)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**s, "seed": args.seed, "config": res.config}, f, indent=1)
    if args.plot:
        from jaxbandit import plotting
        title = f"{args.policy} on {args.env}, T = {s['horizon']}"
        plotting.save(plotting.regret_figure([(args.policy, res)], title), args.plot)
    return 0


PRIVATE_TS = ("gaussian-thompson", "modified-thompson")  # the policies with a GDP guarantee (seed 001)


def cmd_privacy(args) -> int:
    from jaxbandit import checks, policies
    from jaxbandit.privacy import thompson as ts_privacy
    _output_path(args.json, "--json")
    checks.known_name("policy with privacy accounting", args.policy, PRIVATE_TS)
    horizon = checks.positive_int("horizon", args.horizon)
    params = checks.with_params(policies.get(args.policy, args.arms or 1),
                                  **_key_values(args.policy_param, "--policy-param"))
    b, c = (params.b, params.c) if args.policy == "modified-thompson" else (0, 1.0)
    import jax
    with jax.enable_x64(True):  # float64: δ(ε) down to 1e-300 instead of float32's 1e-38
        g = ts_privacy.guarantee(int(b), float(c), horizon, delta=args.delta, epsilon=args.epsilon,
                                 num_arms=args.arms, tight=args.tight)
    out = {"eta": float(g.eta), "epsilon": float(g.epsilon), "delta": float(g.delta), "policy": args.policy,
           "b": int(b), "c": float(c), "horizon": horizon, "num_arms": args.arms,
           "accounting": "tight: T-bN rounds, n >= max(b,1)" if args.tight else "seed 001 Lemma 5: sqrt(T/(c(b+1)))"}
    print(f"{args.policy} (b={out['b']}, c={out['c']:g}), T={horizon}, accounting {out['accounting']}")
    print(f"  eta = {out['eta']:.6g}-GDP")
    print(f"  (epsilon, delta) = ({out['epsilon']:.6g}, {out['delta']:.3g})-DP")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


def cmd_reproduce(args) -> int:
    from jaxbandit.experiments import runner
    dirs, cache = runner.output_dirs(args.ids, args.out, args.quick)
    runner.reproduce(args.ids, args.out, quick=args.quick, cache=args.cache,
                     progress=None if sys.stderr.isatty() else False)
    for out in dirs.values():
        print(f"wrote {out}/summary.csv and figures in {out}/")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jaxbandit", description="Batched JAX simulation of (private) bandits.")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list policies, environments, privatizers and experiments").set_defaults(fn=cmd_list)

    r = sub.add_parser("run", help="simulate one configuration")
    r.add_argument("--env", required=True, help="environment name (see `jaxbandit list`)")
    r.add_argument("--means", type=_number_list, help="comma-separated arm means (Bernoulli, Gaussian)")
    r.add_argument("--env-param", action="append", metavar="K=V", help="environment parameter, e.g. stds=0.1")
    r.add_argument("--policy", required=True)
    r.add_argument("--policy-param", action="append", metavar="K=V")
    r.add_argument("--privatizer", default="identity")
    r.add_argument("--epsilon", type=float, help="privacy level of the privatizer")
    r.add_argument("--privatizer-param", action="append", metavar="K=V")
    r.add_argument("--horizon", type=int, required=True)
    r.add_argument("--runs", type=int, required=True)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--json", metavar="FILE", help="write the summary as JSON")
    r.add_argument("--plot", metavar="FILE", help="write the regret curve (PNG)")
    r.add_argument("--checkpoint", metavar="FILE", help="save progress after every chunk; resume from it")
    r.set_defaults(fn=cmd_run)

    v = sub.add_parser("privacy", help="GDP and (epsilon, delta) guarantee of private Thompson sampling")
    v.add_argument("--policy", required=True, help=" or ".join(PRIVATE_TS))
    v.add_argument("--policy-param", action="append", metavar="K=V", help="b=9, c=1 (modified-thompson)")
    v.add_argument("--horizon", type=int, required=True)
    which = v.add_mutually_exclusive_group()
    which.add_argument("--delta", type=float, help="report epsilon(delta) (default: delta = 1e-6)")
    which.add_argument("--epsilon", type=float, help="report delta(epsilon)")
    v.add_argument("--tight", action="store_true", help="compose only the T - bN data-dependent rounds (needs --arms)")
    v.add_argument("--arms", type=int, help="number of arms N (for --tight and the b*N < T check)")
    v.add_argument("--json", metavar="FILE", help="write eta, epsilon, delta as JSON")
    v.set_defaults(fn=cmd_privacy)

    q = sub.add_parser("reproduce", help="run experiments, write figures and summary.csv",
                       description="Simulations are cached by content in RESULTS (default: results/ in the output "
                                   "root), so experiments with equal configurations, run together or one after "
                                   "the other, simulate them once; an interrupted run resumes.")
    q.add_argument("ids", nargs="+", metavar="ID", help="experiment ids (see `jaxbandit list`)")
    q.add_argument("--quick", action="store_true", help="small horizon and few runs (seconds)")
    q.add_argument("--out", help="one ID: its output directory (default out/ID); several: the root of their "
                                 "folders ROOT/ID (default out)")
    q.add_argument("--cache", metavar="RESULTS", help="folder of cached simulation results (default: "
                                                      "OUT/results for one ID with --out, else ROOT/results)")
    q.set_defaults(fn=cmd_reproduce)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except (ValueError, FloatingPointError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
