"""The ``jaxbandit`` command: list, run, privacy, audit, tune, reproduce."""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

import numpy as np


def _number_list(text: str):
    try:
        return [float(x) for x in text.split(",") if x.strip() != ""]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from err


def _integer(text: str) -> int:
    """An integer flag: ``10000``, ``10_000`` or ``1e4`` (a float literal that is an exact integer)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from err
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r} (not an exact integer)")
    return int(value)


NEGATIVE = re.compile(r"^-(\d|\.\d|inf\b)")  # a negative number (list): never one of our flags


def _join_negative_values(argv):
    """``--means -0.1,0.5`` -> ``--means=-0.1,0.5``: argparse would read the value as an unknown flag."""
    out = []
    for arg in argv:
        if out and NEGATIVE.match(arg) and out[-1].startswith("--") and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _mixture_arms(specs):
    """``--arm FAMILY:K=V,K=V`` (repeatable; ``N*FAMILY:...`` repeats an arm N times) -> mixture ``arms``."""
    arms = []
    for spec in specs:
        count, _, rest = spec.rpartition("*") if "*" in spec.split(":")[0] else ("1", "", spec)
        family, _, fields = rest.partition(":")
        try:
            values = {k: float(v) for k, v in (f.split("=", 1) for f in fields.split(",") if f)}
            count = int(count)
        except ValueError as err:
            raise ValueError(f"--arm {spec!r} must look like FAMILY:KEY=VALUE,... or N*FAMILY:KEY=VALUE,... with "
                             f"numbers, e.g. 5*beta:alpha=4,beta=1") from err
        arms += [(family.strip(), values)] * count
    return arms


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
    if path:
        from jaxbandit import checks
        checks.writable_file(flag, path)


def run_request(args) -> dict:
    """The keyword arguments of `jaxbandit.simulate` that ``jaxbandit run`` ARGS asks for."""
    env_params = _key_values(args.env_param, "--env-param")
    if args.means is not None:
        env_params["means"] = args.means
    if args.arm:
        if args.env != "mixture":
            raise ValueError(f"--arm describes the arms of --env mixture, not of --env {args.env}")
        env_params["arms"] = _mixture_arms(args.arm)
    priv_params = _key_values(args.privatizer_param, "--privatizer-param")
    if args.epsilon is not None:
        priv_params["epsilon"] = args.epsilon
    return dict(env=args.env, policy=args.policy, privatizer=args.privatizer, env_params=env_params,
                policy_params=_key_values(args.policy_param, "--policy-param"), privatizer_params=priv_params,
                horizon=args.horizon, runs=args.runs, seed=args.seed)


def cmd_run(args) -> int:
    import jax

    from jaxbandit import simulate
    writer = jax.process_index() == 0  # in a multi-process run, process 0 writes the outputs
    for path, flag in ((args.json, "--json"), (args.plot, "--plot"), (args.save and args.save + ".npz", "--save")):
        if writer:
            _output_path(path, flag)
    if args.simulator == "epochs":  # one piece: nothing to checkpoint or chunk
        res = simulate(**run_request(args), simulator="epochs", progress=False)
    else:
        checkpoint = None if args.checkpoint == "none" else args.checkpoint
        res = simulate(**run_request(args), checkpoint=checkpoint, keep_checkpoint=True,
                       chunk_steps=args.chunk_steps, progress=args.progress,
                       devices=None if jax.process_count() > 1 else args.devices)  # several: --devices per process
    checkpoint = res.checkpoint
    failure = None
    if writer:
        try:
            _write_run_outputs(args, res)
        except OSError as err:
            failure = err
    several = jax.process_count() > 1
    if several:  # every process keeps its checkpoint unless process 0 wrote the outputs
        from jaxbandit import sharding
        written = sharding.agree(int(failure is None), sharding.device_mesh(None))  # >= 1 device per process
        if not written and failure is None:
            failure = OSError("process 0 could not write the outputs")
    if failure is not None:
        kept = (f"the finished run is kept in {checkpoint}{' (and each process its own file)' if several else ''}: "
                f"fix the path and run the same command again{' in every process' if several else ''} (it resumes "
                f"from there without simulating)") if checkpoint else (
            "the epoch simulation keeps no checkpoint: fix the path and run it again" if args.simulator == "epochs"
            else "pass --checkpoint to keep finished runs")
        raise ValueError(f"writing the outputs failed ({failure}); {kept}") from failure
    if checkpoint and not args.keep_checkpoint and os.path.exists(checkpoint):
        os.remove(checkpoint)
    return 0


def _write_run_outputs(args, res) -> None:
    s = res.summary()
    print(f"{args.policy} on {args.env} ({res.counts.shape[-1]} arms), privatizer {args.privatizer}: "
          f"T={s['horizon']}, {s['runs']} runs, seed {args.seed}")
    print(f"  final pseudo-regret  {s['final_regret_mean']:.4g} ± {s['final_regret_se']:.2g} (SE)")
    print(f"  final realized regret {s['final_realized_regret_mean']:.4g} ± {s['final_realized_regret_se']:.2g} (SE)")
    print(f"  mean pulls per arm    {np.array2string(res.counts.mean(axis=0), precision=1)}")
    where = res.config.get("devices", 1)
    where = f" on {where} devices" + (f" of {res.config['processes']} processes" if "processes" in res.config else
                                      "") if where > 1 else ""
    print(f"  {s['seconds']:.2f} s{where}, {s['agent_steps_per_second']:.3g} agent-steps/s (compilation included)")
    if args.save:
        res.save(args.save)
    if args.json:
        with open(args.json + ".tmp", "w") as f:
            json.dump({**s, "seed": args.seed, "config": res.config}, f, indent=1)
        os.replace(args.json + ".tmp", args.json)
    if args.plot:
        from jaxbandit import plotting
        title = f"{args.policy} on {args.env}, T = {s['horizon']}, {s['runs']} runs"
        plotting.save(plotting.regret_figure([(args.policy, res)], title), args.plot)


PRIVATE_TS = ("gaussian-thompson", "modified-thompson")  # the policies with a GDP guarantee (seed 001)


def _claimed() -> list[str]:
    """Policies that report a privacy claim (`Policy.privacy`), besides private TS's GDP accounting."""
    from jaxbandit import policies
    return [n for n in policies.names() if policies.get(n, 2).privacy is not None]


def cmd_privacy(args) -> int:
    from jaxbandit import checks, policies
    from jaxbandit.privacy import thompson as ts_privacy
    _output_path(args.json, "--json")
    checks.known_name("policy with privacy accounting", args.policy, PRIVATE_TS + tuple(_claimed()))
    horizon = checks.positive_int("horizon", args.horizon)
    if args.policy not in PRIVATE_TS:
        return _print_claim(args, horizon)
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


def _print_claim(args, horizon: int) -> int:
    """The claim of a policy that states one (`Policy.privacy`), after its parameter and horizon checks."""
    from jaxbandit import checks, policies, validation
    from jaxbandit.types import SimParams
    if args.delta is not None or args.epsilon is not None or args.tight:
        raise ValueError(f"--delta, --epsilon and --tight apply to {' and '.join(PRIVATE_TS)} only; {args.policy}'s "
                         "(epsilon, delta) are its parameters: --policy-param epsilon=E --policy-param delta=D")
    num_arms = checks.positive_int("arms", args.arms or 2)
    policy = policies.get(args.policy, num_arms)
    params = checks.with_params(policy, **_key_values(args.policy_param, "--policy-param"))
    params = validation.check_horizon(policy, SimParams(None, params, None), horizon).policy
    claim = policy.privacy(params, horizon)
    shown = ", ".join(f"{k}={float(v):g}" for k, v in zip(params._fields, params))
    print(f"{args.policy} ({shown}), T={horizon}, {num_arms} arms")
    print(f"  (epsilon, delta) = ({claim.epsilon:.6g}, {claim.delta:.3g}): {claim.notion}")
    print(f"  proof: {claim.source}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"policy": args.policy, "horizon": horizon, "num_arms": num_arms, **claim._asdict(),
                       "params": {k: float(v) for k, v in zip(params._fields, params)}}, f, indent=1)
    return 0


def cmd_audit(args) -> int:
    from jaxbandit import checks
    from jaxbandit.privacy import audit, components
    for path, flag in ((args.json, "--json"), (args.plot, "--plot"), (args.table, "--table")):
        _output_path(path, flag)
    if args.list:
        width = max(map(len, components.names()))
        for name in components.names():
            bugs = ", ".join(components.BUGS[name]) or "none"
            print(f"  {name:<{width}}  {components.REGISTRY.describe(name)} [planted bugs: {bugs}]")
        print("planted bugs (--bug): " + "; ".join(f"{k}: {v}" for k, v in components.BUG_DESCRIPTIONS.items()))
        return 0
    if args.all == (args.name is not None):
        raise ValueError("give one audit NAME or --all (see `jaxbandit audit --list`)" if not args.all
                         else "--all audits every component: give no NAME")
    if args.name is not None:
        components.REGISTRY[args.name]  # an unknown name fails before anything runs
    if args.trials is not None:
        checks.in_range("trials", args.trials, 100, 10**9)
    checks.in_range("confidence", args.confidence, 0.0, 1.0, low_open=True, high_open=True)
    if args.all:
        if args.param or args.bug or args.plot:
            raise ValueError("--param, --bug and --plot apply to one audit NAME, not to --all")
        rows = []
        for name in components.names():
            result = audit.run(components.make(name), args.trials, confidence=args.confidence, seed=args.seed)
            rows.append(result.as_json())
            print(_audit_line(result), flush=True)
        table = audit_table(rows)
        print(table)
        if args.table:
            with open(args.table, "w") as f:
                f.write(table + "\n")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
        return 0
    result = audit.run(components.make(args.name, bug=args.bug, **_key_values(args.param, "--param")), args.trials,
                       confidence=args.confidence, seed=args.seed)
    print(_audit_line(result))
    print(f"  event: {result.event}; counts {result.counts[0]} vs {result.counts[1]} of {result.trials}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.as_json(), f, indent=1)
    if args.plot:
        from jaxbandit import plotting
        plotting.save(plotting.audit_figure(result), args.plot)
    return 1 if result.violated else 0


def _audit_line(result) -> str:
    kind = "epsilon" if result.claim_kind == "epsilon" else "mu"
    exact = "n/a" if result.exact is None else f"{result.exact:.4g}"
    delta = f", delta {result.delta:.3g}" if result.claim_kind == "epsilon" and result.delta else ""
    verdict = "VIOLATED" if result.violated else "not violated"
    bug = f" [planted bug: {result.bug}]" if result.bug else ""
    return (f"{result.component}{bug}: {kind} claim {result.claim:.4g}{delta}; lower bound {result.lower_bound:.4g} "
            f"({result.confidence:.0%} confidence, {result.trials} trials per side); exact {exact}: {verdict}")


def audit_table(rows) -> str:
    """The privacy report: one Markdown row per audit result (`AuditResult.as_json`)."""
    lines = ["| component | claim | audited lower bound | exact level | trials per side | reproduce |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        sym = "ε" if r["claim_kind"] == "epsilon" else "μ"
        claim = f"{sym} = {r['claim']:.4g}" + (f", δ = {r['delta']:.3g}" if r.get("delta") else "")
        exact = "—" if r["exact"] is None else f"{r['exact']:.4g}"
        lines.append(f"| {r['component']} | {claim} | {r['lower_bound']:.4g} | {exact} | {r['trials']:,} | "
                     f"`jaxbandit audit {r['component']}` |")
    return "\n".join(lines)


def cmd_reproduce(args) -> int:
    from jaxbandit import checks
    from jaxbandit.experiments import load, runner
    for i in args.ids:
        load(i)  # unknown ids fail before any folder is made
    dirs, cache = runner.output_dirs(args.ids, args.out, args.quick)
    for folder, flag in [(d, "--out") for d in dirs.values()] + [(args.cache or cache, "--cache")]:
        checks.writable_file(flag, os.path.join(folder, "summary.csv"))  # creates the folder, checks it
    runner.reproduce(args.ids, args.out, quick=args.quick, cache=args.cache, progress=args.progress,
                     devices=args.devices)
    for out in dirs.values():
        print(f"wrote {out}/summary.csv and figures in {out}/")
    return 0


def cmd_tune(args) -> int:
    from jaxbandit import tuning
    for path, flag in ((args.json, "--json"), (args.plot, "--plot")):
        _output_path(path, flag)
    env_params = _key_values(args.env_param, "--env-param")
    if args.means is not None:
        env_params["means"] = args.means
    request = dict(env=args.env, policy=args.policy, env_params=env_params,
                   policy_params=_key_values(args.policy_param, "--policy-param"), eta_budget=args.eta_budget,
                   epsilon=args.epsilon, delta=args.delta, accounting=args.accounting, param=args.param,
                   horizon=args.horizon)
    if args.grid_points:
        from jaxbandit import checks
        checks.positive_int("--grid-points", args.grid_points, minimum=2)
        checks.positive_int("--grid-runs", args.grid_runs, minimum=2)
    tuned = tuning.tune(**request, runs=args.runs, steps=args.steps, seed=args.seed, estimator=args.estimator,
                        sigma=args.sigma, learning_rate=args.learning_rate, init=args.init, progress=args.progress)
    name = tuned.config["param"]
    shown = ", ".join(f"{k} = {v:.6g}" for k, v in tuned.params.items())
    print(f"tuned {args.policy} on {args.env}, T = {tuned.config['horizon']}: {shown}")
    if tuned.eta is not None:
        print(f"  privacy: eta = {tuned.eta:.6g}-GDP, (epsilon, delta) = ({tuned.epsilon:.6g}, {tuned.delta:.3g})-DP "
              f"({args.accounting} accounting)")
    print(f"  {tuned.agent_steps:.4g} agent-steps in {len(tuned.trace)} steps, {tuned.seconds:.1f} s")
    grid = None
    if args.grid_points:
        values = _grid_values(tuned, args.grid_points)
        grid = tuning.grid(**request, values=values, runs=args.grid_runs, seed=args.seed + 1)
        best = grid.best()
        print(f"  grid of {len(values)} values of {name}, {args.grid_runs} runs each: best {name} = "
              f"{grid.values[best]:.6g}, regret {grid.mean[best]:.5g} ± {grid.se[best]:.2g} "
              f"({grid.agent_steps:.4g} agent-steps)")
    if args.json:
        out = tuned.to_dict()
        if grid is not None:
            out["grid"] = {"values": grid.values.tolist(), "regret_mean": grid.mean.tolist(),
                           "regret_se": grid.se.tolist(), "runs": args.grid_runs, "agent_steps": grid.agent_steps}
        with open(args.json + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
        os.replace(args.json + ".tmp", args.json)
    if args.plot:
        from jaxbandit import plotting
        plotting.save(plotting.tuning_figure(tuned, grid), args.plot)
    return 0


def _grid_values(tuned, points):
    """``points`` values of the tuned parameter over its whole range: b log-spaced in [0, b_max] (integers),
    a bounded parameter evenly in logit, a positive one log-spaced around the trajectory."""
    c = tuned.config
    if tuned.eta is not None:
        from jaxbandit.tuning import _BudgetSpace
        b_max = _BudgetSpace(1.0, c["horizon"], _num_arms(c), c["accounting"] == "tight").b_max
        return np.unique(np.round(np.expm1(np.linspace(0.0, np.log1p(b_max), points)))).astype(int)
    xs = np.array([row[c["param"]] for row in tuned.trace])
    return np.geomspace(xs.min() / 3, min(xs.max() * 3, 1.0 - 1e-6) if c["param"] == "epsilon" else xs.max() * 3,
                        points)


def _num_arms(config):
    from jaxbandit import envs
    env, _ = envs.make(config["env"], **(config["env_params"] or {}))
    return env.num_arms


DEVICES_HELP = ("devices to shard the runs over: on a CPU host, N CPU devices (default: one per core); on a GPU or "
                "TPU host, the first N accelerators (default: all); in a multi-process run, the CPU devices of each "
                "process. The numbers do not depend on it")


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
    r.add_argument("--arm", action="append", metavar="[N*]FAMILY:K=V,...",
                   help="an arm of --env mixture (repeat per arm; N* repeats it), e.g. --arm bernoulli:means=0.9 "
                        "--arm 5*beta:alpha=4,beta=1")
    r.add_argument("--horizon", type=_integer, required=True, help="T (1e6 style accepted)")
    r.add_argument("--runs", type=_integer, required=True)
    r.add_argument("--seed", type=_integer, default=0, help="in [0, 2^32 - 1]")
    r.add_argument("--json", metavar="FILE", help="write the summary as JSON")
    r.add_argument("--plot", metavar="FILE", help="write the regret curve (PNG)")
    r.add_argument("--save", metavar="BASE", help="write the results (BASE.npz, BASE.json; jaxbandit.Results.load)")
    r.add_argument("--checkpoint", metavar="FILE", default="auto",
                   help="save the state every chunk and resume from it (default: auto, a file named by the "
                        "configuration in ~/.cache/jaxbandit/checkpoints or $JAXBANDIT_CACHE/checkpoints, so the "
                        "same command resumes; none: no checkpoint); removed once the outputs are written")
    r.add_argument("--keep-checkpoint", action="store_true", help="keep the checkpoint after the run")
    r.add_argument("--chunk-steps", type=_integer, metavar="STEPS",
                   help="steps per chunk between progress updates and checkpoints (default: about 2 s of work)")
    r.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal, after 3 s); a run with over a minute left prints "
                        "its estimated time left either way")
    r.add_argument("--simulator", choices=("steps", "epochs"), default="steps",
                   help="steps: the engine (every policy); epochs: successive elimination (dp-rse, ldp-rse) phase "
                        "by phase, the same law, faster, in one piece (no checkpoint or progress)")
    r.add_argument("--devices", type=_integer, metavar="N", help=DEVICES_HELP)
    m = r.add_argument_group("several processes (jax.distributed; README: Beyond one machine)")
    m.add_argument("--coordinator", metavar="HOST:PORT", help="process 0's address; every process runs the same "
                                                              "command with its own --process-id")
    m.add_argument("--num-processes", type=_integer, metavar="N", help="number of processes")
    m.add_argument("--process-id", type=_integer, metavar="I", help="this process's index in [0, N)")
    m.add_argument("--cluster", action="store_true", help="let JAX find the coordinator and the processes on a "
                                                          "cluster it knows (SLURM, Open MPI, ...)")
    r.set_defaults(fn=cmd_run)

    v = sub.add_parser("privacy", help="the privacy guarantee of a private policy: GDP and (epsilon, delta) of "
                                       "private Thompson sampling, the claims of the others")
    v.add_argument("--policy", required=True, help=" or ".join(PRIVATE_TS) + ", or a policy that states a claim "
                                                   "(e.g. dp-ftpl-new, dp-rse, dp-se, lazy-ucb, dp-ucb)")
    v.add_argument("--policy-param", action="append", metavar="K=V",
                   help="b=9, c=1 (modified-thompson); epsilon=1, delta=0.01 (seed 003's policies)")
    v.add_argument("--horizon", type=_integer, required=True)
    which = v.add_mutually_exclusive_group()
    which.add_argument("--delta", type=float, help="report epsilon(delta) (default: delta = 1e-6)")
    which.add_argument("--epsilon", type=float, help="report delta(epsilon)")
    v.add_argument("--tight", action="store_true", help="compose only the T - bN data-dependent rounds (needs --arms)")
    v.add_argument("--arms", type=_integer, help="number of arms N (for --tight and the b*N < T check; the start "
                                                 "phase's length for dp-ftpl-gauss/beta; default 2)")
    v.add_argument("--json", metavar="FILE", help="write eta, epsilon, delta as JSON")
    v.set_defaults(fn=cmd_privacy)

    t = sub.add_parser("tune", help="tune a policy's parameters by gradient on the simulated regret",
                       description="Tune modified-thompson's (b, c) under a privacy budget (c on the budget's "
                                   "boundary), or one parameter of a policy (--param, no budget), by stochastic "
                                   "gradient (optax Adam) on the simulated regret.")
    t.add_argument("--env", required=True, help="environment name (see `jaxbandit list`)")
    t.add_argument("--means", type=_number_list, help="comma-separated arm means (Bernoulli, Gaussian)")
    t.add_argument("--env-param", action="append", metavar="K=V", help="environment parameter, e.g. rates=0.1,1")
    t.add_argument("--policy", default="modified-thompson")
    t.add_argument("--policy-param", action="append", metavar="K=V", help="fixed parameters of the policy")
    t.add_argument("--eta-budget", type=float, help="GDP budget eta (tunes b, with c = c*(b))")
    t.add_argument("--epsilon", type=float, help="(epsilon, delta) budget: epsilon (with --delta)")
    t.add_argument("--delta", type=float, help="(epsilon, delta) budget: delta (with --epsilon)")
    t.add_argument("--accounting", default="paper", help="paper: sqrt(T/(c(b+1))) (seed 001 Lemma 5); tight: "
                                                         "T-bN rounds, n >= max(b,1)")
    t.add_argument("--param", help="the parameter to tune without a budget, e.g. epsilon of epsilon-greedy")
    t.add_argument("--horizon", type=_integer, required=True, help="T (1e5 style accepted)")
    t.add_argument("--runs", type=_integer, default=32, help="runs per simulated point per step (default 32)")
    t.add_argument("--steps", type=_integer, default=40, help="optimisation steps (default 40)")
    t.add_argument("--seed", type=_integer, default=0)
    t.add_argument("--estimator", default="smoothed", help="smoothed (default) or score")
    t.add_argument("--sigma", type=float, default=0.15, help="smoothing half-width in log(b+1) (default 0.15)")
    t.add_argument("--learning-rate", type=float, default=0.25, help="Adam step in log(b+1) (default 0.25)")
    t.add_argument("--init", type=float, help="starting b (or parameter value)")
    t.add_argument("--grid-points", type=_integer, default=0,
                   help="also simulate a grid of this many values (for the plot and the comparison)")
    t.add_argument("--grid-runs", type=_integer, default=200, help="runs per grid point (default 200)")
    t.add_argument("--json", metavar="FILE", help="write b, c, eta, epsilon, delta, agent_steps and the trace")
    t.add_argument("--plot", metavar="FILE", help="write the optimisation trajectory (PNG)")
    t.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="a line per optimisation step (default: on)")
    t.set_defaults(fn=cmd_tune)

    a = sub.add_parser("audit", help="audit a privacy claim empirically (Clopper-Pearson lower bound)",
                       description="Run a private component many times on two neighbouring inputs, choose an output "
                                   "event on held-out trials and report a Clopper-Pearson lower bound on its epsilon "
                                   "(or mu for GDP claims). Exit status 1 if the bound exceeds the claim.")
    a.add_argument("name", nargs="?", metavar="NAME", help="component (see --list)")
    a.add_argument("--all", action="store_true", help="audit every component and print the privacy report table")
    a.add_argument("--list", action="store_true", help="list the audits and their planted bugs")
    a.add_argument("--param", action="append", metavar="K=V", help="a parameter of the audit, e.g. epsilon=0.5")
    a.add_argument("--bug", help="run a planted bug instead of the library's mechanism (see --list)")
    a.add_argument("--trials", type=_integer, help="test trials per neighbour (default: the audit's; selection "
                                                   "uses a quarter more, held out)")
    a.add_argument("--confidence", type=float, default=0.95, help="confidence of the lower bound (default 0.95)")
    a.add_argument("--seed", type=_integer, default=0)
    a.add_argument("--json", metavar="FILE", help="write the result (--all: the list of results) as JSON")
    a.add_argument("--plot", metavar="FILE", help="write the empirical trade-off curve against the claimed one (PNG)")
    a.add_argument("--table", metavar="FILE", help="--all: write the Markdown table")
    a.set_defaults(fn=cmd_audit)

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
    q.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars (default: on a terminal)")
    q.add_argument("--devices", type=_integer, metavar="N", help=DEVICES_HELP)
    q.set_defaults(fn=cmd_reproduce)
    return p


def _start_devices(requested: int | None, command_line: bool) -> None:
    """One CPU device per core (or ``--devices N``) before JAX starts, so that sweeps shard over every core. When
    JAX has already started in this process, its devices stay as they are and ``--devices N`` picks the first N
    of them (`jaxbandit.sharding.device_mesh` checks the range). ``main(argv)`` called from Python configures
    JAX only when given ``--devices`` (the caller's process keeps its own settings)."""
    from jaxbandit import sharding
    if requested is not None and requested < 1:
        raise ValueError(f"--devices {requested} must be a positive integer")
    if requested is None and not command_line:
        return
    try:
        sharding.use_cpu_devices(requested)
    except sharding.JaxStarted:  # JAX started earlier in this process
        if requested is not None:
            sharding.device_mesh(requested)  # a clear error now rather than after the first simulation


def _start_processes(args) -> bool:
    """``jaxbandit run`` as one of several processes (`jaxbandit.sharding.initialize`), each with ``--devices``
    CPU devices (default: one per core); False when no process flag was given."""
    flags = {"--coordinator": getattr(args, "coordinator", None), "--num-processes": getattr(args, "num_processes", None),
             "--process-id": getattr(args, "process_id", None)}
    given = [k for k, v in flags.items() if v is not None]
    if not given and not getattr(args, "cluster", False):
        return False
    from jaxbandit import sharding
    if getattr(args, "cluster", False):
        if given:
            raise ValueError(f"--cluster finds the processes itself: drop {', '.join(given)}")
    elif len(given) != 3:
        raise ValueError(f"a multi-process run needs --coordinator, --num-processes and --process-id (got only "
                         f"{', '.join(given)})")
    else:
        n, i = flags["--num-processes"], flags["--process-id"]
        if n < 1:
            raise ValueError(f"--num-processes {n} must be at least 1")
        if not 0 <= i < n:
            raise ValueError(f"--process-id {i} must be in [0, {n}) for --num-processes {n}")
    if args.devices is not None and args.devices < 1:
        raise ValueError(f"--devices {args.devices} must be a positive integer")
    try:
        sharding.initialize(flags["--coordinator"], flags["--num-processes"], flags["--process-id"],
                            cpu_devices=args.devices or sharding.cores())
    except sharding.JaxStarted as err:
        raise ValueError("a multi-process run must start JAX itself: run the command in a fresh process") from err
    except RuntimeError as err:
        where = ("the processes JAX found on this cluster" if args.cluster else
                 f"{flags['--coordinator']} as process {flags['--process-id']} of {flags['--num-processes']}")
        raise ValueError(f"could not join {where}: {err}") from err
    return True


def main(argv=None) -> int:
    from jaxbandit.simulation import Interrupted
    args = build_parser().parse_args(_join_negative_values(sys.argv[1:] if argv is None else argv))
    if getattr(args, "progress", None) is None and hasattr(args, "progress"):
        args.progress = None if sys.stderr.isatty() else False
    import warnings
    format_warning = warnings.formatwarning
    if hasattr(args, "devices"):
        try:
            if not _start_processes(args):
                _start_devices(args.devices, command_line=argv is None)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    warnings.formatwarning = lambda message, *a, **k: f"warning: {message}\n"  # no source line: not a traceback
    try:
        return args.fn(args)
    except (ValueError, FloatingPointError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except Interrupted as err:
        print(f"\n{err}", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = format_warning


if __name__ == "__main__":
    sys.exit(main())
