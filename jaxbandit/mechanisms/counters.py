"""Private counters: continual release of running sums under ε-DP, as stateful mechanisms with pure
``init / insert / release`` functions (traceable, fixed-shape state that vmaps over arms and runs) and their
accounting beside them (host-side NumPy: noise variance, per-item privacy loss).

A stream x_1, x_2, ... (one per counter, e.g. per arm) is released as noisy prefix sums Ŝ_n after every insertion.
Both counters cut the stream into intervals ("nodes": dyadic p-sums and, for the hybrid, logarithmic segments),
release each node's sum once with its own Laplace noise, and answer Ŝ_n as a sum of released nodes: the outputs are
post-processing of the noisy nodes, so changing item i by at most Δ_i (its sensitivity) costs

    ε_i = Σ_{released nodes v ∋ i} Δ_i / b_v            (b_v: the Laplace scale of node v)

(basic composition of Laplace mechanisms; `tree_privacy_loss`, `hybrid_privacy_loss`). A counter is ε-DP for the
whole released sequence (event level: neighbouring streams differ in one item) when max_i ε_i ≤ ε. The releases
are an invertible linear map of the noisy nodes, so this sum is also the exact pure-DP loss of item i
(tests/test_counters.py recovers it from the counters' Jacobians).

Binary-tree counter (`tree_*`; the tree mechanism of Dwork, Naor, Pitassi & Rothblum, "Differential Privacy under
Continual Observation", STOC 2010, and the "binary mechanism" of Chan, Shi & Song, "Private and Continual Release
of Statistics", ICALP 2010 / ACM TISSEC 14(3) 2011; in the adaptive form of Tao, Wu, Zhao & Wang, AISTATS 2022,
Algorithm 2 — seed 004):

  * insertion t (lowest set bit i of t) creates the p-sum α_i = Σ_{j<i} α_j + x_t over [t − 2^i + 1, t]; the
    lower p-sums are absorbed (zeroed) and α̂_i = α_i + Lap(b_t) is drawn once, at creation;
  * Ŝ_t = Σ_{set bits j of t} α̂_j (popcount(t) live nodes); with L levels the tree holds n ≤ 2^L − 1 items;
  * item i lies in one node per level j ≥ lowbit(i) (at most L nodes); b_t = Δ_t · D/ε with D = L ("depth")
    gives ε_i ≤ L·ε/D = ε, with equality for item 1 once n ≥ 2^{L−1}.

Seed 004 (spec 004 §2.1) writes ε′ = ε/log T and b_t = 2B_t/ε′ for items σ(t) ∈ [−B_t, B_t] (replacing one changes
a node by up to 2B_t, so Δ_t = 2B_t), B_t non-decreasing so the node made at t bounds all its items. Errata (spec
004, [FLAG] log base): the tree of a horizon T has ⌊log₂T⌋ + 1 levels, so ε-DP needs ε′ = ε/(⌊log₂T⌋ + 1)
(`tree_levels`, our default); the literal ε/ln T over-spends by (⌊log₂T⌋ + 1)/ln T ≈ 1.45 at T = 10⁶
(`tree_depth(T, log_base=math.e)` reproduces it; `tree_privacy_loss` shows the excess). Horizon known: size the
tree with ``levels = tree_levels(T)`` (or keep `LEVELS` and pass ``depth = tree_depth(T)``, traceable); unknown:
the default D = L = 31 serves any n < 2^31 at 31/(⌊log₂T⌋ + 1) times the noise scale, or use the hybrid counter.

Hybrid counter (`hybrid_*`; Chan, Shi & Song's hybrid mechanism, the counter behind the DP-UCB algorithms of Tossou &
Dimitrakakis, AAAI 2016, `jaxbandit.policies.dp_ucb`); for items in [0, 1] (Δ = 1):

  * logarithmic mechanism, budget ε/2: at n = 2^k the exact sum plus accumulated noise, Lap(2/ε) added at each
    power of two (so Ŝ_{2^k} carries k + 1 independent Lap(2/ε) terms; equivalently each segment
    (2^{k−1}, 2^k] is one node of scale 2/ε);
  * binary (tree) mechanism, budget ε/2, fresh in each epoch (2^k, 2^{k+1}): items n = 2^k + r, 0 < r < 2^k, fill
    dyadic p-sums α_j of 2^j items; the p-sum completed by item r (its lowest set bit i) absorbs the lower ones
    and is released once as α̂_i = α_i + Lap(2k/ε) (each item lies in at most k p-sums of the epoch);
  * Ŝ_{2^k + r} = Ŝ_{2^k} + Σ_{set bits j of r} α̂_j.

Each item enters one logarithmic segment and at most k p-sums with noise calibrated to them: ε_i ≤ ε/2 + ε/2,
with equality for item 2^k + 1 (k ≥ 1) once n ≥ 2^{k+1}. The noise of Ŝ_n, n = 2^k + r, is a sum of k + 1
Lap(2/ε) and popcount(r) Lap(2k/ε) terms (`hybrid_noise_variance`); it needs no horizon and serves any n < 2^31.

Common to both: ``insert(state, x, laplace, epsilon, mask=True, sensitivity=1.0)`` takes the noise of one release
per counter from the caller (its only randomness, so policies draw noise in blocks): a `jaxbandit.mechanisms.laplace.Noise`
(the floating-point-safe discrete Laplace release of each node on a power-of-two grid, or the float draw, as its
``discrete`` field says) or a plain standard Laplace array (the float release); ε = ∞ switches the noise off and
the counter is exact; ``sensitivity`` Δ_t scales the noise of the nodes created by that insertion (1 for items
in [0, 1], B for [0, B], 2B for [−B, B]; it may grow with t but must not decrease, or the bound above fails).

Releases: ``insert(..., release=...)`` takes how a node is noised (`jaxbandit.mechanisms.releases`): the Laplace
release above by default (the same program as without it), or discrete Laplace, Gaussian, symmetric Gaussian
matrices or Wishart; the noise argument is then that release's draw (``release.draw``), and ε its budget (μ for the
Gaussian ones). A counter of shape (d, d) sums d×d matrices, one counter per entry. `tree_profile` and
`hybrid_profile` compose the claim of the whole released sequence from the release's profile of one node.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit.accounting import profiles
from jaxbandit.mechanisms import releases

__all__ = [
    "LEVELS", "Counter", "HYBRID", "TREE",
    "HybridState", "hybrid_init", "hybrid_insert", "hybrid_release",
    "hybrid_noise_variance", "hybrid_noise_bound", "hybrid_privacy_loss",
    "TreeState", "tree_init", "tree_insert", "tree_release",
    "tree_levels", "tree_depth", "tree_noise_variance", "tree_privacy_loss",
]

LEVELS = 31  # p-sum levels: epochs (hybrid) or streams (tree) up to 2^31 items


class Counter(NamedTuple):
    """A private counter as pure functions (like optax's GradientTransformation): a policy can take one as static
    configuration."""

    init: Callable     # (shape=(), dtype=None, ...) -> state
    insert: Callable   # (state, x, laplace, epsilon, mask=True, sensitivity=1.0, ...) -> state
    release: Callable  # (state) -> Ŝ_n, the noisy running sum


def _floor_log2(n):
    return 31 - jax.lax.clz(n)


def _masked(new, old, mask):
    """``new`` where ``mask`` holds, else ``old`` (mask broadcast over the trailing level axis)."""
    mask = jnp.asarray(mask)
    return jax.tree.map(lambda a, b: jnp.where(mask if a.ndim == mask.ndim else mask[..., None], a, b), new, old)


# ------------------------------------------------------------------------------------------------ hybrid counter

class HybridState(NamedTuple):
    """One hybrid counter (leading axes, e.g. arms, broadcast through every field).

    The live p-sums of an epoch form a stack (the set bits of r, the lowest level on top): an insertion pops the
    levels below its node's and pushes the node, so the state keeps prefix sums by stack position and an insertion
    reads two positions and writes one, whatever the number of levels (it read and rewrote every level)."""

    n: jax.Array          # int32: items inserted
    total: jax.Array      # float: exact running sum (never released)
    log_noise: jax.Array  # float: accumulated noise of the logarithmic mechanism (the float release's)
    anchor: jax.Array     # float: Ŝ at the last power of two (released)
    exact: jax.Array      # float[..., LEVELS]: exact sum of the live p-sums up to each stack position (0 at 0)
    noisy: jax.Array      # float[..., LEVELS]: the sum of their noisy releases (Ŝ_n = anchor + noisy[top])


def hybrid_init(shape=(), dtype=None) -> HybridState:
    """An empty hybrid counter (or an array of them of ``shape``)."""
    dtype = dtype or jnp.zeros(()).dtype
    zeros = jnp.zeros(shape, dtype)
    levels = jnp.zeros(tuple(shape) + (LEVELS,), dtype)
    return HybridState(jnp.zeros(shape, jnp.int32), zeros, zeros, zeros, levels, levels)


def _top(n):
    """The live p-sums after n insertions: popcount(n − 2^⌊log₂n⌋) (0 at a power of two and at n = 0)."""
    return jax.lax.population_count(n - (1 << _floor_log2(jnp.maximum(n, 1)))) * (n > 0)


def _at(stack, position):
    """``stack[..., position]`` for a position per counter (int32 of the counters' leading shape): a dynamic index,
    a gather under ``vmap`` (20x faster on XLA:CPU than a one-hot sum over the levels, benchmarks/RESULTS.md)."""
    position = jnp.asarray(position)
    if position.ndim:
        return jax.vmap(_at)(stack, position)
    return jax.lax.dynamic_index_in_dim(stack, position, axis=stack.ndim - 1, keepdims=False)


def _set(stack, position, value):
    """``stack`` with ``value`` at ``position`` (per counter, as `_at`)."""
    position = jnp.asarray(position)
    if position.ndim:
        return jax.vmap(_set)(stack, position, jnp.broadcast_to(value, position.shape))
    return jax.lax.dynamic_update_index_in_dim(stack, value, position, axis=stack.ndim - 1)


def hybrid_insert(state: HybridState, x, laplace, epsilon, mask=True, sensitivity=1.0, when=None,
                  release=releases.LAPLACE) -> HybridState:
    """Insert item ``x`` where ``mask`` holds. ``laplace``: one standard draw of the release's noise per counter
    (a standard Laplace draw for the default release; the only randomness an insertion uses); ε = ∞ gives the
    exact counter. ``sensitivity`` Δ (default 1, items in [0, 1]) multiplies the scale of the noise this insertion
    adds: 2Δ/ε at a power of two, 2kΔ/ε in epoch k (Laplace; ``release.spread`` of 2 and 2k for another
    ``release``, `jaxbandit.mechanisms.releases`, whose budget ε is then its own: μ for a Gaussian one).
    ``when``: how the logarithmic segment's release, needed only at powers of two, is skipped elsewhere
    (``when(pred, fn, operands, otherwise)``, e.g. `jaxbandit.policies.phased.when`, which skips it for a batch
    of runs none of which is at a power of two); default: computed at every insertion and selected. The same
    numbers either way."""
    dtype = state.total.dtype
    x = jnp.asarray(x, dtype)
    eps = jnp.asarray(epsilon, dtype)
    sens = jnp.asarray(sensitivity, dtype)
    n = state.n + 1
    total = state.total + x
    power_of_two = (n & (n - 1)) == 0
    k = _floor_log2(n)
    top = _top(n)                                 # live p-sums after this insertion
    below = jnp.maximum(top - 1, 0)               # the stack position under this insertion's node
    # The node absorbs every live p-sum above ``below`` (the levels below its own) and the item; at a power of two
    # ``merged`` is the logarithmic segment's sum (every p-sum of the epoch plus x).
    exact_below = _at(state.exact, below)
    merged = x + (_at(state.exact, _top(state.n)) - exact_below)
    # Δ multiplies after the ε-dependent factor: Δ = 1 leaves every value bit-identical to the unscaled counter.
    node_scale = sens * (release.spread(2 * k.astype(dtype)) / eps)
    lap = release.standard(laplace)
    node = release.released(merged + node_scale * lap, merged, node_scale, sens, laplace)
    log_scale = sens * (release.spread(2) / eps)
    log_noise = jnp.where(power_of_two, state.log_noise + log_scale * lap, state.log_noise)
    # The discrete release adds the segment, released, to the last anchor; the float one keeps its running noise.
    segment = lambda total, log_noise, merged, scale, sens, laplace, anchor: release.released(
        total + log_noise, merged, scale, sens, laplace, offset=anchor)
    operands = (total, log_noise, merged, log_scale, sens, laplace, state.anchor)
    if when is None:
        anchor = jnp.where(power_of_two, segment(*operands), state.anchor)
    else:
        anchor = jnp.where(power_of_two, when(jnp.any(power_of_two), segment, operands, state.anchor), state.anchor)
    # The node's prefix sums are written to the stack and read from it only: with one reader, XLA computes the
    # release once (with a second, e.g. a field of the state, it fused the release's 500-op chain into both).
    # A new epoch starts at each power of two: its binary mechanism begins empty (position 0 always holds 0).
    exact = _set(state.exact, top, jnp.where(power_of_two, 0, exact_below + merged))
    noisy = _set(state.noisy, top, jnp.where(power_of_two, 0, _at(state.noisy, below) + node))
    return _masked(HybridState(n, total, log_noise, anchor, exact, noisy), state, mask)


def hybrid_release(state: HybridState):
    """Ŝ_n, the private running sum after n insertions (0 before any)."""
    return state.anchor + _at(state.noisy, _top(state.n))


def hybrid_noise_bound(n, epsilon, log_inv_gamma):
    """ν(n) = (√8/ε) ln(4/γ) · (1 if n is a power of two else 1 + ln n), with ln(1/γ) given (DP-UCB-BOUND uses
    γ = t^-4, i.e. 4 ln t): the bound on |Ŝ_n − S_n| that DP-UCB-BOUND adds to its index (as in both public
    re-implementations of Tossou & Dimitrakakis; the paper's own statement was not available to us). NOTE: Monte
    Carlo shows it is not a 1 − γ quantile for large n (exceeded with probability ~0.1–0.24 at γ = 0.01,
    n >= 10^3); it only sets the optimism of the index, not the privacy."""
    n = jnp.asarray(n)
    power_of_two = (n & (n - 1)) == 0
    dtype = jnp.result_type(float)
    base = math.sqrt(8) / jnp.asarray(epsilon, dtype) * (math.log(4) + jnp.asarray(log_inv_gamma, dtype))
    return base * jnp.where(power_of_two, 1.0, 1 + jnp.log(jnp.maximum(n, 1).astype(dtype)))


# ------------------------------------------------------------------------------------------- binary-tree counter

class TreeState(NamedTuple):
    """One binary-tree counter (leading axes broadcast through every field; the last axis of the p-sums is the
    number of levels L, fixed at `tree_init`)."""

    n: jax.Array          # int32: items inserted
    alpha: jax.Array      # float[..., L]: exact p-sums of the live nodes (0 where merged or unused)
    alpha_hat: jax.Array  # float[..., L]: their noisy releases (0 where merged or unused)


def tree_levels(horizon: int) -> int:
    """⌊log₂T⌋ + 1: the levels of a tree holding T items, and the depth that makes it ε-DP (spec 004 errata)."""
    horizon = int(horizon)
    if horizon < 1:
        raise ValueError(f"horizon={horizon} must be at least 1")
    return horizon.bit_length()


def tree_depth(horizon, log_base=None):
    """The divisor D of ε′ = ε/D for a tree sized for ``horizon`` T (traceable). ``log_base=None``: ⌊log₂T⌋ + 1,
    the number of levels (ε-DP; our default). A number b: log_b T as seed 004 writes ε′ = ε/log T without a base;
    b = e is the literal reading, whose per-item loss is ε(⌊log₂T⌋ + 1)/ln T > ε (spec 004 §2.1 errata)."""
    if log_base is None:
        return 32 - jax.lax.clz(jnp.asarray(horizon, jnp.int32))
    return jnp.log(jnp.asarray(horizon, jnp.result_type(float))) / math.log(log_base)


def tree_init(shape=(), dtype=None, levels: int = LEVELS) -> TreeState:
    """An empty binary-tree counter (or an array of them of ``shape``) with ``levels`` levels (static): it holds
    up to 2^levels − 1 items. Use ``tree_levels(T)`` for a known horizon T."""
    if not 1 <= int(levels) <= LEVELS:
        raise ValueError(f"levels={levels} must be in [1, {LEVELS}]")
    dtype = dtype or jnp.zeros(()).dtype
    nodes = jnp.zeros(tuple(shape) + (int(levels),), dtype)
    return TreeState(jnp.zeros(shape, jnp.int32), nodes, nodes)


def tree_insert(state: TreeState, x, laplace, epsilon, mask=True, sensitivity=1.0, depth=None,
                release=releases.LAPLACE) -> TreeState:
    """Insert item ``x`` where ``mask`` holds (Tao et al. 2022, Algorithm 2). ``laplace``: one standard draw of
    the release's noise per counter, the noise of the node this insertion creates, of scale b = Δ·D/ε (ε′ = ε/D
    per node; Δ·``release.spread(D)``/ε for another ``release``, `jaxbandit.mechanisms.releases`: σ = Δ√D/μ for a
    Gaussian one); ε = ∞ gives the exact counter. ``sensitivity`` Δ: the most this item can change
    (non-decreasing over the stream; 2B_n for seed 004's items in [−B_n, B_n]). ``depth`` D (traceable): the number
    of levels by default (ε-DP); see `tree_depth` for a horizon's. Insertions past the capacity 2^L − 1 are ignored (n stays there)."""
    dtype = state.alpha.dtype
    num_levels = state.alpha.shape[-1]
    x = jnp.asarray(x, dtype)
    scale = jnp.asarray(sensitivity, dtype) * release.spread(jnp.asarray(num_levels if depth is None else depth,
                                                                          dtype))
    scale = scale / jnp.asarray(epsilon, dtype)
    n = state.n + 1
    i = jax.lax.population_count((n & -n) - 1)  # lowest set bit of n: the level of the node it completes
    levels = jnp.arange(num_levels)
    lower = levels < i[..., None]
    here = levels == i[..., None]
    merged = jnp.sum(jnp.where(lower, state.alpha, 0), axis=-1) + x
    alpha = jnp.where(lower, 0, jnp.where(here, merged[..., None], state.alpha))
    # The node's noise is drawn once, at creation; the absorbed lower nodes leave the release with their noise.
    node = release.released(merged + scale * release.standard(laplace), merged, scale,
                            jnp.asarray(sensitivity, dtype), laplace)
    alpha_hat = jnp.where(lower, 0, jnp.where(here, node[..., None], state.alpha_hat))
    room = state.n < (1 << num_levels) - 1  # item 2^L would need level L
    return _masked(TreeState(n, alpha, alpha_hat), state, jnp.asarray(mask) & room)


def tree_release(state: TreeState):
    """Ŝ_n = Σ_{set bits j of n} α̂_j, the private running sum after n insertions (0 before any)."""
    return jnp.sum(state.alpha_hat, axis=-1)


#: The hybrid counter (Chan, Shi & Song) as a `Counter`.
HYBRID = Counter(hybrid_init, hybrid_insert, hybrid_release)
#: The binary-tree counter as a `Counter`.
TREE = Counter(tree_init, tree_insert, tree_release)


# --------------------------------------------------------------------------------- accounting (host-side, NumPy)

def _sensitivities(sensitivity, n) -> np.ndarray:
    """Δ_t for insertions t = 1..n as float64[n + 1] (index t; a scalar is broadcast)."""
    s = np.asarray(sensitivity, np.float64)
    s = np.full(n, float(s)) if s.ndim == 0 else s[:n]
    if s.shape != (n,) or np.any(s <= 0):
        raise ValueError(f"sensitivity must be positive, a scalar or one per item (at least {n})")
    return np.concatenate([[np.nan], s])


def _bit_length(i):
    """int.bit_length of an int64 array (exact below 2^53: frexp gives i = m·2^e with m in [0.5, 1))."""
    return np.frexp(i.astype(np.float64))[1].astype(np.int64)


def _check_stream(n, epsilon, levels=None):
    n = int(n)
    if n < 1 or not float(epsilon) > 0:
        raise ValueError(f"need n >= 1 and epsilon > 0 (got n={n}, epsilon={epsilon})")
    if levels is not None and n > (1 << int(levels)) - 1:
        raise ValueError(f"n={n} exceeds the capacity 2^{levels} - 1 of a tree with {levels} levels")
    return n, float(epsilon)


def tree_noise_variance(n, epsilon, sensitivity=1.0, depth=None, levels: int = LEVELS) -> float:
    """Var(Ŝ_n − S_n) = Σ_{set bits j of n} 2 (Δ_{c_j} D/ε)², c_j = n with its bits below j cleared (the creation
    time of the live node at level j; spec 004 §7 oracle 6); Laplace(b) has variance 2b². D = ``depth`` (default
    ``levels``); ``sensitivity`` a scalar or one Δ_t per insertion."""
    n, eps = _check_stream(n, epsilon, levels)
    s = _sensitivities(sensitivity, n)
    d = float(levels if depth is None else depth)
    return float(sum(2 * (s[(n >> j) << j] * d / eps) ** 2 for j in range(n.bit_length()) if n >> j & 1))


def _tree_ratios(n, eps, s, spread, levels):
    """Δ_i/b_v for items i = 1..n, one float64[n] per level (0 where i's node at that level is not released):
    b_v = Δ_{c_v}·spread/ε for the node created at c_v (`tree_privacy_loss`)."""
    i = np.arange(1, n + 1, dtype=np.int64)
    for j in range(int(levels)):
        m = ((i - 1) >> j) + 1
        c = m << j
        released = (m % 2 == 1) & (c <= n)
        yield np.where(released, s[1:] * eps / (s[np.minimum(c, n)] * spread), 0.0)


def tree_privacy_loss(n, epsilon, sensitivity=1.0, depth=None, levels: int = LEVELS) -> np.ndarray:
    """ε_i for each item i = 1..n of a stream of n items (float64[n]): Σ over the released nodes containing i of
    Δ_i / b_v, b_v = Δ_{c_v} D/ε for the node created at c_v. Item i lies at level j in the dyadic interval
    ((m − 1)2^j, m 2^j], m = ⌈i/2^j⌉, which is released by itself iff m is odd (even m: absorbed into a higher
    node) and c = m 2^j ≤ n. ε-DP iff max ≤ ε; D = L gives max = ε exactly once n ≥ 2^{L−1}."""
    n, eps = _check_stream(n, epsilon, levels)
    s = _sensitivities(sensitivity, n)
    d = float(levels if depth is None else depth)
    return releases.LAPLACE.item_levels(_tree_ratios(n, eps, s, d, levels))


def tree_profile(n, budget, release=releases.LAPLACE, sensitivity=1.0, depth=None,
                 levels: int = LEVELS) -> profiles.Profile:
    """The privacy profile of a tree counter's whole released sequence after n insertions (event level): its
    worst item's, the composition of ``release``'s profile over the nodes the item is in (node v released at
    scale Δ_{c_v}·spread(D)/budget, `jaxbandit.mechanisms.releases`). Laplace: ε-DP with ε = max
    `tree_privacy_loss`; Gaussian: μ-GDP with μ = max_i sqrt(Σ_v (Δ_i/σ_v)²) (= budget at D = L, n ≥ 2^{L−1});
    Wishart: the basic composition of its (ε, δ) over the most nodes an item is in."""
    n, eps = _check_stream(n, budget, levels)
    s = _sensitivities(sensitivity, n)
    spread = release.spread(np.float64(levels if depth is None else depth))
    return release.profile(np.max(release.item_levels(_tree_ratios(n, eps, s, spread, levels))))


def hybrid_noise_variance(n, epsilon, sensitivity=1.0) -> float:
    """Var(Ŝ_n − S_n) for n = 2^k + r, 0 ≤ r < 2^k: Σ_{i=0..k} 2(2Δ_{2^i}/ε)² (logarithmic) + Σ_{set bits j of r}
    2(2kΔ_{c_j}/ε)² (binary, c_j = 2^k + r with its bits below j cleared); for Δ ≡ 1 it is
    (k + 1)·2(2/ε)² + popcount(r)·2(2k/ε)² (Laplace(b) has variance 2b²)."""
    n, eps = _check_stream(n, epsilon)
    s = _sensitivities(sensitivity, n)
    k = n.bit_length() - 1
    r = n - (1 << k)
    log_part = sum(2 * (2 * s[1 << i] / eps) ** 2 for i in range(k + 1))
    tree_part = sum(2 * (2 * k * s[(1 << k) + ((r >> j) << j)] / eps) ** 2 for j in range(k) if r >> j & 1)
    return float(log_part + tree_part)


def _hybrid_ratios(n, eps, s, release):
    """Δ_i/b_v for items i = 1..n, one float64[n] per node position (the logarithmic segment, then epoch levels j;
    0 where none): b = Δ_c·spread(2)/ε for the segment closed at c, Δ_c·spread(2k)/ε for epoch k's p-sums
    (`hybrid_privacy_loss`)."""
    i = np.arange(1, n + 1, dtype=np.int64)
    c = np.int64(1) << _bit_length(i - 1)  # the power of two closing i's segment (2^{k−1}, 2^k]
    yield np.where(c <= n, s[1:] * eps / (release.spread(2) * s[np.minimum(c, n)]), 0.0)
    k = _bit_length(i) - 1                  # i's epoch: 2^k ≤ i < 2^{k+1}
    r = i - (np.int64(1) << k)
    for j in range(max(int(k.max()), 0)):
        m = ((r - 1) >> j) + 1
        c = (np.int64(1) << k) + (m << j)
        released = (r > 0) & (j < k) & (m % 2 == 1) & (c <= n)
        yield np.where(released, s[1:] * eps / (release.spread(2 * np.maximum(k, 1)) * s[np.minimum(c, n)]), 0.0)


def hybrid_privacy_loss(n, epsilon, sensitivity=1.0) -> np.ndarray:
    """ε_i for each item i = 1..n of a stream of n items (float64[n]): Σ over the released nodes containing i of
    Δ_i / b_v. Item i ∈ (2^{k−1}, 2^k] is in the logarithmic segment released at c = 2^k (b = 2Δ_c/ε) if c ≤ n;
    item i = 2^k + r, 0 < r < 2^k, is also in the epoch-k p-sums at level j < k over ((m − 1)2^j, m 2^j] of r,
    m = ⌈r/2^j⌉ odd, created at c = 2^k + m 2^j ≤ n (b = 2kΔ_c/ε). Max ε (items 2^k + 1 once n ≥ 2^{k+1})."""
    n, eps = _check_stream(n, epsilon)
    s = _sensitivities(sensitivity, n)
    return releases.LAPLACE.item_levels(_hybrid_ratios(n, eps, s, releases.LAPLACE))


def hybrid_profile(n, budget, release=releases.LAPLACE, sensitivity=1.0) -> profiles.Profile:
    """The privacy profile of a hybrid counter's whole released sequence after n insertions (event level): its
    worst item's, the composition of ``release``'s profile over its logarithmic segment and epoch p-sums (as
    `tree_profile`). Laplace: ε-DP at max `hybrid_privacy_loss`; Gaussian: μ-GDP with μ = budget once
    n ≥ 2^{k+1} for an item 2^k + 1 (μ²/2 from its segment, μ²/2 from its k p-sums)."""
    n, eps = _check_stream(n, budget)
    s = _sensitivities(sensitivity, n)
    return release.profile(np.max(release.item_levels(_hybrid_ratios(n, eps, s, release))))
