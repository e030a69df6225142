"""Audits of the privacy mechanisms, each running the mechanism's own code: the local channels (seed 000's Bernoulli
mechanisms, seed 002's randomized response, seed 004's LDPRSE Laplace channel), the central releases (DPRSE's
epoch mean), the binary-tree and hybrid counters, and Gaussian ReportNoisyMax; and the helpers that the policies'
audits (`jaxbandit.audit.policies`) share. Each is registered (`jaxbandit.registry.AUDITS`) with its planted bugs;
the components that release through a mechanism list its audit in their own registration.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks
from jaxbandit.audit.montecarlo import Audit
from jaxbandit.mechanisms import bernoulli as bernoulli_channel
from jaxbandit.mechanisms import counters, truncated_mean as robust
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.privatizers import bernoulli
from jaxbandit.privatizers import randomized_response as rr
from jaxbandit.registry import AUDITS
from jaxbandit.types import StepRandom

__all__ = ["randomized_response", "local_laplace", "central_laplace_mean", "tree_counter", "hybrid_counter",
           "gaussian_noisy_max", "gram_tree_gaussian", "gram_tree_wishart", "gram_local_report", "check_bug", "number", "laplace_release", "reused", "counter_feature_names"]


def check_bug(component: str, bug) -> None:
    """A clear error where ``bug`` is not one of audit ``component``'s registered planted bugs."""
    if bug is not None and bug not in AUDITS.entry(component).bugs:
        raise ValueError(f"bug={bug!r} is not a planted bug of audit {component!r}; valid: "
                         f"{list(AUDITS.entry(component).bugs)}")


def number(name, value, low=0.0, high=math.inf, **kw) -> float:
    """An audit parameter as a float, checked to lie in [low, high] (`jaxbandit.checks.in_range`)."""
    return float(checks.in_range(name, value, low, high, **kw))


def laplace_release(release) -> str:
    """``release``, checked to be one of the Laplace releases (`jaxbandit.mechanisms.laplace`)."""
    laplace_noise.check_release(release)
    return release


def reused(noise):
    """The planted bug "noise-reused": every release of the draw gets the first one's randomness."""
    def first(x, keep_last):
        lead = x.ndim - keep_last
        return jnp.broadcast_to(x[(0,) * lead], x.shape)
    if isinstance(noise, laplace_noise.Noise):
        noise = laplace_noise.resolved(noise)
        return laplace_noise.Noise(first(noise.laplace, 0), first(noise.bits, 1), noise.discrete)
    return first(noise, 0)


# ------------------------------------------------------------------------------------ local channels (000, 002)
def _bernoulli(mechanism):
    def factory(bug=None, epsilon=1.0, b=0.0):
        check_bug(mechanism, bug)
        eps = number("epsilon", epsilon, low_open=True, high_open=True)
        params = (bernoulli.QuadraticParams(jnp.asarray(eps), jnp.asarray(float(b))) if mechanism == "quadratic"
                  else bernoulli.EpsilonParams(jnp.asarray(eps)))
        priv = {"linear": bernoulli.LINEAR, "quadratic": bernoulli.QUADRATIC, "exponential": bernoulli.EXPONENTIAL}
        priv = priv[mechanism]
        priv.validate(params)
        run_params = params._replace(epsilon=jnp.asarray(2 * eps)) if bug == "noise-halved" else params
        exact = bernoulli_channel.ldp_ratio(bernoulli_channel.realized_probability(mechanism, jnp.asarray([0.0, 1.0]), params))

        def features(key, side):
            reward = side.astype(jnp.float32)  # side 0: r = 0, side 1: r = 1 (where the level is attained)
            y = priv.apply(StepRandom(key, jax.random.uniform(key)), 0, reward, run_params)
            return jnp.stack([y])

        claim = priv.accountant.guarantee(params, 1, 1, mechanism)  # the privatizer's own claim: ε-LDP
        return Audit(mechanism, "epsilon", claim.epsilon, 0.0, features, exact,
                     "the user's reward r = 0 vs r = 1", "the privatized bit Y", claim.source,
                     categorical=True, tight=0.9, bug=bug)
    factory.__doc__ = (f"LDP Thompson sampling: the {mechanism} Bernoulli mechanism, ε-LDP bit (exact level from its "
                       "realized probabilities).")
    return factory


def randomized_response(bug=None, epsilon=1.0):
    """Corrupt bandits: randomized response at its ε-optimal channel: ε-LDP (exact level of the channel as realized)."""
    check_bug("randomized-response", bug)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    stored = rr.epsilon_optimal(eps)
    chosen = rr.epsilon_optimal(2 * eps) if bug == "noise-halved" else stored
    run = rr.RRParams(jnp.asarray(chosen["p00"], jnp.float32), jnp.asarray(chosen["p11"], jnp.float32))
    high = 2.0 if bug == "no-clamp" else 1.0

    def apply(key, reward):
        if bug == "no-clamp":  # the channel's threshold without clamping the input into [0, 1]
            t0, t1 = rr.thresholds(run.p00, run.p11)
            return (jax.random.uniform(key) < t0 + (t1 - t0) * reward).astype(jnp.float32)
        return rr.RANDOMIZED_RESPONSE.apply(StepRandom(key, jax.random.uniform(key)), 0, reward, run)

    def features(key, side):
        return jnp.stack([apply(key, side.astype(jnp.float32) * high)])

    # the privatizer's own claim for the channel as stored: its exact level, ε rounded down (at most ε)
    claim = rr.ACCOUNTANT.guarantee(rr.RRParams(*(np.asarray(v) for v in stored.values())), 1, 1, "randomized-response")
    return Audit("randomized-response", "epsilon", claim.epsilon, 0.0, features,
                 float(rr.channel.realized_level(stored["p00"], stored["p11"])),
                 f"the user's reward 0 vs {high:g}" + (" (out of range: the clamp makes it 1)" if high > 1 else ""),
                 "the reported bit", "Wang et al. 2016 / Corrupt bandits Eq. 5: randomized response with "
                 f"p00 = p11 = e^ε/(1 + e^ε) is ε-LDP; {claim.source}", categorical=True, tight=0.9, bug=bug)


def local_laplace(bug=None, epsilon=1.0, bound=1.0, release="discrete"):
    """Heavy-tailed DP bandits: LDP channel (LDPRSE, Algorithm 4): x·1{|x| <= B} + Lap(2B/ε), ε-LDP over all real inputs."""
    check_bug("local-laplace", bug)
    mode = laplace_release(release)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    B = number("bound", bound, low_open=True, high_open=True)
    x = 4 * B if bug == "no-clamp" else B  # beyond B the channel truncates to 0: a no-clamp bug shows there
    scale_eps = 2 * eps if bug == "noise-halved" else eps  # Lap(B/ε): the proof's typo

    def features(key, side):
        reward = jnp.where(side == 0, x, -x).astype(jnp.float32)
        lap = laplace_noise.draw(key, (), mode)
        if bug == "no-clamp":  # the channel without its truncation: the release of x itself
            scale = robust.local_scale(B, scale_eps)
            report = laplace_noise.released(reward + scale * lap.laplace, reward, scale, 2 * B, lap)
        else:
            report = robust.local_report(reward, B, scale_eps, lap)
        return jnp.stack([report])

    return Audit("local-laplace", "epsilon", eps, 0.0, features,
                 robust.channel_level(B, robust.local_scale(B, eps)),
                 f"one user's reward {x:g} vs {-x:g}", "the report x̂",
                 "Tao et al. 2022 (seed 004), Theorem 6: Lap(2B/ε) on the truncated reward is ε-LDP",
                 tight=0.9, bug=bug, feature_names=("report",))


# -------------------------------------------------------------------------------------- central mechanisms
def central_laplace_mean(bug=None, epsilon=1.0, bound=1.0, pulls=10, release="discrete"):
    """Heavy-tailed DP bandits: DPRSE epoch release (Algorithm 3): mean of R truncated rewards + Lap(2B/(Rε)), ε-DP."""
    check_bug("central-laplace-mean", bug)
    mode = laplace_release(release)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    B = number("bound", bound, low_open=True, high_open=True)
    R = int(number("pulls", pulls, 1, 10**6))
    x = 4 * B if bug == "no-clamp" else B

    def features(key, side):
        rewards = jnp.zeros(R).at[0].set(jnp.where(side == 0, x, -x))
        lap = laplace_noise.draw(key, (), mode)
        if bug == "wrong-sensitivity":   # Lap(B/(Rε)) for a mean of sensitivity B/R: the scale of B, not 2B
            m = jnp.mean(robust.truncate(rewards, B))
            mean = laplace_noise.released(m + B / (R * eps) * lap.laplace, m, B / (R * eps), B / R, lap)
        elif bug == "no-clamp":
            mean = robust.central_release(jnp.mean(rewards), B, R, eps, lap)
        else:
            mean = robust.central_mean(rewards, B, eps, lap)
        return jnp.stack([mean])

    return Audit("central-laplace-mean", "epsilon", eps, 0.0, features,
                 robust.central_level(B, R, robust.central_scale(B, R, eps)),
                 f"one of R = {R} rewards {x:g} vs {-x:g} (the others 0)", "the released mean μ̃",
                 "Tao et al. 2022 (seed 004), Theorem 3: the epoch mean has sensitivity 2B/R", tight=0.9, bug=bug,
                 feature_names=("released mean",))


def tree_counter(bug=None, epsilon=1.0, sensitivity=1.0, items=4, release="discrete"):
    """The binary-tree counter (Dwork et al. 2010; Heavy-tailed DP bandits, Algorithm 2) at depth ⌊log₂n⌋ + 1: ε-DP."""
    check_bug("tree-counter", bug)
    mode = laplace_release(release)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    delta = number("sensitivity", sensitivity, low_open=True, high_open=True)
    n = int(number("items", items, 2, 64))
    levels = counters.tree_levels(n)
    run_eps = 2 * eps if bug == "noise-halved" else eps
    run_sens = delta / 2 if bug == "wrong-sensitivity" else delta

    def insert(state, x, z):
        state = counters.tree_init(levels=levels) if state is None else state
        return counters.tree_insert(state, x, z, run_eps, sensitivity=run_sens, depth=levels)

    nodes = [(1 << j, 0) for j in range(levels) if 1 << j <= n]  # item 1's nodes: Ŝ_{2^j} is one node
    features = _scan_counter(insert, counters.tree_release, n, 1, delta, nodes, bug, counters.tree_init(levels=levels),
                             mode)
    exact = float(counters.tree_privacy_loss(n, eps, delta, levels, levels)[0])
    return Audit("tree-counter", "epsilon", eps, 0.0, features, exact,
                 f"item 1 of {n} changed by Δ = {delta:g} (it lies in {len(nodes)} nodes)",
                 f"the prefix releases Ŝ_1..Ŝ_{n}", "Dwork, Naor, Pitassi & Rothblum 2010 / Chan, Shi & Song 2011: "
                 f"each of an item's ≤ {levels} nodes is ε/{levels}-DP (Lap(Δ·{levels}/ε))", tight=0.9, bug=bug,
                 feature_names=counter_feature_names(n))


def hybrid_counter(bug=None, epsilon=1.0, release="discrete"):
    """The hybrid counter of Chan, Shi & Song 2011 (DP-UCB's, Tossou & Dimitrakakis 2016): ε-DP for items in [0, 1]."""
    check_bug("hybrid-counter", bug)
    mode = laplace_release(release)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    n, item = 4, 3  # item 2^k + 1 (k = 1) lies in one p-sum and one logarithmic segment: ε/2 + ε/2
    run_eps = 2 * eps if bug == "noise-halved" else eps
    run_sens = 0.5 if bug == "wrong-sensitivity" else 1.0

    def insert(state, x, z):
        return counters.hybrid_insert(state, x, z, run_eps, sensitivity=run_sens)

    features = _scan_counter(insert, counters.hybrid_release, n, item, 1.0, [(3, 2), (4, 2)], bug,
                             counters.hybrid_init(), mode)
    exact = float(counters.hybrid_privacy_loss(n, eps)[item - 1])
    return Audit("hybrid-counter", "epsilon", eps, 0.0, features, exact,
                 f"item {item} of {n} changed by 1 (one p-sum and one logarithmic segment)",
                 f"the prefix releases Ŝ_1..Ŝ_{n}", "Chan, Shi & Song 2011, the hybrid mechanism: ε/2 (logarithmic) "
                 "+ ε/2 (binary) per item", tight=0.9, bug=bug, feature_names=counter_feature_names(n))


def counter_feature_names(n):
    """The features of a counter's audit: the least released node holding the item, then each prefix release."""
    return ("min over the item's released nodes",) + tuple(f"Ŝ_{t}" for t in range(1, n + 1))


def _scan_counter(insert, release, n, item, delta, nodes, bug, init_state, mode):
    def features(key, side):
        laps = laplace_noise.draw(key, (n,), mode)
        if bug == "noise-reused":  # one draw for every insertion
            laps = reused(laps)
        xs = jnp.zeros(n).at[item - 1].set(jnp.where(side == 0, delta, 0.0))

        def step(state, xz):
            state = insert(state, *xz)
            return state, release(state)

        _, released = jax.lax.scan(step, init_state, (xs, laps))
        padded = jnp.concatenate([jnp.zeros(1), released])
        node = jnp.min(jnp.stack([padded[t] - padded[s] for t, s in nodes]))
        return jnp.concatenate([jnp.stack([node]), released])
    return features



def gaussian_noisy_max(bug=None, sensitivity=1.0, scale=1.0, release="tail-safe"):
    """ReportNoisyMax with heterogeneous Gaussian noise (TS is itself DP, Algorithm 4): max_i s_i/σ_i-GDP when one
    score changes (`jaxbandit.accounting.noisy_max`), μ-GDP audit of `jaxbandit.mechanisms.noisy_max.gaussian`."""
    from jaxbandit.accounting import noisy_max as noisy_max_privacy
    from jaxbandit.mechanisms import noisy_max
    from jaxbandit.mechanisms import normal as normal_noise
    check_bug("gaussian-noisy-max", bug)
    s = number("sensitivity", sensitivity, low_open=True, high_open=True)
    sigma = number("scale", scale, low_open=True, high_open=True)
    checks.known_name("normal release", release, normal_noise.RELEASES)
    scales = jnp.asarray([sigma, sigma / 1000])  # score 1 is data-independent and nearly exact: a threshold event
    claim = float(noisy_max_privacy.gaussian_mu(jnp.asarray([s, 0.0]), scales))
    exact = s / math.hypot(sigma, sigma / 1000)
    used = scales * (0.5 if bug == "noise-halved" else 1.0)

    def features(key, side):
        scores = jnp.asarray([0.0, 0.0]).at[0].set(jnp.where(side == 0, s, 0.0))
        arm = noisy_max.gaussian(scores, used, normal_noise.normal(key, (2,), release))
        return jnp.stack([arm.astype(jnp.float32)])

    return Audit("gaussian-noisy-max", "mu", claim, 0.0, features, exact,
                 f"score 0 (sensitivity {s:g}, σ = {sigma:g}) at {s:g} vs 0; score 1 = 0, σ = {sigma / 1000:g}",
                 "the index released", "Ou, Avella Medina & Cummings 2024 (seed 001), Algorithm 4: a Gaussian "
                 "mechanism on the one changed score, post-processed (Dong, Roth & Su 2022)",
                 categorical=True, tight=0.9, bug=bug)


# ---------------------------------------------------------------------- private Gram matrices (Shariff & Sheffet)
def _gram_tree_features(n, sides, node, bug, clip):
    """The audit trials of S&S's tree of augmented Gram releases (d = 1: 2×2 matrices), rows 2..n zero and row 1
    ``sides[side]``, clipped (`gram.clip_row`) unless the bug says not: the n releases' upper triangles, and the
    optimal statistic for the off-diagonal change the sides make, the sum over row 1's nodes (Ŝ_{2^j}) of their
    off-diagonal entry."""
    from jaxbandit.mechanisms import gram
    rows = jnp.asarray(sides, jnp.float32)
    nodes = [(1 << j) - 1 for j in range(counters.tree_levels(n)) if 1 << j <= n]

    def features(key, side):
        noise = jax.vmap(node)(jax.random.split(key, n))
        if bug == "noise-reused":
            noise = reused(noise)
        first = rows[side]
        first = first if bug == "no-clamp" else clip(first)
        vs = jnp.zeros((n, 2), jnp.float32).at[0].set(first)

        def step(state, vz):
            state = gram.tree_insert(state, *vz)
            return state, gram.tree_release(state, 0.0)

        _, released = jax.lax.scan(step, gram.tree_init(1, jnp.float32), (vs, noise))
        upper = released[:, jnp.asarray([0, 0, 1]), jnp.asarray([0, 1, 1])]
        contrast = jnp.sum(jnp.stack([released[t, 0, 1] for t in nodes]))
        return jnp.concatenate([contrast[None], upper.reshape(-1)])
    return features, len(nodes)


def _gram_feature_names(n):
    return ("Σ over row 1's nodes of the off-diagonal entry",) + tuple(
        f"M̃_{t}[{i}]" for t in range(1, n + 1) for i in ("x²", "xy", "y²"))


def gram_tree_gaussian(bug=None, mu=1.0, items=4):
    """Shariff & Sheffet (2018) §4.2: the tree of augmented Gram releases with symmetrized Gaussian node noise
    σ (Z + Zᵀ)/√2, rows clipped to x ∈ [−1, 1], y ∈ [−1, 1] (L̃² = 2): μ-GDP with μ = √J L̃²/σ for a row in J
    nodes (`jaxbandit.policies.private_linear`); σ set here so that μ is the given level."""
    from jaxbandit.mechanisms import gram
    check_bug("gram-tree-gaussian", bug)
    level = number("mu", mu, low_open=True, high_open=True)
    n = int(number("items", items, 2, 64))
    nodes = len([j for j in range(counters.tree_levels(n)) if 1 << j <= n])
    sigma = math.sqrt(nodes) * 2.0 / level  # L̃² = 2
    run_sigma = sigma / 2 if bug == "noise-halved" else sigma
    node = lambda key: gram.node_noise(key, "gaussian", 1, jnp.float32(run_sigma), 0.0, jnp.float32)
    clip = lambda v: gram.clip_row(v[:1], v[1], 1.0, 1.0)
    sides = [[2.0, 2.0], [2.0, -2.0]]  # clipped: (1, 1) vs (1, −1), an off-diagonal change of 2 = √2 L̃²/√2·√2
    features, count = _gram_tree_features(n, sides, node, bug, clip)
    return Audit("gram-tree-gaussian", "mu", level, 0.0, features, level,
                 f"row 1 of {n} (x, y) = (2, 2) vs (2, −2), clipped to (1, ±1) (it lies in {count} nodes)",
                 f"the releases M̃_1..M̃_{n} (2×2, upper triangles)", "Shariff & Sheffet 2018, §4.2: each node "
                 f"(L̃²/σ)-GDP for a replaced row, σ = {sigma:.4g}; {count} nodes compose to √{count}·L̃²/σ "
                 "(Dong, Roth & Su 2022, Cor. 3.3)", tight=0.85, bug=bug, feature_names=_gram_feature_names(n))


def gram_tree_wishart(bug=None, epsilon=0.5, delta=1e-3, bound=20.0, items=2):
    """Shariff & Sheffet (2018) §4.1: the tree of augmented Gram releases with Wishart node noise L̃² W_2(I, k),
    rows clipped to |x|, |y| ≤ ``bound`` (L̃² = 2·bound²), k = Sheffet's for a node at (``epsilon``, δ/J) (Thm 4.1):
    the claim is the composition over a row's J nodes (`profiles.SelfComposed`) at ``delta``. Sheffet's bound is
    loose, so the audit reaches little of it; its bugs are gross: rows not clipped, and the noise scaled by L̃
    where the theorem needs L̃² (the draft's §4.1 misprint)."""
    from jaxbandit.accounting import profiles
    from jaxbandit.mechanisms import gram, releases
    check_bug("gram-tree-wishart", bug)
    eps0 = number("epsilon", epsilon, low_open=True, high=1.0, high_open=True)
    dl = number("delta", delta, low_open=True, high=math.exp(-1), high_open=True)
    b = number("bound", bound, low_open=True, high_open=True)
    n = int(number("items", items, 2, 64))
    nodes = len([j for j in range(counters.tree_levels(n)) if 1 << j <= n])
    k = releases.WishartRelease.dof_for(2, eps0, dl / nodes)
    claim = profiles.SelfComposed(profiles.Wishart(2, float(k)), nodes).epsilon_at(dl)
    lt2 = 2 * b * b
    scale = math.sqrt(lt2) if bug == "scale-not-squared" else lt2
    node = lambda key: gram.node_noise(key, "wishart", 1, jnp.float32(scale), float(k), jnp.float32)
    clip = lambda v: gram.clip_row(v[:1], v[1], b, b)
    sides = [[10 * b, 10 * b], [10 * b, -10 * b]]
    features, count = _gram_tree_features(n, sides, node, bug, clip)
    return Audit("gram-tree-wishart", "epsilon", claim, dl, features, None,
                 f"row 1 of {n} (x, y) = ({10 * b:g}, ±{10 * b:g}), clipped to ({b:g}, ±{b:g}) (in {count} nodes)",
                 f"the releases M̃_1..M̃_{n} (2×2, upper triangles)", "Shariff & Sheffet 2018, §4.1: each node "
                 f"Sheffet's Wishart mechanism, k = {k} ((ε₀, δ/{count})-DP, Sheffet 2015 Thm 4.1), composed over "
                 f"{count} nodes (Kairouz, Oh & Viswanath 2015, Thm 3.5)", tight=None, bug=bug,
                 feature_names=_gram_feature_names(n))


# A user whose x is e₁ with reward 1 against one whose x is at cosine 0.4 to it with reward −1: the largest change of
# a d = 2 report (upper triangle of x xᵀ, and y x) for unit bounds, ≈ 2.085 (the claim's Δ = √6 bounds it).
_REPORT_SIDES = ((1.0, 0.0, 1.0), (0.4, math.sqrt(1 - 0.16), -1.0))


def _report_change(sides):
    (a1, a2, y), (b1, b2, z) = sides
    m = lambda x1, x2: np.array([x1 * x1, x1 * x2, x2 * x2])
    return float(np.sqrt(np.sum((m(a1, a2) - m(b1, b2)) ** 2) + (y * a1 - z * b1) ** 2 + (y * a2 - z * b2) ** 2))


def report_features(report):
    """A d = 2 report (M, m) as its five numbers: the upper triangle of M, then m."""
    matrix, vector = report
    return jnp.concatenate([matrix[jnp.asarray([0, 0, 1]), jnp.asarray([0, 1, 1])], vector])


REPORT_FEATURES = ("M[1,1]", "M[1,2]", "M[2,2]", "m[1]", "m[2]")


def gram_local_report(bug=None, mu=1.0):
    """Zheng et al. (2020): one user's Gaussian report (x xᵀ + σB, y x + σξ) of its clipped (x, y), ‖x‖ ≤ 1,
    |y| ≤ 1 (`gram.local_report`): (Δ/σ)-GDP with Δ = √6 (`gram.report_sensitivity`); σ set so that μ is the given
    level. The bound Δ = √6 is not attained: the largest change of a report is ≈ 2.085 (the audited sides)."""
    from jaxbandit.mechanisms import gram
    check_bug("gram-local-report", bug)
    level = number("mu", mu, low_open=True, high_open=True)
    delta = float(gram.report_sensitivity(1.0, 1.0))
    sigma = delta / level
    run_sigma = sigma / 2 if bug == "noise-halved" else sigma
    scale = 3.0 if bug == "no-clamp" else 1.0  # unclipped inputs 3× the bounds (the bug: the clip is skipped)
    rows = jnp.asarray(_REPORT_SIDES, jnp.float32) * scale

    def features(key, side):
        row = rows[side]
        bounds = (10.0, 10.0) if bug == "no-clamp" else (1.0, 1.0)
        return report_features(gram.local_report(key, row[:2], row[2], jnp.float32(run_sigma), *bounds))

    return Audit("gram-local-report", "mu", level, 0.0, features, _report_change(_REPORT_SIDES) / sigma,
                 "one user's (x, y) = (e₁, 1) vs (x at cosine 0.4 to e₁, −1), d = 2",
                 "the user's report (x xᵀ + σB, y x + σξ)", "Zheng, Cai, Huang, Li & Wang 2020: the Gaussian "
                 f"mechanism, σ = {sigma:.4g} for Δ = √6 (Dong, Roth & Su 2022, Thm 2.7)", tight=0.8, bug=bug,
                 feature_names=REPORT_FEATURES)


def vector_sum(bug=None, epsilon=1.0, delta=1e-3):
    """Chowdhury & Zhou's SDP-Vec (Cheu et al.'s binomial vector sum): the sums the analyzer sees of one batch of one
    user, (L_c/g)(rounded values + Bin(b, p)) per coordinate (`gram.vector_sum_encode`, `gram.vector_sum_noise`),
    d = 2, g = 16, one user's (x, y) = (e₁, 1) vs (e₂, −1) (a change of ℓ2 norm 2 of the bound √6); b set so that
    the normal approximation to its sums is (ε, δ)-DP, the claim what `accounting.shuffle.BinomialSum` certifies at δ. Planted: the noise halved (b/4) and the binomial
    messages left out (rounding alone)."""
    from jaxbandit.accounting import shuffle
    from jaxbandit.mechanisms import gram
    check_bug("vector-sum", bug)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    dl = number("delta", delta, low_open=True, high=1.0, high_open=True)
    g, m = 16.0, 5
    shift = g * math.sqrt(6) + 2 * math.sqrt(m)
    profile = lambda b: shuffle.BinomialSum(b, 0.25, shift, min(int(shift), 32), m)
    trials = int(2 * math.log(1.25 / dl) * (shift / eps) ** 2 / 0.1875)  # the normal approximation's N for ε
    claim = profile(trials).epsilon_at(dl)  # what the bound certifies for that N
    run_trials = {"noise-halved": trials // 4, "no-binomial": 0}.get(bug, trials)
    rows = jnp.asarray([[1.0, 0.0, 1.0], [0.0, 1.0, -1.0]], jnp.float32)

    def features(key, side):
        k_round, k_noise = jax.random.split(key)
        row = rows[side]
        mm, mv = gram.vector_sum_encode(k_round, row[:2], row[2], jnp.float32(g), 1.0, 1.0)
        nm, nv = gram.vector_sum_noise(k_noise, 2, run_trials, 0.25, jnp.float32(g), 1.0, 1.0, jnp.float32)
        return report_features((mm + nm, mv + nv))

    return Audit("vector-sum", "epsilon", claim, dl, features, None,
                 "one user's (x, y) = (e₁, 1) vs (e₂, −1) in a batch of one, d = 2, g = 16",
                 f"the batch's decoded sums per coordinate, N = {trials} binomial trials",
                 "Chowdhury & Zhou 2022 (SDP-Vec; Cheu, Joseph, Mao & Peng 2022's vector sum): the shifted binomial's "
                 "exact moments, Chernoff bound (Canonne, Kamath & Steinke 2020, Prop. 12)", bug=bug,
                 feature_names=REPORT_FEATURES)


# The registrations (`jaxbandit.registry.AUDITS`): each audit with the planted bugs its default audit flags.
AUDITS.register("linear", _bernoulli("linear"), bugs=("noise-halved",))
AUDITS.register("quadratic", _bernoulli("quadratic"), bugs=("noise-halved",))
AUDITS.register("exponential", _bernoulli("exponential"), bugs=("noise-halved",))
AUDITS.register("randomized-response", randomized_response, bugs=("noise-halved", "no-clamp"))
AUDITS.register("local-laplace", local_laplace, bugs=("noise-halved", "no-clamp"))
AUDITS.register("central-laplace-mean", central_laplace_mean, bugs=("wrong-sensitivity", "no-clamp"))
AUDITS.register("tree-counter", tree_counter, bugs=("noise-halved", "wrong-sensitivity", "noise-reused"))
AUDITS.register("hybrid-counter", hybrid_counter, bugs=("noise-halved", "wrong-sensitivity", "noise-reused"))
AUDITS.register("gaussian-noisy-max", gaussian_noisy_max, bugs=("noise-halved",))
AUDITS.register("vector-sum", vector_sum, bugs=("noise-halved", "no-binomial"))
AUDITS.register("gram-tree-gaussian", gram_tree_gaussian, bugs=("noise-halved", "no-clamp", "noise-reused"))
AUDITS.register("gram-tree-wishart", gram_tree_wishart, bugs=("no-clamp", "scale-not-squared"))
AUDITS.register("gram-local-report", gram_local_report, bugs=("noise-halved", "no-clamp"))
