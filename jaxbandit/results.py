"""Simulation results with named axes, statistics over runs, save / load, and the request that re-creates them
(`jaxbandit.rerun`)."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
import zipfile

import numpy as np

#: The regret measures a `Results` can hold.
METRICS = ("pseudo_regret", "regret")
#: The format name and version a saved `Results` file carries.
RESULTS_FORMAT, RESULTS_VERSION = "jaxbandit-results", 1  # files of jaxbandit 0.2 carry no format: read as version 1
#: The arrays a saved `Results` file holds.
ARRAYS = ("t", "pseudo_regret", "regret", "counts")


def environment_info() -> dict:
    """The versions a result was computed with (jaxbandit, jax, jaxlib, Python), the backend and whether x64 is on."""
    import jax

    from jaxbandit.version import __version__
    return {"jaxbandit_version": __version__, "jax_version": jax.__version__,
            "jaxlib_version": getattr(jax.lib, "__version__", None) or _jaxlib_version(),
            "backend": jax.default_backend(), "x64": bool(jax.config.jax_enable_x64),
            "python": platform.python_version()}


def _jaxlib_version():
    try:
        import jaxlib
        return jaxlib.__version__
    except Exception:  # pragma: no cover
        return None


def config_fingerprint(config: dict) -> str:
    """Hash of what determines the numbers (not of versions or timings)."""
    keys = ("env", "env_params", "policy", "policy_params", "policy_options", "privatizer", "privatizer_params",
            "grid", "horizon", "runs", "seed", "block", "record_times", "x64", "simulator")
    what = {k: config.get(k) for k in keys}
    if "realized" in config:  # only where it was recorded (realized=False): other fingerprints stay as they were
        what["realized"] = config["realized"]
    blob = json.dumps(what, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclasses.dataclass
class Results:
    """Regret of every run at the record times.

    Attributes:
      t: (n_rec,) record times (steps completed).
      pseudo_regret: (*grid, runs, n_rec) Σ_a Δ_a n_a(t), from integer pull counts.
      regret: (*grid, runs, n_rec) realized regret μ* t − Σ_s r_s; None where only the pseudo-regret was recorded
        (``realized=False``).
      counts: (*grid, runs, K) pulls per arm at the end.
      grid: ordered ``{axis name: values}`` of the swept parameters (empty for `simulate`).
      config: everything needed to re-run (registry names, parameters, seed, versions).
      seconds: wall time of the simulation (compilation included).
      compile_seconds: the part of ``seconds`` spent compiling or loading compiled programs (0 where a compiled
        program was reused in memory; a resumed run counts only this process's; ``None`` for results saved before
        it was recorded).
      checkpoint: the checkpoint file a run kept (``keep_checkpoint=True``), else ``None``; not saved.
    """

    t: np.ndarray
    pseudo_regret: np.ndarray
    regret: np.ndarray | None
    counts: np.ndarray
    grid: dict
    config: dict
    seconds: float = 0.0
    compile_seconds: float | None = None
    checkpoint: str | None = None

    @property
    def axes(self) -> tuple:
        return tuple(self.grid) + ("run", "t")

    @property
    def runs(self) -> int:
        return self.pseudo_regret.shape[len(self.grid)]

    @property
    def horizon(self) -> int:
        return int(self.config["horizon"])

    def _metric(self, metric):
        if metric not in METRICS:
            raise ValueError(f"metric {metric!r} must be one of {METRICS}")
        if getattr(self, metric) is None:
            raise ValueError(f"metric {metric!r}: these results recorded the pseudo-regret only (realized=False); "
                             "run with realized=True for the realized regret")
        return getattr(self, metric)

    def mean(self, metric="pseudo_regret") -> np.ndarray:
        """Mean over runs: shape (*grid, n_rec)."""
        return self._metric(metric).mean(axis=len(self.grid))

    def se(self, metric="pseudo_regret") -> np.ndarray:
        """Standard error of the mean over runs (0 for a single run)."""
        x = self._metric(metric)
        n = x.shape[len(self.grid)]
        return x.std(axis=len(self.grid), ddof=1) / np.sqrt(n) if n > 1 else np.zeros_like(self.mean(metric))

    def quantile(self, q, metric="pseudo_regret") -> np.ndarray:
        """Quantile(s) over runs: shape (*q.shape, *grid, n_rec)."""
        return np.quantile(self._metric(metric), q, axis=len(self.grid))

    def final(self, metric="pseudo_regret") -> np.ndarray:
        """Per-run regret at the last record time: shape (*grid, runs)."""
        return self._metric(metric)[..., -1]

    def sel(self, **coords) -> "Results":
        """The sub-result at given grid values, e.g. ``res.sel(**{"policy.epsilon": 0.1})``."""
        index, grid = [], {}
        for name, values in self.grid.items():
            if name in coords:
                matches = [i for i, v in enumerate(values) if np.array_equal(np.asarray(v), np.asarray(coords[name]))]
                if not matches:
                    raise ValueError(f"{name}={coords[name]!r} is not on the grid; values: {values}")
                index.append(matches[0])
            else:
                index.append(slice(None))
                grid[name] = values
        unknown = set(coords) - set(self.grid)
        if unknown:
            raise ValueError(f"unknown grid axes {sorted(unknown)}; axes: {list(self.grid)}")
        idx = tuple(index)
        return dataclasses.replace(self, pseudo_regret=self.pseudo_regret[idx],
                                   regret=None if self.regret is None else self.regret[idx],
                                   counts=self.counts[idx], grid=grid)

    def points(self):
        """Iterate ``(coords, Results)`` over every grid point."""
        names = list(self.grid)
        for combo in np.ndindex(*[len(v) for v in self.grid.values()]):
            coords = {n: self.grid[n][i] for n, i in zip(names, combo)}
            yield coords, self.sel(**coords)

    def summary(self) -> dict:
        """Final mean and standard error of both regrets (the realized one None where not recorded; for a result
        without grid axes), and timing:
        ``agent_steps_per_second`` with compilation included, ``simulation_agent_steps_per_second`` without it."""
        if self.grid:
            raise ValueError("summary() needs a single configuration; use sel() or points() on a sweep")
        simulating = None if self.compile_seconds is None else self.seconds - self.compile_seconds
        return {"final_regret_mean": float(self.mean()[-1]), "final_regret_se": float(self.se()[-1]),
                "final_realized_regret_mean": None if self.regret is None else float(self.mean("regret")[-1]),
                "final_realized_regret_se": None if self.regret is None else float(self.se("regret")[-1]),
                "runs": self.runs, "horizon": self.horizon, "seconds": self.seconds,
                "agent_steps_per_second": self.runs * self.horizon / self.seconds if self.seconds else None,
                "compile_seconds": self.compile_seconds,
                "simulation_agent_steps_per_second": self.runs * self.horizon / simulating if simulating else None}

    def __repr__(self) -> str:
        c = self.config
        grid = ", ".join(f"{k}: {len(v)} values" for k, v in self.grid.items()) or "none"
        head = (f"Results({c.get('policy')} on {c.get('env')} ({self.counts.shape[-1]} arms), privatizer "
                f"{c.get('privatizer')}; T={c.get('horizon')}, {self.runs} runs, seed {c.get('seed')}; grid: {grid}; "
                f"{len(self.t)} record times")
        if not self.grid and len(self.t):
            head += f"; final pseudo-regret {self.mean()[-1]:.4g} ± {self.se()[-1]:.2g} (SE)"
        return head + ")"

    def save(self, path: str) -> None:
        """Write ``path`` (.npz arrays) and ``path`` with .json (format version, configuration, grid, timing);
        missing folders are created. Both paths are checked before either is written, and each file is written to
        a temporary name and renamed, so a failed write never leaves a truncated file under the final name; a
        failure is one ValueError naming the file (these results stay in memory)."""
        from jaxbandit import checks
        base = path[:-4] if path.endswith((".npz", ".json")) else path
        for ext in (".npz", ".json"):  # both checked before either is written
            checks.writable_file("results file", base + ext)
        meta = {"format": RESULTS_FORMAT, "format_version": RESULTS_VERSION, "config": self.config,
                "grid": _plain(self.grid), "seconds": self.seconds, "compile_seconds": self.compile_seconds}

        def arrays(tmp):
            with open(tmp, "wb") as f:
                np.savez_compressed(f, **{k: getattr(self, k) for k in ARRAYS if getattr(self, k) is not None})

        def text(tmp):
            with open(tmp, "w") as f:
                json.dump(meta, f, indent=1)

        checks.written("results file", base + ".npz", arrays)
        checks.written("results file", base + ".json", text)

    @classmethod
    def load(cls, path: str) -> "Results":
        """Read results written by `save` (``path`` with or without .npz/.json); without pickle. A file that is
        missing, corrupt, foreign or of a newer format version gets one ValueError naming it and the problem."""
        base = path[:-4] if path.endswith((".npz", ".json")) else path
        try:
            with open(base + ".json") as f:
                meta = json.load(f)
        except (OSError, ValueError) as err:
            raise ValueError(f"results file {base}.json cannot be read ({type(err).__name__}: {err})") from err
        if not isinstance(meta, dict) or not {"config", "grid"} <= set(meta):
            raise ValueError(f"results file {base}.json is not a jaxbandit results file (no config and grid)")
        fmt, version = meta.get("format", RESULTS_FORMAT), meta.get("format_version", RESULTS_VERSION)
        if fmt != RESULTS_FORMAT:
            raise ValueError(f"results file {base}.json is not a jaxbandit results file (format {fmt!r})")
        if version != RESULTS_VERSION:
            written = meta["config"].get("jaxbandit_version") if isinstance(meta["config"], dict) else None
            raise ValueError(f"results file {base}.json has format version {version!r} (written by jaxbandit "
                             f"{written}); this jaxbandit reads version {RESULTS_VERSION}: use the version that "
                             f"wrote it, or run the configuration again")
        try:
            with np.load(base + ".npz", allow_pickle=False) as data:
                pseudo_only = meta["config"].get("realized") is False if isinstance(meta["config"], dict) else False
                arrays = {k: None if k == "regret" and pseudo_only else data[k] for k in ARRAYS}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            raise ValueError(f"results file {base}.npz cannot be read ({npz_problem(err, base + '.npz')})") from err
        grid = meta["grid"]
        lead = tuple(len(v) for v in grid.values()) if isinstance(grid, dict) else None
        n_rec = arrays["t"].shape[0] if arrays["t"].ndim == 1 else None
        curve = arrays["pseudo_regret"].shape
        if (lead is None or n_rec is None or curve[:len(lead)] != lead or len(curve) != len(lead) + 2
                or curve[-1] != n_rec or (arrays["regret"] is not None and arrays["regret"].shape != curve)
                or arrays["counts"].shape[:-1] != curve[:-1]):
            regret = None if arrays["regret"] is None else arrays["regret"].shape
            raise ValueError(f"results file {base}.npz has inconsistent shapes (t {arrays['t'].shape}, "
                             f"pseudo_regret {curve}, regret {regret}, counts "
                             f"{arrays['counts'].shape}, grid {lead}): damaged or not from jaxbandit")
        return cls(**arrays, grid=grid, config=meta["config"], seconds=meta.get("seconds", 0.0),
                   compile_seconds=meta.get("compile_seconds"))

    def request(self) -> dict:
        """The keyword arguments of `jaxbandit.sweep` that re-create these results (`jaxbandit.rerun` runs them).

        A configuration that used user-written component objects records only their names: pass the objects
        again (``jaxbandit.rerun(res, policy=my_policy)``)."""
        c = self.config
        missing = [key for key in ("env", "policy", "privatizer", "env_params", "policy_params", "privatizer_params",
                                   "grid", "horizon", "runs", "seed", "record_times") if key not in c]
        if missing:
            raise ValueError(f"these results' configuration lacks {missing} (written by jaxbandit "
                             f"{c.get('jaxbandit_version', 'unknown')}?): it cannot be re-run")
        grid = {tuple(a["paths"]) if len(a["paths"]) > 1 else a["paths"][0]:
                [tuple(v) if len(a["paths"]) > 1 else v for v in a["values"]] for a in c["grid"]}
        return dict(env=c["env"], policy=c["policy"], privatizer=c["privatizer"], env_params=c["env_params"],
                    policy_params=c["policy_params"], privatizer_params=c["privatizer_params"], grid=grid,
                    horizon=c["horizon"], runs=c["runs"], seed=c["seed"], record=np.asarray(c["record_times"]),
                    **({"policy_options": c["policy_options"]} if c.get("policy_options") else {}),
                    **({"simulator": c["simulator"]} if "simulator" in c else {}),
                    **({"realized": False} if c.get("realized") is False else {}),
                    **({"first_run": c["first_run"]} if c.get("first_run") else {}))


def npz_problem(err: Exception, path: str | None = None) -> str:
    """What is wrong with an .npz file, from numpy's error (whose advice to allow pickle is not ours to give) and,
    given the ``path``, its first bytes: numpy takes any file that is neither a zip archive nor an .npy array for a
    pickle, so a damaged or foreign file would otherwise be reported as "pickled"."""
    if "allow_pickle" in str(err):
        try:
            with open(path, "rb") as f:
                head = f.read(6)
        except (OSError, TypeError):
            head = None
        if head is not None and not head.startswith((b"PK\x03\x04", b"\x93NUMPY")):
            return "it is not an .npz archive: no zip header"
        return "it holds pickled Python objects, which jaxbandit never loads"
    return f"{type(err).__name__}: {err}"


def _plain(grid):
    return {k: [np.asarray(v).tolist() for v in values] for k, values in grid.items()}
