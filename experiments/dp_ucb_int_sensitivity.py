"""How much DP-FTPL's Fig. 4 verdict on DP-UCB-INT depends on our reading of it (experiments/dp_ftpl_findings.md).

Our `dp-ucb-int` releases an arm's private mean S/n + Lap(n^{v/2-1}) once per block of f = ⌈1/ε⌉ pulls and keeps it
until the arm's next block: the only reading with a finite number of releases, hence a privacy accounting. At ε = 1
(f = 1) an arm whose last draw was very low is not pulled again until sqrt(2 ln t / n) catches up, which can take
longer than the run: on instance 1 at T = 10^6, 88 of 200 runs lock onto a suboptimal arm. The MATLAB
re-implementation the reconstruction follows redraws every arm's noise every round instead (unboundedly many
releases, no privacy guarantee). This script runs that reading, `redrawn` below (ε = 1 only: a user-written policy,
not registered, because it is not private), on the same runs as Fig. 4's DP-UCB-INT, and prints both.

    python -m jaxbandit.experiments.dp_ucb_int_sensitivity [--quick] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import jaxbandit as jb
from jaxbandit.policies.common import unplayed_first

from .dp_ftpl import DP_UCB_INT, INSTANCES, settings


class RedrawnParams(NamedTuple):
    v: jax.Array  # Laplace scale n^(v/2 - 1), as dp-ucb-int's


def redrawn(num_arms: int) -> jb.Policy:
    """UCB on S_i/n_i + Lap(n_i^{v/2-1}) + sqrt(2 ln t/n_i) with every arm's noise drawn afresh every round (the MATLAB
    reading of DP-UCB-INT at ε = 1). NOT private: an unbounded number of releases. Sensitivity study only."""
    def init(params):
        return jnp.zeros(num_arms), jnp.zeros(num_arms, jnp.int32)

    def draw(key, steps, params):
        k1, k2 = jax.random.split(key)
        return jax.random.uniform(k1, (steps,)), jax.random.laplace(k2, (steps, num_arms))

    def select(rng, state, params):
        u, lap = rng.drawn
        sums, counts = state
        n = jnp.maximum(counts, 1).astype(sums.dtype)
        t = jnp.maximum(jnp.sum(counts), 1).astype(sums.dtype)
        index = sums / n + lap * n ** (params.v / 2 - 1) + jnp.sqrt(2 * jnp.log(t) / n)
        return unplayed_first(index, counts, u)

    def update(rng, state, arm, obs, params):
        hit = jnp.arange(num_arms) == arm
        return state[0] + hit * obs, state[1] + hit

    return jb.Policy("dp-ucb-int-redrawn", num_arms, init, draw, select, update, jb.types.no_validate,
                     RedrawnParams(jnp.asarray(DP_UCB_INT["v"])), reward_range=(0.0, 1.0))


def summary(res) -> dict:
    final = res.final()
    best = int(np.argmax(res.config["env_params"]["means"]))
    others = np.delete(res.counts, best, axis=-1)
    locked = int(np.sum(others.max(axis=-1) > 0.9 * res.horizon))
    return {"mean": float(final.mean()), "se": float(final.std(ddof=1) / np.sqrt(len(final))),
            "median": float(np.median(final)), "sd": float(final.std(ddof=1)),
            "runs_locked_on_a_suboptimal_arm": locked, "runs": int(len(final))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", help="write the numbers as JSON")
    args = ap.parse_args(argv)
    if args.json:
        jb.checks.writable_file("--json", args.json)
    out = {}
    for inst, means in INSTANCES.items():
        horizon, runs = settings(inst, args.quick)
        kw = dict(env="bernoulli", env_params={"means": list(means)}, horizon=horizon, runs=runs, seed=0,
                  progress=False)
        ours = jb.simulate(policy="dp-ucb-int", policy_params={**DP_UCB_INT, "noise": 0}, **kw)  # as recorded
        theirs = jb.simulate(policy=redrawn(len(means)), **kw)
        out[inst] = {"dp-ucb-int (ours: noise kept between releases)": summary(ours),
                     "noise redrawn every round (MATLAB reading, not private)": summary(theirs)}
        for name, s in out[inst].items():
            print(f"{inst}, {name}: final {s['mean']:.1f} ± {s['se']:.1f} (median {s['median']:.1f}, sd "
                  f"{s['sd']:.1f}); {s['runs_locked_on_a_suboptimal_arm']} of {s['runs']} runs play one suboptimal "
                  f"arm over 90% of the time")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
