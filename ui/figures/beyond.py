"""Beyond tokens: the measured curves (pure Plotly builders over specdec.beyond's records)."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.wording import _
from ui.figures.rounds import COLORS, _layout


def pool_figure(rows: list, cheap_mrr: float, everywhere_mrr: float, reference: int) -> go.Figure:
    """MRR@10 and the pool's recall against the pool size n (gate 0), with the cheap stage alone
    and judge everywhere as lines."""
    rows = sorted(rows, key=lambda r: r.pool)
    x = [r.pool for r in rows]
    fig = go.Figure([
        go.Scatter(x=x, y=[r.mrr for r in rows], mode="lines+markers", name=_("MRR@10: judge on the pool"),
                   line_color=COLORS.target),
        go.Scatter(x=x, y=[r.recall for r in rows], mode="lines+markers", name=_("recall of the pool"),
                   line=dict(color=COLORS.draft, dash="dot"))])
    fig.add_hline(y=cheap_mrr, line_dash="dash", line_color=COLORS.draft,
                  annotation_text=_("cheap stage alone"), annotation_position="bottom right")
    fig.add_hline(y=everywhere_mrr, line_dash="dash", line_color=COLORS.accepted,
                  annotation_text=_("judge everywhere ({n})").format(n=reference), annotation_position="top left")
    return _layout(fig, pool_title(rows), xaxis_title=_("pool size n (candidates handed on)"),
                   yaxis_title=_("share"), yaxis_range=[0, 1.05], xaxis=dict(type="log", tickvals=x))


SAME = 0.01          # MRR moving less than this from the smallest pool to the largest: about the same


def pool_title(rows: list) -> str:
    """The pool chart's title, read off its MRR line from the smallest pool to the largest (review 48: "More
    candidates, better answers" over a line that fell)."""
    ordered = sorted(rows, key=lambda r: r.pool)
    change = ordered[-1].mrr - ordered[0].mrr if ordered else 0.0
    if change > SAME:
        return _("More candidates, better answers")
    if change < -SAME:
        return _("More candidates, worse answers")
    return _("More candidates, about the same answers")


def cost_figure(rows: list) -> go.Figure:
    """ms per query and judge calls against the pool size (gate 0)."""
    rows = sorted(rows, key=lambda r: r.pool)
    x = [r.pool for r in rows]
    fig = go.Figure([go.Bar(x=x, y=[r.ms for r in rows], name=_("ms per query"), marker_color=COLORS.target)])
    fig.add_trace(go.Scatter(x=x, y=[r.judge_calls for r in rows], name=_("judge calls per query"),
                             mode="lines+markers", yaxis="y2", line_color=COLORS.correction))
    return _layout(fig, _("… and more cost"), xaxis_title=_("pool size n"), yaxis_title=_("ms per query"),
                   xaxis=dict(type="category"),
                   yaxis2=dict(title=_("judge calls"), overlaying="y", side="right", rangemode="tozero",
                               tickmode="auto", showgrid=False))         # its own round ticks, not y's gridlines


def gate_figure(rows: list) -> go.Figure:
    """Against the gate: the share of queries that skip the judge, the share whose answer
    differs from the full pipeline's, and MRR@10."""
    rows = sorted(rows, key=lambda r: r.gate)
    x = [r.gate for r in rows]
    fig = go.Figure([
        go.Scatter(x=x, y=[r.skipped for r in rows], mode="lines+markers", name=_("skipped the judge"),
                   line_color=COLORS.discarded),
        go.Scatter(x=x, y=[r.differ for r in rows], mode="lines+markers",
                   name=_("answer differs from the full pipeline"), line_color=COLORS.rejected),
        go.Scatter(x=x, y=[r.mrr for r in rows], mode="lines+markers", name=_("MRR@10"),
                   line_color=COLORS.target)])
    fig.add_hline(y=0, line_color=COLORS.accepted, annotation_text=_("speculative decoding: distance to p = 0"),
                  annotation_position="top left")
    return _layout(fig, _("The gate: cheaper, and no longer exact"), xaxis_title=_("gate g (0: always judge)"),
                   yaxis_title=_("share"), yaxis_range=[-0.02, 1.05])


def agents_figure(rows: list, n_tools: int) -> go.Figure:
    """Accuracy of the called tool against k, the router alone and the judge over all tools."""
    rows = sorted(rows, key=lambda r: r.k)
    x = [r.k for r in rows]
    fig = go.Figure([
        go.Scatter(x=x, y=[r.accuracy for r in rows], mode="lines+markers", name=_("right tool called"),
                   line_color=COLORS.target),
        go.Scatter(x=x, y=[r.recall for r in rows], mode="lines+markers", name=_("right tool among the k"),
                   line=dict(color=COLORS.draft, dash="dot"))])
    fig.add_hline(y=rows[0].router if rows else 0, line_dash="dash", line_color=COLORS.draft,
                  annotation_text=_("router alone"), annotation_position="bottom right")
    return _layout(fig, _("Tools: k proposed, the model picks one (k = {n}: every tool)").format(n=n_tools),
                   xaxis_title=_("k (tools proposed)"), yaxis_title=_("share"), yaxis_range=[0, 1.05],
                   xaxis=dict(type="log", tickvals=x))
