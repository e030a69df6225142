"""The engine against independent NumPy implementations (benchmarks/numpy_policies.py, the per-family speed table's
reference loops): for every policy family, the mean final pseudo-regret of jaxbandit and of the hand-written NumPy
loop agree (z at 1e-6), so the speed table compares the same algorithm, and each loop is a second, separately
written implementation of its paper. Private policies run their float draw (release="float") on the jaxbandit side, the
loops' law."""
import math
import os
import sys

import numpy as np
import pytest

import jaxbandit as jb
from tests.helpers import Z

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import numpy_policies  # noqa: E402

pytestmark = pytest.mark.slow  # 16 policies, a few seconds each

MEANS = [0.3, 0.55, 0.5, 0.8]
MEANS10 = [0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
CH = {"p00": [0.6, 0.9, 0.8, 0.7], "p11": [0.7, 0.9, 0.85, 0.6]}
CASES = {  # policy -> (means, policy params (the loop's too), privatizer params, horizon)
    "thompson": (MEANS, {}, None, 1500),
    "gaussian-thompson": (MEANS10, {}, None, 1500),
    "modified-thompson": (MEANS, {"b": 20, "c": 3.0}, None, 1500),
    "ucb1": (MEANS10, {}, None, 1500),
    "klucb": (MEANS10, {"c": 3.0}, None, 1500),
    "epsilon-greedy": (MEANS, {"epsilon": 0.1}, None, 1500),
    "dp-se": ([0.9, 0.72, 0.5, 0.3], {"epsilon": 1.0, "beta": 0.1}, None, 20_000),
    "lazy-ucb": (MEANS10, {"epsilon": 2.0}, None, 1500),
    "ucb-cf": (MEANS, {**CH, "c": 3.0}, CH, 1500),
    "klucb-cf": (MEANS, {**CH, "c": 3.0}, CH, 1500),
    "ts-cf": (MEANS, CH, CH, 1500),
    "dp-ucb-bound": (MEANS, {"epsilon": 8.0}, None, 1500),
    "dp-ucb": (MEANS, {"epsilon": 4.0}, None, 1500),
    "dp-ucb-int": (MEANS, {"epsilon": 0.5, "v": 1.1}, None, 1500),
    "dp-ftpl-new": (MEANS, {"epsilon": 1.0, "delta": 0.01}, None, 1500),
    # constants scaled down (as in tests/golden.py) so that epochs end and arms are eliminated within T
    "dp-rse": ([0.9, 0.72, 0.5, 0.3], {"epsilon": 5.0, "v": 0.9, "u": 1.0, "beta": 0.1, "theta": 1.0}, None, 3000),
}
RUNS = 300


def test_every_loop_has_a_case():
    assert set(CASES) == set(numpy_policies.CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_loop_agrees_with_the_engine(name):
    means, params, channel, horizon = CASES[name]
    options = {"release": "float"} if "release" in jb.policies.option_names(name) else {}
    res = jb.simulate("bernoulli", name, env_params={"means": means}, policy_params=params, policy_options=options,
                      privatizer="randomized-response" if channel else "identity", privatizer_params=channel,
                      horizon=horizon, runs=RUNS, seed=11, progress=False, record=np.array([horizon]))
    ours = res.pseudo_regret[:, -1].astype(np.float64)
    theirs = numpy_policies.CASES[name](means, RUNS, horizon, seed=12, **params)
    se = math.sqrt(ours.var(ddof=1) / RUNS + theirs.var(ddof=1) / RUNS)
    assert se > 0, "no spread: the case does not exercise the policy"
    assert abs(ours.mean() - theirs.mean()) < Z * se, (ours.mean(), theirs.mean(), se)
