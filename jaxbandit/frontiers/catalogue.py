"""The frontier's catalogue: which private algorithms apply to an instance (`algorithms`), each an `Algorithm`
(a private policy, or an LDP channel with a learner of its reports), with its trust model (`TRUST_MODELS`)."""
from __future__ import annotations

import dataclasses
import math
from typing import Mapping, Sequence

import numpy as np

from jaxbandit import checks, policies, privatizers
from jaxbandit import spec as specs


#: The frontier's trust models, each with the claims that may be recommended under it (``NOTIONS``, their former
#: name, is kept): a learner trusted with the rewards (central, whole-run DP); a server trusted with the data whose
#: outputs to the other users are private (joint DP: not DP of the action sequence); a shuffler trusted to unlink
#: the messages of a batch (shuffle DP: not central DP); no one (local: each user's report).
TRUST_MODELS = {"central": "(ε, δ)-DP over the whole run", "joint": "joint (ε, δ)-DP: the outputs to every other user",
                "shuffle": "shuffle (ε, δ)-DP of the shuffled batches", "local": "ε-LDP of each report"}
NOTIONS = TRUST_MODELS
SCOPE_OF = {"central": "run", "joint": "joint", "shuffle": "shuffle", "local": "report"}  # the scope that counts
TRUST_OF = {scope: trust for trust, scope in SCOPE_OF.items()}  # a claim's scope → its trust model
PLAIN_LEARNERS = ("thompson", "klucb", "ucb1")  # seed 000's learners of privatized rewards, and kl-UCB
CHANNEL_AWARE = ("klucb-cf", "ts-cf", "ucb-cf", "wr-klucb", "wr-ts")  # seed 002: they take the channel's parameters


@dataclasses.dataclass(frozen=True)
class Algorithm:
    """A private algorithm of the frontier: a policy, with an LDP channel where the privacy is local.

    Attributes:
      name: ``policy`` or ``policy+channel`` (e.g. ``"thompson+linear"``).
      policy, privatizer: registry names (``"identity"``: the learner sees the rewards).
      trust: its trust model, a key of `TRUST_MODELS`: ``"central"`` (the learner is trusted with the rewards),
        ``"joint"`` (the server is, its outputs to the others are private), ``"shuffle"`` (a shuffler is) or
        ``"local"`` (no one is: each user privatizes). Saved rows keep the key ``"family"``, its former name, as
        does the attribute ``family`` (deprecated).
    """

    name: str
    policy: str
    privatizer: str = "identity"
    trust: str = "central"

    @property
    def family(self) -> str:
        """The former name of ``trust`` (deprecated)."""
        import warnings
        warnings.warn("Algorithm.family is now Algorithm.trust (its trust model)", DeprecationWarning, stacklevel=2)
        return self.trust

    @property
    def private(self) -> str:
        """Which component's accountant states the claim, ``"policy"`` or ``"privatizer"``."""
        return "policy" if self.privatizer == "identity" else "privatizer"


# ------------------------------------------------------------------------------------------------ selection
def _range(r) -> str:
    return f"[{r[0]:.4g}, {r[1]:.4g}]"


def _within(inner, outer) -> bool:
    """Whether the range ``inner`` lies in ``outer`` (``None``: the whole real line)."""
    if outer is None:
        return True
    if inner is None:
        return False
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def instance_of(env, env_params):
    """The environment object, its params and its reward range (a user's `Env` too)."""
    spec = specs.resolve(env, "uniform", env_params=env_params)
    low, high = (float(x) for x in spec.env.support(spec.params.env))
    return spec.env, spec.params.env, (low, high)


def moment_params(policy, env, env_p, support, given) -> tuple[dict, str | None]:
    """v and u of a heavy-tailed policy (E|X|^{1+v} ≤ u) from a bounded instance; (params, reason not applicable)."""
    fields = getattr(policy.default_params, "_fields", ())
    if not {"v", "u"} <= set(fields) or {"v", "u"} <= set(given):
        return {}, None
    if not all(math.isfinite(x) for x in support):
        return {}, (f"rewards are unbounded: give its moment bound, policy_params={{{policy.name!r}: {{'v': ..., "
                    "'u': ...}} with E|X|^(1+v) <= u")
    if env.second_moments is not None:
        u = float(np.max(np.asarray(env.second_moments(env_p), np.float64)))
    else:
        u = max(abs(support[0]), abs(support[1])) ** 2
    return {"v": 1.0, "u": max(u, 1e-12)}, None


def algorithms(env, env_params: Mapping | None = None, *, include: Sequence[str] | None = None,
               exclude: Sequence[str] | None = None, policy_params: Mapping | None = None):
    """The private algorithms that apply to an instance (module docstring), and those that do not with the reason.

    Args:
      env, env_params: the instance, as for `jaxbandit.simulate`.
      include, exclude: algorithm names (``"dp-se"``, ``"thompson+linear"``), policy or channel names (all their
        algorithms) or trust models (``"central"``, ``"joint"``, ``"shuffle"``, ``"local"``); default: every algorithm.
      policy_params: ``{algorithm or policy name: {parameter: value}}`` fixed for that algorithm (e.g. the moment
        bound of a heavy-tailed one on unbounded rewards).

    Returns:
      ``(algorithms, skipped)``: a list of `Algorithm` and ``{name: reason}`` for those that do not apply.
    """
    env_o, env_p, support = instance_of(env, env_params)
    K = env_o.num_arms
    found = []
    channels = [n for n in privatizers.names() if privatizers.make(n)[0].accountant is not None]
    for name in policies.names():
        if policies.is_contextual(name) and env_o.context is None:
            continue  # a contextual policy runs only on a contextual environment
        pol = policies.get(name, K, env_o.dim)
        if pol.accountant is not None:
            # who is trusted: the scope of its claim says (each round's claim counts as central, never recommended)
            found.append(Algorithm(name, name, "identity", TRUST_OF.get(pol.accountant.scope, "central")))
        elif name in PLAIN_LEARNERS + CHANNEL_AWARE:
            for channel in channels:
                fields = set(privatizers.make(channel)[1]._fields)
                aware = fields <= set(pol.default_params._fields)
                if (name in CHANNEL_AWARE) == aware:
                    found.append(Algorithm(f"{name}+{channel}", name, channel, "local"))
    chosen = _select(found, include, exclude)
    kept, skipped = [], {}
    for alg in chosen:
        reason = _not_applicable(alg, env, env_params, env_o, env_p, support, params_for(alg, policy_params))
        if reason:
            skipped[alg.name] = reason
        else:
            kept.append(alg)
    return kept, skipped


def _select(found, include, exclude):
    def keys(alg):
        return {alg.name, alg.policy, alg.privatizer, alg.trust}
    valid = set().union(*(keys(a) for a in found)) - {"identity"}
    for flag, names in (("include", include), ("exclude", exclude)):
        for n in names or ():
            if n not in valid:
                checks.known_name(f"{flag} entry (algorithm, policy, channel or family)", n, sorted(valid))
    out = [a for a in found if include is None or keys(a) & set(include)]
    return [a for a in out if not keys(a) & set(exclude or ())]


def params_for(alg, policy_params) -> dict:
    """The parameters the user fixed for ``alg``: ``policy_params``' entry for its policy, then its own name's."""
    given = dict(policy_params or {})
    unknown = [k for k, v in given.items() if not isinstance(v, Mapping)]
    if unknown:
        raise ValueError(f"policy_params maps algorithm or policy names to {{parameter: value}}; {unknown[0]!r} maps "
                         f"to {given[unknown[0]]!r}")
    return {**dict(given.get(alg.policy, {})), **dict(given.get(alg.name, {}))}


def _not_applicable(alg, env, env_params, env_o, env_p, support, given) -> str | None:
    pol = policies.get(alg.policy, env_o.num_arms, env_o.dim)
    if alg.privatizer == "identity":
        if not _within(support, pol.reward_range):
            return f"it takes rewards in {_range(pol.reward_range)}; this instance's lie in {_range(support)}"
    else:
        channel = privatizers.make(alg.privatizer)[0]
        if not _within(support, channel.reward_range):
            return (f"its channel takes rewards in {_range(channel.reward_range)}; this instance's lie in "
                    f"{_range(support)}")
        if not _within(channel.output_range or support, pol.reward_range):
            return f"the learner takes observations in {_range(pol.reward_range)}, the channel emits others"
    moments, reason = moment_params(pol, env_o, env_p, support, given)
    if reason:
        return reason
    try:
        specs.resolve(env, alg.policy, alg.privatizer, env_params=env_params, policy_params={**moments, **given})
    except ValueError as err:
        return str(err)
    return None


# ------------------------------------------------------------------------------------------------ the result
