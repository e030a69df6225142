"""The private LinUCBs as a researcher writes them in NumPy: one loop over rounds, vectorized across runs (einsum
over the batch), each at jaxbandit's defaults and ``width="theory"`` (`jaxbandit.policies.private_linear`,
`jaxbandit.policies.shuffle_linear`: the same formulas, written again here from their docstrings), on Chowdhury &
Zhou's instance (`bench_linear.cz_instances`). The loop is the side-by-side baseline of bench_private_linear.py: each
policy against its own loop. NumPy may branch where a traced step cannot: its tree keeps one round counter for all
runs, and SDP-Vec draws its binomial noise only at a batch's end.

Each function returns the per-run pseudo-regret after ``horizon`` rounds; the means are printed beside the engine's
(the same law, other random streams) as a check that both run the same algorithm.
"""
from __future__ import annotations

import math

import numpy as np

from bench_linear import cz_instances

FEATURE_BOUND, REWARD_BOUND, DELTA, NOISE_SCALE, THETA_BOUND = 1.0, 1.0, 0.1, 0.5, 1.0


def _symmetric(rng, runs, n, diagonal=1.0):
    """Symmetric (runs, n, n) matrices, N(0, 1) above the diagonal and N(0, diagonal²) on it."""
    z = np.triu(rng.standard_normal((runs, n, n)).astype(np.float32), 1)
    return z + np.swapaxes(z, 1, 2) + diagonal * np.einsum(
        "ri,ij->rij", rng.standard_normal((runs, n)).astype(np.float32), np.eye(n, dtype=np.float32))


def _clip(X, arm, reward):
    """[x; y] with ‖x‖ ≤ L (scaled) and y ∈ [−B̃, B̃] (clamped), per run."""
    x = X[np.arange(len(arm)), arm]
    x = x * np.minimum(1.0, FEATURE_BOUND / np.linalg.norm(x, axis=1, keepdims=True))
    return x, np.clip(reward, -REWARD_BOUND, REWARD_BOUND)


def _ucb(V, u, beta, X, rng):
    """The UCB arm of every run (V⁻¹ by a batched inverse, ties at random), and log det V."""
    vinv = np.linalg.inv(V)
    theta = np.einsum("rij,rj->ri", vinv, u)
    norms = np.sqrt(np.maximum(np.einsum("rki,rij,rkj->rk", X, vinv, X), 0))
    index = np.einsum("rkd,rd->rk", X, theta) + beta[:, None] * norms
    return np.argmax(index + 1e-7 * rng.random(index.shape), axis=1)


def _play(X, means, arm, rng):
    idx = np.arange(len(arm))
    reward = (rng.random(len(arm)) < means[idx, arm]).astype(np.float32)
    return reward, means.max(axis=1) - means[idx, arm]


def jdp(K, d, runs, horizon, epsilon=1.0, seed=0):
    """JDP-LinUCB, Gaussian tree noise (S&S §4.2): per-level node noises, a padding to m nodes each round."""
    rng = np.random.default_rng(seed)
    X, th = cz_instances(rng, runs, K, d)
    means = np.einsum("rkd,rd->rk", X, th)
    n_T, alpha = horizon, 1 / (2 * horizon)
    m = 1 + math.ceil(math.log2(n_T))
    lt2 = FEATURE_BOUND ** 2 + REWARD_BOUND ** 2
    log_n = math.log(2 * n_T / alpha)
    sigma = 4 * math.sqrt(m) * lt2 * math.log(4 / DELTA) / epsilon
    upsilon = sigma * math.sqrt(2 * m) * (4 * math.sqrt(d) + 2 * log_n)
    gamma = math.sqrt(m) * sigma * (math.sqrt(d) + math.sqrt(2 * log_n)) / math.sqrt(upsilon)
    total = np.zeros((runs, d + 1, d + 1), np.float32)
    levels = np.zeros((runs, m, d + 1, d + 1), np.float32)
    live = np.zeros((runs, d + 1, d + 1), np.float32)
    regret = np.zeros(runs)
    for n in range(horizon):
        pad = math.sqrt(m - bin(n).count("1")) * sigma * _symmetric(rng, runs, d + 1, math.sqrt(2))
        released = total + live + pad
        V = released[:, :d, :d] + 2 * upsilon * np.eye(d, dtype=np.float32)
        logdet = np.linalg.slogdet(V)[1]
        beta = (NOISE_SCALE * np.sqrt(np.maximum(2 * math.log(2 / alpha) + logdet - d * math.log(upsilon), 0))
                + THETA_BOUND * math.sqrt(3 * upsilon) + gamma)
        arm = _ucb(V, released[:, :d, d], beta, X, rng)
        reward, r = _play(X, means, arm, rng)
        regret += r
        x, y = _clip(X, arm, reward)
        v = np.concatenate([x, y[:, None]], axis=1)
        total += np.einsum("ri,rj->rij", v, v)
        i = ((n + 1) & -(n + 1)).bit_length() - 1  # the level of the node row n + 1 completes
        node = sigma * _symmetric(rng, runs, d + 1, math.sqrt(2))
        live += node - levels[:, :i].sum(axis=1)
        levels[:, :i] = 0
        levels[:, i] = node
    return regret


def _report_width(sigma, t, horizon, d):
    """(Υ_t, β_t) of Zheng et al.'s server (α = 1/T)."""
    t = max(t, 1)
    upsilon = sigma * math.sqrt(t) * (4 * math.sqrt(d) + 2 * math.log(2 * horizon * horizon))
    log_t = math.log(horizon)
    return upsilon, 2 * sigma * math.sqrt(d * log_t) + (math.sqrt(3 * upsilon) + sigma * math.sqrt(d * t / upsilon)) * d * log_t


def _report_server(K, d, runs, horizon, sigma, batch, message, batch_noise, seed):
    """LinUCB on the sums of users' messages, folded in every ``batch`` rounds (1: every round)."""
    rng = np.random.default_rng(seed)
    X, th = cz_instances(rng, runs, K, d)
    means = np.einsum("rkd,rd->rk", X, th)
    gram, xr = np.zeros((runs, d, d), np.float32), np.zeros((runs, d), np.float32)
    pending_gram, pending_xr = np.zeros_like(gram), np.zeros_like(xr)
    reports, regret = 0, np.zeros(runs)
    for n in range(horizon):
        upsilon, beta = _report_width(sigma, reports, horizon, d)
        arm = _ucb(gram + 2 * upsilon * np.eye(d, dtype=np.float32), xr, np.full(runs, beta), X, rng)
        reward, r = _play(X, means, arm, rng)
        regret += r
        mm, mv = message(rng, *_clip(X, arm, reward))
        pending_gram += mm
        pending_xr += mv
        if (n + 1) % batch == 0:
            nm, nv = batch_noise(rng, runs) if batch_noise else (0, 0)
            gram += pending_gram + nm
            xr += pending_xr + nv
            pending_gram[:], pending_xr[:] = 0, 0
            reports += batch
    return regret


def _gaussian_report(sigma, d):
    def message(rng, x, y):
        return (np.einsum("ri,rj->rij", x, x) + sigma * _symmetric(rng, len(x), d),
                y[:, None] * x + sigma * rng.standard_normal(x.shape).astype(np.float32))
    return message


SENSITIVITY = math.sqrt(2 * FEATURE_BOUND ** 4 + 4 * FEATURE_BOUND ** 2 * REWARD_BOUND ** 2)


def ldp(K, d, runs, horizon, epsilon=1.0, seed=0):
    """LDP-LinUCB (Zheng et al.): each user's Gaussian report, summed every round."""
    sigma = SENSITIVITY * math.sqrt(2 * math.log(1.25 / DELTA)) / epsilon
    return _report_server(K, d, runs, horizon, sigma, 1, _gaussian_report(sigma, d), None, seed)


def sdp_amp(K, d, runs, horizon, epsilon=1.0, batch=20, seed=0):
    """SDP-Amp LinUCB (Chowdhury & Zhou): Gaussian reports at the amplified σ, folded in per batch."""
    sigma = SENSITIVITY * math.sqrt(math.log(2.5 * batch / DELTA)) / (epsilon * math.sqrt(batch))
    return _report_server(K, d, runs, horizon, sigma, batch, _gaussian_report(sigma, d), None, seed)


def sdp_vec(K, d, runs, horizon, epsilon=1.0, batch=20, seed=0):
    """SDP-Vec LinUCB (Chowdhury & Zhou): randomized rounding to L_c/g per coordinate, Bin(B b, 1/4) noise per
    coordinate at each batch's end."""
    g = max(2 * math.sqrt(batch), d, 4)
    b = math.ceil(g * g * math.log(d / DELTA) ** 2 / (epsilon ** 2 * batch))
    bound = max(FEATURE_BOUND ** 2, FEATURE_BOUND * REWARD_BOUND)
    rows, cols = np.triu_indices(d)

    def unpack(values):
        mat = np.zeros((len(values), d, d), np.float32)
        mat[:, rows, cols] = values[:, :-d]
        mat[:, cols, rows] = values[:, :-d]
        return mat, values[:, -d:]

    def message(rng, x, y):
        values = np.concatenate([np.einsum("ri,rj->rij", x, x)[:, rows, cols], y[:, None] * x], axis=1)
        grid = np.clip(values + bound, 0, 2 * bound) * g / bound
        low = np.floor(grid)
        rounded = low + (rng.random(grid.shape) < grid - low)
        return unpack((rounded * bound / g - bound).astype(np.float32))

    def batch_noise(rng, runs):
        trials = batch * b
        count = rng.binomial(trials, 0.25, size=(runs, rows.size + d))
        return unpack(((count - trials * 0.25) * bound / g).astype(np.float32))

    sigma = bound / g * math.sqrt((b + 1) / 4)
    return _report_server(K, d, runs, horizon, sigma, batch, message, batch_noise, seed)


LOOPS = {"linucb-jdp": jdp, "linucb-ldp": ldp, "linucb-sdp-amp": sdp_amp, "linucb-sdp-vec": sdp_vec}
