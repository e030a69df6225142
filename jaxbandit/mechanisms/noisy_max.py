"""ReportNoisyMax (seed 001, Ou, Avella Medina & Cummings, App. C): release only the index of the largest noisy
score, argmax_i (f_i(R) + noise_i)::

  laplace   Algorithm 3 (Dwork & Roth 2014, §3.3): i.i.d. Lap(b) noise on every score
  gaussian  Algorithm 4: heterogeneous Gaussian noise X_i ~ N(0, σ_i²); one round of Thompson sampling with a
            Gaussian posterior is this mechanism with f_i = μ̂_i = S_i/(n_i + 1) and σ_i² = c/(n_i + 1) (App. C),
            and `jaxbandit.policies.thompson` selects through it

The noise is drawn by the caller (the policies pre-draw a block of it: `jaxbandit.mechanisms.normal`,
`jaxbandit.mechanisms.laplace`) and passed in standard form, so a step's randomness stays where the engine puts
it; the privacy of a release is `jaxbandit.accounting.noisy_max`.
"""
from __future__ import annotations

import jax.numpy as jnp

__all__ = ["gaussian", "laplace"]


def gaussian(scores, scales, noise):
    """Algorithm 4: argmax_i (f_i + σ_i z_i) as int32, ``noise`` z standard normal draws, ``scales`` σ_i ≥ 0
    (broadcast against the scores). Ties (probability zero for σ_i > 0) go to the lowest index."""
    return jnp.argmax(scores + noise * scales).astype(jnp.int32)


def laplace(scores, scale, noise):
    """Algorithm 3: argmax_i (f_i + b·ℓ_i) as int32, ``noise`` ℓ standard Laplace draws, ``scale`` b = s/ε for
    scores of sensitivity s."""
    return jnp.argmax(scores + noise * scale).astype(jnp.int32)
