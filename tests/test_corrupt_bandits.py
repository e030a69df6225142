"""Seed 002 (corrupt bandits): randomized response, the CF policies and their baselines (the DP-UCB family; its
continual-release counter is tested in test_counters.py), and the bounds. Oracles from
docs/spec/002_corrupt_bandits.md §6, written out here (not taken from the library)."""
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import policies, privatizers, theory
from jaxbandit.random import threefry
from jaxbandit.policies.corrupt import channel_params
from jaxbandit.policies.dp_ucb import block_length, dp_ucb_int_privacy
from jaxbandit.policies.ucb import klucb_index
from jaxbandit.mechanisms import counters
from jaxbandit.mechanisms import randomized_response as rr
from jaxbandit.types import StepRandom
from tests.helpers import assert_mean

EPSILONS = (1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8)
MAIN = [0.9] + [0.8] * 9
EXP61 = [0.6] + [0.9] * 9  # p00 = p11 per arm in Exp. 6.1


def kl64(x, y):
    if (y == 1 and x < 1) or (y == 0 and x > 0):
        return math.inf
    return sum(a * math.log(a / b) for a, b in [(x, y), (1 - x, 1 - y)] if a > 0)


def upper64(mean, level):
    """max{q in [mean, 1] : d(mean, q) <= level} by float64 bisection (100 halvings)."""
    lo, hi = mean, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if kl64(mean, mid) <= level else (lo, mid)
    return lo


# ----------------------------------------------------------------------------------------------- the channel

def feedback(p00, p11, rewards, seed=0):
    """F for each reward through `apply` (arm 0 of a per-arm channel), with fresh uniforms."""
    priv, params = privatizers.make("randomized-response", p00=p00, p11=p11)
    u = jax.random.uniform(threefry.key(seed), (len(rewards),))
    f = jax.jit(jax.vmap(lambda u, r: priv.apply(StepRandom(None, u), 0, r, params)))
    return np.asarray(f(u, jnp.asarray(rewards, jnp.float32)), np.float64)


@pytest.mark.parametrize("mu,p,lam", [(0.9, 0.6, 0.58), (0.8, 0.9, 0.74), (0.9, 0.9, 0.82)])
def test_corrupted_mean_matches_monte_carlo(mu, p, lam):
    n = 400_000
    rewards = (jax.random.uniform(threefry.key(1), (n,)) < mu).astype(jnp.float32)  # R, then F | R
    f = feedback([p], [p], np.asarray(rewards), seed=2)
    assert rr.mean_map(mu, p, p) == pytest.approx(lam, abs=1e-12)
    assert_mean(f, lam, var=lam * (1 - lam), what=f"F for mu={mu}, p={p}")


def test_conditional_frequencies_are_the_matrix_entries():
    n = 200_000
    for p00, p11 in [(0.6, 0.9), (0.2, 0.3), (0.95, 0.1)]:
        q00, q11 = rr.realized_probabilities(p00, p11)
        assert abs(q00 - p00) < 2e-7 and abs(q11 - p11) < 2e-7
        assert_mean(feedback([p00], [p11], np.zeros(n), 3), 1 - q00, var=q00 * (1 - q00), what="F | R=0")
        assert_mean(feedback([p00], [p11], np.ones(n), 4), q11, var=q11 * (1 - q11), what="F | R=1")


def test_matrix_and_inverse():
    rng = np.random.default_rng(0)
    p00, p11 = rng.uniform(0, 1, 50), rng.uniform(0, 1, 50)
    m = rr.corruption_matrix(p00, p11)
    assert m.shape == (50, 2, 2)
    np.testing.assert_allclose(m.sum(-2), 1.0, atol=1e-15)
    np.testing.assert_allclose(m[:, 1, 1], p11)
    np.testing.assert_allclose(m[:, 0, 0], p00)
    x = rng.uniform(0, 1, 50)
    np.testing.assert_allclose(rr.inverse_mean_map(rr.mean_map(x, p00, p11), p00, p11), x, atol=1e-9)
    # g(x) = Pr(F=1) = Σ_x' M(1, x') Pr(R = x')
    np.testing.assert_allclose(rr.mean_map(x, p00, p11), m[:, 1, 0] * (1 - x) + m[:, 1, 1] * x, atol=1e-15)
    # Unclipped inverse: exp 6.1's arm 1, g(x) = 0.4 + 0.2x, maps [0, 1] onto [-2, 3].
    assert rr.inverse_mean_map(0.0, 0.6, 0.6) == pytest.approx(-2) and rr.inverse_mean_map(1.0, 0.6, 0.6) == pytest.approx(3)


@pytest.mark.parametrize("eps", EPSILONS)
def test_optimal_channel_ratio_and_slope(eps):
    p = float(rr.optimal_p(eps))
    assert p / (1 - p) == pytest.approx(math.exp(eps), rel=1e-12)
    assert 2 * p - 1 == pytest.approx(math.tanh(eps / 2), abs=1e-15)
    assert (math.exp(eps) - 1) / (math.exp(eps) + 1) == pytest.approx(math.tanh(eps / 2), rel=1e-12)
    assert float(rr.ldp_level(p, p)) == pytest.approx(eps, rel=1e-12)
    stored = rr.epsilon_optimal(eps)
    assert float(rr.ldp_level(stored["p00"], stored["p11"])) <= eps  # rounded down: never above ε
    assert float(rr.realized_level(stored["p00"], stored["p11"])) <= eps
    assert float(stored["p00"]) == pytest.approx(p, abs=1.2e-7)


def test_spec_table_of_p_and_s():
    table_p = [.531209, .562177, .622459, .731059, .880797, .982014, .999665]
    table_s = [.062419, .124353, .244919, .462117, .761594, .964028, .999329]
    for eps, p, s in zip(EPSILONS, table_p, table_s):
        assert float(rr.optimal_p(eps)) == pytest.approx(p, abs=1e-6)
        assert float(rr.offset_slope(rr.optimal_p(eps), rr.optimal_p(eps))[1]) == pytest.approx(s, abs=1e-6)


def test_ldp_level_is_exact_and_catches_the_papers_blind_spot():
    np.testing.assert_allclose(rr.ldp_level([0.6, 0.9], [0.6, 0.9]), [math.log(1.5), math.log(9)], rtol=1e-12)
    # s < 0: the paper's max(p00/(1-p11), p11/(1-p00)) is below 1 here, the true level is |log| of it.
    p00, p11 = 0.2, 0.3
    paper = math.log(max(p00 / (1 - p11), p11 / (1 - p00)))
    level = float(rr.ldp_level(p00, p11))
    assert paper < 0 < level == pytest.approx(max(abs(math.log(p00 / (1 - p11))), abs(math.log(p11 / (1 - p00)))))
    # Against Definition 1 by brute force over every output set S, for random channels of 3 outputs too.
    rng = np.random.default_rng(1)
    for outputs in (2, 3):
        m = rng.dirichlet(np.ones(outputs), size=2).T  # columns = inputs
        worst = max(math.log(sum(m[y, a] for y in S) / sum(m[y, b] for y in S))
                    for a, b in itertools.permutations(range(2), 2)
                    for k in range(1, outputs + 1) for S in itertools.combinations(range(outputs), k))
        assert float(rr.channel_ldp_level(m)) == pytest.approx(worst, rel=1e-12)
    assert float(rr.ldp_level(1.0, 1.0)) == math.inf and float(rr.ldp_level(0.5, 0.7)) > 0


def test_realized_channel_never_exceeds_the_stored_level():
    rng = np.random.default_rng(2)
    p = rng.uniform(0, 1, (2, 2000)).astype(np.float32).astype(np.float64)
    p = p[:, np.abs(p.sum(0) - 1) > 1e-6]
    nominal, realized = rr.ldp_level(*p), rr.realized_level(*p)
    assert np.all(realized <= nominal)
    q00, q11 = rr.realized_probabilities(*p)
    assert np.all(np.abs(q00 - p[0]) <= 2 ** -23) and np.all(np.abs(q11 - p[1]) <= 2 ** -23)
    # Extreme channels: certain reports stay certain, tiny slopes collapse to a level-0 channel, never above.
    assert rr.realized_probabilities(1.0, 1.0) == (0.0 + 1.0, 1.0)
    assert float(rr.realized_level(0.5 + 2e-8, 0.5 + 2e-8)) <= float(rr.ldp_level(0.5 + 2e-8, 0.5 + 2e-8))
    # Values given in float64 are stored toward the interior: realized ≤ the level of the values given.
    for p00, p11 in [(0.6, 0.6), (0.9, 0.9), (float(rr.optimal_p(1.0)),) * 2, (0.2, 0.3), (0.3, 0.1)]:
        assert float(rr.realized_level(p00, p11)) <= float(rr.ldp_level(p00, p11))
    priv, params = privatizers.make("randomized-response", p00=0.6, p11=0.6)
    assert float(params.p00) <= 0.6 and float(rr.ldp_level(params.p00, params.p11)) <= math.log(1.5)


def test_bad_channels_are_rejected_before_compilation():
    for kwargs, pattern in [({"p00": 1.2}, "p00=1.2 .* valid range \\[0, 1\\]"),
                            ({"p11": -0.1}, "p11=-0.1 .* valid range"),
                            ({"p00": float("nan")}, "p00"),
                            ({"p00": 0.3, "p11": 0.7}, "p00 \\+ p11 = 1 .* not strictly monotone"),
                            ({"p00": [0.9, 0.5], "p11": [0.9, 0.5]}, "arm 1 .* not strictly monotone"),
                            ({"p00": 0.5, "p11": 0.5 + 1e-9}, "closer to 1 than the parameters' float resolution")]:
        with pytest.raises(ValueError, match=pattern):
            privatizers.make("randomized-response", **kwargs)
    with pytest.raises(ValueError, match="per-arm with 2 entries, but environment 'bernoulli' has 3 arms"):
        jb.simulate("bernoulli", "ucb1", env_params={"means": [0.1, 0.2, 0.3]}, privatizer="randomized-response",
                    privatizer_params={"p00": [0.9, 0.9], "p11": [0.9, 0.9]}, horizon=10, runs=1)
    with pytest.raises(ValueError, match="p00 must be a scalar or have one entry per arm \\(3\\)"):
        policies.make("klucb-cf", 3, p00=[0.9, 0.9], p11=0.9)
    with pytest.raises(ValueError, match="not strictly monotone"):
        policies.make("ts-cf", 2, p00=[0.9, 0.4], p11=[0.9, 0.6])
    with pytest.raises(ValueError, match="c=-1"):
        policies.make("klucb-cf", 2, c=-1.0)
    with pytest.raises(ValueError, match="epsilon"):
        rr.epsilon_optimal(0.0)


# ------------------------------------------------------------------------------------------- KL and indices

def test_bernoulli_kl_oracles():
    assert theory.bernoulli_kl(0.74, 0.82) == pytest.approx(0.01964437, abs=5e-9)
    # The spec prints d(0.8, 0.9) = 0.0444027; to 7 digits it is 0.0444030 (0.8 log(8/9) + 0.2 log 2).
    assert theory.bernoulli_kl(0.8, 0.9) == pytest.approx(0.8 * math.log(8 / 9) + 0.2 * math.log(2), rel=1e-14)
    assert theory.bernoulli_kl(0.8, 0.9) == pytest.approx(0.0444030, abs=5e-8)
    rng = np.random.default_rng(3)
    x, y = rng.uniform(0, 1, 1000), rng.uniform(0, 1, 1000)
    d = theory.bernoulli_kl(x, y)
    assert np.all(d >= 2 * (x - y) ** 2 - 1e-15)
    np.testing.assert_allclose(d, theory.bernoulli_kl(1 - x, 1 - y), rtol=1e-12)
    np.testing.assert_allclose(theory.bernoulli_kl(x, x), 0, atol=1e-15)
    assert theory.bernoulli_kl(0.3, 0.0) == math.inf and theory.bernoulli_kl(0.0, 0.0) == 0


def test_klucb_index_accuracy_over_the_whole_domain():
    rng = np.random.default_rng(4)
    means = np.concatenate([rng.uniform(0, 1, 300), np.arange(21) / 20, [1e-4, 1 - 1e-4]])
    levels = np.exp(rng.uniform(math.log(1e-4), math.log(30), len(means)))
    got = np.asarray(klucb_index(jnp.asarray(means, jnp.float32), jnp.asarray(levels, jnp.float32)))
    exact = np.array([upper64(float(m), float(l)) for m, l in zip(np.float32(means), np.float32(levels))])
    assert np.max(np.abs(got - exact)) < 1e-6
    # Closed forms and the defining equation.
    for n, f in [(3, 4.8), (100, 11.5)]:
        assert float(klucb_index(jnp.float32(0), jnp.float32(f / n))) == pytest.approx(1 - math.exp(-f / n), abs=1e-7)
        u = float(klucb_index(jnp.float32(0.3), jnp.float32(f / n)))
        assert n * kl64(0.3, u) == pytest.approx(f, rel=1e-4)
    assert float(klucb_index(jnp.float32(1), jnp.float32(0.5))) == 1.0
    us = [float(klucb_index(jnp.float32(0.4), jnp.float32(lv))) for lv in (0.01, 0.1, 1.0)]
    assert us == sorted(us)


@pytest.mark.slow
def test_kl_upper_bound_coverage_is_chernoff():
    """P(u < λ) for one arm with n samples is at most e^{-f} (Chernoff; the per-n term of Cappé et al.'s Lemma 2,
    spec §6 oracle 15), computed exactly over the binomial distribution of λ̂, for the feedback means of Exp. 6.1."""
    from scipy import stats
    for lam in (0.58, 0.74, 0.82):
        for n in (5, 50, 400):
            for f in (1.0, 3.0, 6.0):
                k = np.arange(n + 1)
                u = np.asarray(klucb_index(jnp.asarray(k / n, jnp.float32), jnp.float32(f / n)))
                miss = stats.binom.pmf(k, n, lam)[u < lam].sum()
                assert miss <= math.exp(-f) * (1 + 1e-6), (lam, n, f, miss)


def cf_index(policy_name, mean, n, t, p00, p11, c=3.0):
    """The paper's index in float64 (spec §2.1–2.2): g⁻¹(u) or g⁻¹(ℓ), kl or Hoeffding."""
    f = max(math.log(t) + c * math.log(math.log(t)), 0)
    o, s = 1 - p00, p00 + p11 - 1
    if policy_name == "klucb-cf":
        bound = upper64(mean, f / n) if s > 0 else 1 - upper64(1 - mean, f / n)
    else:
        bound = mean + math.sqrt(f / (2 * n)) * (1 if s > 0 else -1)
    return (bound - o) / s


@pytest.mark.parametrize("name", ["klucb-cf", "ucb-cf"])
def test_cf_index_maps_the_feedback_bound_back_through_g_inverse(name):
    p00 = np.array([0.6, 0.9, 0.2, 0.85])   # increasing, increasing, decreasing (s = -0.5), increasing
    p11 = np.array([0.6, 0.9, 0.3, 0.95])
    policy, params = policies.make(name, 4, p00=p00, p11=p11)
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(40):
        counts = rng.integers(1, 200, 4)
        sums = np.round(rng.uniform(0.05, 0.95, 4) * counts)
        t = int(counts.sum())
        index = [cf_index(name, s / n, n, t, a, b) for s, n, a, b in zip(sums, counts, p00, p11)]
        order = np.sort(index)
        if order[-1] - order[-2] < 1e-4:
            continue  # too close to call in float32
        state = policy.init(params)._replace(sums=jnp.asarray(sums, jnp.float32), counts=jnp.asarray(counts, jnp.int32))
        arm = int(policy.select(StepRandom(None, jnp.float32(0.5)), state, params))
        assert arm == int(np.argmax(index))
        seen.add(arm)
    assert len(seen) >= 3  # the decisions exercised several arms, the decreasing one included
    # kl interval inside the Hoeffding one (Pinsker), in feedback space.
    for mean, n, t in [(0.3, 10, 100), (0.74, 500, 5000)]:
        assert cf_index("klucb-cf", mean, n, t, 0.9, 0.9) <= cf_index("ucb-cf", mean, n, t, 0.9, 0.9)


def test_unplayed_arms_first_and_ties_at_random():
    policy, params = policies.make("klucb-cf", 3, p00=0.9, p11=0.9)
    state = policy.init(params)
    picks = {int(policy.select(StepRandom(None, jnp.float32(u)), state, params)) for u in (0.1, 0.5, 0.9)}
    assert picks == {0, 1, 2}
    tied = state._replace(sums=jnp.array([5.0, 5.0, 1.0]), counts=jnp.array([10, 10, 10]))
    picks = {int(policy.select(StepRandom(None, jnp.float32(u)), tied, params)) for u in (0.1, 0.9)}
    assert picks == {0, 1}


def run(policy, horizon, runs, channel=None, policy_params=None, means=MAIN, seed=0, privatizer=True):
    kw = dict(env="bernoulli", env_params={"means": means}, policy=policy, horizon=horizon, runs=runs, seed=seed,
              progress=False, policy_params=policy_params or {})
    if privatizer:
        kw.update(privatizer="randomized-response", privatizer_params=channel)
    return jb.simulate(**kw)


@pytest.mark.slow
def test_shared_increasing_channel_makes_cf_identical_to_naive():
    """Spec §2.4 key equivalence: with one increasing g for all arms, kl-UCB-CF = kl-UCB and TS-CF = TS on F."""
    ch = channel_params(0.731059, 0.731059, 10)
    for cf, naive, extra in [("klucb-cf", "klucb", {"c": 3.0}), ("ts-cf", "thompson", {})]:
        a = run(cf, 600, 16, ch, {**ch, **extra})
        b = run(naive, 600, 16, ch, extra)
        np.testing.assert_array_equal(a.counts, b.counts)
        np.testing.assert_array_equal(a.pseudo_regret, b.pseudo_regret)


@pytest.mark.slow
def test_decreasing_channel_fools_the_naive_learner_but_not_cf():
    """p00 = p11 = 0.2 flips the feedback (s = -0.6): naive kl-UCB plays the worst arm, kl-UCB-CF the best."""
    means = [0.9, 0.5, 0.2]
    ch = channel_params(0.2, 0.2, 3)
    horizon, runs = 3000, 20
    cf = run("klucb-cf", horizon, runs, ch, ch, means)
    naive = run("klucb", horizon, runs, ch, {"c": 3.0}, means)
    assert cf.counts[:, 0].mean() > 0.8 * horizon
    assert naive.counts[:, 2].mean() > 0.5 * horizon
    ts = run("ts-cf", horizon, runs, ch, ch, means)
    assert ts.counts[:, 0].mean() > 0.8 * horizon


def test_wrapper_uses_transformed_means():
    policy, params = policies.make("wr-klucb", 2, p00=[0.6, 0.9], p11=[0.6, 0.9], c=0.0)
    # λ̂ = (0.58, 0.74) → Ȳ = g⁻¹(λ̂) = (0.9, 0.8): with equal counts WR ranks arm 0 first, naive arm 1.
    state = policy.init(params)._replace(sums=jnp.array([58.0, 74.0]), counts=jnp.array([100, 100]))
    assert int(policy.select(StepRandom(None, jnp.float32(0.5)), state, params)) == 0
    naive, p0 = policies.make("klucb", 2)
    assert int(naive.select(StepRandom(None, jnp.float32(0.5)), state, p0)) == 1


# ----------------------------------------------------------------------------------------------- the bounds

def assert_printed(value, printed: str):
    """``value`` rounds to the spec's printed number: within half a unit of its last printed digit."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    assert abs(float(value) - float(printed)) <= 0.5 * 10 ** -decimals * (1 + 1e-9), (value, printed)


def test_lower_bound_and_upper_bound_constants():
    """Spec §4–§6 oracles (exp 6.1, the ε table, appendix scenarios)."""
    assert theory.corrupt_lower_bound_constant(MAIN, EXP61, EXP61) == pytest.approx(45.8147, abs=1e-4)
    np.testing.assert_allclose(theory.corrupt_lower_bound(MAIN, EXP61, EXP61, [1e3, 1e4, 1e5]),
                               [316.5, 422.0, 527.5], atol=0.05)
    np.testing.assert_allclose(theory.klucb_cf_bound(MAIN, EXP61, EXP61, [1e3, 1e4, 1e5]), [3010, 3320, 3596],
                               atol=0.5)
    assert theory.rr_upper_bound(MAIN, EXP61, EXP61, math.e) == pytest.approx(281.25, rel=1e-12)
    assert theory.rr_upper_bound(MAIN, EXP61, EXP61, 1e5) == pytest.approx(3238, abs=0.5)
    table = {1 / 8: ("11525.7", "132695", "531898"), 1 / 4: ("2885.74", "33223", "134013"),
             1 / 2: ("725.873", "8356.9", "34547"), 1: ("186.371", "2145.7", "9704.1"), 2: ("53.111", "611.5", "3572.8"),
             4: ("23.750", "273.4", "2229.9"), 8: ("20.331", "234.1", "2075.1")}
    for eps, (c_lb, lb, ub) in table.items():
        p = float(rr.optimal_p(eps))
        assert_printed(theory.corrupt_lower_bound_constant(MAIN, p, p), c_lb)
        assert_printed(theory.corrupt_lower_bound(MAIN, p, p, 1e5), lb)
        assert_printed(theory.ldp_rr_upper_bound(MAIN, eps, 1e5), ub)
        assert float(theory.ldp_rr_upper_bound(MAIN, eps, 1e5)) == pytest.approx(
            180 * math.log(1e5) / math.tanh(eps / 2) ** 2, rel=1e-12)
    assert theory.corrupt_lower_bound_constant(MAIN, 1, 1) == pytest.approx(20.269, abs=5e-4)
    p = float(rr.optimal_p(1e-3))
    assert 1e-6 * theory.corrupt_lower_bound_constant(MAIN, p, p) == pytest.approx(180, rel=1e-3)
    s3 = [0.9, 0.8, 0.8, 0.8, 0.7, 0.7, 0.7, 0.6, 0.6, 0.6]
    s4 = [0.9] + [0.6] * 9
    for means, c_lb in [(s3, 29.299), (s4, 17.417), ([0.9, 0.8], 5.0905), ([0.9, 0.6], 1.9352)]:
        ch = [0.6] + [0.9] * (len(means) - 1)
        assert theory.corrupt_lower_bound_constant(means, ch, ch) == pytest.approx(c_lb, abs=6e-4)
    for means, row in [(s3, "81108 20320 5123.6 1327.5 388.9 180.9 156.5"),
                       (s4, "44259 11102 2813.1 742.0 228.9 113.8 100.1")]:
        for eps, printed in zip(EPSILONS, row.split()):
            assert_printed(theory.corrupt_lower_bound(means, rr.optimal_p(eps), rr.optimal_p(eps), 1e5), printed)
    # g_a(μ_1) = λ_a (a constant g_a) makes the lower bound infinite; ties for the best arm are rejected.
    assert theory.corrupt_lower_bound_constant([0.9, 0.8], [0.6, 0.5], [0.6, 0.5]) == math.inf
    with pytest.raises(ValueError, match="unique best arm"):
        theory.corrupt_lower_bound_constant([0.9, 0.9], 0.8, 0.8)


# ------------------------------------------------------------------------------- counter-based DP-UCB baselines

@pytest.mark.slow  # four policies compiled (about 7 s)
def test_dp_ucb_family_without_noise_is_ucb1():
    ucb, p0 = policies.make("ucb1", 4)
    rng = np.random.default_rng(10)
    for name in ("dp-ucb", "dp-ucb-bound"):
        policy, params = policies.make(name, 4, epsilon=math.inf)
        state = policy.init(params)
        for t in range(300):  # feed a fixed history through update, compare decisions with UCB1's
            arm = int(rng.integers(4))
            state = policy.update(StepRandom(None, (jnp.float32(0.5), jnp.ones(4))), state, jnp.int32(arm),
                                  jnp.float32(rng.uniform() < 0.5 + 0.1 * arm), params)
        sums = counters.hybrid_release(state.counter)
        np.testing.assert_allclose(sums, state.counter.total, rtol=1e-6)
        ustate = ucb.init(p0)._replace(sums=sums, counts=state.counts)
        for u in (0.1, 0.6):
            if name == "dp-ucb":
                assert int(policy.select(StepRandom(None, (jnp.float32(u), None)), state, params)) == \
                    int(ucb.select(StepRandom(None, jnp.float32(u)), ustate, p0))


def test_dp_ucb_int_plays_blocks_and_reports_its_privacy():
    f = 4
    res = jb.simulate("bernoulli", "dp-ucb-int", env_params={"means": [0.7, 0.5, 0.3]},
                      policy_params={"epsilon": 1 / f}, horizon=400, runs=8, progress=False)
    assert np.all(res.counts % f == 0)  # every arm's pulls come in whole blocks (400 = 100 blocks)
    assert int(block_length(1.0)) == 1 and int(block_length(0.3)) == 4
    # Privacy: advanced composition of the releases (kf)^(-v/2), checked against the formula and basic composition.
    k = np.arange(1, 101) * 1.0
    e = k ** (-1.1 / 2)
    delta = math.exp(-10)
    expected = math.sqrt(2 * 10 * np.sum(e ** 2)) + np.sum(e * np.expm1(e) / (np.exp(e) + 1))  # KOV Thm 3.5
    assert dp_ucb_int_privacy(1.0, 1.1, delta, 100) == pytest.approx(min(expected, e.sum()), rel=1e-12)
    assert dp_ucb_int_privacy(1.0, 1.1, delta, 10 ** 5) > 1  # the setting of seed 002 §6.3 is not (1, δ)-DP
    with pytest.raises(ValueError, match="v=1 .* valid range \\(1, 2\\)"):
        policies.make("dp-ucb-int", 3, v=1.0)


def test_cli_run_with_per_arm_corruption(tmp_path):
    import json

    from jaxbandit import cli
    out = tmp_path / "run.json"
    channel = ["--policy-param", "p00=0.6,0.9,0.9", "--policy-param", "p11=0.6,0.9,0.9", "--privatizer",
               "randomized-response", "--privatizer-param", "p00=0.6,0.9,0.9", "--privatizer-param", "p11=0.6,0.9,0.9"]
    argv = ["run", "--env", "bernoulli", "--means", "0.9,0.8,0.8", "--policy", "klucb-cf", "--horizon", "100",
            "--runs", "4"]
    assert cli.main(argv + channel + ["--json", str(out)]) == 0
    config = json.loads(out.read_text())["config"]
    assert config["privatizer_params"] == {"p00": [0.6, 0.9, 0.9], "p11": [0.6, 0.9, 0.9]}
    assert cli.main(argv + channel[:-2] + ["--privatizer-param", "p11=0.4,0.9,0.9"]) == 2  # arm 0: p00 + p11 = 1
