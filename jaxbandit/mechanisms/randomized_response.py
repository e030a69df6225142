"""Randomized response, the corruption channel of seed 002 (Gajane, Urvoy & Kaufmann, "Corrupt Bandits for
Preserving Local Privacy", ALT 2018, arXiv 1708.05033): the channel's arithmetic, used by the privatizer
`randomized-response` (`jaxbandit.privatizers.randomized_response`) and the CF policies.

Arm a's channel is the 2×2 matrix M_a(y, x) = Pr(F = y | R = x) of Eq. (2),

    M_a = [[p00(a), 1 − p11(a)], [1 − p00(a), p11(a)]],      g_a(x) = 1 − p00(a) + (p00(a) + p11(a) − 1) x   (Eq. 3)

with g_a the mean map λ_a = g_a(μ_a), known to the learner (the CF policies of `jaxbandit.policies.corrupt`).
For Bernoulli rewards and binary feedback every corruption scheme is such a matrix, so every g_a is affine:
offset o_a = 1 − p00(a), slope s_a = p00(a) + p11(a) − 1, inverse g_a⁻¹(y) = (y − o_a)/s_a. g_a is strictly
monotone iff s_a ≠ 0; s_a = 0 makes the feedback independent of the reward and is rejected. A reward r in [0, 1]
that is not binary is reported as F ~ Bernoulli(o_a + s_a r): the same channel's linear extension, with the same
mean map and the same LDP level.

Privacy. The exact LDP level of arm a's channel is max(|log(p00/(1 − p11))|, |log(p11/(1 − p00))|) (spec §3);
the paper's condition (without the absolute values) equals it only when s_a ≥ 0. The ε-optimal channel is
p00 = p11 = e^ε/(1 + e^ε) (Eq. 5, `epsilon_optimal`), identical to seed 000's `linear` mechanism.

Floating point. The privatizer reports F = 1{u < t} with a float32 uniform u on the grid k·2^-23 realizes Pr(F = 1) = ⌈t·2^23⌉/2^23,
not t. Its `apply` therefore uses `thresholds` snapped *inwards* onto that grid — for s ≥ 0: t(0) = 1 − ⌊p00⌋ and
t(1) = ⌊p11⌋, with ⌊·⌋ the grid floor (exact in float32) — so the realized channel has both probabilities of
correct report ⌊p00⌋ ≤ p00 and ⌊p11⌋ ≤ p11 (mirrored for s < 0), every log-ratio at most the nominal one, and
an LDP level (`realized_level`) at most `ldp_level` of the parameters, exactly, for every input.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from jaxbandit import checks

__all__ = ["offset_slope", "mean_map", "inverse_mean_map", "corruption_matrix", "optimal_p", "epsilon_optimal",
           "ldp_level", "channel_ldp_level", "thresholds", "realized_probabilities", "realized_level",
           "toward_interior", "check"]


def offset_slope(p00, p11):
    """(o, s) of g(x) = o + s x: o = 1 − p00, s = p00 + p11 − 1 (Eq. 3). Works on numpy and jax arrays."""
    return 1 - p00, p00 + p11 - 1


def mean_map(x, p00, p11):
    """g(x) = 1 − p00 + (p00 + p11 − 1) x: the feedback mean of reward mean x (Eq. 3)."""
    o, s = offset_slope(p00, p11)
    return o + s * x


def inverse_mean_map(y, p00, p11):
    """g⁻¹(y) = (y − o)/s, unclipped (outside g([0, 1]) it leaves [0, 1], as in the paper's analysis)."""
    o, s = offset_slope(p00, p11)
    return (y - o) / s


def corruption_matrix(p00, p11) -> np.ndarray:
    """M(y, x) = Pr(F = y | R = x) of Eq. (2): shape (2, 2), or (K, 2, 2) for per-arm parameters (a scalar is
    shared by every arm; two per-arm lists must have the same length)."""
    checks.same_length(p00=p00, p11=p11)
    p00, p11 = np.broadcast_arrays(np.asarray(p00, np.float64), np.asarray(p11, np.float64))
    return np.stack([np.stack([p00, 1 - p11], -1), np.stack([1 - p00, p11], -1)], -2)


def optimal_p(epsilon):
    """p = e^ε/(1 + e^ε) of the ε-optimal randomized response (Eq. 5; Wang et al. 2016), float64."""
    eps = np.asarray(epsilon, np.float64)
    return 1.0 / (1.0 + np.exp(-eps))


def epsilon_optimal(epsilon, num_arms: int | None = None, dtype=np.float32):
    """``{"p00": p, "p11": p}`` with p = e^ε/(1 + e^ε) (Eq. 5), the channel of largest slope s = tanh(ε/2) among
    ε-LDP ones, rounded *down* to ``dtype`` so that the channel as stored is ε-LDP (rounding to nearest could
    exceed ε by an ulp). ``num_arms``: repeat p for K arms (per-arm parameters)."""
    checks.in_range("epsilon", epsilon, 0.0, math.inf, low_open=True, high_open=True)
    p = optimal_p(epsilon)
    stored = np.asarray(p, dtype)
    stored = np.where(stored.astype(np.float64) > p, np.nextafter(stored, dtype(0)), stored).astype(np.float64)
    if num_arms is not None:
        stored = np.full(num_arms, stored)
    return {"p00": stored, "p11": stored}


def ldp_level(p00, p11) -> np.ndarray:
    """The exact LDP level ε_a of each arm's channel (float64; inf where some output is impossible for one
    input and not the other): max over outputs y of |log M(y, 0)/M(y, 1)| (spec §3). The scheme's level is the
    maximum over arms. ε = 0 iff s = 0."""
    return channel_ldp_level(corruption_matrix(p00, p11))


def channel_ldp_level(matrix) -> np.ndarray:
    """The LDP level of any channel M(y, x) = Pr(output y | input x) (columns are distributions over outputs):
    max_y log(max_x M(y, x) / min_x M(y, x)), the smallest ε with Pr[M(x) ∈ S] ≤ e^ε Pr[M(x') ∈ S] for all
    x, x', S (Def. 1). ``matrix``: (..., outputs, inputs); returns shape (...)."""
    m = np.asarray(matrix, np.float64)
    if np.any(m < 0) or not np.allclose(m.sum(-2), 1.0, atol=1e-9):
        raise ValueError("channel matrix must have non-negative entries and columns summing to 1 "
                         "(M(y, x) = Pr(output y | input x))")
    hi, lo = m.max(-1), m.min(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(hi == 0, 0.0, np.log(hi) - np.log(lo))
    return ratio.max(-1)


def _grid(dtype):
    return 2.0 ** jnp.finfo(dtype).nmant


def thresholds(p00, p11):
    """(t0, t1): the privatizer reports F = 1 iff u < t0 + (t1 − t0) r. The nominal values are 1 − p00 and p11; both
    are snapped inwards onto the uniform's grid k·2^-m (module doc), and where they fall in one grid cell they
    coincide (a level-0 channel, below the nominal one)."""
    p00, p11 = jnp.asarray(p00), jnp.asarray(p11)
    grid = _grid(p00.dtype)
    floor = lambda p: jnp.floor(p * grid) / grid
    ceil = lambda p: jnp.ceil(p * grid) / grid
    up = p00 + p11 >= 1
    # 1 − ⌊p⌋ = ⌈1 − p⌉ on the grid, computed without rounding: every operand is a multiple of 2^-m in [0, 1].
    t0 = jnp.where(up, 1 - floor(p00), 1 - ceil(p00))
    t1 = jnp.where(up, floor(p11), ceil(p11))
    t1 = jnp.where(up, jnp.maximum(t1, t0), jnp.minimum(t1, t0))
    return t0, t1


def realized_probabilities(p00, p11) -> tuple[np.ndarray, np.ndarray]:
    """(Pr(F = 0 | R = 0), Pr(F = 1 | R = 1)) exactly as the privatizer realizes them (float64, host side) for the
    parameters as the registry stores them (`toward_interior`, float32 unless x64 is on)."""
    dtype = jnp.zeros(()).dtype
    stored = toward_interior(p00, p11, dtype)  # as the registry stores them (identity on values of that dtype)
    t0, t1 = thresholds(jnp.asarray(stored["p00"], dtype), jnp.asarray(stored["p11"], dtype))
    return 1 - np.asarray(t0, np.float64), np.asarray(t1, np.float64)


def realized_level(p00, p11) -> np.ndarray:
    """The exact LDP level of the channel as the privatizer realizes it; ≤ `ldp_level` of the values given."""
    return ldp_level(*realized_probabilities(p00, p11))


def toward_interior(p00, p11, dtype=None) -> dict:
    """``{"p00", "p11"}`` rounded to ``dtype`` (the parameters' float type) in the direction that cannot raise the
    LDP level: down where p00 + p11 >= 1, up where it is < 1 (rounding to nearest could add ~1e-7 to it)."""
    dtype = np.dtype(dtype or jnp.zeros(()).dtype)
    p00, p11 = np.broadcast_arrays(np.asarray(p00, np.float64), np.asarray(p11, np.float64))
    up = p00 + p11 >= 1
    out = {}
    for name, p in (("p00", p00), ("p11", p11)):
        q = p.astype(dtype)
        q = np.where(up & (q > p), np.nextafter(q, dtype.type(0)), q)
        q = np.where(~up & (q < p), np.nextafter(q, dtype.type(1)), q)
        out[name] = q.astype(np.float64) if np.ndim(p) else float(q)
    return out



def check(p00, p11) -> None:
    """p00, p11 in [0, 1] and s = p00 + p11 − 1 ≠ 0 for every arm (g_a strictly monotone); ValueError otherwise."""
    a = checks.in_range("p00", p00, 0.0, 1.0)
    b = checks.in_range("p11", p11, 0.0, 1.0)
    if a.ndim > 1 or b.ndim > 1:
        raise ValueError(f"p00 and p11 must be scalars or per-arm vectors, got shapes {a.shape}, {b.shape}")
    checks.same_length(p00=a, p11=b)
    a, b = np.broadcast_arrays(a, b)
    # The slope as the policies compute it, in the parameters' own dtype: 0.4 + 0.6 is exactly 1 in float32.
    slope = np.asarray(p00) + np.asarray(p11) - 1
    flat = np.flatnonzero(np.ravel(np.broadcast_to(slope, a.shape)) == 0)
    if len(flat):
        i = flat[0]
        arm = f" of arm {i}" if a.ndim else ""
        raise ValueError(f"randomized response{arm} has p00={np.ravel(a)[i]:g}, p11={np.ravel(b)[i]:g}: "
                         f"p00 + p11 = 1 makes the mean map g constant (the feedback does not depend on the "
                         f"reward), not strictly monotone; valid channels have p00 + p11 in [0, 1) or (1, 2]")


