"""Drafters compared: the store key of each measured point (specdec/bench/compared.py measures),
and where n-gram lookup did best."""
from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Callable

from specdec import defaults
from specdec.bench.compared import ALL, Variant
from specdec.bench.repriced import overheads
from specdec.bench.sweeps import NGRAM
from specdec.prompts import Prompt
from specdec.settings import Settings
from specdec.trace.theory import run_speedup
from specdec.wording import _, times
from ui.lessons import badges, store
from ui.lessons.bench_words import drafter_name
from ui.lessons.fast_repriced import TRAVEL, item, priced_again

# "Every drafter's numbers": what fits a 1400 px window inside its expander (a run measured here
# adds its clock, wall-clock speedup and repeats: the captions say them and the CSV keeps them)
ALL_COLUMNS = ("drafter", "acceptance_rate", "mean_acceptance_length", "c", "speedup", "speedup_min", "speedup_max")


def result_key(target: str, drafts: list[str], settings: Settings, prompts: list[Prompt], chat: bool,
               ran: store.Ran = store.DEFAULT_RAN) -> dict:
    """The key of a comparison's result (kept here or shipped) at `settings` (its length and seed
    set) on `prompts`: the page's and the best-drafter answer's (ui/best_drafter_view.py)."""
    return store.measurement("drafters", (target, None), settings, [p.prompt for p in prompts], chat, ran,
                             drafts=drafts, repeats=defaults.REPEATS)


def figure_key(target: str, settings: Settings, all_variants: list[Variant], prompts: list[Prompt], chat: bool,
               ran: store.Ran = store.DEFAULT_RAN):
    """The store key (ui/lessons/store.py) of a point: its variant's draft, drafter and policy, on
    the prompts of the point's kind (ALL: every prompt)."""
    by_label = {v.label: v for v in all_variants}

    def key_of(point):
        v = by_label.get(point.drafter)
        if v is None:
            return None
        texts = [p.prompt for p in prompts if point.kind in (ALL, p.kind)]
        s = replace(settings, drafter=v.drafter, policy=v.policy)
        return store.key(target, v.draft, s, s.k, store.PromptSet.of(texts, chat, settings.max_new_tokens,
                                                                  f"drafters/{point.kind}"), point.clock, ran)
    return key_of


def ngram_caption(points, kind_name, priced_of: Callable[[list], list] | None = None,
                  draft: str | None = None) -> str | None:
    """Where n-gram lookup did best, and which drafter won that kind where another did
    (`kind_name`: a kind of text as the page names it); at this machine's prices where `priced_of`
    (points -> specdec.bench.repriced.Repriced) prices them, as the winners' table does; where that kind
    is the one the draft model (`draft`, its label) was accepted least on, it says so (review 16: Where
    it works calls it the worst kind)."""
    odd, text = beyond_tokens(points), text_kinds(points)
    here = {(r.point.kind, r.point.drafter): priced_speed(r, odd, text) for r in priced_of(points)} if priced_of \
        else {}
    if here:
        points, speed = [p for p in points if (p.kind, p.drafter) in here], lambda p: here[(p.kind, p.drafter)]
    else:             # no run is that fast; a kind of far shorter target-alone text is the text (review 33)
        points, speed = [p for p in points if p not in odd and p.kind not in text], lambda p: p.speedup
    ngram = {p.kind: speed(p) for p in points if p.drafter == NGRAM and p.kind != ALL}
    if not ngram:
        return None
    best_kind = max(ngram, key=ngram.get)
    won = max((p for p in points if p.kind == best_kind), key=speed)
    text = (_("The n-gram drafter costs nothing; at this machine's prices it does best on **{kind}** text "
              "({speedup:.2f}×") if here else
            _("The n-gram drafter costs nothing; it did best on **{kind}** text ({speedup:.2f}×")).format(
        kind=kind_name(best_kind), speedup=ngram[best_kind])
    text += ")." if won.drafter == NGRAM else _("; the winner there: {drafter} at {speedup:.2f}×).").format(
        drafter=drafter_name(won.drafter), speedup=speed(won))
    text += " " + _("It can only propose text that appears earlier in the sequence (the prompt or the answer so "
                    "far), so it pays where the answer repeats it.")
    rates = {p.kind: p.acceptance_rate for p in points if p.drafter == draft and p.kind != ALL
             and p.acceptance_rate is not None}
    if rates and min(rates, key=rates.get) == best_kind:
        text += " " + _("The draft model is accepted least there ({rate:.0%}): it predicts the answer, while a "
                        "lookup copies it.").format(rate=rates[best_kind])
    return text


def own_row(overall, draft: str | None, k: int, prompts: str, here: list | None = None) -> str:
    """The comparison's row of the sidebar's draft at a constant k, in words, for the box's line beside it
    ('' where it ran none): at this machine's prices where the page prices the comparison again (`here`,
    repriced.compared's rows: the figure its table shows; review 48 read the other machine's 1.02× beside
    the table's 1.07×)."""
    short = (draft or "").split("/", 1)[-1]
    row = next((p for p in overall if p.drafter == short), None)
    if row is None:
        return ""
    priced = next((r for r in here or () if r.point.drafter == short), None)
    if priced is not None:
        return _("In this table, {drafter} at k = {k}: **{x}** {badge} at this machine's prices on {prompts}").format(
            drafter=drafter_name(short), k=k, x=times(priced.speedup), badge=badges.predicted(), prompts=prompts)
    return _("In this table, {drafter} at k = {k}: **{x}** on {prompts}").format(
        drafter=drafter_name(short), k=k, x=times(row.speedup), prompts=prompts)


def priced_here(here: list, cpu: str, k: int) -> str:
    """A shipped comparison's drafters at this machine's prices (specdec/bench/repriced.compared),
    the fastest first: the page's headline."""
    ranked = sorted(here, key=lambda r: -r.speedup)
    return badges.predicted() + " " + _("{lead} at k = {k} with each drafter's c on this machine: {each}.").format(
        lead=priced_again(here, cpu), k=k, each=", ".join(item(r.point.drafter, r) for r in ranked))


def priced_left_out(left_out: list[str]) -> str:
    """The drafters a shipped comparison could not price here (`left_out`: labels), and what travels."""
    text = _(TRAVEL)
    if left_out:
        text = _("Not priced again: {names} (a draft-length policy runs draft steps it does not keep, and a "
                 "drafter without a c in this machine's profile has no price here).").format(
            names=", ".join(drafter_name(n) for n in left_out)) + " " + text
    return text


def priced_speed(r, odd, shorter) -> float:
    """A drafter's speed at this machine's prices (`r`: repriced.Repriced) as the winners' table ranks it: the whole
    run, but where the measured runs' text, not their drafting, made them fast (a point in `odd`, beyond_tokens: ⚠;
    a kind in `shorter`, text_kinds: †) the rounds alone (review 55: suffix match priced 1.40× with 1.10 tokens a
    round, its runs' prompt reading carried over)."""
    return r.rounds_speedup if r.point.kind in shorter or r.point in odd else r.speedup


def winners(points, kinds: list[str], priced_of: Callable[[list], list], skip=()) -> list[dict]:
    """The winner of each kind of text, one row each: at this machine's prices where `priced_of`
    (a kind's points -> specdec.bench.repriced.Repriced) prices any drafter of that kind, the
    measured speedup beside it; else the fastest as measured, of the points not in `skip` (those
    whose speedup their rounds cannot give: `beyond_tokens`) where any is left."""
    rows, shorter = [], text_kinds(points)
    for kind in kinds:
        mine = [p for p in points if p.kind == kind]
        here = priced_of(mine)
        if here:
            best = max(here, key=lambda r: priced_speed(r, skip, shorter))
            point, speedup_here = best.point, priced_speed(best, skip, shorter)
        else:             # a speedup its rounds cannot give wins nothing (review 31: lookup "1.35×" on translation)
            plain = [p for p in mine if p not in skip] or mine
            point, speedup_here = max(plain, key=lambda p: p.speedup), None
        rows.append({"kind": kind, "drafter": point.drafter, "speedup_here": speedup_here,
                     "speedup": point.speedup, "acceptance_rate": point.acceptance_rate,
                     "mean_acceptance_length": point.mean_acceptance_length})
    return rows


def one_pass(point) -> float:
    """The least a round of `point`'s drafter pays, in target steps, where nothing more is known:
    one target pass."""
    return 1.0


def most(point, pass_of: Callable = one_pass) -> float:
    """The most `point`'s rounds allow: its tokens a round over the least a round pays
    (`pass_of(point)`: v(k + 1) on the measuring machine for a drafter that drafts k every round,
    else one pass) with free drafts; for the whole run where its runs recorded what they paid
    besides their rounds (a run that sampled a longer text shares its prompt's prefill among more
    tokens: repriced.overheads)."""
    return run_speedup(point.mean_acceptance_length, 0, 0.0, pass_of(point), *(overheads(point) or ()))


def rounds_most(point, pass_of: Callable = one_pass) -> float:
    """The most `point`'s rounds alone allow: its tokens a round over the least a round pays, with
    free drafts and nothing paid besides (`most` adds what its runs paid besides their rounds)."""
    return point.mean_acceptance_length / pass_of(point)


def beyond_tokens(points, slack: float = 1.05, pass_of: Callable = one_pass) -> list:
    """Measured per-kind speedups above what their rounds alone allow (`rounds_most`, by more than
    `slack`): the drafting cannot have bought them (a run that wrote a longer text than the target
    alone's reads its prompt fewer times a token: `most`, and `text_written` says which)."""
    return [p for p in points if p.kind != ALL and p.mean_acceptance_length
            and p.speedup > slack * rounds_most(p, pass_of)]


def text_written(point, slack: float = 1.05, pass_of: Callable = one_pass) -> bool:
    """Whether what its runs paid besides their rounds explains a speedup beyond its rounds: the
    speculative runs read the prompt fewer steps a token (they wrote longer answers) and the whole
    run allows the figure."""
    over = overheads(point)
    return over is not None and over[0].prefill < over[1].prefill and point.speedup <= slack * most(point, pass_of)


SHORTER = 1.5      # the target alone read its prompt 1.5× the steps a token of the speculative runs: far shorter text


def text_kinds(points) -> dict[str, tuple[float, float]]:
    """The kinds whose target-alone runs wrote far shorter answers than the speculative runs (at T > 0 each
    samples its own): kind -> (the speculative runs' median prompt reading a token, the target alone's), in
    steps. Every speedup of such a kind is mostly the text written (review 31: translation, 1.26 against 0.63)."""
    found = {}
    for kind in sorted({p.kind for p in points} - {ALL}):
        over = [o for p in points if p.kind == kind and (o := overheads(p)) is not None]
        if not over:
            continue
        spec, base = statistics.median(o[0].prefill for o in over), statistics.median(o[1].prefill for o in over)
        if spec > 0 and base >= SHORTER * spec:
            found[kind] = (spec, base)
    return found


def text_kinds_caption(points, kind_name, priced: bool = False) -> str | None:
    """† beside a kind whose target-alone runs wrote far shorter answers (None: no kind did); `priced`: the table
    prices that kind's rounds alone here."""
    found = text_kinds(points)
    if not found:
        return None
    named = "; ".join(_("{kind}: {base:.2f} against {spec:.2f}").format(kind=kind_name(k), base=b, spec=sp)
                      for k, (sp, b) in found.items())
    return _("† On these kinds the target alone's answers were far shorter than the speculative runs' (reading the "
             "prompt, steps a token, target alone against speculative: {named}): a shorter answer reads its prompt "
             "more times a token, so every measured speedup there is mostly the text written, not the drafting: "
             "{end}").format(named=named, end=_("the table leaves it out and prices that kind's rounds alone.")
                             if priced else _("the table leaves it out."))


def beyond_caption(points, kind_name, temperature: float, pass_of: Callable = one_pass,
                   priced: bool = False) -> str | None:
    """Why a measured speedup above what its rounds allow is not the drafter's speed (None: none is);
    `priced`: the table has speedups priced here to read instead."""
    odd = beyond_tokens(points, pass_of=pass_of)
    if not odd:
        return None
    worst = max(odd, key=lambda p: p.speedup)
    shown = _("{drafter} on {kind}: {speedup:.2f}× with {tokens:.2f} tokens a round").format(
        drafter=drafter_name(worst.drafter), kind=kind_name(worst.kind), speedup=worst.speedup,
        tokens=worst.mean_acceptance_length)
    if (v := pass_of(worst)) > 1:
        shown += _(", where a pass of v(k + 1) = {v:.2f} steps a round allows at most {most:.2f}×").format(
            v=v, most=rounds_most(worst, pass_of))
    else:
        shown += _(", where its rounds alone allow at most {most:.2f}×").format(most=rounds_most(worst, pass_of))
    others = len(odd) - 1                      # the table marks each ⚠
    shown += (_("; and {n} more row") if others == 1 else _("; and {n} more rows")).format(n=others) if others else ""
    end = _("The table prices such a row's rounds alone.") if priced else _(
        "No such row wins a kind in the table (⚠ and no speedup where every drafter of a kind is one).")
    return _("Faster than its tokens a round allow ({shown}). {why} {end}").format(
        shown=shown, why=_beyond_why(worst, temperature, pass_of), end=end)


def _beyond_why(point, temperature: float, pass_of: Callable) -> str:
    """Why `point` ran faster than its rounds: the text its runs wrote, where they recorded it, else the
    few prompts of a kind."""
    if temperature > 0 and text_written(point, pass_of=pass_of):
        spec, base = (o.prefill for o in overheads(point))
        return _("At T = {t:g} each mode samples its own answer and these speculative runs wrote longer ones "
                 "(reading the prompt: {spec:.2f} steps a token against {base:.2f} for the target alone): the text "
                 "written, not the drafting.").format(t=temperature, spec=spec, base=base)
    if temperature > 0:
        return _("A round pays at least one target pass, so no run can be: at T = {t:g} the two runs sampled texts "
                 "of different lengths, and a kind has a prompt or two.").format(t=temperature)
    return _("A round pays at least one target pass, so no run can be: a kind has a prompt or two, and the "
             "machine's speed varies.")
