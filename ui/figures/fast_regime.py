"""Figures of the regime lesson (pure Plotly builders)."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.wording import _
from ui.figures.rounds import COLORS, _layout


def price_figure(measured: dict[int, float], roof: dict[int, float]) -> go.Figure:
    """v(M) measured on this machine beside the roofline's lower bound."""
    widths = sorted(measured)
    fig = go.Figure([
        go.Scatter(name=_("measured here"), x=widths, y=[measured[m] for m in widths], mode="lines+markers",
                   line={"color": COLORS.target}),
        go.Scatter(name=_("roofline (lower bound)"), x=widths, y=[roof[m] for m in widths], mode="lines",
                   line={"color": COLORS.draft, "dash": "dash"}),
        go.Scatter(name=_("free pass (Theorem 3.8)"), x=widths, y=[1.0] * len(widths), mode="lines",
                   line={"color": "grey", "dash": "dot"})])
    fig.update_xaxes(dtick=1)
    return _layout(fig, _("The price of a pass of M tokens, in one-token steps"), height=360,
                   xaxis_title=_("tokens in the pass (M = k + 1)"), yaxis_title=_("v(M), steps"))


def calculator_figure(rows, floored=None, floor_us: float = 0.0) -> go.Figure:
    """Per k (elsewhere.Forecast): the speedup a machine's roofline leaves, and (`floored`) the
    speedup with every layer taking at least `floor_us`."""
    ks = [r.k for r in rows]
    lines = [go.Scatter(name=_("by the roofline alone"), x=ks, y=[r.speedup for r in rows], mode="lines+markers",
                        line={"color": COLORS.bonus})]
    if floored:
        lines.append(go.Scatter(name=_("every layer at least {floor:g} µs").format(floor=floor_us), x=ks,
                                y=[r.speedup for r in floored], mode="lines+markers",
                                line={"color": COLORS.draft, "dash": "dash"}))
    fig = go.Figure([*lines, go.Scatter(name=_("break-even"), x=ks, y=[1.0] * len(ks), mode="lines",
                                        line={"color": "grey", "dash": "dot"})])
    fig.update_xaxes(dtick=1)
    return _layout(fig, _("What speculation would reach there"), height=340, xaxis_title="k",
                   yaxis_title=_("speedup (×)"))


def gpu_figure(rows) -> go.Figure:
    """v(k + 1) measured on a GPU beside the datacenter GPU's roofline, per k (regime.OnAGpu)."""
    widths = [r.k + 1 for r in rows]
    fig = go.Figure([
        go.Scatter(name=_("measured on a GPU"), x=widths, y=[r.v_measured for r in rows], mode="lines+markers",
                   line={"color": COLORS.target}),
        go.Scatter(name=_("roofline, datacenter GPU (published figures)"), x=widths, y=[r.v for r in rows],
                   mode="lines", line={"color": COLORS.draft, "dash": "dash"}),
        go.Scatter(name=_("free pass (Theorem 3.8)"), x=widths, y=[1.0] * len(widths), mode="lines",
                   line={"color": "grey", "dash": "dot"})])
    fig.update_xaxes(dtick=1)
    return _layout(fig, _("The price of a pass of M tokens on a GPU, in one-token steps"), height=340,
                   xaxis_title=_("tokens in the pass (M = k + 1)"), yaxis_title=_("v(M), steps"))
