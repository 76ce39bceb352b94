"""Figures for Drafters compared (pure Plotly builders)."""
from __future__ import annotations

import plotly.graph_objects as go

from ui.figures.bars import labelled_bars
from ui.figures.rounds import COLORS
from ui.lessons.bench_words import drafter_name


def drafters_figure(points, y: str, title: str) -> go.Figure:
    """One bar per drafter: the quantity `y` (a field of its points)."""
    best = max(points, key=lambda p: getattr(p, y) or 0).drafter
    colors = [COLORS.bonus if p.drafter == best else COLORS.draft for p in points]
    return labelled_bars([drafter_name(p.drafter) for p in points], [getattr(p, y) or 0 for p in points], colors,
                          title, y == "speedup")
