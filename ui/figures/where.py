"""Figures for Where it works (pure Plotly builders): acceptance by kind of text and by position."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.wording import _
from ui.figures.rounds import COLORS, _layout


def kind_figure(points, here: list[float | None] | None = None, names: tuple[str, str] = ("", "")) -> go.Figure:
    """Acceptance rate (a fraction) and speedup (a ratio) per kind, each on its own axis. `here`:
    a shipped set's speedups priced again with this machine's profile (None: not priced), drawn as
    the headline beside the shipped ones; `names`: (those priced here, the shipped ones)."""
    from plotly.subplots import make_subplots
    kinds = [p.kind for p in points]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=(_("acceptance rate"), _("speedup ×")))
    fig.add_trace(go.Bar(name=_("acceptance rate"), x=kinds, y=[p.acceptance_rate or 0 for p in points],
                         marker_color=COLORS.accepted, showlegend=False), row=1, col=1)
    if here is not None:
        fig.add_trace(go.Bar(name=names[0], x=kinds, y=[h or 0.0 for h in here], marker_color=COLORS.bonus),
                      row=1, col=2)
    fig.add_trace(go.Bar(name=names[1] if here is not None else _("speedup ×"), x=kinds,
                         y=[p.speedup for p in points], showlegend=here is not None,
                         marker_color=COLORS.bonus if here is None else COLORS.discarded), row=1, col=2)
    fig.add_hline(y=1.0, line_dash="dash", line_color=COLORS.rejected, layer="below", row=1, col=2)
    fig.update_yaxes(range=[0, 1.02], row=1, col=1)
    return _layout(fig, _("Acceptance and speedup by kind"), height=340 if here is None else 380)


def per_position_by_kind_figure(points) -> go.Figure:
    fig = go.Figure([go.Scatter(name=p.kind, x=list(range(1, len(p.per_position) + 1)),
                                y=list(p.per_position), mode="lines+markers") for p in points])
    return _layout(fig, _("Acceptance rate by draft position, per kind"), height=340,
                   xaxis_title=_("draft position i"), yaxis=dict(range=[0, 1.02], title=_("accepted")))
