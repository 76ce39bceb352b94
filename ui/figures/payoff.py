"""The "Does it pay here?" box's one picture: every whole-set run at one temperature, a mark per run, by k, against
the target alone (1×), the band the box calls break-even and the pale one where one run's gain is not clear yet
(review 51: a 1.06× run drawn past the band, called "not clear"), so run-to-run noise is seen, not read as figures
(reviews 35-38: too many figures for one setting; single runs noisy)."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.wording import _
from ui.figures.rounds import COLORS, GRID
from ui.lessons.bottom_line import Run
from ui.lessons.payoff_words import EVEN, SMALL

ROW_PX = 34
SPREAD = 0.22        # a k's runs side by side on its row, oldest at the top


def _rows(runs: dict[int, list[Run]]) -> list[int]:
    return sorted(k for k, rs in runs.items() if rs)


def _marks(runs: dict[int, list[Run]], here: bool) -> tuple[list[float], list[float], list[Run], list[int]]:
    """x, y, the runs and their k for one origin; a k's n runs spread over SPREAD of its row."""
    xs, ys, shown, ks = [], [], [], []
    for row, k in enumerate(_rows(runs)):
        n = len(runs[k])
        for i, run in enumerate(runs[k]):
            if run.here == here:
                xs.append(run.speedup)
                ys.append(row + (i - (n - 1) / 2) * (SPREAD / max(n - 1, 1)))
                shown.append(run)
                ks.append(k)
    return xs, ys, shown, ks


def _label(k: int, asked: int | None, picked: int | None) -> str:
    """A row's label: its k, and whether it is the box's own setting or the k the prices pick."""
    tags = [_("these settings")] * (k == asked) + [_("the prices' pick")] * (k == picked)
    return _("k = {k}").format(k=k) + (f" ({', '.join(tags)})" if tags else "")


def runs_figure(t: float, runs: dict[int, list[Run]], asked: int | None = None,
                picked: int | None = None) -> go.Figure:
    """`runs`: k -> runs at T = `t` (oldest first). Each run a mark at its speedup with a bar over its repeats'
    range; filled where this machine ran it, open where a machine like this one did; the rows of the box's own k
    (`asked`) and of the k the prices pick (`picked`) say so."""
    fig, rows = go.Figure(), _rows(runs)
    fig.add_vrect(x0=1 - EVEN, x1=1 + EVEN, fillcolor="rgba(128,128,128,0.18)", line_width=0, layer="below")
    fig.add_vrect(x0=1 + EVEN, x1=1 + SMALL, fillcolor="rgba(128,128,128,0.07)", line_width=0, layer="below")
    fig.add_vline(x=1, line=dict(color=COLORS.target, width=1, dash="dot"))
    fig.add_annotation(xref="paper", yref="paper", x=1, y=1, xanchor="right", yanchor="bottom", showarrow=False,
                       text=_("grey band: break-even · pale band: a gain under 10%, not clear from one run"),
                       font=dict(size=11, color="#6b7280"))        # over the plot: Plotly text keeps no <br> here
    for here, name, symbol in ((True, _("measured here"), "circle"),
                               (False, _("on a machine like this one"), "circle-open")):
        xs, ys, shown, ks = _marks(runs, here)
        if not xs:
            continue
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="markers", name=name, marker=dict(size=10, symbol=symbol, color=COLORS.draft,
                                                                line=dict(width=2, color=COLORS.draft)),
            error_x=dict(type="data", symmetric=False, array=[r.high - r.speedup for r in shown],
                         arrayminus=[r.speedup - r.low for r in shown], color=COLORS.draft, thickness=1, width=0),
            customdata=[[k, r.low, r.high] for k, r in zip(ks, shown)],
            hovertemplate=_("k = %{customdata[0]}: %{x:.2f}× (its repeats: %{customdata[1]:.2f}–%{customdata[2]:.2f}×)")
            + "<extra></extra>"))
    labels = [_label(k, asked, picked) for k in rows]
    xs = [x for rs in runs.values() for r in rs for x in (r.low, r.high)] + [1 - 2 * EVEN, 1 + SMALL]
    pad = (max(xs) - min(xs)) * 0.08
    fig.update_layout(
        title=dict(text=_("Every run at T = {t:g}, by k").format(t=t), x=0, xanchor="left", y=0.98, yanchor="top",
                   font=dict(size=14)),
        height=126 + ROW_PX * len(rows), margin=dict(l=10, r=10, t=52, b=72), plot_bgcolor="rgba(0,0,0,0)",
        showlegend=True, legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
        xaxis=dict(title=dict(text=_("× the target alone · a mark: one run on the prompt set, the median of its "
                                     "repeats · its bar: their range"), font=dict(size=12)),
                   range=[min(xs) - pad, max(xs) + pad], gridcolor=GRID, ticksuffix=_("{x}×").format(x=""),
                   zeroline=False),
        yaxis=dict(tickvals=list(range(len(rows))), ticktext=labels, range=[len(rows) - 0.5, -0.5], gridcolor=GRID,
                   zeroline=False))
    return fig
