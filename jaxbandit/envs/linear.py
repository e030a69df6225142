"""The linear (contextual) bandit: K arms with d-dimensional features x_a, a parameter θ, and rewards whose mean is
a link of ⟨x_a, θ⟩ (Abbasi-Yadkori, Pál & Szepesvári 2011; Chowdhury & Zhou 2022, Sec. 2).

Each round the environment emits its context, the arms' features f[K, d], drawn before the choice:

- ``law="fixed"``: the features in the parameters (``features``, K × d), every round. The expected rewards are
  then fixed for the run: `Env.means` is defined and the pseudo-regret is the exact sum over pull counts.
- ``law="sphere"``: each round, K vectors drawn independently and uniformly on the unit sphere S^{d−1}.
- ``law="sphere-bias"``: each round, K vectors (s, 1) with s uniform on S^{d−2}: the features of Chowdhury &
  Zhou's experiments (their script ``LinBanditPrivate.py``: a unit (d−2)-sphere and a bias coordinate).
- ``law="gap"``: each round, Shariff & Sheffet's decision set (their code, ``roshanshariff/PrivateBandits.jl``,
  ``GapArms``): K unit vectors, one (at a uniformly random index) with ⟨θ̂, x⟩ = 3/4 and the others uniform on the
  sphere conditioned on ⟨θ̂, x⟩ ∈ [−3/4, 3/4 − gap], θ̂ = θ/‖θ‖; so the gap between the best mean and the others'
  is at least ``gap``·‖θ‖. The conditioned arms are drawn by rejection from a pool of 2K + 32 uniform vectors per
  round (the first K − 1 accepted; fewer are accepted with probability below 1e-10 at gap ≤ 1/2, d ≥ 2, where the
  rest keep their pool vectors, projections clamped into the interval).

Rewards: ``rewards="bernoulli"`` (mean in [0, 1]), ``"signed"`` (±1 with mean in [−1, 1]: +1 with probability
(1 + mean)/2, Shariff & Sheffet's bounded rewards) or ``"gaussian"`` (mean + N(0, noise_std²)), with mean
``link(⟨x, θ⟩)``, ``link="identity"`` or ``"logistic"`` (1 / (1 + e^{−z})). A reward is drawn from one uniform
per step by inverse CDF, so every policy sees the same draw at the same step (common random numbers).

Random instances (``instance="chowdhury-zhou"``): each run draws its own features and θ from its key, as the
script of Chowdhury & Zhou draws one instance per run: x_a = (s_a, 1), s_a uniform on S^{d−2}, the first d arms
replaced by the basis vectors e_i + e_d (i < d) and e_d, and θ = (r·u, 1/2), u uniform on S^{d−2}, r = 1/2, so
every mean lies in [0, 1]. ``instance="unit-theta"``: θ uniform on the unit sphere per run (Shariff & Sheffet's
θ), the features from the law.

Features and θ are parameters (traced), so a grid over them is one compilation; the laws, reward family, link and
instance law are build-time options (they change what is compiled).
"""
from __future__ import annotations

import functools
import os
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import ndtri

from jaxbandit import checks
from jaxbandit.envs.distributions import open_uniform
from jaxbandit.types import Env

__all__ = ["LinearParams", "linear", "linear_env", "LAWS", "REWARDS", "LINKS", "INSTANCES", "load_features"]

#: The laws of the arms' features each round.
LAWS = ("fixed", "sphere", "sphere-bias", "gap")
#: The reward families of the linear environment.
REWARDS = ("bernoulli", "signed", "gaussian")
#: The links from ⟨x, θ⟩ to the mean reward.
LINKS = ("identity", "logistic")
#: The laws of a run's instance (as given, or drawn per run as in Chowdhury & Zhou's script).
INSTANCES = ("given", "chowdhury-zhou", "unit-theta")
GAP_BEST = 0.75  # Shariff & Sheffet's best mean (their maxrewardmean) in the gap law
CZ_RADIUS = 0.5  # Chowdhury & Zhou's script: θ's first d − 1 coordinates on the sphere of radius 0.5, θ_d = 0.5


class LinearParams(NamedTuple):
    """Parameters of the linear environment.

    Attributes:
      features: f[K, d] the arms' features (the ``fixed`` law's; unused by the per-round laws and by a random
        instance, which draw their own).
      theta: f[d] the parameter θ (unused by a random instance).
      noise_std: the standard deviation of Gaussian rewards (unused by Bernoulli rewards).
      gap: the gap law's Δ in [0, 1.5): the other arms' ⟨θ̂, x⟩ ≤ 3/4 − Δ (unused by the other laws).
    """

    features: jax.Array
    theta: jax.Array
    noise_std: jax.Array
    gap: jax.Array


def load_features(source) -> np.ndarray:
    """Features given inline (a nested list or array) or as a path to a ``.npy`` or ``.csv`` file (one arm per
    row), as a float64 array."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise ValueError(f"linear parameter features={path!r}: no such file (give a .npy or .csv file with one "
                             "arm per row, or the features inline)")
        try:
            if path.endswith(".npy"):
                return np.asarray(np.load(path, allow_pickle=False), np.float64)
            if path.endswith(".csv"):
                return np.atleast_2d(np.loadtxt(path, delimiter=",", dtype=np.float64))
        except (OSError, ValueError) as err:
            raise ValueError(f"linear parameter features={path!r} could not be read: {err}") from None
        raise ValueError(f"linear parameter features={path!r} must be a .npy or .csv file")
    return np.asarray(source, np.float64)


def _unit_rows(z):
    """The rows of ``z`` scaled to unit norm: uniform on the sphere for standard normal ``z``."""
    return z / jnp.sqrt(jnp.sum(z * z, axis=-1, keepdims=True))


def _gap_arms(key, num_arms: int, dim: int, theta, gap):
    """Shariff & Sheffet's decision set (module docstring, ``law="gap"``): f[K, d] unit rows."""
    k_pool, k_best, k_index = jax.random.split(key, 3)
    direction = theta / jnp.sqrt(jnp.sum(theta * theta))
    pool = _unit_rows(jax.random.normal(k_pool, (2 * num_arms + 32, dim)))
    proj = pool @ direction
    top = GAP_BEST - gap
    accepted = (proj >= -GAP_BEST) & (proj <= top)
    order = jnp.argsort(~accepted, stable=True)[:num_arms]  # the accepted first, in pool order
    chosen, ok = pool[order], accepted[order]
    clamped = jnp.clip(proj[order], -GAP_BEST, top)  # the fallback (module docstring): clamp the projection
    rest = chosen - proj[order][:, None] * direction
    rest = rest / jnp.maximum(jnp.sqrt(jnp.sum(rest * rest, axis=-1, keepdims=True)), 1e-12)
    chosen = jnp.where(ok[:, None], chosen, clamped[:, None] * direction
                       + jnp.sqrt(1 - clamped * clamped)[:, None] * rest)
    z = jax.random.normal(k_best, (dim,))
    side = _unit_rows(z - (z @ direction) * direction)
    best = GAP_BEST * direction + jnp.sqrt(1 - GAP_BEST ** 2) * side
    index = jax.random.randint(k_index, (), 0, num_arms)
    return jnp.where((jnp.arange(num_arms) == index)[:, None], best, chosen)


def _with_bias(s):
    """(s, 1): a bias coordinate appended."""
    return jnp.concatenate([s, jnp.ones(s.shape[:-1] + (1,), s.dtype)], axis=-1)


@functools.lru_cache(maxsize=None)
def linear_env(num_arms: int, dim: int, law: str = "fixed", rewards: str = "bernoulli", link: str = "identity",
               instance: str = "given") -> Env:
    """The linear environment object for K arms, d dimensions and the build-time options (memoized)."""
    checks.known_name("linear law", law, LAWS)
    checks.known_name("linear rewards", rewards, REWARDS)
    checks.known_name("linear link", link, LINKS)
    checks.known_name("linear instance", instance, INSTANCES)
    K, d = num_arms, dim
    apply_link = (lambda z: z) if link == "identity" else jax.nn.sigmoid

    def draw(key, steps, params):
        return open_uniform(key, (steps,))

    def context(rng, params):
        if law == "fixed":
            return params.features
        if law == "sphere":
            return _unit_rows(jax.random.normal(rng.key, (K, d)))
        if law == "gap":
            return _gap_arms(rng.key, K, d, params.theta, params.gap)
        return _with_bias(_unit_rows(jax.random.normal(rng.key, (K, d - 1))))

    def expected(params, features):
        return apply_link(features @ params.theta)

    def sample(rng, arm, params, features):
        mean = apply_link(jnp.sum(jnp.where((jnp.arange(K) == arm)[:, None], features, 0), axis=0) @ params.theta)
        u = rng.drawn
        if rewards == "bernoulli":
            return (u < mean).astype(u.dtype)
        if rewards == "signed":
            return jnp.where(u < (1 + mean) / 2, 1.0, -1.0).astype(u.dtype)
        return mean + params.noise_std * ndtri(u)

    def means(params):
        return expected(params, params.features)

    def draw_instance(key, params):
        if instance == "unit-theta":
            return params._replace(theta=_unit_rows(jax.random.normal(key, (d,))).astype(params.theta.dtype))
        k_features, k_theta = jax.random.split(key)
        features = _with_bias(_unit_rows(jax.random.normal(k_features, (K, d - 1))))
        basis = jnp.eye(d).at[:, -1].set(1.0)  # e_i + e_d for i < d, and e_d
        features = features.at[:d].set(basis.astype(features.dtype))
        u = _unit_rows(jax.random.normal(k_theta, (d - 1,)))
        theta = jnp.concatenate([CZ_RADIUS * u, jnp.full((1,), 0.5, u.dtype)])
        dtype = params.theta.dtype
        return params._replace(features=features.astype(dtype), theta=theta.astype(dtype))

    def support(params):
        return {"bernoulli": (0.0, 1.0), "signed": (-1.0, 1.0)}.get(rewards, (-np.inf, np.inf))

    def validate(params):
        features, theta = np.asarray(params.features), np.asarray(params.theta)
        if features.shape != (K, d):
            raise ValueError(f"linear parameter features has shape {features.shape}, expected ({K}, {d}) (one row of "
                             f"d = {d} features per arm)")
        if theta.shape != (d,):
            raise ValueError(f"linear parameter theta has shape {theta.shape}, expected ({d},)")
        checks.as_array("linear parameter features", features)
        checks.as_array("linear parameter theta", theta)
        if rewards == "gaussian":
            checks.in_range("noise_std", params.noise_std, 0.0, np.inf, high_open=True)
        if law == "gap":
            checks.in_range("gap", params.gap, 0.0, 1.5, high_open=True)
            if instance == "given" and not 0 < np.linalg.norm(theta) <= 1:
                raise ValueError(f"the gap law needs 0 < |theta| <= 1 (its means are |theta| times projections in "
                                 f"[-1, 1]), got |theta| = {np.linalg.norm(theta):.6g}")
        if rewards == "signed" and link == "identity" and law != "gap" and instance == "given":
            if law == "fixed" and np.any(np.abs(features @ theta) > 1):
                raise ValueError("signed rewards need every mean <x_a, theta> in [-1, 1]")
        if rewards != "bernoulli" or link != "identity" or instance != "given":
            return  # the logistic link maps into (0, 1); a random instance's law keeps its means in [0, 1]
        if law == "fixed":
            mean = features @ theta
            if np.any(mean < 0) or np.any(mean > 1):
                a = int(np.argmax((mean < 0) | (mean > 1)))
                raise ValueError(f"Bernoulli rewards need every mean <x_a, theta> in [0, 1], but arm {a} has "
                                 f"{mean[a]:.6g} (use link='logistic', or rescale the features or theta)")
        elif law == "sphere":
            raise ValueError("Bernoulli rewards with the identity link need <x, theta> in [0, 1], which features "
                             "uniform on the sphere cannot give (they take both signs): use law='sphere-bias', "
                             "link='logistic' or rewards='gaussian'")
        else:
            radius, bias = float(np.linalg.norm(theta[:-1])), float(theta[-1])
            if bias - radius < 0 or bias + radius > 1:
                raise ValueError(f"Bernoulli rewards need <x, theta> in [0, 1] for every x = (s, 1) on the sphere: "
                                 f"theta[-1] ± |theta[:-1]| = {bias:.6g} ± {radius:.6g} must lie in [0, 1]")

    name = "linear"
    default = LinearParams(jnp.zeros((K, d)), jnp.zeros(d), jnp.asarray(0.5), jnp.asarray(0.1))
    return Env(name=name, num_arms=K, draw=draw, sample=sample, means=means if law == "fixed" else None,
               support=support, validate=validate, default_params=default, context=context, expected=expected,
               instance=draw_instance if instance != "given" else None, dim=d)


def linear(features=None, theta=None, noise_std=0.5, num_arms=None, dim=None, law="fixed", rewards="bernoulli",
           link="identity", instance="given", gap=0.1):
    """Linear bandit: K arms with d features, mean link(<x, theta>), features fixed or drawn each round.

    Registry factory ``(**params) -> (env, params)``:

    - ``features``: K × d, inline or a ``.npy``/``.csv`` file (one arm per row): the arms of ``law="fixed"``;
    - ``theta``: d numbers;
    - ``noise_std``: the standard deviation of ``rewards="gaussian"`` (default 0.5);
    - ``num_arms``, ``dim``: K and d where no features (or no theta) give them;
    - ``law``: ``"fixed"`` (default), ``"sphere"``, ``"sphere-bias"`` or ``"gap"`` (features drawn each round);
    - ``rewards``: ``"bernoulli"`` (default), ``"signed"`` (±1) or ``"gaussian"``; ``link``: ``"identity"``
      (default) or ``"logistic"``;
    - ``instance``: ``"given"`` (default), ``"chowdhury-zhou"`` (a new instance per run, drawn from the run's key
      as Chowdhury & Zhou's script draws them; give ``num_arms`` and ``dim`` only) or ``"unit-theta"`` (θ uniform
      on the unit sphere per run);
    - ``gap``: the gap law's Δ (default 0.1).

    Example: ``envs.make("linear", features=[[1, 0], [0, 1]], theta=[0.3, 0.6])``.
    """
    for option, value, valid in (("law", law, LAWS), ("rewards", rewards, REWARDS), ("link", link, LINKS),
                                 ("instance", instance, INSTANCES)):
        if not isinstance(value, str) or value not in valid:
            raise ValueError(f"linear option {option}={value!r} is not one of {', '.join(map(repr, valid))}")
    given = {"features": features is not None, "theta": theta is not None}
    if instance == "unit-theta" and law == "fixed":
        raise ValueError("linear instance='unit-theta' draws only theta: give a law that draws the features each "
                         "round (law='gap', 'sphere' or 'sphere-bias')")
    if instance != "given" or law != "fixed":
        if features is not None:
            why = f"instance={instance!r} draws them per run" if instance != "given" else f"law={law!r} draws them " \
                                                                                            "each round"
            raise ValueError(f"linear parameter features is not used: {why} (give num_arms and dim instead)")
    if instance != "given" and theta is not None:
        raise ValueError(f"linear parameter theta is not used: instance={instance!r} draws it per run")
    X = None if features is None else load_features(features)
    if X is not None and (X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1):
        raise ValueError(f"linear parameter features must be a K × d matrix (one row of features per arm), got "
                         f"shape {X.shape}")
    th = None if theta is None else checks.as_array("linear parameter theta", theta)
    if th is not None and th.ndim != 1:
        raise ValueError(f"linear parameter theta must be a vector of d numbers, got shape {th.shape}")
    K = X.shape[0] if X is not None else num_arms
    d = X.shape[1] if X is not None else th.shape[0] if th is not None else dim
    if X is not None and num_arms is not None and int(num_arms) != K:
        raise ValueError(f"linear parameter num_arms={num_arms} disagrees with the {K} rows of features")
    if dim is not None and d is not None and int(dim) != d:
        raise ValueError(f"linear parameter dim={dim} disagrees with the features' or theta's dimension {d}")
    if K is None:
        raise ValueError("linear needs its number of arms: give features (K × d) or num_arms")
    if d is None:
        raise ValueError("linear needs the features' dimension: give features, theta or dim")
    K = checks.positive_int("num_arms", K)
    d = checks.positive_int("dim", d)
    if law == "sphere-bias" or instance == "chowdhury-zhou":
        if d < 2:
            raise ValueError(f"linear parameter dim={d} must be at least 2 for law='sphere-bias' and the "
                             "chowdhury-zhou instance (a sphere and a bias coordinate)")
    if instance == "chowdhury-zhou" and K < d:
        raise ValueError(f"linear parameter num_arms={K} must be at least dim={d} for the chowdhury-zhou instance "
                         "(its first d arms are the basis vectors)")
    if instance == "given" and not given["theta"]:
        raise ValueError("linear needs theta (d numbers), or instance='chowdhury-zhou' for a random one per run")
    if instance == "given" and law == "fixed" and not given["features"]:
        raise ValueError("linear needs features (K × d, inline or a .npy/.csv file) for law='fixed', or a law "
                         "that draws them each round (law='sphere' or 'sphere-bias')")
    env = linear_env(K, d, law, rewards, link, instance)
    dtype = jnp.zeros(()).dtype
    params = env.default_params._replace(noise_std=jnp.asarray(checks.as_array("noise_std", noise_std), dtype))
    if X is not None:
        params = params._replace(features=jnp.asarray(X, dtype))
    if th is not None:
        params = params._replace(theta=jnp.asarray(th, dtype))
    if np.ndim(noise_std) != 0:
        raise ValueError(f"linear parameter noise_std={noise_std!r} must be one number")
    params = params._replace(gap=jnp.asarray(checks.in_range("gap", gap, 0.0, 1.5, high_open=True), dtype))
    env.validate(params)
    return env, params
