"""Figures for In a server (pure Plotly builders): batches, pass prices and the served timeline."""
from __future__ import annotations

import math

import plotly.graph_objects as go

from specdec.bench.server import Timeline
from specdec.settings import Mode
from specdec.wording import _
from ui.figures.rounds import COLORS, _layout


def batch_figure(rows, y: str, title: str, y_title: str) -> go.Figure:
    """A quantity against batch size, autoregressive vs speculative (with the repeats' range
    for tokens/s)."""
    fig = go.Figure()
    for mode, color, name in ((Mode.AUTOREGRESSIVE, COLORS.target, _("the target alone")),
                              (Mode.SPECULATIVE, COLORS.draft, _("speculative"))):
        mine = [r for r in rows if r.mode == mode]
        err = None
        if y == "tokens_per_s":
            err = dict(type="data", symmetric=False, array=[r.tokens_per_s_max - r.tokens_per_s for r in mine],
                       arrayminus=[r.tokens_per_s - r.tokens_per_s_min for r in mine])
        fig.add_trace(go.Scatter(x=[r.batch for r in mine], y=[getattr(r, y) for r in mine], name=name,
                                 mode="lines+markers", marker_color=color, error_y=err))
    sizes = sorted({r.batch for r in rows})
    return _layout(fig, title, height=340, xaxis_title=_("batch size (requests at once)"),
                   yaxis_title=y_title, xaxis=dict(type="log", tickvals=sizes, ticktext=[str(b) for b in sizes]))


MARK_PX = 22                     # a mark wide enough to hold its batch size ("16") inside it


def pass_price_figure(rows) -> go.Figure:
    """The target pass's price against the tokens it fed (batch × pending + drafts); each mark
    holds its batch size, so no label sits beside a mark where another line's could cross it."""
    fig = go.Figure()
    for mode, color, name in ((Mode.AUTOREGRESSIVE, COLORS.target, _("the target alone")),
                              (Mode.SPECULATIVE, COLORS.draft, _("speculative"))):
        mine = [r for r in rows if r.mode == mode]
        fig.add_trace(go.Scatter(x=[r.pass_rows for r in mine], y=[r.pass_ms for r in mine],
                                 text=[str(r.batch) for r in mine], mode="lines+markers+text",
                                 textposition="middle center", textfont=dict(color="white", size=11),
                                 marker=dict(size=MARK_PX, color=color), name=name,
                                 hovertemplate=_("batch size %{text}: %{x:.0f} tokens in one pass, %{y:.0f} ms")
                                 + "<extra></extra>"))
    fed, ms = [r.pass_rows for r in rows], [r.pass_ms for r in rows]
    ticks = [t for t in (1, 2, 4, 8, 16, 32, 64, 128, 256) if t <= 2 * max(fed)]
    fig.update_layout(legend_title_text=_("the number in a mark: the batch size"))
    return _layout(fig, _("What one target pass costs as it feeds more tokens"), height=340,
                   xaxis=dict(type="log", tickvals=ticks, ticktext=[str(t) for t in ticks],
                              range=[math.log10(min(fed) / 1.4), math.log10(max(fed) * 1.4)],
                              title=_("tokens in one target pass (batch × (pending + drafts))")),
                   yaxis=dict(title=_("ms per pass"), range=[0, max(ms) * 1.15]))


def timeline_figure(result: Timeline) -> go.Figure:
    """Continuous batching: one line per request from arrival to its last token; waiting
    dotted, in the batch solid, each round a mark."""
    fig = go.Figure()
    for i, s in enumerate(result.served):
        label = _("request {n}").format(n=i + 1)
        fig.add_trace(go.Scatter(x=[s.arrival, s.admitted], y=[label, label], mode="lines",
                                 line=dict(dash="dot", color=COLORS.discarded), showlegend=i == 0,
                                 name=_("waiting for a place in the batch")))
        ends = [t.end for t in result.ticks if i in t.requests]
        fig.add_trace(go.Scatter(x=[s.admitted, *ends], y=[label] * (len(ends) + 1), mode="lines+markers",
                                 marker=dict(size=5), line=dict(color=COLORS.draft), showlegend=i == 0,
                                 name=_("in the batch (a mark per round)")))
    return _layout(fig, _("Requests join the batch at a round boundary and leave when they stop"),
                   height=60 + 28 * len(result.served), xaxis_title=_("seconds since the server started"),
                   yaxis_autorange="reversed")


def gpu_batch_figure(lines: dict[str, tuple[tuple[int, float], ...]], title: str) -> go.Figure:
    """Predicted speedups against batch size (log axis), one line per label, with the break-even line."""
    sizes = sorted({b for points in lines.values() for b, _x in points})
    fig = go.Figure()
    for (name, points), color in zip(lines.items(), (COLORS.draft, COLORS.target)):
        fig.add_trace(go.Scatter(x=[b for b, _x in points], y=[x for _b, x in points], mode="lines+markers",
                                 marker_color=color, line_color=color, name=name,
                                 hovertemplate=name + ": " + _("batch size %{x}: %{y:.2f}×") + "<extra></extra>"))
    fig.add_hline(y=1.0, line_dash="dash", line_color="#888", annotation_text=_("break-even"),
                  annotation_position="top right")
    return _layout(fig, title, height=340, xaxis_title=_("batch size (requests at once)"), yaxis_title=_("speedup ×"),
                   xaxis=dict(type="log", tickvals=sizes, ticktext=[str(b) for b in sizes]),
                   yaxis=dict(rangemode="tozero"))
