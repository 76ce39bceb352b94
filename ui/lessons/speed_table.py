"""Every speedup the lab shows for one pair, in one table (issue 51): the box's answer first, then
each figure this machine measured for the pair in any section, then each shipped from another
machine (When it is fast, Drafters compared) — the other sections' rows (Home's races, Where it
works, In a server, the benchmark) are other_rows.py's, on the same words and badges — each row
with its badge, its settings and why it is not the box's figure, computed by
comparing its key with the box's settings:

    another T, k, drafter or policy     the runs drafted and sampled differently
    other prompts                       acceptance is the text's (When it is fast's set is the box's)
    CPU time                            the machine was busy: the runs' own CPU time, not the wall-clock
    another machine                     its prices (c, v) made it; this machine's prices give the figure
                                        beside it (repriced.py: tokens a round travel)

(the store keeps one figure a setting, so a figure of the box's own setting is the box's: its row)

so a learner who meets 0.69×, 0.72× and 1.05× for "the same pair" sees whose each is and why they differ.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from specdec.bench import machine, repriced
from specdec.bench.compared import ALL, DrafterTable
from specdec.bench.payoff import Payoff
from specdec.bench.points import Sweep
from specdec.records.provenance import Clock
from specdec.settings import Settings
from specdec.wording import _, times
from ui.lessons import badges, shipped, store
from ui.lessons.pair_card import Numbers
from ui.lessons.payoff_words import SOURCES
from ui.lessons.speed_words import differences, differs, k_words_of, setting_of, setting_words, spread

SHIPPED_DRAFTER = store.drafter_id(Settings())   # the drafter every shipped sweep ran: the default
SHOWN_HERE = 8          # this machine's figures shown, newest first (each section's newest of a setting)


@dataclass(frozen=True)
class SpeedRow:
    whose: str          # a badge
    section: str        # the lesson that shows it
    figure: str         # the speedup, with its repeats' range where it has one
    setting: str        # T, k and the prompts it ran
    why: str            # why it is not the box's figure
    here: float | None = None   # this machine's figure for the row: measured here, or priced at its prices
    same: bool = False          # at the box's T, k and drafter (prompts may differ)
    numbers: Numbers | None = None  # its acceptance and prices, for the pair card (pair_card.py)
    priced: float | None = None     # its tokens a round at this machine's profile (None: unpriced)
    mine: bool = False              # measured here or on a machine like this one: it stands as measured

    def at_prices(self) -> float | None:
        """The card's column: the profile's price for another machine's tokens a round (a shipped row's
        `here`) and the box's prediction; None for a figure measured here or on a machine like this one,
        which no page prices again beside itself (review 28: near-duplicate predictions)."""
        return None if self.mine else (self.priced if self.priced is not None else self.here)


@dataclass(frozen=True)
class Asked:
    """The box's question: the pair, the sidebar's settings, their prompt set and key."""
    target: str
    draft: str | None
    settings: object                 # specdec.settings.Settings
    prompts: store.PromptSet         # When it is fast's set, the box's own
    ran: store.Ran = store.DEFAULT_RAN
    picked: int | None = None        # the k a draft-length policy picks here (the box's Payoff.k)
    offered: int | None = None       # the k the box offers instead, picked by this machine's prices

    def k_words(self) -> str:
        return k_words_of(self.settings.k, self.settings.policy, self.picked)

    def policy_reason(self, k: int) -> list[str]:
        """A figure at a constant k beside a box whose policy picks k: the difference, in words (the
        k it picks here, where it is this figure's, is no difference in k: the policy picks it anew
        every round)."""
        if self.settings.policy == "constant":
            return []
        if k == self.picked:
            return [_("this row fixes k = {k}; the answer box's policy picks k each round").format(k=k)]
        return [_("{theirs}, not {box}").format(theirs=k_words_of(k, "constant"), box=self.k_words())]

    def k_against(self, k: int) -> int:
        """The k a figure's k is compared with: the box's, or under a policy the figure's own (its
        difference is policy_reason's)."""
        return self.settings.k if self.settings.policy == "constant" else k

    def key(self) -> store.Key:
        return store.key(self.target, self.draft, self.settings, self.settings.k, self.prompts,
                         Clock.WALL, self.ran)


def rows(asked: Asked, box: Payoff, profile: machine.Profile | None) -> list[SpeedRow]:
    """The box's rows, this machine's figures, then the shipped ones (the other sections' rows:
    other_rows.py)."""
    return box_rows(asked, box) + filed_rows(asked, box, profile) + shipped_rows(asked, profile, box)


def box_rows(asked: Asked, box: Payoff) -> list[SpeedRow]:
    """The box's figure measured here, and its prediction from this machine's prices."""
    s, out = asked.settings, []
    setting = setting_of(s.temperature, s.k, asked.prompts, s.policy, asked.picked)
    if (m := box.measured) is not None:
        said = _("the answer: the newest figure measured here at these settings") if m.cpu is None else _(
            "the answer until this machine measures them: a machine like this one's, at these settings")
        out.append(SpeedRow(badges.of(m.cpu, m.date), _(SOURCES.get(m.source, m.source)),
                            spread(m.speedup, m.low, m.high), setting, said,
                            m.speedup, True, Numbers(m.acceptance_rate, m.alpha, m.tokens, m.c, m.v), mine=True))
    if box.predicted is not None:
        if box.tokens_on:                                     # its tokens a round came from another prompt set
            setting = setting_words(s.temperature, asked.k_words(), box.tokens_on)
        why = _("this machine's prices (c, v) with these tokens a round, not timed")
        figure = box.raw if m is not None else box.predicted          # beside a measurement: the working's price
        if box.priced is not None and m is None:
            why += "; " + _("the price in the next column × {mid:.2f}, where measurements here typically land against "
                            "their own prices").format(mid=box.landing()[0])
        out.append(SpeedRow(badges.predicted(), _("“Does it pay here?”'s prediction"), times(figure), setting,
                            why, figure, True, Numbers(None, box.alpha, box.tokens, box.c, box.v), box.raw))
    return out


def filed_rows(asked: Asked, box: Payoff, profile: machine.Profile | None = None) -> list[SpeedRow]:
    """This machine's figures for the pair at any setting, each section's newest of a setting,
    newest first, each with its tokens a round at this machine's profile; the box's own left out (it is
    the first row)."""
    want, seen, out = asked.key(), set(), []
    for key, entry in store.filed_of(asked.target, asked.draft):
        mark = (entry.source, key.setting(), key.prompts.digest)
        if mark in seen or entry.figure.speedup is None or _is_box(entry, box):
            continue
        seen.add(mark)
        f = entry.figure
        same = replace(key, prompts=want.prompts, clock=want.clock) == want
        out.append(SpeedRow(badges.here(), _(SOURCES.get(entry.source, entry.source)),
                            spread(f.speedup, f.speedup_min, f.speedup_max),
                            setting_of(key.temperature, key.k, key.prompts, key.policy),
                            "; ".join(differences(key, want, asked.picked)), f.speedup, same, Numbers.of(f),
                            mine=True))
    return out[:SHOWN_HERE]


def _is_box(entry: store.Filed, box: Payoff) -> bool:
    m = box.measured
    return m is not None and entry.source == m.source and entry.figure.speedup == m.speedup


def shipped_rows(asked: Asked, profile: machine.Profile | None, box: Payoff | None = None) -> list[SpeedRow]:
    """The k sweep's point at the box's k, the trade-off's and Drafters compared's point of this
    draft, as shipped, each with its figure at this machine's prices; not the box's own answer (a
    point shipped from a machine like this one, at the k it answers for: its row is the box's)."""
    out = []
    answer = box.measured if box is not None else None
    found = [(source, key, result, p, k, _prompts(source, key)) for source, key, result, p, k in _shipped_points(asked)]

    def the_box(source, p, k) -> bool:          # the box's own shipped figure: its row is row 1
        return answer is not None and answer.cpu is not None and (source, k, p.speedup) == ("ksweep", box.k,
                                                                                            answer.speedup)
    # another run of the box's setting says so, whichever comes first (review 48: 0.76× beside the box's 0.74×,
    # "its prices that day" its only reason)
    seen = {(r.provenance.cpu, _temperature(key), k, prompts.digest) for source, key, r, p, k, prompts in found
            if the_box(source, p, k)}
    for source, key, result, p, k, prompts in found:
        mark = (result.provenance.cpu, _temperature(key), k, prompts.digest)
        if the_box(source, p, k) or (*mark, p.speedup) in seen:  # the box's; or one figure shipped by two sections
            continue
        if source != "drafters" and shipped.alike(result.provenance.cpu) and shipped_same(
                asked, _temperature(key), k) and measured_here_since(asked, prompts):
            continue                        # its section shows the run measured here since: that figure's row
        again = mark in seen                # the same setting, another run: every figure is a row
        seen |= {mark, (*mark, p.speedup)}
        differ = asked.policy_reason(k) + differs(_temperature(key), k, prompts,
                                                  replace(asked.key(), k=asked.k_against(k)))
        differ += [_("another run of the same setting: runs vary")] if again else []
        alike = shipped.alike(result.provenance.cpu)          # read as measured: not priced again
        out.append(SpeedRow(badges.shipped(result.provenance.cpu, date=result.provenance.date), _(SOURCES[source]),
                            spread(p.speedup, p.speedup_min, p.speedup_max),
                            setting_of(_temperature(key), k, prompts),
                            "; ".join(differ + [moved(p, asked, profile, k, result.provenance.cpu)]),
                            p.speedup if alike else priced(p, asked, profile, k),
                            shipped_same(asked, _temperature(key), k), _numbers(source, p), mine=alike))
    return out


def measured_here_since(asked: Asked, prompts: store.PromptSet) -> bool:
    """This machine filed a figure at the box's setting on `prompts`: the k sweep and the draft sizes, shipped from
    a machine like this one, show that newer run there (store.agree), so the card lists it once, as measured here
    (review 56: the card's "When it is fast (its k sweep) 0.74×" under a chart that drew 0.77× measured here)."""
    return prompts.digest == asked.prompts.digest and store.newest_on_any_clock(asked.key()) is not None


def _prompts(source: str, key: dict) -> store.PromptSet:
    return store.PromptSet.of(key.get("prompts") or [], bool(key.get("chat")), _new_tokens(key),
                              "drafters/all" if source == "drafters" else "speed")


def _numbers(source: str, p) -> Numbers:
    """A shipped point's numbers; the draft sizes' points price no pass (their v is 1 by construction)."""
    return replace(Numbers.of(p), v=None) if source == "tradeoff" else Numbers.of(p)


def moved(p, asked: Asked, profile: machine.Profile | None, k: int, cpu: str | None = None) -> str:
    """A shipped figure's machine, and where its tokens a round are priced here (the next column);
    `cpu`: the shipped figure's, where it is this CPU model (another box of it, another day's load)."""
    if shipped.alike(cpu):
        return _("a machine like this one, its prices that day")
    said = _("another machine's prices")
    return said if priced(p, asked, profile, k) is not None else said + _(", not priced here (no profile yet)")


def _shipped_points(asked: Asked) -> list[tuple]:
    """(section, key, result, point, k) of each shipped section that measured this pair's draft."""
    short = (asked.draft or "").split("/", 1)[-1]
    found = []
    for key, sweep in ran_alike("ksweep", Sweep, asked.ran):
        found += [("ksweep", key, sweep, p, p.k) for p in sweep.points   # the box's k, and the k its policy picks
                  if key.get("pair") == [asked.target, asked.draft]
                  and p.k in (asked.settings.k, asked.picked, asked.offered)]
    for key, sweep in ran_alike("tradeoff", Sweep, asked.ran):
        found += [("tradeoff", key, sweep, p, p.k) for p in sweep.points
                  if key.get("target") == asked.target and p.draft == asked.draft]
    for key, table in ran_alike("drafters", DrafterTable, asked.ran):
        found += [("drafters", key, table, p, key["settings"]["k"]) for p in table.points
                  if key.get("target") == asked.target and p.kind == ALL and p.drafter == short]
    return found


def ran_alike(kind: str, record, ran: store.Ran) -> list[tuple[dict, object]]:
    """The shipped results of `kind` measured with the target run as it runs now (its key holds
    the parts of store.Ran that differ from the defaults): what the pages show."""
    return [(key, found) for key, found in shipped.all_of(kind, record)
            if {name: key[name] for name in ("precision", "backend", "threads") if name in key} == ran.fields()]


def shipped_same(asked: Asked, temperature: float, k: int) -> bool:
    """A shipped figure (a draft model at a constant k) at the box's T, k and drafter."""
    s = asked.settings
    return (temperature, k, s.policy, store.drafter_id(s)) == (s.temperature, s.k, "constant", SHIPPED_DRAFTER)


def summary(found: list[SpeedRow], settings) -> str | None:
    """One sentence over the rows at the box's settings: the range of this machine's figures
    (measured here, or priced at its prices) and whether they pay; None with fewer than two."""
    values = [r.here for r in found if r.same and r.here is not None]
    if len(values) < 2:
        return None
    lo, hi = min(values), max(values)            # whether they pay: the box's word, not a second one here
    return _("At these settings (T = {t:g}, {k}) {n} of these figures answer for this machine ({whose}); their "
             "medians run **{lo:.2f}–{hi}**. The others differ for the reasons each row gives.").format(
        t=settings.temperature, k=k_words_of(settings.k, settings.policy), n=len(values), lo=lo, hi=times(hi),
        whose=_whose([r for r in found if r.same and r.here is not None]))


def _whose(rows: list[SpeedRow]) -> str:
    """How many rows were measured here, shipped from a machine like this one, or predicted from this machine's
    profile (review 49: "this machine's, measured here where they were, else predicted" over four rows shipped from
    a machine like this one on other days)."""
    kinds = [badges.kinds_in(r.whose) for r in rows]
    here, like = sum("here" in k for k in kinds), sum("like" in k for k in kinds)
    counts = ((here, _("{n} measured here")), (like, _("{n} shipped from a machine like this one, on other days")),
              (len(rows) - here - like, _("{n} predicted from its profile")))
    return ", ".join(text.format(n=n) for n, text in counts if n)


def priced(p, asked: Asked, profile: machine.Profile | None, k: int) -> float | None:
    """A shipped point's tokens a round at this machine's c and v(k + 1) (None: not priced here)."""
    if profile is None:
        return None
    r = repriced.one(p, machine.draft_c(profile, "model", asked.draft), profile.v, k)
    return None if r is None else r.speedup


def _temperature(key: dict) -> float:
    return float(key["T"] if "T" in key else key["settings"]["temperature"])


def _new_tokens(key: dict) -> int:
    return int(key["n"] if "n" in key else key["settings"]["max_new_tokens"])


def _here(r: SpeedRow) -> str:
    """A row's tokens a round at this machine's prices."""
    return times(r.at_prices())


def markdown(found: list[SpeedRow], only: set[int] | None = None) -> str:
    """The rows as a Markdown table, numbered as the pair card numbers them (badges render in
    Markdown, not in a data frame); `only`: the numbers shown (None: every row)."""
    head = ["#", _("whose"), _("speedup: median (repeats' range)"), _("at this machine's prices"), _("section"),
            _("settings"), _("why it is not the answer box's figure")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [f"| {i} | {r.whose} | **{r.figure}** | {_here(r)} | {r.section} | {r.setting} | {r.why} |"
              for i, r in enumerate(found, 1) if only is None or i in only]
    return "\n".join(lines)


def at_these(found: list[SpeedRow]) -> set[int]:
    """The numbers of the rows at the box's T, k and drafter (any prompts): the card's short view."""
    return {i for i, r in enumerate(found, 1) if r.same}
