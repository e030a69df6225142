"""The privacy–regret frontier of a user's own problem: at each privacy level, which private algorithm, with which
settings, costs how much regret on this instance.

`frontier(env, budgets, horizon=T, delta=δ)` takes an instance (a registered environment and its parameters, or a
user's own `Env`) and privacy levels ε_1, ..., ε_m, and for every private algorithm that applies (`algorithms`):

1. **Calibrates** it at each level from its own accountant (`jaxbandit.accounting.Accountant.calibrate`): the
   privacy-calibrated parameter is put on the budget's boundary, so that the claim meets the level exactly.

   - Central algorithms meet the (ε, δ)-DP budget at the user's δ, through the claim's privacy profile. A pure
     ε'-DP algorithm gets ε' = log((e^ε + δ)/(1 − δ)), the largest ε' whose claim implies (ε, δ) (Kairouz, Oh &
     Viswanath 2015, Thm 2.1). A μ-GDP one gets the μ with δ(ε) = δ (Dong, Roth & Su 2022, Cor. 2.13).
   - Local algorithms meet ε-LDP of each report. Their privacy is the channel's: seed 000's Bernoulli mechanisms,
     seed 002's randomized response, or LDPRSE's own Laplace reports.
   - An algorithm whose level no parameter sets (Gaussian TS: μ = sqrt(T)) enters only at the levels its claim
     meets.

2. **Tunes** the hyperparameters the privacy leaves free, on tuning runs whose seeds no evaluation run uses.

   - A policy's `Policy.tunable` grid (e.g. DP-SE's β, DP-UCB-INT's block length) is searched, with the
     calibration redone at every grid point; the grid point with the least mean regret at T wins.
   - Modified Thompson sampling's b is tuned by gradient (`jaxbandit.tune`), with c = c*(b) on the boundary.

3. **Evaluates** every tuned point on fresh runs (common random numbers across algorithms). It reports the regret
   at T (mean, standard error, quantiles) and along the horizon.

4. **Recommends**, per level, the algorithm with the least mean regret among the points whose claim meets the level
   under the user's notion:

   - ``notion="central"``: whole-run (ε, δ)-DP;
   - ``notion="local"``: ε-LDP of each report.

   Per-round claims (seed 003's DP-FTPL: each round's choice given the history) are evaluated and drawn, marked as
   such. They are never recommended: they are not whole-run protection.

Which algorithms apply:

- every private policy whose reward range holds the instance's rewards (central; LDPRSE is local);
- every pair of an LDP channel and a learner of its reports (local):

  - the plain learners `PLAIN_LEARNERS` with every channel;
  - the channel-aware learners `CHANNEL_AWARE` (seed 002: they invert the channel) with the channel whose
    parameters they take; those parameters are set to the channel's.

- A heavy-tailed algorithm (seed 004) needs the moment bound E|X|^{1+v} ≤ u. On bounded rewards it is set to v = 1
  and u = max_a E[X_a²]. On unbounded rewards the user gives v and u (``policy_params``).

Tuning happens on simulations of the instance the user describes, not on private data: the privacy claims are
about the data the algorithm later runs on.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import time
from typing import Mapping, Sequence

import numpy as np

from jaxbandit import checks, policies, privatizers
from jaxbandit import spec as specs
from jaxbandit.accounting.accountants import Budget
from jaxbandit.simulation import MAX_SEED, run_spec
from jaxbandit.tuning.diagnostics import near_uniform

__all__ = ["frontier", "algorithms", "Algorithm", "Frontier", "NOTIONS", "PLAIN_LEARNERS", "CHANNEL_AWARE"]

#: The frontier's notions, each with the claims that may be recommended under it.
NOTIONS = {"central": "(ε, δ)-DP over the whole run", "local": "ε-LDP of each report"}
SCOPE_OF = {"central": "run", "local": "report"}  # the scope of a claim that counts under each notion
PLAIN_LEARNERS = ("thompson", "klucb", "ucb1")  # seed 000's learners of privatized rewards, and kl-UCB
CHANNEL_AWARE = ("klucb-cf", "ts-cf", "ucb-cf", "wr-klucb", "wr-ts")  # seed 002: they take the channel's parameters
QUANTILES = (0.1, 0.5, 0.9)
FORMAT, VERSION = "jaxbandit-frontier", 1


@dataclasses.dataclass(frozen=True)
class Algorithm:
    """A private algorithm of the frontier: a policy, with an LDP channel where the privacy is local.

    Attributes:
      name: ``policy`` or ``policy+channel`` (e.g. ``"thompson+linear"``).
      policy, privatizer: registry names (``"identity"``: the learner sees the rewards).
      family: ``"central"`` or ``"local"``.
    """

    name: str
    policy: str
    privatizer: str = "identity"
    family: str = "central"

    @property
    def private(self) -> str:
        """Which component's accountant states the claim, ``"policy"`` or ``"privatizer"``."""
        return "policy" if self.privatizer == "identity" else "privatizer"


# ------------------------------------------------------------------------------------------------ selection
def _range(r) -> str:
    return f"[{r[0]:.4g}, {r[1]:.4g}]"


def _within(inner, outer) -> bool:
    """Whether the range ``inner`` lies in ``outer`` (``None``: the whole real line)."""
    if outer is None:
        return True
    if inner is None:
        return False
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _instance(env, env_params):
    """The environment object, its params and its reward range (a user's `Env` too)."""
    spec = specs.resolve(env, "uniform", env_params=env_params)
    low, high = (float(x) for x in spec.env.support(spec.params.env))
    return spec.env, spec.params.env, (low, high)


def _moment_params(policy, env, env_p, support, given) -> tuple[dict, str | None]:
    """v and u of a heavy-tailed policy (E|X|^{1+v} ≤ u) from a bounded instance; (params, reason not applicable)."""
    fields = getattr(policy.default_params, "_fields", ())
    if not {"v", "u"} <= set(fields) or {"v", "u"} <= set(given):
        return {}, None
    if not all(math.isfinite(x) for x in support):
        return {}, (f"rewards are unbounded: give its moment bound, policy_params={{{policy.name!r}: {{'v': ..., "
                    "'u': ...}} with E|X|^(1+v) <= u")
    if env.second_moments is not None:
        u = float(np.max(np.asarray(env.second_moments(env_p), np.float64)))
    else:
        u = max(abs(support[0]), abs(support[1])) ** 2
    return {"v": 1.0, "u": max(u, 1e-12)}, None


def algorithms(env, env_params: Mapping | None = None, *, include: Sequence[str] | None = None,
               exclude: Sequence[str] | None = None, policy_params: Mapping | None = None):
    """The private algorithms that apply to an instance (module docstring), and those that do not with the reason.

    Args:
      env, env_params: the instance, as for `jaxbandit.simulate`.
      include, exclude: algorithm names (``"dp-se"``, ``"thompson+linear"``), policy or channel names (all their
        algorithms) or families (``"central"``, ``"local"``); default: every algorithm.
      policy_params: ``{algorithm or policy name: {parameter: value}}`` fixed for that algorithm (e.g. the moment
        bound of a heavy-tailed one on unbounded rewards).

    Returns:
      ``(algorithms, skipped)``: a list of `Algorithm` and ``{name: reason}`` for those that do not apply.
    """
    env_o, env_p, support = _instance(env, env_params)
    K = env_o.num_arms
    found = []
    channels = [n for n in privatizers.names() if privatizers.make(n)[0].accountant is not None]
    for name in policies.names():
        if policies.is_contextual(name) and env_o.context is None:
            continue  # a contextual policy runs only on a contextual environment
        pol = policies.get(name, K, env_o.dim)
        if pol.accountant is not None:
            found.append(Algorithm(name, name, "identity", "local" if pol.accountant.notion == "ldp" else "central"))
        elif name in PLAIN_LEARNERS + CHANNEL_AWARE:
            for channel in channels:
                fields = set(privatizers.make(channel)[1]._fields)
                aware = fields <= set(pol.default_params._fields)
                if (name in CHANNEL_AWARE) == aware:
                    found.append(Algorithm(f"{name}+{channel}", name, channel, "local"))
    chosen = _select(found, include, exclude)
    kept, skipped = [], {}
    for alg in chosen:
        reason = _not_applicable(alg, env, env_params, env_o, env_p, support, _params_for(alg, policy_params))
        if reason:
            skipped[alg.name] = reason
        else:
            kept.append(alg)
    return kept, skipped


def _select(found, include, exclude):
    def keys(alg):
        return {alg.name, alg.policy, alg.privatizer, alg.family}
    valid = set().union(*(keys(a) for a in found)) - {"identity"}
    for flag, names in (("include", include), ("exclude", exclude)):
        for n in names or ():
            if n not in valid:
                checks.known_name(f"{flag} entry (algorithm, policy, channel or family)", n, sorted(valid))
    out = [a for a in found if include is None or keys(a) & set(include)]
    return [a for a in out if not keys(a) & set(exclude or ())]


def _params_for(alg, policy_params) -> dict:
    given = dict(policy_params or {})
    unknown = [k for k, v in given.items() if not isinstance(v, Mapping)]
    if unknown:
        raise ValueError(f"policy_params maps algorithm or policy names to {{parameter: value}}; {unknown[0]!r} maps "
                         f"to {given[unknown[0]]!r}")
    return {**dict(given.get(alg.policy, {})), **dict(given.get(alg.name, {}))}


def _not_applicable(alg, env, env_params, env_o, env_p, support, given) -> str | None:
    pol = policies.get(alg.policy, env_o.num_arms)
    if alg.privatizer == "identity":
        if not _within(support, pol.reward_range):
            return f"it takes rewards in {_range(pol.reward_range)}; this instance's lie in {_range(support)}"
    else:
        channel = privatizers.make(alg.privatizer)[0]
        if not _within(support, channel.reward_range):
            return (f"its channel takes rewards in {_range(channel.reward_range)}; this instance's lie in "
                    f"{_range(support)}")
        if not _within(channel.output_range or support, pol.reward_range):
            return f"the learner takes observations in {_range(pol.reward_range)}, the channel emits others"
    moments, reason = _moment_params(pol, env_o, env_p, support, given)
    if reason:
        return reason
    try:
        specs.resolve(env, alg.policy, alg.privatizer, env_params=env_params, policy_params={**moments, **given})
    except ValueError as err:
        return str(err)
    return None


# ------------------------------------------------------------------------------------------------ the result
@dataclasses.dataclass
class Frontier:
    """The outcome of `frontier`.

    Attributes:
      rows: one dict per (algorithm, level), the JSON rows: ``algorithm``, ``family`` (central/local),
        ``notion``, ``scope`` and ``claim`` (the claim as the algorithm states it), ``epsilon`` and ``delta``
        (the claim's numbers; a μ-GDP claim's ε at the user's δ, with ``mu``), ``level`` (the budget's ε),
        ``meets`` (whether the claim meets the level under the family's notion: whole-run (ε, δ)-DP or ε-LDP),
        ``params`` (every tuned and calibrated value), ``tuning`` (how), ``regret_mean``, ``regret_se``,
        ``regret_quantiles``, ``runs``, ``tuning_agent_steps``, ``warnings``, ``best_of_family`` (the least
        regret of its family at its level among the points meeting the family's notion), ``recommended`` (that, for
        the user's notion).
      curves: ``{algorithm: {"t": [...], "mean": [[per level]], "se": [[...]]}}``, the regret along the horizon.
      skipped: ``{algorithm: reason}`` for the algorithms left out (not applicable, or no level met), and
        ``{"ALGORITHM at epsilon = LEVEL": reason}`` for a level an included algorithm cannot reach.
      config: the request (instance, levels, δ, horizon, runs, seeds, tuning budget, notion).
      seconds: ``{"tuning": s, "evaluation": s, "total": s}`` (and ``"audit"`` with ``audit=True``).
    """

    rows: list
    curves: dict
    skipped: dict
    config: dict
    seconds: dict

    def recommended(self) -> dict:
        """``{level: row}``: the recommended point at each level (module docstring), where one meets it."""
        return {r["level"]: r for r in self.rows if r["recommended"]}

    def uniform_regret(self) -> float:
        """The regret of uniform play at T, T·mean_a Δ_a: what an algorithm that learns nothing pays."""
        return float(self.config["uniform_regret"])

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "config": self.config, "rows": self.rows,
                "curves": self.curves, "skipped": self.skipped, "seconds": self.seconds}

    @classmethod
    def from_dict(cls, saved: Mapping) -> "Frontier":
        """The inverse of `to_dict` (``curves`` may be absent: a file of rows only)."""
        if saved.get("format") != FORMAT or saved.get("version") != VERSION:
            raise ValueError(f"not a frontier of this version (format {saved.get('format')!r}, version "
                             f"{saved.get('version')!r}; expected {FORMAT!r}, {VERSION!r})")
        return cls(list(saved["rows"]), dict(saved.get("curves", {})), dict(saved["skipped"]),
                   dict(saved["config"]), dict(saved["seconds"]))

    @classmethod
    def load(cls, path: str) -> "Frontier":
        """A frontier written by `save` or by `frontier(out=...)` (``OUT/frontier.json``)."""
        with open(path) as f:
            return cls.from_dict(json.load(f))

    def save(self, path: str) -> None:
        """Write `to_dict` as JSON (a temporary file renamed: never half a file)."""
        checks.writable_file("path", path)
        _write_json(path, self.to_dict())

    def table(self) -> str:
        """The frontier as text: one block per level, rows by regret; ``*`` the recommended point, ``+`` the best of
        the other family, ``≈`` points of the same family within two standard errors (of the difference) of those,
        ``!`` a warning (listed below)."""
        lines = [f"Privacy-regret frontier: {self.config['env_label']}, T = {self.config['horizon']}, "
                 f"{self.config['runs']} evaluation runs; recommendation under {NOTIONS[self.config['notion']]}"
                 + (f", delta = {self.config['delta']:g}" if self.config["notion"] == "central" else "")]
        for level in self.config["levels"]:
            rows = sorted((r for r in self.rows if r["level"] == level), key=lambda r: r["regret_mean"])
            best = {r["family"]: r for r in rows if r["best_of_family"]}
            lines.append(f"\nepsilon = {level:g}")
            lines.append(f"   {'algorithm':29s} {'family':7s} {'claim':36s} {'regret at T':>21s}  params")
            for r in rows:
                b = best.get(r["family"])
                mark = ("*" if r["recommended"] else "+" if r["best_of_family"] else
                        "≈" if b is not None and r["meets"] and _tied(r, b) else " ")
                shown = ", ".join(f"{k}={_short(v)}" for k, v in _flat(r["params"]).items())
                warn = "  !" if r["warnings"] else ""
                audit = ""
                if "audit" in r:
                    a = r["audit"]
                    audit = ("  [no audit]" if a is None else f"  [audit: {a['claim_kind']} >= {a['lower_bound']:.3g}"
                             + (" VIOLATED]" if a["violated"] else "]"))
                lines.append(f" {mark} {r['algorithm']:29s} {r['family']:7s} {_short_claim(r):36s} "
                             f"{r['regret_mean']:>11.5g} ± {r['regret_se']:<7.3g}  {shown}{warn}{audit}")
        if self.skipped:
            lines.append("\nnot included:")
            lines += [f"  {name}: {reason}" for name, reason in sorted(self.skipped.items())]
        warned = [r for r in self.rows if r["warnings"]]
        if warned:
            lines.append("\nwarnings (!):")
            lines += [f"  {r['algorithm']} at epsilon = {r['level']:g}: {w}" for r in warned for w in r["warnings"]]
        s = self.seconds
        lines.append(f"\n{s['total']:.0f} s: tuning {s['tuning']:.0f} s, evaluation {s['evaluation']:.0f} s"
                     + (f", audits {s['audit']:.0f} s" if "audit" in s else ""))
        return "\n".join(lines)

    def __repr__(self) -> str:
        best = ", ".join(f"eps={lv:g}: {r['algorithm']}" for lv, r in sorted(self.recommended().items()))
        return (f"Frontier({len(self.rows)} points, {len({r['algorithm'] for r in self.rows})} algorithms, "
                f"levels {self.config['levels']}; recommended {best or 'none'})")


def _short_claim(row) -> str:
    """The claim in a few characters: its notion and numbers, and its scope where it is not the family's."""
    if row["notion"] == "gdp":
        text = f"μ-GDP μ={row['mu']:.4g} (ε={row['epsilon']:.4g})"
    elif row["notion"] == "approx-dp":
        text = f"(ε,δ)-DP ε={row['epsilon']:.4g} δ={row['delta']:.2g}"
    else:
        text = f"{'ε-LDP' if row['notion'] == 'ldp' else 'ε-DP'} ε={row['epsilon']:.4g}"
    return text + (" per round" if row["scope"] == "round" else "")


def _tied(row, best) -> bool:
    return abs(row["regret_mean"] - best["regret_mean"]) <= 2 * math.hypot(row["regret_se"], best["regret_se"])


def _flat(params: dict) -> dict:
    return {f"{side}.{k}" if side == "privatizer" else k: v for side, fields in params.items()
            for k, v in fields.items()}


def _short(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _write_json(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(path + ".tmp", path)


# ------------------------------------------------------------------------------------------------ the driver
def frontier(env, budgets: Sequence[float], *, horizon: int, env_params: Mapping | None = None, delta: float = 0.0,
             notion: str = "central", include: Sequence[str] | None = None, exclude: Sequence[str] | None = None,
             policy_params: Mapping | None = None, policy_options: Mapping | None = None, runs: int = 200,
             tuning_runs: int = 50, tuning_steps: int = 24, seed: int = 0, record: int = 50,
             out: str | None = None, audit: bool = False, progress: bool = True) -> Frontier:
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
      runs: evaluation runs per point. tuning_runs: runs per tuning point (grid) or per simulated point per step
        (gradient). tuning_steps: gradient steps (modified Thompson sampling).
      seed: root of every draw: tuning and evaluation draw from disjoint seeds derived from it.
      record: number of record times along the horizon.
      out: a folder to save into and resume from: ``frontier.json`` after every algorithm (and its results under
        ``results/``); run the same call again to skip the algorithms done (a different request is refused).
      audit: also run the Monte-Carlo audit of each point's private component at its calibrated parameters
        (`jaxbandit.audit`, its default trials) and add its lower bound to the row (``audit``; ``None`` where the
        component has no audit of its name).
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
    checks.known_name("notion", notion, NOTIONS)
    runs = checks.positive_int("runs", runs, minimum=2)
    tuning_runs = checks.positive_int("tuning_runs", tuning_runs, minimum=2)
    tuning_steps = checks.positive_int("tuning_steps", tuning_steps)
    seed = checks.positive_int("seed", seed, minimum=0, maximum=MAX_SEED)
    record = checks.positive_int("record", record, minimum=2)
    options = dict(policy_options or {})
    for k, v in options.items():
        if not isinstance(v, Mapping):
            raise ValueError(f"policy_options maps algorithm or policy names to {{option: value}}; {k!r} maps to {v!r}")
    found, skipped = algorithms(env, env_params, include=include, exclude=exclude, policy_params=policy_params)
    env_o, env_p, _ = _instance(env, env_params)
    means = np.asarray(env_o.means(env_p), np.float64)
    tuning_seed, eval_seed = (int(s) % (MAX_SEED + 1) for s in np.random.SeedSequence(seed).generate_state(2))
    config = {"env": env if isinstance(env, str) else env_o.name, "env_params": specs.jsonable(dict(env_params or {})),
              "env_label": f"{env if isinstance(env, str) else env_o.name} with {env_o.num_arms} arms",
              "levels": levels, "delta": float(delta), "notion": notion, "horizon": horizon, "runs": runs,
              "tuning_runs": tuning_runs, "tuning_steps": tuning_steps, "seed": seed, "tuning_seed": tuning_seed,
              "evaluation_seed": eval_seed, "record": record, "include": list(include) if include else None,
              "exclude": list(exclude) if exclude else None, "audit": bool(audit),
              "policy_params": specs.jsonable(policy_params or {}),
              "policy_options": specs.jsonable(options), "algorithms": [a.name for a in found],
              "uniform_regret": float(horizon * np.mean(means.max() - means))}
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
        outcome = _one(alg, env, env_params, levels, delta, horizon, runs, tuning_runs, tuning_steps, tuning_seed,
                       eval_seed, record, _params_for(alg, policy_params), _params_for(alg, options), out,
                       progress, f"[{i + 1}/{len(found)}] {alg.name}")
        if audit:
            t_audit = time.perf_counter()
            for row in outcome["rows"]:
                row["audit"] = _audit(alg, row, seed)
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
            _write_json(os.path.join(out, "frontier.json"),
                        {"format": FORMAT, "version": VERSION, "config": config, "rows": rows, "curves": curves,
                         "skipped": {k: v for k, v in skipped.items() if k.partition(_AT)[0] in done},
                         "done": sorted(done),
                         "seconds": {**seconds, "total": before + time.perf_counter() - t_start}})
    _recommend(rows, levels, notion)
    seconds["total"] = before + time.perf_counter() - t_start
    result = Frontier(rows, curves, skipped, config, seconds)
    if out:
        _write_json(os.path.join(out, "frontier.json"), {**result.to_dict(), "done": sorted(done)})
    return result


_AT = " at epsilon = "


def _level_key(name: str, level: float) -> str:
    """`Frontier.skipped`'s key for one level an included algorithm cannot reach."""
    return f"{name}{_AT}{level:g}"


def _levels(budgets) -> list:
    values = np.atleast_1d(np.asarray(budgets, np.float64))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"budgets must be a non-empty list of privacy levels epsilon, got {budgets!r}")
    checks.in_range("budgets", values, 0.0, low_open=True, high_open=True)
    return sorted({float(v) for v in values})


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
        with open(path) as f:
            saved = json.load(f)
    except (OSError, ValueError) as err:
        raise ValueError(f"out {out}: {path} is not a frontier file ({err}); choose another folder") from err
    try:
        Frontier.from_dict(saved)  # the format and version checked in one place
    except (KeyError, ValueError) as err:
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
    and the user's notion's as ``recommended``."""
    for r in rows:
        r["best_of_family"] = r["recommended"] = False
    for level in levels:
        for family in NOTIONS:
            eligible = [r for r in rows if r["level"] == level and r["meets"] and r["family"] == family]
            if eligible:
                best = min(eligible, key=lambda r: r["regret_mean"])
                best["best_of_family"] = True
                best["recommended"] = family == notion


# ------------------------------------------------------------------------------------------------ one algorithm
def _budget(alg, level, delta) -> Budget:
    return Budget(epsilon=level) if alg.family == "local" else Budget(epsilon=level, delta=delta)


def _spec(alg, env, env_params, horizon, record, given, options):
    """The algorithm's resolved spec: the epoch simulator where it applies (the same law, faster), pseudo-regret."""
    env_o, env_p, support = _instance(env, env_params)
    pol = policies.get(alg.policy, env_o.num_arms, **options)
    moments, _ = _moment_params(pol, env_o, env_p, support, given)
    kw = dict(env_params=env_params, policy_params={**moments, **given}, policy_options=options, horizon=horizon,
              record=record, realized=False)
    try:
        return specs.resolve(env, alg.policy, alg.privatizer, simulator="epochs", **kw)
    except ValueError:
        return specs.resolve(env, alg.policy, alg.privatizer, **kw)


def _bound(spec, point):
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
            bound = _bound(spec, point)
            claim = accountant.guarantee(getattr(bound, alg.private), T, K)
            return bound if claim.meets(_budget(alg, level, delta)) else fail(
                f"its claim at its parameters ({claim.describe()}) does not meet it")
        bound_params = getattr(_bound(spec, point), alg.private)
        calibrated = accountant.calibrate(bound_params, T, K, _budget(alg, level, delta))
        values = {f: getattr(calibrated, f) for f in calibrated._fields if getattr(calibrated, f) is not None}
        point = point._replace(**{alg.private: params._replace(**values)})
        if alg.private == "privatizer":  # a channel-aware learner takes the channel's own parameters
            shared = set(point.privatizer._fields) & set(point.policy._fields)
            if shared:
                point = point._replace(policy=point.policy._replace(
                    **{f: np.asarray(getattr(point.privatizer, f), np.asarray(getattr(point.policy, f)).dtype)
                       for f in shared}))
        return _bound(spec, point)  # validates: a level beyond the parameter's valid range is refused here
    except ValueError as err:
        return fail(str(err))


def _grid(policy, given) -> list[dict]:
    """Every combination of the policy's tunable values (those the user fixed left out)."""
    space = {k: v for k, v in dict(policy.tunable).items() if k not in given}
    names = sorted(space)
    return [dict(zip(names, combo)) for combo in itertools.product(*(space[n] for n in names))] or [{}]


def _one(alg, env, env_params, levels, delta, horizon, runs, tuning_runs, tuning_steps, tuning_seed, eval_seed,
         record, given, options, out, progress, label) -> dict:
    """Calibrate, tune and evaluate one algorithm at every level."""
    say = (lambda msg: print(f"{label}: {msg}", flush=True)) if progress else (lambda msg: None)
    spec = _spec(alg, env, env_params, horizon, record, given, options)
    K = spec.env.num_arms
    means = np.asarray(spec.env.means(spec.params.env), np.float64)
    accountant = getattr(spec, alg.private).accountant
    gradient = (alg.private == "policy" and accountant.tuned is not None and accountant.calibrated is not None
                and accountant.calibrated in spec.params.policy._fields
                and not {accountant.calibrated, accountant.tuned[0]} & set(given))
    t0 = time.perf_counter()
    chosen, tuning, spent, warns, why = {}, {}, {}, {}, {}
    if gradient:
        chosen, tuning, spent, warns = _tune_gradient(alg, spec, env, env_params, levels, delta, horizon,
                                                      tuning_runs, tuning_steps, tuning_seed, given, options, say)
    else:
        grid = _grid(spec.policy, given)
        candidates = {}
        for level in levels:
            for values in grid:
                base = spec.params._replace(policy=spec.params.policy._replace(
                    **{k: np.asarray(v, np.asarray(getattr(spec.params.policy, k)).dtype) for k, v in values.items()}))
                point = _calibrated_point(alg, spec, base, level, delta, given, why)
                if point is not None:
                    candidates.setdefault(level, []).append((values, point))
        if len(grid) > 1 and candidates:
            flat = [(lv, v, p) for lv, items in candidates.items() for v, p in items]
            say(f"tuning {', '.join(sorted(grid[0]))}: {len(flat)} points x {tuning_runs} runs")
            tuned = run_spec(spec.with_points([p for _, _, p in flat]), runs=tuning_runs, seed=tuning_seed,
                             progress=False)
            mean = tuned.final().mean(1)
            for level in candidates:
                idx = [j for j, (lv, _, _) in enumerate(flat) if lv == level]
                best = min(idx, key=lambda j: mean[j])
                chosen[level] = flat[best][2]
                tuning[level] = {"method": "grid", "runs": tuning_runs, "values": [flat[j][1] for j in idx],
                                 "regret": [float(mean[j]) for j in idx]}
                spent[level] = len(idx) * tuning_runs * horizon
                flat_regret = max(mean[j] for j in idx) == min(mean[j] for j in idx)  # nothing told them apart
                warns[level] = [] if flat_regret else _grid_edge(spec.policy, flat[best][1])
        else:
            for level, items in candidates.items():
                chosen[level] = items[0][1]
                tuning[level] = {"method": "none"}
                spent[level] = 0
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
        budget = _budget(alg, level, delta)
        eps, dlt = ((claim.epsilon_at(delta), delta) if claim.notion == "gdp" else (claim.epsilon, claim.delta))
        x = final[i]
        warned = list(warns.get(level, []))
        uniformly = near_uniform(float(x.mean()), means, horizon, "evaluated")
        if uniformly:
            warned.append(uniformly)
        rows.append({"algorithm": alg.name, "family": alg.family, "notion": claim.notion, "scope": claim.scope,
                     "claim": claim.describe(), "epsilon": eps, "delta": dlt, "mu": claim.mu, "level": level,
                     "meets": bool(claim.meets(budget) and claim.scope == SCOPE_OF[alg.family]),
                     "params": _point_params(alg, point), "tuning": tuning[level],
                     "regret_mean": float(x.mean()), "regret_se": float(x.std(ddof=1) / math.sqrt(len(x))),
                     "regret_quantiles": {f"{q:g}": float(v) for q, v in zip(QUANTILES, np.quantile(x, QUANTILES))},
                     "runs": runs, "tuning_agent_steps": int(spent[level]), "warnings": warned,
                     "best_of_family": False, "recommended": False})
    skipped_levels = {lv: why.get(lv, "no parameter value meets it") for lv in levels if lv not in chosen}
    for lv, reason in skipped_levels.items():
        say(f"not at epsilon = {lv:g}: {reason}")
    say(f"done in {tuning_seconds + evaluation_seconds:.1f} s (tuning {tuning_seconds:.1f} s)")
    curve = {"t": res.t.tolist(), "levels": met, "mean": res.mean().tolist(), "se": res.se().tolist()}
    return {"rows": rows, "curve": curve, "tuning_seconds": tuning_seconds, "evaluation_seconds": evaluation_seconds,
            "skipped_levels": skipped_levels}


def _grid_edge(policy, values) -> list:
    """A warning for each tuned value at an end of its grid (the best may lie beyond it)."""
    out = []
    for name, value in values.items():
        grid = sorted(dict(policy.tunable)[name])
        if len(grid) > 1 and value in (grid[0], grid[-1]):
            out.append(f"the best {name} = {value:g} is at an end of its grid {grid}: the optimum may lie beyond it")
    return out


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
        dtype = {k: np.asarray(getattr(spec.params.policy, k)).dtype for k in values}
        point = spec.params._replace(policy=spec.params.policy._replace(
            **{k: np.asarray(v, dtype[k]) for k, v in values.items()}))
        chosen[level] = _bound(spec, point)
        how[level] = {"method": "gradient", "parameter": free, "steps": tuning_steps, "runs": tuning_runs,
                      "pilot": tuned.config["pilot"], "trace": [round(row[free], 3) for row in tuned.trace],
                      "converged": tuned.converged}
        spent[level] = tuned.agent_steps
        warns[level] = list(tuned.warnings) + [str(w.message) for w in caught if str(w.message) not in tuned.warnings]
    return chosen, how, spent, warns


def _audit(alg, row, seed) -> dict | None:
    """The audit of the row's private component at its parameters: ``{"lower_bound", "claim", "claim_kind",
    "violated", "trials"}``, or ``None`` where there is no audit of that component's name."""
    import inspect
    from jaxbandit.audit import components, montecarlo
    name = alg.policy if alg.private == "policy" else alg.privatizer
    if name not in components.names():
        return None
    params = row["params"][alg.private]
    accepted = inspect.signature(components.REGISTRY[name]).parameters
    audit = components.make(name, **{k: v for k, v in params.items() if k in accepted and k != "bug"})
    result = montecarlo.run(audit, seed=seed)
    return {"lower_bound": result.lower_bound, "claim": result.claim, "claim_kind": result.claim_kind,
            "violated": bool(result.violated), "trials": result.trials}


def _point_params(alg, point) -> dict:
    out = {"policy": _plain(point.policy)}
    if alg.privatizer != "identity":
        out["privatizer"] = _plain(point.privatizer)
    return out


def _plain(params) -> dict:
    """A params NamedTuple's set fields as JSON numbers (`jaxbandit.spec.jsonable`)."""
    return {f: specs.jsonable(v) for f, v in params._asdict().items() if v is not None}


def _claim_text(alg, spec, point, delta) -> str:
    """The claim at ``point``, in words; with the user's δ, why its own δ rules out every level where it does."""
    accountant = getattr(spec, alg.private).accountant
    try:
        bound = _bound(spec, point)
        claim = accountant.guarantee(getattr(bound, alg.private), spec.horizon, spec.env.num_arms)
    except ValueError as err:
        return str(err)
    text = "its claim at its parameters: " + claim.describe()
    if claim.notion == "approx-dp" and claim.delta > delta and "delta" not in getattr(bound, alg.private)._fields:
        text += (f"; its δ = {claim.delta:.3g} is set by its analysis, not by a parameter, and exceeds the "
                 f"requested delta = {delta:g}")
    return text
