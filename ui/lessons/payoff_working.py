"""Does it pay here? The box's working, behind its one expander (review 21: one verdict line, the working in one
place): where the figure comes from, the ladder from a round's arithmetic to the verdict's figure, the k the prices
pick, and why other sections differ. The verdict line itself is ui/lessons/payoff_words.py's."""
from __future__ import annotations

import time

from specdec.bench.payoff import Payoff
from specdec.records.provenance import Clock
from specdec.wording import N_, _, times
from ui.lessons import badges, payoff_paid
from ui.lessons.bench_words import machine_short
from ui.lessons.payoff_words import SOURCES, likely, paid_round, round_parts, span


def when(m) -> str:
    """The headline's details (its ⓘ): the clock, when it was measured, and where earlier runs at
    these settings were filed here (each on its own prompts), how many and their range."""
    clock = _("Timed on the wall clock") if m.clock == Clock.WALL else _("Timed in CPU time (the machine was busy)")
    text = clock + ("" if m.at is None else ", " + _("at {time}").format(
        time=time.strftime("%H:%M", time.localtime(m.at)))) + ("" if m.load is None else ", " + _(
            "under load {load:.1f} per core (1: every core busy)").format(load=m.load)) + "."
    if len(m.all_here) < 2:
        return text
    return text + " " + _("The newest of {n} measurements here at these settings (each on its own prompts), "
                          "which ranged {lo:.2f}–{hi}.").format(
        n=len(m.all_here), lo=min(m.all_here), hi=times(max(m.all_here)))


def landing_line(p: Payoff) -> str:
    """How a prediction with a range was made, in one line: the profile's price, the factor where runs land
    against theirs, and whose runs those were ('' without a range)."""
    if p.likely is None:
        return ""
    return _("{raw} at this machine's prices {times} ({whose}).").format(raw=times(p.raw), times=_landing(p),
                                                                        whose=_band_words(p))


def _landing(p: Payoff) -> str:
    """'× 1.07: measured runs came out at this many times their prediction': the band's median the prediction
    is moved by."""
    mid, at_k = p.landing()
    said = _("× {mid:.2f}: measured runs at k = {k} came out at this many times their prediction") if at_k else _(
        "× {mid:.2f}: measured runs came out at this many times their prediction")
    return said.format(mid=mid, k=p.k)


def alpha_prompts(p: Payoff) -> str:
    """Which prompts the priced prediction's α̂ was measured on, in a few words (α̂ moves with the text:
    a learner compares it with the α̂ of other sections only on the same prompts)."""
    if p.tokens_on:
        return p.tokens_on
    if p.measured is not None:
        return _("as {section} measured it here").format(section=_(SOURCES.get(p.measured.source,
                                                                              p.measured.source)))
    return _("the newest measurement at these settings")


def detail(p: Payoff) -> str:
    """The why line's details (its ⓘ): steps a token, whose c and v, where the tokens came from, and
    which way and why the measurement lies off the prediction."""
    if p.round_steps is None or p.tokens is None:
        return (round_parts(p) + " " if p.round_steps is not None else "") + _(STEPS)
    per = p.round_steps / p.tokens
    plain = _("A step: the target's one-token pass here. At {per:.2f} steps a token, the rounds alone run slower "
              "than the target alone.") if per > 1 else _(
        "A step: the target's one-token pass here. At {per:.2f} steps a token, the rounds alone run faster than "
        "the target alone.")
    first = round_parts(p) + " " + plain.format(per=per)
    if paid_round(p) is not None:           # the why line gave the runs' own round: one round total in the box (review
        first = _("The prediction prices a round at this machine's profile, as every prediction here: c = {c:.3f} and "
                  "v({m}) = {v:.2f}. The round these runs paid is the why line's.").format(c=p.c, m=p.k + 1, v=p.v)
    parts = [first, ladder(p)]                      # 49: 2.64 steps a round in the why line, 2.73 in the working)
    parts += [x for x in (payoff_paid.paid(p), _tokens_from(p)) if x]
    if p.measured is not None and p.raw:
        gap = p.measured.speedup / p.raw - 1
        if payoff_paid.close(p):
            parts.append(_("Measured within two percent of the prediction at this machine's prices ({raw}).").format(
                raw=times(p.raw)))
        else:
            side = _("Measured {pct:.0%} above the prediction at this machine's prices ({raw})") if gap > 0 else _(
                "Measured {pct:.0%} below the prediction at this machine's prices ({raw})")
            parts.append(side.format(pct=abs(gap), raw=times(p.raw)) + (payoff_paid.spread(p) if p.over
                                                                     else _rest(p.raw, gap)))
    return "\n\n".join(parts)


def ladder(p: Payoff) -> str:
    """From the rounds' arithmetic to the figure in the verdict, one step a row (review 24: the working's
    range was a sentence of five numbers): the rounds alone, the whole run, then the measurement where there is
    one, else the prediction moved to where runs land against theirs; a Markdown table ('' without tokens a round
    or prices)."""
    if p.rounds_only is None:
        return ""
    rounds = _("Rounds alone: {tokens:.2f} tokens for {steps:.2f} steps").format(tokens=p.tokens, steps=p.round_steps) \
        if paid_round(p) is None else _("Rounds alone, at the profile's prices: {tokens:.2f} tokens a round").format(
            tokens=p.tokens)                         # the runs' own round total is the why line's, the only one
    rows = [(rounds, times(p.rounds_only))]
    if p.over:
        spec, base = p.over
        rows.append((_("+ reading the prompt ({pre:.2f} steps a token; the target alone {bpre:.2f}) and "
                       "bookkeeping ({per:.2f} steps a round; the target alone {bper:.2f}), as {whose}").format(
            pre=spec.prefill, bpre=base.prefill, per=spec.per_round, bper=base.per_round, whose=_whose_over(p)),
            times(p.raw)))
    if p.likely is not None and p.measured is None:          # beside a measurement, the measurement answers
        rows.append((_landing(p) + " (" + _band_words(p) + ")", f"**{times(p.predicted)}**{likely(p)}"))
    if p.measured is not None:
        m = p.measured
        rows.append((_("Measured") + " " + badges.of(m.cpu, m.date), f"**{times(m.speedup)}** ({span(m.low, m.high)})"))
    head = "| " + _("From the arithmetic to the figure") + " | " + _("speedup") + " |\n|---|---|\n"
    return head + "\n".join(f"| {step} | {figure} |" for step, figure in rows)


def _whose_over(p: Payoff) -> str:
    if p.measured is not None:
        return _("these runs paid")
    return _("{on} paid, in its runs' steps").format(on=p.over_on) if p.over_on else _(
        "earlier runs paid, in their steps")


def _band_words(p: Payoff) -> str:
    """Which measurements the band holds, in a few words: how many, from where, their measured ÷ predicted; where
    the prediction moves by this k's own median, that k's runs (review 43: "measured runs at k = 1 … the median of
    1 here and 8 …" where the run here was at k = 4)."""
    b = p.band
    if p.landing()[1]:
        n, shipped = b.count_at(p.k)
        return _("the median of {whose} at k = {k}; every k: {lo:.2f}–{hi:.2f}, a spread the range carries about "
                 "k = {k}'s median").format(whose=_whose(n, shipped), k=p.k, lo=b.low, hi=b.high)
    return _("the median of {whose}; {lo:.2f}–{hi:.2f}").format(whose=_whose(b.n, b.shipped), lo=b.low, hi=b.high)


def _whose(n: int, shipped: int) -> str:
    """'3 runs here', '8 runs on a machine like this one', '1 here and 8 on a machine like this one'."""
    if n == 1:
        return _("1 run on a machine like this one") if shipped else _("1 run here")
    return _("{n} runs here").format(n=n) if not shipped else _(
        "{n} runs on a machine like this one").format(n=n) if shipped == n else _(
        "{here} here and {shipped} on a machine like this one").format(here=n - shipped, shipped=shipped)


STEPS = N_("A round costs k·c + v(k + 1) steps. A step is the target's one-token pass on this machine; c: a draft "
           "step in steps; v(k + 1): the target's pass over the k drafts and one more token, in steps.")


def _tokens_from(p: Payoff) -> str:
    """Where the tokens a round came from: eq. (1) at α̂ for a priced prediction (its k was picked, not
    run), a measurement on another machine (acceptance travels), or nothing (measured here)."""
    if p.alpha is not None:
        if p.tokens_from == "here":
            whose = _("measured here") + ", " + p.tokens_on if p.tokens_on else alpha_prompts(p)
        else:
            whose = _("measured on {cpu}").format(cpu=machine_short(p.tokens_from)) + (
                ", " + p.tokens_on if p.tokens_on else "")
        return _("Tokens a round: 1 + α̂ + … + α̂^k at k = {k}, α̂ = {alpha:.2f} {whose}: computed, not a run's "
                 "count.").format(k=p.k, alpha=p.alpha, whose=whose)
    if p.tokens_from == "here":           # measured here: on other prompts only where it names them
        return _("Tokens a round: measured here, {on}.").format(on=p.tokens_on) if p.tokens_on else ""
    return (_("Tokens a round: measured on {cpu}, {on}; they travel, prices do not.") if p.tokens_on else _(
        "Tokens a round: measured on {cpu}; they travel, prices do not.")).format(
        cpu=machine_short(p.tokens_from), on=p.tokens_on)


def _rest(predicted: float, gap: float) -> str:
    """What the rounds leave out, by which way the measurement lies: reading the prompt (one pass, the
    same in both modes) pulls a ratio toward 1; a gap away from 1 is the rest of what a run pays."""
    if (predicted < 1) == (gap > 0):
        return _(": a run also reads its prompt, one pass that costs both modes the same, and that pulls a "
                 "ratio toward 1.")
    return _(": a run pays more than its rounds (the engine's bookkeeping), and timings move with the machine's "
             "load.")


def instead_detail(p: Payoff, seen: tuple[float, str | None, str] | None = None) -> str:
    """The instead line's details (its ⓘ): where the policy is set, the α̂ it drafted at (the reason
    the figure moves after a measurement), and where the figure at that k was measured."""
    if p.alpha is None:                      # priced at the tokens a round measured at the k it picks
        text = _("The sidebar's Draft-length policy → priced picks k round by round from this machine's c and v; "
                 "here it picks k = {k}. Predicted **{x}**{likely} with the tokens a round a constant k = {k} kept "
                 "({source}), at this machine's prices").format(k=p.k, x=times(p.predicted), likely=likely(p),
                                                                source=p.tokens_on)
        text += _(", counting the prefill the pair's typical run paid.") if p.tokens_on == _("the benchmark") else \
            _(": the figure section 2 and the pair card give that k.")
    else:
        text = _("The sidebar's Draft-length policy → priced picks k round by round from this machine's c and v; "
                 "here it picks k = {k}. Predicted **{x}**{likely} with α̂ = {alpha:.2f} ({source}: it moves when you "
                 "measure).").format(k=p.k, x=times(p.predicted), likely=likely(p), alpha=p.alpha,
                                     source=p.tokens_on or _("the newest measurement at these settings"))
    if seen is not None:                    # the measurement answers: how the prediction was moved is not needed
        return text + "\n\n" + _("Measured at k = {k} by {where}: {x}, {gap}.").format(
            k=p.k, where=seen[2], x=times(seen[0]), gap=_gap(seen[0], p.predicted))
    return text + ("\n\n" + landing_line(p) if p.likely else "")


def _gap(measured: float, predicted: float | None) -> str:
    """How a measurement lies against its prediction, in words (review 27: a 10% miss went unsaid)."""
    if not predicted:
        return _("not predicted")
    gap = measured / predicted - 1
    if abs(gap) < 0.02:
        return _("within two percent of the prediction")
    return (_("{pct:.0%} above the prediction") if gap > 0 else _("{pct:.0%} below the prediction")).format(
        pct=abs(gap))


def source(p: Payoff, cpu: str, offered: bool = True) -> str:
    """Which measurement the figure is and on which CPU, or how to make one (`offered`: the box has its
    own "Measure it here" button; Home races instead)."""
    m = p.measured
    if m is not None and m.cpu is not None:
        said = _("Measured on a machine like this one (the same CPU model, {cpu}) on {date} by the shipped k sweep on "
                 "{n} prompts, {r} repeats interleaved with the target alone.").format(
            cpu=cpu, date=m.date or "?", n=m.prompts, r=m.repeats or "?")
        return said + " " + (_("Not yet on this one: “Measure it here” below runs these settings here (about a "
                               "minute), and its figure replaces this one.") if offered else _(
            "Not yet on this one: When it is fast (section 2, the k sweep) measures these settings here, and its "
            "figure replaces this one."))
    if m is not None:
        text = _("Measured on this machine ({cpu}) by {section} on {n} prompts").format(
            cpu=cpu, section=_(SOURCES.get(m.source, m.source)), n=m.prompts) + (
            _(", {n} repeats interleaved with the target alone").format(n=m.repeats) if m.repeats else "")
        return text + _("; every page that asks shows this one figure.") + " " + when(m)
    if not offered:
        return _("Not measured yet on a prompt set: the race (the button above) times one prompt, on the wall "
                 "clock; When it is fast (section 2, the k sweep) and Drafters compared measure these settings on a "
                 "whole set, and the figure they file becomes this box's.")
    return _("Not measured yet: “Measure it here” below runs these settings (about a minute); When it is fast "
             "(section 2, the k sweep) and Drafters compared measure them too.")


# why the sections below may show other α̂, c and speedups than this box (shown through _()); whose figure it is
# (review 55: "on this machine" above a figure shipped from a machine like this one)
SCOPE = N_("Other sections measure other settings (their own k, T, prompts, or another machine), so their α̂, c "
           "and speedups differ. This box answers for these settings on this machine: with a run made here where "
           "there is one, else one shipped from a machine of this CPU model, else a prediction at this machine's "
           "prices.")


def working(p: Payoff, cpu: str, offered: bool = True, instead_p: Payoff | None = None,
            seen_instead: tuple | None = None) -> list[tuple[str, str]]:
    """The box's working, behind one expander (review 21: one verdict line, the working in one place):
    (heading, text) for the figure's source, the why's arithmetic, the k the prices pick, and why other
    sections differ."""
    parts = [(_("The figure"), source(p, cpu, offered)), (_("Why"), detail(p))]
    if instead_p is not None:
        parts.append((_("The k this machine's prices pick"), instead_detail(instead_p, seen_instead)))
    return parts + [(_("Other sections"), _(SCOPE))]
