"""What a many-prompt comparison (specdec/bench/many.py) says, in sentences computed from it:
the change of the lesson's metric, whether it agrees with the lesson the page teaches (and
why not, when it does not), and where the learner's single run fell in the spread."""
from __future__ import annotations

from dataclasses import dataclass

from specdec.bench.many import Comparison, PromptRun, Spread, paired, summary
from specdec.wording import _, times

CLEAR = 0.75      # the share of prompts that must move one way for an effect to count as clear


@dataclass(frozen=True)
class Claim:
    """A lesson's claim about one knob: `metric` is higher at the *lower* value of the knob
    (sign -1) or at the higher one (+1); `text` says where the lesson makes it."""
    metric: str
    sign: int
    text: str


def claim(knob: str, a: float, b: float) -> Claim | None:
    """The claim the page's lesson makes about comparing knob = a with knob = b (None: none)."""
    if knob == "temperature" and a != b:
        return Claim("acceptance_rate", -1, _("When it is fast (section 4): sharper distributions — a lower "
                                              "temperature — agree more often"))
    if knob == "k" and max(a, b) >= 6 and abs(a - b) >= 3:      # a long draft against a clearly shorter one
        return Claim("tokens_per_s", -1, _("When it is fast (section 2): past a small k, each extra draft "
                                           "costs more than it brings, so the smaller k is faster"))
    return None


def metric_name(metric: str) -> str:
    return {"acceptance_rate": _("acceptance rate"), "mean_acceptance_length": _("tokens a round"),
            "target_forwards_per_token": _("target passes per token"), "tokens_per_s": _("tokens/s"),
            "speedup": _("speedup")}[metric]


def fmt(metric: str, x: float) -> str:
    if metric == "speedup":
        return times(x)
    return f"{100 * x:.0f}%" if metric == "acceptance_rate" else f"{x:.2f}" if x < 10 else f"{x:.1f}"


def against_alone(result: Comparison) -> str | None:
    """Each setting's speedup over the target alone on the same prompts: its median over the prompts (one easy
    prompt moves a mean, review 30), their range and on how many it was faster (None where the target alone did
    not run)."""
    found = [(s.arm, s.speedup, sum(r.value("speedup", result.clock) > 1 for r in result.of(s.arm)
                                   if r.value("speedup", result.clock) is not None))
             for s in summary(result)]
    if any(s is None for _name, s, _n in found):
        return None
    return _("Against the target alone, run on each prompt just before them: {parts}.").format(parts="; ".join(
        _("{name} {median} (the median; {lo:.2f}–{hi}), faster on {wins} of {n} prompts").format(
            name=name, median=times(s.median), lo=s.lo, hi=times(s.hi), wins=wins, n=s.n) for name, s, wins in found))


def change(metric: str, names: list[str], spreads: list[Spread], n: int, kind: str) -> str:
    """How `metric` moved between the two settings: their medians over the prompts, as the speedup line and the
    table say them (review 53: the line's medians beside the table's means read the other way)."""
    a, b = spreads
    if fmt(metric, a.median) == fmt(metric, b.median):
        return _("On {n} {kind} prompts, the median {metric} stayed at {a} ({name_a}; {a_lo}–{a_hi} and {name_b}; "
                 "{b_lo}–{b_hi}).").format(
            n=n, kind=kind, metric=metric_name(metric), a=fmt(metric, a.median), name_a=names[0],
            a_lo=fmt(metric, a.lo), a_hi=fmt(metric, a.hi), name_b=names[1], b_lo=fmt(metric, b.lo),
            b_hi=fmt(metric, b.hi))
    verb = _("rose") if b.median > a.median else _("fell")
    return _("On {n} {kind} prompts, the median {metric} {verb} from {a} ({name_a}; {a_lo}–{a_hi}) to {b} ({name_b}; "
             "{b_lo}–{b_hi}).").format(
        n=n, kind=kind, metric=metric_name(metric), verb=verb, a=fmt(metric, a.median), name_a=names[0],
        a_lo=fmt(metric, a.lo), a_hi=fmt(metric, a.hi), b=fmt(metric, b.median), name_b=names[1],
        b_lo=fmt(metric, b.lo), b_hi=fmt(metric, b.hi))


def lesson_wins(result: Comparison, c: Claim, a: float, b: float) -> tuple[int, int]:
    """(prompts on which the claim's direction held, prompts compared)."""
    higher, n = paired(result, c.metric)            # prompts where A's value is higher
    a_should_win = (a < b) == (c.sign < 0)
    return (higher if a_should_win else n - higher), n


def agrees(result: Comparison, knob: str, a: float, b: float) -> bool | None:
    """Did the lesson's direction hold clearly (None: the page's lesson makes no claim here)?"""
    c = claim(knob, a, b)
    if c is None:
        return None
    wins, n = lesson_wins(result, c, a, b)
    return bool(n) and wins >= CLEAR * n


def backend_note(backend: str, share: float | None) -> str:
    """Why a lesson can fail on a target the draft was not trained against (another backend)."""
    agree = "" if share is None else " " + _("(its top token is that of the model the draft learned from at "
                                             "{share:.0%} of positions)").format(share=share)
    return _("The target here runs on {backend}, a re-quantised build the draft was not trained against{agree}. "
             "Where the two models' top tokens differ, sharp distributions (a low temperature) turn that into a "
             "rejection, which can cancel the lesson's effect: set the sidebar's backend to torch and compare "
             "again.").format(backend=backend, agree=agree)


def verdict(result: Comparison, c: Claim, a: float, b: float) -> str:
    """Agrees or not with the claim, with the paired count as the evidence and a reason."""
    wins, n = lesson_wins(result, c, a, b)
    if n and wins >= CLEAR * n:
        return _("That agrees with the lesson ({claim}): on {wins} of {n} prompts.").format(
            claim=c.text, wins=wins, n=n)
    if n and n - wins >= CLEAR * n:
        return _("That goes against the lesson ({claim}) on {against} of {n} prompts: on these prompts the "
                 "effect is real and reversed — the lesson's claim is an average over other text, and this "
                 "kind of text does not follow it.").format(claim=c.text, against=n - wins, n=n)
    return _("That does not settle the lesson ({claim}): the lesson's direction held on only {wins} of {n} "
             "prompts — the difference is smaller than the prompt-to-prompt spread, so more prompts (or a "
             "wider gap between the settings) are needed to see it.").format(claim=c.text, wins=wins, n=n)


def yours(metric: str, x: float | None, s: Spread | None, name: str) -> str:
    if x is None or s is None:
        return ""
    where = {"within": _("within"), "below": _("below"), "above": _("above")}[s.place(x)]
    return _("Your run ({metric} {x}) was {where} the spread of {name} ({lo}–{hi}).").format(
        metric=metric_name(metric), x=fmt(metric, x), where=where, name=name, lo=fmt(metric, s.lo),
        hi=fmt(metric, s.hi))


def sentence(result: Comparison, knob: str, a: float, b: float, kind: str, mine: PromptRun | None = None) -> str:
    """The text under the comparison: the lesson's metric (acceptance without a claim), the
    verdict, and the learner's run placed in the spread of the current setting."""
    spreads, names = {s.arm: s for s in summary(result)}, result.arms
    c = claim(knob, a, b)
    metric = c.metric if c else "acceptance_rate"
    pair = [spreads[name].of(metric) for name in names]
    if None in pair:
        return _("Nothing was drafted in some runs: no {metric} to compare.").format(metric=metric_name(metric))
    parts = [change(metric, names, pair, result.prompts, kind)]
    if c:
        parts.append(verdict(result, c, a, b))
    if mine:
        parts.append(yours(metric, getattr(mine, metric), pair[0], names[0]))
    return " ".join(p for p in parts if p)
