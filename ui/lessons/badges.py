"""Whose number is this? A small coloured badge beside a figure says it at a glance (issue 51):

    measured here          green    a run on this machine (kept in its result store)
    this machine's prices  violet   the profile measured at start (specdec/bench/machine.py)
    predicted here         grey     computed from those prices, not timed
    a machine like this    blue     shipped with the app from a CPU of this machine's model
    <this CPU's family>    grey     shipped from a CPU of this family whose model was not recorded
    <another CPU>          orange   shipped from another machine: for comparison only
    predicted there        grey     the calculator's figure for another machine, from its roofline
    published              grey     a paper's figure, on its hardware and models

A badge replaces the sentence a page used to repeat before every shipped figure ("Measured on
…, for comparison"); the details (date, cores, load) stay in the line or its help.
Badges are Streamlit Markdown (`:color-badge[text]`), so they go wherever Markdown does.
"""
from __future__ import annotations

import re

from specdec.models import kernels
from specdec.wording import _
from ui.lessons.bench_words import cpu_name, tidy


def _badge(color: str, text: str) -> str:
    """One badge; a square bracket in `text` would end the directive, so it becomes a round one. No
    icon: Streamlit draws a Material icon as its name in a symbol font, which screen readers and copied
    text gave as words ("check_circle icon measured here"); the colour and the words say it."""
    safe = text.replace("[", "(").replace("]", ")")
    return f":{color}-badge[{safe}]"


def here() -> str:
    return _badge("green", _("measured here"))


def profile() -> str:
    return _badge("violet", _("this machine's prices"))


def predicted() -> str:
    return _badge("gray", _("predicted here"))


def elsewhere() -> str:
    return _badge("gray", _("predicted for that machine"))


def published() -> str:
    return _badge("gray", _("published"))


def shipped(cpu: str | None, short: bool = False, date: str | None = None) -> str:
    """A shipped result's machine: blue on this machine's CPU model ("a machine like this one",
    not "here": it is another box of the same model, on `date` where given), orange elsewhere,
    named by its CPU (`short`: as recorded, without bench_words.cpu_name's note on a CPU recorded by
    its family only)."""
    here = kernels.cpu_model()                       # read at call time (tests stand in another CPU)
    if cpu and cpu == here:
        return _badge("blue", _("a machine like this one") + (f", {date}" if date else ""))
    if cpu and here.startswith(cpu + " "):         # this CPU's family, its model not recorded: perhaps this one
        return _badge("gray", tidy(cpu) if short else cpu_name(cpu))
    return _badge("orange", (tidy(cpu) if short else cpu_name(cpu)) if cpu else "?")


def of(cpu: str | None, date: str | None = None) -> str:
    """A measurement's badge: None for this machine's own run, else where it was shipped from (and
    when, where `date` is given)."""
    return here() if cpu is None else shipped(cpu, date=date)


def like_this_legend() -> str:
    """The blue badge as the legend shows it (no date)."""
    return _badge("blue", _("a machine like this one"))


def family_legend() -> str:
    """The grey badge as the legend shows it: a CPU recorded by its family only (its model unknown)."""
    return _badge("gray", _("this CPU's family"))


def another_legend() -> str:
    """The orange badge as the legend shows it (a CPU's name stands in each)."""
    return _badge("orange", _("another CPU"))


BADGE = re.compile(r":(\w+)-badge\[([^\]]*)\]")
COLOURED = {"green": "here", "violet": "profile", "blue": "like", "orange": "another"}


def kinds_in(text: str) -> set[str]:
    """The kinds of badge in `text` ("here", "profile", "predicted", "elsewhere", "published", "like",
    "family", "another"), read off their colour, and for grey ones their words (a grey badge with
    none of the fixed words names a CPU recorded by its family)."""
    grey = {_("predicted here"): "predicted", _("predicted for that machine"): "elsewhere", _("published"): "published"}
    return {COLOURED.get(colour) or grey.get(words, "family") for colour, words in BADGE.findall(text)}
