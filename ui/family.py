"""Which embedded family the comparison pages measure, and how they send it prompts.

"Too weak vs too big" and "Drafters compared" run every draft made for one target: the
active pair's target when it is an embedded target with drafts of its own (SmolLM2), else
the fast stdlib family. An instruct target gets the chat prompt set, sent as chats. The
exactness checks that repeat a round thousands of times need a plain draft model: `lab_pair`.
"""
from __future__ import annotations

import streamlit as st

from specdec.errors import LoadError
from specdec.models.names import FAST_DRAFT, FAST_TARGET, family_drafts, sized_drafts
from specdec.prompts import Prompt, load_prompts
from ui import loaders, session
from ui.i18n import _
from ui.lessons.speed_prompts import speed_prompts, speed_set  # noqa: F401  (the pages read them here)


def of(pair) -> tuple[str, list[str], str]:
    """(target, its drafts, the draft the policy rows use)."""
    target = pair.target_name if pair is not None else FAST_TARGET
    drafts = family_drafts(target)
    if not drafts:
        return FAST_TARGET, family_drafts(FAST_TARGET), FAST_DRAFT
    return target, drafts, FAST_DRAFT if target == FAST_TARGET else drafts[0]


def sizes(pair) -> tuple[str, list[str]]:
    """(target, the drafts of the draft-size lesson): the active pair's target when it has drafts
    to size (its own, or another family's across vocabularies), else the fast family's."""
    target = pair.target_name if pair is not None else FAST_TARGET
    drafts = sized_drafts(target)
    return (target, drafts) if drafts else (FAST_TARGET, sized_drafts(FAST_TARGET))


def chats(target: str) -> bool:
    """Does this target take the prompts as chats (the session's Chat / Raw text choice)?"""
    return session.uses_chat(loaders.load(target, None))


def prompt_set(chat: bool) -> list[Prompt]:
    return load_prompts("chat" if chat else "text")


def plain(pair) -> bool:
    return pair is not None and pair.draft is not None and not pair.reads_features


def lab_pair(pair, say: bool = True):
    """The active pair when it has a plain draft model; otherwise the fast pair, said so (`say`:
    one visible line; the caller says it with `lab_note` where it prefers)."""
    if plain(pair):
        return pair
    try:
        fast = loaders.load(FAST_TARGET, FAST_DRAFT)
    except LoadError as err:
        st.info(_("Load a model pair with a draft model in the sidebar for these checks ({why}).")
                .format(why=loaders.describe(err)))
        return None
    if say:
        lab_note(pair)
    return fast


def lab_note(active) -> None:
    """One visible line: these checks run on the fast pair instead of `active` (the sidebar's), and why."""
    why = (_("its draft reads the target's features, and these checks need q from the draft alone")
           if active is not None and active.draft is not None else _("it has no draft model of its own"))
    st.info(_("These checks run on the fast pair ({target} ← {draft}), not the sidebar's pair: {why}. Each "
              "repeats a round thousands of times, which takes seconds on the fast pair.").format(
        target=FAST_TARGET, draft=FAST_DRAFT, why=why), icon=":material/swap_horiz:")


# Early-exit drafts measured beside a family's own drafts where the family ships no draft that is
# too big: SmolLM2's first 24, 27 and 29 of its 30 layers with its own norm and head, a ladder of
# sizes above its two trained drafts (issue 40, 51; on the Intel Xeon, 3 chats, T 0.7, k 4:
# acceptance 0.12, 0.19, 0.26 against the draft's 0.23, at a step cost near a whole target step;
# 20 layers or fewer are accepted under 3 % of the time).
TOO_BIG_EXITS = {"smollm2/target": (24, 27, 29)}


def too_big_exits(target: str) -> tuple[int, ...]:
    return TOO_BIG_EXITS.get(target, ())


def profile_drafts(pair) -> dict:
    """name -> draft model of every draft made for the pair's target (the pair's own among them): what
    this machine's profile prices (specdec/bench/machine.py), so measuring again keeps every draft's c."""
    out = {pair.draft_name: pair.draft} if pair.draft is not None and pair.draft_name else {}
    for name in family_drafts(pair.target_name):
        if name not in out:
            found = loaders.load(pair.target_name, name)
            if found is not None and found.draft is not None:
                out[name] = found.draft
    return out
