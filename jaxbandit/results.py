"""Simulation results with named axes, statistics over runs, save / load, and the request that re-creates them
(`jaxbandit.rerun`)."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform

import numpy as np

METRICS = ("pseudo_regret", "regret")


def environment_info() -> dict:
    import jax

    from jaxbandit import __version__
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
    keys = ("env", "env_params", "policy", "policy_params", "privatizer", "privatizer_params", "grid", "horizon",
            "runs", "seed", "block", "record_times", "x64")
    blob = json.dumps({k: config.get(k) for k in keys}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclasses.dataclass
class Results:
    """Regret of every run at the record times.

    Attributes:
      t: (n_rec,) record times (steps completed).
      pseudo_regret: (*grid, runs, n_rec) Σ_a Δ_a n_a(t), from integer pull counts.
      regret: (*grid, runs, n_rec) realized regret μ* t − Σ_s r_s.
      counts: (*grid, runs, K) pulls per arm at the end.
      grid: ordered ``{axis name: values}`` of the swept parameters (empty for `simulate`).
      config: everything needed to re-run (registry names, parameters, seed, versions).
      seconds: wall time of the simulation (compilation included).
    """

    t: np.ndarray
    pseudo_regret: np.ndarray
    regret: np.ndarray
    counts: np.ndarray
    grid: dict
    config: dict
    seconds: float = 0.0

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
        return dataclasses.replace(self, pseudo_regret=self.pseudo_regret[idx], regret=self.regret[idx],
                                   counts=self.counts[idx], grid=grid)

    def points(self):
        """Iterate ``(coords, Results)`` over every grid point."""
        names = list(self.grid)
        for combo in np.ndindex(*[len(v) for v in self.grid.values()]):
            coords = {n: self.grid[n][i] for n, i in zip(names, combo)}
            yield coords, self.sel(**coords)

    def summary(self) -> dict:
        """Final mean and standard error of both regrets (for a result without grid axes)."""
        if self.grid:
            raise ValueError("summary() needs a single configuration; use sel() or points() on a sweep")
        return {"final_regret_mean": float(self.mean()[-1]), "final_regret_se": float(self.se()[-1]),
                "final_realized_regret_mean": float(self.mean("regret")[-1]),
                "final_realized_regret_se": float(self.se("regret")[-1]),
                "runs": self.runs, "horizon": self.horizon, "seconds": self.seconds,
                "agent_steps_per_second": self.runs * self.horizon / self.seconds if self.seconds else None}

    def save(self, path: str) -> None:
        """Write ``path`` (.npz arrays) and ``path`` with .json (configuration, grid, timing); missing folders
        are created."""
        base = path[:-4] if path.endswith(".npz") else path
        os.makedirs(os.path.dirname(base) or ".", exist_ok=True)
        np.savez_compressed(base + ".npz", t=self.t, pseudo_regret=self.pseudo_regret, regret=self.regret,
                            counts=self.counts)
        with open(base + ".json", "w") as f:
            json.dump({"config": self.config, "grid": _plain(self.grid), "seconds": self.seconds}, f, indent=1)

    @classmethod
    def load(cls, path: str) -> "Results":
        base = path[:-4] if path.endswith((".npz", ".json")) else path
        with open(base + ".json") as f:
            meta = json.load(f)
        with np.load(base + ".npz") as data:
            arrays = {k: data[k] for k in ("t", "pseudo_regret", "regret", "counts")}
        return cls(**arrays, grid=meta["grid"], config=meta["config"], seconds=meta["seconds"])

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
                    horizon=c["horizon"], runs=c["runs"], seed=c["seed"], record=np.asarray(c["record_times"]))


def _plain(grid):
    return {k: [np.asarray(v).tolist() for v in values] for k, values in grid.items()}
