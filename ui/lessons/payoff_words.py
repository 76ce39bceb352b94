"""Does it pay here? The words of the one answer (specdec/bench/payoff.py): the verdict line (this machine's
figure, measured or predicted, and the k its prices pick), the figures measured elsewhere under it, and one
short line of why from this machine's prices; the working behind the expander is payoff_working.py's.
ui/payoff_view.py shows them on Home, Step through, When it is fast and Drafters compared."""
from __future__ import annotations

import statistics

from specdec.bench.payoff import Payoff
from specdec.drafters.policies import PRICED
from specdec.drafters.registry import DRAFTERS
from specdec.records.provenance import Clock
from specdec.wording import N_, _, times
from ui.lessons import badges, payoff_paid, shipped

SOURCES = {"ksweep": N_("When it is fast (its k sweep)"), "tradeoff": N_("When it is fast (every draft)"),
           "drafters": N_("Drafters compared"), "box": N_("the “Does it pay here?” box")}


def _x(value: float | None) -> str:
    return times(value)


def settings_line(settings, draft: str | None = None, features: bool = False) -> str:
    """Which settings the box answers for (Home's race has its own: greedy, k by prices), with the
    draft model's name where the drafter runs one (`features`: a feature draft, named so: review 32), after the
    sidebar's name for the drafter."""
    k = (_("k by this machine's prices, up to {k}") if settings.policy == PRICED else _("k = {k}")).format(
        k=settings.k)
    kind = DRAFTERS[settings.drafter]                 # the sidebar's name for it, then the pair's (review 54: the
    named = draft if draft and kind.needs_draft_model else None    # sidebar's "draft model" beside "feature draft")
    if named and features:
        named = _("{draft}, a feature draft").format(draft=draft)
    drafter = _(kind.label) + (f" ({named})" if named else "")
    nucleus = "" if settings.top_p == 1.0 else ", " + _("top-p {p:g}").format(p=settings.top_p)   # review 54
    return _("For T = {t:g}, {k}, drafter: {drafter}").format(t=settings.temperature, k=k + nucleus, drafter=drafter)


def headline(p: Payoff, cpu: str, races: tuple[float, ...] = ()) -> str:
    """One sentence: yes or no, this machine's figure (measured here with its spread, else predicted); Home's
    `races` (the speedups its races measured here on one prompt, newest first) head it only where there is neither
    (review 46: a race's "1.26×" above the prompt set's "No, 0.74×" read as the lab's answer; `race_line` gives them
    under it). Figures from other machines go under it (`comparisons`), the working behind its expander."""
    if races and p.measured is None and p.predicted is None:
        return _race_headline(races)
    m = p.measured
    if m is None and p.predicted is None:
        return _("**Does it pay here?** Not measured here yet ({cpu}) at these settings.").format(cpu=cpu)
    if m is None:
        low, high = p.likely or (p.predicted, p.predicted)
        said = _("**Does it pay here?** Predicted: {answer}, **{predicted}**{likely} {badge}; this policy is not "
                 "measured here yet.") if p.picked else _(
            "**Does it pay here?** Predicted: {answer}, **{predicted}**{likely} {badge}; not measured here yet.")
        return said.format(answer=answer_word(p.predicted, low, high, True), predicted=_x(p.predicted),
                           likely=likely(p), badge=badges.predicted())
    busy = "" if m.clock == Clock.WALL else " " + _("Each mode timed in its own CPU time: the machine was busy, "
                                                    "and its wall clock would count the other work.")
    if busy and m.wall is not None:                # what a user waited, beside it (review 41)
        busy += " " + _("On the wall clock the same runs read {x}.").format(x=_x(m.wall))
    newest = len(m.all_here) > 1        # runs differ more than one run's repeats (review 59: 0.74–0.78×, then 0.80×)
    spread = (_("{span}; the newest run, {r} repeats on {n} prompts") if newest and m.repeats else
              _("{span}; one run, {r} repeats on {n} prompts") if m.repeats else _("{span}, {n} prompts")).format(
        span=span(m.low, m.high), r=m.repeats, n=m.prompts)             # the range is the repeats' (review 39)
    if newest:
        spread += _("; {k} runs here at these settings so far: {lo:.2f}–{hi}").format(
            k=len(m.all_here), lo=min(m.all_here), hi=_x(max(m.all_here)))
    return _("**Does it pay here?** {answer}: **{speedup}** the target alone {here} ({spread}).").format(
        answer=answer_word(m.speedup, m.low, m.high), speedup=_x(m.speedup), spread=spread,
        here=badges.of(m.cpu, m.date)) + busy + (" " + _("Measured at a constant k = {k}, the k these prices "
                                                         "pick.").format(k=p.k) if p.constant else "")


def compared(p: Payoff, seen: tuple[float, str | None, str] | None = None) -> str:
    """Beside a prediction, the figure measured at the same settings and prompts on another machine
    (the shipped k sweep), for comparison: never the headline, its badge says whose. A priced
    prediction (its k picked, not asked) instead names `seen`: (a speedup measured at the k it picks,
    the CPU of a shipped one (None: here), where, in words)."""
    if p.picked and seen is not None:
        return " " + _("A constant k = {k}, measured: **{x}** {badge} ({where}).").format(
            k=p.k, x=_x(seen[0]), badge=badges.of(seen[1]), where=seen[2])
    e = p.elsewhere
    if p.picked or e is None or e.speedup is None or e.low is None:
        return ""
    return " " + _("For comparison: **{speedup}** ({low:.2f}–{high}) {badge} at the same settings and "
                   "prompts.").format(speedup=_x(e.speedup), low=e.low, high=_x(e.high),
                                      badge=badges.of(e.cpu, e.date))


EVEN = 0.03        # a figure within 3 % of the target alone: break-even (repeats of one run vary about as much)
SMALL = 0.10       # a gain under 10 %: a little (two runs of one setting on one CPU model differed by 7 %: k = 1,
                   # T = 0.7, 1.08× shipped and 1.01× measured again, review 31), and one run's no more than noise


def answer_word(speedup: float, low: float, high: float, predicted: bool = False, runs: int = 1) -> str:
    """Yes or no, or neither where the range holds 1 (a gain within the spread is not one) or the figure lies
    within EVEN of 1 (review 25: "Yes, 1.01×" beside "Break-even, 1.07×"), or "a little" for a gain under SMALL
    that `runs` of at least two show (one run's is within what runs of one setting differ by here: review 35, a
    shipped "A little, 1.08×" became "Break-even, 0.99×" on the next run): the headline's word, and Home's
    line for the sidebar's settings; for a `predicted` figure, that the range leaves it open (review 23)."""
    if low < 1.0 < high:
        return _("Uncertain: its range holds 1") if predicted else _("Break-even, no gain beyond the spread")
    if abs(speedup - 1.0) < EVEN:
        return _("Break-even, within {pct:.0%} of the target alone").format(pct=EVEN)
    if 1 < speedup < 1 + SMALL:
        return _("A little, under {pct:.0%}").format(pct=SMALL) if predicted or runs > 1 else _(
            "Not clear yet, one run's gain under {pct:.0%}").format(pct=SMALL)  # no established gain (review 36), not
                                                                                # "break-even" either: the runs chart
                                                                                # draws it past that band (review 44)
    return _("Yes") if speedup > 1 else _("No")


TIE = 0.02          # one race within 2 % of the target alone: a tie (two racers on a busy CPU vary more)


def _race_headline(races: tuple[float, ...]) -> str:
    """Where nothing else answers at these settings: the races' median with their range once there are two (one
    race has no spread to show)."""
    figure = statistics.median(races)
    if len(races) == 1:                     # one run has no spread: a figure, not a verdict (review 21)
        return _("**Does it pay here?** One race on one prompt: **{speedup}** the target alone {here} (wall-clock; "
                 "one run is no verdict: race again to see how much a run varies).").format(
            speedup=_x(figure), here=badges.here())
    return _("**Does it pay here?** {answer} in these races: **{speedup}** the target alone {here} (median of {n} "
             "races on this prompt, {low}–{high}, wall-clock).").format(
        answer=answer_word(figure, min(races), max(races), runs=len(races)), speedup=_x(figure), n=len(races),
        low=f"{min(races):.2f}", high=_x(max(races)), here=badges.here())


EASIER = 1.2        # a race's acceptance this many times the prompt set's (or its inverse): the prompt is unusual


def race_line(races: tuple[float, ...], rate: float | None, set_rate: float | None) -> str:
    """Under the box's verdict on Home: the races on one prompt (newest first), their median and range from two on,
    and where the race's acceptance `rate` lies against the prompt set's (`set_rate`), why one prompt can disagree."""
    figure = statistics.median(races)
    said = _("This prompt's race: **{x}** {here}, one prompt, wall-clock: a figure, not a verdict.").format(
        x=_x(figure), here=badges.here()) if len(races) == 1 else _(
        "This prompt's {n} races: **{x}** {here} (median, {low}–{high}, wall-clock).").format(
        n=len(races), x=_x(figure), here=badges.here(), low=f"{min(races):.2f}", high=_x(max(races)))
    if rate is None or not set_rate:
        return said
    kind = _("an easier prompt than most") if rate >= EASIER * set_rate else _(
        "a harder prompt than most") if rate * EASIER <= set_rate else _("a prompt like most")
    return said + " " + _("Its drafts were accepted {rate:.0%} of the time, against {set:.0%} on the answer box's "
                          "prompts: {kind}.").format(rate=rate, set=set_rate, kind=kind)


def why(p: Payoff) -> str:
    """One short line of why, from this machine's profile: what a round costs and what it keeps, in steps a token;
    the round's parts (k·c + v(k + 1)) are the working's (`payoff_working.round_parts`: reviews 35-38, too many
    figures in view)."""
    if p.round_steps is None:
        return _("Why: this machine's prices for this drafter (c and v) are not measured yet; the lab measures "
                 "them in the background after it starts, or on request in When it is fast, section 5.")
    if (paid := paid_round(p)) is not None:
        return _paid_why(p, paid)
    cost = _("Why: a round costs **{total:.2f} steps** (1 step: the target alone making one token)").format(
        total=p.round_steps)
    if p.tokens is None:
        return cost + _(", against 1 step a token for the target alone.")
    per = _(" and keeps **{tokens:.2f} tokens**: **{per:.2f} steps a token**, against 1 for the target alone").format(
        tokens=p.tokens, per=p.round_steps / p.tokens)
    return cost + per + "." + _nearer(p) + payoff_paid.off(p)   # the prediction: the headline's, or the working's
                                                                 # beside a measurement (one figure for one setting)


def paid_round(p: Payoff) -> float | None:
    """What a round cost the measured runs, in steps (k·c + v(k + 1) at the prices they paid); None without a
    measurement that kept both (a priced policy's runs mix widths: no one v)."""
    if p.measured is None or p.paid_c is None or p.paid_v is None or not p.tokens:
        return None
    return p.k * p.paid_c + p.paid_v


def _paid_why(p: Payoff, paid: float) -> str:
    """Why a measured figure came out as it did, from what its runs paid (review 44: the profile's prices, 0.91 steps
    a token, beside a measured 0.96× argued against the verdict; the runs had paid c = 0.160 and v(3) = 1.59 where
    the profile has 0.131 and 1.41). The profile's round stays in the working, with the prediction."""
    said = _("Why: these runs paid **{total:.2f} steps** a round (1 step: the target alone making one token) and kept "
             "**{tokens:.2f} tokens**: **{per:.2f} steps a token**, against 1 for the target alone.").format(
        total=paid, tokens=p.tokens, per=paid / p.tokens)
    rounds = p.tokens / paid
    if p.at_paid is not None and abs(p.at_paid - 1) < abs(rounds - 1) - 0.005:
        said += " " + _(NEARER)
    return said


def round_parts(p: Payoff) -> str:
    """A round's price in its parts: 'A round: 4 drafts at 0.157 each (c) and a check of 5 tokens at 2.48 (v):
    3.11 steps.' ('' without prices)."""
    if p.round_steps is None:
        return ""
    drafts = (_("1 draft at {c:.3f} (c)") if p.k == 1 else _("{k} drafts at {c:.3f} each (c)")).format(k=p.k, c=p.c)
    return _("A round: {drafts} and a check of {m} tokens at {v:.2f} (v): {total:.2f} steps.").format(
        drafts=drafts, m=p.k + 1, v=p.v, total=p.round_steps)


def _nearer(p: Payoff) -> str:
    """Where the whole run's prediction — or, for a priced policy answered by the constant k it picks, the measured
    figure — lies nearer 1 than the rounds alone: that the prompt's reading, the same work in both modes,
    moves it there, in words (review 35: "1.68 steps a token" beside 0.73× read as 0.60×; review 56: a priced
    policy's "0.91 steps a token" beside a measured 1.04×, said nowhere)."""
    if p.over is not None and p.raw is not None and p.rounds_only is not None and \
            abs(p.raw - 1) < abs(p.rounds_only - 1) - 0.005:
        return " " + _(NEARER)
    if p.constant and p.measured is not None and p.rounds_only is not None and \
            abs(p.measured.speedup - 1) < abs(p.rounds_only - 1) - 0.005:
        return " " + _(NEARER)
    return ""


NEARER = N_("Reading the prompt, the same work in both modes, brings a whole run nearer 1 (the working below).")


def likely(p: Payoff) -> str:
    """' (where runs here land: 0.70–0.77×)' after a prediction: where measurements here landed around theirs, said
    so (reviews 32, 36: "1.06× (1.05–1.29×)" read as a lopsided error bar) ('' without)."""
    if p.likely is None:
        return ""
    return " " + _("(where runs here land: {low:.2f}–{high})").format(low=p.likely[0], high=_x(p.likely[1]))


def instead(p: Payoff, seen: tuple | None = None) -> str:
    """The verdict's second half: the k this machine's prices pick (a Payoff priced at it) and what it gives:
    measured here where `seen` (a speedup at that k: (figure, its CPU, None here; where, in words; its
    repeats' range)) is this machine's, else the prediction."""
    if seen is not None and (seen[1] is None or shipped.alike(seen[1])):     # measured: here, or a machine like it
        low, high = seen[3] if len(seen) > 3 else (seen[0], seen[0])
        figure, badge, extra, guess = seen[0], badges.of(seen[1]), f" ({span(low, high)})", False
    else:
        (low, high), figure, badge, extra, guess = p.likely or (p.predicted, p.predicted), p.predicted, \
            badges.predicted(), likely(p), True
    return " " + _("At k = {k}, the k this machine's prices pick: {answer}, **{figure}**{extra} {badge}.").format(
        k=p.k, answer=answer_word(figure, low, high, guess), figure=_x(figure), extra=extra, badge=badge)


def comparisons(p: Payoff, seen: tuple | None = None, instead_p: Payoff | None = None,
                seen_instead: tuple | None = None) -> str:
    """Under the verdict: the figures measured at its settings on another machine (or, for a priced
    prediction, at the k it picks), for comparison only ('' without any)."""
    said = compared(p, seen).strip()
    if instead_p is not None and seen_instead is not None and seen_instead[1] is not None \
            and not shipped.alike(seen_instead[1]):                     # a machine like this one's: the verdict's
        said += (" " if said else "") + _("At k = {k}: **{x}** {badge} ({where}).").format(
            k=instead_p.k, x=_x(seen_instead[0]), badge=badges.of(seen_instead[1]), where=seen_instead[2])
    return said


def span(low: float, high: float) -> str:
    """A range of speedups, '0.74–0.78×'; one figure where the two round alike ('0.76× in every repeat')."""
    if f"{low:.2f}" == f"{high:.2f}":
        return _("{x} in every repeat").format(x=_x(low))
    return f"{low:.2f}–{_x(high)}"

