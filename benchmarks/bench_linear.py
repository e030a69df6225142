"""Linear bandits against NumPy (issue 48): LinUCB and linear Thompson sampling in jaxbandit's engine and in a
NumPy loop of the same algorithm vectorized across runs (einsum over the batch), side by side in one process,
alternating, best of N; jaxbandit's compilation excluded (a warm-up call first).

The instance is Chowdhury & Zhou's (K arms, d features: (s, 1) with s on the unit sphere, the basis rows, θ = (0.5u,
0.5)), a new one per run, Bernoulli rewards. Both sides keep V⁻¹ by Sherman–Morrison and log det V by the
determinant lemma; the NumPy loop's regret is checked against the engine's (same law, other random streams) by
printing both means.

    python benchmarks/bench_linear.py [--arms 100 --dim 5 --runs 1000 --horizon 2000 --rounds 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def cz_instances(rng, runs, K, d):
    """Chowdhury & Zhou's instance per run: features (runs, K, d) and θ (runs, d)."""
    s = rng.normal(size=(runs, K, d - 1))
    s /= np.linalg.norm(s, axis=-1, keepdims=True)
    X = np.concatenate([s, np.ones((runs, K, 1))], axis=-1)
    basis = np.eye(d)
    basis[:, -1] = 1
    X[:, :d] = basis
    u = rng.normal(size=(runs, d - 1))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    theta = np.concatenate([0.5 * u, np.full((runs, 1), 0.5)], axis=-1)
    return X.astype(np.float32), theta.astype(np.float32)


def numpy_step(policy, X, means, rng, stats, log_inv_delta, ridge=1.0, noise_scale=0.5, theta_bound=1.0,
               scale=0.5):
    """One step of LinUCB (OFUL's width) or linear TS (constant scale) for every run at once, on features X (runs, K,
    d) with mean rewards ``means`` (runs, K): chooses, draws the Bernoulli reward, and updates ``stats`` = (V⁻¹, Σ r x,
    log det V / V_0) in place (Sherman–Morrison, determinant lemma). Returns each run's pseudo-regret of the step."""
    vinv, xr, logdet = stats
    runs, K, d = X.shape
    idx = np.arange(runs)
    theta_hat = np.einsum("rij,rj->ri", vinv, xr)
    if policy == "linucb":
        norms = np.sqrt(np.maximum(np.einsum("rki,rij,rkj->rk", X, vinv, X), 0))
        beta = noise_scale * np.sqrt(2 * log_inv_delta + logdet) + np.sqrt(ridge) * theta_bound
        index = np.einsum("rkd,rd->rk", X, theta_hat) + beta[:, None] * norms
    else:
        z = rng.standard_normal((runs, d)).astype(np.float32)
        sample = theta_hat + scale * np.einsum("rij,rj->ri", np.linalg.cholesky(vinv), z)
        index = np.einsum("rkd,rd->rk", X, sample)
    arm = np.argmax(index + 1e-7 * rng.random((runs, K)), axis=1)  # ties broken at random
    x = X[idx, arm]
    reward = (rng.random(runs) < means[idx, arm]).astype(np.float32)
    vx = np.einsum("rij,rj->ri", vinv, x)
    q = np.einsum("ri,ri->r", x, vx)
    vinv -= np.einsum("ri,rj->rij", vx, vx) / (1 + q)[:, None, None]
    vinv[:] = 0.5 * (vinv + np.swapaxes(vinv, 1, 2))
    xr += reward[:, None] * x
    logdet += np.log1p(q)
    return means.max(axis=1) - means[idx, arm]


def numpy_linear(policy, K, d, runs, horizon, seed=0, ridge=1.0, noise_scale=0.5, theta_bound=1.0, scale=0.5):
    """LinUCB (OFUL's width, δ = 1/T) or linear TS (constant scale) for ``runs`` runs at once; returns the final
    pseudo-regret of each run."""
    rng = np.random.default_rng(seed)
    X, theta = cz_instances(rng, runs, K, d)
    means = np.einsum("rkd,rd->rk", X, theta)
    vinv = np.broadcast_to(np.eye(d, dtype=np.float32) / ridge, (runs, d, d)).copy()
    xr = np.zeros((runs, d), np.float32)
    logdet = np.zeros(runs, np.float32)
    regret = np.zeros(runs)
    log_inv_delta = np.log(horizon)
    for _ in range(horizon):
        regret += numpy_step(policy, X, means, rng, (vinv, xr, logdet), log_inv_delta, ridge, noise_scale,
                             theta_bound, scale)
    return regret


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arms", type=int, default=100)
    ap.add_argument("--dim", type=int, default=5)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=["linucb", "lin-ts"])
    args = ap.parse_args()
    import jax

    import jaxbandit as jb
    kw = dict(env_params={"num_arms": args.arms, "dim": args.dim, "instance": "chowdhury-zhou"},
              horizon=args.horizon, runs=args.runs, progress=False, chunk_steps=args.horizon)
    steps = args.runs * args.horizon
    print(f"K = {args.arms}, d = {args.dim}, {args.runs} runs, T = {args.horizon}, {jax.devices()[0].platform}, "
          f"best of {args.rounds}")
    print("| policy | jaxbandit s | NumPy s | speed-up | jaxbandit agent-steps/s | final regret jaxbandit | NumPy |")
    print("|---|---|---|---|---|---|---|")
    for name in args.only:
        jb.simulate("linear", name, **kw)  # compile
        best_jb = best_np = float("inf")
        for r in range(args.rounds):
            t0 = time.perf_counter()
            res = jb.simulate("linear", name, seed=r, **kw)
            best_jb = min(best_jb, time.perf_counter() - t0)
            t0 = time.perf_counter()
            reg = numpy_linear(name, args.arms, args.dim, args.runs, args.horizon, seed=r)
            best_np = min(best_np, time.perf_counter() - t0)
        print(f"| {name} | {best_jb:.2f} | {best_np:.2f} | {best_np / best_jb:.1f}x | {steps / best_jb:.3g} | "
              f"{res.mean()[-1]:.1f} ± {res.se()[-1]:.1f} | {reg.mean():.1f} ± {reg.std() / np.sqrt(len(reg)):.1f} |")


if __name__ == "__main__":
    main()
