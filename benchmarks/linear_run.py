"""A contextual run end to end (issue 48): LinUCB and linear Thompson sampling on K arms whose d features are drawn
each round uniformly on the unit sphere, Bernoulli rewards of mean 1/(1 + e^−⟨x, θ⟩) (the logistic link: the
identity cannot give a Bernoulli mean on the whole sphere), |θ| = 1. jaxbandit runs the whole horizon; a NumPy loop of
the same algorithms, vectorized across runs (einsum over the batch) and drawing its own features each round, runs
``--numpy-horizon`` steps (its cost per step is constant), so the two are compared in agent-steps per second,
side by side in one process. Writes the regret curves (mean ± 2 SE) and, with ``--save``, the pseudo-regret, so
that runs on other device counts and chunkings can be compared bit for bit (``--compare A.npz B.npz``).

    python benchmarks/linear_run.py [--runs 1000 --horizon 20000 --numpy-horizon 1000] --plot out/linear_run.png
    python benchmarks/linear_run.py --runs 100 --horizon 2000 --chunk-steps 150 --save a.npz
    python benchmarks/linear_run.py --runs 100 --horizon 2000 --devices 2 --save b.npz
    python benchmarks/linear_run.py --compare a.npz b.npz
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from bench_linear import numpy_step



def theta_of(dim: int) -> np.ndarray:
    """θ = (1, ..., 1)/√d: unit norm, every coordinate alike."""
    return np.full(dim, 1 / np.sqrt(dim), np.float32)


def numpy_sphere(policy, K, d, runs, horizon, seed=0, ridge=1.0, noise_scale=0.5, theta_bound=1.0, scale=0.5,
                 delta_horizon=None):
    """LinUCB (OFUL's width, δ = 1/T) or linear TS (constant scale) for ``runs`` runs at once, features drawn each
    round on the unit sphere, logistic Bernoulli rewards; returns the per-run pseudo-regret after ``horizon``
    steps. ``delta_horizon``: the T of δ = 1/T (default ``horizon``)."""
    rng = np.random.default_rng(seed)
    theta = theta_of(d)
    stats = (np.broadcast_to(np.eye(d, dtype=np.float32) / ridge, (runs, d, d)).copy(), np.zeros((runs, d), np.float32),
             np.zeros(runs, np.float32))
    regret = np.zeros(runs)
    log_inv_delta = np.log(delta_horizon or horizon)
    for _ in range(horizon):
        X = rng.standard_normal((runs, K, d)).astype(np.float32)
        X /= np.linalg.norm(X, axis=-1, keepdims=True)
        means = 1 / (1 + np.exp(-(X @ theta)))
        regret += numpy_step(policy, X, means, rng, stats, log_inv_delta, ridge, noise_scale, theta_bound, scale)
    return regret


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arms", type=int, default=100)
    ap.add_argument("--dim", type=int, default=5)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=20_000)
    ap.add_argument("--numpy-horizon", type=int, default=1000, help="the NumPy loop's steps (0: none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--devices", type=int, default=1, help="CPU devices (one per core at most)")
    ap.add_argument("--chunk-steps", type=int, default=None)
    ap.add_argument("--only", nargs="*", default=["linucb", "lin-ts"])
    ap.add_argument("--plot", help="PNG of the regret curves")
    ap.add_argument("--save", help="NPZ of the pseudo-regret curves")
    ap.add_argument("--compare", nargs=2, metavar="NPZ", help="compare two saved runs bit for bit, then exit")
    args = ap.parse_args()
    if args.compare:
        a, b = (np.load(p) for p in args.compare)
        same = sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)
        print(f"{args.compare[0]} vs {args.compare[1]}: {'identical' if same else 'DIFFERENT'} ({sorted(a.files)})")
        return 0 if same else 1
    import jaxbandit as jb
    if args.devices > 1:
        jb.use_cpu_devices(args.devices)
    import jax
    env_params = {"num_arms": args.arms, "dim": args.dim, "law": "sphere", "link": "logistic",
                  "theta": theta_of(args.dim).tolist()}
    steps = args.runs * args.horizon
    print(f"K = {args.arms}, d = {args.dim}, features on the unit sphere each round, logistic Bernoulli rewards, "
          f"|theta| = 1; {args.runs} runs, T = {args.horizon}; {len(jax.devices())} {jax.devices()[0].platform} "
          f"device(s), chunk_steps = {args.chunk_steps}", flush=True)
    print("| policy | jaxbandit s (compile) | jaxbandit agent-steps/s | NumPy agent-steps/s (its T) | speed-up | "
          "final regret ± SE | regret at NumPy's T: jaxbandit / NumPy |")
    print("|---|---|---|---|---|---|---|")
    record = np.unique(np.r_[np.linspace(1, args.horizon, 100).astype(int), min(args.numpy_horizon or 1,
                                                                                 args.horizon)])
    curves, saved = {}, {}
    for name in args.only:
        t0 = time.perf_counter()
        res = jb.simulate("linear", name, env_params=env_params, horizon=args.horizon, runs=args.runs,
                          seed=args.seed, progress=False, chunk_steps=args.chunk_steps, devices=args.devices,
                          record=record)
        wall = time.perf_counter() - t0
        run_s = res.seconds - res.compile_seconds
        rate = steps / run_s
        np_rate, np_text, agree = None, "—", "—"
        if args.numpy_horizon:
            t0 = time.perf_counter()
            reg = numpy_sphere(name, args.arms, args.dim, args.runs, args.numpy_horizon, seed=args.seed,
                               delta_horizon=args.horizon)
            np_rate = args.runs * args.numpy_horizon / (time.perf_counter() - t0)
            np_text = f"{np_rate:.3g} ({args.numpy_horizon})"
            at = int(np.searchsorted(res.t, args.numpy_horizon))
            agree = (f"{res.mean()[at]:.1f} ± {res.se()[at]:.1f} / {reg.mean():.1f} ± "
                     f"{reg.std(ddof=1) / np.sqrt(len(reg)):.1f}")
        speedup = f"{rate / np_rate:.1f}x" if np_rate else "—"
        print(f"| {name} | {run_s:.1f} ({res.compile_seconds:.1f}; wall {wall:.1f}) | {rate:.3g} | {np_text} | "
              f"{speedup} | {res.mean()[-1]:.1f} ± {res.se()[-1]:.1f} | {agree} |", flush=True)
        curves[name] = res
        saved[f"{name}:pseudo_regret"] = res.pseudo_regret
        saved[f"{name}:counts"] = res.counts
    if args.save:
        np.savez_compressed(args.save, **saved)
        print(f"wrote {args.save}")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6.4, 4.2), constrained_layout=True)
        for name, res in curves.items():
            mean, se = res.mean(), res.se()
            ax.plot(res.t, mean, label=f"{name} (final {mean[-1]:.0f} ± {se[-1]:.1f})")
            ax.fill_between(res.t, mean - 2 * se, mean + 2 * se, alpha=0.25)
        ax.set_xlabel("round t")
        ax.set_ylabel("pseudo-regret (expected, given the contexts)")
        ax.set_title(f"Linear bandit: K = {args.arms}, d = {args.dim}, features on the sphere each round,\n"
                     f"logistic Bernoulli rewards, {args.runs} runs (mean ± 2 SE)", fontsize=10)
        ax.legend()
        ax.grid(alpha=0.3)
        fig.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
