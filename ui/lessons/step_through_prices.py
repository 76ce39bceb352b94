"""A Step-through round's own times in this machine's steps, beside the profile's prices (review 15:
a busy round's 147.8 ms pass read as "8 steps where the profile says 2.22" with nothing to say why),
and a finished run's rounds against the target alone's passes timed on the same prompt."""
from __future__ import annotations

from typing import NamedTuple

from specdec.bench.measure import machine_load
from specdec.records.provenance import BUSY_LOAD
from specdec.wording import _, times
from ui.lessons import badges

FEW = 8             # a finished run with fewer new tokens is not timed against the target alone
SLOW = 1.25         # a round this much over the profile's price is called slower than the profile
PAUSE = 0.2         # seconds: a round started this long after the last one ended follows a pause (a click)


class Priced(NamedTuple):
    """This machine's profile as a round's times need it."""
    step_ms: float              # the target's one-token step
    c: float | None             # the drafter's draft step / a target step (None: not profiled)
    v: dict[int, float]         # M -> a pass of M tokens / a one-token step
    pauses: dict[int, float] = {}   # round index -> seconds the run waited before it (session.pauses)


def in_steps(rnd, priced: Priced | None) -> str:
    """The round's pass (and draft step) in this machine's steps against the profile's v (and c); where
    either ran SLOW times over, why: the first round's cold caches, a pause before the round (review 50: draft
    steps of 0.28-0.54 beside c = 0.137 in rounds clicked one by one), else the load now ('' without a profile,
    or for a pass width it did not measure)."""
    m = rnd.drafted + 1
    if priced is None or m not in priced.v:
        return ""
    steps, v = rnd.verify_ms / priced.step_ms, priced.v[m]
    text = _("In target steps ({step:.1f} ms): this pass {steps:.2f} (the profile: {v:.2f})").format(
        step=priced.step_ms, steps=steps, v=v)
    slow = steps > SLOW * v
    if rnd.draft_forwards and priced.c:
        each = rnd.draft_ms / rnd.draft_forwards / priced.step_ms
        text += _(", a draft step {each:.3f} (the profile's c: {c:.3f})").format(each=each, c=priced.c)
        slow = slow or each > SLOW * priced.c
    if not slow:
        return text + "."
    if rnd.index == 0:
        return text + ". " + _("Slower than the profile: the first round runs on cold caches.")
    load = machine_load()
    if load >= BUSY_LOAD:
        return text + ". " + _("Slower than the profile: other work shares the cores (load now {load:.1f} per "
                               "core).").format(load=load)
    if (paused := priced.pauses.get(rnd.index, 0.0)) >= PAUSE:
        return text + ". " + _("Slower: this round began {s:.1f} s after the last (your click), and a waiting "
                               "machine's caches go cold; the profile and Run to end time rounds back to back.").format(
            s=paused)
    return text + ". " + _("Slower than the profile (the load now: {load:.1f} per core).").format(load=load)


def alone_now(tokens: int, rounds_ms: float, alone_tokens: int, alone_ms: float) -> str:
    """This run's rounds against the target alone timed once the run ended, on the same prompt and settings
    (its passes, with the same recording): one ratio per token, measured here."""
    if not tokens or not rounds_ms or not alone_tokens or not alone_ms:
        return ""
    if min(tokens, alone_tokens) < FEW:          # review 43: one token after a long prompt read "0.00×"
        return _("Too few new tokens to time against the target alone ({n}; the first comes from reading the "
                 "prompt).").format(n=min(tokens, alone_tokens))
    mine, alone = rounds_ms / tokens, alone_ms / alone_tokens
    return _("Timed just now on this prompt, the target alone's passes took {alone:.1f} ms a token and this run's "
             "rounds {mine:.1f}: **{x}** {badge}.").format(alone=alone, mine=mine, x=times(alone / mine),
                                                          badge=badges.here())


def beside_box(tokens_a_round: float | None, box, ratio: float | None = None, cold: tuple[int, int] = (0, 0)) -> str:
    """A finished run's tokens a round beside those behind the box's figure (`box`: a payoff.Payoff), where it
    has both (review 27: "0.99×" on one prompt above the box's "0.73×", unexplained); where the run's `ratio`
    (timed against the target alone) lies the other way than its tokens a round say, that one prompt's timing
    moves with the load (review 28: more tokens a round, and slower). `cold`: (rounds that began after a pause of
    PAUSE or more, the run's rounds): a run stepped by hand is timed cold (review 56: 0.85× blamed on the load
    where a run of the same prompt back to back gave 1.22×)."""
    if not tokens_a_round or box is None or not box.tokens:
        return ""
    figure = box.measured.speedup if box.measured else box.predicted
    if cold[0]:
        return _("This prompt kept {mine:.2f} tokens a round, the answer box's prompts {theirs:.2f}, and {n} of its "
                 "{m} rounds began after a pause (your clicks), when a round runs cold: its ratio is not the answer "
                 "box's {x}. Reset and Run to end times every round back to back.").format(
            mine=tokens_a_round, theirs=box.tokens, n=cold[0], m=cold[1], x=times(figure))
    said = _("This prompt kept {mine:.2f} tokens a round, the answer box's prompts {theirs:.2f}: one prompt is one "
             "draw, and one timing moves with the machine's load, so its ratio is not the answer box's {x}.").format(
        mine=tokens_a_round, theirs=box.tokens, x=times(figure))
    if ratio and figure and (tokens_a_round > box.tokens) != (ratio > figure):
        said += " " + _("Its timing went the other way: one run's two timings move with what else the machine "
                        "does (load now {load:.1f} per core); the answer box's repeats average that out.").format(
            load=machine_load())
    return said
