"""On an accelerator: tests marked ``gpu`` run with ``--runslow`` where JAX's default backend is a GPU and are skipped
elsewhere (benchmarks/gpu_check.sh runs them on a lent GPU machine). A GPU's numbers need not equal the CPU's bit
for bit (other implementations of the transcendental functions), so these check what must hold on any backend: every
policy module's policy runs with finite outputs and pulls adding up to T, a run is a pure function of its seed, and a
large batch meets an exact expectation."""
import math

import numpy as np
import pytest

import jaxbandit as jb
from tests import golden
from tests.helpers import POLICY_PER_MODULE, Z

MEANS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


@pytest.mark.gpu
@pytest.mark.parametrize("name", POLICY_PER_MODULE)
def test_policy_runs_on_the_accelerator_and_repeats_its_numbers(name):
    env, ep, pp, priv, qp, horizon = golden.POLICY_CASES[name]
    kw = dict(env_params=ep, policy_params=pp, privatizer_params=qp, horizon=horizon, runs=256, seed=3,
              progress=False)
    res = jb.simulate(env, name, privatizer=priv, **kw)
    assert np.all(np.isfinite(res.pseudo_regret)) and np.all(np.isfinite(res.regret))
    np.testing.assert_array_equal(res.counts.sum(-1), horizon)
    again = jb.simulate(env, name, privatizer=priv, **kw)
    np.testing.assert_array_equal(again.pseudo_regret, res.pseudo_regret)


@pytest.mark.gpu
def test_a_large_batch_meets_the_exact_expectation():
    """Uniform play over 10^5 runs: E[pseudo-regret at T] = T · mean gap exactly, a z-test at ALPHA."""
    horizon, runs = 2000, 100_000
    res = jb.simulate("bernoulli", "uniform", env_params={"means": MEANS}, horizon=horizon, runs=runs, seed=0,
                      progress=False)
    expected = horizon * float(np.mean(max(MEANS) - np.asarray(MEANS, np.float64)))
    final = res.final().astype(np.float64)
    assert abs(final.mean() - expected) < Z * final.std(ddof=1) / math.sqrt(runs)
