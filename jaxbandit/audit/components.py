"""The audited private components: for each one, its neighbouring inputs, what is observed, the claim and its
source, the exact level where it can be computed, and its planted bugs (`jaxbandit audit NAME`).

Every audit runs the library's own code — the privatizer's ``apply``, the counter's ``insert``/``release``, the
estimator of `jaxbandit.mechanisms.truncated_mean`, or a policy's own ``draw``/``select``/``update`` — so that it audits what
the simulations run. A factory ``(bug=None, **params) -> Audit`` builds one audit; ``bug`` names a deliberately
broken variant from `BUGS` (the audit must flag it: tests/test_audit.py), whose claim stays the honest one:

  noise-halved       the privacy noise at half its scale (or the mechanism run at 2ε)
  wrong-sensitivity  noise calibrated to half the true sensitivity
  noise-reused       one noise draw used for several releases (across arms, or across insertions)
  no-clamp           the input clamp / truncation skipped, on inputs that need it
  no-start-phase     DP-FTPL-Gauss sampling from the first pull (its start phase is what makes it private)
  no-pseudo-counts   DP-FTPL-Beta's Beta draw without the pseudo-counts (without them Lemma 8 fails)

Neighbours are worst-case where the paper says so (the extremes of the input range for the local channels, the
item lying in the most nodes for the counters). Policy-level audits fix a short reward table and change one
reward; their events (a decision of one round) are far from the worst case of the whole run, so their bounds are
valid but not tight (``tight=None``).
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import checks, engine, policies
from jaxbandit.audit.montecarlo import Audit
from jaxbandit.mechanisms import bernoulli as bernoulli_channel
from jaxbandit.mechanisms import counters, perturbations, truncated_mean as robust
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.policies.ftpl import start_pulls
from jaxbandit.policies.robust import RUCBState, rucb_bound
from jaxbandit.privatizers import bernoulli
from jaxbandit.privatizers import randomized_response as rr
from jaxbandit.random import samplers
from jaxbandit.registry import Registry
from jaxbandit.types import StepRandom

__all__ = ["REGISTRY", "BUGS", "BUG_DESCRIPTIONS", "names", "make", "play"]

#: What each planted bug (`--bug NAME`) does to the component.
BUG_DESCRIPTIONS = {
    "noise-halved": "privacy noise at half its scale (mechanism run at 2ε)",
    "wrong-sensitivity": "noise calibrated to half the true sensitivity",
    "noise-reused": "one noise draw reused for several releases",
    "no-clamp": "input clamp / truncation skipped",
    "no-start-phase": "DP-FTPL-Gauss's start phase computed as one pull",
    "no-pseudo-counts": "DP-FTPL-Beta's select without its pseudo-counts",
}


def _check_bug(component: str, bug) -> None:
    if bug is not None and bug not in BUGS[component]:
        raise ValueError(f"bug={bug!r} is not a planted bug of audit {component!r}; valid: {list(BUGS[component])}")


def _float(name, value, low=0.0, high=math.inf, **kw) -> float:
    return float(checks.in_range(name, value, low, high, **kw))


def _laplace(release) -> str:
    laplace_noise.check_release(release)
    return release


def _reuse(noise):
    """The planted bug "noise-reused": every release of the draw gets the first one's randomness."""
    def first(x, keep_last):
        lead = x.ndim - keep_last
        return jnp.broadcast_to(x[(0,) * lead], x.shape)
    if isinstance(noise, laplace_noise.Noise):
        noise = laplace_noise.resolved(noise)
        return laplace_noise.Noise(first(noise.laplace, 0), first(noise.bits, 1), noise.discrete)
    return first(noise, 0)


def _one_step_noise(policy, key, params):
    return jax.tree.map(lambda x: x[0], policy.draw(key, 1, params))


def play(policy, params, streams, noise):
    """The arms ``policy`` plays when arm a's j-th pull returns ``streams[j, a]`` (one reward stream per arm: the
    neighbour relation of bandit DP changes one entry) and round t's block noise is ``noise[t]``: its own ``select``
    and ``update``, stepped by the engine's one step (`jaxbandit.engine.step`) under ``lax.scan`` (traceable)."""
    num_arms = streams.shape[1]

    def step(carry, nz):
        state, pulls = carry
        rng = StepRandom(jax.random.key(0), nz)
        state, arm, _ = engine.step(policy, rng, state, params, lambda arm: (streams[pulls[arm], arm], None))
        return (state, pulls.at[arm].add(1)), arm

    rounds = jax.tree.leaves(noise)[0].shape[0]
    carry = (policy.init(params), jnp.zeros(num_arms, jnp.int32))
    return jax.lax.scan(step, carry, noise, length=rounds)[1]


# ------------------------------------------------------------------------------------ local channels (000, 002)
def _bernoulli(mechanism):
    def factory(bug=None, epsilon=1.0, b=0.0):
        _check_bug(mechanism, bug)
        eps = _float("epsilon", epsilon, low_open=True, high_open=True)
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
    _check_bug("randomized-response", bug)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
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
    _check_bug("local-laplace", bug)
    mode = _laplace(release)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
    B = _float("bound", bound, low_open=True, high_open=True)
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
    _check_bug("central-laplace-mean", bug)
    mode = _laplace(release)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
    B = _float("bound", bound, low_open=True, high_open=True)
    R = int(_float("pulls", pulls, 1, 10**6))
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
    _check_bug("tree-counter", bug)
    mode = _laplace(release)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
    delta = _float("sensitivity", sensitivity, low_open=True, high_open=True)
    n = int(_float("items", items, 2, 64))
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
                 feature_names=_counter_names(n))


def hybrid_counter(bug=None, epsilon=1.0, release="discrete"):
    """The hybrid counter of Chan, Shi & Song 2011 (DP-UCB's, Tossou & Dimitrakakis 2016): ε-DP for items in [0, 1]."""
    _check_bug("hybrid-counter", bug)
    mode = _laplace(release)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
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
                 "+ ε/2 (binary) per item", tight=0.9, bug=bug, feature_names=_counter_names(n))


def _counter_names(n):
    return ("min over the item's released nodes",) + tuple(f"Ŝ_{t}" for t in range(1, n + 1))


def _scan_counter(insert, release, n, item, delta, nodes, bug, init_state, mode):
    def features(key, side):
        laps = laplace_noise.draw(key, (n,), mode)
        if bug == "noise-reused":  # one draw for every insertion
            laps = _reuse(laps)
        xs = jnp.zeros(n).at[item - 1].set(jnp.where(side == 0, delta, 0.0))

        def step(state, xz):
            state = insert(state, *xz)
            return state, release(state)

        _, released = jax.lax.scan(step, init_state, (xs, laps))
        padded = jnp.concatenate([jnp.zeros(1), released])
        node = jnp.min(jnp.stack([padded[t] - padded[s] for t, s in nodes]))
        return jnp.concatenate([jnp.stack([node]), released])
    return features


# ------------------------------------------------------------------------------------------------ policies
def _policy(name, num_arms, options=None, **params):
    return policies.make(name, num_arms, options=options, **params)


def _claim(policy, params, horizon):
    """The policy's claim (its accountant) at these parameters: the audit's claim."""
    return policy.accountant.guarantee(params, horizon, policy.num_arms, policy.name)


def dp_rucb(bug=None, epsilon=1.0, v=0.5, u=2.0, release="discrete"):
    """Heavy-tailed DP bandits: DPRUCB: one arm's tree counter as the policy's own update fills it (truncation at B_n, 2B_n)."""
    _check_bug("dp-rucb", bug)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
    n = 4
    policy, params = _policy("dp-rucb", 1, {"release": release}, epsilon=eps, v=v, u=u, horizon=n)
    claim = _claim(policy, params, n)
    run_params = params._replace(sensitivity=jnp.asarray(1.0)) if bug == "wrong-sensitivity" else params
    x = float(rucb_bound(1, params))

    def features(key, side):
        laps = policy.draw(key, n, params)
        if bug == "noise-reused":
            laps = _reuse(laps)
        xs = jnp.zeros(n).at[0].set(jnp.where(side == 0, x, -x))

        def step(state, xz):
            obs, lap = xz
            state = policy.update(StepRandom(key, lap), state, jnp.int32(0), obs, run_params)
            return state, counters.tree_release(state.tree)[0]

        init = policy.init(params)
        _, released = jax.lax.scan(step, RUCBState(init.tree, init.counts, jnp.int32(1)), (xs, laps))
        node = jnp.min(jnp.stack([released[0], released[1], released[3]]))  # item 1's nodes: Ŝ_1, Ŝ_2, Ŝ_4
        return jnp.concatenate([jnp.stack([node]), released])

    # Item 1 changes by 2B_1 in nodes whose scale covers 2B_c >= 2B_1 (B_n grows): its exact loss is below the claim.
    sens = [2 * float(rucb_bound(i, params)) for i in range(1, n + 1)]
    exact = float(counters.tree_privacy_loss(n, eps, sens, counters.tree_levels(n), counters.tree_levels(n))[0])
    return Audit("dp-rucb", "epsilon", claim.epsilon, 0.0, features, exact,
                 f"arm 0's first reward B_1 = {x:.4g} vs −B_1 (the others 0), T = {n}",
                 "arm 0's released sums after each of its 4 pulls", claim.source, bug=bug,
                 feature_names=_counter_names(n))


def modified_thompson(bug=None, b=4, c=2.0, release="tail-safe"):
    """TS is itself DP: modified TS, one round (its own draw and select): 1/sqrt(c(n_j+1))-GDP (App. A.2), μ-GDP
    audit."""
    _check_bug("modified-thompson", bug)
    b = int(_float("b", b, 0, 10**6))
    c = _float("c", c, low_open=True, high_open=True)
    policy, params = _policy("modified-thompson", 2, {"release": release}, b=b, c=c)
    big = 10**6  # arm 1 known almost exactly: "arm 0 played" is a threshold event on θ_0
    base = policy.init(params)._replace(counts=jnp.asarray([b, big]), step=jnp.int32(2 * b))
    scale = 0.5 if bug == "noise-halved" else 1.0
    claim = 1 / math.sqrt(c * (b + 1))
    exact = (1 / (b + 1)) / math.sqrt(c / (b + 1) + c / (big + 1))  # shift of θ_0 − θ_1 over its sd

    def features(key, side):
        s0 = jnp.where(side == 0, 3.0, 2.0)
        state = base._replace(sums=jnp.asarray([0.0, 0.5 * (big + 1)]).at[0].set(s0))
        arm = policy.select(StepRandom(key, scale * policy.draw(key, 1, params)[0]), state, params)
        return jnp.stack([arm.astype(jnp.float32)])

    return Audit("modified-thompson", "mu", claim, 0.0, features, exact,
                 f"arm 0's sum after b = {b} pre-pulls, 3 vs 2 (one reward changed)", "the arm played",
                 "Ou, Avella Medina & Cummings 2024 (seed 001), App. A.2: a round is 1/sqrt(c(b+1))-GDP",
                 categorical=True, tight=0.9, bug=bug)


def gaussian_noisy_max(bug=None, sensitivity=1.0, scale=1.0, release="tail-safe"):
    """ReportNoisyMax with heterogeneous Gaussian noise (TS is itself DP, Algorithm 4): max_i s_i/σ_i-GDP when one
    score changes (`jaxbandit.accounting.noisy_max`), μ-GDP audit of `jaxbandit.mechanisms.noisy_max.gaussian`."""
    from jaxbandit.accounting import noisy_max as noisy_max_privacy
    from jaxbandit.mechanisms import noisy_max
    from jaxbandit.mechanisms import normal as normal_noise
    _check_bug("gaussian-noisy-max", bug)
    s = _float("sensitivity", sensitivity, low_open=True, high_open=True)
    sigma = _float("scale", scale, low_open=True, high_open=True)
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


def modified_thompson_run(bug=None, b=1, c=1.0, horizon=8, release="tail-safe"):
    """TS is itself DP: modified TS over a whole short run (the action sequence): sqrt(T/(c(b+1)))-GDP (Lemma 5)."""
    _check_bug("modified-thompson-run", bug)
    b = int(_float("b", b, 0, 10**6))
    c = _float("c", c, low_open=True, high_open=True)
    T = int(_float("horizon", horizon, 2, 16))
    policy, params = _policy("modified-thompson", 2, {"release": release}, b=b, c=c)
    claim = _claim(policy, params, T).mu

    def features(key, side):
        rewards = jnp.tile(jnp.asarray([0.0, 0.5]), (T, 1)).at[0, 0].set(jnp.where(side == 0, 1.0, 0.0))
        arms = play(policy, params, rewards, policy.draw(key, T, params))
        return arms.astype(jnp.float32)

    return Audit("modified-thompson-run", "mu", claim, 0.0, features, None,
                 f"arm 0's first reward 1 vs 0 (arm 1's rewards 0.5), b = {b}", f"the {T} arms played",
                 "Ou, Avella Medina & Cummings 2024 (seed 001), Lemma 5 / Theorem 4", categorical=True, trials=100_000,
                 bug=bug)


def dp_se(bug=None, epsilon=0.5, release="discrete"):
    """DP-SE (Sajed & Sheffet 2019): the elimination at the end of epoch 1 (the policy's own update), ε-DP."""
    _check_bug("dp-se", bug)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
    policy, params = _policy("dp-se", 2, {"release": release}, epsilon=eps, beta=0.5)
    base = policy.init(params)
    R = int(base.inner.pulls)
    l8, l4 = math.log(8 * 2 / 0.5), math.log(4 * 2 / 0.5)
    width = math.sqrt(l8 / (2 * R)) + l4 / (eps * R)
    # The last pull (arm 1, reward 0.5) closes epoch 1; arm 1 is then eliminated iff L0 − L1 > ε(R/2 − s0), so the
    # sums s0 = R/2 ± 1/2 (one reward apart) put the threshold at ∓ε/2.
    s1 = R / 2 - 0.5 - 2 * width * R
    states = [base._replace(inner=base.inner._replace(sums=jnp.asarray([s0, s1])), count=jnp.int32(2 * R - 1))
              for s0 in (R / 2 + 0.5, R / 2 - 0.5)]

    def features(key, side):
        lap = _one_step_noise(policy, key, params)
        if bug == "noise-reused":  # one draw for both arms: it cancels in the comparison
            lap = _reuse(laplace_noise.with_words(lap, key))  # (the words the release would draw, then reused)
        state = jax.tree.map(lambda a, b: jnp.where(side == 0, a, b), *states)
        new = policy.update(StepRandom(key, lap), state, jnp.int32(1), jnp.float32(0.5), params)
        return jnp.stack([new.inner.active[1].astype(jnp.float32)])

    exact = _binary_level(_laplace_difference_below(0.5 * eps), _laplace_difference_below(-0.5 * eps))
    return Audit("dp-se", "epsilon", eps, 0.0, features, exact,
                 f"one reward of arm 0 in epoch 1 (R = {R}): sums R/2 + 1/2 vs R/2 − 1/2", "whether arm 1 is eliminated",
                 "Sajed & Sheffet 2019, Theorem 3.1: each epoch mean + Lap(1/(εR)), disjoint epochs", categorical=True,
                 bug=bug)


def _laplace_difference_below(d):
    """P(L1 − L0 < d) for independent standard Laplace L0, L1: 1 − ½e^{−d}(1 + d/2) for d ≥ 0 (symmetric)."""
    tail = 0.5 * math.exp(-abs(d)) * (1 + abs(d) / 2)
    return 1 - tail if d >= 0 else tail


def _binary_level(p0, p1):
    """The exact level of a binary output with P(1) = p0 on side 0 and p1 on side 1."""
    return max(abs(math.log(p0 / p1)), abs(math.log((1 - p0) / (1 - p1))))


def lazy_ucb(bug=None, epsilon=1.0, release="discrete"):
    """Anytime-Lazy-UCB (Hu, Huang & Mehta 2021): round 3's choice after one batch per arm (its own select), ε-DP."""
    _check_bug("lazy-ucb", bug)
    eps = _float("epsilon", epsilon, low_open=True, high_open=True)
    policy, params = _policy("lazy-ucb", 2, {"release": release}, epsilon=eps)

    def features(key, side):
        rewards = jnp.asarray([[1.0, 0.5]] * 3).at[0, 0].set(jnp.where(side == 0, 1.0, 0.0))
        u, lap = policy.draw(key, 3, params)
        lap = _reuse(lap) if bug == "noise-reused" else lap  # one draw for every batch
        return play(policy, params, rewards, (u, lap)).astype(jnp.float32)

    return Audit("lazy-ucb", "epsilon", eps, 0.0, features, _lazy_exact(eps),
                 "arm 0's first reward 1 vs 0 (arm 1's rewards 0.5)", "the arms of rounds 1–3",
                 "Hu, Huang & Mehta 2021: each batch sum + Lap(1/ε), disjoint batches", categorical=True, bug=bug)


def _lazy_exact(eps):
    """Round 3 plays arm 0 iff x0 + L_a/ε > 0.5 + L_b/ε (equal batch sizes and bonuses; rounds 1–2 are in random
    order, independent of the data): its exact level over x0 ∈ {0, 1}."""
    return _binary_level(_laplace_difference_below(0.5 * eps), _laplace_difference_below(-0.5 * eps))


def _dp_ucb(name):
    def factory(bug=None, epsilon=1.0, release="discrete"):
        _check_bug(name, bug)
        eps = _float("epsilon", epsilon, low_open=True, high_open=True)
        policy, params = _policy(name, 2, {"release": release}, epsilon=eps)
        claim = _claim(policy, params, 4)

        def features(key, side):
            rewards = jnp.asarray([[1.0, 0.5]] * 4).at[0, 0].set(jnp.where(side == 0, 1.0, 0.0))
            u, lap = policy.draw(key, 4, params)
            lap = _reuse(lap) if bug == "noise-reused" else lap  # one draw for every release
            return play(policy, params, rewards, (u, lap)).astype(jnp.float32)

        return Audit(name, "epsilon", claim.epsilon, claim.delta, features, None,
                     "arm 0's first reward 1 vs 0 (its later ones 1, arm 1's 0.5)", "the arms of rounds 1–4",
                     claim.source,
                     categorical=True, bug=bug)
    factory.__doc__ = f"Tossou & Dimitrakakis 2016's {name} over 4 rounds (its own select and update): its claim."
    return factory


def _ftpl_state(policy, params, ones, counts):
    return policy.init(params)._replace(ones=jnp.asarray(ones, jnp.float32), counts=jnp.asarray(counts, jnp.int32),
                                        step=jnp.asarray(min(sum(counts), 2 ** 31 - 1), jnp.int32))


def _ftpl(name):
    def factory(bug=None, epsilon=1.0, delta=0.01):
        _check_bug(name, bug)
        dist = perturbations
        eps = _float("epsilon", epsilon, high_open=True)
        dlt = _float("delta", delta, 0.0, 1.0, high_open=True)
        T = 1000.0
        extra = {"horizon": T} if name == "dp-ftpl-new" else {}
        policy, params = _policy(name, 2, epsilon=eps, delta=dlt, **extra)
        claim = _claim(policy, params, int(T))
        run_params = params
        if name == "dp-ftpl-new":
            n, r = 5, 2
            if bug == "noise-halved":
                run_params = params._replace(epsilon=jnp.asarray(2 * eps))
        else:
            n, r = int(start_pulls(name, eps, dlt)), 0
            if bug == "no-start-phase":  # the start phase computed as one pull: the first sampled step is at n = 1
                run_params, n = params._replace(delta=jnp.asarray(0.5)), 1
        # Where θ_0 lies on side 0 (ones r of n): its mean and standard deviation, for the menu of arm 1's points.
        if name == "dp-ftpl-gauss":
            centre, sd = r / n, math.sqrt(2 / n)
        elif name == "dp-ftpl-beta":
            k = n // 8 + 1
            a, b = r + 1 + k, n - r + 1 + k
            centre, sd = a / (a + b), math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        else:
            centre = r / n + math.sqrt(math.log(T) / n) + float(dist.tail_log(T, eps, dlt)) / n
            sd = float(dist.new_half_width(n, eps, dlt)) / 2
        # Arm 1 has n = 2^30 pulls (its float "ones" may leave [0, n]), so its θ is (nearly) a point x and "arm 1 chosen" is the event {θ_0 <= x}; one
        # feature per x of a data-independent menu (around θ_0's law, and geometric towards 0), same draw for all.
        big = 2 ** 30
        menu = np.concatenate([centre + sd * np.linspace(-6, 6, 49), np.geomspace(1e-6, 1, 25)])
        ones1 = np.round((menu - (math.sqrt(math.log(T) / big) if name == "dp-ftpl-new" else 0)) * big)
        states = [_ftpl_state(policy, params, [r0, 0], [n, big]) for r0 in (r, r + 1)]

        def features(key, side):
            noise = _one_step_noise(policy, key, run_params)
            state = jax.tree.map(lambda a, b: jnp.where(side == 0, a, b), *states)

            def choose(o1):
                st = state._replace(ones=state.ones.at[1].set(o1))
                if bug == "no-pseudo-counts":  # Beta(R + 1, n − R + 1): the select without its pseudo-counts
                    a = st.ones + 1
                    theta = samplers.beta(key, a, (st.counts - st.ones + 1).astype(a.dtype), noise[0])
                    return jnp.argmax(theta).astype(jnp.float32)
                return policy.select(StepRandom(key, noise), st, run_params).astype(jnp.float32)

            return jax.vmap(choose)(jnp.asarray(ones1, jnp.float32))

        return Audit(name, "epsilon", claim.epsilon, claim.delta, features, None,
                     f"arm 0's ones after n = {n} pulls, {r} vs {r + 1} (one reward changed); arm 1 at n = 2^30",
                     "the arm chosen in one step, against a menu of arm 1's points", claim.source, bug=bug,
                     feature_names=tuple(f"arm 1 chosen with arm 1 at {x:.4g}" for x in menu))
    factory.__doc__ = f"DP-FTPL: {name}, one step (its own select): one-step (ε, δ)-DP (Lemma 8)."
    return factory


def gdp_elim_new(bug=None, epsilon=1.0, delta=0.01):
    """DP-FTPL: GDP-Elim-New: the commit decision at the end of phase 1 (its own update), (ε, δ)-global DP."""
    _check_bug("gdp-elim-new", bug)
    eps = _float("epsilon", epsilon, high_open=True)
    dlt = _float("delta", delta, 0.0, 1.0, high_open=True)
    T = 1000.0
    policy, params = _policy("gdp-elim-new", 2, epsilon=eps, delta=dlt, horizon=T)
    claim = _claim(policy, params, int(T))
    base = policy.init(params)
    N = int(base.inner.pulls)
    # The last pull of phase 1 (arm 1, reward 0) closes it; arm 0 commits iff θ_0 ≥ θ_1 + 1/2. Its sums, one
    # reward apart, put the noise-free difference μ̂_0 − μ̂_1 at 1/2 ± 1/(2N).
    s1 = 0.25 * N
    states = [base._replace(inner=base.inner._replace(sums=jnp.asarray([s1 + 0.5 * N + d, s1])),
                            count=jnp.int32(2 * N - 1)) for d in (0.5, -0.5)]

    def features(key, side):
        u = jax.random.uniform(key, (2,))
        if bug == "noise-reused":  # one uniform for both arms: the same shift, which cancels in θ_0 − θ_1
            u = jnp.full((2,), u[0])
        state = jax.tree.map(lambda a, b: jnp.where(side == 0, a, b), *states)
        new = policy.update(StepRandom(key, u), state, jnp.int32(1), jnp.float32(0.0), params)
        return jnp.stack([new.inner.committed.astype(jnp.float32)])

    return Audit("gdp-elim-new", "epsilon", claim.epsilon, claim.delta, features, None,
                 f"one reward of arm 0 in phase 1 (N(1) = {N}): μ̂_0 − μ̂_1 = 1/2 ± 1/(2N)",
                 "the commit decision (arm or none)", claim.source, categorical=True, bug=bug)


#: The audits by name (`jaxbandit audit --list`): every private component, as an `Audit` factory.
REGISTRY = Registry("audit", {
    "linear": _bernoulli("linear"),
    "quadratic": _bernoulli("quadratic"),
    "exponential": _bernoulli("exponential"),
    "randomized-response": randomized_response,
    "local-laplace": local_laplace,
    "central-laplace-mean": central_laplace_mean,
    "tree-counter": tree_counter,
    "hybrid-counter": hybrid_counter,
    "dp-rucb": dp_rucb,
    "modified-thompson": modified_thompson,
    "modified-thompson-run": modified_thompson_run,
    "gaussian-noisy-max": gaussian_noisy_max,
    "dp-se": dp_se,
    "lazy-ucb": lazy_ucb,
    "dp-ucb": _dp_ucb("dp-ucb"),
    "dp-ucb-bound": _dp_ucb("dp-ucb-bound"),
    "dp-ucb-int": _dp_ucb("dp-ucb-int"),
    "gdp-elim-new": gdp_elim_new,
    "dp-ftpl-gauss": _ftpl("dp-ftpl-gauss"),
    "dp-ftpl-beta": _ftpl("dp-ftpl-beta"),
    "dp-ftpl-new": _ftpl("dp-ftpl-new"),
})


# The planted bugs of each audit: the ones its default audit flags (tests/test_audit.py checks every pair).
BUGS = {
    "linear": ("noise-halved",), "quadratic": ("noise-halved",), "exponential": ("noise-halved",),
    "randomized-response": ("noise-halved", "no-clamp"),
    "local-laplace": ("noise-halved", "no-clamp"),
    "central-laplace-mean": ("wrong-sensitivity", "no-clamp"),
    "tree-counter": ("noise-halved", "wrong-sensitivity", "noise-reused"),
    "hybrid-counter": ("noise-halved", "wrong-sensitivity", "noise-reused"),
    "dp-rucb": ("wrong-sensitivity", "noise-reused"),
    "modified-thompson": ("noise-halved",),
    "modified-thompson-run": (),
    "gaussian-noisy-max": ("noise-halved",),
    "dp-se": ("noise-reused",),
    "lazy-ucb": ("noise-reused",),
    "dp-ucb": ("noise-reused",),
    "dp-ucb-bound": ("noise-reused",),
    "dp-ucb-int": ("noise-reused",),
    "gdp-elim-new": ("noise-reused",),
    "dp-ftpl-gauss": ("no-start-phase",),
    "dp-ftpl-beta": ("no-pseudo-counts",),
    "dp-ftpl-new": ("noise-halved",),
}


def names() -> list[str]:
    """The audits' names."""
    return REGISTRY.names()


def make(name: str, bug: str | None = None, **params) -> Audit:
    """The audit of component ``name`` (a planted ``bug`` from `BUGS`, or ``None``) with its parameters."""
    import inspect
    import warnings
    factory = REGISTRY[name]
    valid = [p for p in inspect.signature(factory).parameters if p != "bug"]
    if "noise" in params and "release" in valid and "release" not in params:  # the 0.3 spelling
        noise = params.pop("noise")
        default = inspect.signature(factory).parameters["release"].default
        params["release"] = "float" if float(noise) == 0 else default
        warnings.warn(f"audit parameter noise={noise:g} is now release={params['release']!r} (noise is deprecated)",
                      DeprecationWarning, stacklevel=2)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"audit {name!r} has no parameter {', '.join(unknown)}; valid: {valid}")
    return factory(bug=bug, **params)
