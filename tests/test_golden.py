"""Same seed, same numbers: the drivers against values recorded before the core-v2 refactor (tests/golden.py), for
every registered policy, privatizer and environment family and one grid sweep, recorded at T = 437 (a tail block)
and T = 6037 for dp-se (eliminations); most cases are replayed for their first 400 rounds (tests/golden.py:
PREFIX). Slow tier: the default suite checks every registry entry against pre-refactor values through its contract
test (tests/test_contracts.py)."""
import numpy as np
import pytest

from tests import golden

CASES = golden.cases()


def test_every_registered_component_has_a_golden_case():
    from jaxbandit import envs, policies, privatizers
    assert set(golden.POLICY_CASES) == set(policies.names())
    assert set(golden.PRIVATIZER_CASES) == set(privatizers.names())
    assert set(golden.ENV_CASES) | {"mixture"} == set(envs.names())  # mixture: testbed20 is one


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(CASES))
def test_bit_identical_to_recorded_values(key):
    with np.load(golden.PATH) as data:
        if key in golden.FULL_HORIZON:
            out = golden.compute(CASES[key])
            for field, value in out.items():
                np.testing.assert_array_equal(value, data[f"{key}:{field}"], err_msg=f"{key} {field}")
        else:  # the first PREFIX rounds: the recorded values at the record times up to PREFIX
            out = golden.compute(CASES[key], horizon=golden.PREFIX)
            n = out["pseudo_regret"].shape[-1]
            assert n == sum(t <= golden.PREFIX for t in golden.RECORD)
            for field in ("pseudo_regret", "regret"):
                np.testing.assert_array_equal(out[field], data[f"{key}:{field}"][..., :n], err_msg=f"{key} {field}")
