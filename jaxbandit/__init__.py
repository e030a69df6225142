"""jaxbandit: GPU-batched JAX simulation of multi-armed bandit algorithms under differential privacy.

Public API::

    import jaxbandit as jb
    res = jb.simulate("bernoulli", "thompson", env_params={"means": [0.1, 0.5, 0.9]}, horizon=10_000, runs=100)
    res.mean(), res.se(), res.save("out/ts"), jb.rerun(res)
    env, policy, privatizer, params = jb.resolve("bernoulli", "thompson", env_params={"means": [0.1, 0.9]})
    run = jb.rollout(env, policy, privatizer, horizon=1000)         # pure: run(key, params) -> Trace
    jb.privacy.thompson.guarantee(b=9, c=1.0, horizon=1000, delta=1e-6)   # η = 10-GDP, ε ≈ 96.7
    jb.tune("bernoulli", env_params={"means": [0.75, 0.5, 0.25]}, eta_budget=2.0, horizon=10_000)  # (b, c) by gradient
"""
__version__ = "0.3.0"

from jaxbandit import envs, gradients, policies, privacy, privatizers, prng, types  # noqa: E402
from jaxbandit.engine import BLOCK, SimParams, Trace, rollout  # noqa: E402
from jaxbandit.results import Results  # noqa: E402
from jaxbandit.sharding import use_cpu_devices  # noqa: E402
from jaxbandit.simulation import rerun, simulate, sweep  # noqa: E402
from jaxbandit.tuning import tune  # noqa: E402
from jaxbandit.types import Env, Policy, Privatizer, StepRandom  # noqa: E402
from jaxbandit.validation import record_times, resolve  # noqa: E402

__all__ = ["envs", "gradients", "policies", "privacy", "privatizers", "prng", "types", "BLOCK", "SimParams", "Trace", "rollout", "Results",
           "rerun", "simulate", "sweep", "use_cpu_devices", "tune", "Env", "Policy", "Privatizer", "StepRandom", "record_times", "resolve",
           "__version__"]
