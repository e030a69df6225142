"""Audits of the private policies, each running the policy's own ``draw``/``select``/``update`` through the engine's
one step (`play`): a short reward table with one reward changed, and an event of the arms played or of one
decision. Such events are far from the worst case of the whole run, so their bounds are valid but not tight
(``tight=None``). Each is registered (`jaxbandit.registry.AUDITS`) with its planted bugs.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxbandit import engine, policies
from jaxbandit.audit.mechanisms import check_bug, counter_feature_names, number, reused
from jaxbandit.audit.montecarlo import Audit
from jaxbandit.mechanisms import counters, perturbations
from jaxbandit.mechanisms import laplace as laplace_noise
from jaxbandit.policies.ftpl import start_pulls
from jaxbandit.policies.robust import rucb_bound
from jaxbandit.random import samplers
from jaxbandit.registry import AUDITS
from jaxbandit.types import StepRandom

__all__ = ["play", "dp_rucb", "modified_thompson", "modified_thompson_run", "dp_se", "lazy_ucb", "adap_ucb", "adap_klucb", "gdp_elim_new", "linucb_jdp", "linucb_ldp"]


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


# ------------------------------------------------------------------------------------------------ policies
def _policy(name, num_arms, options=None, **params):
    return policies.make(name, num_arms, options=options, **params)


def _own_draw(policy, key, params):
    """A step's randomness as the engine gives it: the key, and the step's part of the policy's own block draw (so
    an audit runs the code path a simulation runs, pre-drawn noise included)."""
    k_step, k_block = jax.random.split(key)
    return StepRandom(k_step, jax.tree.map(lambda a: a[0], policy.draw(k_block, 1, params)))


def _claim(policy, params, horizon):
    """The policy's claim (its accountant) at these parameters: the audit's claim."""
    return policy.accountant.guarantee(params, horizon, policy.num_arms, policy.name)


def dp_rucb(bug=None, epsilon=1.0, v=0.5, u=2.0, release="discrete"):
    """Heavy-tailed DP bandits: DPRUCB: one arm's tree counter as the policy's own update fills it (truncation at B_n, 2B_n)."""
    check_bug("dp-rucb", bug)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    n = 4
    policy, params = _policy("dp-rucb", 1, {"release": release}, epsilon=eps, v=v, u=u, horizon=n)
    claim = _claim(policy, params, n)
    run_params = params._replace(sensitivity=jnp.asarray(1.0)) if bug == "wrong-sensitivity" else params
    x = float(rucb_bound(1, params))

    def features(key, side):
        laps = policy.draw(key, n, params)
        if bug == "noise-reused":
            laps = reused(laps)
        xs = jnp.zeros(n).at[0].set(jnp.where(side == 0, x, -x))

        def step(state, xz):
            obs, lap = xz
            state = policy.update(StepRandom(key, lap), state, jnp.int32(0), obs, run_params)
            return state, counters.tree_release(state.tree)[0]

        init = policy.init(params)
        _, released = jax.lax.scan(step, init._replace(step=jnp.int32(1)), (xs, laps))
        node = jnp.min(jnp.stack([released[0], released[1], released[3]]))  # item 1's nodes: Ŝ_1, Ŝ_2, Ŝ_4
        return jnp.concatenate([jnp.stack([node]), released])

    # Item 1 changes by 2B_1 in nodes whose scale covers 2B_c >= 2B_1 (B_n grows): its exact loss is below the claim.
    sens = [2 * float(rucb_bound(i, params)) for i in range(1, n + 1)]
    exact = float(counters.tree_privacy_loss(n, eps, sens, counters.tree_levels(n), counters.tree_levels(n))[0])
    return Audit("dp-rucb", "epsilon", claim.epsilon, 0.0, features, exact,
                 f"arm 0's first reward B_1 = {x:.4g} vs −B_1 (the others 0), T = {n}",
                 "arm 0's released sums after each of its 4 pulls", claim.source, bug=bug,
                 feature_names=counter_feature_names(n))


def modified_thompson(bug=None, b=4, c=2.0, release="tail-safe"):
    """TS is itself DP: modified TS, one round (its own draw and select): 1/sqrt(c(n_j+1))-GDP (App. A.2), μ-GDP
    audit."""
    check_bug("modified-thompson", bug)
    b = int(number("b", b, 0, 10**6))
    c = number("c", c, low_open=True, high_open=True)
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


def modified_thompson_run(bug=None, b=1, c=1.0, horizon=8, release="tail-safe"):
    """TS is itself DP: modified TS over a whole short run (the action sequence): sqrt(T/(c(b+1)))-GDP (Lemma 5)."""
    check_bug("modified-thompson-run", bug)
    b = int(number("b", b, 0, 10**6))
    c = number("c", c, low_open=True, high_open=True)
    T = int(number("horizon", horizon, 2, 16))
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
    check_bug("dp-se", bug)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
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
            lap = reused(laplace_noise.with_words(lap, key))  # (the words the release would draw, then reused)
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
    check_bug("lazy-ucb", bug)
    eps = number("epsilon", epsilon, low_open=True, high_open=True)
    policy, params = _policy("lazy-ucb", 2, {"release": release}, epsilon=eps)

    def features(key, side):
        rewards = jnp.asarray([[1.0, 0.5]] * 3).at[0, 0].set(jnp.where(side == 0, 1.0, 0.0))
        u, lap = policy.draw(key, 3, params)
        lap = reused(lap) if bug == "noise-reused" else lap  # one draw for every batch
        return play(policy, params, rewards, (u, lap)).astype(jnp.float32)

    return Audit("lazy-ucb", "epsilon", eps, 0.0, features, _lazy_exact(eps),
                 "arm 0's first reward 1 vs 0 (arm 1's rewards 0.5)", "the arms of rounds 1–3",
                 "Hu, Huang & Mehta 2021: each batch sum + Lap(1/ε), disjoint batches", categorical=True, bug=bug)


def _lazy_exact(eps):
    """Round 3 plays arm 0 iff x0 + L_a/ε > 0.5 + L_b/ε (equal batch sizes and bonuses; rounds 1–2 are in random
    order, independent of the data): its exact level over x0 ∈ {0, 1}."""
    return _binary_level(_laplace_difference_below(0.5 * eps), _laplace_difference_below(-0.5 * eps))


def _adap(name):
    def factory(bug=None, epsilon=1.0, release="discrete"):
        check_bug(name, bug)
        eps = number("epsilon", epsilon, low_open=True, high_open=True)
        policy, params = _policy(name, 2, {"release": release}, epsilon=eps)
        run_params = params._replace(epsilon=jnp.asarray(2 * eps)) if bug == "noise-halved" else params
        # Arm 0's episode of n pulls ends with this step's pull (reward 0.5): its sum is S on side 0 and S − 1 on side
        # 1 (one earlier reward 1 vs 0). Arm 1's released mean (S − ½)/n has n rewards behind it too, so both arms
        # have the same bonuses and the next episode plays arm 0 iff μ̃_0 > μ̃_1, i.e. Lap > ∓ε/2. n = 256 keeps the
        # kl index's optimistic mean inside [0, 1] (no clipping: the choice is the comparison of the means).
        n, total = 256, 77.0
        base = policy.init(params)
        states = [base._replace(inner=base.inner._replace(
            mean=jnp.asarray([0.0, (total - 0.5) / n]), size=jnp.asarray([n // 2, n], jnp.int32),
            counts=jnp.asarray([2 * n - 1, 2 * n], jnp.int32), sums=jnp.asarray([s - 0.5, 0.0]),
            arm=jnp.int32(0)), count=jnp.int32(n - 1), length=jnp.int32(n)) for s in (total, total - 1)]

        def features(key, side):
            state = jax.tree.map(lambda a, b: jnp.where(side == 0, a, b), *states)
            new = policy.update(_own_draw(policy, key, run_params), state, jnp.int32(0), jnp.float32(0.5), run_params)
            return jnp.stack([new.inner.arm.astype(jnp.float32)])

        exact = math.log(2 * math.exp(eps / 2) - 1)  # P(Lap > −ε/2) / P(Lap > ε/2)
        return Audit(name, "epsilon", eps, 0.0, features, exact,
                     f"one reward of arm 0's episode of n = {n} pulls, 1 vs 0 (arm 1's mean (S − ½)/n)",
                     "the next episode's arm", "Azize & Basu 2022, Theorem 6: each episode's mean + Lap(1/(εn)), "
                     "disjoint episodes", categorical=True, bug=bug)
    factory.__doc__ = (f"Azize & Basu 2022's {name}: the choice after an episode's release (its own update and "
                       "index), ε-DP.")
    return factory


adap_ucb = _adap("adap-ucb")
adap_klucb = _adap("adap-klucb")


def _dp_ucb(name):
    def factory(bug=None, epsilon=1.0, release="discrete"):
        check_bug(name, bug)
        eps = number("epsilon", epsilon, low_open=True, high_open=True)
        policy, params = _policy(name, 2, {"release": release}, epsilon=eps)
        claim = _claim(policy, params, 4)

        def features(key, side):
            rewards = jnp.asarray([[1.0, 0.5]] * 4).at[0, 0].set(jnp.where(side == 0, 1.0, 0.0))
            u, lap = policy.draw(key, 4, params)
            lap = reused(lap) if bug == "noise-reused" else lap  # one draw for every release
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
        check_bug(name, bug)
        dist = perturbations
        eps = number("epsilon", epsilon, high_open=True)
        dlt = number("delta", delta, 0.0, 1.0, high_open=True)
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
    check_bug("gdp-elim-new", bug)
    eps = number("epsilon", epsilon, high_open=True)
    dlt = number("delta", delta, 0.0, 1.0, high_open=True)
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


# The registrations (`jaxbandit.registry.AUDITS`): each audit with the planted bugs its default audit flags.
def linucb_jdp(bug=None, mu=1.0, delta=0.1, rounds=4):
    """JDP-LinUCB (Shariff & Sheffet 2018): the releases the other users' actions are computed from, as the
    policy's own ``update`` fills its tree (its clipping and its σ), d = 1, one round's (x, y) replaced: its
    accountant's μ-GDP (joint) claim; ``epsilon`` is set so that the claim is ``mu``."""
    from jaxbandit.audit.mechanisms import _gram_feature_names
    from jaxbandit.mechanisms import gram
    from jaxbandit.policies.private_linear import tree_size
    from jaxbandit.types import with_context
    check_bug("linucb-jdp", bug)
    level = number("mu", mu, low_open=True, high_open=True)
    dl = number("delta", delta, low_open=True, high=1.0, high_open=True)
    n = int(number("rounds", rounds, 2, 64))
    nodes = [(1 << j) - 1 for j in range(counters.tree_levels(n)) if 1 << j <= n]
    m = int(tree_size(n))
    eps = 4 * math.sqrt(m) * math.log(4 / dl) * level / math.sqrt(len(nodes))  # μ = √J ε/(4√m ln(4/δ))
    policy, params = _policy("linucb-jdp", 2, dim=1, epsilon=eps, delta=dl, horizon=float(n))
    params = engine.bind(policy, engine.SimParams(None, params, None), n).policy
    claim = _claim(policy, params, n)
    run = params
    if bug == "noise-halved":
        run = params._replace(epsilon=jnp.asarray(2 * eps, jnp.float32))
    elif bug == "no-clamp":  # clipped at 10 while the noise stays the one for bounds 1 (ε scaled as L̃² is)
        run = params._replace(feature_bound=jnp.asarray(10.0, jnp.float32), reward_bound=jnp.asarray(10.0, jnp.float32),
                              epsilon=jnp.asarray(eps * 100, jnp.float32))
    update = with_context(policy).update
    features_t = jnp.asarray([[10.0], [0.0]], jnp.float32)  # arm 0's feature 10, clipped to 1

    def features(key, side):
        rewards = jnp.zeros(n, jnp.float32).at[0].set(jnp.where(side == 0, 10.0, -10.0))  # clipped to ±1

        def step(state, kr):
            k, r = kr
            state = update(_own_draw(policy, k, run), state, jnp.int32(0), r, run, features_t)
            return state, gram.tree_release(state.tree, 0.0)

        _, released = jax.lax.scan(step, policy.init(run), (jax.random.split(key, n), rewards))
        upper = released[:, jnp.asarray([0, 0, 1]), jnp.asarray([0, 1, 1])]
        contrast = jnp.sum(jnp.stack([released[t, 0, 1] for t in nodes]))
        return jnp.concatenate([contrast[None], upper.reshape(-1)])

    return Audit("linucb-jdp", "mu", float(claim.mu), 0.0, features, float(claim.mu),
                 f"round 1's reward 10 vs −10 (clipped to ±1) with feature 10 (clipped to 1), {n} rounds",
                 f"the Gram releases M̃_1..M̃_{n} (2×2) the other users' actions are computed from", claim.source,
                 tight=0.85, bug=bug, feature_names=_gram_feature_names(n))


def _report_policy(name, epsilon_of_mu, what, extra=None):
    """The audit of a private LinUCB whose server adds each user's Gaussian report to its sums, through the
    policy's own ``update`` (its clipping and its σ), d = 2, one user's (x, y) replaced; ``epsilon_of_mu(μ, δ)``
    sets ``epsilon`` so that the report is μ-GDP."""
    def audit(bug=None, mu=1.0, delta=0.1):
        from jaxbandit.audit.mechanisms import REPORT_FEATURES, _REPORT_SIDES, _report_change
        from jaxbandit.types import with_context
        check_bug(name, bug)
        level = number("mu", mu, low_open=True, high_open=True)
        dl = number("delta", delta, low_open=True, high=1.0, high_open=True)
        eps = epsilon_of_mu(level, dl)
        policy, params = _policy(name, 2, dim=2, epsilon=eps, delta=dl, horizon=100.0, **(extra or {}))
        params = engine.bind(policy, engine.SimParams(None, params, None), 100).policy
        claim = _claim(policy, params, 100)
        run, scale = params, 1.0
        if bug == "noise-halved":
            run = params._replace(epsilon=jnp.asarray(2 * eps, jnp.float32))
        elif bug == "no-clamp":  # clipped at 10 while the noise stays the one for bounds 1 (ε scaled as Δ is)
            ratio = math.sqrt(2 * 10 ** 4 + 4 * 10 ** 4) / math.sqrt(6)
            run = params._replace(feature_bound=jnp.asarray(10.0, jnp.float32),
                                  reward_bound=jnp.asarray(10.0, jnp.float32),
                                  epsilon=jnp.asarray(eps * ratio, jnp.float32))
            scale = 3.0
        update = with_context(policy).update
        rows = jnp.asarray(_REPORT_SIDES, jnp.float32) * scale

        def features(key, side):
            row = rows[side]
            feats = jnp.stack([row[:2], jnp.zeros(2, jnp.float32)])
            state = update(_own_draw(policy, key, run), policy.init(run), jnp.int32(0), row[2], run, feats)
            return jnp.concatenate([state.gram[jnp.asarray([0, 0, 1]), jnp.asarray([0, 1, 1])], state.xr])

        return Audit(name, "mu", level, 0.0, features, _report_change(_REPORT_SIDES) / (math.sqrt(6) / level),
                     "one user's (x, y) = (e₁, 1) vs (x at cosine 0.4 to e₁, −1), d = 2", what, claim.source,
                     tight=0.8, bug=bug, feature_names=REPORT_FEATURES)
    audit.__doc__ = (f"{name}: {what}, as the policy's own ``update`` makes it (its clipping and its σ), d = 2, one "
                     "user's (x, y) replaced; the report is μ-GDP at the level audited (``epsilon`` set for it).")
    return audit


# LDP-LinUCB (Zheng et al. 2020): σ = Δ √(2 ln(1.25/δ))/ε, so μ = Δ/σ = ε/√(2 ln(1.25/δ)); its claim is that μ.
linucb_ldp = _report_policy("linucb-ldp", lambda mu, dl: mu * math.sqrt(2 * math.log(1.25 / dl)),
                            "the report the server adds to its sums (x xᵀ + σB, y x + σξ)")
# SDP-Amp (Chowdhury & Zhou 2022) in batches of one: the server's folded sums are the one report, σ = Δ √(ln(2.5/δ))/ε,
# μ = ε/√(ln(2.5/δ)); the shuffle claim of a batch of one is the report's (amplification needs more users).
linucb_sdp_amp = _report_policy("linucb-sdp-amp", lambda mu, dl: mu * math.sqrt(math.log(2.5 / dl)),
                                "the batch of one report the server folds into its sums", {"batch": 1.0})


AUDITS.register("dp-rucb", dp_rucb, bugs=("wrong-sensitivity", "noise-reused"))
AUDITS.register("modified-thompson", modified_thompson, bugs=("noise-halved",))
AUDITS.register("modified-thompson-run", modified_thompson_run)
AUDITS.register("dp-se", dp_se, bugs=("noise-reused",))
AUDITS.register("lazy-ucb", lazy_ucb, bugs=("noise-reused",))
AUDITS.register("adap-ucb", adap_ucb, bugs=("noise-halved",))
AUDITS.register("adap-klucb", adap_klucb, bugs=("noise-halved",))
AUDITS.register("dp-ucb", _dp_ucb("dp-ucb"), bugs=("noise-reused",))
AUDITS.register("dp-ucb-bound", _dp_ucb("dp-ucb-bound"), bugs=("noise-reused",))
AUDITS.register("dp-ucb-int", _dp_ucb("dp-ucb-int"), bugs=("noise-reused",))
AUDITS.register("gdp-elim-new", gdp_elim_new, bugs=("noise-reused",))
AUDITS.register("dp-ftpl-gauss", _ftpl("dp-ftpl-gauss"), bugs=("no-start-phase",))
AUDITS.register("dp-ftpl-beta", _ftpl("dp-ftpl-beta"), bugs=("no-pseudo-counts",))
AUDITS.register("dp-ftpl-new", _ftpl("dp-ftpl-new"), bugs=("noise-halved",))
AUDITS.register("linucb-jdp", linucb_jdp, bugs=("noise-halved", "no-clamp"))
AUDITS.register("linucb-ldp", linucb_ldp, bugs=("noise-halved", "no-clamp"))
AUDITS.register("linucb-sdp-amp", linucb_sdp_amp, bugs=("noise-halved", "no-clamp"))
