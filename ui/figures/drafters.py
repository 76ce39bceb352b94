"""Figures for Drafters compared (pure Plotly builders)."""
from __future__ import annotations

import plotly.graph_objects as go

from ui.figures.bars import labelled_bars
from ui.figures.rounds import COLORS
from ui.lessons.bench_words import drafter_name


def drafters_figure(points, y: str, title: str) -> go.Figure:
    """One bar per drafter: the quantity `y` (a field of its points), the highest in green (blue is the
    speedup chart's "priced here": one colour, one meaning on the page); a speedup only where it pays (review 52:
    a green 0.91× under the break-even line read as a winner)."""
    top = max(points, key=lambda p: getattr(p, y) or 0)
    best = top.drafter if y != "speedup" or (top.speedup or 0) > 1 else None
    colors = [COLORS.accepted if p.drafter == best else COLORS.draft for p in points]
    return labelled_bars([drafter_name(p.drafter) for p in points], [getattr(p, y) or 0 for p in points], colors,
                          title, y == "speedup")
