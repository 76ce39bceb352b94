"""Figures for Where it works (pure Plotly builders): acceptance by kind of text, by position and by how rare a
token is."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.bench.rarity import OUTSIDE
from specdec.wording import _
from ui.figures.rounds import COLORS, _layout


def kind_figure(points, here: list[float | None] | None = None, names: tuple[str, str] = ("", "")) -> go.Figure:
    """Acceptance rate (a fraction) and speedup (a ratio) per kind, each on its own axis, as
    horizontal bars: the kinds' names read across on one shared axis, however long (and in Korean),
    in a half-width column. `here`: a shipped set's speedups priced again with this machine's
    profile (None: not priced), drawn as the headline beside the shipped ones; `names`: (those
    priced here, the shipped ones)."""
    from plotly.subplots import make_subplots
    kinds = [p.kind for p in points]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=(_("acceptance rate"), _("speedup ×")))
    rates = [p.acceptance_rate or 0 for p in points]
    fig.add_trace(go.Bar(name=_("acceptance rate"), y=kinds, x=rates, text=[f"{r:.0%}" for r in rates],
                         orientation="h", marker_color=COLORS.accepted, showlegend=False), row=1, col=1)
    if here is not None:
        fig.add_trace(go.Bar(name=names[0], y=kinds, x=[h or 0.0 for h in here], orientation="h",
                             text=["" if h is None else f"{h:.2f}" for h in here], marker_color=COLORS.bonus),
                      row=1, col=2)
    fig.add_trace(go.Bar(name=names[1] if here is not None else _("speedup ×"), y=kinds, orientation="h",
                         x=[p.speedup for p in points], text=[f"{p.speedup:.2f}" for p in points],
                         showlegend=here is not None,
                         marker_color=COLORS.bonus if here is None else COLORS.discarded), row=1, col=2)
    fig.update_traces(textposition="outside", textangle=0, cliponaxis=False, textfont_size=11)   # each bar's value
    # a speedup's value inside its bar's end: outside, one near 1 sat on the break-even line (review 31)
    fig.update_traces(selector=dict(xaxis="x2"), textposition="inside", insidetextanchor="end",
                      textfont_color="white")
    fig.add_vline(x=1.0, line_dash="dash", line_color=COLORS.rejected, layer="below", row=1, col=2)
    fig.update_xaxes(range=[0, 1.02], row=1, col=1)
    top = max([p.speedup or 0.0 for p in points] + [h or 0.0 for h in here or ()] + [1.0])
    fig.update_xaxes(range=[0, top * 1.15], row=1, col=2)              # the break-even line and the labels inside
    fig.update_yaxes(autorange="reversed", automargin=True, row=1, col=1)     # the first kind on top
    return _layout(fig, _("Acceptance and speedup by kind"), height=300 + 12 * len(kinds) if here is None
                   else 320 + 16 * len(kinds))


def per_position_by_kind_figure(points) -> go.Figure:
    fig = go.Figure([go.Scatter(name=p.kind, x=list(range(1, len(p.per_position) + 1)),
                                y=list(p.per_position), mode="lines+markers") for p in points])
    return _layout(fig, _("Acceptance rate by draft position, per kind"), height=340,
                   xaxis_title=_("draft position i"),
                   yaxis=dict(range=[0, 1.02], title=_("acceptance rate"), automargin=True))


def rarity_figure(bands) -> go.Figure:
    """How often the draft guessed a token, by how rare the token is (specdec/bench/rarity.py): one bar a band,
    its share and count written on it; the band outside the draft's vocabulary in the rejection colour."""
    shown = [b for b in bands if b.tokens]
    fig = go.Figure(go.Bar(x=[_(b.label) for b in shown], y=[b.rate for b in shown],
                           text=[f"{b.rate:.0%} · {b.hits}/{b.tokens}" for b in shown], textposition="outside",
                           cliponaxis=False, marker_color=[COLORS.rejected if b.label == OUTSIDE else COLORS.accepted
                                                           for b in shown]))
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%", title=_("guessed by the draft"))
    fig.update_xaxes(title=_("how often the target writes the token in its own answers"))
    return _layout(fig, _("The draft's guesses by how rare the token is"), height=320)
