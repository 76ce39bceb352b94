"""In a server (issue 30): what the measurements say, in sentences computed from them
(specdec/bench/server.py and batching.py measure), and the page's sweep of batch sizes."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from specdec import defaults
from specdec.bench.batching import Facts, batch_bench
from specdec.bench.payoff import Payoff
from specdec.bench.record import BatchSweep
from specdec.bench.server import PrefixRun, Timeline, Together
from specdec.records.provenance import Clock
from specdec.settings import Settings
from specdec.wording import _
from ui.lessons import badges, store
from ui.lessons.bench_words import machine_name
from ui.lessons.fast_elsewhere import stops_paying


@dataclass(frozen=True)
class Latency:
    ttft_median: float
    ttft_max: float
    tpot_median: float
    busiest: int                 # the most requests that shared a round


def sweep(pair, prompts: list, settings: Settings, progress, sizes=None, repeats: int = 2) -> BatchSweep:
    return batch_bench(pair, prompts, list(sizes or defaults.SIZES), settings, repeats, progress)


def sweep_key(names, settings: Settings, texts: list[str], chat: bool, ran: store.Ran = store.DEFAULT_RAN) -> dict:
    """The page's sweep as the result store keys it (older sweeps served other seeds and timed latency from
    admission: they are other measurements)."""
    return store.measurement("server_sweep", names, settings, texts, chat, ran, sizes=list(defaults.SIZES),
                             repeats=2, workload="the answer box's runs at every size", latency="from arrival")


def latency(result: Timeline) -> Latency:
    served = result.served
    return Latency(statistics.median(s.ttft for s in served), max(s.ttft for s in served),
                   statistics.median(s.tpot for s in served), max(len(t.requests) for t in result.ticks))


def verdict(facts: Facts) -> str:
    """What the sweep shows, computed from it."""
    head = _("In this batched loop, at batch size 1 speculative decoding ran **{first:.2f}×** as fast as the "
             "target alone in the same loop; at batch size {last_b} **{last:.2f}×**.").format(
        first=facts.first, last=facts.last, last_b=facts.last_batch)
    if facts.crossover is not None and facts.crossover <= facts.first_batch:
        return head + " " + _("It did not pay at any batch size measured, not even for one request alone.")
    if facts.crossover and facts.first_low <= 1.0 <= facts.first_high:
        return head + " " + _("It was no faster from batch size **{b}** on; at batch size 1 its repeats ran "
                              "{low:.2f}–{high:.2f}×, so even there the gain is within their spread.").format(
            b=facts.crossover, low=facts.first_low, high=facts.first_high)
    if facts.crossover:
        return head + " " + _("It stopped paying at batch size **{b}**, the smallest measured size where "
                              "it was no faster.").format(b=facts.crossover)
    return head + " " + _("It paid at every batch size measured.")


def batch_one(facts: Facts) -> str:
    """Batch size 1's own prices, from the sweep: what a speculative round cost and brought."""
    return _("At batch size 1 a speculative round cost {v:.1f}× a pass of the target alone plus {d:.0f} ms of "
             "drafting, and brought {t:.2f} tokens.").format(v=facts.pass_ratio_1, d=facts.draft_ms_1,
                                                             t=facts.tokens_per_pass_1)


def beside_box(facts: Facts, box: Payoff | None, step_ms: float | None = None) -> str:
    """One line: the sweep's batch-size-1 speedup beside "Does it pay here?"'s figure for the same pair and
    settings, and where the batched loop's plain pass is much slower than this machine's profiled step
    (`step_ms`), that reason and which figure holds for one request (`shipped_why` says more where the
    sweep was shipped with the app)."""
    figure = None if box is None else box.measured.speedup if box.measured else box.predicted
    if figure is None:
        return _("At batch size {b}: {mine:.2f}×.").format(b=facts.first_batch, mine=facts.first)
    badge = badges.of(box.measured.cpu) if box.measured else badges.predicted()      # whose, in a badge
    ar = facts.ar_pass_ms_1
    if step_ms and ar and ar / step_ms >= SLOW_LOOP:     # the reason first (review 45: "the same pair and settings")
        return _("Why {mine:.2f}× and not the answer box's {box:.2f}×: this loop's pass of the target alone runs "
                 "transformers' layers, {ar:.1f} ms a pass, {ratio:.1f}× the lean step of {step:.1f} ms, and a "
                 "draft costs less beside a slower pass. For one request on the lean path “Does it pay here?” "
                 "holds: **{box:.2f}×** {badge}.").format(mine=facts.first, ar=ar, ratio=ar / step_ms, step=step_ms,
                                                          box=figure, badge=badge)
    if same_runs(facts, box):             # the box's own runs, one request at a time: the clock alone differs
        m = box.measured
        return _("At batch size 1 this loop serves the answer box's own runs one at a time, and they kept the same "
                 "{t:.2f} tokens a round: {mine:.2f}× here, {box:.2f}× {badge} in “Does it pay here?” (its repeats "
                 "{low:.2f}–{high:.2f}×). Only the clock differs.").format(
            t=m.tokens, mine=facts.first, box=figure, badge=badge, low=m.low, high=m.high)
    return _("At batch size {b}: {mine:.2f}×; “Does it pay here?” says {box:.2f}× {badge} for the same pair and "
             "settings.").format(b=facts.first_batch, mine=facts.first, box=figure, badge=badge)


def same_runs(facts: Facts, box: Payoff) -> bool:
    """The sweep's batch size 1 kept the tokens a round the box's measured runs kept (to the shown
    digits): the loop served the box's runs (bench/batching.requests: its prompts, seeds and length)."""
    m = box.measured
    return facts.first_batch == 1 and m is not None and m.tokens is not None and \
        round(m.tokens, 2) == round(facts.tokens_per_pass_1, 2)


def served(sweep: BatchSweep) -> str:
    """What the sweep timed, from its own record."""
    return _("This sweep served {r} requests ({n} prompts cycled, {tokens} new tokens each, their prompts' "
             "reading timed too) through the server's batched loop.").format(
        r=sweep.requests, n=sweep.prompts, tokens=sweep.max_new_tokens)


TIE = 0.03               # a batch within 3 % of the same requests one by one: one run cannot tell them apart
SLOW_LOOP = 1.5          # the batched loop's plain pass this many times the profiled step: the headline says so


def shipped_why(facts: Facts, sweep: BatchSweep, box: Payoff | None, step_ms: float | None) -> str:
    """Why a shipped sweep's batch-size-1 figure is not the box's, one point a line: where and
    under what load it ran, its own prices (a pass, drafting, tokens a round), its pass beside this
    machine's profiled step where it was much slower (a model the lean pass does not take, or a
    sweep from before batches took it), and the box's price of a round (`step_ms`: the profile's step)."""
    prov = sweep.provenance
    text = _("It ran on {machine} on {date}").format(machine=machine_name(prov.cpu) if prov.cpu else "?",
                                                    date=prov.date or "?")
    text += (_(", under load {load:.1f} per core (other work shared the cores), so its speedups are on CPU "
               "time.").format(load=sweep.load) if sweep.clock == Clock.CPU else
             _(", under load {load:.1f} per core.").format(load=sweep.load))
    lines = [text, _("Other text: the answer box's tokens a round come from other prompts and runs than this sweep's.")]
    ar = facts.ar_pass_ms_1
    own_round = facts.pass_ratio_1 + (facts.draft_ms_1 / ar if ar else 0.0)
    lines.append(_("Its own prices at batch size 1: a round cost {round:.2f} of its target-alone passes (the "
                   "pass {v:.2f}, drafting {d:.2f}) and kept {tokens:.2f} tokens.").format(
        round=own_round, v=facts.pass_ratio_1, d=own_round - facts.pass_ratio_1, tokens=facts.tokens_per_pass_1))
    if step_ms and ar and ar / step_ms >= SLOW_LOOP:     # a loop on the model's own forward (not the lean pass)
        lines.append(_("One pass of the target alone took {ar:.1f} ms there, {ratio:.1f} times this machine's profiled "
                       "step of {step:.1f} ms: a batch runs the model's own forward (transformers' layers under a "
                       "padded mask), where one request alone runs the engine's lean pass (on the integer kernels, "
                       "a layer in one call). Both columns of the sweep pay it alike.").format(
            ar=ar, step=step_ms, ratio=ar / step_ms))
    if box is not None and box.round_steps is not None:
        lines.append(_("The answer box prices a round at k·c + v(k + 1) = {k} × {c:.3f} + {v:.2f} = {steps:.2f} steps "
                       "of this machine and counts {tokens} tokens a round.").format(
            k=box.k, c=box.c, v=box.v, steps=box.round_steps, tokens=f"{box.tokens:.2f}" if box.tokens else "—"))
    return "\n".join("- " + line for line in lines)


def prefix_words(run: PrefixRun) -> str:
    """What the prefix cache reused and saved, in one sentence computed from its run."""
    saved, same = run.prefill_s - run.prefill_cached_s, _("yes") if run.identical else _("no")
    if saved > 0:
        return _("Of {total} prompt tokens, {reused} came from the prefix cache ({hits} of {n} requests found a kept "
                 "beginning): the prefills took {cached:.2f} s instead of {plain:.2f} s, {share:.0%} saved. Outputs "
                 "identical with and without it: {same}.").format(
            total=run.prompt_tokens, reused=run.reused, hits=run.hits, n=run.requests, cached=run.prefill_cached_s,
            plain=run.prefill_s, share=saved / run.prefill_s, same=same)
    return _("Of {total} prompt tokens, {reused} came from the prefix cache, but no prefill time was saved here "
             "({cached:.2f} s instead of {plain:.2f} s): copying the kept cache cost more than the tokens it spared. "
             "Outputs identical with and without it: {same}.").format(
        total=run.prompt_tokens, reused=run.reused, cached=run.prefill_cached_s, plain=run.prefill_s, same=same)


def latency_note(sweep: BatchSweep) -> str | None:
    """Where repeats of one batch size disagree on the wall clock by more than 10 per cent: by how
    much, and whether that is more than the latency moves between sizes (then its ups and downs
    there are the machine's load, not the batch's). None where they agree."""
    spreads = [max(r.seconds) / min(r.seconds) for r in sweep.rows if len(r.seconds) > 1 and min(r.seconds) > 0]
    if not spreads or max(spreads) < 1.1:
        return None
    moves = max(max(lat) / min(lat) for lat in
                ([r.latency_s for r in sweep.rows if r.mode == mode] for mode in {r.mode for r in sweep.rows}))
    text = _("Latency is timed on the wall clock, and two repeats of one batch size took up to {spread:.2f} times "
             "as long as each other").format(spread=max(spreads))
    if max(spreads) < moves:
        return text + "."
    return text + _(": more than the latency moves between batch sizes (at most {moves:.2f} times), so its ups "
                    "and downs there are within what the machine's load changed.").format(moves=moves)


def together_words(r: Together) -> str:
    """The tour's sentence on a batch against the same requests one by one."""
    text = _("{n} requests, {tokens} tokens: together {batch:.1f} s ({fast:.1f} tokens/s), one by one {alone:.1f} s "
             "({slow:.1f} tokens/s). {same} of {n} requests wrote token for token the text they wrote alone.").format(
        n=r.requests, tokens=r.tokens, batch=r.batch_s, fast=r.tokens / r.batch_s,
        alone=r.alone_s, slow=r.tokens / r.alone_s, same=r.same)
    ratio = r.alone_s / r.batch_s
    text += " " + (_("Together was {ratio:.2f}× faster: each pass read the weights once for every request.")
                   .format(ratio=ratio) if ratio > 1 + TIE else
                   _("Together took about the same time ({ratio:.2f}×): a few percent, which one run cannot tell from "
                     "the machine's noise.").format(ratio=ratio) if ratio >= 1 - TIE else   # review 46: "1.02× faster"
                   _("Together was not faster here ({ratio:.2f}× the time): on this CPU a pass costs more with every "
                     "row it holds (its arithmetic, not its reading of the weights, sets the price), so sharing "
                     "the weights saved little and the batch paid its own bookkeeping.").format(
                       ratio=r.batch_s / r.alone_s))
    if r.same < r.requests:
        text += " " + _("The others parted at a near-tie: a batched pass can round the last bits of p differently "
                        "from a lone one, and a draw that close to the line then falls the other way. Each text "
                        "still follows the target's distribution.")
    return text


def gpu_ends(context: int, points: tuple[tuple[int, float], ...]) -> str:
    """Where a predicted batch line ends up: the batch size it falls below break-even from, or its figure at the
    largest batch it stays above it to."""
    stop, (last, figure) = stops_paying(points), points[-1]
    n = f"{context:,}"
    if stop is not None:
        return _("requests of {n} tokens fall below break-even from batch size {b}").format(n=n, b=stop)
    return _("requests of {n} tokens stay above it up to batch size {b} ({x:.2f}× there)").format(
        n=n, b=f"{last:,}", x=figure)

