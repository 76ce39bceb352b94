"""Across vocabularies, how fast: the cross-vocab drafter beside the same-vocabulary drafters of
one target, a few short runs here, priced with this machine's profile (specdec/bench/machine.py).

Tokens a round (L) come from the runs. A round that drafted d tokens costs d·c + v(d + 1) target
steps (a lookup that found nothing drafts none): v from the profile, round by round; c (a draft
step / a target step) from the profile where it was measured beside this target (machine.prices),
else from the run itself: its drafting time per drafted token over the profile's one-token step —
for the cross-vocab drafter that time includes re-reading the sequence with the draft's tokenizer.
Predicted speedup = L / (mean d·c + mean v(d + 1)).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

import specdec
from specdec.bench import machine


class Source(StrEnum):
    PROFILE = "profile"      # c measured with the machine's profile, beside this target
    RUN = "run"              # c from the drafting time of the runs below
    NONE = "none"            # no profile: no speed


@dataclass(frozen=True)
class SpeedRow:
    draft: str               # the draft model's name ("" when the drafter runs none)
    drafter: str             # its DRAFTERS name
    across: bool             # it drafts in another vocabulary than the target's
    mean_acceptance_length: float  # emitted tokens / rounds (the bonus or correction included)
    acceptance: float        # accepted drafts / drafted tokens
    c: float | None
    source: Source
    speedup: float | None    # predicted on this machine


@dataclass(frozen=True)
class Tally:
    rounds: int = 0
    emitted: int = 0
    drafted: int = 0
    accepted: int = 0
    draft_ms: float = 0.0
    widths: tuple[int, ...] = ()     # each round's pass: its drafts + 1 (a lookup that found none: 1)

    def add(self, run) -> "Tally":
        rs = run.rounds
        return Tally(self.rounds + len(rs), self.emitted + sum(len(r.emitted) for r in rs),
                     self.drafted + sum(r.drafted for r in rs), self.accepted + sum(r.n_accepted for r in rs),
                     self.draft_ms + sum(r.draft_ms for r in rs), self.widths + tuple(r.drafted + 1 for r in rs))

    def pass_steps(self, v: dict[int, float]) -> float | None:
        """The rounds' mean pass price at v(M) (each round its own width); None: a width not priced."""
        if not self.widths or any(m not in v for m in self.widths):
            return None
        return sum(v[m] for m in self.widths) / len(self.widths)


def tally(pair, drafter: str, prompts: list, settings) -> Tally:
    """The rounds of one drafter over every prompt."""
    out = Tally()
    for prompt in prompts:
        out = out.add(specdec.generate(pair, prompt, replace(settings, drafter=drafter)))
    return out


def cost_ratio(profile, pair, drafter: str, t: Tally) -> tuple[float | None, Source]:
    """c: the profile's where it holds one for this drafter, else the run's drafting time."""
    if profile is None:
        return None, Source.NONE
    prices = machine.prices(profile, pair, drafter)
    if prices is not None:
        return prices.c, Source.PROFILE
    if not t.drafted:
        return None, Source.NONE
    return t.draft_ms / t.drafted / profile.step_ms, Source.RUN


def predicted(mean_acceptance_length: float, drafted_per_round: float, c: float, v: float) -> float:
    """Speedup over the target alone: tokens a round / the round's cost in target steps."""
    return mean_acceptance_length / (drafted_per_round * c + v)


def speed_row(pair, drafter: str, prompts: list, settings, profile) -> SpeedRow:
    t = tally(pair, drafter, prompts, settings)
    rounds = max(t.rounds, 1)
    c, source = cost_ratio(profile, pair, drafter, t)
    v = None if profile is None else t.pass_steps(profile.v)          # v(drafted + 1), round by round
    speed = None if c is None or v is None else predicted(t.emitted / rounds, t.drafted / rounds, c, v)
    from specdec.drafters.registry import DRAFTERS
    uses_draft = DRAFTERS[drafter].needs_draft_model
    return SpeedRow(pair.draft_name if uses_draft else "", drafter, uses_draft and pair.across_vocab,
                    t.emitted / rounds, t.accepted / max(t.drafted, 1), c, source, speed)
