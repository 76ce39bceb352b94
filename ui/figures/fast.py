"""Figures for When it is fast (pure Plotly builders): the theory against the k sweep, tokens a
round, the draft-size trade-off, the temperature sweep and the benchmark."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.bench.record import Bench, RowKind
from specdec.defaults import K_OFFERED
from specdec.trace.theory import expected_tokens
from specdec.wording import N_, _
from ui.figures.bars import labelled_bars, priced_bars
from ui.figures.rounds import COLORS, _layout
from ui.lessons.bench_words import bench_row, drafter_name
from ui.lessons.best_drafter import TIE

ALPHAS = (0.5, 0.6, 0.7, 0.8, 0.9)


def theory_figure(alpha: float, k: int, c: float, measured=None,
                  k_max: int = K_OFFERED[1], eps: float = 0.0, measured_on: str | None = None,
                  here_ks=frozenset(), refined: bool = False) -> go.Figure:
    """Expected speedup over k for several α at this c; break-even line; measured points.

    eps: extra cost of each verified token, so a (k+1)-token pass costs 1 + k·eps steps.
    measured_on: the CPU of shipped measured points (None: measured here); here_ks: the k among them
    measured here since; refined: with the lines that price what a whole run pays besides the
    theorem's rounds (the section's method: review 56 counted six lines for one setting).
    """
    from specdec.trace.theory import expected_speedup

    def curve(a: float, j: int) -> float:          # a pass of 1 + j·ε steps acts as c + ε
        return expected_speedup(a, j, c + eps)

    ks = list(range(1, k_max + 1))
    fig = go.Figure()
    shown = {round(alpha, 2)} if measured else set(ALPHAS) | {round(alpha, 2)}    # a sweep: its own α̂ only
    for a in sorted(shown):
        chosen = abs(a - alpha) < 1e-9
        fig.add_trace(go.Scatter(x=ks, y=[curve(a, j) for j in ks], mode="lines",
                                 name=_("theorem at the mean α̂ = {a:.2f}, c and ε as these runs paid").format(a=a)
                                 if measured else f"α = {a:.2f}" + (_(" (yours)") if chosen else ""),
                                 line=dict(width=4 if chosen else 1.5,
                                           color=COLORS.bonus if chosen else None)))
    fig.add_hline(y=1.0, line_dash="dash", line_color=COLORS.rejected,
                  annotation_text=_("break-even (speedup = 1)"))
    at_k = [p.speedup for p in measured or () if p.k == k]
    fig.add_trace(go.Scatter(x=[k], y=at_k or [curve(alpha, k)], mode="markers",
                             marker=dict(size=14, color=COLORS.bonus),
                             name=_("your k, as measured") if at_k else _("your k")))
    if measured:
        _add_measured(fig, measured, measured_on, here_ks, refined)
    cost = "k·c + 1 + k·ε" if eps else "k·c + 1"
    values = (f"c = {c:.2f}, ε = {eps:.2f}" if eps else f"c = {c:.2f}") + (_(", as these runs paid them") if measured
                                                                           else "")   # section 1: the profile's
    return _layout(fig, _("Expected speedup") + f" (1 − α^(k+1)) / ((1 − α)({cost})), {values}",
                   height=420, xaxis_title=_("k (draft length)"), yaxis_title=_("speedup ×"))


def repriced_sweep_figure(alpha: float, k: int, here, measured_on: str, box=None) -> go.Figure:
    """A shipped k sweep priced again on this machine (`here`: repriced.Repriced per k): the
    prediction here in front (whole runs where the sweep recorded what they paid besides rounds), the
    theorem at α̂ and this machine's c beside it, the
    speedups measured on the other machine (`measured_on`) behind, for comparison, and the box's
    figure measured here at k (`box`: payoff.Measured, with its range). The lines priced at the
    other machine's prices stay in the section's table."""
    from specdec.trace.theory import expected_speedup
    ks, c = [r.point.k for r in here], here[0].c
    fig = go.Figure([
        go.Scatter(x=ks, y=[expected_speedup(alpha, j, c) for j in ks], mode="lines",
                   name=_("theorem at α̂ = {alpha:.2f} and this machine's c (a free pass)").format(alpha=alpha),
                   line=dict(width=1.5, color="grey")),
        go.Scatter(x=ks, y=[r.speedup for r in here], mode="markers+lines",
                   name=_("predicted here (whole runs): the shipped tokens a round at this machine's prices")
                   if here[0].over else _("predicted here (rounds only): the shipped tokens a round at this machine's "
                                          "prices"),
                   marker=dict(size=10, symbol="diamond", color=COLORS.accepted), line=dict(width=3))])
    _measured_points(fig, [r.point for r in here], _("measured on {cpu}, for comparison").format(cpu=measured_on))
    at_k = [r.speedup for r in here if r.point.k == k]
    if at_k:
        fig.add_trace(go.Scatter(x=[k], y=at_k, mode="markers", marker=dict(size=14, color=COLORS.bonus),
                                 name=_("your k, predicted here")))
    if box is not None:
        fig.add_trace(go.Scatter(x=[k], y=[box.speedup], mode="markers",
                                 name=_("your k, measured here (the answer box)"),
                                 marker=dict(size=14, symbol="star", color=COLORS.target),
                                 error_y=dict(type="data", symmetric=False, array=[box.high - box.speedup],
                                              arrayminus=[box.speedup - box.low])))
    fig.add_hline(y=1.0, line_dash="dash", line_color=COLORS.rejected, annotation_text=_("break-even (speedup = 1)"))
    fig.update_xaxes(dtick=1)
    return _layout(fig, _("The shipped k sweep, priced again on this machine (c = {c:.3f})").format(c=c),
                   height=420, xaxis_title=_("k (draft length)"), yaxis_title=_("speedup ×"))


def _measured_points(fig: go.Figure, points, name: str, color: str = COLORS.correction) -> None:
    """Measured speedups with their spread over repeats (median, min to max)."""
    fig.add_trace(go.Scatter(x=[p.k for p in points], y=[p.speedup for p in points], mode="markers+lines",
                             line=dict(dash="dot"), name=name,
                             marker=dict(size=11, symbol="x", color=color),
                             error_y=dict(type="data", symmetric=False,
                                          array=[p.speedup_max - p.speedup for p in points],
                                          arrayminus=[p.speedup - p.speedup_min for p in points])))


def _add_measured(fig: go.Figure, measured, on: str | None = None, here_ks=frozenset(),
                  refined: bool = False) -> None:
    """Measured speedups (k-sweep points); `refined`: the theory at the measured verification cost and the
    whole-run predictions beside them; `on`: the CPU of shipped points, `here_ks`: the k of those among them
    measured here since (review 32: labelled as shipped)."""
    if refined:
        _add_refined(fig, measured)
    if on is None:
        _measured_points(fig, measured, _("measured here"))
        return
    shipped, here = [p for p in measured if p.k not in here_ks], [p for p in measured if p.k in here_ks]
    if shipped:
        _measured_points(fig, shipped, _("measured on {cpu}").format(cpu=on))
    if here:
        _measured_points(fig, here, _("measured here"), COLORS.accepted)


def _add_refined(fig: go.Figure, measured) -> None:
    """The theorem at each k's paid pass price, and the predictions that add what a whole run pays."""
    ks = [p.k for p in measured]
    fig.add_trace(go.Scatter(x=ks, y=[p.bound_with_verify for p in measured], mode="lines",
                             name=_("theory at the measured verification cost v(k + 1)"),
                             line=dict(dash="dash", width=3, color=COLORS.target)))
    if all(p.profile_speedup is not None for p in measured):
        fig.add_trace(go.Scatter(x=ks, y=[p.profile_speedup for p in measured], mode="lines",
                                 name=_("the same price, tokens a round from the measured acceptance profile"),
                                 line=dict(dash="dashdot", width=3, color=COLORS.draft)))
    if all(p.predicted_run is not None for p in measured):
        fig.add_trace(go.Scatter(x=ks, y=[p.predicted_run for p in measured], mode="lines",
                                 name=_("each k's own tokens a round, plus the prompt and the bookkeeping"),
                                 line=dict(width=3, color=COLORS.draft)))


def tokens_figure(measured) -> go.Figure:
    """Measured tokens a round against Eq. (1) at one α: the mean α̂ of the runs (each k's own
    α̂ moves with its prompts' luck, and a theory line drawn through them zig-zags)."""
    ks = [p.k for p in measured]
    alpha = sum(p.alpha for p in measured) / len(measured)
    fig = go.Figure([
        go.Scatter(x=ks, y=[expected_tokens(alpha, k) for k in ks],
                   name=_("theory (1 − α^(k+1))/(1 − α) at the mean α̂ = {alpha:.2f}").format(alpha=alpha),
                   mode="lines", line=dict(color=COLORS.target)),
        go.Scatter(x=ks, y=[p.mean_acceptance_length for p in measured], name=_("measured"),
                   mode="markers", marker=dict(size=11, symbol="x", color=COLORS.correction))])
    if all(p.profile_length is not None for p in measured):
        fig.add_trace(go.Scatter(x=ks, y=[p.profile_length for p in measured], mode="lines",
                                 name=_("from the acceptance profile of the longest k"),
                                 line=dict(dash="dashdot", color=COLORS.draft)))
    return _layout(fig, _("Tokens per round: theory vs measured"), height=340, xaxis_title=_("k"),
                   yaxis_title=_("tokens / round"))


def bench_figure(bench: Bench, temperature: float) -> go.Figure:
    """Speedup over k at one temperature: each measured row, Theorem 3.8, the bound at v(k + 1), and
    the whole runs predicted from what they paid (a bench may lack it)."""
    settings = [s for s in bench.settings if s.temperature == temperature]
    ks = sorted({s.k for s in settings})
    spec = {s.k: s.row(RowKind.SPEC) for s in settings}
    fig = go.Figure()
    # one k (a bench run at a single draft length): each bound a short level segment around it,
    # so the solid and dashed lines the caption speaks of are there to compare
    xs = ks if len(ks) > 1 else [ks[0] - 0.3, ks[0] + 0.3]
    for name, key, dash in ((N_("Theorem 3.8 bound"), "bound", "solid"),
                            (N_("bound at the measured verification cost"), "bound_with_verify", "dash")):
        ys = [getattr(spec[k], key) for k in ks]
        fig.add_trace(go.Scatter(x=xs, y=ys if len(ks) > 1 else ys * 2, name=_(name), mode="lines",
                                 line=dict(color=COLORS.target, dash=dash)))
    if all(spec[k].predicted_run for k in ks):
        ys = [spec[k].predicted_run for k in ks]
        fig.add_trace(go.Scatter(x=xs, y=ys if len(ks) > 1 else ys * 2, mode="lines",
                                 name=_("whole runs predicted from what they paid"),
                                 line=dict(color=COLORS.draft, width=3)))
    styles = {RowKind.SPEC: (COLORS.bonus, "solid"), RowKind.ASSISTED_K: (COLORS.draft, "solid"),
              RowKind.SPEC_DEFAULTS: (COLORS.bonus, "dot"), RowKind.ASSISTED_DEFAULTS: (COLORS.discarded, "dot")}
    for kind, (color, dash) in styles.items():
        by_k = {s.k: s.row(kind) for s in settings if s.row(kind) is not None}
        if by_k:                        # a bench may leave rows out (no library counterpart)
            own = [by_k[k].speedup_vs_engine_ar or by_k[k].speedup for k in ks]   # as the bounds
            fig.add_trace(go.Scatter(x=ks, y=own, name=bench_row(kind.value),
                                     mode="lines+markers", marker=dict(size=10, color=color),
                                     line=dict(color=color, dash=dash)))
    fig.add_hline(y=1.0, line_dash="dot", line_color=COLORS.rejected)
    fig.update_xaxes(dtick=1)                                                  # k is a whole number
    fig = _layout(fig, _("T = {t:g}: speedup over the target alone").format(t=temperature),
                  height=380, xaxis_title=_("k"), yaxis_title=_("speedup ×"))
    # up to three side by side (a short title: review 35 saw a long one cut): the title (T first) goes below
    # the chart's toolbar, clear of its icons
    return fig.update_layout(title=dict(y=1 - 34 / fig.layout.height, yanchor="top", yref="container"),
                             margin=dict(t=84))


def tradeoff_figure(points, y: str, title: str, measured_on: str | None = None, here=()) -> go.Figure:
    """One bar per draft of the trade-off: the quantity `y` (a field of its points). `measured_on`:
    the CPU of a shipped trade-off (None: measured here); `here`: its drafts priced again with this
    machine's profile (repriced.Repriced). A c under a bar is always this machine's: a run measured
    here, or the profile's where the shipped run was priced here (the shipped c stays in the
    section's table, named by its CPU). The speedups priced here are drawn beside the shipped ones."""
    priced = {r.point.draft: r for r in here}
    speed = (lambda p: priced[p.draft].speedup if p.draft in priced else 0.0) if priced else (lambda p: p.speedup)
    top = speed(max(points, key=speed))
    lead = {p.draft for p in points if speed(p) >= (1 - TIE) * top}    # within 3 %: a tie (review 40: one ★ of two)
    names = [drafter_name(p.draft.split("/", 1)[-1]) + size_label(p) + (" ★" if p.draft in lead else "") +
             c_label(p, priced.get(p.draft), measured_on) for p in points]
    if priced:
        axis = _("drafter (by size; c: this machine's; ★ the fastest at its prices, and any within {tie:.0%} of "
                 "it)").format(tie=TIE)
    else:
        axis = _("drafter (ordered by size; ★ the fastest, and any within {tie:.0%} of it)").format(tie=TIE) \
            if measured_on is None else _("drafter (ordered by size)")
    if y == "speedup" and priced:
        return priced_bars(names, [priced[p.draft].speedup if p.draft in priced else None for p in points],
                           [p.speedup for p in points], _("priced again here"),
                           _("measured on {cpu}, for comparison").format(cpu=measured_on), title, xaxis_title=axis)
    colors = [COLORS.bonus if p.draft in lead else COLORS.draft for p in points]
    return labelled_bars(names, [getattr(p, y) for p in points], colors, title, y == "speedup", xaxis_title=axis)


def size_label(point) -> str:
    """A draft's parameters beside its name (' · 11.3M'; nothing for a lookup, which runs no model)."""
    return f" · {point.params / 1e6:.1f}M" if point.params else ""


def c_label(point, here, measured_on: str | None) -> str:
    """A draft's c beside its name, only where it is this machine's: a run measured here, or this
    machine's profile's c for a shipped draft priced here (None: not priced, no c shown)."""
    if measured_on is None:
        return f" (c = {point.c:.2f})"
    return "" if here is None else " " + _("(c = {c:.2f} here)").format(c=here.c)


def temperature_figure(points) -> go.Figure:
    ts = [p.temperature for p in points]
    fig = go.Figure([
        go.Scatter(x=ts, y=[p.acceptance_rate for p in points], name=_("acceptance rate"),
                   mode="lines+markers", marker_color=COLORS.accepted),
        go.Scatter(x=ts, y=[p.alpha for p in points], name=_("α̂ = mean β"), mode="lines+markers",
                   marker_color=COLORS.overlap, line=dict(dash="dot"))])
    return _layout(fig, _("Acceptance against temperature"), height=340, xaxis_title=_("temperature"),
                   yaxis=dict(range=[0, 1.02], title=_("rate")))
