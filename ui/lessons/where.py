"""Where speculation works: what the per-kind acceptance says, in sentences computed from the
measured points (specdec/bench/where.py runs and aggregates)."""
from __future__ import annotations

from dataclasses import replace

from specdec.bench import where
from specdec.wording import N_, _, times
from ui.lessons import badges
from ui.lessons.fast_repriced import priced_again


def kind_caption(points: list, named=lambda kind: kind) -> str:
    """What the per-kind acceptance shows, computed (one kind, a tie, or a spread), and what the
    leading and trailing kinds' prompts ask; `points`: where.KindPoint with the kinds as shown,
    `named`: a bundled kind's name as shown."""
    measured = [p for p in points if p.acceptance_rate is not None]
    if not measured:
        return _("Nothing was drafted in these runs.")
    if len(measured) == 1:
        p = measured[0]
        return _("Only one kind was run ({kind}): {rate:.0%} of its drafts survived. Select more "
                 "kinds to compare them.").format(kind=p.kind, rate=p.acceptance_rate)
    best = max(measured, key=lambda p: p.acceptance_rate)
    worst = min(measured, key=lambda p: p.acceptance_rate)
    if best.acceptance_rate - worst.acceptance_rate < 0.02:
        return _("All kinds accept about the same share of drafts here ({lo:.0%}–{hi:.0%}).").format(
            lo=worst.acceptance_rate, hi=best.acceptance_rate)
    said = _("The acceptance rate is highest on **{best}** text ({best_rate:.0%}) and lowest on **{worst}** "
             "({worst_rate:.0%}); the per-position curves show how fast a run of drafts breaks once "
             "it starts.").format(best=best.kind, best_rate=best.acceptance_rate, worst=worst.kind,
                                  worst_rate=worst.acceptance_rate)
    asks = {named(kind): why for kind, why in KIND_ASKS.items()}
    reasons = [_("**{kind}**: {why}").format(kind=p.kind, why=_(asks[p.kind])) for p in (best, worst) if p.kind in asks]
    return said + ("" if not reasons else " " + _("What those prompts ask: {reasons}.").format(
        reasons="; ".join(reasons)))


# what the bundled prompts of each kind ask of the answer (true of the prompts by construction): the
# likely reason a kind's drafts survive more or less often, said beside the kinds that lead and trail
KIND_ASKS = {
    "code": N_("a program, whose syntax and names repeat"),
    "edit": N_("a rewrite of code or text given in the prompt, so much of the answer repeats it"),
    "structured": N_("a fixed format (JSON keys, brackets) that leaves few choices"),
    "summarise": N_("a sentence made of the passage's own words, though which ones is a choice"),
    "passage-qa": N_("a fact quoted from the passage in the prompt"),
    "arithmetic": N_("a short answer in set phrasing, with numbers to work out"),
    "creative": N_("free writing, where many next words fit equally well"),
    "translation": N_("every word in another language, which a small draft knows less well than its target"),
    "prose": N_("free writing, where many next words fit equally well"),
    "identifiers": N_("rare names that the draft has to guess"),
    "repetitive": N_("text that repeats itself"),
}


def priced_caption(here: list, cpu: str) -> str:
    """A shipped set's kinds at this machine's prices (specdec/bench/repriced.each): the range over
    kinds here, the page's headline."""
    low, high = min(here, key=lambda r: r.speedup), max(here, key=lambda r: r.speedup)
    return badges.predicted() + " " + _(
        "{lead}: each kind's tokens a round at this machine's c = {c:.3f} and v(k + 1) = {v:.2f} (k = {k}) "
        "predict {low} on **{low_kind}** to {high} on **{high_kind}**.").format(
        lead=priced_again(here, cpu), c=low.c, v=low.v, k=low.drafts, low=times(low.speedup),
        low_kind=low.point.kind, high=times(high.speedup), high_kind=high.point.kind)


def measured_caption(points: list, cpu: str | None, named=lambda kind: kind) -> str:
    """The kinds' measured speedups, lowest and highest (`cpu`: a machine like this one's; None: here;
    `named`: a kind as the page names it)."""
    low, high = min(points, key=lambda p: p.speedup), max(points, key=lambda p: p.speedup)
    return badges.of(cpu) + " " + _("Measured by kind: {low} on **{low_kind}** to {high} on **{high_kind}**.").format(
        low=times(low.speedup), low_kind=named(low.kind), high=times(high.speedup), high_kind=named(high.kind))


LONGER = 1.05      # the target alone's prompt reading a token above the speculative runs' by this share


def ranking_note(points: list, named=lambda kind: kind) -> str | None:
    """Why the fastest kind is not the most accepted, where the runs say it: at T > 0 the two modes sample
    their own answers, and where the speculative ones ran longer, reading the prompt (the same pass in both
    modes) weighs less on each of their tokens (review 29: translation, accepted least, ran fastest)."""
    fastest = max(points, key=lambda p: p.speedup)
    most = max(points, key=lambda p: p.acceptance_rate or 0.0)
    spec, base = fastest.prefill_steps, fastest.base_prefill_steps
    if fastest.kind == most.kind or spec is None or base is None or base < LONGER * spec:
        return None
    lead = _("**{kind}** ran fastest ({x}), though its drafts were accepted {rate:.0%} of the time against {top:.0%} "
             "on **{top_kind}**").format(kind=named(fastest.kind), x=times(fastest.speedup),
                                        rate=fastest.acceptance_rate or 0.0, top=most.acceptance_rate,
                                        top_kind=named(most.kind))
    return lead + _(": at T > 0 each mode samples its own answer, and its speculative runs wrote longer ones, so "
                    "reading the prompt cost them {spec:.2f} steps a token against {base:.2f} for the target alone: "
                    "a difference in the text written, not in the drafting.").format(spec=spec, base=base)


def shipped_caption(points: list, shipped_cpu: str) -> str:
    """The shipped speedups' range, for comparison (what travels between machines: `TRAVELS`, its help)."""
    there = [p.speedup for p in points]
    return badges.shipped(shipped_cpu) + " " + _("measured there, for comparison: {low} to {high}.").format(
        low=times(min(there)), high=times(max(there)))


TRAVELS = N_("Acceptance and tokens a round travel between machines (they depend on the models and the text); the "
             "prices of a draft step and of a pass do not (they are the machine's).")


def group_rows(found) -> list:
    """where.groups' rows with each group named in the page's language ("tokens 1-16": its numbers kept)."""
    named = {"short prompt": _("short prompt"), "long prompt": _("long prompt")}

    def name(group: str) -> str:
        if group in named:
            return named[group]
        first, _sep, last = group.removeprefix("tokens ").partition("-")
        return (_("tokens {first}–{last}").format(first=first, last=last) if last else
                _("tokens {first} and on").format(first=first.rstrip("+")))
    return [replace(g, group=name(g.group)) for g in where.groups(found)]
