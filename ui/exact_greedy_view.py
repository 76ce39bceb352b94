"""Why it is exact, at T = 0: speculative decoding writes the target's own greedy text, token for token. Both
ways run on Step through's prompt and are compared here (review 42: only Home's race and the tour said so)."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

import specdec
from specdec.chat import user_turn
from specdec.settings import LENGTHS
from ui import session, state
from ui.i18n import _
from ui.lessons import store
from ui.measured import measured
from ui.safe import md


def both_ways(pair, prompt, greedy, progress) -> dict:
    """The target alone and speculative decoding with `greedy` (T = 0) on one prompt: their ids and target passes."""
    progress(0, 2, _("the target alone"))
    alone = specdec.generate(pair, prompt, replace(greedy, mode="autoregressive"))
    progress(1, 2, _("speculative decoding"))
    spec = specdec.generate(pair, prompt, greedy)
    return {"alone": list(alone.token_ids), "spec": list(spec.token_ids), "text": spec.text,
            "passes": [alone.metrics.target_forwards, spec.metrics.target_forwards]}


def first_difference(a: list, b: list) -> int | None:
    """The first position where two token lists differ (a length counts), None where they are equal."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None if len(a) == len(b) else min(len(a), len(b)))


def greedy_check(pair, settings) -> None:
    st.header(_("Greedy (T = 0): the same text, token for token"))
    text = st.session_state.prompt
    prompt = user_turn(text) if session.uses_chat(pair) else text
    greedy = replace(settings, temperature=0.0, max_new_tokens=LENGTHS.tour_race, seed=0)
    key = store.measurement("greedy_same", (pair.target_name, pair.draft_name), greedy, [text],
                            session.uses_chat(pair), state.ran())
    found = measured("greedy_same", key, lambda pr: both_ways(pair, prompt, greedy, pr),
                     button=_("Write it both ways"), on_disk=False,
                     intro=_("At T = 0 both the target alone and the rounds take the target's argmax at every "
                             "position, so the texts must match. Writes {n} tokens both ways for Step through's "
                             "prompt (“{prompt}”) with the sidebar's pair ({target} ← {draft}, k = {k}) and compares "
                             "them.").format(n=LENGTHS.tour_race, k=settings.k, target=pair.target_name,
                                             prompt=md(text if len(text) <= 60 else text[:57] + "…"),
                                             draft=pair.draft_name or _("no draft model")))
    if found:
        st.write(verdict(found, settings.k))
        if found.get("text"):
            st.code(found["text"], language=None, wrap_lines=True)


def verdict(found: dict, k: int) -> str:
    """The comparison in one sentence, from the two runs."""
    alone, spec = found["alone"], found["spec"]
    at = first_difference(alone, spec)
    if at is None:
        return _("Identical: the same {n} tokens both ways. The target alone needed {a} passes, speculative "
                 "decoding at k = {k} needed {s}.").format(n=len(alone), a=found["passes"][0], k=k,
                                                           s=found["passes"][1])
    return _("Different from token {i} on ({n} and {m} tokens): greedy decoding should never differ; this is "
             "a fault of the engine, not of the method.").format(i=at + 1, n=len(alone), m=len(spec))
