"""Figures for Why it is exact (pure Plotly builders): the toy view and a rule's law."""
from __future__ import annotations

from typing import Sequence

import plotly.graph_objects as go

from specdec.wording import _
from ui.figures.rounds import COLORS, _layout


def toy_figure(tokens: Sequence[str], p, q, accepted, from_residual) -> go.Figure:
    """q, p, and the emitted law stacked as min(p, q) + (1 − β)·residual, per token."""
    t = list(tokens)
    fig = go.Figure([
        go.Bar(name=_("q (draft)"), x=t, y=list(q), marker_color=COLORS.draft, offsetgroup="q"),
        go.Bar(name=_("p (target)"), x=t, y=list(p), marker_color=COLORS.target, offsetgroup="p"),
        go.Bar(name=_("drafted and accepted: min(p, q)"), x=t, y=list(accepted),
               marker_color=COLORS.overlap, offsetgroup="out"),
        go.Bar(name=_("from the residual: (1 − β)·norm(max(0, p − q))"), x=t, y=list(from_residual),
               base=list(accepted), marker_color=COLORS.correction, offsetgroup="out")])
    return _layout(fig, _("The emitted token's law (right bar of each group) lands exactly on p"),
                   height=380, barmode="group", yaxis_title=_("probability"))


def law_figure(tokens: Sequence[str], p, observed, observed_name: str, color: str) -> go.Figure:
    """Target p against an observed (or exact) distribution of emitted tokens."""
    fig = go.Figure([
        go.Bar(name=_("p (target)"), x=list(tokens), y=list(p), marker_color=COLORS.target, opacity=0.5),
        go.Bar(name=observed_name, x=list(tokens), y=list(observed), marker_color=color)])
    return _layout(fig, _("Emitted tokens vs the target's p"), height=360, barmode="group",
                   yaxis_title=_("probability"))
