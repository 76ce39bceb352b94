"""In a server (issue 30): what the measurements say, in sentences computed from them
(specdec/bench/server.py and batching.py measure), and the page's sweep of batch sizes."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from specdec import defaults
from specdec.bench.batching import Facts, batch_bench
from specdec.bench.payoff import Payoff
from specdec.bench.record import BatchSweep
from specdec.bench.server import Timeline, Together
from specdec.settings import Settings
from specdec.wording import _
from ui.lessons.payoff_words import SOURCES


@dataclass(frozen=True)
class Latency:
    ttft_median: float
    ttft_max: float
    tpot_median: float
    busiest: int                 # the most requests that shared a round


def sweep(pair, prompts: list, settings: Settings, progress, sizes=None, repeats: int = 2) -> BatchSweep:
    return batch_bench(pair, prompts, list(sizes or defaults.SIZES), settings, repeats, progress)


def latency(result: Timeline) -> Latency:
    served = result.served
    return Latency(statistics.median(s.ttft for s in served), max(s.ttft for s in served),
                   statistics.median(s.tpot for s in served), max(len(t.requests) for t in result.ticks))


def verdict(facts: Facts) -> str:
    """What the sweep shows, computed from it."""
    head = _("At batch size 1 speculative decoding ran **{first:.2f}×** as fast as autoregressive "
             "decoding; at batch size {last_b} **{last:.2f}×**.").format(
        first=facts.first, last=facts.last, last_b=facts.last_batch)
    if facts.crossover is not None and facts.crossover <= facts.first_batch:
        return head + " " + _("It did not pay at any batch size measured here, not even for one request "
                              "alone: at batch size 1 a speculative round cost {v:.1f}× an autoregressive "
                              "pass plus {d:.0f} ms of drafting, and brought {t:.2f} tokens.").format(
            v=facts.pass_ratio_1, d=facts.draft_ms_1, t=facts.tokens_per_pass_1)
    if facts.crossover:
        return head + " " + _("It stopped paying at batch size **{b}**, the smallest measured size where "
                              "it was no faster.").format(b=facts.crossover)
    return head + " " + _("It paid at every batch size measured here.")


def beside_box(facts: Facts, sweep: BatchSweep, box: Payoff | None, shipped: bool = False) -> str:
    """One line: the sweep's batch-size-1 speedup beside "Does it pay here?"'s figure for the same
    pair and settings, and why they differ (what this sweep timed, from its own record; `shipped`:
    the sweep was measured on another machine, the box on this one)."""
    own = _("This sweep served {r} requests ({n} prompts cycled, {tokens} new tokens each, their prompts' "
            "reading timed too) through the server's batched loop.").format(
        r=sweep.requests, n=sweep.prompts, tokens=sweep.max_new_tokens)
    if shipped:
        own += " " + _("It ran on {cpu}; the box's figure is this machine's.").format(cpu=sweep.provenance.cpu or "?")
    figure = None if box is None else box.measured.speedup if box.measured else box.predicted
    if figure is None:
        return _("At batch size {b}: {mine:.2f}×.").format(b=facts.first_batch, mine=facts.first) + " " + own
    where = (_("measured by {section} on {n} prompts").format(section=_(SOURCES.get(box.measured.source,
                                                                                    box.measured.source)),
                                                              n=box.measured.prompts)
             if box.measured else _("predicted from this machine's prices"))
    return _("At batch size {b}: {mine:.2f}×; “Does it pay here?” says {box:.2f}× for the same pair and settings "
             "({where}).").format(b=facts.first_batch, mine=facts.first, box=figure, where=where) + " " + own


def together_words(r: Together) -> str:
    """The tour's sentence on a batch against the same requests one by one."""
    text = _("{n} requests, {tokens} tokens: together {batch:.1f} s ({fast:.1f} tokens/s), one by one {alone:.1f} s "
             "({slow:.1f} tokens/s). {same} of {n} requests wrote token for token the text they wrote alone.").format(
        n=r.requests, tokens=r.tokens, batch=r.batch_s, fast=r.tokens / r.batch_s,
        alone=r.alone_s, slow=r.tokens / r.alone_s, same=r.same)
    text += " " + (_("Together was {ratio:.2f}× faster: each pass read the weights once for every request.")
                   .format(ratio=r.alone_s / r.batch_s) if r.batch_s < r.alone_s else
                   _("Together was not faster here ({ratio:.2f}× the time): on this CPU a pass costs more with every "
                     "row it holds (its arithmetic, not its reading of the weights, sets the price), so sharing "
                     "the weights saved little and the batch paid its own bookkeeping.").format(
                       ratio=r.batch_s / r.alone_s))
    if r.same < r.requests:
        text += " " + _("The others parted at a near-tie: a batched pass can round the last bits of p differently "
                        "from a lone one, and a draw that close to the line then falls the other way. Each text "
                        "still follows the target's distribution.")
    return text
