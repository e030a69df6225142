"""jaxbandit: GPU-batched JAX simulation of multi-armed bandit algorithms under differential privacy.

Public API::

    import jaxbandit as jb
    res = jb.simulate("bernoulli", "thompson", env_params={"means": [0.1, 0.5, 0.9]}, horizon=10_000, runs=100)
    res.mean(), res.se(), res.save("out/ts"), jb.rerun(res)
    spec = jb.resolve("bernoulli", "dp-se", env_params={"means": [0.1, 0.9]}, policy_options={"release": "float"},
                      horizon=1000)                                  # one resolved, validated configuration
    env, policy, privatizer, params = spec                           # its component objects and parameters
    run = jb.rollout(env, policy, privatizer, horizon=1000)          # pure: run(key, params) -> Trace
    policy.accountant.guarantee(params.policy, 1000, 2)              # its privacy claim: ε-DP, ε = 1
    jb.tune("bernoulli", env_params={"means": [0.75, 0.5, 0.25]}, eta_budget=2.0, horizon=10_000)  # (b, c) by gradient
    jb.frontier("bernoulli", [0.5, 1, 2], env_params={"means": [0.3, 0.5, 0.7]}, delta=0.01, horizon=10_000)
                                             # which private algorithm, at each ε, costs how much regret

Layers (docs/DESIGN.md): `random` and `mechanisms` (run-time privacy mechanisms) below the components (`envs`,
`privatizers`, `policies`, each private one with its `accounting.Accountant`); the pure `engine` over component
objects; `spec` (names resolved and validated once); the drivers (`simulate`, `sweep`, `gradients`, `tune`); the
audits (`audit`) above; `frontiers.frontier` over them all. Importing jaxbandit turns on JAX's persistent
compilation cache in ~/.cache/jaxbandit/xla (`compilation_cache`; ``JAXBANDIT_COMPILATION_CACHE=0`` keeps it off).
"""
from jaxbandit.version import __version__  # noqa: E402

from jaxbandit import compilation_cache  # noqa: E402

compilation_cache.enable()  # before any compilation: compiled programs are reused by later processes

from jaxbandit import (accounting, audit, envs, gradients, mechanisms, policies, privatizers,  # noqa: E402
                       random, types)
from jaxbandit.engine import BLOCK, SimParams, Trace  # noqa: E402
from jaxbandit.results import Results  # noqa: E402
from jaxbandit.sharding import use_cpu_devices  # noqa: E402
from jaxbandit.simulation import rerun, run_spec, simulate, sweep  # noqa: E402
from jaxbandit.spec import Spec, record_times, resolve, rollout  # noqa: E402
from jaxbandit.tuning import tune  # noqa: E402
from jaxbandit.frontiers import frontier  # noqa: E402
from jaxbandit.types import Env, Policy, Privatizer, StepRandom  # noqa: E402

__all__ = ["accounting", "audit", "envs", "gradients", "mechanisms", "policies", "privatizers", "random", "types",
           "BLOCK", "SimParams", "Trace", "Results", "use_cpu_devices", "rerun", "run_spec", "simulate", "sweep",
           "Spec", "record_times", "resolve", "rollout", "tune", "frontier", "Env", "Policy", "Privatizer",
           "StepRandom", "__version__"]
