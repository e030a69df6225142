"""The ``jaxbandit`` command: list, run, privacy, audit, tune, frontier, reproduce."""
from __future__ import annotations

import argparse
import os
import re
import sys

import numpy as np


def _numbers(text: str) -> list[float]:
    """``"0.2,0.8"`` -> ``[0.2, 0.8]``: every comma-separated entry a number. An empty entry (``0.2,,0.8``, a
    trailing comma) is a ValueError naming its position, never dropped: it would change the number of arms."""
    items = text.split(",")
    out = []
    for i, item in enumerate(items, 1):
        if item.strip() == "":
            raise ValueError(f"entry {i} of {len(items)} in {text!r} is empty: give a number between every two "
                             "commas, e.g. 0.2,0.5,0.8")
        try:
            out.append(float(item))
        except ValueError:
            raise ValueError(f"entry {i} of {len(items)} in {text!r}, {item.strip()!r}, is not a number") from None
    return out


def _number_list(text: str) -> list[float]:
    """A comma-separated list flag (``--means``, ``--epsilons``) parsed by `_numbers`; an empty text is the empty
    list, which the command refuses naming its flag."""
    if text.strip() == "":
        return []
    try:
        return _numbers(text)
    except ValueError as err:  # argparse prefixes the flag: "argument --means: entry 2 of 3 ..."
        raise argparse.ArgumentTypeError(str(err)) from None


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
            values = {k: float(v) for k, v in (f.split("=", 1) for f in (fields.split(",") if fields else []))}
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
            nums = _numbers(value)
            out[key] = nums if len(items) > 1 else nums[0]
        except ValueError as err:
            if any(_is_number(x) for x in items):  # numbers with an empty or a stray entry: not a word
                raise ValueError(f"{flag} {pair}: {err}") from None
            out[key] = value  # a word or a path (e.g. features=arms.csv)
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def cmd_list(args) -> int:
    from jaxbandit import envs, experiments, policies, privatizers
    sections = [("policies", policies.REGISTRY.descriptions()),
                ("environments", envs.REGISTRY.descriptions()),
                ("privatizers", privatizers.REGISTRY.descriptions()),
                ("experiments", {k: e.description for k, e in experiments.REGISTRY.items()})]
    if getattr(args, "options", False):
        sections = [("policy options (--policy-option KEY=VALUE; the first value is the default)",
                     {n: _options_line(n) for n in policies.names() if policies.option_names(n)})]
    for title, entries in sections:
        print(f"{title}:")
        width = max(len(k) for k in entries)
        for name in sorted(entries):
            print(f"  {name:<{width}}  {entries[name]}")
    return 0


_OPTION_VALUES = {"release": {"discrete": "discrete, float", "tail-safe": "tail-safe, float"},
                  "variant": {"corrected": "corrected, printed"}, "accounting": {"paper": "paper, tight"}}


def _options_line(name: str) -> str:
    from jaxbandit import policies
    return "; ".join(f"{k}: {_OPTION_VALUES.get(k, {}).get(v, v)}" for k, v in policies.option_names(name).items())


def _output_path(path: str | None, flag: str) -> None:
    """Create the folder of an output file and check that it can be written, before any simulation runs."""
    if path:
        from jaxbandit import checks
        checks.writable_file(flag, path)


def _env_params(args) -> dict:
    """The environment parameters of ``--env-param``, ``--means`` and ``--arm``."""
    env_params = _key_values(args.env_param, "--env-param")
    if args.means is not None:
        env_params["means"] = _means(args.means)
    if args.arm:
        if args.env != "mixture":
            raise ValueError(f"--arm describes the arms of --env mixture, not of --env {args.env}")
        env_params["arms"] = _mixture_arms(args.arm)
    return env_params


def run_request(args) -> dict:
    """The keyword arguments of `jaxbandit.simulate` that ``jaxbandit run`` ARGS asks for."""
    env_params = _env_params(args)
    priv_params = _key_values(args.privatizer_param, "--privatizer-param")
    if args.epsilon is not None:
        if "epsilon" in priv_params:
            raise ValueError("--epsilon is the deprecated spelling of --privatizer-param epsilon=E: give one of them")
        print("warning: --epsilon is deprecated: use --privatizer-param epsilon=E (the privatizer's epsilon)",
              file=sys.stderr)
        priv_params["epsilon"] = args.epsilon
    return dict(env=args.env, policy=args.policy, privatizer=args.privatizer, env_params=env_params,
                policy_params=_key_values(args.policy_param, "--policy-param"), policy_options=_policy_options(args),
                privatizer_params=priv_params, horizon=args.horizon, runs=args.runs, seed=args.seed,
                **({} if getattr(args, "realized", True) else {"realized": False}))


def _means(means):
    if not means:
        raise ValueError("--means is empty: give the arms' means, comma-separated, e.g. --means 0.2,0.8")
    return means


def cmd_run(args) -> int:
    import jax

    from jaxbandit import simulate
    writer = jax.process_index() == 0  # in a multi-process run, process 0 writes the outputs
    for path, flag in ((args.json, "--json"), (args.plot, "--plot"), (args.save and args.save + ".npz", "--save")):
        if writer:
            _output_path(path, flag)
    from jaxbandit.spec import SIMULATORS
    in_one_piece = not SIMULATORS[args.simulator].chunked
    if in_one_piece:  # nothing to checkpoint or chunk
        res = simulate(**run_request(args), simulator=args.simulator, progress=False)
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
        except (OSError, ValueError) as err:  # ValueError: a write that failed after its check (checks.written)
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
            "the epoch simulation keeps no checkpoint: fix the path and run it again" if in_one_piece
            else "pass --checkpoint to keep finished runs")
        raise ValueError(f"writing the outputs failed ({failure}); {kept}") from None
    if checkpoint and not args.keep_checkpoint and os.path.exists(checkpoint):
        os.remove(checkpoint)
    return 0


def _write_run_outputs(args, res) -> None:
    s = res.summary()
    print(f"{args.policy} on {args.env} ({res.counts.shape[-1]} arms), privatizer {args.privatizer}: "
          f"T={s['horizon']}, {s['runs']} runs, seed {args.seed}")
    print(f"  final pseudo-regret  {s['final_regret_mean']:.4g} ± {s['final_regret_se']:.2g} (SE)")
    if s["final_realized_regret_mean"] is not None:
        print(f"  final realized regret {s['final_realized_regret_mean']:.4g} ± {s['final_realized_regret_se']:.2g} "
              "(SE)")
    print(f"  mean pulls per arm    {np.array2string(res.counts.mean(axis=0), precision=1)}")
    where = res.config.get("devices", 1)
    where = f" on {where} devices" + (f" of {res.config['processes']} processes" if "processes" in res.config else
                                      "") if where > 1 else ""
    rate = s["simulation_agent_steps_per_second"]
    if s["compile_seconds"] is None:  # results saved before compile time was recorded
        print(f"  {s['seconds']:.2f} s{where}, {s['agent_steps_per_second']:.3g} agent-steps/s (compilation included)")
    else:
        print(f"  {s['seconds']:.2f} s{where}: {s['compile_seconds']:.2f} s compiling or loading compiled programs, "
              + (f"{s['seconds'] - s['compile_seconds']:.2f} s simulating at {rate:.3g} agent-steps/s" if rate else
                 "too short to time the simulation apart"))
    if args.save:
        res.save(args.save)
    if args.json:
        _write_json(args.json, {**s, "seed": args.seed, "config": res.config})
    if args.plot:
        from jaxbandit import plotting
        title = f"{args.policy} on {args.env}, T = {s['horizon']}, {s['runs']} runs"
        plotting.save(plotting.regret_figure([(args.policy, res)], title), args.plot)


def _renamed(args, old: str, new: str, old_flag: str, new_flag: str, how: str = "") -> None:
    """A deprecated spelling of a flag: its value moves to the new one, with a message (scripts keep working)."""
    value = getattr(args, old, None)
    if value is None:
        return
    if getattr(args, new, None) is not None:
        raise ValueError(f"{old_flag} is the deprecated spelling of {new_flag}: give {new_flag} only")
    print(f"warning: {old_flag} is deprecated{how}: use {new_flag}", file=sys.stderr)
    setattr(args, new, value)


def _policy_options(args) -> dict:
    """``--policy-option KEY=VALUE`` (repeatable) as the policy's build-time options (strings)."""
    options = {}
    for pair in getattr(args, "policy_option", None) or []:
        if "=" not in pair:
            raise ValueError(f"--policy-option expects KEY=VALUE, e.g. release=float, got {pair!r}")
        key, value = pair.split("=", 1)
        options[key.strip()] = value.strip()
    return options


def cmd_privacy(args) -> int:
    from jaxbandit import checks, policies
    from jaxbandit.audit import components
    if args.list:
        return _list_private()
    if args.horizon is None:
        raise ValueError("--horizon T is required (the claims of most components depend on it)")
    _renamed(args, "delta", "at_delta", "--delta", "--at-delta")
    _renamed(args, "epsilon", "at_epsilon", "--epsilon", "--at-epsilon")
    if args.tight:
        print("warning: --tight is deprecated: use --policy-option accounting=tight", file=sys.stderr)
    _output_path(args.json, "--json")
    if (args.policy is None) == (args.privatizer is None):
        raise ValueError("give one component: --policy NAME or --privatizer NAME (see `jaxbandit privacy --list`)")
    if args.at_delta is not None and args.at_epsilon is not None:
        raise ValueError("give --at-delta (report epsilon at that delta) or --at-epsilon (delta at that epsilon), "
                         "not both")
    horizon = checks.positive_int("horizon", args.horizon)
    num_arms = checks.positive_int("arms", args.arms or 2)
    if args.policy is not None:
        options = _policy_options(args)
        if args.tight:
            options.setdefault("accounting", "tight")
        name, kind, given = args.policy, "policy", _key_values(args.policy_param, "--policy-param")
    else:
        if args.policy_option or args.tight:
            raise ValueError("--policy-option and --tight apply to --policy")
        name, kind, given = args.privatizer, "privatizer", _key_values(args.privatizer_param, "--privatizer-param")
        options = None
    dim = checks.positive_int("dim", args.dim) if args.dim is not None else None
    if kind == "policy" and policies.is_contextual(name) and dim is None:
        raise ValueError(f"policy {name!r} is contextual: give the features' dimension, --dim D (its claim may "
                         f"depend on it)")
    claim, params = components.claim(kind, name, horizon=horizon, num_arms=num_arms, params=given, options=options,
                                     dim=dim)
    extra = {"options": dict(policies.get(name, num_arms, dim, **options).options)} if kind == "policy" else {}
    at = {"epsilon": args.at_epsilon} if args.at_epsilon is not None else {"delta": args.at_delta or 1e-6}
    record = claim.as_json(**at, kind=kind, params=_plain_params(params), horizon=horizon, num_arms=num_arms,
                           **({"dim": dim} if dim is not None else {}), **extra)
    shown = ", ".join(f"{k}={v}" for k, v in {**record["params"], **extra.get("options", {})}.items())
    print(f"{name} ({shown}), T={horizon}, {num_arms} arms")
    print(f"  claim: {claim.describe()}")
    pair = record["at"]
    print(f"  (epsilon, delta) = ({pair['epsilon']:.6g}, {pair['delta']:.3g})-DP" +
          ("  (exact GDP conversion)" if claim.notion == "gdp" else "  (its privacy profile)"))  # a label only
    print(f"  protects: {claim.protects}")
    print(f"  proof: {claim.source}")
    if args.json:
        _write_json(args.json, record)
    return 0


def cmd_bounds(args) -> int:
    from jaxbandit import spec as specs, theory
    if args.table1 is not None:
        from jaxbandit.experiments import heavy_tailed as heavy_experiments
        print(heavy_experiments.table1_markdown(args.table1))
        return 0
    if args.list:
        for name in theory.REGISTRY:
            b = theory.REGISTRY[name]
            print(f"  {name:<26} {b.citation}  {b.kind:<5}  {b.result}"
                  f"{'  (asymptotic)' if b.asymptotic else ''}  [{', '.join(b.policies)}]")
        return 0
    if args.policy is None or args.env is None or args.horizon is None:
        raise ValueError("give the policy, --env and --horizon (or --list)")
    _output_path(args.json, "--json")
    request = run_request(argparse.Namespace(**{**vars(args), "runs": 1, "seed": 0, "epsilon": None}))
    for key in ("runs", "seed"):
        request.pop(key)
    spec = specs.resolve(**request)  # the parameters the bounds are evaluated at, bound to T
    params = {"policy": _plain_params(spec.params.policy)}
    if spec.privatizer.name != "identity":
        params["privatizer"] = _plain_params(spec.params.privatizer)
    trivial = theory.trivial_bound("regret", spec.horizon, theory.namespace(spec).get("means"))
    shown = ", ".join(f"{k}={v}" for side in params.values() for k, v in side.items())
    print(f"{args.policy} ({shown}) on {args.env} ({spec.env.num_arms} arms), T = {spec.horizon}: no run exceeds "
          + (f"a regret of T·max gap = {trivial:.6g} or " if trivial is not None else "")
          + f"T = {spec.horizon} pulls of an arm (an upper bound at or above these is vacuous)")
    values = theory.evaluate(request.pop("env"), request.pop("policy"), request.pop("privatizer"),
                             constants=_key_values(args.constant, "--constant"), **request)
    if not values:
        print(f"no bound of the seed papers speaks about {args.policy} (`jaxbandit bounds --list`)")
    records = [v.as_dict() for v in values]
    for value, record in zip(values, records):
        print(f"{record['name']:<26} {record['kind']:<5} {_bound_text(value, record)}")
        asymptotic = "; asymptotic (a rate or liminf)" if record["asymptotic"] else ""
        print(f"    {value.bound.citation} {record['result']}{asymptotic}"
              f"{'; ' + record['note'] if record['note'] else ''}")
    if args.json:
        _write_json(args.json, {"policy": args.policy, "env": args.env, "horizon": request["horizon"],
                                "params": params, "bounds": records})
    return 0


def _bound_text(value, record) -> str:
    """A bound's value as `cmd_bounds` prints it: the number (per-arm pulls a list), its λ, and VACUOUS where the
    bound is at or above what no run exceeds (for pulls, the arms where it is, unless it is all of them)."""
    shown = record["value"]
    if shown is None:
        return f"not applicable: {value.reason}"
    extra = "".join(f", {k} = {v:.4g}" for k, v in (value.extra or {}).items())
    if isinstance(shown, list):
        text = "pulls per arm [" + ", ".join("best" if x is None else f"{x:.4g}" for x in shown) + "]" + extra
        over = [i for i, x in enumerate(shown) if x is not None and value.trivial is not None and x >= value.trivial]
        if value.vacuous:
            return f"{text}  VACUOUS: at or above T = {value.trivial:.6g} pulls for every arm"
        return text + (f"  vacuous for arm(s) {', '.join(map(str, over))}: at or above T = {value.trivial:.6g}"
                       if over else "")
    text = f"{shown:.6g}" + (f"  ({value.reason})" if value.reason else "") + extra
    return text + (f"  VACUOUS: at or above T·max gap = {value.trivial:.6g}" if value.vacuous else "")


def _list_private() -> int:
    from jaxbandit.accounting.accountants import NOTIONS, SCOPES
    from jaxbandit.audit import components
    rows = components.private_components()
    width = max(len(n) for n, _, _ in rows)
    for name, kind, acc in rows:
        print(f"  {name:<{width}}  {kind:<10}  {NOTIONS[acc.notion]:<10} over {SCOPES[acc.scope]}")
    return 0


def _plain_params(params) -> dict:
    """A params NamedTuple's set fields as the user writes them (`jaxbandit.checks.as_written`: 0.1, not the
    float64 of a float32 0.1)."""
    from jaxbandit import checks
    return {k: checks.as_written(v) for k, v in zip(params._fields, params) if v is not None}


def _write_json(path: str, data) -> None:
    """JSON written atomically (`jaxbandit.checks.write_json`); an OSError becomes one clear line."""
    from jaxbandit import checks
    checks.write_json("JSON file", path, data)


def cmd_audit(args) -> int:
    from jaxbandit import checks
    from jaxbandit.audit import components, montecarlo as audit
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
            checks.written("--table", args.table, lambda tmp: open(tmp, "w").write(table + "\n"))
        if args.json:
            _write_json(args.json, rows)
        return 0
    result = audit.run(components.make(args.name, bug=args.bug, **_key_values(args.param, "--param")), args.trials,
                       confidence=args.confidence, seed=args.seed)
    print(_audit_line(result))
    print(f"  event: {result.event}; counts {result.counts[0]} vs {result.counts[1]} of {result.trials}")
    if args.json:
        _write_json(args.json, result.as_json())
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
    """The privacy report's table (`jaxbandit.audit.components.audit_table`)."""
    from jaxbandit.audit import components
    return components.audit_table(rows)


def cmd_reproduce(args) -> int:
    from jaxbandit import checks
    from jaxbandit.experiments import load, runner
    for i in args.ids:
        load(i)  # unknown ids fail before any folder is made
    dirs, cache = runner.output_dirs(args.ids, args.out, args.quick)
    for folder, flag in [(d, "--out") for d in dirs.values()] + [(args.cache or cache, "--cache")]:
        checks.writable_file(flag, os.path.join(folder, "summary.csv"))  # creates the folder, checks it
    runner.reproduce(args.ids, args.out, quick=args.quick, cache=args.cache, progress=args.progress,
                     devices=args.devices, bounds=args.bounds)
    for out in dirs.values():
        print(f"wrote {out}/summary.csv and figures in {out}/")
    return 0


def cmd_tune(args) -> int:
    from jaxbandit import tuning
    _renamed(args, "epsilon", "budget_epsilon", "--epsilon", "--budget-epsilon")
    _renamed(args, "delta", "budget_delta", "--delta", "--budget-delta")
    for path, flag in ((args.json, "--json"), (args.plot, "--plot")):
        _output_path(path, flag)
    env_params = _key_values(args.env_param, "--env-param")
    if args.means is not None:
        env_params["means"] = _means(args.means)
    request = dict(env=args.env, policy=args.policy, env_params=env_params,
                   policy_params=_key_values(args.policy_param, "--policy-param"),
                   policy_options=_policy_options(args), eta_budget=args.eta_budget, epsilon=args.budget_epsilon,
                   delta=args.budget_delta, accounting=args.accounting, param=args.param, horizon=args.horizon)
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
    elif tuned.claim is not None:
        print(f"  privacy: {tuned.claim.describe()}")
    print(f"  {tuned.agent_steps:.4g} agent-steps in {len(tuned.trace)} steps, {tuned.seconds:.1f} s")
    grid = None
    if args.grid_points:
        values = tuning.grid_values(tuned, args.grid_points)
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
        _write_json(args.json, out)
    if args.plot:
        from jaxbandit import plotting
        plotting.save(plotting.tuning_figure(tuned, grid), args.plot)
    return 0


def _per_algorithm(items, flag) -> dict:
    """``["dp-se:beta=0.01", "dp-se:epsilon=1"]`` -> ``{"dp-se": {"beta": 0.01, "epsilon": 1.0}}``."""
    out = {}
    for item in items or []:
        name, sep, pair = item.partition(":")
        if not sep or "=" not in pair:
            raise ValueError(f"{flag} expects ALGORITHM:KEY=VALUE (e.g. dp-rse:v=0.9), got {item!r}")
        out.setdefault(name, {}).update(_key_values([pair], flag))
    return out


def cmd_frontier(args) -> int:
    from jaxbandit import checks, frontiers as fr
    for path, flag in ((args.json, "--json"), (args.plot, "--plot")):
        _output_path(path, flag)
    if not args.epsilons:
        raise ValueError("--epsilons is empty: give the privacy levels, comma-separated, e.g. --epsilons 0.5,1,2")
    checks.distinct("--epsilons", args.epsilons)
    env_params = _env_params(args)
    names = lambda items: [n.strip() for item in items for n in item.split(",") if n.strip()] if items else None
    options = _per_algorithm(args.policy_option, "--policy-option")
    options = {a: {k: str(v) for k, v in kv.items()} for a, kv in options.items()}
    front = fr.frontier(args.env, args.epsilons, env_params=env_params, horizon=args.horizon, delta=args.delta,
                        notion=args.notion, include=names(args.include), exclude=names(args.exclude),
                        policy_params=_per_algorithm(args.policy_param, "--policy-param"), policy_options=options,
                        runs=args.runs, tuning_runs=args.tuning_runs, tuning_steps=args.tuning_steps, seed=args.seed,
                        out=args.save, audit=args.audit, more_runs=args.more_runs, gradient=names(args.gradient),
                        progress=args.progress)
    print(front.table())
    if args.json:
        _write_json(args.json, front.to_dict())
    if args.plot:
        from jaxbandit import plotting
        plotting.save(plotting.frontier_figure(front), args.plot)
    return 0


DEVICES_HELP = ("devices to shard the runs over: on a CPU host, N CPU devices (default: one per core); on a GPU or "
                "TPU host, the first N accelerators (default: all); in a multi-process run, the CPU devices of each "
                "process. The numbers do not depend on it")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jaxbandit", description="Batched JAX simulation of (private) bandits.")
    sub = p.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="list policies, environments, privatizers and experiments")
    ls.add_argument("--options", action="store_true", help="the policies' build-time options and their values")
    ls.set_defaults(fn=cmd_list)

    r = sub.add_parser("run", help="simulate one configuration")
    r.add_argument("--env", required=True, help="environment name (see `jaxbandit list`)")
    r.add_argument("--means", type=_number_list, help="comma-separated arm means (Bernoulli, Gaussian)")
    r.add_argument("--env-param", action="append", metavar="K=V", help="environment parameter, e.g. stds=0.1")
    r.add_argument("--policy", required=True)
    r.add_argument("--policy-param", action="append", metavar="K=V")
    r.add_argument("--privatizer", default="identity")
    r.add_argument("--policy-option", action="append", metavar="K=V",
                   help="a build-time option of the policy, e.g. release=float (the papers' float noise), "
                        "variant=printed (see `jaxbandit list --options`)")
    r.add_argument("--epsilon", type=float, help=argparse.SUPPRESS)  # deprecated: --privatizer-param epsilon=E
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
    r.add_argument("--simulator", choices=("steps", "epochs"), default="steps",  # jaxbandit.spec.SIMULATORS
                   help="steps: the engine (every policy); epochs: successive elimination (dp-rse, ldp-rse) phase "
                        "by phase, the same law, faster, in one piece (no checkpoint or progress)")
    r.add_argument("--realized", action=argparse.BooleanOptionalAction, default=True,
                   help="record the realized regret too (default); --no-realized: the pseudo-regret only, which "
                        "lets --simulator epochs skip the segments that decide nothing (far faster)")
    r.add_argument("--devices", type=_integer, metavar="N", help=DEVICES_HELP)
    m = r.add_argument_group("several processes (jax.distributed; docs/concepts/sharding.md: Beyond one machine)")
    m.add_argument("--coordinator", metavar="HOST:PORT", help="process 0's address; every process runs the same "
                                                              "command with its own --process-id")
    m.add_argument("--num-processes", type=_integer, metavar="N", help="number of processes")
    m.add_argument("--process-id", type=_integer, metavar="I", help="this process's index in [0, N)")
    m.add_argument("--cluster", action="store_true", help="let JAX find the coordinator and the processes on a "
                                                          "cluster it knows (SLURM, Open MPI, ...)")
    r.set_defaults(fn=cmd_run)

    v = sub.add_parser("privacy", help="the privacy claim of a private policy or privatizer (its accountant)",
                       description="Print the claim a component's accountant states for its parameters, horizon "
                                   "and number of arms: the notion (epsilon-DP, (epsilon, delta)-DP, mu-GDP, "
                                   "epsilon-LDP), over what (the whole run, each round, each report), its numbers "
                                   "and its (epsilon, delta) at a given delta (exact for GDP).")
    v.add_argument("--policy", help="a private policy (see --list)")
    v.add_argument("--policy-param", action="append", metavar="K=V",
                   help="b=9, c=1 (modified-thompson); epsilon=1, delta=0.01 (DP-FTPL)")
    v.add_argument("--policy-option", action="append", metavar="K=V",
                   help="a build-time option, e.g. accounting=tight (private Thompson sampling), variant=printed")
    v.add_argument("--privatizer", help="a private privatizer (see --list)")
    v.add_argument("--privatizer-param", action="append", metavar="K=V", help="e.g. epsilon=2")
    v.add_argument("--horizon", type=_integer, help="T")
    which = v.add_mutually_exclusive_group()
    which.add_argument("--at-delta", type=float, metavar="DELTA",
                       help="report the epsilon of the claim at this delta (default 1e-6)")
    which.add_argument("--at-epsilon", type=float, metavar="EPSILON", help="report the delta at this epsilon")
    which.add_argument("--delta", type=float, help=argparse.SUPPRESS)    # deprecated: --at-delta
    which.add_argument("--epsilon", type=float, help=argparse.SUPPRESS)  # deprecated: --at-epsilon
    v.add_argument("--tight", action="store_true", help=argparse.SUPPRESS)  # deprecated: --policy-option
    v.add_argument("--arms", type=_integer, help="number of arms K (default 2): private TS's tight accounting and "
                                                 "its b*K < T check, DP-FTPL's start phase")
    v.add_argument("--dim", type=_integer, help="the features' dimension d of a contextual policy (the private LinUCBs)")
    v.add_argument("--list", action="store_true", help="list the private components and their notions")
    v.add_argument("--json", metavar="FILE", help="write the claim as JSON (one shape for every component)")
    v.set_defaults(fn=cmd_privacy)

    bd = sub.add_parser("bounds", help="the seed papers' regret bounds of a policy on an instance",
                        description="Print the values of every bound of the five papers that speaks about a "
                                    "policy (upper bounds proved for it, lower bounds that bind it) on an instance "
                                    "at a horizon: the theorem, upper or lower, finite-T or asymptotic, and why a "
                                    "bound does not apply where its conditions fail.")
    bd.add_argument("policy", nargs="?", help="a policy name (see `jaxbandit list`)")
    bd.add_argument("--env", help="environment name")
    bd.add_argument("--means", type=_number_list, help="comma-separated arm means")
    bd.add_argument("--env-param", action="append", metavar="K=V")
    bd.add_argument("--arm", action="append", metavar="[N*]FAMILY:K=V,...", help="an arm of --env mixture")
    bd.add_argument("--policy-param", action="append", metavar="K=V", help="e.g. epsilon=0.5, b=9, u=5.6")
    bd.add_argument("--policy-option", action="append", metavar="K=V")
    bd.add_argument("--privatizer", default="identity")
    bd.add_argument("--privatizer-param", action="append", metavar="K=V")
    bd.add_argument("--horizon", type=_integer, help="T (1e6 style accepted)")
    bd.add_argument("--constant", action="append", metavar="K=V",
                    help="a constant a proof leaves unspecified (C=2) or a bound's form (form=paper)")
    bd.add_argument("--json", metavar="FILE", help="write the values as JSON")
    bd.add_argument("--list", action="store_true", help="list every bound: name, paper, theorem, policies")
    bd.add_argument("--table1", type=float, metavar="V", help="seed 004's Table 1 at moment order v, generated from "
                                                              "the bounds (the rates measured from the functions)")
    bd.set_defaults(fn=cmd_bounds)

    t = sub.add_parser("tune", help="tune a policy's parameters by gradient on the simulated regret",
                       description="Tune a parameter of a policy by stochastic gradient (optax Adam) on the "
                                   "simulated regret: under a privacy budget, a free parameter with the one the "
                                   "policy's accountant calibrates on the budget's boundary (modified-thompson, the "
                                   "default: b, with c = c*(b)); without one, the parameter --param names.")
    t.add_argument("--env", required=True, help="environment name (see `jaxbandit list`)")
    t.add_argument("--means", type=_number_list, help="comma-separated arm means (Bernoulli, Gaussian)")
    t.add_argument("--env-param", action="append", metavar="K=V", help="environment parameter, e.g. rates=0.1,1")
    t.add_argument("--policy", default="modified-thompson")
    t.add_argument("--policy-param", action="append", metavar="K=V", help="fixed parameters of the policy")
    t.add_argument("--eta-budget", type=float, help="GDP budget eta (modified-thompson: tunes b, with c = c*(b))")
    t.add_argument("--policy-option", action="append", metavar="K=V", help="a build-time option of the policy, e.g. "
                                                                          "release=float")
    t.add_argument("--budget-epsilon", type=float, metavar="EPSILON", help="(epsilon, delta) budget: epsilon (with "
                                                                           "--budget-delta)")
    t.add_argument("--budget-delta", type=float, metavar="DELTA", help="(epsilon, delta) budget: delta (with "
                                                                       "--budget-epsilon; 0: pure epsilon-DP)")
    t.add_argument("--epsilon", type=float, help=argparse.SUPPRESS)  # deprecated: --budget-epsilon
    t.add_argument("--delta", type=float, help=argparse.SUPPRESS)    # deprecated: --budget-delta
    t.add_argument("--accounting", default="paper", help="paper: sqrt(T/(c(b+1))) (Lemma 5 of TS is itself DP); tight: "
                                                         "T-bN rounds, n >= max(b,1)")
    t.add_argument("--param", help="the parameter to tune: under a budget a free one (default: the one the "
                                   "accountant leaves free, or the policy's only tunable one), else any, e.g. "
                                   "epsilon of epsilon-greedy")
    t.add_argument("--horizon", type=_integer, required=True, help="T (1e5 style accepted)")
    t.add_argument("--runs", type=_integer, default=32, help="runs per simulated point per step (default 32)")
    t.add_argument("--steps", type=_integer, default=40, help="optimisation steps (default 40)")
    t.add_argument("--seed", type=_integer, default=0)
    t.add_argument("--estimator", default="smoothed", help="smoothed (default) or score")
    t.add_argument("--sigma", type=float, default=0.15, help="smoothing half-width in the parameter's coordinate, "
                                                              "log(b+1) for b (default 0.15)")
    t.add_argument("--learning-rate", type=float, default=0.25, help="Adam step in the parameter's coordinate "
                                                                     "(default 0.25)")
    t.add_argument("--init", type=float, help="starting b (or parameter value)")
    t.add_argument("--grid-points", type=_integer, default=0,
                   help="also simulate a grid of this many values (for the plot and the comparison)")
    t.add_argument("--grid-runs", type=_integer, default=200, help="runs per grid point (default 200)")
    t.add_argument("--json", metavar="FILE", help="write b, c, eta, epsilon, delta, agent_steps and the trace")
    t.add_argument("--plot", metavar="FILE", help="write the optimisation trajectory (PNG)")
    t.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="a line per optimisation step (default: on)")
    t.set_defaults(fn=cmd_tune)

    f = sub.add_parser("frontier", help="which private algorithm, at my epsilon, costs how much regret",
                       description="For an instance and privacy levels: every private algorithm that applies, "
                                   "calibrated by its own accountant to meet each level, its free hyperparameters "
                                   "tuned on separate runs, evaluated on fresh runs; the table, a recommendation "
                                   "per level, JSON and a figure (jaxbandit.frontier).")
    f.add_argument("--env", required=True, help="environment name (see `jaxbandit list`)")
    f.add_argument("--means", type=_number_list, help="comma-separated arm means (Bernoulli, Gaussian)")
    f.add_argument("--env-param", action="append", metavar="K=V", help="environment parameter, e.g. v=0.9,0.9")
    f.add_argument("--arm", action="append", metavar="[N*]FAMILY:K=V,...", help="an arm of --env mixture")
    f.add_argument("--epsilons", type=_number_list, required=True, help="privacy levels, e.g. 0.5,1,2")
    f.add_argument("--delta", type=float, default=0.0,
                   help="the delta of central (epsilon, delta)-DP budgets and of GDP conversions (default 0: pure "
                        "epsilon-DP, which no (epsilon, delta) or GDP claim meets)")
    f.add_argument("--notion", choices=("central", "joint", "shuffle", "local"), default="central",
                   help="recommend among whole-run (epsilon, delta)-DP claims (central, default), joint-DP ones, "
                        "shuffle-DP ones or local ones (each trust model is a panel of its own)")
    f.add_argument("--horizon", type=_integer, required=True, help="T (1e5 style accepted)")
    f.add_argument("--include", action="append", metavar="NAMES",
                   help="algorithms, policies, channels or trust models (central, joint, shuffle, local), "
                        "comma-separated")
    f.add_argument("--exclude", action="append", metavar="NAMES", help="as --include, left out")
    f.add_argument("--policy-param", action="append", metavar="ALG:K=V",
                   help="a parameter fixed for an algorithm or policy, e.g. dp-rse:v=0.9 dp-rse:u=8.14")
    f.add_argument("--policy-option", action="append", metavar="ALG:K=V",
                   help="a build-time option, e.g. modified-thompson:accounting=tight")
    f.add_argument("--runs", type=_integer, default=200, help="evaluation runs per point (default 200)")
    f.add_argument("--tuning-runs", type=_integer, default=50, help="runs per tuning point (default 50)")
    f.add_argument("--tuning-steps", type=_integer, default=24, help="gradient steps, with --gradient (default 24)")
    f.add_argument("--gradient", action="append", metavar="NAMES",
                   help="algorithms to tune by gradient instead of the grid search (modified-thompson's b), "
                        "comma-separated")
    f.add_argument("--seed", type=_integer, default=0)
    f.add_argument("--json", metavar="FILE", help="write the rows (one per algorithm and level) and the request")
    f.add_argument("--plot", metavar="FILE", help="write the frontier figure (PNG)")
    f.add_argument("--save", metavar="DIR", help="save the frontier and its results in DIR after every algorithm; "
                                                 "the same command resumes from it")
    f.add_argument("--audit", action="store_true",
                   help="also audit each point's private component at its parameters and add the lower bound")
    f.add_argument("--more-runs", type=_integer, metavar="AGENT_STEPS",
                   help="where a recommendation is not significantly better than a runner-up on the same runs, "
                        "simulate the tied rows on twice the runs until the order is resolved or this budget of "
                        "agent-steps (runs x T, e.g. 1e8) is spent")
    f.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="a line per algorithm and phase (default: on)")
    f.add_argument("--devices", type=_integer, metavar="N", help=DEVICES_HELP)
    f.set_defaults(fn=cmd_frontier)

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
    q.add_argument("--bounds", action=argparse.BooleanOptionalAction, default=True,
                   help="draw the papers' regret bounds on the figures (default); --no-bounds leaves them out")
    q.set_defaults(fn=cmd_reproduce)
    return p


def _start_devices(requested: int | None, command_line: bool) -> None:
    """One CPU device per core (or ``--devices N``) before JAX starts (`jaxbandit.sharding.start_devices`)."""
    from jaxbandit import sharding
    sharding.start_devices(requested, configure=command_line or requested is not None, name="--devices")


def _start_processes(args) -> bool:
    """``jaxbandit run`` as one of several processes (`jaxbandit.sharding.start_processes`); False when no
    process flag was given."""
    from jaxbandit import sharding
    return sharding.start_processes(getattr(args, "coordinator", None), getattr(args, "num_processes", None),
                                    getattr(args, "process_id", None), cluster=getattr(args, "cluster", False),
                                    devices=args.devices, names=_PROCESS_FLAGS)


_PROCESS_FLAGS = {"coordinator": "--coordinator", "num_processes": "--num-processes", "process_id": "--process-id",
                  "devices": "--devices", "cluster": "--cluster"}


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
