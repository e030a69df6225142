"""Bandit policies: a registry from CLI names to factories ``(num_arms) -> Policy``.

One file per algorithm family; ``make(name, num_arms, **params)`` returns ``(policy, params)`` with the user's
values validated and cast to the dtypes of the policy's defaults.
"""
from __future__ import annotations

import functools

from jaxbandit import checks
from jaxbandit.policies.corrupt import klucb_cf, ts_cf, ucb_cf, wr_klucb, wr_ts
from jaxbandit.policies.dp_ucb import dp_ucb, dp_ucb_bound, dp_ucb_int
from jaxbandit.policies.elimination import dp_se
from jaxbandit.policies.greedy import epsilon_greedy, uniform
from jaxbandit.policies.thompson import gaussian_thompson, modified_thompson, thompson
from jaxbandit.policies.ucb import klucb, lazy_ucb, ucb1

REGISTRY = {
    "thompson": (thompson, "Beta(1,1)-Bernoulli Thompson sampling; [0,1] rewards binarized by a Bernoulli trial"),
    "gaussian-thompson": (gaussian_thompson, "Thompson sampling, N(0,1) prior: θ ~ N(S/(n+1), 1/(n+1)) (seed 001 Alg. 1)"),
    "modified-thompson": (modified_thompson, "Gaussian TS with b pre-pulls per arm and variance c/(n+1); "
                          "sqrt(T/(c(b+1)))-GDP (seed 001 Alg. 2)"),
    "ucb1": (ucb1, "UCB1: mean + sqrt(2 log t / n), each arm once first (Auer et al. 2002)"),
    "klucb": (klucb, "kl-UCB, Bernoulli KL, exploration log t + c log log t (Garivier & Cappé 2011)"),
    "klucb-cf": (klucb_cf, "kl-UCB-CF: KL bound on the feedback mean mapped back through g_a^-1, per-arm channel "
                 "p00/p11 (seed 002 Alg. 1)"),
    "ucb-cf": (ucb_cf, "UCB-CF: Hoeffding bound on the feedback mean mapped back through g_a^-1 (seed 002 Cor. 1)"),
    "ts-cf": (ts_cf, "TS-CF: Beta posterior on the feedback mean, play argmax g_a^-1(theta_a) (seed 002 Alg. 2)"),
    "wr-klucb": (wr_klucb, "WRAPPER kl-UCB: kl-UCB on the transformed feedback g_a^-1(F) (seed 002 Sec. 6 baseline)"),
    "wr-ts": (wr_ts, "WRAPPER TS: Beta TS on the transformed feedback g_a^-1(F) (seed 002 Sec. 6 baseline)"),
    "dp-ucb-bound": (dp_ucb_bound, "eps-DP UCB on hybrid-mechanism sums plus their noise bound (Tossou & Dimitrakakis "
                     "2016, Alg. 1)"),
    "dp-ucb": (dp_ucb, "eps-DP UCB on hybrid-mechanism sums, every counter fed each round (Tossou & Dimitrakakis 2016)"),
    "dp-ucb-int": (dp_ucb_int, "DP UCB with blocks of ceil(1/eps) pulls and Lap(n^(v/2-1)) means (Tossou & "
                   "Dimitrakakis 2016, Alg. 3)"),
    "dp-se": (dp_se, "ε-DP successive elimination, Laplace epoch means (Sajed & Sheffet 2019)"),
    "lazy-ucb": (lazy_ucb, "ε-DP Anytime-Lazy-UCB: doubling batches, Laplace, forgetting (Hu, Huang & Mehta 2021)"),
    "epsilon-greedy": (epsilon_greedy, "ε-greedy: random arm with probability epsilon, else best mean"),
    "uniform": (uniform, "uniformly random arm at every step"),
}


def names():
    return sorted(REGISTRY)


@functools.lru_cache(maxsize=None)
def get(name: str, num_arms: int):
    """The (memoized, so jit caches hit) policy object for ``name`` and K arms."""
    checks.known_name("policy", name, REGISTRY)
    checks.positive_int("num_arms", num_arms)
    return REGISTRY[name][0](num_arms)


def make(name: str, num_arms: int, **params):
    """``(policy, params)``: the registered policy with its defaults overridden by ``params``."""
    policy = get(name, num_arms)
    return policy, checks.with_params(policy, **params)
