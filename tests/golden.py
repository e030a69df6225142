"""Golden regression values: every registered policy, privatizer and environment family at a small size, recorded
from the engine before the core-v2 refactor (issue 12). ``python -m tests.golden --rewrite-all`` rewrites the file;
only do that when a change of random stream is intended and documented. `tests/test_golden.py` checks the engine against it.

One deliberate change since: the pseudo-regret of testbed20 (K = 20), re-recorded (max change 1.5e-5 of 80, two
float32 ulps; regret and counts unchanged) when the engine began to sum Σ_a Δ_a n_a in a fixed order
(`jaxbandit.engine.ordered_sum`). The recorded value came from XLA's vectorized reduction, whose order follows the
CPU's vector width: the recording commit itself gave other last bits on an AVX-512 machine.

Components added after the refactor (seed 003's dp-ftpl-* and gdp-elim-new, seed 004's dp-rucb, dp-rse,
ldp-rse, pareto and student-t) have no pre-refactor values: their entries are recorded
by the engine of the commit that added them (``python -m tests.golden --add-missing``), as a regression record from
then on. One deliberate change since: DPRSE's default (discrete) release draws its words at the epoch's end from
that step's key, as DP-SE's does, instead of K × 32 words every step (issue 18, item 3: 0.07x -> 0.67x its NumPy
loop), so ``policy-discrete/dp-rse`` was re-recorded (both files); its float case kept its numbers bit for bit. Another (issue 34, item 2): the discrete
Laplace sampler takes 5 random words instead of 32 (one geometric and a sign bit, its bits decided by lazy comparison
on one stream), the same law (tests/test_noise.py counts it exactly); ``policy-discrete/`` dp-ucb-bound, dp-ucb,
dp-ucb-int, dp-rucb, dp-rse, ldp-rse and lazy-ucb were re-recorded (both files; dp-se's cases kept their numbers),
their mean regrets over 2000 runs before and after within 1.6 standard errors (benchmarks/RESULTS.md)."""
from __future__ import annotations

import os
import sys

import numpy as np

from jaxbandit import policies, privatizers, registry

PATH = os.path.join(os.path.dirname(__file__), "data", "golden_v1.npz")
# The contract tests' configurations (tests/test_contracts.py: T = 100, 3 runs, seed 5, unroll 1), recorded by the
# same pre-refactor engine (commit 57e94c3) so that the default suite checks every registry entry against it. The
# unroll factor is part of the configuration: in the pre-refactor engine it changed the order of XLA's float
# reductions, hence the last bits of the pseudo-regret with many arms (testbed20: 2e-6 of 11).
CONTRACT_PATH = os.path.join(os.path.dirname(__file__), "data", "golden_contract_v1.npz")
HORIZON, RUNS, SEED = 437, 6, 3  # 437 = 8 blocks of 50 + a tail of 37 steps
MEANS4 = list(registry.GOLDEN_MEANS)
LINEAR_FEATURES = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.6, 0.0, 0.8], [0.0, 0.6, 0.8]]


def _case(golden):
    """A registration's golden case (`jaxbandit.registry.Golden`) as the tuple the tests unpack:
    ``(env, env_params, policy_params, privatizer, privatizer_params, horizon)``."""
    return (golden.env, dict(golden.env_params), dict(golden.params), golden.privatizer,
            dict(golden.privatizer_params), golden.horizon or HORIZON)


# Every registered policy's golden case, from its registration (`jaxbandit.registry.POLICIES`):
# policy name -> (env, env_params, policy_params, privatizer, privatizer_params, horizon)
POLICY_CASES = {e.name: _case(e.golden) for e in policies.REGISTRY.entries()}
# Contract cases whose start phase does not fit in the contract tests' T = 100: their contract horizon.
CONTRACT_HORIZONS = {e.name: e.golden.contract_horizon for e in policies.REGISTRY.entries()
                     if e.golden.contract_horizon}

# Policies with Laplace releases or Gaussian draws (a build-time option ``release``): their recorded cases run the
# float draw (release="float", the numbers recorded before the floating-point-safe draws became the default, bit for
# bit; until 0.4 it was the numeric parameter noise = 0); the defaults have cases of their own ("policy-discrete/...").
NOISE_POLICIES = tuple(name for name in POLICY_CASES if "release" in policies.option_names(name))
FLOAT = {"release": "float"}
DISCRETE_CASES = {name: POLICY_CASES[name] for name in NOISE_POLICIES}


def options(key: str) -> dict:
    """The policy options of the golden case ``key`` (``"policy/NAME"`` of a noise policy: the float release)."""
    kind, name = key.split("/")
    return FLOAT if kind == "policy" and name in NOISE_POLICIES else {}


# Every registered privatizer's parameters, from its registration.
PRIVATIZER_CASES = {e.name: dict(e.golden.params) for e in privatizers.REGISTRY.entries()}

ENV_CASES = {
    "bernoulli": {"means": MEANS4},
    "gaussian": {"means": [0.1, 0.5, 0.3], "stds": 0.7, "low": -1.0, "high": 2.0},
    "truncexp": {"rates": [0.1, 1.0, 5.0]},
    "beta": {"alpha": [1.0, 4.0, 0.5], "beta": [1.0, 1.0, 2.0]},
    "uniform": {"low": [0.0, 0.2, 0.1], "high": [1.0, 0.6, 0.9]},
    "two-point": {"low": [0.4, 0.0, 0.1], "high": [1.0, 1.0, 0.3], "p_high": [0.5, 0.6, 0.9]},
    "pareto": {"means": [0.9, 0.5, 0.2], "v": [0.9, 0.9, 0.5]},
    "student-t": {"means": [0.0, 0.5, 1.0], "scales": [1.0, 0.5, 2.0], "df": [3.0, 1.5, 30.0]},
    "testbed20": {},
    "linear": {"features": LINEAR_FEATURES, "theta": [0.3, 0.2, 0.4], "rewards": "gaussian"},
}

SWEEP = dict(env="bernoulli", env_params={"means": MEANS4}, policy="modified-thompson", policy_options=FLOAT,
             privatizer="linear",
             grid={("policy.b", "policy.c"): [(0, 1.0), (5, 2.0)], "privatizer.epsilon": [0.5, 2.0]},
             horizon=HORIZON, runs=RUNS, seed=SEED)


def cases():
    """``{key: sweep kwargs}`` for every golden case."""
    out = {}
    for name, (env, ep, pp, priv, qp, horizon) in POLICY_CASES.items():
        out[f"policy/{name}"] = dict(env=env, env_params=ep, policy=name, policy_params=pp, privatizer=priv,
                                     privatizer_params=qp, horizon=horizon, runs=RUNS, seed=SEED, grid=None,
                                     policy_options=options(f"policy/{name}"))
    for name, (env, ep, pp, priv, qp, horizon) in DISCRETE_CASES.items():
        out[f"policy-discrete/{name}"] = dict(env=env, env_params=ep, policy=name, policy_params=pp, privatizer=priv,
                                              privatizer_params=qp, horizon=horizon, runs=RUNS, seed=SEED, grid=None)
    for name, qp in PRIVATIZER_CASES.items():
        out[f"privatizer/{name}"] = dict(env="bernoulli", env_params={"means": MEANS4}, policy="thompson",
                                         privatizer=name, privatizer_params=qp, horizon=HORIZON, runs=RUNS,
                                         seed=SEED, grid=None)
    for name, ep in ENV_CASES.items():
        out[f"env/{name}"] = dict(env=name, env_params=ep, policy="ucb1", horizon=HORIZON, runs=RUNS, seed=SEED,
                                  grid=None)
    out["sweep"] = SWEEP
    return out


RECORD = (1, 2, 49, 50, 51, 100, 399, 400, 401)  # and the horizon
# The test replays most cases for their first PREFIX rounds only (8 whole blocks: one compiled program, not also the
# 37-step tail's, which halves the slow tier's time for these cases) and compares the recorded values at the record
# times <= PREFIX. These cases run the full horizon: the policies that read the run's horizon (their first 400 rounds
# depend on T), the grid sweep and DP-SE's T = 6037, which keep the tail block and the final counts under check.
PREFIX = 400
FULL_HORIZON = ("sweep",) + tuple(f"{kind}/{e.name}" for e in policies.REGISTRY.entries() if e.golden.full_horizon
                                  for kind in ("policy", "policy-discrete")
                                  if kind == "policy" or e.name in NOISE_POLICIES)


def compute(kwargs, horizon=None):
    """The recorded fields of a case: pseudo-regret and regret at RECORD and the horizon, counts at the horizon.
    ``horizon``: replay only that many rounds (RECORD's times up to it; counts then at that time)."""
    from jaxbandit import sweep
    horizon = horizon or kwargs["horizon"]
    record = [t for t in RECORD if t < horizon] + [horizon]
    res = sweep(**{**kwargs, "horizon": horizon}, record=np.array(record), progress=False)
    return {"pseudo_regret": res.pseudo_regret, "regret": res.regret, "counts": res.counts}


def main(argv=None):
    """``--add-missing``: record the cases the files lack; ``--rewrite-all``: rewrite every golden value (only
    when a deliberate change of numbers is documented); anything else is refused (a bare or mistyped command once
    rewrote the whole file)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--add-missing"]:
        return add_missing()
    if argv != ["--rewrite-all"]:
        raise SystemExit("usage: python -m tests.golden --add-missing | --rewrite-all")
    arrays = {}
    for key, kwargs in cases().items():
        for field, value in compute(kwargs).items():
            arrays[f"{key}:{field}"] = value
        print(key, "done", file=sys.stderr)
    np.savez_compressed(PATH, **arrays)
    print(f"wrote {PATH}")


def add_missing():
    """Record the golden and contract values of cases the files lack (new components), leaving the others as they
    are."""
    for path, compute_one in ((PATH, lambda key, kwargs: compute(kwargs)), (CONTRACT_PATH, _contract_values)):
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        added = []
        for key, kwargs in cases().items():
            if key == "sweep" or f"{key}:pseudo_regret" in arrays:
                continue
            for field, value in compute_one(key, kwargs).items():
                arrays[f"{key}:{field}"] = value
            added.append(key)
        np.savez_compressed(path, **arrays)
        print(f"{path}: added {added}", file=sys.stderr)


def _contract_values(key, kwargs):
    """tests/test_contracts.py's configuration of a case (T = 100, 3 runs, seed 5, unroll 1, one block a chunk)."""
    import jaxbandit as jb
    from tests.test_contracts import HORIZON, RUNS, SEED, TIMES
    env_o, pol_o, priv_o, params = jb.resolve(kwargs["env"], kwargs["policy"], kwargs.get("privatizer", "identity"),
                                              env_params=kwargs.get("env_params"),
                                              policy_params=kwargs.get("policy_params"),
                                              policy_options=kwargs.get("policy_options"),
                                              privatizer_params=kwargs.get("privatizer_params"))
    res = jb.simulate(env=env_o, policy=pol_o, privatizer=priv_o, env_params=params.env, policy_params=params.policy,
                      privatizer_params=params.privatizer, horizon=CONTRACT_HORIZONS.get(key.split("/")[1], HORIZON),
                      runs=RUNS, seed=SEED, record=TIMES,
                      chunk_steps=jb.BLOCK, progress=False, unroll=1)
    return {"pseudo_regret": res.pseudo_regret, "regret": res.regret, "counts": res.counts}


if __name__ == "__main__":
    main()
