"""When it is fast, section 1: Leviathan et al.'s theory with sliders that start at this machine's
α̂, c and pass price (its profile) for the sidebar's settings."""
from __future__ import annotations

import streamlit as st

from specdec.bench import machine
from specdec.defaults import K_OFFERED
from specdec.trace.theory import best_k, expected_speedup, expected_tokens, speedup_with_verify
from specdec.wording import times
from ui import payoff_answer, state
from ui.figures import fast as lp
from ui.i18n import _
from ui.lessons import badges
from ui.lessons.bench_words import machine_short
from ui.round_view import chart


def alpha_source(measured_here: bool, usual, alike: bool = False) -> str:
    """Where the answer's α̂ comes from, in a few words: a figure measured at these settings (here, or
    `alike`: on a machine like this one), or what payoff_answer.acceptance found instead (`usual`: a
    payoff.Elsewhere)."""
    if alike:
        return _("measured at these settings on a machine like this one")
    if measured_here or not usual:
        return _("measured here at these settings")
    return _("{on}, measured on {cpu}").format(on=usual.on, cpu=machine_short(usual.cpu))


def here_values(pair) -> tuple[float, float, float, str] | None:
    """(α̂, c, ε, where α̂ comes from, in words) of this machine for the sidebar's
    settings: the answer's α̂, the profile's c, and ε from its measured pass of 5 tokens
    (v(5) = 1 + 4ε); None where one of them is missing."""
    settings, profile = state.settings(), machine.of(pair) if pair is not None else None
    found, usual, alpha = payoff_answer.acceptance(pair, settings) if profile is not None else (None, None, None)
    c = machine.draft_c(profile, settings.drafter, pair.draft_name) if profile is not None else None
    if alpha is None or c is None or 5 not in profile.v:
        return None
    source = alpha_source(found is not None, usual, found is not None and found.cpu is not None)
    return round(alpha, 2), round(c, 2), round(min(0.5, (profile.v[5] - 1) / 4), 2), source


SEEDS = "fast_theory_seeds"
KEYS = ("fast_alpha", "fast_c", "fast_eps")


def seed(start: tuple[float, ...], keys: tuple[str, ...] = KEYS, seeds: str = SEEDS) -> None:
    """Start the sliders `keys` (α, c and ε) at `start` (this machine's values) and again whenever those
    change (a k sweep files a new α̂, the sidebar's settings change): a slider keeps the value in
    its key's state, so the state is overwritten before the slider is drawn. A value the reader
    set stays until the values it started from change (`seeds`: where the last start is kept)."""
    before = st.session_state.get(seeds)
    for i, key in enumerate(keys):
        if key not in st.session_state or before is None or before[i] != start[i]:
            st.session_state[key] = start[i]
    st.session_state[seeds] = start


def render(pair) -> None:
    st.header(_("1 · Theory (Leviathan et al. 2023, §3, with a price ε for the verifying pass)"))
    here = here_values(pair)
    seed(here[:3] if here else (0.8, 0.15, 0.0))
    c1, c2, c3, c4 = st.columns(4)
    alpha = c1.slider(_("α (chance a draft token is accepted)"), 0.0, 0.99, step=0.01, key="fast_alpha",
                      help=_("α is the expected β = Σ min(p, q) of a round's draft tokens; this machine's "
                             "runs estimate it as α̂, the mean β they saw. Not the acceptance rate "
                             "(accepted ÷ drafted tokens) that Step through and vLLM report."))
    k = c2.slider(_("k (draft length)"), *K_OFFERED, 4, key="fast_k")
    c = c3.slider(_("c (draft step / target step)"), 0.0, 1.0, step=0.01, key="fast_c")
    eps = c4.slider(_("ε (extra cost per verified token)"), 0.0, 0.5, step=0.01, key="fast_eps",
                    help=_("The theorem assumes checking k + 1 tokens in one pass costs one target "
                           "step (ε = 0: true on an idle GPU). On a CPU each extra token costs "
                           "a little: the pass costs 1 + k·ε steps."))
    m1, m2, m3 = st.columns(3)
    m1.metric(_("Expected tokens a round"), f"{expected_tokens(alpha, k):.2f}",
              help="(1 − α^(k+1)) / (1 − α)")
    m2.metric(_("Expected speedup"), times(expected_speedup(alpha, k, c + eps)),
              help=_("(1 − α^(k+1)) / ((1 − α)(k·c + 1 + k·ε)); Theorem 3.8 is ε = 0"))
    best = best_k(alpha, c + eps, K_OFFERED[1])                                       # ε acts as c + ε
    at_best = expected_speedup(alpha, best, c + eps)
    m3.metric(_("Best k for this α, c and ε"), best, delta=times(at_best), delta_color="normal" if at_best > 1 else
              "inverse", delta_arrow="off", help=_("The delta: the expected speedup at that k; below 1× no k pays."))
    if here:
        st.caption(_("The sliders start at this machine's values for the sidebar's settings: α̂ = {a:.2f} ({source}), "
                     "c = {c:.2f} (its profile) and ε = {e:.2f} (its pass of 5 tokens, v(5) = 1 + 4ε). Move them to "
                     "see where speculation would pay.").format(a=here[0], source=here[3], c=here[1],
                                                               e=here[2]))
    chart(lp.theory_figure(alpha, k, c, eps=eps), "fast-theory")
    st.caption(_("Notice: {shapes}. More drafts mean more chances but each costs c; below the dashed line "
                 "speculation is slower than the target alone. Raising ε acts exactly like raising c: a costlier "
                 "verification pass favours a smaller k.").format(shapes=shapes(alpha, c + eps)))
    if here:
        beside_measured(pair, best, at_best, alpha, c, eps, here[0])


def beside_measured(pair, best: int, at_best: float, alpha: float, c: float, eps: float, alpha_hat: float) -> None:
    """The formula's figures beside what this machine measured at the sidebar's settings, behind one expander
    (issue 51: method and caveats out of the way of the section's one figure)."""
    settings = state.settings()
    lines = [said for said in (against_box(payoff_answer.answer(pair, settings)[0], settings, alpha_hat),
                               best_against_measured(pair, settings, best, at_best, alpha, c, eps)) if said]
    if lines:
        with st.expander(_("The formula beside this machine's measurements")):
            for said in lines:
                st.caption(said)


def against_box(p, settings, alpha: float) -> str | None:
    """Why the formula's figures at this machine's α̂ are not the box's (`p`, a payoff.Payoff for
    `settings`): it assumes one α at every draft position, while the box counts the tokens a round
    its runs (or the shipped ones) kept."""
    if p.tokens is None or p.predicted is None or settings.policy != "constant":
        return None
    said = _("At k = {k} the formula expects {expected:.2f} tokens a round from α̂ = {a:.2f}, as if every draft "
             "position were accepted alike; the rounds behind the answer box kept {kept:.2f}, so the answer box "
             "predicts {figure}") if not p.over else _(
        "At k = {k} the formula expects {expected:.2f} tokens a round from α̂ = {a:.2f}, as if every draft position "
        "were accepted alike; the rounds behind the answer box kept {kept:.2f}, and counting the prompt's prefill "
        "(alike in both modes, it pulls a ratio toward 1) the answer box predicts {figure}")
    figure = p.raw if p.measured is not None else p.predicted      # beside a measurement, the working's price
    text = said.format(k=settings.k, expected=expected_tokens(alpha, settings.k), a=alpha, kept=p.tokens,
                       figure=times(figure)) + "."
    return text if p.measured is None else text + " " + _("Measured: {m}.").format(m=times(p.measured.speedup))


def best_against_measured(pair, settings, best: int, at_best: float, alpha: float, c: float,
                          eps: float) -> str | None:
    """Where the formula's best k is not the sidebar's: its figure there, the same formula at this machine's pass
    of that width (the tour's dotted line), and what whole runs of a constant k of it measured (review 26: "Best k
    1, 0.98×" beside the box's "1.08×"; review 45: 1.07× here, 1.15× in the tour, 1.03× in the box, each explained
    elsewhere)."""
    profile = machine.of(pair)
    seen = payoff_answer.at_k(pair, settings, best) if best != settings.k else None
    if seen is None or profile is None or best + 1 not in profile.v:
        return None
    v, lin = profile.v[best + 1], 1 + best * eps
    real = speedup_with_verify(alpha, best, c, v)
    if times(real) == times(at_best):          # one figure (review 51: "1.10× … at that price 1.11×")
        return _("Its best k is {k} ({x}), pricing a pass of {m} tokens at {lin:.2f} steps as this machine does; "
                 "whole runs at k = {k}, which also read the prompt, measured {seen} {badge}.").format(
            k=best, x=times(at_best), m=best + 1, lin=lin, seen=times(seen[0]), badge=badges.of(seen[1]))
    places = 3 if f"{lin:.2f}" == f"{v:.2f}" else 2   # prices alike to two places, figures not: the third shows why
    return _("Its best k is {k} ({x}). The tour prices a pass of {m} tokens as this machine measured it, {v} steps "
             "instead of {lin}, and gets {real}; whole runs at k = {k}, which also read the prompt, measured {seen} "
             "{badge}.").format(
        k=best, x=times(at_best), m=best + 1, lin=f"{lin:.{places}f}", v=f"{v:.{places}f}", real=times(real),
        seen=times(seen[0]), badge=badges.of(seen[1]))


def shapes(alpha: float, cost: float) -> str:
    """What the chart's curves do (the family lp.ALPHAS and the slider's α, at c + ε), read off
    the curves: those that peak past k = 1 (and where), those that only fall, those still rising
    at the chart's last k."""
    k_max = K_OFFERED[1]
    peaks = {a: best_k(a, cost, k_max) for a in sorted(set(lp.ALPHAS) | {round(alpha, 2)})}
    peaked = [a for a, k in peaks.items() if 1 < k < k_max]
    parts = []
    if peaked:
        parts.append(_("the curves for α = {alphas} rise to a peak (at k = {ks}) and then fall").format(
            alphas=", ".join(f"{a:.2f}" for a in peaked), ks=", ".join(str(peaks[a]) for a in peaked)))
    for k, words in ((1, _("the curves for α = {alphas} only fall from k = 1")),
                     (k_max, _("the curves for α = {alphas} still rise at k = {k}"))):
        if group := [a for a, at in peaks.items() if at == k]:
            parts.append(words.format(alphas=", ".join(f"{a:.2f}" for a in group), k=k))
    return "; ".join(parts)
