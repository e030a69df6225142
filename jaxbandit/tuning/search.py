"""`expanding_search`: a grid search over several parameters that does not stop at its grid's edge.

The frontier tunes every algorithm's free parameters (`jaxbandit.types.Policy.tunable`) on simulated runs. A fixed
grid answers "the best of these values"; where the best sits at an edge of the grid, the optimum may lie beyond
it, and the answer changes when the grid grows. This search starts from the grid and then:

1. **expands**: while a parameter's best value (the others at theirs) is at an end of its axis and strictly better
   than its inner neighbour, it steps beyond that end, by the ratio of the end to its neighbour, at least 2× (in
   log(x − low + 1) for an integer, by twice the spacing for an axis that reaches 0 or below). A step the policy or
   the budget refuses is halved in its coordinate, up to `SHRINKS` times; if every one is refused, that end is the
   parameter's **hard edge** (its valid range, or where the budget can no longer be met). After `MAX_EXPANSIONS`
   steps on one parameter it stops: a best value still at that end is at a **movable edge**.
2. **refines**: rounds of the midpoints between each parameter's best value and its neighbours (the geometric mean
   on a positive axis; integers rounded, skipped where no integer lies between), until each best value's neighbours
   are within 10% of it (`CLOSE`), at most `REFINEMENTS` rounds. (Two fixed rounds left modified TS's b at 3230 where
   the gradient found 2721, 148 regret lower at 9 arms.)
3. **confirms**: the `CONFIRM` best points are simulated again on other, more runs (the caller's confirmation
   runs), and the least of those is the answer. The least of many noisy means is luckier than it is good (the
   winner's curse): on DP-FTPL's instance 1 at ε = 2 the search alone picked lazy-UCB's c1 = 0.045, evaluated at
   521 ± 86, where the grid's c1 = 0.1 is evaluated at 276 ± 38.

Every point is simulated on the same runs of one seed (common random numbers: the differences between points are
far less noisy than their means). The search is a generator, so that a driver can batch several searches (one per
level) into one simulation: it yields a list of candidate points (``{name: value}``) and receives their mean
regrets. How they are simulated is the driver's: the frontier races them (`jaxbandit.frontiers.algorithm._Race`:
a point clearly worse than its level's best on its first runs gets no more, and its mean is estimated on the
best's runs by their paired difference).

A best value ends in one of four states (`SearchResult.status`): ``"interior"``; ``"hard edge"`` (at an end that
cannot move); ``"plateau"`` (at an end whose neighbour has exactly the same regret on these runs, e.g. an
elimination schedule that does not change: moving further cannot be told apart); ``"movable edge"`` (at an end that
could still move: the frontier then does not recommend the row).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Callable, Generator, Mapping

__all__ = ["expanding_search", "SearchResult", "Confirm", "MAX_EXPANSIONS", "SHRINKS", "REFINEMENTS", "CLOSE",
           "CONFIRM", "STATES"]

MAX_EXPANSIONS = 6   # steps beyond the grid per parameter (each at least 2×: a range 64× wider, at least)
SHRINKS = 4          # halvings of a refused step before an end is called hard
REFINEMENTS = 6      # rounds of midpoints around the best, at most
CLOSE = 1.1          # refinement stops where the best value's neighbours are within 10% of it
CONFIRM = 3          # best points simulated again on the confirmation runs
STATES = ("interior", "hard edge", "plateau", "movable edge")


@dataclasses.dataclass
class SearchResult:
    """The outcome of `expanding_search`.

    Attributes:
      best: ``{name: value}`` of the least mean regret among the points simulated.
      regret: its mean regret.
      status: ``{name: state}``, one of `STATES` per parameter.
      points: every simulated point, ``[({name: value}, mean regret)]`` in the order simulated.
      axes: ``{name: [values]}``, each parameter's values after expansion and refinement.
      rounds: the number of batches simulated (the confirmation not counted).
      confirmed: the `CONFIRM` best points simulated again on the confirmation runs, ``[({name: value}, mean)]``
        (``[]`` where one point was searched); ``best`` is the least of them.
    """

    best: dict
    regret: float
    status: dict
    points: list
    axes: dict
    rounds: int
    confirmed: list = dataclasses.field(default_factory=list)

    def movable(self) -> list:
        """The parameters whose best value sits at a movable edge."""
        return [n for n, s in self.status.items() if s == "movable edge"]


def _close(at, other, positive, axis, integer) -> bool:
    """Whether ``other`` is near enough to ``at`` to stop refining between them: within a factor `CLOSE` on a
    positive axis (an integer's: of x − low + 1, or 1 apart), within (CLOSE − 1) of the axis's span otherwise."""
    if integer:
        lo = min(axis[0], 0.0)
        return abs(at - other) <= 1 or (max(at, other) - lo + 1) / (min(at, other) - lo + 1) <= CLOSE
    if positive:
        return max(at, other) / min(at, other) <= CLOSE
    return abs(at - other) <= (CLOSE - 1) * (axis[-1] - axis[0])


class Confirm(list):
    """What `expanding_search` yields last: its best points, to be simulated on the confirmation runs (other seeds,
    more runs) rather than the search's."""


def _key(names, values) -> tuple:
    return tuple(float(values[n]) for n in names)


def expanding_search(grids: Mapping[str, tuple], valid: Callable[[dict], bool], *, integer=(),
                     max_expansions: int = MAX_EXPANSIONS, refinements: int = REFINEMENTS,
                     confirm: int = CONFIRM) -> Generator[list, list, SearchResult | None]:
    """The search (module docstring) as a generator: ``points = next(gen)``, then ``gen.send(means)`` with the mean
    regret of each point, until it returns its `SearchResult` (``StopIteration.value``; ``None`` where no point of
    the grid is valid). Its last request is a `Confirm` list: the ``confirm`` best points, whose means it wants on
    the confirmation runs; the least of those is the answer. ``grids``: each parameter's starting values; ``valid(values)``: whether the policy accepts
    the point and it can meet the level (the frontier calibrates there); ``integer``: the names of integer
    parameters."""
    names = sorted(grids)
    integer = set(integer)
    axes = {n: sorted({float(v) for v in grids[n]}) for n in names}
    positive = {n: axes[n][0] > 0 for n in names}
    seen, refused, accepted, order = {}, set(), set(), []
    rounds = 0

    def allowed(values):
        """``valid``, asked once per point (the frontier calibrates there): a step probed is not asked again."""
        k = _key(names, values)
        if k in accepted:
            return True
        if k in refused:
            return False
        (accepted if valid(values) else refused).add(k)
        return k in accepted

    def ask(candidates):
        nonlocal rounds
        fresh, keys = [], set()
        for c in candidates:
            k = _key(names, c)
            if k in seen or k in keys:
                continue
            if allowed(c):
                fresh.append(c)
                keys.add(k)
        if not fresh:
            return
        means = yield fresh
        rounds += 1
        for c, m in zip(fresh, means):
            seen[_key(names, c)] = float(m)
            order.append((dict(c), float(m)))

    def best():
        k = min(seen, key=lambda k: (seen[k], k))
        return dict(zip(names, k)), seen[k]

    yield from ask([dict(zip(names, combo)) for combo in itertools.product(*(axes[n] for n in names))])
    if not seen:
        return None
    hard, expansions, plateau = set(), dict.fromkeys(names, 0), set()

    def step(n, at, neighbour, shrink):
        """The value beyond ``at`` away from ``neighbour``, the step halved ``shrink`` times in its coordinate."""
        if integer and n in integer:
            lo = min(axes[n][0], 0.0)
            u, v = math.log(at - lo + 1), math.log(neighbour - lo + 1)
            d = max(abs(u - v), math.log(2)) / 2 ** shrink * (1 if u > v else -1)
            new = float(round(math.exp(u + d) - 1 + lo))
            return new if new != at else at + (1 if u > v else -1)
        if positive[n]:
            ratio = max(at / neighbour if at > neighbour else neighbour / at, 2.0) ** (1 / 2 ** shrink)
            return at * ratio if at > neighbour else at / ratio
        return at + 2 * (at - neighbour) / 2 ** shrink

    for _ in range(max_expansions * len(names)):
        here, _ = best()
        candidates = []
        for n in names:
            ax, at = axes[n], here[n]
            if len(ax) < 2 or at not in (ax[0], ax[-1]):
                continue
            side = "low" if at == ax[0] else "high"
            neighbour = ax[1] if side == "low" else ax[-2]
            inner = {**here, n: neighbour}
            k_inner = _key(names, inner)
            if k_inner not in seen and k_inner not in refused:
                candidates.append(inner)  # first compare with the inner neighbour at the others' best values
                continue
            if (n, side) in hard or expansions[n] >= max_expansions:
                continue
            if k_inner in seen and seen[k_inner] <= seen[_key(names, here)]:
                plateau.add((n, side))
                continue
            for shrink in range(SHRINKS + 1):
                new = step(n, at, neighbour, shrink)
                if new != at and allowed({**here, n: new}):
                    break
            else:
                hard.add((n, side))
                continue
            ax.append(new)
            ax.sort()
            expansions[n] += 1
            candidates.append({**here, n: new})
        if not candidates:
            break
        count = len(seen)
        yield from ask(candidates)
        if len(seen) == count:
            break

    for _ in range(refinements):  # until every best value's neighbours are within `CLOSE` of it
        here, _ = best()
        candidates = []
        for n in names:
            ax, at = axes[n], here[n]
            i = ax.index(at)
            for other in [ax[j] for j in (i - 1, i + 1) if 0 <= j < len(ax)]:  # before the midpoints go in
                if _close(at, other, positive[n], ax, n in integer):
                    continue
                if n in integer:
                    mid = float(round((at + other) / 2))
                elif positive[n]:
                    mid = math.sqrt(at * other)
                else:
                    mid = (at + other) / 2
                if mid in (at, other):
                    continue
                ax.append(mid)
                ax.sort()
                candidates.append({**here, n: mid})
        if not candidates:
            break
        yield from ask(candidates)

    # the few best points again on other, more runs: the search's best is the least of many noisy means, and is
    # on average luckier than it is good (the winner's curse); the confirmation picks among them on fresh runs
    ranked = sorted(seen, key=lambda k: (seen[k], k))[:confirm]
    confirmed = []
    if len(ranked) > 1:
        means = yield Confirm([dict(zip(names, k)) for k in ranked])
        confirmed = [(dict(zip(names, k)), float(m)) for k, m in zip(ranked, means)]
        here = min(confirmed, key=lambda c: c[1])[0]
        regret = seen[_key(names, here)]
    else:
        here, regret = best()
    status = {}
    for n in names:
        ax, at = axes[n], here[n]
        if len(ax) < 2 or at not in (ax[0], ax[-1]):
            status[n] = "interior"
            continue
        side = "low" if at == ax[0] else "high"
        if (n, side) in hard:
            status[n] = "hard edge"
        elif (n, side) in plateau:
            status[n] = "plateau"
        else:
            neighbour = ax[1] if side == "low" else ax[-2]
            k_inner = _key(names, {**here, n: neighbour})
            status[n] = "plateau" if k_inner in seen and seen[k_inner] <= regret else "movable edge"
    return SearchResult(here, regret, status, order, {n: list(a) for n, a in axes.items()}, rounds, confirmed)
