"""Private Gram statistics of a linear bandit: the rounds' augmented vectors v_t = [x_t; y_t] (features of the
pulled arm, reward) summed into M_t = Σ_{s<t} v_s v_sᵀ, a (d + 1)×(d + 1) matrix whose top-left d×d block is the
Gram matrix G_t = Σ x xᵀ and whose last column holds u_t = Σ y x. A private linear policy sees M_t only through a
noisy release (`jaxbandit.policies.private_linear`).

Shariff & Sheffet, "Differentially Private Contextual Linear Bandits", NeurIPS 2018, §4 ("S&S"): M_t is released
by the binary-tree mechanism over rounds (`jaxbandit.mechanisms.counters`, one counter per entry), each node noised
once at creation with a symmetric Gaussian matrix, σ (Z + Zᵀ)/√2 (§4.2), or a Wishart matrix, L̃² W_{d+1}(I, k)
(§4.1, Sheffet's Wishart mechanism); the release at round t is

    M̃_t = M_t + N_t,   N_t = the noise of the tree's live nodes + a padding of data-independent noise,

where the padding brings N_t to exactly m node noises, m = 1 + ⌈log₂ T⌉. S&S analyse N_t as exactly m node
noises (W_{d+1}(L̃² I, mk) for the Wishart; their code's "pan-private" tree releases exactly m at every round,
round 1 included), while a textbook tree after n insertions holds popcount(n) ≤ m live nodes; the padding gives
every release the law S&S analyse. It is drawn afresh each round, independently of the data, so it is
post-processing: the privacy is the tree's (each v_t enters one node per level, at most ⌊log₂T⌋ + 1 nodes).
Unlike the authors' tree, consecutive releases do not share their padding (only their live nodes).

Zheng, Cai, Huang, Li & Wang, "Locally Differentially Private (Contextual) Bandits Learning", NeurIPS 2020: each
user perturbs its own statistics before sending them (`local_report`): x xᵀ + B, B symmetric with i.i.d. N(0, σ²)
entries on and above the diagonal, and y x + ξ, ξ ~ N(0, σ² I) (the authors' code, `src/linucb.py`); the server
only ever sums reports.

Chowdhury & Zhou, "Shuffle Private Linear Contextual Bandits", ICML 2022, SDP-Vec: each user encodes the upper
triangle of x xᵀ and y x by the binomial vector-sum protocol of Cheu, Joseph, Mao & Peng (ICLR 2022) as the authors'
code runs it (`vector_sum_encode`: each coordinate shifted to [0, 2L_c], rounded at random to the grid L_c/g; plus
Bin(b, p) one-messages per coordinate, whose sum over a batch of B users the analyzer sees as one Bin(B b, p) draw,
`vector_sum_noise`). The privacy of the batch's sums is `jaxbandit.accounting.shuffle.BinomialSum`.

`clip_row` bounds ‖v_t‖ ≤ L̃ before it is inserted (‖x‖ ≤ L by scaling, y ∈ [−B̃, B̃] by clamping; L̃² = L² + B̃²,
S&S Assumption 6): the sensitivity every claim rests on.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit.mechanisms import counters, releases
from jaxbandit.mechanisms import normal as normal_noise

__all__ = ["GramTree", "clip_row", "tree_init", "tree_insert", "tree_release", "live_nodes", "NOISES",
           "node_noise", "padding_noise", "local_report", "report_sensitivity", "coordinate_bound",
           "vector_sum_encode", "vector_sum_noise", "upper_triangle", "from_upper_triangle", "PREDRAWN_MAX",
           "report_normals", "node_normals", "gaussian_node"]

#: The node noises of S&S's tree, a symmetric Gaussian matrix (§4.2) or a Wishart matrix (§4.1).
NOISES = ("gaussian", "wishart")


class GramTree(NamedTuple):
    """The tree of a private Gram matrix (per run): the exact running sum M_n and, per level, the noise the release
    carries while that level's node is the lowest live one. The binary-tree mechanism's release is M_n plus the live
    nodes' noises; a node's noise is drawn at its creation, when every live node is above it and stays so while it
    lives (a higher node changes only by absorbing it). So its level keeps its own noise plus the live sum above it,
    fixed for its life, and an insertion reads one level and writes one (no pass over the L levels). The noises are
    symmetric: the tree keeps their upper triangles (`upper_triangle`), (d + 1)(d + 2)/2 entries a level."""

    n: jax.Array      # int32: rows inserted
    total: jax.Array  # f[d+1, d+1]: M_n = Σ v vᵀ
    noise: jax.Array  # f[(d+1)(d+2)/2, L]: level j: the live nodes' noise sum at levels ≥ j, as of j's node's creation
    live: jax.Array   # f[(d+1)(d+2)/2]: the live nodes' noise sum now (level lowbit(n)'s; 0 while n = 0)


def clip_row(x, y, feature_bound, reward_bound):
    """v = [x'; y'] with x' = x·min(1, L/‖x‖) and y' = clip(y, −B̃, B̃): ‖v‖² ≤ L² + B̃² = L̃² whatever the input
    (S&S Assumption 6, enforced rather than assumed)."""
    norm = jnp.sqrt(jnp.sum(x * x))
    x = x * jnp.minimum(1.0, feature_bound / jnp.maximum(norm, jnp.finfo(x.dtype).tiny))
    return jnp.concatenate([x, jnp.clip(y, -reward_bound, reward_bound)[None].astype(x.dtype)])


def tree_init(dim: int, dtype=None, levels: int = counters.LEVELS) -> GramTree:
    """An empty tree for d-dimensional features ((d + 1)×(d + 1) statistics, ``levels`` levels)."""
    dtype = dtype or jnp.zeros(()).dtype
    entries = (dim + 1) * (dim + 2) // 2
    return GramTree(jnp.zeros((), jnp.int32), jnp.zeros((dim + 1, dim + 1), dtype),
                    jnp.zeros((entries, levels), dtype), jnp.zeros(entries, dtype))


def tree_insert(state: GramTree, v, noise) -> GramTree:
    """Insert v vᵀ (Tao et al. 2022, Algorithm 2, as `counters.tree_insert`): row n + 1 completes the node at level
    i = the lowest set bit of n + 1, which absorbs the live nodes below it; ``noise`` (the scaled noise of that node,
    σ·(Z + Zᵀ)/√2 or L̃²·W, `node_noise`; symmetric) is drawn once, at its creation, and the absorbed nodes' noises
    leave the release. The live nodes above level i are those of n + 1 with bit i cleared, whose lowest level h
    holds their sum (`GramTree`): level i gets that sum plus the new noise, and so does the live sum. Insertions
    past the capacity 2^L − 1 are ignored."""
    levels = state.noise.shape[-1]
    n = state.n + 1
    i = jax.lax.population_count((n & -n) - 1)
    above = n & state.n  # n + 1 with its lowest set bit cleared: the live nodes above level i
    h = jnp.minimum(jax.lax.population_count((above & -above) - 1), levels - 1)
    live = jnp.where(above > 0, jnp.take(state.noise, h, axis=-1), 0) + upper_triangle(noise)
    room = state.n < (1 << levels) - 1
    level = jnp.arange(levels)
    return GramTree(jnp.where(room, n, state.n), jnp.where(room, state.total + jnp.outer(v, v), state.total),
                    jnp.where(room & (level == i), live[..., None], state.noise), jnp.where(room, live, state.live))


def live_nodes(state: GramTree):
    """popcount(n): the tree's live nodes after n insertions, each carrying one node noise (int32)."""
    return jax.lax.population_count(state.n)


def tree_release(state: GramTree, padding):
    """M̃_t = M_n + Σ_{live nodes} noise + ``padding`` (`padding_noise`: the other m − popcount(n) node noises),
    the (d + 1)×(d + 1) release of round t."""
    return state.total + from_upper_triangle(state.live, state.total.shape[-1]) + padding


def node_noise(key, noise: str, dim: int, scale, dof, dtype=None):
    """One node's noise, (d + 1)×(d + 1): ``scale``·(Z + Zᵀ)/√2 (``"gaussian"``, scale σ; S&S §4.2) or
    ``scale``·W_{d+1}(I, ``dof``) (``"wishart"``, scale L̃², dof k; §4.1)."""
    if noise == "gaussian":
        z = releases.symmetric_normal(key, (), dim + 1, dtype=dtype, diagonal=2 ** 0.5)
        return scale * z
    return scale * releases.wishart(key, (), dim + 1, dof, dtype=dtype)


def padding_noise(key, noise: str, dim: int, scale, dof, count):
    """The law of ``count`` independent node noises summed, in one draw: √count·σ·(Z + Zᵀ)/√2 (a sum of Gaussians)
    or L̃²·W_{d+1}(I, count·k) (a sum of Wisharts with one scale); ``count`` may be traced (≥ 1)."""
    count = jnp.asarray(count, jnp.result_type(float))
    if noise == "gaussian":
        return jnp.sqrt(count).astype(jnp.result_type(scale)) * node_noise(key, noise, dim, scale, dof)
    return node_noise(key, noise, dim, scale, count * dof)


def report_sensitivity(feature_bound, reward_bound):
    """Δ = sqrt(2L⁴ + 4L²B̃²): a bound on the ℓ2 change of a user's report (the upper triangle of x xᵀ, and y x)
    when its (x, y) is replaced, ‖x‖ ≤ L, |y| ≤ B̃: Σ_{i≤j} (x_i x_j − x'_i x'_j)² ≤ ‖x‖⁴ + ‖x'‖⁴ ≤ 2L⁴ (the
    upper triangle counts an off-diagonal pair once; ‖xxᵀ − x'x'ᵀ‖_F² = ‖x‖⁴ + ‖x'‖⁴ − 2(xᵀx')²) and
    ‖yx − y'x'‖² ≤ (2LB̃)². √6 for L = B̃ = 1 (the authors' code calibrates for 2√2 ≥ √6)."""
    return (2 * feature_bound ** 4 + 4 * feature_bound ** 2 * reward_bound ** 2) ** 0.5


def local_report(key, x, y, sigma, feature_bound, reward_bound, normals=None):
    """One user's local randomizer (Zheng et al. 2020; the Gaussian mechanism): its (x, y) clipped to ‖x‖ ≤ L,
    |y| ≤ B̃ (`clip_row`), then (x xᵀ + σ B, y x + σ ξ), B symmetric with i.i.d. N(0, 1) entries on and above the
    diagonal, ξ ~ N(0, I). (Δ/σ)-GDP for the user's data, Δ = `report_sensitivity` (Dong, Roth & Su 2022,
    Thm 2.7). ``normals``: the d(d + 1)/2 + d standard normals drawn beforehand (`report_normals`; the same law),
    else drawn here from ``key``."""
    v = clip_row(x, y, feature_bound, reward_bound)
    x, y = v[:-1], v[-1]
    d = x.shape[-1]
    if normals is None:
        k_matrix, k_vector = jax.random.split(key)
        noise_m = releases.symmetric_normal(k_matrix, (), d, dtype=x.dtype)
        noise_v = normal_noise.normal(k_vector, (d,), "tail-safe", x.dtype)
    else:
        noise_m = releases.symmetric_from_normals(normals[:-d], d)
        noise_v = normals[-d:]
    return jnp.outer(x, x) + sigma * noise_m, y * x + sigma * noise_v


#: The most standard normals a step's noise may take from its block's draw (`report_normals`, `node_normals`); a
#: larger d draws its noise at the step from the step's key (the same law, less memory: a block holds 50 steps).
PREDRAWN_MAX = 256


def report_normals(key, steps: int, dim: int):
    """The normals of ``steps`` users' `local_report` noise, (steps, d(d + 1)/2 + d), or ``None`` where that is more
    than `PREDRAWN_MAX` a step."""
    count = dim * (dim + 1) // 2 + dim
    return None if count > PREDRAWN_MAX else normal_noise.normal(key, (steps, count), "tail-safe")


def node_normals(key, steps: int, dim: int):
    """The normals of ``steps`` rounds' Gaussian node and padding noises, (steps, 2, (d + 1)(d + 2)/2), or ``None``
    where that is more than `PREDRAWN_MAX` a step."""
    count = (dim + 1) * (dim + 2) // 2
    return None if 2 * count > PREDRAWN_MAX else normal_noise.normal(key, (steps, 2, count), "tail-safe")


def gaussian_node(normals, dim: int, scale):
    """A Gaussian node's noise, scale·(Z + Zᵀ)/√2, from its (d + 1)(d + 2)/2 normals (`node_noise`'s law)."""
    return scale * releases.symmetric_from_normals(normals, dim + 1, 2 ** 0.5)


def coordinate_bound(feature_bound, reward_bound):
    """L_c = max(L², L B̃): a bound on every coordinate of a clipped user's (upper triangle of x xᵀ, y x)."""
    return jnp.maximum(feature_bound ** 2, feature_bound * reward_bound)


def upper_triangle(matrix):
    """The d(d + 1)/2 entries on and above the diagonal, row by row."""
    rows, cols = np.triu_indices(matrix.shape[-1])
    return matrix[..., rows, cols]


def from_upper_triangle(values, dim: int):
    """The symmetric d×d matrix whose upper triangle (row by row) is ``values``."""
    rows, cols = np.triu_indices(dim)
    position = np.zeros((dim, dim), np.int32)
    position[rows, cols] = position[cols, rows] = np.arange(rows.size)
    return values[..., position]  # a gather: no scatter in the step


def vector_sum_encode(key, x, y, precision, feature_bound, reward_bound, uniforms=None):
    """One user's rounded message in SDP-Vec, decoded: (x xᵀ, y x) of its clipped (x, y) (`clip_row`), each
    coordinate v of the upper triangle and of y x shifted to w = v + L_c ∈ [0, 2L_c] (L_c = `coordinate_bound`),
    rounded at random to x̄ ∈ {⌊w g/L_c⌋, ⌊w g/L_c⌋ + 1} (unbiased: E x̄ = w g/L_c) and decoded as (L_c/g) x̄ − L_c
    (Chowdhury & Zhou's code, ``R1d`` and ``A1d`` per user). ``uniforms``: the d(d + 1)/2 + d rounding uniforms
    drawn beforehand, else drawn from ``key``. Returns (the symmetric d×d matrix, the d-vector)."""
    v = clip_row(x, y, feature_bound, reward_bound)
    x, y = v[:-1], v[-1]
    d = x.shape[-1]
    bound = coordinate_bound(feature_bound, reward_bound).astype(x.dtype)
    values = jnp.concatenate([upper_triangle(jnp.outer(x, x)), y * x])
    grid = jnp.clip(values + bound, 0, 2 * bound) * precision / bound
    low = jnp.floor(grid)
    u = jax.random.uniform(key, grid.shape, grid.dtype) if uniforms is None else uniforms
    rounded = low + (u < grid - low).astype(grid.dtype)
    decoded = rounded * bound / precision - bound
    return from_upper_triangle(decoded[:-d], d), decoded[-d:]


def vector_sum_noise(key, dim: int, trials, prob, precision, feature_bound, reward_bound, dtype=None):
    """The decoded binomial noise of one batch: per coordinate (L_c/g)(Bin(N, p) − N p), N = B b the batch's
    one-messages (Chowdhury & Zhou's ``A1d`` less the users' rounded values; an integer N in both, so the sum is
    unbiased). Returns (the symmetric d×d matrix, the d-vector)."""
    m = dim * (dim + 1) // 2 + dim
    dtype = dtype or jnp.zeros(()).dtype
    count = jax.random.binomial(key, jnp.broadcast_to(jnp.asarray(trials, dtype), (m,)), jnp.asarray(prob, dtype))
    bound = coordinate_bound(feature_bound, reward_bound).astype(dtype)
    decoded = (count.astype(dtype) - jnp.asarray(trials, dtype) * prob) * bound / precision
    return from_upper_triangle(decoded[:-dim], dim), decoded[-dim:]
