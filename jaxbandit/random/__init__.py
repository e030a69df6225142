"""Randomness of the simulations: the key implementation every run uses (`threefry`: JAX's Threefry-2x32 with the
hash unrolled, the same bits as ``jax.random``, faster on CPU) and exact samplers with pre-drawable randomness
(`samplers`: Beta and Gamma). The privacy mechanisms' own draws (discrete Laplace, tail-safe normals) are
`jaxbandit.mechanisms`."""
from jaxbandit.random import samplers, threefry
from jaxbandit.random.samplers import BetaNoise, GammaNoise, beta, draw_beta_noise, draw_gamma_noise, gamma
from jaxbandit.random.threefry import key, wrap

__all__ = ["threefry", "samplers", "key", "wrap", "beta", "gamma", "draw_beta_noise", "draw_gamma_noise",
           "BetaNoise", "GammaNoise"]
