"""Where the exact Beta draw's time goes (issue 18, item 4): the sampler as Beta TS calls it each step, on R = 1000
runs x K = 10 arms (runs batched last, uniforms pre-drawn as in the policy's block draw), with its rejection
fallback (`samplers._resolve`) and with the fallback replaced by nothing (`_no_fallback`), and the generation of
its uniforms alone (2 per variate, drawn in blocks of 50 steps as the policy draws them), side by side in one
process, best of 5.

    python benchmarks/bench_beta_parts.py            # shapes a, b uniform on 1..300 (Cheng's path, ~10% rejected)
    python benchmarks/bench_beta_parts.py closed     # a = 1 (inversion: nothing rejected, the fallback never loops)
    python benchmarks/bench_beta_parts.py ts         # Beta TS's own shapes: S + 1, F + 1 after 1000 steps of a
                                                     # NumPy Beta TS run (K = 10 means on [0.1, 0.9], as bench_engine)
    python benchmarks/bench_beta_parts.py engine     # Beta TS in the engine: the ceiling a cheaper sampler could reach

`engine`: Beta TS (`simulate`, R = 1000, K = 10 means on [0.1, 0.9], T = 2000) on one device as it is, with the
fallback replaced by a loop that never iterates, and with the whole sampler replaced by θ = U1·a/(a + b) (timings
only: neither is a sampler); then as it is and without the fallback on one CPU device per core (the CLI's
default); against the single-threaded NumPy loop of benchmarks/numpy_policies.py. The fallback's loop also keeps
XLA:CPU from fusing the draw into the step around it (a mere optimization barrier in its place made the step 20%
slower than with the fallback), hence the empty loop. Each variant runs in its own process (the sampler is patched
before the engine traces it), alternating with the NumPy loop; best of 3 rounds, each the best of 2 calls after a
compiling one.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit.random import threefry
from jaxbandit.random import samplers

HERE = os.path.dirname(os.path.abspath(__file__))

R, K, STEPS = 1000, 10, 100
MEANS = np.linspace(0.1, 0.9, K)  # the `ts` and `engine` bandit: bench_engine's K = 10 Bernoulli means
TS_STEPS = 1000  # the `ts` shapes: posterior parameters after this many steps


def _no_fallback(keys, x, params, attempt):
    """Rejected entries left unresolved (a timing, not a sampler), through a while_loop that never iterates: the
    fallback's loop also keeps XLA:CPU from fusing the draw into the code around it."""
    return jax.lax.while_loop(lambda v: jnp.any(v < 0), lambda v: v + 1, jnp.nan_to_num(x))


def ts_shapes(rng):
    """Beta(S + 1, F + 1) parameters, (K, R), of Beta–Bernoulli TS after TS_STEPS steps (NumPy, runs vectorized)."""
    s, f, rows = np.zeros((R, K)), np.zeros((R, K)), np.arange(R)
    for _ in range(TS_STEPS):
        arm = rng.beta(s + 1, f + 1).argmax(1)
        hit = rng.random(R) < MEANS[arm]
        s[rows, arm] += hit
        f[rows, arm] += ~hit
    return (s + 1).T, (f + 1).T


def stepped():
    """A jitted scan of STEPS sampler calls, traced now (so that a patched `samplers._resolve` is the one used)."""
    def run(keys, a, b, u):
        def body(total, i):
            ks = jax.vmap(lambda k: jax.random.fold_in(k, i))(keys)
            x = jax.vmap(lambda k, a, b, uu: samplers.beta(k, a, b, samplers.BetaNoise(uu)),
                         in_axes=(0, -1, -1, -2), out_axes=-1)(ks, a, b, u[i])
            return total + x, None
        return jax.lax.scan(body, jnp.zeros((K, R)), jnp.arange(STEPS))[0]
    return jax.jit(run)


def main():
    keys = jax.random.split(threefry.key(0), R)
    rng = np.random.default_rng(0)
    mode = sys.argv[1] if len(sys.argv) > 1 else "uniform"
    if mode not in ("uniform", "closed", "ts"):
        raise SystemExit(f"shapes must be closed, ts or nothing (a, b uniform on 1..300), got {mode!r}")
    if mode == "ts":
        a, b = (jnp.asarray(x, jnp.float32) for x in ts_shapes(rng))
    else:
        a = jnp.ones((K, R)) if mode == "closed" else jnp.asarray(rng.integers(1, 300, (K, R)), jnp.float32)
        b = jnp.asarray(rng.integers(1, 300, (K, R)), jnp.float32)
    u = samplers.draw_beta_noise(threefry.key(1), (STEPS, K, R)).uniform
    args = (keys, a, b, u)
    variants = {"with fallback": stepped()}
    variants["with fallback"](*args).block_until_ready()
    real = samplers._resolve
    samplers._resolve = _no_fallback
    try:
        variants["first attempt only"] = stepped()
        variants["first attempt only"](*args).block_until_ready()
    finally:
        samplers._resolve = real
    # the randomness alone, drawn as Beta TS's block draw does (50 steps per run key), per step
    block = 50

    def uniforms(keys):
        def body(total, i):
            ks = jax.vmap(lambda k: jax.random.fold_in(k, i))(keys)
            return total + jax.vmap(lambda k: samplers.draw_beta_noise(k, (block, K)).uniform.sum())(ks).sum(), None
        return jax.lax.scan(body, jnp.zeros(()), jnp.arange(STEPS // block))[0]

    drawn = jax.jit(uniforms)
    variants["uniforms only"] = lambda keys, *_: drawn(keys)
    variants["uniforms only"](*args).block_until_ready()
    best = dict.fromkeys(variants, np.inf)
    for _ in range(5):
        for name, f in variants.items():
            t0 = time.perf_counter()
            f(*args).block_until_ready()
            best[name] = min(best[name], time.perf_counter() - t0)
    described = {"uniform": "a, b uniform on 1..300", "closed": "a = 1 (closed form)",
                 "ts": f"Beta TS after {TS_STEPS} steps"}[mode]
    print(f"shapes: {described}; R = {R}, K = {K}")
    # entries the first attempt rejects, per step: what the fallback's buffer (`samplers._resolve`) must hold
    accepted = jax.jit(jax.vmap(lambda uu: samplers._cheng_attempt(uu[..., 0], uu[..., 1],
                                                                    samplers._beta_consts(a, b))[0]))
    pending = np.sum(~np.asarray(accepted(u)), axis=(1, 2))
    cap = max(128, -(-K * R // samplers._CAP_DIVISOR))
    print(f"rejected by the first attempt: {pending.mean():.0f} per step (max {pending.max()} of {STEPS} steps); "
          f"fallback buffer {cap}")
    for name, s in best.items():
        print(f"{name:20s} {s / STEPS * 1e6:7.1f} us per step")


ENGINE_VARIANTS = ("as it is", "no fallback", "no sampler", "as it is, one device per core",
                   "no fallback, one device per core")
ENGINE_T = 2000


def engine_seconds(variant):
    """Run time of Beta TS in the engine, best of 2 calls after a compiling one, with `variant` patched in."""
    import jaxbandit as jb
    if variant.endswith(", one device per core"):
        jb.use_cpu_devices()  # before JAX starts; the engine shards the runs over the devices
    if variant.startswith("no fallback"):
        samplers._resolve = _no_fallback
    elif variant == "no sampler":
        samplers.beta = lambda key, a, b, noise: noise.uniform[..., 0] * a / (a + b)
    kw = dict(env_params={"means": list(MEANS)}, horizon=ENGINE_T, runs=R, progress=False,
              chunk_steps=ENGINE_T)
    jb.simulate("bernoulli", "thompson", seed=0, **kw)
    return min(jb.simulate("bernoulli", "thompson", seed=s, **kw).seconds for s in (1, 2))


def engine_main(rounds=3):
    sys.path.insert(0, HERE)
    import numpy_policies
    best = dict.fromkeys(ENGINE_VARIANTS + ("NumPy loop",), np.inf)
    for r in range(rounds):
        for variant in ENGINE_VARIANTS:
            out = subprocess.run([sys.executable, __file__, "engine-variant", variant], check=True,
                                 capture_output=True, text=True).stdout
            best[variant] = min(best[variant], float(out.split()[-1]))
        t0 = time.perf_counter()
        numpy_policies.numpy_thompson(list(MEANS), R, ENGINE_T, seed=r)
        best["NumPy loop"] = min(best["NumPy loop"], time.perf_counter() - t0)
    print(f"Beta TS, R = {R}, K = {K}, T = {ENGINE_T}; best of {rounds} rounds")
    for name, sec in best.items():
        print(f"{name:12s} {sec / ENGINE_T * 1e6:7.1f} us per step  {best['NumPy loop'] / sec:5.2f}x NumPy")


if __name__ == "__main__":
    if sys.argv[1:2] == ["engine"]:
        engine_main()
    elif sys.argv[1:2] == ["engine-variant"]:
        print(engine_seconds(sys.argv[2]))
    else:
        main()
