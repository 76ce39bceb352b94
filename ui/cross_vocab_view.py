"""Across vocabularies (pages/cross_vocab.py): which pair, one round taken apart, and the drafters
compared on this machine. The computations are ui/lessons/cross_vocab*.py's; this draws them."""
from __future__ import annotations

import pandas as pd
import streamlit as st

import specdec
from specdec.drafters.registry import DRAFTERS, chain_for
from specdec.models.names import DEFAULT_DRAFT, DEFAULT_TARGET, EMBEDDED, family_drafts
from specdec.settings import Settings
from ui import loaders, session, strip
from ui.figures.cross_vocab import row_name, speed_figure
from ui.figures.rounds import prob, show
from ui.i18n import N_, _
from ui.lessons import badges
from ui.lessons.cross_vocab import CrossRound, cross_drafter_name
from ui.lessons.cross_vocab_speed import Source, speed_row
from ui.safe import md

DRAFTS = tuple(n for n in EMBEDDED if n.startswith("stdlib/draft"))   # another vocabulary than SmolLM2's
CROSS_DRAFT = "stdlib/draft-4l"          # the one the README measured
PROMPTS = ("Write a Python function that returns the squares of a list of numbers.",
           "import os\nimport sys\nimport re\nimport json\nimport")   # raw: a list the drafts continue


def cross_pair(active):
    """The sidebar's pair when its draft has another tokenizer; else SmolLM2 with a stdlib draft
    chosen here. None (said why) when it cannot load."""
    if active is not None and active.across_vocab:
        st.caption(_("The sidebar's pair drafts across vocabularies: {target} ← {draft}.").format(
            target=active.target_name, draft=active.draft_name))
        return active
    st.session_state.setdefault("cv_draft", CROSS_DRAFT)
    st.selectbox(_("Draft with another tokenizer (target: {target})").format(target=DEFAULT_TARGET), DRAFTS,
                 key="cv_draft")
    try:
        base = active if active is not None and active.target_name == DEFAULT_TARGET else \
            loaders.load(DEFAULT_TARGET, DEFAULT_DRAFT)         # the default pair: most often loaded already
        return beside(base, st.session_state.cv_draft)
    except specdec.LoadError as err:
        st.warning(_("Could not load the models: {why}.").format(why=loaders.describe(err)))
        return None


def beside(base, draft: str):
    """`draft` paired with `base`'s target (the loaded one: no second copy of the target)."""
    if base.draft_name == draft:
        return base
    return _beside(base, (base.target_name, id(base.target), str(base.passes.name), draft))


@st.cache_resource(show_spinner=False, max_entries=8)
def _beside(_base, key: tuple):
    from specdec.models.load import load_model, load_tokenizer
    draft = key[-1]
    return specdec.make_pair(_base.target, load_model(draft), _base.tokenizer, _base.target_name, draft,
                             load_tokenizer(draft), backend=_base.passes.name)


def quoted(piece: str) -> str:
    """A token in running text: whitespace made visible, Markdown escaped, between ‹ ›."""
    return f"‹{md(show(piece, 12))}›"


def context_line(cr: CrossRound) -> None:
    tail = " ".join(quoted(p) for p in cr.context_tail)
    fed = ("…" if cr.fed > len(cr.reread) else "") + " ".join(quoted(p) for p in cr.reread)
    st.markdown(_("The draft re-read the text in its own tokens (…{tail}), kept {kept} of the {cached} tokens "
                  "in its cache and fed itself {fed}.").format(tail=tail, kept=cr.kept, cached=cr.cached, fed=fed))


def own_words(d) -> str:
    """The draft's own first choice at a position, and why TLI could or could not propose it."""
    if d.own.shared:
        return _("{piece}: shared").format(piece=show(d.own.piece, 12))
    if not d.own.target_split:
        return _("{piece}: a special token, never proposed").format(piece=show(d.own.piece, 12))
    return _("{piece}: the target writes it as {pieces}").format(
        piece=show(d.own.piece, 12), pieces=" + ".join(show(t, 8) for t in d.own.target_split))


def drafted_table(cr: CrossRound) -> pd.DataFrame:
    return pd.DataFrame([{"i": d.i, _("draft token"): show(d.draft_piece), _("target token"):
                          show(d.target_piece), _("text"): show(d.text), "q(d)": prob(d.q), "p(d)": prob(d.p),
                          "min(1, p/q)": prob(d.ratio), "u": prob(d.u), _("verdict"): _(d.verdict),
                          _("draft's 1st choice"): own_words(d), _("shared mass"): prob(d.own.inside)}
                         for d in cr.drafted])


def split_line(cr: CrossRound) -> None:
    shown = " ".join(quoted(p) for p in cr.target_split) or "∅"
    words = (_("The target's tokenizer writes the drafted text with the same tokens: {pieces}.") if cr.same_split
             else _("The target's tokenizer would write the drafted text otherwise: {pieces}. Each drafted "
                    "token is still checked on its own; a split the target would not make is usually rejected."))
    st.markdown(words.format(pieces=shown))
    if cr.half:
        st.caption(_("The drafts end half-way through a character ({n} byte(s)): that part has no text yet.")
                   .format(n=cr.half))


FINAL = {"correction": N_("drawn from the residual"), "bonus": N_("a bonus token from pₖ₊₁"),
         "target": N_("the target's own token")}


def final_line(cr: CrossRound) -> None:
    rnd = cr.rnd
    st.markdown(_("Kept **{kept}** of {drafted}; the target then added {token} ({how}).").format(
        kept=rnd.n_accepted, drafted=rnd.drafted, token=quoted(cr.final_piece),
        how=_(FINAL.get(str(rnd.final.kind), str(rnd.final.kind)))))


def show_round(cr: CrossRound) -> None:
    st.subheader(_("Round {n}").format(n=cr.rnd.index + 1))
    context_line(cr)
    if cr.drafted:
        st.dataframe(drafted_table(cr), hide_index=True, placeholder="—", key="cv_table")
        st.caption(_("Draft token: as the draft's vocabulary spells it (Ġ or ▁ is a space, Ċ a newline, <0x..> one "
                     "byte). Target token: the one with the same bytes. 1st choice: the draft's favourite over its "
                     "whole vocabulary. Shared mass: its probability (T = 1) on tokens both vocabularies hold."))
        split_line(cr)
    else:
        st.markdown(_("The draft proposed nothing this round (its window is full, or the run is at its end)."))
    final_line(cr)


def text_so_far(pair, stepper) -> None:
    """What the target has written so far; a line when the run has ended (the next click restarts it)."""
    st.caption(_("The text so far (the target's tokens):"))
    st.html(strip.text_html(pair.tokenizer.decode(stepper.decoder.generated)))
    if stepper.done:
        st.caption(_("This run has ended ({why}); the next round starts it again.").format(
            why=session.note_text(stepper.decoder.stop)))


def speed_entries(pair) -> list[tuple]:
    """(pair, drafter) rows: the cross-vocab draft, the target's own drafts, n-gram lookup."""
    model = chain_for(has_draft=True).name
    same = [(beside(pair, d), model) for d in family_drafts(pair.target_name) if d != pair.draft_name]
    return [(pair, cross_drafter_name()), *same, (pair, chain_for(has_draft=False).name)]


@st.cache_resource(show_spinner=False, max_entries=8)
def measured(key: tuple, _entries, _prompts, _settings, _profile) -> list:
    """The rows, measured once per key in this process (a button runs it)."""
    return [speed_row(p, d, list(_prompts), _settings, _profile) for p, d in _entries]


def speed_settings(settings: Settings) -> Settings:
    return Settings(k=settings.k, temperature=settings.temperature, seed=settings.seed, max_new_tokens=24)


def speed_table(rows, names) -> pd.DataFrame:
    source = {Source.PROFILE: _("machine profile"), Source.RUN: _("these runs"), Source.NONE: "—"}
    return pd.DataFrame([{_("drafter"): n, _("tokens a round"): f"{r.mean_acceptance_length:.2f}",
                          _("acceptance rate"): f"{r.acceptance:.0%}",
                          "c": "—" if r.c is None else f"{r.c:.3f}", _("c from"): source[r.source],
                          _("predicted speedup ×"): "—" if r.speedup is None else f"{r.speedup:.2f}"}
                         for r, n in zip(rows, names)])


def show_speed(rows, cpu: str, k: int) -> None:
    """The drafters' tokens a round (measured here) and their speedups (predicted at this machine's prices)."""
    names = [row_name(r, _(DRAFTERS[r.drafter].label)) for r in rows]
    st.markdown(badges.here() + " " + _("tokens a round") + " · " + badges.predicted() + " " + _("speedups") + " "
                + _("(rounds alone: tokens a round ÷ a round's steps; the answer box's whole-run figures also count "
                    "the prompt's prefill, which pulls them toward 1)"))
    st.plotly_chart(speed_figure(rows, names, cpu, k), key="cv_speed_chart")
    st.dataframe(speed_table(rows, names), hide_index=True, placeholder="—", key="cv_speed_table")
