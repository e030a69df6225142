"""The private linear policies against LinUCB and a NumPy LinUCB loop, K = 100 arms, d = 5, R runs, horizon T, each
policy at its defaults with ε = 1; jaxbandit's best of two timed runs after a warm-up (its compilation excluded),
then NumPy loops vectorized over runs for a few steps (their cost per step is constant): LinUCB's, and on the ``cz``
instance each private policy's own (numpy_private_linear.py), in agent-steps per second, side by side in one
process. With ``--numpy-horizon`` equal to ``--horizon`` the loops' final regret is printed beside the engine's (the
same algorithm: the same law, other random streams). Two instances (``--instance``):

- ``cz`` (default): Chowdhury & Zhou's, a new one per run, features fixed for the run (bench_linear.py's, and its
  NumPy loop `bench_linear.numpy_linear`);
- ``sphere``: features drawn each round uniformly on the unit sphere, Bernoulli rewards of mean 1/(1 + e^−⟨x, θ⟩)
  (linear_run.py's; its NumPy loop draws its own features each round).

    python benchmarks/bench_private_linear.py [--instance cz --runs 1000 --horizon 2000 --numpy-horizon 200]
"""
from __future__ import annotations

import argparse
import time

from bench_linear import numpy_linear
from linear_run import numpy_sphere, theta_of
from numpy_private_linear import LOOPS

POLICIES = (("linucb", {}), ("linucb-jdp", {"epsilon": 1.0}), ("linucb-ldp", {"epsilon": 1.0}),
            ("linucb-sdp-amp", {"epsilon": 1.0}), ("linucb-sdp-vec", {"epsilon": 1.0}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arms", type=int, default=100)
    ap.add_argument("--dim", type=int, default=5)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--numpy-horizon", type=int, default=200)
    ap.add_argument("--instance", choices=("cz", "sphere"), default="cz")
    args = ap.parse_args()
    import jaxbandit as jb
    K, d, runs, T = args.arms, args.dim, args.runs, args.horizon
    if args.instance == "sphere":
        env, ep = jb.envs.make("linear", num_arms=K, theta=theta_of(d).tolist(), law="sphere", link="logistic")
    else:
        env, ep = jb.envs.make("linear", num_arms=K, dim=d, instance="chowdhury-zhou")
    rates, regrets = {}, {}
    for name, params in POLICIES:
        times = []
        for rep in range(3):  # the first compiles
            start = time.perf_counter()
            res = jb.simulate(env, name, env_params=ep, policy_params=params, horizon=T, runs=runs, seed=rep,
                              progress=False)
            times.append(time.perf_counter() - start)
        rates[name] = runs * T / min(times[1:])
        regrets[name] = float(res.mean()[-1])
        print(f"{name}: {rates[name]:.3g} agent-steps/s (best of 2: {min(times[1:]):.1f} s; with compile "
              f"{times[0]:.1f} s), final regret {regrets[name]:.1f} ± {float(res.se()[-1]):.1f}", flush=True)
    steps = args.numpy_horizon
    start = time.perf_counter()
    if args.instance == "sphere":
        numpy_sphere("linucb", K, d, runs, steps)
    else:
        reg = numpy_linear("linucb", K, d, runs, steps)
    numpy_rate = runs * steps / (time.perf_counter() - start)
    print(f"NumPy LinUCB: {numpy_rate:.3g} agent-steps/s; against it: "
          + ", ".join(f"{name} {rate / numpy_rate:.2f}x" for name, rate in rates.items()), flush=True)
    if args.instance != "cz":
        return
    own = {"linucb": (numpy_rate, reg)}
    for name, loop in LOOPS.items():
        start = time.perf_counter()
        reg = loop(K, d, runs, steps)
        own[name] = (runs * steps / (time.perf_counter() - start), reg)
    print(f"| policy | jaxbandit agent-steps/s | its NumPy loop | speed-up | against NumPy LinUCB |"
          + (" final regret jaxbandit | NumPy |" if steps == T else ""))
    print("|---|---|---|---|---|" + ("---|---|" if steps == T else ""))
    for name, rate in rates.items():
        np_rate, reg = own[name]
        print(f"| {name} | {rate:.3g} | {np_rate:.3g} | {rate / np_rate:.2f}x | {rate / numpy_rate:.2f}x |"
              + (f" {regrets[name]:.1f} | {reg.mean():.1f} ± {reg.std() / len(reg) ** 0.5:.1f} |" if steps == T
                 else ""))


if __name__ == "__main__":
    main()
