"""The many-prompt comparison as a figure: per metric, one box per setting over the prompts
(whiskers min–max, the box the middle half, the mean dashed, every prompt a dot) and the
learner's single run as a star beside the current setting's box."""
from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from specdec.bench.many import METRICS, Comparison, PromptRun, spread, values
from specdec.wording import _
from ui.figures.rounds import COLORS, _layout
from ui.lessons.many_words import metric_name

ARM_COLORS = (COLORS.bonus, COLORS.correction)


def _box(name: str, xs: list[float], color: str, legend: bool) -> list:
    s = spread(xs)
    if s is None:
        return []
    box = go.Box(x=[name], q1=[s.q1], median=[s.median], q3=[s.q3], lowerfence=[s.lo], upperfence=[s.hi],
                 mean=[s.mean], boxmean=True, name=name, marker_color=color, showlegend=legend,
                 legendgroup=name)
    dots = go.Scatter(x=[name] * len(xs), y=xs, mode="markers", marker=dict(color=color, size=6, opacity=0.6),
                      showlegend=False, legendgroup=name, hovertemplate="%{y:.3g}<extra></extra>")
    return [box, dots]


def many_figure(result: Comparison, mine: PromptRun | None = None) -> go.Figure:
    names, clock = result.arms, result.clock
    fig = make_subplots(rows=1, cols=len(METRICS), subplot_titles=[metric_name(m) for m in METRICS])
    for col, metric in enumerate(METRICS, start=1):
        for name, color in zip(names, ARM_COLORS):
            for trace in _box(name, values(result.of(name), metric, clock), color, col == 1):
                fig.add_trace(trace, row=1, col=col)
        if metric == "speedup" and result.alone:            # over the target alone: where it breaks even
            fig.add_hline(y=1, line_dash="dash", line_color=COLORS.rejected, row=1, col=col)
        x = getattr(mine, metric) if mine else None
        if x is not None:
            fig.add_trace(go.Scatter(x=[names[0]], y=[x], mode="markers", name=_("your run"),
                                     marker=dict(symbol="star", size=16, color=COLORS.rejected,
                                                 line=dict(width=1, color="white")),
                                     showlegend=col == 1, legendgroup="mine"), row=1, col=col)
    title = _("{n} prompts, each run three ways (box: middle half; whiskers: min–max; dashed: mean; red: "
              "break-even)") if result.alone else _(
        "{n} prompts, each run under both settings (box: middle half; whiskers: min–max; dashed: mean)")
    return _layout(fig, title.format(n=result.prompts), height=340)
