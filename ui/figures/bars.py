"""Labelled bar charts the lesson figures share (pure Plotly builders)."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.wording import _
from ui.figures.rounds import COLORS, _layout


def labelled_bars(names: list[str], values: list[float], colors: list[str], title: str,
                   break_even: bool, **kw) -> go.Figure:
    """Bars with their values written inside (outside only when a bar is too short), and
    the break-even line behind the bars, so no label sits on the line."""
    fig = go.Figure([go.Bar(x=names, y=values, marker_color=colors, text=[f"{v:.2f}" for v in values],
                            textposition="auto", cliponaxis=False)])
    if break_even:
        fig.add_hline(y=1.0, line_dash="dash", line_color=COLORS.rejected, layer="below",
                      annotation_text=_("break-even"), annotation_position="right")   # in the margin
    fig.update_yaxes(range=[0, max(values + [1.0 if break_even else 0.0]) * 1.15 or 1])
    _layout(fig, title, height=340, **kw)
    return fig.update_layout(margin_r=80 if break_even else 20)
