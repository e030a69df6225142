"""Releases: how one node of a counter (`jaxbandit.mechanisms.counters`) is noised, and what privacy one such
release has. A counter adds ``scale · noise`` to each node it releases; a release says how that noise is drawn,
how a budget spread over several nodes sets each node's scale, and the profile
(`jaxbandit.accounting.profiles`) of one node released at ``scale`` for an item of sensitivity Δ, so that a
counter's accountant is composed from its release's (`counters.tree_profile`, `counters.hybrid_profile`).

- LaplaceRelease: x + b·Lap(1), the default of every counter: either noise a caller passes, the
  floating-point-safe discrete release or the float draw (`jaxbandit.mechanisms.laplace`:
  its `Noise` says which). One node is (Δ/b)-DP (Dwork, McSherry, Nissim & Smith 2006;
  the discrete release on its grid, Ghosh, Roughgarden & Sundararajan 2009, at the same
  level). Spreading ε over n nodes: b = Δ·n/ε (basic composition: Σ Δ/b = ε).
- DiscreteLaplaceRelease: the same, drawing (and requiring) the discrete release's words.
- GaussianRelease: x + σ·N(0, 1) (tail-safe draws by default, `jaxbandit.mechanisms.normal`). One node is
  (Δ/σ)-GDP (Dong, Roth & Su, JRSS-B 2022, Thm 2.7, Δ the ℓ2 sensitivity); spreading μ
  over n nodes: σ = Δ·√n/μ (GDP composition, Cor. 3.3: sqrt(n (μ/√n)²) = μ).
- GaussianMatrixRelease: X + σ·N for symmetric d×d X, N symmetric with i.i.d. N(0, 1) entries on and above the
  diagonal (Shariff & Sheffet, NeurIPS 2018, §4's Gaussian alternative to the Wishart
  noise). A symmetric change E moves the upper triangle by at most ‖E‖_F in ℓ2
  (Σ_{i≤j} E_ij² ≤ Σ_{i,j} E_ij²), so with Δ a Frobenius-norm bound (‖x xᵀ‖_F = ‖x‖² for a
  Gram matrix's item) one node is (Δ/σ)-GDP, and spreads as the Gaussian. Shariff &
  Sheffet's shift of the released sum by a multiple of I, to keep it positive definite,
  is post-processing of the release: it costs no privacy and is the caller's.
  ``symmetrized=True`` draws their law, (Z + Zᵀ)/√2: variance 2 on the diagonal, one node
  (Δ_F/(√2σ))-GDP (the class docstring derives it).
- WishartRelease: X + s·W, W ~ W_d(I, k) = Σ_{j≤k} g_j g_jᵀ, g_j ~ N(0, I_d) (integer k > d; drawn by
  Bartlett's decomposition, `wishart`): Sheffet's
  Wishart mechanism (`profiles.Wishart`: for every δ, (sqrt(28 ln(4/δ)/(k − d)), δ)-DP
  when s is at least Δ, the bound on ‖x‖² of an item x xᵀ). Its level is set by k, not by
  its scale: spreading leaves the scale alone (n nodes compose by basic composition,
  `profiles.SelfComposed`), and the counter's budget argument is Δ/s ≤ 1 (1: s = Δ, the
  theorem's noise).

Protocol (frozen dataclasses, static under ``jit``): ``spread(parts)`` — the factor a budget spread evenly over
``parts`` nodes puts on each node's scale (the counters compute the scale Δ·spread(parts)/budget); ``standard(noise)``
— the standard variate in a caller's noise; ``released(float_value, x, scale, sensitivity, noise, offset)`` — the
node as released (the float formula, or the discrete Laplace release of x); ``draw(key, shape, dtype)`` — noise
for counters of ``shape`` (matrix releases append (d, d)); ``item_levels(ratios)`` and ``profile(level)``
(host side) — the level of items from the ratios Δ_i/scale_v of the nodes they are in (an iterable of float64
arrays over the items, one per node position, 0 where none), and the profile of a level: the composition of the
nodes' profiles (Σ ratios for Laplace, sqrt(Σ ratios²) for the Gaussian ones, the node count for Wishart).
"""
from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.accounting import profiles
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.mechanisms import normal as normal_noise

__all__ = ["LaplaceRelease", "DiscreteLaplaceRelease", "GaussianRule", "GaussianRelease", "GaussianMatrixRelease",
           "WishartRelease", "LAPLACE", "symmetric_normal", "symmetric_from_normals", "wishart"]


@dataclasses.dataclass(frozen=True)
class LaplaceRelease:
    """x + b·Lap(1) from the caller's noise: a `laplace.Noise` (discrete or float, as its ``discrete`` says) or a
    standard Laplace array (the float release). Module docstring."""

    def spread(self, parts):
        return parts  # basic composition: b = Δ·n/ε (the value itself, so the counters' programs are unchanged)

    def standard(self, noise):
        return laplace_noise.laplace_of(noise)

    def released(self, float_value, x, scale, sensitivity, noise, offset=0.0):
        return laplace_noise.released(float_value, x, scale, sensitivity, noise, offset=offset)

    def draw(self, key, shape, dtype=None):
        """Float standard Laplace draws (``jax.random.laplace``) for counters of ``shape``."""
        return jax.random.laplace(key, tuple(shape), dtype or jnp.zeros(()).dtype)

    def item_levels(self, ratios) -> np.ndarray:
        """Σ_v Δ_i/b_v, summed node by node in the order given."""
        level = 0.0
        for column in ratios:
            level = level + column
        return level

    def profile(self, level) -> profiles.Profile:
        return profiles.PureDP(float(level))


#: The default release of every counter.
LAPLACE = LaplaceRelease()


@dataclasses.dataclass(frozen=True)
class DiscreteLaplaceRelease(LaplaceRelease):
    """The discrete Laplace release (`laplace.discrete_release`) only: draws its words, and rejects other noise."""

    def draw(self, key, shape, dtype=None):
        """The discrete release's words for counters of ``shape`` (a `laplace.Noise`)."""
        return laplace_noise.draw(key, shape, "discrete", dtype)

    def released(self, float_value, x, scale, sensitivity, noise, offset=0.0):
        if not (isinstance(noise, laplace_noise.Noise) and noise.discrete):
            raise ValueError("DiscreteLaplaceRelease needs the discrete release's noise: a laplace.Noise drawn with "
                             "release='discrete' (DiscreteLaplaceRelease.draw)")
        return laplace_noise.released(float_value, x, scale, sensitivity, noise, offset=offset)


def _sqrt(parts):
    """√parts in the kind of number given: Python, NumPy (the host-side accounting) or JAX (the counters)."""
    if isinstance(parts, (int, float)):
        return math.sqrt(parts)
    return np.sqrt(parts) if isinstance(parts, (np.ndarray, np.generic)) else jnp.sqrt(parts)


class GaussianRule:
    """The rule of the Gaussian releases: one node at scale σ is (Δ/σ)-GDP; n nodes compose to sqrt(Σ (Δ/σ_v)²)."""

    def spread(self, parts):
        return _sqrt(parts)  # GDP composition: σ = Δ·√n/μ

    def standard(self, noise):
        return noise

    def released(self, float_value, x, scale, sensitivity, noise, offset=0.0):
        return float_value

    def item_levels(self, ratios) -> np.ndarray:
        """sqrt(Σ_v (Δ_i/σ_v)²)."""
        return np.sqrt(sum(column * column for column in ratios))

    def profile(self, level) -> profiles.Profile:
        return profiles.GDP(float(level))


@dataclasses.dataclass(frozen=True)
class GaussianRelease(GaussianRule):
    """x + σ·N(0, 1); one node (Δ/σ)-GDP. ``normal``: the N(0, 1) draw, `normal.RELEASES` ("tail-safe", the
    default, or "float")."""

    normal: str = "tail-safe"

    def __post_init__(self):
        checks.known_name("normal release", self.normal, normal_noise.RELEASES)

    def draw(self, key, shape, dtype=None):
        return normal_noise.normal(key, tuple(shape), self.normal, dtype)


def symmetric_normal(key, shape, dim: int, normal: str = "tail-safe", dtype=None, diagonal: float = 1.0):
    """Symmetric d×d matrices (``shape + (d, d)``) whose entries on and above the diagonal are independent normals,
    N(0, 1) above it and N(0, diagonal²) on it (`normal.normal` draws of the upper triangle, mirrored below it).
    ``diagonal=√2`` is the law of (Z + Zᵀ)/√2 for Z with i.i.d. N(0, 1) entries (Shariff & Sheffet 2018, §4.2)."""
    dim = checks.positive_int("dim", dim)
    z = normal_noise.normal(key, tuple(shape) + (dim * (dim + 1) // 2,), normal, dtype)
    return symmetric_from_normals(z, dim, diagonal)


def symmetric_from_normals(z, dim: int, diagonal: float = 1.0):
    """The symmetric d×d matrices whose upper triangle (row by row) is ``z`` (``... + (d(d + 1)/2,)``), its diagonal
    scaled by ``diagonal``: `symmetric_normal` from normals drawn beforehand (a gather, no scatter)."""
    rows, cols = np.triu_indices(dim)
    if diagonal != 1.0:
        z = z * jnp.asarray(np.where(rows == cols, diagonal, 1.0), z.dtype)
    position = np.zeros((dim, dim), np.int32)
    position[rows, cols] = position[cols, rows] = np.arange(rows.size)
    return z[..., position]


@dataclasses.dataclass(frozen=True)
class GaussianMatrixRelease(GaussianRule):
    """X + σ·N, N a symmetric d×d matrix with independent entries on and above the diagonal (`symmetric_normal`):
    N(0, 1) everywhere (the default), or N(0, 2) on the diagonal with ``symmetrized=True``, the law of
    (Z + Zᵀ)/√2 that Shariff & Sheffet (2018, §4.2) draw. One node is (Δ_F/σ)-GDP for a Frobenius-norm sensitivity
    Δ_F, and (Δ_F/(√2σ))-GDP symmetrized: a symmetric change E moves the whitened upper triangle by
    sqrt(Σ_{i<j} E_ij² + Σ_i E_ii²/2) = ‖E‖_F/√2 (so a replaced row v of norm ≤ L̃, ‖vvᵀ − wwᵀ‖_F ≤ √2 L̃²,
    gives L̃²/σ: the doubled diagonal variance is what the replace-one relation needs)."""

    dim: int
    normal: str = "tail-safe"
    symmetrized: bool = False

    def __post_init__(self):
        checks.positive_int("dim", self.dim)
        checks.known_name("normal release", self.normal, normal_noise.RELEASES)

    def draw(self, key, shape, dtype=None):
        return symmetric_normal(key, shape, self.dim, self.normal, dtype,
                                diagonal=math.sqrt(2.0) if self.symmetrized else 1.0)

    def item_levels(self, ratios) -> np.ndarray:
        """sqrt(Σ_v (Δ_i/σ_v)²), over √2 when symmetrized (class docstring)."""
        level = GaussianRule.item_levels(self, ratios)
        return level / math.sqrt(2.0) if self.symmetrized else level


def wishart(key, shape, dim: int, dof, normal: str = "tail-safe", dtype=None):
    """W_d(I, k) draws (``shape + (d, d)``) by Bartlett's decomposition: W = A Aᵀ, A lower triangular with
    A_ii = sqrt(χ²_{k−i}) (i = 0..d−1; χ²_ν = 2·Gamma(ν/2), the exact sampler `jaxbandit.random.samplers.gamma`)
    and A_ij ~ N(0, 1) below the diagonal (`normal.normal`) — the law of Σ_{j≤k} g_j g_jᵀ, g_j i.i.d. N(0, I_d)
    (Bartlett 1933; Anderson, "An Introduction to Multivariate Statistical Analysis", 3rd ed., Cor. 7.2.1), at
    O(d²) draws whatever k: Shariff & Sheffet's k runs to 10⁵–10⁶. ``dof`` k > d − 1: a number, or a traced array
    broadcasting against ``shape``. Mean k·I; Var(W_ii) = 2k, Var(W_ij) = k for i ≠ j."""
    from jaxbandit.random import samplers
    dim = checks.positive_int("dim", dim)
    if isinstance(dof, (int, float, np.integer, np.floating)):
        checks.in_range("dof", dof, float(dim - 1), low_open=True, high_open=True)
    shape = tuple(shape)
    k_gamma, k_normal = jax.random.split(key)
    rows, cols = np.tril_indices(dim, -1)
    below = normal_noise.normal(k_normal, shape + (len(rows),), normal, dtype)
    dtype = below.dtype
    half = (jnp.asarray(dof, dtype)[..., None] - jnp.arange(dim, dtype=dtype)) / 2
    chi2 = 2 * samplers.gamma(k_gamma, jnp.broadcast_to(half, shape + (dim,)))
    a = jnp.zeros(shape + (dim, dim), dtype).at[..., rows, cols].set(below)
    a = a + jnp.sqrt(chi2.astype(dtype))[..., None] * jnp.eye(dim, dtype=dtype)
    return a @ jnp.swapaxes(a, -1, -2)


@dataclasses.dataclass(frozen=True)
class WishartRelease:
    """X + s·W, W ~ W_d(I, k) (`wishart`), integer k > d; its level is set by k (module docstring). ``dof``: k,
    e.g. `dof_for` (ε, δ)."""

    dim: int
    dof: int
    normal: str = "tail-safe"

    def __post_init__(self):
        checks.positive_int("dim", self.dim)
        checks.positive_int("dof", self.dof, minimum=self.dim + 1)
        checks.known_name("normal release", self.normal, normal_noise.RELEASES)

    @staticmethod
    def dof_for(dim: int, epsilon: float, delta: float) -> int:
        """k = d + ⌈28 ln(4/δ)/ε²⌉: the degrees of freedom of one (ε, δ)-DP node (Sheffet 2015, Thm 4.1; Shariff &
        Sheffet 2018, §4; their code floors where we round up, which keeps ε(δ) ≤ ε)."""
        checks.in_range("epsilon", epsilon, 0.0, low_open=True, high_open=True)
        checks.in_range("delta", delta, 0.0, 1.0, low_open=True, high_open=True)
        return int(dim) + math.ceil(28 * math.log(4 / delta) / epsilon ** 2)

    def spread(self, parts):
        return parts * 0 + 1  # the scale is the budget's alone: nodes compose through k (basic composition)

    def standard(self, noise):
        return noise

    def released(self, float_value, x, scale, sensitivity, noise, offset=0.0):
        return float_value

    def draw(self, key, shape, dtype=None):
        return wishart(key, shape, self.dim, self.dof, self.normal, dtype)

    def item_levels(self, ratios) -> np.ndarray:
        """The number of nodes an item is in; ValueError where a node's scale is below the item's Δ (ratio > 1:
        the theorem needs s ≥ Δ)."""
        count = 0.0
        for column in ratios:
            if np.any(column > 1 + 1e-12):
                raise ValueError(f"a Wishart node's scale is below its items' sensitivity (Δ/s up to "
                                 f"{float(column.max()):g} > 1): the Wishart mechanism needs s ≥ Δ, i.e. a budget "
                                 f"argument at most 1")
            count = count + (column > 0)
        return count

    def profile(self, level) -> profiles.Profile:
        return profiles.SelfComposed(profiles.Wishart(self.dim, float(self.dof)), int(level))
