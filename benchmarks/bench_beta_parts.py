"""Where the exact Beta draw's time goes (issue 18, item 4): the sampler as Beta TS calls it each step, on R = 1000
runs x K = 10 arms (runs batched last, uniforms pre-drawn as in the policy's block draw), with its rejection
fallback (`sampling._resolve`) and with the fallback replaced by nothing (rejected entries left unresolved: a
timing, not a sampler), and the generation of its uniforms alone (2 per variate, drawn in blocks of 50 steps as the
policy draws them), side by side in one process, best of 5.

    python benchmarks/bench_beta_parts.py            # shapes a, b uniform on 1..300 (Cheng's path, ~10% rejected)
    python benchmarks/bench_beta_parts.py closed     # a = 1 (inversion: nothing rejected, the fallback never loops)
"""
from __future__ import annotations

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import prng, sampling

R, K, STEPS = 1000, 10, 100


def stepped():
    """A jitted scan of STEPS sampler calls, traced now (so that a patched `sampling._resolve` is the one used)."""
    def run(keys, a, b, u):
        def body(total, i):
            ks = jax.vmap(lambda k: jax.random.fold_in(k, i))(keys)
            x = jax.vmap(lambda k, a, b, uu: sampling.beta(k, a, b, sampling.BetaNoise(uu)),
                         in_axes=(0, -1, -1, -2), out_axes=-1)(ks, a, b, u[i])
            return total + x, None
        return jax.lax.scan(body, jnp.zeros((K, R)), jnp.arange(STEPS))[0]
    return jax.jit(run)


def main():
    keys = jax.random.split(prng.key(0), R)
    rng = np.random.default_rng(0)
    closed = sys.argv[1:] == ["closed"]
    a = jnp.ones((K, R)) if closed else jnp.asarray(rng.integers(1, 300, (K, R)), jnp.float32)
    b = jnp.asarray(rng.integers(1, 300, (K, R)), jnp.float32)
    u = sampling.draw_beta_noise(prng.key(1), (STEPS, K, R)).uniform
    args = (keys, a, b, u)
    variants = {"with fallback": stepped()}
    variants["with fallback"](*args).block_until_ready()
    real = sampling._resolve
    sampling._resolve = lambda keys, x, params, attempt: jnp.nan_to_num(x)
    try:
        variants["first attempt only"] = stepped()
        variants["first attempt only"](*args).block_until_ready()
    finally:
        sampling._resolve = real
    # the randomness alone, drawn as Beta TS's block draw does (50 steps per run key), per step
    block = 50

    def uniforms(keys):
        def body(total, i):
            ks = jax.vmap(lambda k: jax.random.fold_in(k, i))(keys)
            return total + jax.vmap(lambda k: sampling.draw_beta_noise(k, (block, K)).uniform.sum())(ks).sum(), None
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
    print(f"shapes: {'a = 1 (closed form)' if closed else 'a, b uniform on 1..300'}; R = {R}, K = {K}")
    for name, s in best.items():
        print(f"{name:20s} {s / STEPS * 1e6:7.1f} us per step")


if __name__ == "__main__":
    main()
