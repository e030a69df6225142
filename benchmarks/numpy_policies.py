"""Hand-written NumPy loops of jaxbandit's policies, vectorised across runs: the reference of the per-family speed
table (`bench_families.py`, issue 18) and, in tests/test_numpy_references.py, an independent implementation whose
regret must agree with the engine's.

Each ``numpy_<name>(means, runs, horizon, seed=0, **params)`` simulates ``runs`` independent runs on Bernoulli arms
with the given means and returns the final pseudo-regret of each run, float64[runs]: Σ_t (max mean − mean of the arm
pulled at t). One Python loop over t; state (runs, K) or (runs,); float64; NumPy's generator. The same algorithm as
the jaxbandit policy of that name (its initial pulls, index, tie-breaking, phases and release schedule): the same
law of the action sequence, not the same random numbers. The private ones use the papers' float noise (jaxbandit's
``release="float"``: Laplace, ``jax.random.normal``).

Corrupt bandits: ``p00``, ``p11`` (scalars or per arm) are the channel the policy knows; ``channel=(p00, p11)``
optionally gives the privatizer another one (default: the same). The privatizer reports
F = 1{u < (1 − p00) + (p00 + p11 − 1) R} for the Bernoulli reward R of the pulled arm.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["CASES", "numpy_thompson", "numpy_gaussian_thompson", "numpy_modified_thompson", "numpy_ucb1",
           "numpy_klucb", "numpy_epsilon_greedy", "numpy_dp_se", "numpy_lazy_ucb", "numpy_ucb_cf", "numpy_klucb_cf",
           "numpy_ts_cf", "numpy_dp_ucb_bound", "numpy_dp_ucb", "numpy_dp_ucb_int",
           "numpy_dp_ftpl_new", "numpy_dp_rse"]


# --------------------------------------------------------------------------- shared helpers

def _setup(means, runs, seed):
    means = np.asarray(means, np.float64)
    return means, means.shape[0], np.random.default_rng(seed), np.arange(runs), means.max() - means


def _argmax_random_tie(values, u):
    """Row-wise index of a maximum, uniform among tied maxima, from one uniform per row (common.argmax_random_tie)."""
    best = values == values.max(axis=1, keepdims=True)
    count = best.sum(axis=1)
    k = np.minimum(np.floor(u * count).astype(np.int64), count - 1)
    return np.argmax(np.cumsum(best, axis=1) > k[:, None], axis=1)


def _unplayed_first(index, counts, u):
    """An unplayed arm if any (uniform among them), else the largest index (uniform among ties)."""
    return _argmax_random_tie(np.where(counts == 0, np.inf, index), u)


def _exploration(t, c):
    """f(t) = max(log t + c log log t, 0), t = rounds played (at least 1; log log t := 0 for t <= 1)."""
    t = max(float(t), 1.0)
    log_t = math.log(t)
    return max(log_t + c * (math.log(log_t) if t > 1 else 0.0), 0.0)


KL_NEWTON_STEPS = 8


def _klucb_index(mean, level):
    """max{q in [mean, 1] : d(mean, q) <= level}, elementwise: Newton on the log-odds offset (as jaxbandit's
    `klucb_index`: monotone convergence from the right of the root); closed forms at mean 0 and 1."""
    inner = (mean > 0) & (mean < 1)
    p = np.where(inner, mean, 0.5)
    center = np.log(p) - np.log1p(-p)
    pinsker = p + np.sqrt(level / 2)
    below = pinsker < 1
    pb = np.where(below, pinsker, 0.5)
    x_pinsker = np.where(below, np.log(pb) - np.log1p(-pb), np.inf)
    neg_entropy = p * np.log(p) + (1 - p) * np.log1p(-p)
    x_linear = (level - neg_entropy) / (1 - p)
    delta = np.maximum(np.minimum(x_pinsker, x_linear) - center, 0)
    tiny = np.finfo(np.float64).tiny
    for _ in range(KL_NEWTON_STEPS):
        far = delta > 1
        with np.errstate(over="ignore"):
            tail = np.where(far, np.log(p + (1 - p) * np.exp(-delta)),
                            np.log1p((1 - p) * np.expm1(-np.where(far, 0, delta))))
        h = (1 - p) * delta + tail - level
        slope = 1 / (1 + np.exp(-(center + delta))) - p
        delta = np.where(h > 0, delta - h / np.maximum(slope, tiny), delta)
    q = np.maximum(1 / (1 + np.exp(-(center + delta))), mean)
    return np.where(mean >= 1, 1.0, np.where(mean <= 0, -np.expm1(-level), q))


def _pull(rng, means, arm):
    """Bernoulli rewards of the pulled arms, (runs,)."""
    return (rng.random(arm.shape[0]) < means[arm]).astype(np.float64)


def _empirical(sums, counts):
    n = np.maximum(counts, 1).astype(np.float64)
    return sums / n, n


# --------------------------------------------------------------------------- Thompson sampling

def numpy_thompson(means, runs, horizon, seed=0):
    """Beta(1, 1)-Bernoulli TS (Agrawal & Goyal 2013): θ ~ Beta(S + 1, F + 1), argmax (ties: probability 0)."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    s = np.zeros((runs, k))
    n = np.zeros((runs, k))
    regret = np.zeros(runs)
    for _ in range(horizon):
        arm = rng.beta(s + 1, n - s + 1).argmax(axis=1)
        s[rows, arm] += _pull(rng, means, arm)
        n[rows, arm] += 1
        regret += gaps[arm]
    return regret


def numpy_modified_thompson(means, runs, horizon, seed=0, b=0, c=1.0):
    """Seed 001 Alg. 2: b pre-pulls of each arm in arm order, then θ ~ N(S/(n+1), c/(n+1)), argmax; (b, c) = (0, 1)
    is Gaussian TS (Alg. 1)."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    s = np.zeros((runs, k))
    n = np.zeros((runs, k))
    regret = np.zeros(runs)
    for t in range(horizon):
        if t < b * k:
            arm = np.full(runs, t // b)
        else:
            arm = (s / (n + 1) + np.sqrt(c) * rng.standard_normal((runs, k)) / np.sqrt(n + 1)).argmax(axis=1)
        s[rows, arm] += _pull(rng, means, arm)
        n[rows, arm] += 1
        regret += gaps[arm]
    return regret


def numpy_gaussian_thompson(means, runs, horizon, seed=0):
    """Gaussian TS, N(0, 1) prior: `numpy_modified_thompson` at (b, c) = (0, 1)."""
    return numpy_modified_thompson(means, runs, horizon, seed)


# --------------------------------------------------------------------------- UCB1

def _index_loop(means, runs, horizon, seed, index):
    """Unplayed arms first (uniform among them), then argmax ``index(mean, n, t)``, t = pulls so far; ties
    uniform."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    sums = np.zeros((runs, k))
    counts = np.zeros((runs, k), np.int64)
    regret = np.zeros(runs)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for t in range(horizon):
            mean, n = _empirical(sums, counts)
            arm = _unplayed_first(index(mean, n, t) if t >= k else mean, counts, rng.random(runs))
            sums[rows, arm] += _pull(rng, means, arm)
            counts[rows, arm] += 1
            regret += gaps[arm]
    return regret


def numpy_ucb1(means, runs, horizon, seed=0):
    """UCB1 (Auer et al. 2002): unplayed arms first (random order), then argmax mean + sqrt(2 ln t / n_j),
    t = pulls so far (floored at 1); ties uniform."""
    return _index_loop(means, runs, horizon, seed, lambda mean, n, t: mean + np.sqrt(2.0 * math.log(max(t, 1)) / n))


def numpy_klucb(means, runs, horizon, seed=0, c=0.0):
    """kl-UCB (Garivier & Cappé 2011), Bernoulli KL: unplayed arms first (random order), then
    argmax_j max{q : n_j d(mean_j, q) <= f(t)}, f(t) = max(ln t + c ln ln t, 0) with t = pulls so far
    (f = 0 for t <= 1); ties uniform."""
    return _index_loop(means, runs, horizon, seed,
                       lambda mean, n, t: _klucb_index(np.clip(mean, 0, 1), _exploration(t, c) / n))


# --------------------------------------------------------------------------- epsilon-greedy

def numpy_epsilon_greedy(means, runs, horizon, seed=0, epsilon=0.1):
    """epsilon-greedy: with probability epsilon a uniformly random arm, else the best empirical mean (unplayed arms
    count as best; ties uniform). Constant epsilon."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    sums = np.zeros((runs, k))
    counts = np.zeros((runs, k), np.int64)
    regret = np.zeros(runs)
    for t in range(horizon):
        coin = rng.random(runs)
        u = rng.random(runs)
        mean, _ = _empirical(sums, counts)
        greedy = _unplayed_first(mean, counts, u)
        arm = np.where(coin < epsilon, np.minimum((u * k).astype(np.int64), k - 1), greedy)
        sums[rows, arm] += _pull(rng, means, arm)
        counts[rows, arm] += 1
        regret += gaps[arm]
    return regret


# --------------------------------------------------------------------------- DP-SE

def _dpse_logs(n_active, epoch, beta):
    base = np.log(n_active * epoch.astype(np.float64) ** 2 / beta)
    return base + np.log(8.0), base + np.log(4.0)


def _dpse_pulls(n_active, epoch, epsilon, beta):
    """R_e = floor(max{32 ln(8|S|e^2/beta)/D_e^2, 8 ln(4|S|e^2/beta)/(eps D_e)}) + 1, D_e = 2^-e."""
    l8, l4 = _dpse_logs(n_active, epoch, beta)
    gap = np.exp2(-epoch.astype(np.float64))
    r = np.floor(np.maximum(32 * l8 / gap ** 2, 8 * l4 / (epsilon * gap))) + 1
    return np.minimum(r, (2 ** 31 - 1) // np.maximum(n_active, 1)).astype(np.int64)


def numpy_dp_se(means, runs, horizon, seed=0, epsilon=1.0, beta=1e-5):
    """DP-SE (Sajed & Sheffet 2019), float Laplace noise. Epoch e pulls each of the |S| active arms R_e times
    round-robin in arm order; at its end mu_i = epoch mean + Lap(1/(eps R_e)), and arm i is eliminated if
    max_j mu_j - mu_i > 2 (sqrt(ln(8|S|e^2/beta)/(2 R_e)) + ln(4|S|e^2/beta)/(eps R_e)); epoch rewards are then
    forgotten. With one arm left it is played to the end."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    active = np.ones((runs, k), bool)
    sums = np.zeros((runs, k))
    epoch = np.ones(runs, np.int64)
    n_active = np.full(runs, k, np.int64)
    pulls = _dpse_pulls(n_active, epoch, epsilon, beta)  # R_e
    count = np.zeros(runs, np.int64)                     # pulls made in this epoch
    length = pulls * n_active                            # epoch length (0: never ends)
    rank = np.broadcast_to(np.arange(k), (runs, k))      # rank among the active arms (all active at first)
    regret = np.zeros(runs)
    for t in range(horizon):
        slot = count % np.maximum(n_active, 1)
        arm = np.argmax(active & (rank == slot[:, None]), axis=1)
        sums[rows, arm] += _pull(rng, means, arm)
        regret += gaps[arm]
        count += 1
        ends = np.flatnonzero(count == length)
        if ends.size:
            act, s, e, r = active[ends], sums[ends], epoch[ends], pulls[ends].astype(np.float64)
            noisy = s / r[:, None] + rng.laplace(size=s.shape) / (epsilon * r[:, None])
            l8, l4 = _dpse_logs(n_active[ends], e, beta)
            width = np.sqrt(l8 / (2 * r)) + l4 / (epsilon * r)
            best = np.max(np.where(act, noisy, -np.inf), axis=1)
            keep = act & (best[:, None] - noisy <= 2 * width[:, None])
            n_keep = keep.sum(axis=1)
            active[ends] = keep
            sums[ends] = 0.0
            epoch[ends] = e + 1
            n_active[ends] = n_keep
            pulls[ends] = _dpse_pulls(n_keep, e + 1, epsilon, beta)
            length[ends] = np.where(n_keep > 1, pulls[ends] * n_keep, 0)
            count[ends] = 0
            rank = np.cumsum(active, axis=1) - 1
    return regret


# --------------------------------------------------------------------------- Anytime-Lazy-UCB

def numpy_lazy_ucb(means, runs, horizon, seed=0, epsilon=1.0, c1=1.5, c2=3.0):
    """Anytime-Lazy-UCB (Hu, Huang & Mehta 2021), float Laplace noise. Each arm's rewards are cut into batches of
    1, 2, 4, ... pulls; when a batch completes, the arm's private mean becomes (batch sum + Lap(1/eps)) / size and
    older rewards are forgotten. At round t (1-based) play argmax mu_j + sqrt(c1 ln t / n_j) + c2 ln t / (eps n_j),
    n_j the size of the last completed batch; arms without one first (uniform among them); ties uniform."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    mean = np.zeros((runs, k))
    size = np.zeros((runs, k), np.int64)    # size of the last completed batch (0: none)
    buffer = np.zeros((runs, k))            # sum of the batch being filled
    count = np.zeros((runs, k), np.int64)   # pulls in the batch being filled
    length = np.ones((runs, k), np.int64)   # length of the batch being filled
    regret = np.zeros(runs)
    for t in range(horizon):
        log_t = np.log(t + 1)
        n = np.maximum(size, 1)
        index = mean + np.sqrt(c1 * log_t / n) + c2 * log_t / (epsilon * n)
        arm = _argmax_random_tie(np.where(size == 0, np.inf, index), rng.random(runs))
        buffer[rows, arm] += _pull(rng, means, arm)
        regret += gaps[arm]
        count[rows, arm] += 1
        ends = np.flatnonzero(count[rows, arm] == length[rows, arm])
        if ends.size:
            a = arm[ends]
            ln = length[ends, a]
            mean[ends, a] = (buffer[ends, a] + rng.laplace(size=ends.size) / epsilon) / ln
            size[ends, a] = ln
            buffer[ends, a] = 0.0
            count[ends, a] = 0
            length[ends, a] = 2 * ln
    return regret


# ----------------------------------------------------------------------------------------- corrupt bandits (CF)

def _channel(k, p00, p11, channel):
    p00 = np.broadcast_to(np.asarray(p00, np.float64), (k,))
    p11 = np.broadcast_to(np.asarray(p11, np.float64), (k,))
    o, s = 1 - p00, p00 + p11 - 1                                    # g_a(x) = o_a + s_a x (the policy's)
    c00, c11 = (p00, p11) if channel is None else (np.broadcast_to(np.asarray(v, np.float64), (k,)) for v in channel)
    return o, s, 1 - c00, c11                                        # Pr(F=1 | R=0), Pr(F=1 | R=1)


def _corrupt_feedback(rng, means, arm, f0, f1, runs):
    """Bernoulli reward of the pulled arm, then its randomized response F."""
    reward = rng.random(runs) < means[arm]
    return (rng.random(runs) < np.where(reward, f1[arm], f0[arm])).astype(np.float64)


def _cf_index_policy(means, runs, horizon, seed, p00, p11, c, channel, kl):
    means, k, rng, idx, gaps = _setup(means, runs, seed)
    o, s, f0, f1 = _channel(k, p00, p11, channel)
    sums = np.zeros((runs, k))
    counts = np.zeros((runs, k), np.int64)
    regret = np.zeros(runs)
    up = s > 0
    for t in range(horizon):                                         # t = rounds played so far
        n = np.maximum(counts, 1)
        mean = sums / n
        level = _exploration(t, c)
        if kl:   # u_a (increasing g_a) or ℓ_a = 1 − u(1 − λ̂_a) (decreasing), mapped back through g_a⁻¹
            m = np.clip(mean, 0, 1)
            q = _klucb_index(np.where(up, m, 1 - m), level / n)
            index = (np.where(up, q, 1 - q) - o) / s
        else:    # Hoeffding: λ̂ ± sqrt(f(t)/(2n)), mapped back through g_a⁻¹
            width = np.sqrt(level / (2 * n))
            index = (mean + np.where(up, width, -width) - o) / s
        arm = _unplayed_first(index, counts, rng.random(runs))
        obs = _corrupt_feedback(rng, means, arm, f0, f1, runs)
        sums[idx, arm] += obs
        counts[idx, arm] += 1
        regret += gaps[arm]
    return regret


def numpy_ucb_cf(means, runs, horizon, seed=0, p00=1.0, p11=1.0, c=3.0, channel=None):
    """UCB-CF: each arm once (random order), then argmax g_a⁻¹(λ̂_a ± sqrt(f(t)/(2N_a))), random ties."""
    return _cf_index_policy(means, runs, horizon, seed, p00, p11, c, channel, kl=False)


def numpy_klucb_cf(means, runs, horizon, seed=0, p00=1.0, p11=1.0, c=3.0, channel=None):
    """kl-UCB-CF: each arm once (random order), then argmax g_a⁻¹ of the KL bound (upper where g_a increases,
    lower where it decreases) on the feedback mean at level f(t)/N_a, random ties."""
    return _cf_index_policy(means, runs, horizon, seed, p00, p11, c, channel, kl=True)


def numpy_ts_cf(means, runs, horizon, seed=0, p00=1.0, p11=1.0, channel=None):
    """TS-CF: θ_a ~ Beta(S_a + 1, F_a + 1) on the feedback, play argmax g_a⁻¹(θ_a) (first index; no forced pulls)."""
    means, k, rng, idx, gaps = _setup(means, runs, seed)
    o, s, f0, f1 = _channel(k, p00, p11, channel)
    succ = np.zeros((runs, k))
    fail = np.zeros((runs, k))
    regret = np.zeros(runs)
    for _ in range(horizon):
        theta = rng.beta(succ + 1, fail + 1)
        arm = np.argmax((theta - o) / s, axis=1)
        obs = _corrupt_feedback(rng, means, arm, f0, f1, runs)
        succ[idx, arm] += obs
        fail[idx, arm] += 1 - obs
        regret += gaps[arm]
    return regret


# ------------------------------------------------------------------------------------------------- DP-UCB family

def _levels(horizon):
    return max(int(horizon).bit_length(), 1)


def _bits(n):
    """(k, i): k = ⌊log2 n⌋, i = lowest set bit of r = n − 2^k (meaningless where r = 0), int arrays."""
    n = np.asarray(n, np.int64)
    k = np.frexp(n.astype(np.float64))[1] - 1
    r = n - (np.int64(1) << k)
    i = np.frexp((r & -r).astype(np.float64))[1] - 1
    return k, r, i


def _dp_counter_policy(means, runs, horizon, seed, epsilon, every_arm, with_bound):
    """DP-UCB / DP-UCB-BOUND on per-arm hybrid counters (Chan, Shi & Song), float Laplace noise.

    Counter of n items: at n = 2^k the anchor S_n + (k+1) Lap(2/ε) (one Lap(2/ε) added at each power of two);
    in epoch k (2^k < n < 2^{k+1}) dyadic p-sums of r = n − 2^k, the one completed by item r (level i = lowbit r)
    absorbing the lower ones and released once with Lap(2k/ε). Ŝ_n = anchor + Σ live noisy p-sums."""
    means, k, rng, idx, gaps = _setup(means, runs, seed)
    L = _levels(horizon)
    eps = float(epsilon)
    counts = np.zeros((runs, k), np.int64)
    total = np.zeros((runs, k))          # exact sums
    log_noise = np.zeros((runs, k))      # accumulated logarithmic-mechanism noise
    anchor = np.zeros((runs, k))         # Ŝ at the last power of two
    alpha = np.zeros((runs, k, L))       # exact p-sums of the current epoch
    alpha_hat = np.zeros((runs, k, L))   # their noisy releases
    hat_sum = np.zeros((runs, k))        # Σ alpha_hat (kept incrementally)
    regret = np.zeros(runs)
    log4 = math.log(4)
    levels = np.arange(L)
    cnt_n = np.zeros((runs, k), np.int64)  # counter items (= counts for dp-ucb-bound)
    for t in range(horizon):
        u = rng.random(runs)
        n = np.maximum(counts, 1)
        log_t = math.log(max(t, 1))
        index = (anchor + hat_sum) / n + np.sqrt(2 * log_t / n)
        if with_bound:
            m = np.maximum(cnt_n, 1)
            pow2 = (m & (m - 1)) == 0
            nu = math.sqrt(8) / eps * (log4 + 4 * log_t) * np.where(pow2, 1.0, 1 + np.log(m))
            index = index + nu / n
        arm = _unplayed_first(index, counts, u)
        reward = (rng.random(runs) < means[arm]).astype(np.float64)
        counts[idx, arm] += 1
        regret += gaps[arm]
        if every_arm:  # every counter gets an item (the reward or 0): n = t + 1 for all, one level per step
            items = np.zeros((runs, k))
            items[idx, arm] = reward
            lap = rng.laplace(size=(runs, k))
            c_n = t + 1
            total += items
            if c_n & (c_n - 1) == 0:
                log_noise += (2 / eps) * lap
                anchor = total + log_noise
                alpha[:] = 0
                alpha_hat[:] = 0
                hat_sum[:] = 0
            else:
                kk, _, i = (int(v) for v in _bits(c_n))
                merged = alpha[:, :, :i].sum(axis=2) + items
                node = merged + (2 * kk / eps) * lap
                hat_sum += node - alpha_hat[:, :, :i].sum(axis=2)
                alpha[:, :, :i] = 0
                alpha_hat[:, :, :i] = 0
                alpha[:, :, i] = merged
                alpha_hat[:, :, i] = node
        else:          # only the pulled arm's counter gets the reward: per-run level, gather/scatter its row
            lap = rng.laplace(size=runs)
            cnt_n[idx, arm] += 1
            c_n = cnt_n[idx, arm]
            tot = total[idx, arm] + reward
            total[idx, arm] = tot
            pow2 = (c_n & (c_n - 1)) == 0
            kk, _, i = _bits(c_n)
            i = np.where(pow2, 0, i)
            a, h = alpha[idx, arm], alpha_hat[idx, arm]                      # (runs, L) copies
            lower = levels < i[:, None]
            merged = np.where(lower, a, 0).sum(axis=1) + reward
            node = merged + (2 * kk / eps) * lap
            here = levels == i[:, None]
            a = np.where(lower, 0, np.where(here, merged[:, None], a))
            h = np.where(lower, 0, np.where(here, node[:, None], h))
            ln = log_noise[idx, arm] + np.where(pow2, (2 / eps) * lap, 0)
            log_noise[idx, arm] = ln
            anchor[idx, arm] = np.where(pow2, tot + ln, anchor[idx, arm])
            a[pow2] = 0
            h[pow2] = 0
            alpha[idx, arm] = a
            alpha_hat[idx, arm] = h
            hat_sum[idx, arm] = h.sum(axis=1)
    return regret


def numpy_dp_ucb_bound(means, runs, horizon, seed=0, epsilon=1.0):
    """DP-UCB-BOUND: per-arm hybrid counters fed on pulls; index Ŝ/n + sqrt(2 ln t/n) + ν(n, ε, t^-4)/n."""
    return _dp_counter_policy(means, runs, horizon, seed, epsilon, every_arm=False, with_bound=True)


def numpy_dp_ucb(means, runs, horizon, seed=0, epsilon=1.0):
    """DP-UCB: every arm's hybrid counter fed each round (0 unless pulled); index Ŝ/n + sqrt(2 ln t/n)."""
    return _dp_counter_policy(means, runs, horizon, seed, epsilon, every_arm=True, with_bound=False)


def numpy_dp_ucb_int(means, runs, horizon, seed=0, epsilon=1.0, v=1.1):
    """DP-UCB-INT: blocks of f = ⌈1/ε⌉ pulls of one arm; at a block's end the arm's private mean
    S/n + Lap(n^{v/2 − 1}) is released; a block's arm is unplayed first (random), else argmax μ̃ + sqrt(2 ln t/n)."""
    means, k, rng, idx, gaps = _setup(means, runs, seed)
    f = max(math.ceil(1 / float(epsilon)), 1)
    sums = np.zeros((runs, k))
    counts = np.zeros((runs, k), np.int64)
    private = np.zeros((runs, k))
    regret = np.zeros(runs)
    arm = np.zeros(runs, np.int64)
    for t in range(horizon):
        if t % f == 0:   # blocks are global and data-independent: a new one starts every f rounds
            n = np.maximum(counts, 1)
            index = private + np.sqrt(2 * math.log(max(t, 1)) / n)
            arm = _unplayed_first(index, counts, rng.random(runs))
        reward = rng.random(runs) < means[arm]
        sums[idx, arm] += reward
        counts[idx, arm] += 1
        regret += gaps[arm]
        if (t + 1) % f == 0:
            n = counts[idx, arm]
            private[idx, arm] = sums[idx, arm] / n + rng.laplace(size=runs) * n ** (float(v) / 2 - 1)
    return regret


# --------------------------------------------------------------------------- DP-FTPL-New (seed 003)

def numpy_dp_ftpl_new(means, runs, horizon, seed=0, epsilon=1.0, delta=0.01):
    """DP-FTPL-New (Wang & Zhu 2024, Algorithm 3), T = the horizon: one pull of each arm in arm order, then
    θ_i = x0_i ± V·L(Vq)/(n_i r) (sign by U < 1/2, V = |2U − 1|: the inverse CDF of the truncated Laplace law of
    Lemma 15), x0_i = R_i/n_i + sqrt(log T/n_i) + L_T/(n_i ε), argmax. q = (e^ε − 1)/(e^ε − 1 + 2δ),
    r = (e^ε − 1 + 2δ)ε/(e^ε − 1), L(y) = −log(1 − y)/y,
    L_T/ε = log(1 + (T − 2)(e^ε − 1)/(2(e^ε − 1) + 2Tδ))/ε (ε = 0: q = 0, r = 2δ, L_T/ε = (T − 2)/(2Tδ)).
    Bernoulli rewards are their own Agrawal–Goyal trials."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    T = float(horizon)
    e = math.expm1(epsilon)
    if epsilon > 0:
        q, r = e / (e + 2 * delta), (e + 2 * delta) * epsilon / e
        tail = math.log1p((T - 2) * e / (2 * e + 2 * T * delta)) / epsilon
    else:
        q, r, tail = 0.0, 2 * delta, (T - 2) / (2 * T * delta)
    ones = np.zeros((runs, k))
    n = np.zeros((runs, k))
    regret = np.zeros(runs)
    for t in range(horizon):
        if t < k:
            arm = np.full(runs, t)
        else:
            u = rng.random((runs, k))
            v = np.abs(2 * u - 1)
            y = (-np.log1p(-v * q) / q if q > 0 else v) / (n * r)
            x0 = ones / n + np.sqrt(math.log(T) / n) + tail / n
            arm = np.where(u < 0.5, x0 - y, x0 + y).argmax(axis=1)
        ones[rows, arm] += _pull(rng, means, arm)
        n[rows, arm] += 1
        regret += gaps[arm]
    return regret


# --------------------------------------------------------------------------- DPRSE (seed 004)

def _rse_schedule(n_active, epoch, epsilon, v, u, beta, theta):
    """(R_τ, B_τ, err_τ) of DPRSE's epoch τ: L_τ = log(4|S|τ²/β),
    R_τ = ⌈u^{1/v}(2θ)^{(1+v)/v} L_τ/(ε D_τ^{(1+v)/v}) + 1⌉, D_τ = 2^-τ, B_τ = (u R_τ ε/L_τ)^{1/(1+v)},
    err_τ = u^{1/(1+v)} (L_τ/(R_τ ε))^{v/(1+v)}."""
    tau = epoch.astype(np.float64)
    log_l = np.log(4 * n_active * tau * tau / beta)
    r = np.ceil(u ** (1 / v) * (2 * theta) ** ((1 + v) / v) * log_l / (epsilon * np.exp2(-tau) ** ((1 + v) / v)) + 1)
    return r, (u * r * epsilon / log_l) ** (1 / (1 + v)), u ** (1 / (1 + v)) * (log_l / (r * epsilon)) ** (v / (1 + v))


def numpy_dp_rse(means, runs, horizon, seed=0, epsilon=1.0, v=0.5, u=1.0, beta=0.0, theta=12.0):
    """DPRSE (Tao, Wu, Zhao & Wang 2022, Algorithm 3), float Laplace noise, β = 0 meaning 1/T: epoch τ pulls each of
    the |S| active arms R_τ times round-robin in arm order (R_τ capped so that R_τ|S| < 2^31), sums the rewards
    truncated at B_τ (zeroed above it), releases μ̃_a = sum/R_τ + Lap(2B_τ/(R_τ ε)) and keeps the arms with
    max μ̃ − μ̃_a ≤ θ err_τ; the epoch's rewards are then forgotten. One arm left: played to the end."""
    means, k, rng, rows, gaps = _setup(means, runs, seed)
    beta = beta if beta > 0 else 1.0 / horizon
    args = (epsilon, v, u, beta, theta)

    def start(n_active, epoch):
        r, bound, _ = _rse_schedule(n_active, epoch, *args)
        return np.minimum(r, (2 ** 31 - 1) // np.maximum(n_active, 1)).astype(np.int64), bound

    active = np.ones((runs, k), bool)
    sums = np.zeros((runs, k))
    epoch = np.ones(runs, np.int64)
    n_active = np.full(runs, k, np.int64)
    pulls, bound = start(n_active, epoch)
    count = np.zeros(runs, np.int64)
    length = pulls * n_active
    rank = np.broadcast_to(np.arange(k), (runs, k))
    regret = np.zeros(runs)
    for t in range(horizon):
        slot = count % np.maximum(n_active, 1)
        arm = np.argmax(active & (rank == slot[:, None]), axis=1)
        x = _pull(rng, means, arm)
        sums[rows, arm] += np.where(np.abs(x) <= bound, x, 0.0)
        regret += gaps[arm]
        count += 1
        ends = np.flatnonzero(count == length)
        if ends.size:
            act, e, r, b = active[ends], epoch[ends], pulls[ends].astype(np.float64), bound[ends]
            noisy = sums[ends] / r[:, None] + rng.laplace(size=(ends.size, k)) * (2 * b / (r * epsilon))[:, None]
            _, _, err = _rse_schedule(n_active[ends], e, *args)
            best = np.max(np.where(act, noisy, -np.inf), axis=1)
            keep = act & (best[:, None] - noisy <= theta * err[:, None])
            n_keep = keep.sum(axis=1)
            active[ends] = keep
            sums[ends] = 0.0
            epoch[ends] = e + 1
            n_active[ends] = n_keep
            pulls[ends], bound[ends] = start(n_keep, e + 1)
            length[ends] = np.where(n_keep > 1, pulls[ends] * n_keep, 0)
            count[ends] = 0
            rank = np.cumsum(active, axis=1) - 1
    return regret


# --------------------------------------------------------------------------- registry

CASES = {  # jaxbandit policy name -> its loop
    "thompson": numpy_thompson,
    "gaussian-thompson": numpy_gaussian_thompson,
    "modified-thompson": numpy_modified_thompson,
    "ucb1": numpy_ucb1,
    "klucb": numpy_klucb,
    "epsilon-greedy": numpy_epsilon_greedy,
    "dp-se": numpy_dp_se,
    "lazy-ucb": numpy_lazy_ucb,
    "ucb-cf": numpy_ucb_cf,
    "klucb-cf": numpy_klucb_cf,
    "ts-cf": numpy_ts_cf,
    "dp-ucb-bound": numpy_dp_ucb_bound,
    "dp-ucb": numpy_dp_ucb,
    "dp-ucb-int": numpy_dp_ucb_int,
    "dp-ftpl-new": numpy_dp_ftpl_new,
    "dp-rse": numpy_dp_rse,
}
