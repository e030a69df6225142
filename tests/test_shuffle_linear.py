"""Shuffle-private LinUCB (Chowdhury & Zhou 2022): the shuffle model's accounting (amplification by shuffling, the
binomial vector sum), the vector-sum protocol's messages, and the two batched policies."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxbandit as jb
from jaxbandit import policies
from jaxbandit.accounting import profiles, shuffle
from jaxbandit.mechanisms import gram
from jaxbandit.policies import shuffle_linear
from jaxbandit.types import StepRandom, with_context


# ------------------------------------------------------------------------------ amplification by shuffling (FMT)
def _brute_clone(c, eps, eps0):
    """D_{e^ε}(P_c ‖ Q_c) by summing the pair's pmfs (module docstring's definition)."""
    alpha = math.exp(eps0) / (math.exp(eps0) + 1)
    half = np.array([math.comb(c, k) / 2 ** c for k in range(c + 1)])
    p, q = np.zeros(c + 2), np.zeros(c + 2)
    p[:-1] += alpha * half
    p[1:] += (1 - alpha) * half
    q[:-1] += (1 - alpha) * half
    q[1:] += alpha * half
    return float(np.maximum(p - math.exp(eps) * q, 0).sum())


@pytest.mark.parametrize("c, eps, eps0", [(0, 0.3, 1.0), (1, 0.1, 0.5), (5, 0.3, 1.0), (20, 0.5, 2.0),
                                          (101, 0.2, 1.5)])
def test_clone_pair_closed_form_is_the_brute_force_sum(c, eps, eps0):
    assert float(shuffle.clone_hockey_stick([c], eps, eps0)[0]) == pytest.approx(_brute_clone(c, eps, eps0),
                                                                                  abs=1e-13)


def test_clone_reduction_reproduces_the_authors_numbers():
    # Apple's ml-shuffling-amplification: onestep(5, 0.3, 1.0, True); its README's interval at (1e5, 4, 1e-6)
    assert float(shuffle.clone_hockey_stick([5], 0.3, 1.0)[0]) == pytest.approx(0.0494094836644081, rel=1e-12)
    assert 0.1675385583317841 <= shuffle.amplified_epsilon(100_000, 4.0, 1e-6) <= 0.172790550755978
    # the exact sums over every clone count (their block bounds bracket them)
    assert shuffle.clone_delta(20, 1.0, 0.5) == pytest.approx(0.0153080, rel=1e-4)
    assert shuffle.amplified_epsilon(20, 1.0, 0.05) == pytest.approx(0.263729, rel=1e-4)
    assert shuffle.amplified_epsilon(1000, 1.0, 1e-6) == pytest.approx(0.182412, rel=1e-4)


def test_shuffled_gaussian_is_never_worse_than_the_report_and_amplifies_many_users():
    for mu, n in [(0.36, 20), (1.0, 100)]:
        assert shuffle.ShuffledGaussian(mu, n).epsilon_at(0.1) <= profiles.GDP(mu).epsilon_at(0.1) + 1e-12
    # μ = 0.5 over 10⁴ users: (0.535, 10⁻⁶) amplified against the report's (2.254, 10⁻⁶)
    g = shuffle.ShuffledGaussian(0.5, 10_000)
    assert g.delta_at(0.6) <= 1e-6 < profiles.GDP(0.5).delta_at(0.6)


# ---------------------------------------------------------------------------------------- binomial vector sum
def _exact_shift_delta(trials, k, eps):
    lf = shuffle.binomial_log_pmf(trials, 0.25)
    p = np.exp(np.concatenate([np.full(k, -np.inf), lf]))
    q = np.exp(np.concatenate([lf, np.full(k, -np.inf)]))
    return max(np.maximum(p - math.exp(eps) * q, 0).sum(), np.maximum(q - math.exp(eps) * p, 0).sum())


def test_binomial_sum_bounds_the_exact_one_dimensional_divergence():
    for trials, k, delta in [(30600, 20, 1e-5), (30600, 7, 1e-5), (2000, 5, 1e-3)]:
        eps = shuffle.BinomialSum(trials, 0.25, float(k), k, 1).epsilon_at(delta)
        assert _exact_shift_delta(trials, k, eps) <= delta * (1 + 1e-6)  # valid: the exact δ at our ε is below δ
        exact = _Exact(trials, k).epsilon_at(delta)
        assert exact <= eps <= 1.25 * exact  # and within 25 % of the exact ε (1.103 against 0.993 at k = 20)


class _Exact(profiles.Profile):
    def __init__(self, trials, k):
        self.trials, self.k = trials, k

    def delta_at(self, epsilon):
        return _exact_shift_delta(self.trials, self.k, epsilon)


def test_binomial_sum_tightens_with_trials_and_calibrates():
    a, b = (shuffle.BinomialSum(n, 0.25, 20.0, 20, 5).epsilon_at(1e-4) for n in (10_000, 40_000))
    assert b < a
    n = shuffle.binomial_trials_for(1.0, 1e-4, 0.25, 20.0, 20, 5)
    assert shuffle.BinomialSum(n, 0.25, 20.0, 20, 5).epsilon_at(1e-4) <= 1.0
    assert shuffle.BinomialSum(n - 1, 0.25, 20.0, 20, 5).epsilon_at(1e-4) > 1.0


def test_vector_sum_messages_are_unbiased_on_the_grid():
    x, y, g = jnp.asarray([0.6, -0.5, 0.3]), 0.7, 6.0
    keys = jax.random.split(jax.random.PRNGKey(0), 20_000)
    mats, vecs = jax.vmap(lambda k: gram.vector_sum_encode(k, x, y, g, 1.0, 1.0))(keys)
    np.testing.assert_allclose(np.mean(mats, 0), np.outer(x, x), atol=0.01)
    np.testing.assert_allclose(np.mean(vecs, 0), y * np.asarray(x), atol=0.01)
    grid = (np.asarray(vecs) + 1.0) * g  # L_c = 1: decoded values are multiples of 1/g shifted by −1
    np.testing.assert_allclose(grid, np.round(grid), atol=1e-4)
    np.testing.assert_allclose(mats, np.swapaxes(mats, 1, 2))


@pytest.mark.slow  # 20 000 binomial draws (about 3 s cold)
def test_vector_sum_noise_is_the_centred_decoded_binomial():
    keys = jax.random.split(jax.random.PRNGKey(2), 20_000)
    m, v = jax.vmap(lambda k: gram.vector_sum_noise(k, 2, 400.0, 0.25, 4.0, 1.0, 1.0))(keys)
    sd = math.sqrt(400 * 0.25 * 0.75) / 4.0
    assert abs(float(np.mean(v))) < 5 * sd / math.sqrt(40_000)
    assert float(np.std(np.asarray(m)[:, 0, 1])) == pytest.approx(sd, rel=0.05)  # off-diagonals full variance
    np.testing.assert_allclose(m, np.swapaxes(m, 1, 2))


def test_upper_triangle_round_trip():
    a = jnp.asarray([[1.0, 2, 3], [2, 4, 5], [3, 5, 6]])
    np.testing.assert_array_equal(gram.upper_triangle(a), [1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(gram.from_upper_triangle(gram.upper_triangle(a), 3), a)


# ------------------------------------------------------------------------------------------------- the policies
CZ_ENV = {"num_arms": 100, "dim": 5, "instance": "chowdhury-zhou"}


def test_chowdhury_zhou_constants():
    p = policies.get("linucb-sdp-vec", 100, dim=5).default_params._replace(epsilon=jnp.asarray(0.2))
    p = shuffle_linear.vec_resolved(p, 5)
    assert float(p.precision) == pytest.approx(2 * math.sqrt(20), rel=1e-6)
    assert float(p.trials) == 1531  # ⌈1530.39⌉: their code truncates to 1530 in the draw, decodes with 1530.39
    amp = policies.get("linucb-sdp-amp", 100, dim=5)
    sigma = float(shuffle_linear.amp_sigma(amp.default_params._replace(epsilon=0.2)))
    assert sigma == pytest.approx(2.787160 * math.sqrt(6), rel=1e-5)  # their σ times Δ = √6


def test_claims_state_the_shuffle_scope_and_the_report_bound_at_twenty_users():
    amp = policies.get("linucb-sdp-amp", 100, dim=5)
    g = amp.accountant.guarantee(amp.default_params._replace(epsilon=0.2), 20_000, 100)
    assert g.scope == "shuffle" and g.notion == "approx-dp"
    assert g.profile.epsilon_at(0.1) == pytest.approx(0.10844, rel=1e-3)  # the report alone (B = 20)
    vec = policies.get("linucb-sdp-vec", 100, dim=5)
    gv = vec.accountant.guarantee(vec.default_params._replace(epsilon=0.2), 20_000, 100)
    assert gv.scope == "shuffle" and gv.profile.trials == 20 * 1531 and gv.profile.coordinates == 20


@pytest.mark.slow  # fourteen eager updates of two policies (about 6 s cold)
@pytest.mark.parametrize("name", ["linucb-sdp-amp", "linucb-sdp-vec"])
def test_the_server_folds_whole_batches_only(name):
    pol = with_context(policies.get(name, 3, dim=2))
    params = policies.get(name, 3, dim=2).bind_horizon(policies.get(name, 3, dim=2).default_params._replace(
        epsilon=jnp.asarray(5.0), batch=jnp.asarray(3.0)), 100)
    feats = jnp.asarray([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    state = pol.init(params)
    for t in range(7):
        before = state
        state = pol.update(StepRandom(jax.random.PRNGKey(t), None), state, jnp.int32(t % 3), 1.0, params, feats)
        if (t + 1) % 3:
            np.testing.assert_array_equal(state.gram, before.gram)  # the server's view waits for the batch
        else:
            assert not np.array_equal(state.gram, before.gram)
    assert int(state.reports) == 6 and int(state.pending) == 1


@pytest.mark.slow  # eight simulations of 1500 rounds (about 30 s cold); the golden and contract cases run them by default
@pytest.mark.parametrize("name", ["linucb-sdp-amp", "linucb-sdp-vec"])
@pytest.mark.parametrize("width", shuffle_linear.WIDTHS)
def test_batched_policies_learn_with_little_noise(name, width):
    kw = dict(env="linear", env_params={"num_arms": 20, "dim": 3, "instance": "chowdhury-zhou"}, horizon=1500,
              runs=16, seed=3)
    params = {"epsilon": 1e6, "feature_bound": math.sqrt(2), "batch": 5.0}  # Zheng et al.'s width: β ≈ d ln T √(3Υ)
    if name == "linucb-sdp-vec":  # a fine grid: the rounding noise (L_c/g)/2 per message does not vanish with ε
        params["precision"] = 8192.0
    private = jb.simulate(policy=name, policy_options={"width": width}, policy_params=params, **kw)
    uniform = jb.simulate(policy="uniform", **kw)
    assert float(private.mean()[-1]) < 0.5 * float(uniform.mean()[-1]), (private.mean()[-1], uniform.mean()[-1])


@pytest.mark.parametrize("field, value, message", [("batch", 2.5, "batch=2.5 must be a whole number"),
                                                    ("batch", 0.0, "batch=0"), ("trials", 3.5, "trials=3.5"),
                                                    ("precision", -1.0, "precision=-1")])
def test_bad_parameters_name_themselves(field, value, message):
    pol = policies.get("linucb-sdp-vec", 4, dim=2)
    with pytest.raises(ValueError, match=message):
        pol.validate(pol.default_params._replace(**{field: jnp.asarray(value)}))
    with pytest.raises(ValueError, match="width"):
        policies.get("linucb-sdp-amp", 4, dim=2, width="oful")


# ------------------------------------------------------------------------- Chowdhury & Zhou's server (``width``)
@pytest.mark.parametrize("sigma, terms, gamma, beta", [(8.971, 20_000, 2836.8, 123.1),   # their LDP
                                                       (2.78716, 20_000, 881.4, 70.5),  # SDP-Amp
                                                       (50.65, math.log(20_000), 356.4, 46.5)])  # JDP (ln n terms)
def test_chowdhury_zhou_width_reproduces_their_codes_constants(sigma, terms, gamma, beta):
    from jaxbandit.policies.private_linear import chowdhury_zhou_width
    g, b = chowdhury_zhou_width(jnp.float32(sigma), terms, 20_000.0, 5, math.sqrt(2), math.sqrt(5), 0.5)
    assert float(g) == pytest.approx(gamma, rel=2e-3) and float(b) == pytest.approx(beta, rel=2e-3)


def test_every_private_linucb_takes_the_chowdhury_zhou_server():
    for name, extra in [("linucb-jdp", {}), ("linucb-ldp", {}), ("linucb-sdp-amp", {}), ("linucb-sdp-vec", {})]:
        assert policies.get(name, 4, dim=2, width="chowdhury-zhou").options["width"] == "chowdhury-zhou"
    with pytest.raises(ValueError, match="needs noise='gaussian'"):
        policies.get("linucb-jdp", 4, dim=2, noise="wishart", width="chowdhury-zhou")


@pytest.mark.slow  # four simulations of 1500 rounds
@pytest.mark.parametrize("name", ["linucb-jdp", "linucb-ldp"])
def test_chowdhury_zhou_server_learns_with_little_noise(name):
    kw = dict(env="linear", env_params={"num_arms": 20, "dim": 3, "instance": "chowdhury-zhou"}, horizon=1500,
              runs=16, seed=3)
    private = jb.simulate(policy=name, policy_options={"width": "chowdhury-zhou"},
                          policy_params={"epsilon": 1e4, "feature_bound": math.sqrt(2)}, **kw)
    uniform = jb.simulate(policy="uniform", **kw)
    assert float(private.mean()[-1]) < 0.5 * float(uniform.mean()[-1]), (private.mean()[-1], uniform.mean()[-1])


@pytest.mark.parametrize("name", ["linucb-sdp-amp", "linucb-sdp-vec"])
def test_the_accountant_calibrates_epsilon_onto_a_shuffle_budget(name):
    from jaxbandit.accounting.accountants import Budget
    pol, params = policies.make(name, 20, dim=3)
    params = pol.bind_horizon(params, 2000)
    budget = Budget(epsilon=1.0, delta=0.1)
    calibrated = pol.accountant.calibrate(params, 2000, 20, budget)
    claim = pol.accountant.guarantee(calibrated, 2000, 20)
    assert claim.meets(budget) and claim.profile.epsilon_at(0.1) > 0.9  # on the boundary, not far inside it
