"""One answer to "which drafter is best here?" (issue 51; reviews 10–11 found three): the fastest
drafter on each prompt set that ranks drafters (When it is fast's draft sizes, Drafters compared),
measured here where it was, else the shipped tokens a round priced at this machine's prices. Both
pages say the same sentence: the sets differ in their text, so their winners may too, and the
sentence says so."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from specdec.wording import _, times
from ui.lessons import badges
from ui.lessons.bench_words import drafter_name
from ui.lessons.payoff_words import SMALL, answer_word

TIE = 0.03          # drafters within 3 % of a set's fastest share its lead: closer than repeats agree


@dataclass(frozen=True)
class Best:
    """The fastest drafter of one prompt set."""
    drafter: str          # its label as the set's records name it (a draft's name, "n-gram lookup", ...)
    speedup: float        # measured here, or predicted at this machine's prices
    measured: bool        # True: measured (here, or on a machine like this one: `cpu`); False: priced here
    section: str          # the page (section) whose set it is, in a few words ("When it is fast")
    prompts: str          # the set, in words ("8 code and structured chats × 48 tokens (When it is fast)")
    tied: tuple[str, ...] = ()   # the others within TIE of it, fastest first
    cpu: str | None = None       # the CPU model of a shipped measurement (None: here, or priced here)


class Instead(NamedTuple):
    """The box's other answer: the sidebar's draft at the k this machine's prices pick."""
    draft: str
    k: int
    speedup: float
    measured: bool               # measured (here, or on a machine like this one: `cpu`), else predicted
    cpu: str | None = None


def badge(instead: tuple) -> str:
    """An Instead's badge (a plain 4-tuple reads as one measured here or predicted)."""
    one = Instead(*instead)
    return badges.of(one.cpu) if one.measured else badges.predicted()


def best_of(ranked: list[tuple[str, float]], measured: bool, section: str, prompts: str,
            cpu: str | None = None) -> Best | None:
    """The fastest of (label, speedup) pairs, with those within TIE of it (`cpu`: a shipped measurement's CPU
    model); None for an empty set."""
    if not ranked:
        return None
    ordered = sorted(ranked, key=lambda r: -r[1])
    label, speedup = ordered[0]
    return Best(label, speedup, measured, section, prompts,
                tuple(n for n, x in ordered[1:] if x >= (1 - TIE) * speedup), cpu)


def _figure(b: Best) -> str:
    return "**{x}** {badge}".format(x=times(b.speedup), badge=badges.of(b.cpu) if b.measured else badges.predicted())


def _name(label: str) -> str:
    return drafter_name(label.split("/", 1)[-1])


def _leaders(b: Best) -> list[str]:
    return [_name(n) for n in (b.drafter, *b.tied)]


def _tops(bests: list[Best]) -> list[str]:
    """Each set's fastest drafter, once each, in the sets' order."""
    return list(dict.fromkeys(_name(b.drafter) for b in bests))


def _shared(bests: list[Best]) -> list[str]:
    """The drafters that lead every set (its fastest or within TIE of it), in the first set's order."""
    return [n for n in _leaders(bests[0]) if all(n in _leaders(b) for b in bests[1:])]


def sentence(bests: list[Best], k: int, temperature: float,
             instead: tuple[str, int, float, bool] | None = None, at_pick: list[Best] = ()) -> str | None:
    """'Best drafter here …', one figure per prompt set (None: no set ranked): one drafter where every
    set's fastest is the same, the drafters leading every set where their leads tie (TIE), else each
    set's own. `instead`: (the sidebar's draft, the k this machine's prices pick, its speedup, whether
    that was measured here, else predicted), the box's other answer: where nothing pays at k and it does,
    it leads the sentence (the one setting that pays), then who leads the sets that ranked drafters at that
    k (`at_pick`), and the sets' leaders at k follow."""
    if not bests:
        return None
    if all(b.speedup < 1 for b in bests) and instead is not None and instead[2] > 1:
        if at_pick:          # review 57: "the other drafters ran at k = 4 only" beside every drafter shipped at k = 1
            return _at_pick(at_pick[0], instead[1], k, Instead(*instead))
        said = _("{head}: **{name}** at k = {k1}, the k this machine's prices pick, measured **{x}** "
                 "{badge}{word}") if instead[3] else _(
            "{head}: **{name}** at k = {k1}, the k this machine's prices pick, predicted **{x}** {badge}{word}")
        head, word = _heading(instead, shipped=Instead(*instead).cpu is not None)
        said = said.format(head=head, word=word, name=_name(instead[0]), k1=instead[1], x=times(instead[2]),
                           badge=badge(instead))
        return said + "; " + _("the other drafters ran at k = {k} only.").format(k=k) + " " + _none_pays(
            bests, k, temperature)
    said = _("**Best drafter here** at k = {k}, T = {t:g}:").format(k=k, t=temperature) + " " + _leaders_at_k(bests)
    if all(b.speedup < 1 for b in bests):
        said += " " + _("None pays at k = {k} over a whole set.").format(k=k)
    return said


def _at_pick(best: Best, k1: int, k: int, instead: Instead | None = None) -> str:
    """Nothing pays at the sidebar's k and the drafters ran at the k the prices pick (`k1`): that set's leader
    there, its ties, and one clause for the sidebar's k (its leaders: the table's). Where this machine measured the
    sidebar's draft at that k since (`instead`, the figure the sidebar shows) and the set was shipped, this
    machine's figure leads and the set follows as the comparison of drafters (review 60: "nearest … 1.05×" read
    above "measured here since … 1.07×")."""
    mine = best.cpu is not None and instead is not None and instead.measured and instead.cpu is None \
        and instead.k == k1
    head, word = _heading((best.drafter, k1, best.speedup, best.measured), shipped=best.cpu is not None)
    field = _leader(best, "" if mine else word)
    if mine:
        head, word = _heading((instead.draft, k1, instead.speedup, True))
        said = _("{head} at k = {k1}, the k this machine's prices pick: **{name}**, **{x}** {badge} (the answer "
                 "box's prompts{word}). Every drafter at k = {k1}, on another set: {field}").format(
            head=head, k1=k1, name=_name(instead.draft), x=times(instead.speedup), badge=badges.here(),
            word="; " + word.strip()[1:-1] if word else "", field=field)
    else:
        said = _("{head} at k = {k1}, the k this machine's prices pick: {field}").format(head=head, k1=k1,
                                                                                       field=field)
    return said + _policies(best) + ". " + _("Below, at the sidebar's k = {k}, none pays over a whole set.").format(k=k)


def _leader(best: Best, word: str) -> str:
    """A set's leader with its figure, its set (and the box's `word` on it) and its ties."""
    where = best.section + ("; " + word.strip()[1:-1] if word else "")          # the box's word, beside its set
    said = _("**{name}**, {figure} ({where})").format(name=_name(best.drafter), figure=_figure(best), where=where)
    if best.tied:
        said += _("; within {tie:.0%} of it: {names}").format(tie=TIE, names=_(" and ").join(
            f"**{_name(n)}**" for n in best.tied))
    return said


def _policies(best: Best) -> str:
    """Where a named drafter is a draft under a draft-length policy ('draft · confidence'), what that is, once."""
    if not any(" · " in n for n in (best.drafter, *best.tied)):
        return ""
    return " " + _("(“· confidence”, “· heuristic”: the draft with a policy that picks each round's k)")


def _heading(instead: tuple[str, int, float, bool], shipped: bool = False) -> tuple[str, str]:
    """The box's word on that one figure decides the heading: a gain it calls one 'What pays here', a gain it does
    not call one yet (one run under 10 %) 'Nearest to paying here' with that word (review 51: one measured 1.06×
    read "What pays here" on Drafters compared, "no k pays clearly" on When it is fast, "Not clear yet" aside);
    a `shipped` figure's heading does not say here (its badge says whose: review 59)."""
    word = answer_word(instead[2], instead[2], instead[2], predicted=not instead[3])
    if word in (_("Yes"), _("A little, under {pct:.0%}").format(pct=SMALL)):
        return (_("**What pays**") if shipped else _("**What pays here**")), ""
    head = _("**Nearest to paying**") if shipped else _("**Nearest to paying here**")
    return head, " (" + word[:1].lower() + word[1:] + ")"


def _none_pays(bests: list[Best], k: int, temperature: float) -> str:
    """Nothing pays at the sidebar's k: who leads anyway, said as what it is (review 43: "in the lead: suffix match
    and draft · confidence", the drafters leading both sets, beside one set's table that ranked another third)."""
    # each set's own leader with its set and figure (review 46: "suffix match and draft · confidence" read as one
    # drafter); no badges there: the sentence's lead has its own
    if len(bests) > 1 and not _shared(bests):
        lead = _("each set's fastest — {each}").format(each="; ".join(
            f"{b.section}: {_name(b.drafter)} {times(b.speedup)}" for b in bests))
    else:
        lead = (_("in the lead: {names}") if len(bests) == 1 else _("in the lead on both prompt sets: {names}")).format(
            names=_(" and ").join(f"**{n}**" for n in _shared(bests) or _tops(bests)))
    return _("At the sidebar's k = {k}, T = {t:g}, none pays over a whole set ({lead}).").format(
        k=k, t=temperature, lead=lead)


def _leaders_at_k(bests: list[Best]) -> str:
    """Who leads the prompt sets at the sidebar's k: one drafter, tied leaders, or each set's own."""
    tops, shared = {_name(b.drafter) for b in bests}, _shared(bests)
    if len(bests) == 1:
        b = bests[0]
        said = _("**{name}**, {figure} ({section}).").format(name=_name(b.drafter), figure=_figure(b),
                                                              section=b.section)
        if b.tied:                        # review 39: a "best" 1.02× beside 1.01×, 1.00× and 0.99× is no winner
            said += " " + _("Within {tie:.0%} of it, closer than repeats agree: {names}; a tie.").format(
                tie=TIE, names=_(" and ").join(f"**{_name(n)}**" for n in b.tied))
        return said
    if len(tops) == 1:
        return _("**{name}** on both prompt sets: {each}.").format(name=_name(bests[0].drafter),
                                                                  each=_each(bests, False))
    if shared:
        return _("{names} tie for the lead on both prompt sets (within {tie:.0%}); each set's fastest — "
                 "{each}.").format(names=_(" and ").join(f"**{n}**" for n in shared), tie=TIE,
                                   each=_each(bests, True))
    return _("it depends on the text; each set's fastest — {each}.").format(each=_each(bests, True))


def _each(bests: list[Best], named: bool) -> str:
    """Each set's fastest figure and its section (`named`: with the drafter's name)."""
    if named:
        return "; ".join(_("{section}: {name} {figure}").format(name=_name(b.drafter), figure=_figure(b),
                                                                 section=b.section) for b in bests)
    return "; ".join(_("{figure} ({section})").format(figure=_figure(b), section=b.section) for b in bests)


def help_text(bests: list[Best]) -> str:
    """The sentence's ⓘ: each set's prompts, what each figure is, and why the sets may disagree."""
    sets = " ".join(_("{section}: {prompts}.").format(section=b.section, prompts=b.prompts) for b in bests)
    return sets + " " + _(
        "Each set ranks the drafters it ran on its own prompts; text moves acceptance, so the sets may name "
        "different winners (drafters within {tie:.0%} of the fastest share the lead). A figure measured here is "
        "those runs' own speedup; a predicted one prices the shipped runs' tokens a round at this machine's c and "
        "v(k + 1). The draft-length policies and early exit are ranked only where measured here (this machine has "
        "no price for them).").format(tie=TIE)
