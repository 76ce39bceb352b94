"""The guided tour's step 3: speed is a balance of α, k and c — the sliders on Leviathan et al.'s formula, the
same sliders with this machine's passes, and whole runs measured at the k those passes pick."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from specdec.bench import machine
from specdec.defaults import K_CHOICES
from specdec.trace.theory import best_k, expected_speedup, speedup_with_verify
from ui import fast_theory_view, payoff_answer, state
from ui.i18n import _
from ui.lessons import badges
from ui.round_view import chart


def render(pair) -> None:
    """The balance of α, k and c: Leviathan et al.'s formula beside this machine's passes, and whole runs measured
    at the k its prices pick."""
    st.write(_("Speed is a balance. The draft has to agree with the target often (α, the chance a "
               "draft survives), and it has to be cheap (c, one draft step as a fraction of a "
               "target step). A weak draft wastes its guesses; a big one costs as much as it saves."))
    here = fast_theory_view.here_values(pair) if pair is not None else None
    fast_theory_view.seed(here[:2] if here else (0.7, 0.1), ("tour_alpha", "tour_c"), "tour_seeds")
    c1, c2 = st.columns(2)
    alpha = c1.slider(_("α: how often a draft survives"), 0.05, 0.95, step=0.01, key="tour_alpha")
    c = c2.slider(_("c: draft step / target step"), 0.0, 1.0, step=0.01, key="tour_c")
    if here:
        st.caption(_("The sliders start at this machine's values for the active pair: α̂ = {a:.2f} ({source}), "
                     "c = {c:.2f} (its profile).").format(a=here[0], source=here[3], c=here[1]))
    ks = list(K_CHOICES)
    widths = machine.of(pair).v if here else {}
    fig = go.Figure(go.Scatter(x=ks, y=[expected_speedup(alpha, k, c) for k in ks], mode="lines+markers",
                               name=_("the formula: checking costs one step")))
    priced = [(k, speedup_with_verify(alpha, k, c, widths[k + 1])) for k in ks if k + 1 in widths]
    if priced:                  # the same sliders with this machine's passes: its real balance
        fig.add_trace(go.Scatter(x=[k for k, _x in priced], y=[x for _k, x in priced], mode="lines+markers",
                                 line_dash="dot", name=_("with this machine's passes")))
    fig.add_hline(y=1.0, line_dash="dash", annotation_text=_("target alone"))
    fig.update_layout(height=300, xaxis_title=_("k (drafts per round)"), yaxis_title=_("expected speedup"),
                      margin=dict(t=10, b=10), legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    chart(fig, "tour_budget")
    if priced:                  # this machine's balance first: the formula's is the upbeat one (review 37)
        best = max(priced, key=lambda kx: kx[1])
        seen = payoff_answer.at_k(pair, state.settings(), best[0])
        said = _("With this machine's passes (dotted) the best k for these sliders is **{k}**, for an expected "
                 "**{x:.2f}×**: here checking is not free, a pass over k + 1 tokens costs v(k + 1) target steps "
                 "(v({m}) = {v:.2f}), which Leviathan et al.'s formula leaves out.").format(
            k=best[0], x=best[1], m=best[0] + 1, v=widths[best[0] + 1])
        if seen is None:
            st.write(said + " " + _("The answer box “Does it pay here?” on the lesson pages states what whole runs "
                                    "measure."))
        else:             # the measurement right under it, as text (review 48: "expected 1.06×" read as a gain)
            st.write(said)
            st.write(measured_whole(best[0], seen, best[1]))
    k = best_k(alpha, c, K_CHOICES[-1])
    if priced:                  # the formula's upbeat figure in small print under this machine's (review 42)
        st.caption(_("The formula alone, with checking free (solid line), would pick k = {k} for {speedup:.2f}×: no "
                     "forecast for this machine, whose passes are not free.").format(
            k=k, speedup=expected_speedup(alpha, k, c)))
    elif expected_speedup(alpha, k, c) < 1:
        st.write(_("At α = {alpha:.2f} and c = {c:.2f} no k beats the target alone by Leviathan et al.'s formula "
                   "(at best {speedup:.2f}×, k = {k}): do not speculate with such a draft.").format(
            alpha=alpha, c=c, speedup=expected_speedup(alpha, k, c), k=k))
    else:
        st.write(_("Best k for these sliders: **{k}**, for an expected {speedup:.2f}× by Leviathan et al.'s formula, "
                   "if α = {alpha:.2f} and c = {c:.2f} as set above and checking the drafts costs one step. It "
                   "assumes those values; it is no forecast for this machine: the race in step 8 measures this "
                   "machine, and *When it is fast* starts from its measured α̂ and c.").format(
            k=k, speedup=expected_speedup(alpha, k, c), alpha=alpha, c=c))


def measured_whole(k: int, seen: tuple, expected: float) -> str:
    """Whole runs measured at a constant `k` and the sidebar's other settings (`seen`: payoff_answer.at_k's), beside
    the sliders' rounds-only `expected` figure (review 43: 1.16× for k = 1 here, 1.03× measured, nothing between
    them; review 48: "expected 1.06×" read as a gain where runs measured 0.99×)."""
    said = _("Whole runs at k = {k} (the sidebar's T = {t:g}) measured **{x:.2f}×** {badge}: they also pay for "
             "reading the prompt and the work between passes, which the sliders leave out, so they come in below the "
             "expected figure.") if seen[0] < expected else _(
        "Whole runs at k = {k} (the sidebar's T = {t:g}) measured **{x:.2f}×** {badge}, at or above the expected "
        "figure, although they also pay for reading the prompt and the work between passes.")
    return said.format(k=k, t=state.settings().temperature, x=seen[0], badge=badges.of(seen[1]))
