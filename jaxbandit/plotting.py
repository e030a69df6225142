"""Matplotlib figures (host side only).

The backend is left to matplotlib (it falls back to Agg on a machine without a display): forcing Agg here
would switch a notebook's inline backend off as soon as jaxbandit.plotting is imported, and its figures would
never show.
"""
from __future__ import annotations

import contextlib
import os

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np

BAND_Z = 2.0  # bands are mean ± 2 standard errors over runs
_STAMPS: list = []  # the title prefixes of `stamped` blocks, innermost last
_BOUNDS: list = [True]  # whether figures draw the papers' bounds (`bounds_shown`), innermost last


def plot_regret(ax, results, label=None, metric="pseudo_regret", color=None, band=True):
    """Mean regret over runs against t, with a ±2 SE band, on ``ax`` (a result without grid axes)."""
    mean, se = results.mean(metric), results.se(metric)
    line, = ax.plot(results.t, mean, label=label, color=color, lw=1.6)
    if band and results.runs > 1:
        ax.fill_between(results.t, mean - BAND_Z * se, mean + BAND_Z * se, color=line.get_color(), alpha=0.2, lw=0)
    return line


def regret_figure(curves, title, metric="pseudo_regret", logx_panel=True, ylabel=None):
    """A figure of regret curves: ``curves`` is a list of ``(label, Results)``.

    Two panels (linear and log time axis) unless ``logx_panel`` is False, each with its legend, so that either
    panel reads alone. The y label is mathtext (Σ_a Δ_a n_a(t) typeset, not with literal underscores).
    """
    ncols = 2 if logx_panel else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.2 * ncols, 4.4), squeeze=False)
    ylabel = ylabel or (r"pseudo-regret  $\Sigma_a\, \Delta_a\, n_a(t)$" if metric == "pseudo_regret"
                        else r"realized regret  $\mu^* t - \Sigma_{s \leq t}\, r_s$")
    for i, ax in enumerate(axes[0]):
        for label, res in curves:
            plot_regret(ax, res, label=label, metric=metric)
        ax.set_xlabel("t (rounds)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if i == 1:
            ax.set_xscale("log")
            ax.set_title("log time axis", fontsize=10)
        ax.legend(fontsize=9, loc="upper left")  # the log panel's curves are flat there too
    runs = curves[0][1].runs if curves else 0
    fig.suptitle(f"{title}\nmean over {runs} runs, bands ±{BAND_Z:g} SE", fontsize=11)
    fig.tight_layout()
    return fig


@contextlib.contextmanager
def stamped(prefix: str | None):
    """Figures saved inside the block get ``prefix`` in front of their title (``None``: no change), e.g. the
    reproductions' ``"QUICK (small T, few runs)"`` so that a quick figure is never taken for the paper's."""
    _STAMPS.append(prefix)
    try:
        yield
    finally:
        _STAMPS.pop()


@contextlib.contextmanager
def bounds_shown(show: bool):
    """Inside the block, `draw_bound` draws nothing when ``show`` is False (``jaxbandit reproduce --no-bounds``)."""
    _BOUNDS.append(bool(show))
    try:
        yield
    finally:
        _BOUNDS.pop()


def bounds_on() -> bool:
    """Whether figures draw the papers' bounds here (`bounds_shown`)."""
    return _BOUNDS[-1]


def draw_bound(ax, x, values, label: str, *, kind: str = "upper", asymptotic: bool = False, color="0.3",
               at: str = "T", corner: str = "upper left", trivial=None):
    """Draw a theorem's bound (values against x) on ``ax``, after the data, without moving its limits.

    Upper bounds are dashed, lower bounds dotted; the label says "upper bound" or "lower bound", "asymptotic"
    where the theorem is a rate or a liminf (no finite-T guarantee), and its value at the last x. A lower bound
    below the data widens the axis down to it (the gap is the point); a bound entirely above the panel (the usual
    case of a vacuous one) is said in words in the panel's corner instead of a line nobody sees (``corner``: "upper
    left", "lower right" or "below", away from the legend and the data; see `bound_note`). ``trivial``: what no
    run exceeds at each x (`jaxbandit.theory.trivial_bound`, t·max gap for the regret); an upper bound at or above
    it at the last x is said to be vacuous there, in its label or note. On a log axis, values ≤ 0 are left out.
    Nothing is drawn inside ``bounds_shown(False)``. Returns the line, the text or None."""
    if kind not in ("upper", "lower"):
        raise ValueError(f"kind={kind!r} must be 'upper' or 'lower'")
    if not bounds_on():
        return None
    x, values = np.asarray(x, np.float64), np.asarray(values, np.float64)
    keep = np.isfinite(values) & ((values > 0) if ax.get_yscale() == "log" else True)
    trivial = None if trivial is None else np.broadcast_to(np.asarray(trivial, np.float64), keep.shape)[keep]
    x, values = x[keep], values[keep]
    if not values.size:
        return None
    what = f"{label}: {kind} bound{', asymptotic' if asymptotic else ''}"
    vacuous = (f", vacuous: no run exceeds {trivial[-1]:.3g}"
               if kind == "upper" and trivial is not None and values[-1] >= trivial[-1] else "")
    low, high = ax.get_ylim()
    if np.min(values) > high:
        return bound_note(ax, f"{what},\n{values[-1]:.3g} at {at}, above this panel{vacuous}", corner=corner,
                          color=color)
    if kind == "lower" and np.min(values) < low:  # a lower bound below the data: widen down to show the gap
        low = np.min(values) * 0.7 if ax.get_yscale() == "log" else np.min(values)
    line, = ax.plot(x, values, ls="--" if kind == "upper" else ":", color=color, lw=1.3,
                    label=f"{what} ({values[-1]:.3g} at {at}{vacuous})")
    ax.set_ylim(low, high)
    return line


_NOTE_PLACES = {  # corner: (x, y of the first note, step to the next, ha, va), in axes coordinates
    "upper left": (0.02, 0.97, -0.09, "left", "top"),
    "lower right": (0.98, 0.03, 0.09, "right", "bottom"),
    "below": (0.0, -0.17, -0.11, "left", "top"),   # under the x label: never over the data (one row of panels)
}


def bound_note(ax, text: str, *, corner: str = "upper left", color="0.3"):
    """A bound said in words in a corner of the panel (stacked under the previous ones): one above the panel, or
    one that does not apply to what the panel shows and says why. ``corner``: "upper left", "lower right" or
    "below" (under the panel, for panels whose data can reach every corner). Nothing inside
    ``bounds_shown(False)``."""
    if corner not in _NOTE_PLACES:
        raise ValueError(f"corner={corner!r} must be one of {sorted(_NOTE_PLACES)}")
    if not bounds_on():
        return None
    notes = getattr(ax, "_jaxbandit_bound_notes", 0)
    ax._jaxbandit_bound_notes = notes + 1
    x, y, step, ha, va = _NOTE_PLACES[corner]
    return ax.text(x, y + step * notes, text, transform=ax.transAxes, ha=ha, va=va, fontsize=7, color=color)


def save(fig, path):
    """Write ``fig`` (PNG by the extension) and close it. Inside `stamped`, the title gets its prefix; a legend
    entry whose line has no point within the axes is marked "(outside the plotted range)", so that no entry
    names something the reader cannot see."""
    from jaxbandit import checks
    if _STAMPS and _STAMPS[-1]:
        _stamp(fig, _STAMPS[-1])
    mark_invisible_legend_entries(fig)
    try:
        # a long title or an outside legend is never clipped
        checks.written("figure", path, lambda tmp: fig.savefig(tmp, dpi=130, bbox_inches="tight",
                                                               format=os.path.splitext(path)[1][1:] or "png"))
    finally:
        plt.close(fig)


def _stamp(fig, prefix):
    sup = getattr(fig, "_suptitle", None)  # matplotlib's suptitle Text (get_suptitle needs matplotlib 3.8)
    if sup is not None and sup.get_text():
        sup.set_text(f"{prefix}: {sup.get_text()}")
        return
    for ax in fig.axes[:1]:
        ax.set_title(f"{prefix}: {ax.get_title()}" if ax.get_title() else prefix, fontsize=ax.title.get_fontsize())


def mark_invisible_legend_entries(fig) -> list:
    """Append "(outside the plotted range)" to legend labels whose lines have no finite point inside their axes
    (compared in display coordinates, so log scales and axhline's axes-coordinate x work alike); returns the
    labels marked."""
    marked = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        box = ax.get_window_extent()
        for text in legend.get_texts():
            lines = [line for line in ax.get_lines() if line.get_label() == text.get_text()]
            if not lines:
                continue
            visible = False
            for line in lines:
                x, y = (np.asarray(v, dtype=float).ravel() for v in line.get_data())
                if x.size != y.size or not x.size:
                    continue
                ok = np.isfinite(x) & np.isfinite(y)
                if ok.any():
                    px, py = line.get_transform().transform(np.column_stack([x[ok], y[ok]])).T
                    if px.size > 1:  # points along each segment too: a segment may cross the axes
                        s = np.linspace(0, 1, 17)
                        px = (px[:-1, None] + (px[1:] - px[:-1])[:, None] * s).ravel()
                        py = (py[:-1, None] + (py[1:] - py[:-1])[:, None] * s).ravel()
                    tol = 0.5  # pixels: a line lying on the frame is visible
                    visible |= bool(np.any((px >= box.x0 - tol) & (px <= box.x1 + tol)
                                           & (py >= box.y0 - tol) & (py <= box.y1 + tol)))
            if not visible:
                text.set_text(f"{text.get_text()} (outside the plotted range)")
                marked.append(text.get_text())
    return marked


def tuning_figure(tuned, grid=None, title=None, tuned_regret=None):
    """The optimisation trajectory of `jaxbandit.tune` drawn over the grid's regret curve.

    Left: the whole range of the tuned parameter (an integer, b, on a log(b + 1) axis; under a budget the calibrated
    parameter, c, on the budget's boundary) with the grid's mean regret (``grid``: a `jaxbandit.tuning.Grid`) and
    the regret estimate at each step's point. Middle: the same near the optimum, with the grid's ±2 SE band, its
    best point and the tuned value (``tuned_regret`` ``(mean, se)``: the tuned point's regret on fresh seeds, drawn
    with ±2 SE). Right: the parameter against the step."""
    name = tuned.config["param"]
    trace = tuned.trace
    x = np.array([row[name] for row in trace])
    y = np.array([row["regret"] for row in trace])
    step = np.arange(1, len(trace) + 1)
    final = tuned.params[name]
    integer = isinstance(final, int)  # an integer (b) on a log(b + 1) axis
    shift = 1.0 if integer else 0.0
    calibrated = [k for k in tuned.params if k != name]  # under a budget: the one on its boundary (c)
    positive = grid is None or np.all(grid.values > 0)
    logx = integer or (positive and (grid is None or grid.values.max() / grid.values.min() > 50))
    fig, (ax, zoom, ax2) = plt.subplots(1, 3, figsize=(16, 4.6), gridspec_kw={"width_ratios": [1, 1.25, 0.8]})
    # the zoom: the second half of the trajectory, the answer and the grid's best
    zx = np.concatenate([x[len(x) // 2:], [final]] + ([grid.values[[grid.best()]]] if grid is not None else [])) + shift
    lo, hi = zx.min(), zx.max()
    lo, hi = (lo / 1.5, hi * 1.5) if logx else (lo - 0.25 * (hi - lo + 1e-12), hi + 0.25 * (hi - lo + 1e-12))
    for panel in (ax, zoom):
        if grid is not None:
            order = np.argsort(grid.values)
            gx, gm, gs = grid.values[order] + shift, grid.mean[order], grid.se[order]
            panel.plot(gx, gm, ".-", color="0.35", lw=1.2, ms=4, label=f"grid, {grid.regret.shape[1]} runs per point")
            panel.fill_between(gx, gm - BAND_Z * gs, gm + BAND_Z * gs, color="0.35", alpha=0.2, lw=0)
        sc = panel.scatter(x + shift, y, c=step, cmap="viridis", s=18 if panel is ax else 26, zorder=3,
                           label=f"tuner's steps (mean of its 2 points, {tuned.config['runs']} runs each)")
        if logx:
            panel.set_xscale("log")
            panel.xaxis.set_minor_formatter(plt.NullFormatter())  # minor labels overlap on a short log range
        on_boundary = "".join(f"; {k} = {k}*({name}) on the budget's boundary" for k in calibrated)
        panel.set_xlabel(f"{name} + 1 (log axis{on_boundary})" if integer else
                         f"{name} ({on_boundary[2:]})" if calibrated else name)
        panel.set_ylabel("pseudo-regret at T (mean ± 2 SE)")
        panel.grid(alpha=0.3)
    ax.axvspan(lo, hi, color="C1", alpha=0.12, lw=0, label="range of the middle panel")
    ax.set_title("whole range", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    zoom.set_xlim(lo, hi)
    if logx:  # a short log range may hold no decade: label a few round values
        ticks = np.unique([float(f"{t:.2g}") for t in np.geomspace(lo, hi, 6)[1:-1]])
        zoom.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ys = [y[(x + shift >= lo) & (x + shift <= hi)]]
    if grid is not None:
        best = grid.best()
        zoom.plot(grid.values[best] + shift, grid.mean[best], "s", ms=10, mfc="none", mec="k", mew=1.6,
                  label=f"grid best: {name} = {grid.values[best]:.4g}", zorder=4)
        inside = (grid.values + shift >= lo) & (grid.values + shift <= hi)
        ys += [grid.mean[inside] - BAND_Z * grid.se[inside], grid.mean[inside] + BAND_Z * grid.se[inside]]
    final_label = f"tuned: {name} = {final:.4g}" + "".join(f", {k} = {tuned.params[k]:.4g}" for k in calibrated)
    if tuned_regret is not None:
        zoom.errorbar(final + shift, tuned_regret[0], yerr=BAND_Z * tuned_regret[1], fmt="*", ms=14, color="C3",
                      zorder=5, label=final_label + " (fresh seeds)")
        ys.append(np.array([tuned_regret[0] - BAND_Z * tuned_regret[1], tuned_regret[0] + BAND_Z * tuned_regret[1]]))
    else:
        zoom.axvline(final + shift, color="C3", ls="--", lw=1.2, label=final_label)
    ys = np.concatenate(ys)
    if ys.size:
        pad = 0.08 * (ys.max() - ys.min() + 1e-12)
        zoom.set_ylim(ys.min() - pad, ys.max() + pad)
    zoom.set_title("near the optimum", fontsize=10)
    zoom.legend(fontsize=8, loc="best")
    fig.colorbar(sc, ax=zoom, label="optimisation step")
    ax2.plot(step, x, "o-", ms=3, color="C0")
    ax2.axhline(final, color="C3", ls="--", lw=1.2, label=f"tuned {name} (average of the last quarter)")
    if logx:
        ax2.set_yscale("log")
    ax2.set_xlabel("optimisation step")
    ax2.set_ylabel(name)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8)
    if title is None:
        c = tuned.config
        if c["eta_budget"] is not None:
            setting = f"GDP budget η = {c['eta_budget']:.4g} ({c['accounting']} accounting)"
        elif c["budget_epsilon"] is not None:
            setting = f"budget ε = {c['budget_epsilon']:.4g}" + (f", δ = {c['budget_delta']:.3g}" if c["budget_delta"]
                                                                 else "")
        else:
            setting = f"tuning {name}"
        title = f"{c['policy']} on {c['env']}, {setting}, T = {c['horizon']}"
    fig.suptitle(f"{title}\n{tuned.config['estimator']} gradient, Adam, {len(trace)} steps, "
                 f"{tuned.agent_steps:.3g} agent-steps", fontsize=11)
    fig.tight_layout()
    return fig


def audit_figure(result, title=None):
    """The empirical trade-off of an audit (`jaxbandit.audit.montecarlo.run`) against the least one its claim allows.

    Left: type-II error β against type-I error α of the chosen score's threshold tests on the test trials (a
    mechanism keeps its claim iff every test lies on or above the claimed curve; points below it are what the lower
    bound measures). Right: the same near the origin, on log axes, where the bound is usually measured."""
    from jaxbandit.audit.montecarlo import claimed_trade_off, trade_off_curve
    alpha, beta = trade_off_curve(result)
    grid = np.concatenate([np.geomspace(1e-6, 1e-2, 200), np.linspace(1e-2, 1, 400)])
    claim_label = (f"claimed ({result.claim:.4g}, {result.delta:.3g})-DP: f_ε,δ" if result.claim_kind == "epsilon"
                   else f"claimed {result.claim:.4g}-GDP: G_μ")
    claimed = claimed_trade_off(result.claim_kind, result.claim, result.delta, grid)
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.6))
    for i, ax in enumerate(axes):
        ax.plot(grid, claimed, color="black", lw=1.4, ls="--", zorder=3, label=claim_label)
        order = np.argsort(alpha, kind="stable")
        # joined by segments (randomised tests reach them), drawn on the grid so that the log axis shows them true
        ax.plot(grid, np.interp(grid, alpha[order], beta[order]), color="C3", lw=1.4,
                label="empirical (test trials, chosen score)")
        if len(alpha) < 50:
            ax.plot(alpha, beta, ".", color="C3")
        ax.set_xlabel("type-I error α = P(reject | neighbour favoured less)")
        ax.set_ylabel("type-II error β = 1 − P(reject | favoured)")
        ax.grid(alpha=0.3)
        if i == 1:
            ax.set_xscale("log")
            ax.set_xlim(max(1.0 / result.trials, 1e-6), 1)
            ax.set_title("log α axis", fontsize=10)
    axes[0].legend(fontsize=8.5, loc="upper right")
    kind = "an ε" if result.claim_kind == "epsilon" else "a μ-GDP"
    exact = "n/a" if result.exact is None else f"{result.exact:.4g}"
    bug = f", planted bug: {result.bug}" if result.bug else ""
    fig.suptitle(f"{title or result.component}: audit of {kind} claim{bug}\nclaim {result.claim:.4g}, "
                 f"lower bound {result.lower_bound:.4g} at {result.confidence:.0%} confidence, exact {exact}; "
                 f"{result.trials:,} test trials per neighbour", fontsize=10.5)
    fig.tight_layout()
    return fig


def _ties(row) -> list:
    """The runner-ups a best row is not significantly better than (its paired ``comparisons``)."""
    return [c["algorithm"] for c in row.get("comparisons") or () if not c["significant"]]


_NOTION_SHORT = {"central": "central (whole-run DP)", "joint": "joint DP (outputs to the other users)",
                 "shuffle": "shuffle DP (shuffled batches)", "local": "local DP (each report)"}


def _frontier_dots(ax, front, family, level):
    """One level of one trust model as a ranked dot plot: each algorithm's regret at T (±2 SE) on a log axis,
    least regret at the top, its name beside its point; the recommendation (or the family's best) ringed and named
    with a star, the rows it is not significantly better than on the same runs marked "≈ tie"; per-round claims and
    points that do not meet the level greyed; uniform play and the panel's lower bound as vertical lines."""
    c = front.config
    rows = sorted((r for r in front.rows if r["family"] == family and r["level"] == level),
                  key=lambda r: r["regret_mean"])
    best = next((r for r in rows if r["best_of_family"]), None)
    tied = set(_ties(best)) if best else set()
    y = np.arange(len(rows))[::-1]
    labels = []
    for yi, r in zip(y, rows):
        weak = not r["meets"]
        color = "0.6" if weak else "tab:blue"
        ax.errorbar(r["regret_mean"], yi, xerr=BAND_Z * r["regret_se"], fmt="o", ms=6, capsize=3, color=color,
                    zorder=4)
        name = r["algorithm"]
        if r is best:
            ax.plot(r["regret_mean"], yi, marker="o", ms=15, mfc="none", mec="goldenrod", mew=2.2, zorder=3)
            name = "★ " + name + (" (recommended)" if r["recommended"] else f" (best {family})")
        elif r["algorithm"] in tied:
            name += "  ≈ tie"
        if r["scope"] == "round":
            name += " (per-round DP)"
        elif weak:
            name += " (misses the level)"
        labels.append(name)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xscale("log")
    lines = [r["regret_mean"] - BAND_Z * r["regret_se"] for r in rows if r["regret_mean"] > BAND_Z * r["regret_se"]]
    low = min(lines or [r["regret_mean"] for r in rows])
    high = max([r["regret_mean"] + BAND_Z * r["regret_se"] for r in rows] + [front.uniform_regret()])
    ax.axvline(front.uniform_regret(), color="0.5", ls=":", lw=1.2, label="uniform play (T · mean gap)")
    found = _frontier_lower_bound_values(c, family) if bounds_on() else None
    if found is not None:
        _, values, label = found
        bound = float(np.interp(np.log(level), np.log(found[0]), values))
        low = min(low, bound)
        ax.axvline(bound, color="k", ls="--", lw=1.1, label=f"{label}: lower bound, asymptotic ({bound:.3g})")
    ax.set_xlim(low / 1.6, high * 1.6)  # every point, uniform play and the lower bound in view
    # 1, 2, 5 per decade, labelled as numbers: the log axis's minor labels collide within a decade or two
    ax.xaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(mticker.NullFormatter())
    ax.set_xlabel("pseudo-regret at T (mean ± 2 SE, log scale)")
    note = ""
    if best is not None and tied:
        runs = next(x["runs"] for x in best["comparisons"] if x["algorithm"] in tied)
        note = f"\n≈ tie: no significant difference from ★ at {runs} paired runs"
    ax.set_title(f"{_NOTION_SHORT[family]}, ε = {level:g}" + note, fontsize=9)
    ax.grid(alpha=0.3, axis="x", which="both")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)


def _frontier_lower_bound(ax, config, family):
    """The lower bound of a panel's notion on Bernoulli arms, against ε (asymptotic: drawn as an order):
    central, seed 003 Remark 6, (N/ε) log[((e^ε − 1)T + δT)/((e^ε − 1) + δT)] for any global (ε, δ)-DP policy
    (constant 1: the paper gives none for N arms); local, seed 002 Theorem 1's C_LB log T under the ε-optimal
    randomized response, for the learners that see those bits."""
    found = _frontier_lower_bound_values(config, family)
    if found is None or not bounds_on():
        return
    grid, values, label = found
    draw_bound(ax, grid, values, label, kind="lower", asymptotic=True, at=f"ε = {max(config['levels']):g}",
               color="k")


def _frontier_lower_bound_values(config, family):
    """``(ε grid, bound values, label)`` of `_frontier_lower_bound`, or ``None`` where the panel has none: central
    pure ε-DP (δ = 0), Azize & Basu 2022 Theorem 3, Σ Δ_a log T / min(kl(μ_a, μ*), 6εΔ_a) on these arms; central
    (ε, δ), seed 003 Remark 6's order; local, seed 002 Theorem 1."""
    if config["env"] != "bernoulli" or family not in ("central", "local"):
        return None
    from jaxbandit import theory
    means = np.asarray(config["env_params"]["means"], np.float64)
    T, levels = float(config["horizon"]), config["levels"]
    grid = np.geomspace(min(levels), max(levels), 40)
    if family == "central" and config["delta"] == 0:
        try:
            values = [float(theory.adap_lower_bound(means, T, e)) for e in grid]
        except theory.NotApplicable:  # tied best arms
            return None
        label = "any ε-DP policy on these arms, Azize & Basu 2022 Theorem 3"
    elif family == "central":
        values = [theory.global_dp_lower_bound_rate(means.size, T, e, config["delta"]) for e in grid]
        label = "any global-DP policy, seed 003 Remark 6 (order, constant 1)"
    else:
        from jaxbandit.mechanisms.randomized_response import optimal_p
        values = [float(theory.corrupt_lower_bound(means, q, q, T)) for q in optimal_p(grid)]
        label = "learners on randomized-response bits, seed 002 Theorem 1"
    return grid, values, label


def frontier_figure(front, title=None):
    """The privacy–regret frontier (`jaxbandit.frontiers.Frontier`), each trust model (central, joint, shuffle,
    local) in its own panel, uniform play's regret for reference, and on Bernoulli arms the lower bound of each
    panel's notion (`_frontier_lower_bound`; off inside ``bounds_shown(False)``).

    Several levels: regret at T against ε, one line per algorithm with ±2 SE bars, per-round claims dashed, the
    recommended point of each level starred (hollow where it is a tie: not significantly better than a runner-up on
    the same runs). One level: a ranked dot plot (`_frontier_dots`), the names beside the points."""
    families = [f for f in ("central", "joint", "shuffle", "local") if any(r["family"] == f for r in front.rows)]
    most = max([len({r["algorithm"] for r in front.rows if r["family"] == f}) for f in families] or [1])
    panels = max(len(families), 1)
    cols = panels if panels <= 2 else 2  # three or four trust models: two rows of two, not one wide row
    rows_of_panels = -(-panels // cols)
    c = front.config
    if len(c["levels"]) == 1:
        fig, grid = plt.subplots(rows_of_panels, cols, figsize=(6.8 * cols, (1.9 + 0.34 * most) * rows_of_panels),
                                 squeeze=False)
        for ax in grid.ravel()[panels:]:
            fig.delaxes(ax)
        for ax, family in zip(grid.ravel(), families):
            _frontier_dots(ax, front, family, c["levels"][0])
        fig.suptitle(title or (f"Privacy–regret frontier at ε = {c['levels'][0]:g}: {c['env_label']}, T = "
                               f"{c['horizon']:g}, {c['runs']} runs per point, tuned on {c['tuning_runs']} other "
                               "runs"), fontsize=11)
        fig.tight_layout()
        return fig
    fig, grid = plt.subplots(rows_of_panels, cols, figsize=(6.4 * cols, (4.6 + 0.16 * most) * rows_of_panels),
                             squeeze=False, sharey=True)
    for ax in grid.ravel()[panels:]:
        fig.delaxes(ax)  # an odd number of panels leaves one cell empty
    notion_text = {"central": (f"central: (ε, δ)-DP over the whole run, δ = {c['delta']:g}" if c["delta"] > 0 else
                               "central: pure ε-DP over the whole run (δ = 0)"),
                   "joint": f"joint: (ε, δ)-DP of the outputs to the other users, δ = {c['delta']:g}\n(not DP of "
                            "the action sequence)",
                   "shuffle": f"shuffle: (ε, δ)-DP of the shuffled batches, δ = {c['delta']:g}\n(the users trust "
                              "the shuffler: not central DP)",
                   "local": "local: ε-LDP of each report"
                            + ("" if not any(r["family"] == "local" and r["notion"] != "ldp" for r in front.rows)
                               else f" ((ε, δ) for Gaussian reports, δ = {c['delta']:g})")}
    markers = "osD^v<>ph*Xd"
    for ax, family in zip(grid.ravel(), families):
        rows = [r for r in front.rows if r["family"] == family]
        names = sorted({r["algorithm"] for r in rows}, key=lambda n: min(r["regret_mean"] for r in rows
                                                                        if r["algorithm"] == n))
        for k, name in enumerate(names):
            mine = sorted((r for r in rows if r["algorithm"] == name), key=lambda r: r["level"])
            x = [r["level"] for r in mine]
            y = np.array([r["regret_mean"] for r in mine])
            err = BAND_Z * np.array([r["regret_se"] for r in mine])
            per_round = any(r["scope"] == "round" for r in mine)
            label = name + (" (per-round DP: not whole-run)" if per_round else "")
            ax.errorbar(x, y, yerr=err, marker=markers[k % len(markers)], ms=5, lw=1.4, capsize=3,
                        color=plt.cm.tab20(2 * k % 20 + k // 10 % 2), ls="--" if per_round else "-", label=label,
                        alpha=0.7 if per_round else 1.0)
        best = [r for r in rows if r["best_of_family"]]
        tie = [r for r in best if _ties(r)]
        clear = [r for r in best if not _ties(r)]
        for group, tied in ((clear, False), (tie, True)):
            if not group:
                continue  # the user's notion's recommendation filled, the other family's best and ties hollow
            label = ("recommended at that ε" if family == c["notion"] else
                     f"best {family} point at that ε ({family} is not the notion asked)")
            if tied:
                label += ", a tie (not significantly better than a runner-up on the same runs)"
            ax.plot([r["level"] for r in group], [r["regret_mean"] for r in group], marker="*", ms=17, ls="none",
                    mfc="gold" if family == c["notion"] and not tied else "none",
                    mec="goldenrod" if tied else "k", mew=1.6 if tied else 1.2, label=label, zorder=5)
        ax.axhline(front.uniform_regret(), color="0.5", ls=":", lw=1.2, label="uniform play (T · mean gap)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        _frontier_lower_bound(ax, c, family)
        ax.set_yscale("log")
        levels = c["levels"]
        ax.set_xticks(levels)
        ax.set_xticklabels([f"{v:g}" for v in levels])
        if len(levels) > 1:
            ax.xaxis.set_minor_locator(mticker.NullLocator())  # the levels are the x ticks
        # within about two decades the 2×, 3×, 5× ticks of the log axis get labels too (else one label may be all)
        ax.yaxis.set_minor_formatter(mticker.LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
        ax.set_xlabel("privacy level ε (smaller: more private)")
        ax.set_title(notion_text[family], fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)  # below: never over a point
    for row in grid:
        row[0].set_ylabel("pseudo-regret at T (mean ± 2 SE)")
    fig.suptitle(title or (f"Privacy–regret frontier: {c['env_label']}, T = {c['horizon']:g}, {c['runs']} runs per "
                           f"point, tuned on {c['tuning_runs']} other runs"), fontsize=11)
    fig.tight_layout()
    return fig
