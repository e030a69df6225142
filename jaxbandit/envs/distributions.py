"""Reward distributions of single arms and the environments built from them.

Each family maps one step's pre-drawn randomness to a reward of one arm. Families with a closed-form inverse
CDF use a single open uniform u in (0, 1), shared by every family of an environment and drawn from the
environment's own key, so that different policies run with the same seed see the same reward draw at the same
step for the same arm (common random numbers). Beta arms have no cheap inverse CDF and use the exact Gamma
ratio sampler of `jaxbandit.random.samplers`.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import math
from collections import namedtuple
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import ndtr, ndtri

from jaxbandit import checks
from jaxbandit.random import samplers
from jaxbandit.types import Env, StepRandom

_INF = math.inf


def open_uniform(key, shape, dtype=None):
    """Uniform draws on the open interval (0, 1): jax's [0, 1) grid shifted by half a grid step."""
    dtype = dtype or jnp.zeros(()).dtype
    return jax.random.uniform(key, shape, dtype) + jnp.finfo(dtype).eps / 2


# Whether `pick` selects (True) or sums a one-hot (False): a tracing-time choice of kernel, not of numbers.
_PICK_BY_SELECTS = contextvars.ContextVar("pick_by_selects", default=False)


@contextlib.contextmanager
def pick_by_selects():
    """While tracing inside this context, `pick` is a chain of selects instead of a one-hot sum: the same numbers.
    The epoch simulator picks an arm's parameters for every round of a chunk, where the one-hot sum's reduction
    over a short last axis is a slow XLA:CPU kernel of its own (2.6 s of 5.9 for DPRSE on S1, T = 10^6, 90 runs);
    the engine picks once per step, where XLA:CPU copies the chain of selects into each reader of the reward and
    Gaussian TS and ε-greedy ran 5–10% slower with it (benchmarks/RESULTS.md)."""
    token = _PICK_BY_SELECTS.set(True)
    try:
        yield
    finally:
        _PICK_BY_SELECTS.reset(token)


def pick(values, arm):
    """``values[arm]`` by elementwise operations: vectorizes across runs where a gather would not. A one-hot sum
    over the arms, or (`pick_by_selects`, up to 32 arms) a chain of selects; both exact."""
    k = values.shape[-1]
    if not _PICK_BY_SELECTS.get() or k > 32:
        onehot = jnp.arange(k) == arm
        return jnp.sum(jnp.where(onehot, values, jnp.zeros((), values.dtype)), axis=-1)
    out = values[..., 0]
    for a in range(1, k):
        out = jnp.where(arm == a, values[..., a], out)
    return out


class Family(NamedTuple):
    """One reward family: per-arm fields, a sampler from (u, gamma noise) and its exact mean."""

    name: str
    description: str
    fields: tuple                 # per-arm parameter names, in order
    defaults: dict                # optional fields and their default values
    sample: Callable              # (u, extra, key, *field_values_of_arm) -> reward; extra: the family's second
                                  # noise (BetaNoise, a second uniform) or None
    mean: Callable                # (*field arrays) -> mean array (jnp)
    support: Callable             # (*field arrays, numpy) -> (low, high)
    validate: Callable            # (**field arrays, numpy) -> None
    needs_beta_noise: bool = False
    needs_second_uniform: bool = False      # a second open uniform per step (Student-t's polar method)
    second_moment: Callable | None = None   # (*field arrays) -> E[R²] (jnp), None: no closed form here
    mgf: Callable | None = None             # (s, *field arrays) -> E[e^{sR}] (jnp)


def _bernoulli_validate(means):
    checks.in_range("means", means, 0.0, 1.0)


def _gaussian_mean(means, stds, low, high):
    """Mean of clip(N(m, s^2), low, high): l Φ(α) + h (1 − Φ(β)) + m (Φ(β) − Φ(α)) + s (φ(α) − φ(β))."""
    alpha, beta = (low - means) / stds, (high - means) / stds
    phi = lambda z: jnp.where(jnp.isfinite(z), jnp.exp(-0.5 * z * z) / math.sqrt(2 * math.pi), 0.0)
    below = jnp.where(jnp.isfinite(low), low * ndtr(alpha), 0.0)
    above = jnp.where(jnp.isfinite(high), high * (1 - ndtr(beta)), 0.0)
    return below + above + means * (ndtr(beta) - ndtr(alpha)) + stds * (phi(alpha) - phi(beta))


def _gaussian_validate(means, stds, low, high):
    checks.as_array("means", means)
    checks.in_range("stds", stds, 0.0, _INF, low_open=True, high_open=True)
    checks.in_range("low", low, -_INF, _INF, high_open=True)
    checks.in_range("high", high, -_INF, _INF, low_open=True)
    if np.any(np.asarray(low) >= np.asarray(high)):
        raise ValueError(f"gaussian clip bounds low={low} must be below high={high}")


def _truncexp_sample(u, noise, key, rate):
    # Inverse CDF of Exp(rate) truncated to [0, 1]: F(x) = (1 − e^{−λx}) / (1 − e^{−λ}).
    return -jnp.log1p(u * jnp.expm1(-rate)) / rate


def _truncexp_mean(rates):
    """1/λ − 1/(e^λ − 1). Below λ = 1 the difference cancels in float32, so use its Bernoulli-number series
    1/2 − λ/12 + λ³/720 − λ⁵/30240 + λ⁷/1209600 − λ⁹/47900160 (truncation error < 1e-9 there)."""
    small = rates < 1.0
    safe = jnp.where(small, 1.0, rates)
    x = jnp.where(small, rates, 0.0)
    x2 = x * x
    series = 0.5 - x * (1 / 12 - x2 * (1 / 720 - x2 * (1 / 30240 - x2 * (1 / 1209600 - x2 / 47900160))))
    return jnp.where(small, series, 1 / safe - 1 / jnp.expm1(safe))


def _beta_sample(u, noise, key, alpha, beta):
    return samplers.beta(key, alpha, beta, noise)


def _beta_second_moment(a, b):
    return a * (a + 1) / ((a + b) * (a + b + 1))


def _beta_mgf(s, a, b):
    """E[e^{sR}] of Beta(a, b): Kummer's 1F1(a; a + b; s)."""
    return jax.scipy.special.hyp1f1(a, a + b, s * jnp.ones_like(a))


def _uniform_mgf(s, low, high):
    """(e^{s·high} − e^{s·low}) / (s (high − low)), written as e^{s·low} expm1(x)/x with x = s (high − low)."""
    x = s * (high - low)
    small = jnp.abs(x) < 1e-4
    ratio = jnp.where(small, 1 + x / 2 + x * x / 6, jnp.expm1(x) / jnp.where(small, 1.0, x))
    return jnp.exp(s * low) * ratio


def _uniform_validate(low, high):
    checks.as_array("low", low)
    checks.as_array("high", high)
    if np.any(np.asarray(low) > np.asarray(high)):
        raise ValueError(f"uniform bounds low={low} must not exceed high={high}")


def _two_point_validate(low, high, p_high):
    checks.as_array("low", low)
    checks.as_array("high", high)
    checks.in_range("p_high", p_high, 0.0, 1.0)


PARETO_SHAPE_OFFSET = 1.05  # seed 004 §6: Pareto shape α = 1.05 + v, so E|X|^{1+v} is finite (α − (1+v) = 0.05)


def pareto_shape(v):
    """α = 1.05 + v: the Pareto shape of seed 004's experiments (Tao et al. 2022, §6; spec 004 §5.1)."""
    return PARETO_SHAPE_OFFSET + v


def pareto_scale(means, v):
    """λ = (α − 1) μ / α: the Pareto scale whose mean α λ/(α − 1) is μ."""
    alpha = pareto_shape(v)
    return (alpha - 1) * means / alpha


def _pareto_sample(u, extra, key, means, v):
    # Inverse CDF of Pareto(λ, α): F(x) = 1 − (λ/x)^α for x ≥ λ, so x = λ u^{-1/α} (u and 1 − u have one law).
    return pareto_scale(means, v) * jnp.exp(-jnp.log(u) / pareto_shape(v))


def _pareto_validate(means, v):
    checks.in_range("means", means, 0.0, _INF, low_open=True, high_open=True)
    checks.in_range("v", v, 0.0, 1.0, low_open=True)


def _student_t_sample(u, u2, key, means, scales, df):
    """Bailey's polar method (Math. Comp. 62, 1994): with W and Θ/2π independent uniforms,
    cos Θ · sqrt(ν (W^{-2/ν} − 1)) is Student-t with ν degrees of freedom; exact, two uniforms, no rejection."""
    radius = jnp.sqrt(df * jnp.expm1(-2 * jnp.log(u) / df))
    return means + scales * radius * jnp.cos(2 * math.pi * u2)


def _student_t_validate(means, scales, df):
    checks.as_array("means", means)
    checks.in_range("scales", scales, 0.0, _INF, low_open=True, high_open=True)
    checks.in_range("df", df, 1.0, _INF, low_open=True, high_open=True)  # ν > 1: the mean exists


#: The reward families by name: each a `Family` with its fields, support, mean and inverse CDF.
FAMILIES = {
    f.name: f for f in [
        Family("bernoulli", "Bernoulli(mean) rewards in {0, 1}", ("means",), {},
               lambda u, n, k, m: (u < m).astype(u.dtype), lambda m: m,
               lambda m: (0.0, 1.0), _bernoulli_validate,
               second_moment=lambda m: m, mgf=lambda s, m: 1 - m + m * jnp.exp(s)),
        Family("gaussian", "N(mean, std^2), optionally clipped to [low, high]", ("means", "stds", "low", "high"),
               {"stds": 1.0, "low": -_INF, "high": _INF},
               lambda u, n, k, m, s, lo, hi: jnp.clip(m + s * ndtri(u), lo, hi), _gaussian_mean,
               lambda m, s, lo, hi: (float(np.min(lo)), float(np.max(hi))), _gaussian_validate),
        Family("truncexp", "exponential with rate λ truncated to [0, 1]; mean 1/λ − 1/(e^λ − 1)", ("rates",), {},
               _truncexp_sample, _truncexp_mean, lambda r: (0.0, 1.0),
               lambda rates: checks.in_range("rates", rates, 0.0, _INF, low_open=True, high_open=True)),
        Family("beta", "Beta(alpha, beta) rewards in [0, 1]", ("alpha", "beta"), {},
               _beta_sample, lambda a, b: a / (a + b), lambda a, b: (0.0, 1.0),
               lambda alpha, beta: (checks.in_range("alpha", alpha, 0.0, _INF, low_open=True, high_open=True),
                                    checks.in_range("beta", beta, 0.0, _INF, low_open=True, high_open=True)),
               needs_beta_noise=True, second_moment=_beta_second_moment, mgf=_beta_mgf),
        Family("uniform", "uniform on [low, high]", ("low", "high"), {},
               lambda u, n, k, lo, hi: lo + (hi - lo) * u, lambda lo, hi: (lo + hi) / 2,
               lambda lo, hi: (float(np.min(lo)), float(np.max(hi))), _uniform_validate,
               second_moment=lambda lo, hi: (lo * lo + lo * hi + hi * hi) / 3, mgf=_uniform_mgf),
        Family("two-point", "high with probability p_high, else low", ("low", "high", "p_high"), {},
               lambda u, n, k, lo, hi, p: jnp.where(u < p, hi, lo), lambda lo, hi, p: lo + p * (hi - lo),
               lambda lo, hi, p: (float(np.min(np.minimum(lo, hi))), float(np.max(np.maximum(lo, hi)))),
               _two_point_validate, second_moment=lambda lo, hi, p: lo * lo + p * (hi * hi - lo * lo),
               mgf=lambda s, lo, hi, p: (1 - p) * jnp.exp(s * lo) + p * jnp.exp(s * hi)),
        Family("pareto", "Pareto, shape 1.05 + v, scaled to mean `means` (Heavy-tailed DP bandits): E|X|^{1+v} finite, variance "
               "infinite", ("means", "v"), {"v": 0.5},
               _pareto_sample, lambda m, v: m, lambda m, v: (float(np.min(pareto_scale(m, v))), _INF),
               _pareto_validate),
        Family("student-t", "Student-t, df > 1 degrees of freedom, location `means`, scale `scales`: E|X|^p finite "
               "for p < df", ("means", "scales", "df"), {"scales": 1.0},
               _student_t_sample, lambda m, s, d: m, lambda m, s, d: (-_INF, _INF), _student_t_validate,
               needs_second_uniform=True),
    ]
}


@functools.lru_cache(maxsize=None)
def _params_class(family: str):
    return namedtuple(f"{family.title().replace('-', '')}Params", FAMILIES[family].fields)


class MixtureParams(NamedTuple):
    """Per-family parameters of a mixture environment, in the order of its `families`."""

    components: tuple


class _Layout(NamedTuple):
    families: tuple          # family names, in order of first appearance
    arm_family: tuple        # family index of each arm
    arm_local: tuple         # index of each arm within its family


@functools.lru_cache(maxsize=None)
def family_env(family: str, num_arms: int) -> Env:
    """An environment whose K arms all belong to one family; params are that family's NamedTuple."""
    checks.known_name("reward family", family, FAMILIES)
    layout = _Layout((family,), (0,) * num_arms, tuple(range(num_arms)))
    return _build(family, layout, single=True)


@functools.lru_cache(maxsize=None)
def mixture_env(arm_families: tuple) -> Env:
    """An environment whose arm ``a`` has reward family ``arm_families[a]`` (static)."""
    for f in arm_families:
        checks.known_name("reward family", f, FAMILIES)
    fams = tuple(dict.fromkeys(arm_families))
    local, seen = [], {f: 0 for f in fams}
    for f in arm_families:
        local.append(seen[f])
        seen[f] += 1
    layout = _Layout(fams, tuple(fams.index(f) for f in arm_families), tuple(local))
    return _build("mixture", layout, single=False)


def _build(name: str, layout: _Layout, *, single: bool) -> Env:
    fams = [FAMILIES[f] for f in layout.families]
    num_arms = len(layout.arm_family)
    needs_beta = any(f.needs_beta_noise for f in fams)
    needs_u2 = any(f.needs_second_uniform for f in fams)
    arm_family = np.array(layout.arm_family, np.int32)
    arm_local = np.array(layout.arm_local, np.int32)
    # Where each family's arms sit among the K arms (to assemble per-arm means).
    order = np.argsort(np.concatenate([np.flatnonzero(arm_family == i) for i in range(len(fams))]), kind="stable")

    def components(params):
        return (params,) if single else params.components

    def draw(key, steps, params):
        k_beta = jax.random.fold_in(key, 1)
        u = open_uniform(key, (steps,))
        # The second uniform has its own key: families that do not need it keep their draws.
        return (u, samplers.draw_beta_noise(k_beta, (steps,)) if needs_beta else None,
                open_uniform(jax.random.fold_in(key, 2), (steps,)) if needs_u2 else None)

    def extra(fam, noise):
        return noise[1] if fam.needs_beta_noise else noise[2] if fam.needs_second_uniform else None

    def sample(rng: StepRandom, arm, params):
        u = rng.drawn[0]
        if single:
            return fams[0].sample(u, extra(fams[0], rng.drawn), rng.key, *[pick(v, arm) for v in params])
        rewards = []
        local = pick(jnp.asarray(arm_local), arm)
        for fam, p in zip(fams, components(params)):
            values = [pick(v, jnp.minimum(local, v.shape[-1] - 1)) for v in p]
            rewards.append(fam.sample(u, extra(fam, rng.drawn), rng.key, *values))
        which = pick(jnp.asarray(arm_family), arm)
        return jnp.select([which == i for i in range(len(rewards))], rewards)

    def per_arm(per_family):
        return per_family[0] if single else jnp.take(jnp.concatenate(per_family), jnp.asarray(order, jnp.int32))

    def means(params):
        return per_arm([fam.mean(*p) for fam, p in zip(fams, components(params))])

    def second_moments(params):
        return per_arm([fam.second_moment(*p) for fam, p in zip(fams, components(params))])

    def mgf(s, params):
        return per_arm([fam.mgf(s, *p) for fam, p in zip(fams, components(params))])

    def support(params):
        bounds = [fam.support(*[np.asarray(v) for v in p]) for fam, p in zip(fams, components(params))]
        return min(b[0] for b in bounds), max(b[1] for b in bounds)

    def validate(params):
        for fam, p in zip(fams, components(params)):
            values = {f: np.asarray(v) for f, v in zip(fam.fields, p)}
            for f, v in values.items():
                if v.ndim != 1:
                    raise ValueError(f"{fam.name} parameter {f} must be one value per arm, got shape {v.shape}")
            checks.same_length(**values)
            fam.validate(**values)
        got = sum(np.asarray(p[0]).shape[0] for p in components(params))
        if got != num_arms:
            raise ValueError(f"environment has {num_arms} arms but its parameters describe {got}")

    default = [_params_class(f.name)(*[jnp.zeros(int(np.sum(arm_family == i))) for _ in f.fields])
               for i, f in enumerate(fams)]
    return Env(name=layout.families[0] if single else name, num_arms=num_arms, draw=draw, sample=sample,
               means=means, support=support, validate=validate,
               default_params=default[0] if single else MixtureParams(tuple(default)),
               second_moments=second_moments if all(f.second_moment for f in fams) else None,
               mgf=mgf if all(f.mgf for f in fams) else None)


def family_params(family: str, **fields):
    """A family's params NamedTuple from per-arm lists or scalars (scalars broadcast to every arm).

    Raises ``ValueError`` naming the parameter for unknown or missing fields, mismatched lengths and values
    outside the family's support.
    """
    fam = FAMILIES[family]
    unknown = set(fields) - set(fam.fields)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} for {family}; valid: {', '.join(fam.fields)}")
    values = {}
    for f in fam.fields:
        if f in fields:
            if isinstance(fields[f], str):
                raise ValueError(f"{family} parameter {f}={fields[f]!r} is a string; give numbers, one per arm, "
                                 f"e.g. {f}=[0.2, 0.8]")
            values[f] = checks.as_array(f"{family} parameter {f}", fields[f], allow_inf=True)
        elif f in fam.defaults:
            values[f] = np.asarray(fam.defaults[f], dtype=np.float64)
        else:
            raise ValueError(f"{family} needs parameter {f!r} (one value per arm)")
        if values[f].ndim > 1:
            raise ValueError(f"{family} parameter {f} must be a scalar or one value per arm, got shape "
                             f"{values[f].shape}")
        if values[f].size == 0:
            raise ValueError(f"{family} parameter {f}=[] is empty: give one value per arm (a bandit has at least "
                             f"2), e.g. {f}=[0.2, 0.8]")
        if np.any(np.isnan(values[f])):
            raise ValueError(f"{family} parameter {f}={values[f].tolist()} must not be NaN")
    num_arms = checks.same_length(**{f: v for f, v in values.items() if v.ndim == 1})
    values = {f: np.broadcast_to(v, (num_arms,)) for f, v in values.items()}
    fam.validate(**values)
    return _params_class(family)(*[jnp.asarray(values[f], dtype=jnp.zeros(()).dtype) for f in fam.fields])
