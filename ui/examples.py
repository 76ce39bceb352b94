"""The bundled example prompts as a learner sees them: kinds and labels in the page's language.

The prompts themselves stay English: SmolLM2 was trained mostly on English text, so it
answers in English; a Korean page says so next to every example list (issue 28).
"""
from __future__ import annotations

from typing import Callable

import streamlit as st

from specdec.prompts import Prompt
from ui.i18n import N_, _, current

KINDS = {   # the kinds of both bundled sets (specdec/prompts.py); a user's own kind shows as typed
    "code": N_("code"), "structured": N_("structured"), "prose": N_("prose"),
    "identifiers": N_("identifiers"), "repetitive": N_("repetitive"), "edit": N_("edit"),
    "summarise": N_("summarise"), "passage-qa": N_("passage-qa"), "arithmetic": N_("arithmetic"),
    "creative": N_("creative"), "translation": N_("translation"),
}


def kind_name(kind: str) -> str:
    return _(KINDS[kind]) if kind in KINDS else kind


def namer(kinds) -> Callable[[str], str]:
    """A format_func for a menu of kinds, with the names fixed now (in this run's language)."""
    names = {kind: kind_name(kind) for kind in kinds}
    return lambda kind: names.get(kind, kind)


def label(prompt: Prompt) -> str:
    return prompt.label_ko if current() == "ko" and prompt.label_ko else prompt.label


def title(prompt: Prompt) -> str:
    """"kind · label", as menus list an example."""
    return f"{kind_name(prompt.kind)} · {label(prompt)}"


# the prompt set's table in an expander at 1400 px: 880 of its 894 px, the prompt column 600 px,
# about 84 characters at 14 px (a longer prompt is shown on one line, ending in "…")
WIDTHS = {"kind": 110, "label": 170, "prompt": 600}
PROMPT_CHARS = 84


def rows(prompts: list[Prompt]) -> list[dict]:
    """A table of the set, headed in the page's language."""
    return [{_("kind"): kind_name(p.kind), _("label"): label(p), _("prompt"): shortened(p.prompt)}
            for p in prompts]


def shortened(text: str, limit: int = PROMPT_CHARS) -> str:
    """One line, cut to `limit` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def english_note() -> None:
    """On a Korean page: why the examples are English."""
    if current() == "ko":
        st.caption(_("The example prompts are in English: SmolLM2 was trained mostly on English text "
                     "and answers in English, even when asked in another language."))


# A guess the target is likely to keep (You are the drafter, the tour): code for a base model, a
# plain answer for a chat model (SmolLM2 writes it greedily; at T = 0.7 it kept all 15 tokens
# for 5 of seeds 0-5, where "The capital of France is Paris." began with p = 0.24 and failed).
GUESSES = {False: ("def add(a, b):", "\n    return a + b"),
           # a bundled chat whose opening SmolLM2 writes predictably: its own greedy first 16 tokens
           # kept 9, 5 and 14 of 16 at T = 0.7, seeds 0-2 (the planets question kept 1 of 15)
           True: ("A cyclist rides 45 km in 3 hours. What is her average speed?",
                  "To find the average speed, we need to calculate the total distance traveled and divide")}


def guess_example(chat: bool) -> tuple[str, str]:
    """(prompt, guess) to start with, for a chat model or a base model."""
    return GUESSES[chat]
