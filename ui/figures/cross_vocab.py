"""Across vocabularies: tokens a round and predicted speedup per drafter (a pure Plotly builder)."""
from __future__ import annotations

from typing import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from specdec.wording import _, times
from ui.figures.rounds import COLORS, _layout
from ui.lessons.cross_vocab_speed import SpeedRow


def row_name(row: SpeedRow, drafter_label: str) -> str:
    """A bar's name: the draft model's, or the drafter's when it runs none."""
    return row.draft or drafter_label


def speed_figure(rows: Sequence[SpeedRow], names: Sequence[str], cpu: str, k: int) -> go.Figure:
    """Left: emitted tokens a round; right: the speedup this machine's profile predicts (a dashed
    line at 1: the target alone). Bars of a cross-vocabulary draft in the draft's colour."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=(_("tokens a round"), _("predicted speedup ×")))
    colors = [COLORS.draft if r.across else COLORS.target for r in rows]
    fig.add_trace(go.Bar(x=list(names), y=[r.mean_acceptance_length for r in rows], marker_color=colors,
                         text=[f"{r.mean_acceptance_length:.2f}" for r in rows], textposition="outside"), row=1, col=1)
    speeds = [r.speedup for r in rows]
    fig.add_trace(go.Bar(x=list(names), y=speeds, marker_color=colors,
                         text=[times(s) for s in speeds], textposition="outside"),
                  row=1, col=2)
    fig.add_hline(y=1.0, line_dash="dash", line_color=COLORS.rejected, layer="below", row=1, col=2)
    top = max([r.mean_acceptance_length for r in rows] + [1.0])
    fig.update_yaxes(range=[0, top * 1.25], row=1, col=1)
    fig.update_yaxes(range=[0, max([s or 0 for s in speeds] + [1.0]) * 1.25], row=1, col=2)
    fig.update_layout(showlegend=False)
    title = _("k = {k} on {cpu} (purple: a draft of another vocabulary)").format(k=k, cpu=cpu)
    return _layout(fig, title, height=340)
