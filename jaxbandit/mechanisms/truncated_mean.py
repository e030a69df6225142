"""Private robust mean estimators for heavy-tailed rewards (seed 004: Tao, Wu, Zhao & Wang, AISTATS 2022; spec 004
§3): truncation, the epoch mean with Laplace noise (central ε-DP, Algorithm 3) and the per-sample Laplace channel
(ε-LDP, Algorithm 4), with their exact privacy levels (their exact bias and variance on Pareto arms: `jaxbandit.envs.tails`).

Truncation zeroes, it does not clip: x̃ = x·1{|x| <= B} (the paper's rule; a reward above B becomes 0, not B).
Both estimators are pure jnp functions of the samples and of standard Laplace draws supplied by the caller (so a
policy draws its noise in blocks); the accounting beside them is host-side NumPy.
"""
from __future__ import annotations

import numpy as np
import jax.numpy as jnp

from jaxbandit.mechanisms import laplace as laplace_noise

__all__ = ["truncate", "central_mean", "central_release", "local_mean", "local_report", "central_scale", "local_scale",
           "channel_level", "central_level"]


def truncate(x, bound):
    """x̃ = x·1{|x| <= B}: the truncation of seed 004 (zeroing, not clipping)."""
    x = jnp.asarray(x)
    return jnp.where(jnp.abs(x) <= bound, x, jnp.zeros((), x.dtype))


def central_scale(bound, pulls, epsilon):
    """2B/(Rε): the Laplace scale of Algorithm 3's epoch mean of R truncated rewards (sensitivity 2B/R)."""
    return 2 * bound / (pulls * epsilon)


def local_scale(bound, epsilon):
    """2B/ε: the Laplace scale of Algorithm 4's per-sample channel (sensitivity 2B; the proof of Theorem 6 writes
    B/ε, a typo: that channel is 2ε-LDP, see `channel_level`)."""
    return 2 * bound / epsilon


def central_mean(x, bound, epsilon, laplace):
    """μ̃ = (1/R) Σ_l x̃_l + Lap(2B/(Rε)) over the last axis of ``x`` (R samples; Algorithm 3, spec 004 §3.2).
    ``laplace``: the noise of one release per estimate (shape ``x.shape[:-1]``): a `jaxbandit.mechanisms.laplace.Noise`
    (discrete release, floating-point safe, or the float one) or standard Laplace draws (float)."""
    x = jnp.asarray(x)
    r = x.shape[-1]
    return central_release(jnp.mean(truncate(x, bound), axis=-1), bound, r, epsilon, laplace)


def central_release(mean, bound, pulls, epsilon, laplace):
    """mean + Lap(2B/(Rε)), the mean of R truncated rewards having sensitivity 2B/R (see `central_mean`)."""
    scale = central_scale(bound, pulls, epsilon)
    return laplace_noise.released(mean + scale * laplace_noise.laplace_of(laplace), mean, scale,
                                  2 * bound / pulls, laplace)


def local_report(x, bound, epsilon, laplace):
    """x̂ = x̃ + Lap(2B/ε): what one user sends under Algorithm 4 (ε-LDP; x̃ ∈ [−B, B], sensitivity 2B). ``laplace``:
    a `jaxbandit.mechanisms.laplace.Noise` or standard Laplace draws, shape of x."""
    kept = truncate(x, bound)
    scale = local_scale(bound, epsilon)
    return laplace_noise.released(kept + scale * laplace_noise.laplace_of(laplace), kept, scale, 2 * bound, laplace)


def local_mean(x, bound, epsilon, laplace):
    """μ̄ = (1/R) Σ_l (x̃_l + Lap_l(2B/ε)) over the last axis (Algorithm 4, spec 004 §3.3)."""
    return jnp.mean(local_report(x, bound, epsilon, laplace), axis=-1)


def channel_level(bound, scale) -> float:
    """The exact LDP level of x ↦ x·1{|x| <= B} + Lap(scale) over all real inputs: sup_{x,x',y} of the log density
    ratio = sup |x̃ − x̃'|/scale = 2B/scale (x = B, x' = −B). ε at scale 2B/ε."""
    return float(2 * np.asarray(bound, np.float64) / np.asarray(scale, np.float64))


def central_level(bound, pulls, scale) -> float:
    """The exact ε of releasing the mean of ``pulls`` truncated rewards plus Lap(scale), one reward changed: the
    mean moves by at most 2B/R, so ε = 2B/(R·scale) (Laplace mechanism, Definition 3)."""
    return float(2 * np.asarray(bound, np.float64) / (np.asarray(pulls, np.float64) * np.asarray(scale, np.float64)))
