"""Labelled bar charts the lesson figures share (pure Plotly builders)."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.wording import _
from ui.figures.rounds import COLORS, _layout

LABELS = dict(textposition="outside", textangle=0, cliponaxis=False, textfont_size=11)   # a bar's value, above it
PAIRED = {**LABELS, "textfont_size": 9}             # two bars a name: half the room for each value


def labelled_bars(names: list[str], values: list[float], colors: list[str], title: str,
                   break_even: bool, **kw) -> go.Figure:
    """Bars with their values written above them, level and readable (review 22: values rotated inside
    narrow bars were too small to read), and the break-even line behind the bars."""
    fig = go.Figure([go.Bar(x=names, y=values, marker_color=colors, text=[f"{v:.2f}" for v in values],
                            **LABELS)])
    if break_even:
        fig.add_hline(y=1.0, line_dash="dash", line_color=COLORS.rejected, layer="below",
                      annotation_text=_("break-even"), annotation_position="right")   # in the margin
    fig.update_yaxes(range=[0, max(values + [1.0 if break_even else 0.0]) * 1.15 or 1])
    _layout(fig, title, height=340, **kw)
    return fig.update_layout(margin_r=80 if break_even else 20)


def priced_bars(names: list[str], here: list[float | None], there: list[float], here_name: str, there_name: str,
                title: str, **kw) -> go.Figure:
    """A shipped result's speedups (`there`, grey: another machine's, for comparison) beside the
    same points priced again with this machine's profile (`here`, the headline; None: not priced)."""
    fig = go.Figure([
        go.Bar(x=names, y=[h or 0.0 for h in here], name=here_name, marker_color=COLORS.bonus,
               text=["—" if h is None else f"{h:.2f}" for h in here], **PAIRED),
        go.Bar(x=names, y=there, name=there_name, marker_color=COLORS.discarded,
               text=[f"{t:.2f}" for t in there], **PAIRED)])
    fig.add_hline(y=1.0, line_dash="dash", line_color=COLORS.rejected, layer="below",
                  annotation_text=_("break-even"), annotation_position="right")
    fig.update_yaxes(range=[0, max([h or 0.0 for h in here] + there + [1.0]) * 1.15])
    _layout(fig, title, height=360, barmode="group", **kw)
    return fig.update_layout(margin_r=80)
