"""A frontier's result (`Frontier`): its rows, the recommendation per level, and its rendering (the table, the JSON
file it saves and loads)."""
from __future__ import annotations

import dataclasses
import math
from typing import Mapping

from jaxbandit import checks
from jaxbandit.frontiers.catalogue import TRUST_MODELS

FORMAT, VERSION = "jaxbandit-frontier", 1  # a saved frontier's format and version


@dataclasses.dataclass
class Frontier:
    """The outcome of `frontier`.

    Attributes:
      rows: one dict per (algorithm, level), the JSON rows: ``algorithm``, ``family`` (its trust model: central,
        joint, shuffle or local),
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
      seconds: ``{"tuning": s, "evaluation": s, "total": s}`` (and ``"audit"`` with ``audit=True``,
        ``"more_runs"`` with ``more_runs``).
      resolution: with ``more_runs``, how the ties were resolved: ``{"budget", "agent_steps", "batches",
        "unresolved", "stopped"}`` (`frontier`); ``{}`` otherwise.
    """

    rows: list
    curves: dict
    skipped: dict
    config: dict
    seconds: dict
    resolution: dict = dataclasses.field(default_factory=dict)

    def recommended(self) -> dict:
        """``{level: row}``: the recommended point at each level (module docstring), where one meets it."""
        return {r["level"]: r for r in self.rows if r["recommended"]}

    def uniform_regret(self) -> float:
        """The regret of uniform play at T, T·mean_a Δ_a: what an algorithm that learns nothing pays."""
        return float(self.config["uniform_regret"])

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "config": self.config, "rows": self.rows,
                "curves": self.curves, "skipped": self.skipped, "seconds": self.seconds,
                "resolution": self.resolution}

    @classmethod
    def from_dict(cls, saved: Mapping) -> "Frontier":
        """The inverse of `to_dict` (``curves`` may be absent: a file of rows only). Anything else (another
        format or version, a JSON of another shape) is a ValueError saying what it is."""
        if not isinstance(saved, Mapping):
            raise ValueError(f"not a frontier (a JSON {type(saved).__name__}, not an object with format "
                             f"{FORMAT!r})")
        if saved.get("format") != FORMAT or saved.get("version") != VERSION:
            raise ValueError(f"not a frontier of this version (format {saved.get('format')!r}, version "
                             f"{saved.get('version')!r}; expected {FORMAT!r}, {VERSION!r})")
        missing = [k for k in ("rows", "skipped", "config", "seconds") if k not in saved]
        if missing:
            raise ValueError(f"not a complete frontier (no {', '.join(missing)})")
        return cls(list(saved["rows"]), dict(saved.get("curves", {})), dict(saved["skipped"]),
                   dict(saved["config"]), dict(saved["seconds"]), dict(saved.get("resolution") or {}))

    @classmethod
    def load(cls, path: str) -> "Frontier":
        """A frontier written by `save` or by `frontier(out=...)` (``OUT/frontier.json``); a file that cannot be
        read, is not JSON or is not a frontier of this version is a ValueError naming it."""
        saved = checks.read_json("frontier file", path)
        try:
            return cls.from_dict(saved)
        except ValueError as err:
            raise ValueError(f"frontier file {path}: {err}") from None

    def save(self, path: str) -> None:
        """Write `to_dict` as JSON (a temporary file renamed: never half a file)."""
        checks.writable_file("path", path)
        write_json(path, self.to_dict())

    def table(self) -> str:
        """The frontier as text: one block per level, rows by regret; ``*`` the recommended point, ``+`` the best of
        the other family, ``≈`` points of the same family not significantly worse than those (the paired
        comparison, `compare`), ``!`` a warning (listed below); under each block the recommendation's line
        (`tie_text`): the runner-ups it is not significantly better than, or that it is better than every one."""
        lines = [f"Privacy-regret frontier: {self.config['env_label']}, T = {self.config['horizon']}, "
                 f"{self.config['runs']} evaluation runs; recommendation under {TRUST_MODELS[self.config['notion']]}"
                 + (f", delta = {self.config['delta']:g}" if self.config["notion"] != "local" else "")]
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
                    named = f"audit {a['name']}" if a is not None and a.get("name") else "audit"  # (older files)
                    audit = ("  [no audit]" if a is None else f"  [{named}: {a['claim_kind']} >= "
                             f"{a['lower_bound']:.3g}" + (" VIOLATED]" if a["violated"] else "]"))
                lines.append(f" {mark} {r['algorithm']:29s} {r['family']:7s} {_short_claim(r):36s} "
                             f"{r['regret_mean']:>11.5g} ± {r['regret_se']:<7.3g}  {shown}{warn}{audit}")
            chosen = [r for r in rows if r["recommended"]]
            if chosen and chosen[0].get("comparisons") is not None:
                lines.append(f"   {tie_text(chosen[0])}")
        if self.skipped:
            lines.append("\nnot included:")
            lines += [f"  {name}: {reason}" for name, reason in sorted(self.skipped.items())]
        warned = [r for r in self.rows if r["warnings"]]
        if warned:
            lines.append("\nwarnings (!):")
            lines += [f"  {r['algorithm']} at epsilon = {r['level']:g}: {w}" for r in warned for w in r["warnings"]]
        if self.resolution:
            res = self.resolution
            lines.append(f"\nmore runs: {len(res['batches'])} batch(es), {res['agent_steps']:.3g} of "
                         f"{res['budget']:.3g} agent-steps; {res['stopped']}"
                         + (f"; still tied at epsilon = {', '.join(f'{lv:g}' for lv in res['unresolved'])}"
                            if res["unresolved"] else ""))
        s = self.seconds
        lines.append(f"\n{s['total']:.0f} s: tuning {s['tuning']:.0f} s, evaluation {s['evaluation']:.0f} s"
                     + (f", audits {s['audit']:.0f} s" if "audit" in s else "")
                     + (f", more runs {s['more_runs']:.0f} s" if "more_runs" in s else ""))
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
    """Whether ``row`` is not significantly worse than ``best``: from their paired comparison where the rows carry
    their runs (`compare`), else (files without them) within two standard errors of the unpaired difference."""
    for c in best.get("comparisons") or ():
        if c["algorithm"] == row["algorithm"]:
            return not c["significant"]
    return abs(row["regret_mean"] - best["regret_mean"]) <= 2 * math.hypot(row["regret_se"], best["regret_se"])


#: A paired difference is significant when its mean is more than this many standard errors from 0 (about 95%).
SIGNIFICANCE_Z = 2.0


def paired_difference(row, best) -> dict | None:
    """``row``'s regret minus ``best``'s, run by run over the evaluation seeds both were simulated on (every row's
    run r of one seed sees the same rewards: common random numbers, so the difference's spread is far below either
    row's): ``{"difference", "se", "runs"}``, or ``None`` where they share no run (rows of an older file)."""
    mine = {e["seed"]: e["regret"] for e in row.get("evaluations") or ()}
    pairs = [(a, b) for e in best.get("evaluations") or () if e["seed"] in mine
             for a, b in zip(mine[e["seed"]], e["regret"])]
    if len(pairs) < 2:
        return None
    d = [a - b for a, b in pairs]
    mean = math.fsum(d) / len(d)
    var = math.fsum((x - mean) ** 2 for x in d) / (len(d) - 1)
    return {"difference": mean, "se": math.sqrt(var / len(d)), "runs": len(d)}


def compare(best, others) -> list:
    """The recommendation's comparison with each runner-up (``others``: the rows of its family meeting the level),
    best first: ``[{"algorithm", "difference", "se", "runs", "significant"}]`` sorted by difference, where
    ``significant`` says the runner-up's regret is higher by more than `SIGNIFICANCE_Z` paired standard errors."""
    out = []
    for r in others:
        d = paired_difference(r, best)
        if d is not None:
            out.append({"algorithm": r["algorithm"], **d,
                        "significant": bool(d["difference"] > SIGNIFICANCE_Z * d["se"])})
    return sorted(out, key=lambda c: c["difference"])


def tie_text(best) -> str:
    """The recommendation's line: where the order against the runner-ups is resolved, and where it is not, "no
    significant difference at N runs" naming the rows (each difference ± its paired SE)."""
    comps = best.get("comparisons") or []
    tied = [c for c in comps if not c["significant"]]
    head = f"recommended: {best['algorithm']}"
    if not comps:
        return head + " (no runner-up with paired runs to compare)"
    if not tied:
        c = comps[0]
        return (head + f"; better than every runner-up on the same {c['runs']} runs (closest {c['algorithm']}: "
                f"+{c['difference']:.4g} ± {c['se']:.2g})")
    names = ", ".join(f"{c['algorithm']} ({c['difference']:+.4g} ± {c['se']:.2g})" for c in tied)
    return head + f"; no significant difference at {tied[0]['runs']} paired runs from {names}"


def _flat(params: dict) -> dict:
    return {f"{side}.{k}" if side == "privatizer" else k: v for side, fields in params.items()
            for k, v in fields.items()}


def _short(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def write_json(path, obj):
    """The frontier's file, written atomically (`jaxbandit.checks.write_json`)."""
    checks.write_json("frontier file", path, obj)


# ------------------------------------------------------------------------------------------------ the driver
