"""Pure Plotly figure builders from traces (testable without a browser).

Colours mean the same thing on every chart and page (see COLORS). `label` maps a
token id to its display text (a tokenizer live, or a run's stored vocabulary).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable

import plotly.graph_objects as go

from specdec.rules.chain import FinalKind
from specdec.rules.sampling import NEAR_TIE
from specdec.trace.run import Dist, Position, Round
from specdec.wording import _


@dataclass(frozen=True)
class Palette:
    """One colour per meaning, on every chart and page."""
    target: str = "#475569"      # p, the target's distribution (slate)
    draft: str = "#a855f7"       # q, the draft's distribution (purple)
    overlap: str = "#16a34a"     # min(p, q): the mass a draft keeps (green)
    accepted: str = "#16a34a"
    rejected: str = "#dc2626"
    discarded: str = "#9ca3af"
    correction: str = "#ea580c"  # drawn from the residual (orange)
    bonus: str = "#2563eb"       # drawn from p_{k+1} (blue)
    prompt: str = "#6b7280"

    def of(self, kind: str, default: str | None = None) -> str:
        """The colour of a verdict or a final token's kind (its value names the field); `default`
        (the target's) for a kind without one."""
        return getattr(self, kind) if kind in _NAMES else default or self.target


_NAMES = {f.name for f in fields(Palette)}
COLORS = Palette()
Label = Callable[[int], str]
TOP = 12


def show(text: str, limit: int = 16) -> str:
    """Make whitespace visible in axis labels; long tokens are shortened with an ellipsis."""
    shown = repr(text)[1:-1].replace(" ", "␣") or "∅"
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def prob(x: float | None) -> str:
    """A probability with its significant digits: 0.412, 1.2e-04, 0 — never a misleading 0.000."""
    if x is None:
        return "—"
    if x == 0:
        return "0"
    return f"{x:.1e}" if abs(x) < 1e-3 else f"{x:.3f}"


def quote(text: str) -> str:
    return f"“{show(text)}”"


GRID = "rgba(128,128,128,0.2)"      # transparent plot area and grey grid: light and dark themes alike


def _layout(fig: go.Figure, title: str, height: int = 320, **kw) -> go.Figure:
    """Title top left; legend pinned to the bottom of the figure, below the axis labels.

    No plotly template: applying one costs ~12 ms a figure, and Streamlit themes charts anyway.
    """
    fig.update_layout(title=dict(text=title, x=0, xanchor="left"), height=height + 40,
                      margin=dict(l=40, r=20, t=60, b=90), plot_bgcolor="rgba(0,0,0,0)",
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom",
                                  x=0.5, xanchor="center"),
                      **kw)
    fig.update_xaxes(gridcolor=GRID)
    fig.update_yaxes(gridcolor=GRID)
    return fig


def top_ids(dists: list[Dist], n: int = TOP) -> list[int]:
    """Union of the top tokens of several distributions, ordered by the first one; a token no distribution gives
    any mass (top-p cut them all) is left out (review 54: "<issue_closed>" at 0 beside the real candidates)."""
    ids: list[int] = []
    for dist in dists:
        for token, prob in dist.top(n):
            if prob > 0 and token not in ids:
                ids.append(token)
    first = dists[0]
    return sorted(ids, key=lambda t: -first.prob(t))[: n + 4]


def pq_figure(pos: Position, label: Label) -> go.Figure:
    """p and q over the top tokens, min(p, q) as the shaded overlap, β written on it."""
    ids = top_ids([pos.target, pos.draft])
    if pos.token not in ids:
        ids.append(pos.token)
    names = [show(label(t)) + (" ◀" if t == pos.token else "") for t in ids]
    p = [pos.target.prob(t) for t in ids]
    q = [pos.draft.prob(t) for t in ids]
    fig = go.Figure([
        go.Bar(name=_("q (draft)"), x=names, y=q, marker_color=COLORS.draft, opacity=0.55),
        go.Bar(name=_("p (target)"), x=names, y=p, marker_color=COLORS.target, opacity=0.55),
        go.Bar(name=_("min(p, q)"), x=names, y=[min(a, b) for a, b in zip(p, q)], width=0.3,
               marker_color=COLORS.overlap)])
    fig.add_annotation(text=f"β = Σ min(p, q) = {pos.beta:.3f}", x=0.99, y=0.95, xref="paper",
                       yref="paper", showarrow=False, font=dict(size=14, color=COLORS.overlap))
    return _layout(fig, _("Position {i}: drafted {token} ◀").format(i=pos.i, token=quote(pos.text)),
                   barmode="overlay",
                   yaxis_title=_("probability"))


def ratio_figure(rnd: Round) -> go.Figure:
    """u against min(1, p/q) per position: accepted where the dot sits below the bar top. A draft after the
    rejection was never tested: no bar (review 53: a full grey bar of 1.000 read as a sure acceptance thrown away)."""
    xs = [f"{p.i}: {show(p.text)}" for p in rnd.positions]
    colors = [COLORS.of(p.verdict) for p in rnd.positions]
    fig = go.Figure([go.Bar(name=_("min(1, p/q)"), x=xs, y=[None if p.verdict == "discarded" else p.ratio
                                                            for p in rnd.positions],
                            marker_color=colors, opacity=0.45)])
    drawn = [p for p in rnd.positions if p.u is not None]
    fig.add_trace(go.Scatter(name=_("u ~ U(0,1)"), x=[f"{p.i}: {show(p.text)}" for p in drawn],
                             y=[p.u for p in drawn], mode="markers",
                             marker=dict(size=14, symbol="diamond", color="black")))
    return _layout(fig, _("Accept if u ≤ min(1, p/q)"), yaxis=dict(range=[0, 1.05], title=_("probability")))


def source_figure(rnd: Round, label: Label) -> go.Figure:
    """Where the final token came from: the residual (after a rejection) or p_{k+1}."""
    if rnd.greedy:
        return greedy_source_figure(rnd, label)
    final, kind = rnd.final, rnd.final.kind
    dists = [final.source]
    rejected = (rnd.positions[rnd.n_accepted] if kind == FinalKind.CORRECTION and
                len(rnd.positions) > rnd.n_accepted else None)      # a chain's rejected draft
    if rejected is not None and rejected.target is not None:
        dists += [rejected.target, rejected.draft]
    ids = top_ids(dists)
    if final.token not in ids:           # the drawn token is always shown, however unlikely
        ids.append(final.token)
    names = [show(label(t)) + (" ◀" if t == final.token else "") for t in ids]
    traces = []
    if rejected is not None and rejected.target is not None:
        traces += [go.Bar(name=_("p (target)"), x=names, y=[rejected.target.prob(t) for t in ids],
                          marker_color=COLORS.target, opacity=0.35),
                   go.Bar(name=_("q (draft)"), x=names, y=[rejected.draft.prob(t) for t in ids],
                          marker_color=COLORS.draft, opacity=0.35)]
    name = {"correction": _("residual norm(max(0, p − q))"), "bonus": _("pₖ₊₁ (target)"),
            "target": _("p (target)")}[kind]
    traces.append(go.Bar(name=name, x=names, y=[final.source.prob(t) for t in ids],
                         marker_color=COLORS.of(kind, COLORS.target)))
    title = {"correction": _("Resampled {token} from the residual").format(token=quote(final.text)),
             "bonus": _("All drafts accepted: bonus {token} from p₍ₖ₊₁₎").format(token=quote(final.text)),
             "target": _("No draft: {token} sampled from p").format(token=quote(final.text))}[kind]
    return _layout(go.Figure(traces), title, barmode="group", yaxis_title=_("probability"))


def greedy_figure(pos: Position, label: Label) -> go.Figure:
    """Greedy mode: the target's top tokens, its argmax, and the drafted token."""
    ids = top_ids([pos.target], 8)
    best = ids[0]
    colors = [COLORS.accepted if t == pos.token == best else COLORS.rejected if t == pos.token
              else COLORS.target for t in ids]
    names = [show(label(t)) + (" (argmax)" if t == best else "") + (" ◀" if t == pos.token else "")
             for t in ids]
    fig = go.Figure([go.Bar(x=names, y=[pos.target.prob(t) for t in ids], marker_color=colors,
                            name=_("p (target, T=1 softmax)"))])
    return _layout(fig, _("Position {i}: accept iff the draft is the target's argmax").format(i=pos.i),
                   yaxis_title=_("probability"))


def greedy_source_figure(rnd: Round, label: Label) -> go.Figure:
    """Greedy mode: the final token is the target's argmax where the drafts stopped (no residual)."""
    final = rnd.final
    ids = top_ids([final.source], 8)
    if final.token not in ids:
        ids.append(final.token)
    names = [show(label(t)) + (" ◀" if t == final.token else "") for t in ids]
    colors = [COLORS.of(final.kind, COLORS.target) if t == final.token else COLORS.target
              for t in ids]
    fig = go.Figure([go.Bar(x=names, y=[final.source.prob(t) for t in ids], marker_color=colors,
                            name=_("p (target, T=1 softmax)"))])
    where = {"correction": _("replaces rejected draft {i}").format(i=rnd.n_accepted + 1),
             "bonus": _("after every draft was accepted"), "target": _("no draft")}[final.kind]
    return _layout(fig, _("Greedy: {token} is the target's argmax ({where})").format(
        token=quote(final.text), where=where),
                   yaxis_title=_("probability"))


def near_tie(dist: Dist, margin: float = NEAR_TIE) -> float | None:
    """The gap between the two most likely tokens when it is below `margin`, else None."""
    top = dist.top(2)
    gap = top[0][1] - top[1][1] if len(top) > 1 else 1.0
    return gap if gap < margin else None


def per_position_figure(per_position: tuple[float, ...]) -> go.Figure:
    xs = [f"{i + 1}" for i in range(len(per_position))]
    fig = go.Figure([go.Bar(x=xs, y=list(per_position), marker_color=COLORS.accepted)])
    return _layout(fig, _("Acceptance rate by draft position"), height=300,
                   xaxis_title=_("draft position i"), yaxis=dict(range=[0, 1.05], title=_("accepted")))


def histogram_figure(histogram: tuple[int, ...]) -> go.Figure:
    fig = go.Figure([go.Bar(x=[str(j) for j in range(len(histogram))], y=list(histogram),
                            marker_color=COLORS.target)])
    step = max(1, -(-max(histogram, default=1) // 6))            # counts: whole ticks (review 23: 0.5, 1.5, …)
    fig.update_yaxes(tick0=0, dtick=step, rangemode="tozero")
    return _layout(fig, _("Rounds by drafts accepted"), height=300,
                   xaxis_title=_("accepted drafts j"), yaxis_title=_("rounds"))


def timeline_figure(rounds: list[Round], selected: int | None = None) -> go.Figure:
    """Tokens emitted per round: accepted drafts, then the final token by kind (one legend
    entry per colour). Rejected drafts emit nothing, so they are not stacked here."""
    xs = [r.index + 1 for r in rounds]
    kept = [min(r.n_accepted, len(r.emitted)) for r in rounds]
    traces = [go.Bar(name=_("accepted draft"), x=xs, y=kept, marker_color=COLORS.accepted)]
    for kind, name in (("correction", _("correction (residual)")), ("bonus", _("bonus (pₖ₊₁)")),
                       ("target", _("target token (no draft)"))):
        ys = [1 if r.final.kind == kind and len(r.emitted) > r.n_accepted else 0 for r in rounds]
        if any(ys):
            traces.append(go.Bar(name=name, x=xs, y=ys, marker_color=COLORS.of(kind, COLORS.target)))
    fig = go.Figure(traces)
    if selected is not None:
        fig.add_vline(x=selected + 1, line_dash="dot", line_color="black")
    return _layout(fig, _("Tokens emitted per round"), height=300, barmode="stack", xaxis_title=_("round"),
                   yaxis_title=_("tokens"))


def cache_figure(rnd: Round, why: dict[str, str] | None = None) -> go.Figure:
    """Both KV caches by position after the round: rows kept, rows cropped (at the positions
    they held), and the positions the draft has not read yet (drawn only when `why` has a
    "lag" reason); `why` ("target", "draft", "lag") gives each bar its reason as hover text.
    A dashed line marks the prefix before the round."""
    c, why, models = rnd.caches, why or {}, [_("target"), _("draft")]

    def bar(name: str, y: str, start: int, length: int, color: str, reason: str, **style) -> go.Bar:
        return go.Bar(name=name, y=[y], x=[length], base=[start], orientation="h", marker_color=color,
                      hovertext=[reason], hovertemplate=_("{name}: positions {first}–{last}").format(
                          name=name, first=start, last=start + length - 1) + "<br>%{hovertext}<extra></extra>",
                      **style)
    lag = max(0, c.target_after - c.draft_after) if "lag" in why else 0    # no lag: a cacheless drafter
    gone = c.draft_after + lag                 # the draft's rows past the kept text: cropped; those before it, in
    held = max(c.draft_after, min(c.draft_peak, gone))   # the text but not in its cache, it reads next round: the
    fig = go.Figure([                          # ones it had held (a feature draft's guesses) cropped and read again,
        bar(_("kept"), models[0], 0, c.target_after, COLORS.accepted, why.get("target", "")),   # the others read
        bar(_("cropped"), models[0], c.target_after, c.target_cropped, COLORS.rejected,         # for the first time
            why.get("target", "")),                                                              # (one state a span:
        bar(_("kept"), models[1], 0, c.draft_after, COLORS.accepted, why.get("draft", ""),     # reviews 43, 49)
            showlegend=False),
        bar(_("cropped"), models[1], gone, max(0, c.draft_peak - gone), COLORS.rejected, why.get("draft", ""),
            showlegend=False),
        bar(_("cropped, read again next round"), models[1], c.draft_after, held - c.draft_after, "#fecaca",
            why.get("lag", ""), marker_pattern_shape="/", marker_pattern_fgcolor=COLORS.rejected,
            showlegend=held > c.draft_after),
        bar(_("in the text, read by the draft next round"), models[1], held, gone - held, "#fde68a",
            why.get("lag", ""), marker_pattern_shape="/", marker_pattern_fgcolor="#f59e0b", showlegend=gone > held)])
    fig.add_vline(x=rnd.prefix_len, line_dash="dash", line_color=COLORS.prompt,
                  annotation_text=_("before this round"), annotation_position="top")
    start = max(0, min(rnd.prefix_len, c.draft_after if "lag" in why else rnd.prefix_len) - 8)
    fig.update_yaxes(autorange="reversed")                     # the target on top
    fig.update_xaxes(range=[start, max(c.target_peak, c.draft_peak) + 1])   # where the round acted
    return _layout(fig, _("KV caches after rollback, by position (from position {start})").format(start=start),
                   height=230, barmode="overlay", xaxis_title=_("positions"))
