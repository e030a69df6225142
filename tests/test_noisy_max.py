"""ReportNoisyMax (seed 001, Algorithms 3-4): the mechanism's law, its accountant (oracle values), Theorem 6's
erratum shown on the exact GDP trade-off, and Thompson sampling selecting through it."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxbandit import policies
from jaxbandit.accounting import gdp, noisy_max as privacy, thompson
from jaxbandit.mechanisms import noisy_max
from jaxbandit.policies.thompson import gaussian_argmax_prob
from jaxbandit.types import StepRandom


def test_gaussian_noisy_max_has_the_gaussian_argmax_law():
    """P(index i) of argmax(f + σz) against the exact Gaussian argmax probability, 200000 draws, 5 SE."""
    scores, scales = jnp.asarray([0.5, 0.3, 0.6]), jnp.asarray([0.2, 0.5, 0.1])
    z = jax.random.normal(jax.random.PRNGKey(0), (200_000, 3))
    idx = np.asarray(jax.vmap(lambda n: noisy_max.gaussian(scores, scales, n))(z))
    for i in range(3):
        p = float(gaussian_argmax_prob(scores, scales, i))
        assert abs(np.mean(idx == i) - p) <= 5 * math.sqrt(p * (1 - p) / idx.size)
    assert noisy_max.laplace(jnp.asarray([0.0, 1.0]), 0.5, jnp.asarray([3.0, 0.0])) == 0  # 1.5 > 1


def test_thompson_selects_through_gaussian_noisy_max():
    """One round of Gaussian TS is Algorithm 4 with f_i = S_i/(n_i + 1), σ_i = sqrt(c/(n_i + 1)) (App. C)."""
    policy, params = policies.make("modified-thompson", 3, b=0, c=2.0)
    state = policy.init(params)._replace(sums=jnp.asarray([3.0, 5.0, 1.0]), counts=jnp.asarray([5, 9, 2]),
                                         step=jnp.int32(16))
    for seed in range(20):
        noise = jax.random.normal(jax.random.PRNGKey(seed), (3,))
        n1 = jnp.asarray([6.0, 10.0, 3.0])
        want = noisy_max.gaussian(state.sums / n1, jnp.sqrt(2.0 / n1), noise)
        assert policy.select(StepRandom(None, noise), state, params) == want


def test_accountant_oracles_and_the_thompson_round():
    """A TS round: s_j = 1/(n_j + 1), σ_j = sqrt(c/(n_j + 1)), so μ = 1/sqrt(c(b + 1)) at n_j ≥ b; T rounds compose
    to Lemma 5's η = sqrt(T/(c(b + 1)))."""
    for b, c, T in ((0, 1.0, 1000), (9, 2.0, 10**5), (500, 8.0, 10**5)):
        mu = float(privacy.gaussian_mu(1 / (b + 1), math.sqrt(c / (b + 1))))
        assert mu == pytest.approx(1 / math.sqrt(c * (b + 1)), rel=1e-6)
        assert math.sqrt(T) * mu == pytest.approx(float(thompson.eta(b, c, T)), rel=1e-6)
    assert float(privacy.gaussian_mu(jnp.asarray([1.0, 0.5]), jnp.asarray([2.0, 0.25]))) == pytest.approx(2.0)
    acc = privacy.gaussian_accountant()
    params = type("P", (), {"sensitivities": np.asarray([0.1, 0.2]), "scales": np.asarray([0.5, 0.5])})()
    claim = acc.guarantee(params, 1, 2, "gaussian-noisy-max")
    assert claim.notion == "gdp" and claim.scope == "round" and claim.mu == pytest.approx(0.4)
    assert privacy.laplace_epsilon(1.0, 0.5) == 2.0 and privacy.laplace_epsilon(1.0, 0.5, every_score=True) == 4.0
    lap = type("P", (), {"sensitivity": 1.0, "scale": 0.5})()
    for every, eps in ((False, 2.0), (True, 4.0)):
        claim = privacy.laplace_accountant(every).guarantee(lap, 1, 2, "laplace-noisy-max")
        assert claim.notion == "pure-dp" and claim.scope == "round" and claim.epsilon == pytest.approx(eps)
    with pytest.raises(ValueError, match="scale"):
        privacy.laplace_epsilon(1.0, 0.0)


def test_laplace_noisy_max_exact_loss():
    """Two scores, D = b(ℓ_0 − ℓ_1) (difference of Laplaces: P(D > x) = ½e^{−x/b}(1 + x/(2b)), x ≥ 0). One score
    moved by s: the loss of every index stays ≤ s/b; both moved (±s): it exceeds s/b (so the one-score claim needs
    its assumption) and stays ≤ 2s/b."""
    b, s = 0.5, 0.5

    def upper(x):  # P(D > x)
        x = np.asarray(x, np.float64)
        ax = np.abs(x)
        tail = 0.5 * np.exp(-ax / b) * (1 + ax / (2 * b))
        return np.where(x >= 0, tail, 1 - tail)
    gaps = np.linspace(-6, 6, 241)  # f_1 − f_0 before the change
    one = np.abs(np.log(upper(gaps - s) / upper(gaps)))  # f_0 + s
    one = np.maximum(one, np.abs(np.log((1 - upper(gaps - s)) / (1 - upper(gaps)))))
    assert one.max() <= s / b + 1e-12
    both = np.abs(np.log((1 - upper(gaps - 2 * s)) / (1 - upper(gaps))))
    assert s / b < both.max() <= 2 * s / b + 1e-12


def test_theorem6_is_not_a_certified_claim():
    """Theorem 7 through Theorem 6 (N = 2, δ = 1e-6): ε = sqrt(log(1/(2δ)))/(2√2) = 1.28, but a round is
    1/√2-GDP exactly, whose δ at ε = 1.28 is 0.0177 (spec 001 §3.5), four orders above the δ claimed."""
    eps = privacy.theorem6_epsilon([0.5], [math.sqrt(0.5)], 1e-6, 2)
    assert eps == pytest.approx(math.sqrt(math.log(5e5)) / (2 * math.sqrt(2)), rel=1e-12)
    assert eps == pytest.approx(1.28, abs=0.005)
    assert float(gdp.delta(eps, 1 / math.sqrt(2))) == pytest.approx(0.0177, abs=5e-4)
