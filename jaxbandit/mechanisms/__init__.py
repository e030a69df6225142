"""Run-time privacy mechanisms, below the policies: pure functions that policies and privatizers call inside a
step, with the exact law or privacy loss of each as realized in floating point beside it. Nothing here imports a
policy, a privatizer or a registry::

  laplace             Laplace releases: the floating-point-safe discrete release (default) and the float draw
  normal              N(0, 1) draws with tails to 2^-73 (default) and the float draw
  releases            how a counter's node is noised (Laplace, discrete Laplace, Gaussian, symmetric Gaussian and
                      Wishart matrices) and the privacy of one node
  counters            continual-release counters (hybrid, binary tree) and their per-item privacy loss and profile
  truncated_mean      seed 004's truncated means with central or local Laplace noise
  perturbations       seed 003's DP-FTPL perturbation laws (Gaussian, Beta, truncated Laplace) and Lemma 8's band
  bernoulli           seed 000's Bernoulli channels: p(r), thresholds on the uniform's grid, realized LDP level
  randomized_response seed 002's corruption channel: mean maps, thresholds, exact LDP level
  noisy_max           ReportNoisyMax, Laplace and heterogeneous Gaussian (seed 001, Algorithms 3-4): Thompson
                      sampling's select
"""
from jaxbandit.mechanisms import (bernoulli, counters, laplace, noisy_max, normal, perturbations,
                                  randomized_response, releases, truncated_mean)

__all__ = ["laplace", "normal", "releases", "counters", "truncated_mean", "perturbations", "bernoulli", "randomized_response",
           "noisy_max"]
