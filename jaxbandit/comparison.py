"""Deprecated: the privacy–regret frontier is `jaxbandit.frontiers` (split by job: catalogue, one algorithm's
calibration, tuning and evaluation, the result, the driver). This module re-exports its public names and warns."""
import warnings

from jaxbandit.frontiers import (CHANNEL_AWARE, NOTIONS, PLAIN_LEARNERS, TRUST_MODELS, Algorithm,  # noqa: F401
                                 Frontier, algorithms, frontier)

__all__ = ["frontier", "algorithms", "Algorithm", "Frontier", "NOTIONS", "PLAIN_LEARNERS", "CHANNEL_AWARE"]

warnings.warn("jaxbandit.comparison is now jaxbandit.frontiers", DeprecationWarning, stacklevel=2)
