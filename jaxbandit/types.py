"""Core types of jaxbandit: reward models (`Env`), local channels (`Privatizer`) and `Policy`.

Every component is a NamedTuple of pure functions made by a factory that takes only *static* configuration
(the number of arms, flags). Every numeric hyperparameter lives in a params NamedTuple passed as an argument,
so it can be vmapped over (one compilation per sweep) and differentiated.

Randomness is drawn in blocks: for each run and each block of `BLOCK` steps the engine calls a component's
`draw(key, steps, params)` once, and hands step i of the block a `StepRandom(key, noise)` whose `noise` is
slice i of that draw (leaves have the time axis first) and whose `key` is a per-step key for rare needs
(e.g. a rejection-sampling fallback). XLA removes the per-step key when a component never reads it, so
components that only use `noise` pay nothing for it.

Contexts (linear and contextual bandits): an environment with a ``context`` function emits one each round (e.g. the
arms' feature vectors), drawn from its step randomness before the choice; the policy's ``select``, ``update`` and
``log_prob`` and the privatizer's ``apply`` receive it as a last argument when they declare ``contextual=True``.
`with_context` is the one adapter (optax's ``with_extra_args_support`` is the model): the engine calls every
component through it, so context-free components are written and run exactly as before.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import numpy as np

Array = jax.Array
PRNGKey = jax.Array
Params = Any  # a NamedTuple of arrays
State = Any


class StepRandom(NamedTuple):
    """The randomness one step of one run may use.

    Attributes:
      key: a per-step PRNG key, distinct for every (run, step, component).
      drawn: this step's slice of what the component's ``draw`` drew for the block (``None`` if it draws
        nothing). Until 0.5 it was called ``noise``, a name the privacy noise also had; ``rng.noise`` still reads
        it, with a deprecation warning.
    """

    key: PRNGKey
    drawn: Any

    @property
    def noise(self):
        """The former name of ``drawn`` (deprecated)."""
        import warnings
        warnings.warn("StepRandom.noise is now StepRandom.drawn (this step's slice of the component's block draw)",
                      DeprecationWarning, stacklevel=2)
        return self.drawn


class Env(NamedTuple):
    """A reward model of ``num_arms`` arms.

    Attributes:
      name: registry name.
      num_arms: K (static).
      draw: ``(key, steps, params) -> noise`` pre-draws the randomness of ``steps`` steps (time axis first).
      sample: ``(rng: StepRandom, arm, params) -> reward`` the reward of the pulled arm, from one uniform by
        inverse CDF where possible, so that every policy sees the same draw at the same step.
      means: ``(params) -> f[K]`` arm means (for pseudo-regret).
      support: ``(params) -> (low, high)`` host-side bounds of the rewards (numpy floats).
      validate: ``(params) -> None`` host-side check raising ``ValueError`` naming parameter, value, range.
      default_params: params with every field shaped (K,).
      second_moments: ``(params) -> f[K]`` E[R²] per arm, or ``None`` where a family has no closed form.
      mgf: ``(s, params) -> f[K]`` E[e^{sR}] per arm, or ``None``. (Both give the privatized means of the
        non-linear mechanisms of seed 000.)
      context: ``(rng: StepRandom, params) -> context``: this round's context (e.g. the arms' features, f[K, d]),
        drawn from the step's randomness before the choice; ``None`` for a context-free environment. A contextual
        environment's ``sample`` is ``(rng, arm, params, context) -> reward``.
      expected: ``(params, context) -> f[K]`` the expected reward of each arm given the round's context (the
        pseudo-regret of a contextual run); ``None`` for a context-free environment. ``means`` is then ``None``
        where the expected rewards change from round to round, and the fixed means where they do not (features
        fixed for the run), so that the pseudo-regret stays an exact sum over integer pull counts.
      instance: ``(key, params) -> params``: the run's instance drawn from a key of its own (`instance_key`), for
        a law of random instances (a new θ and features per run); ``None``: the params are the instance.
      dim: d, the dimension of the features of a contextual environment (static), given to a contextual policy's
        factory; ``None`` for a context-free environment.
    """

    name: str
    num_arms: int
    draw: Callable
    sample: Callable
    means: Callable
    support: Callable
    validate: Callable
    default_params: Params
    second_moments: Callable | None = None
    mgf: Callable | None = None
    context: Callable | None = None
    expected: Callable | None = None
    instance: Callable | None = None
    dim: int | None = None

    def __repr__(self) -> str:
        return f"Env(name={self.name!r}, num_arms={self.num_arms}, default_params={summarize(self.default_params)})"


class Privatizer(NamedTuple):
    """A stateless local channel between the user and the learner.

    Attributes:
      name: registry name.
      draw: ``(key, steps, params) -> noise``.
      apply: ``(rng: StepRandom, arm, reward, params) -> observation``; ``arm`` is the pulled arm, for channels
        whose corruption differs across arms (seed 002); leaves of ``params`` with one dimension are per-arm
        (K entries).
      validate: host-side parameter check.
      default_params: parameters.
      reward_range: the rewards it accepts, ``(low, high)`` (``None``: any).
      output_range: the observations it emits, ``(low, high)`` (``None``: those it was given).
      accountant: its privacy claim (`jaxbandit.accounting.Accountant`: ε-LDP of each report), or ``None`` (the
        identity channel).
      contextual: whether ``apply`` takes the round's context as a last argument (a channel that privatizes the
        pulled arm's features with the reward); `with_context` adapts the others.
    """

    name: str
    draw: Callable
    apply: Callable
    validate: Callable
    default_params: Params
    reward_range: tuple | None = None
    output_range: tuple | None = None
    accountant: Any = None
    contextual: bool = False

    def __repr__(self) -> str:
        return (f"Privatizer(name={self.name!r}, default_params={summarize(self.default_params)}, "
                f"reward_range={self.reward_range}, output_range={self.output_range})")


class Policy(NamedTuple):
    """A bandit policy as three pure functions of a per-run state, built by a factory ``(num_arms, **options)``.

    Attributes:
      name: registry name.
      num_arms: K (static).
      init: ``(params) -> state``.
      draw: ``(key, steps, params) -> noise``; ``select`` and ``update`` of one step share its slice.
      select: ``(rng: StepRandom, state, params) -> int32 arm``.
      update: ``(rng: StepRandom, state, arm, observation, params) -> state``.
      validate: ``(params, horizon=None) -> None``, host side: raise ``ValueError`` naming the parameter, its value
        and the valid range; with a ``horizon`` T also what cannot run within T (and warn for what runs but
        degenerates). Horizon-dependent parameters are bound (``bind_horizon``) before it sees a horizon.
      default_params: parameters (every numeric hyperparameter: traced, so a grid over them is one compilation).
      reward_range: the observations it needs, ``(low, high)`` (``None``: any real number).
      accountant: its privacy claim (`jaxbandit.accounting.Accountant`), or ``None`` for a non-private policy.
      options: the build-time choices it was made with (the factory's keyword arguments, e.g. ``{"release":
        "float"}``): implementation choices that change what is compiled, never traced numbers. Saved
        configurations record them; a grid over them is a list of policies.
      bind_horizon: ``(params, horizon) -> params``: the parameters a run decides (the T known to the algorithm,
        β = 1/T) where ``params`` leaves them ``None``; jittable. ``None`` for a policy that has none.
      log_prob: ``(state, arm, params) -> float`` log P(``select`` returns ``arm`` | ``state``) over the step's
        randomness, differentiable in the float fields of ``params``, or ``None``. The score-function gradients of
        `jaxbandit.gradients` (and ``jaxbandit.tune(estimator="score")``) need it.
      tunable: ``{parameter: values}``, the free hyperparameters a user may tune and a small grid of values for each
        (the default among them), which `jaxbandit.frontier` searches; ``{}`` where the paper leaves nothing free
        (a privacy-calibrated parameter is never listed: the accountant sets it).
      contextual: whether ``select``, ``update`` and ``log_prob`` take the round's context as a last argument
        (``select(rng, state, params, context)``, ...); its factory then takes the features' dimension,
        ``(num_arms, dim, **options)``, and it runs only on a contextual environment. `with_context` adapts the
        others.
      epochs: ``(schedule, local)`` where the policy plays round-robin in epochs of public lengths, so that
        `jaxbandit.epochs` can simulate it epoch by epoch (DPRSE, LDPRSE): ``schedule`` gives the epochs' lengths
        (`jaxbandit.policies.robust.rse_schedule`), ``local`` whether each user's reward is privatized; ``None``
        otherwise.
      run_major: whether the drivers lay out its block draw's leaves of more than one value a step run-major
        (time, batch, values), each run's values contiguous, instead of with the batch last: for draws of costly
        values (tail-safe Gaussian noise of a Gram matrix, whose generator then runs about twice as fast); cheap
        uniforms read faster batch-last (Beta TS lost 10% run-major). A layout only: the same values.
      state_run_major: whether the drivers give its state the batch axis first while they step a block (moved
        once per block of `jaxbandit.engine.BLOCK` steps): for a policy that reads and writes one arm's row of a
        per-arm table each step (DPRUCB's trees, DP-UCB-BOUND's counters), which with the batch last XLA does by
        transposing the whole table every step (20x slower for a 101 x 31 table). A layout only: the same values.
    """

    name: str
    num_arms: int
    init: Callable
    draw: Callable
    select: Callable
    update: Callable
    validate: Callable
    default_params: Params
    reward_range: tuple | None = None
    accountant: Any = None
    options: Any = ()
    bind_horizon: Callable | None = None
    log_prob: Callable | None = None
    tunable: Any = ()
    contextual: bool = False
    epochs: Any = None
    run_major: bool = False
    state_run_major: bool = False

    def __repr__(self) -> str:
        options = "".join(f", {k}={v!r}" for k, v in dict(self.options).items())
        return (f"Policy(name={self.name!r}, num_arms={self.num_arms}{options}, default_params="
                f"{summarize(self.default_params)}, reward_range={self.reward_range})")


def with_context(component):
    """The component with the contextual signatures the engine calls: ``select(rng, state, params, context)``,
    ``update(rng, state, arm, observation, params, context)``, ``log_prob(state, arm, params, context)`` for a
    `Policy`, ``apply(rng, arm, reward, params, context)`` for a `Privatizer`. A contextual component is returned as
    it is; a context-free one is wrapped to ignore the context (the context is optional, so wrapping twice is
    harmless), so it is written, and computes, as before (the model is optax's ``with_extra_args_support``)."""
    if getattr(component, "contextual", False):
        return component
    if isinstance(component, Policy):
        select, update, log_prob = component.select, component.update, component.log_prob
        return component._replace(
            select=lambda rng, state, params, context=None: select(rng, state, params),
            update=lambda rng, state, arm, obs, params, context=None: update(rng, state, arm, obs, params),
            log_prob=None if log_prob is None else (
                lambda state, arm, params, context=None: log_prob(state, arm, params)))
    if isinstance(component, Privatizer):
        apply = component.apply
        return component._replace(apply=lambda rng, arm, reward, params, context=None: apply(rng, arm, reward, params))
    raise ValueError(f"with_context takes a jaxbandit.Policy or Privatizer, got {type(component).__name__}")


def sample_with_context(env: Env):
    """The environment's ``sample`` with the contextual signature ``(rng, arm, params, context)`` (a context-free
    environment's ignores the context)."""
    if env.context is not None:
        return env.sample
    sample = env.sample
    return lambda rng, arm, params, context=None: sample(rng, arm, params)


class SimParams(NamedTuple):
    """Every numeric parameter of a simulation: one params pytree per component (``run(key, params)`` of
    `jaxbandit.rollout` takes one; the drivers batch it)."""

    env: Params
    policy: Params
    privatizer: Params

    def __repr__(self) -> str:
        return summarize(self)


def summarize(value) -> str:
    """A short text of a value or a pytree of them, for the reprs of public objects: numbers as numbers, small
    arrays as lists, large ones as ``dtype[shape]``, NamedTuples by field, functions by name."""
    if hasattr(value, "_fields"):
        return f"{type(value).__name__}({', '.join(f'{f}={summarize(getattr(value, f))}' for f in value._fields)})"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(summarize(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if value is None or isinstance(value, str):
        return repr(value)
    if callable(value) and not hasattr(value, "shape"):
        return getattr(value, "__name__", type(value).__name__)
    try:
        arr = np.asarray(value)
    except Exception:  # a tracer or a key array: its own repr
        return repr(value)
    if arr.dtype.kind not in "biuf":
        return repr(value)
    if arr.ndim == 0:
        return f"{arr.item():.6g}" if arr.dtype.kind == "f" else str(arr.item())
    if arr.size <= 10:
        return np.array2string(arr, precision=4, separator=", ")
    return f"{arr.dtype}[{','.join(str(n) for n in arr.shape)}]"


class EmptyParams(NamedTuple):
    """Parameters of a component that has none."""


def no_draw(key, steps, params):
    """`draw` of a component that needs no randomness."""
    del key, steps, params
    return None


def no_validate(params, horizon=None):
    """A component's validate that accepts every parameter value (no constraint to check)."""
    del params, horizon


#: The no-privacy privatizer, through which the learner sees the reward itself.
IDENTITY = Privatizer(name="identity", draw=no_draw, apply=lambda rng, arm, reward, params: reward,
                      validate=no_validate, default_params=EmptyParams())  # no privacy: the learner sees the reward


class Simulator(NamedTuple):
    """How a configuration's runs are simulated: a component of `jaxbandit.spec.Spec`, chosen by name
    (``simulator="steps"`` or ``"epochs"``, `jaxbandit.spec.SIMULATORS`) or given as an object.

    Attributes:
      name: ``"steps"`` (the engine, every policy, `jaxbandit.engine.SIMULATOR`) or ``"epochs"`` (the epoch-by-epoch
        simulation of a policy with an epoch schedule, `jaxbandit.epochs.SIMULATOR`).
      rollout: ``(env, policy, privatizer, *, horizon, record_times, unroll, realized) -> run(key, params)``, pure.
      chunked: whether the drivers run it in chunks of steps (progress, callbacks, checkpoints, resume); a
        simulator that is not runs each run in one piece.
      unsupported: ``(env, policy, privatizer) -> str | None``: why it cannot simulate these components, or
        ``None`` where it can (checked before any compilation).
    """

    name: str
    rollout: Callable
    chunked: bool
    unsupported: Callable

    def __repr__(self) -> str:
        return f"Simulator({self.name!r})"


def with_fields(params, values, *, host: bool = False):
    """``params`` (a parameters NamedTuple) with ``values`` ({field: value}) set, each cast to the dtype of the value
    it replaces, so that a tuned, swept or calibrated value never changes a traced dtype (nor forces a compilation):
    JAX arrays (traceable), or with ``host=True`` NumPy arrays for host-side bookkeeping. The one place the tuner,
    the gradient estimators, the accountants' calibration and the frontier set parameters."""
    if host:
        return params._replace(**{k: np.asarray(v, np.asarray(getattr(params, k)).dtype) for k, v in values.items()})
    import jax.numpy as jnp
    return params._replace(**{k: jnp.asarray(v, jnp.asarray(getattr(params, k)).dtype) for k, v in values.items()})
