"""The pair's figures from the sections beside the box's own measurements, as speed_table rows
(issue 51, the pair card): Home's races at the box's settings, Where it works' typical run, In a
server's batch-size-1 figure, Many drafts at once's chain and tree, and the benchmark's speculative rows —
each with its badge, its numbers and why it is not the box's figure."""
from __future__ import annotations

import statistics
from types import SimpleNamespace

from specdec.bench import batching, machine
from specdec.bench.record import BatchSweep, RowKind
from specdec.wording import _, times
from ui.lessons import badges, result_cache, shipped
from ui.lessons.pair_card import Numbers
from ui.lessons.speed_table import Asked, SpeedRow, moved, priced, shipped_same
from ui.lessons.speed_words import k_words_of, setting_words, spread, t_and_k
from ui.lessons.trees import PROMPTS, ChainOrTree


def race_rows(asked: Asked, races: tuple[float, ...], numbers: Numbers | None = None) -> list[SpeedRow]:
    """Home's races at the box's settings on one prompt (newest first): their median and range, and
    the newest race's `numbers` (acceptance, tokens a round, c, v)."""
    if not races:
        return []
    s, figure = asked.settings, statistics.median(races)
    return [SpeedRow(badges.here(), _("Home's race"), spread(figure, min(races), max(races)),
                     setting_words(s.temperature, asked.k_words(), _("one prompt, {n} race(s)").format(n=len(races))),
                     _("the answer box's answer on Home: races on one prompt, live"), figure, True, numbers, mine=True)]


def where_rows(asked: Asked, t, profile: machine.Profile | None) -> list[SpeedRow]:
    """Where it works' figure over all its prompts at these settings, measured here or shipped."""
    if t is None or t.speedup is None:
        return []
    s = asked.settings
    differ = asked.policy_reason(s.k) + [_("other prompts (every kind)")]
    if t.measured != "here":
        differ.append(moved(t, asked, profile, s.k, t.measured))
    mine = t.measured == "here" or shipped.alike(t.measured)        # stands as measured: not priced again
    return [SpeedRow(badges.here() if t.measured == "here" else badges.shipped(t.measured),
                     _("Where it works"), times(t.speedup),
                     _("T = {t:g}, k = {k}, {n} prompts of every kind").format(t=s.temperature, k=s.k, n=t.prompts),
                     "; ".join(differ), t.speedup if mine else priced(t, asked, profile, s.k),
                     shipped_same(asked, s.temperature, s.k), Numbers.of(t), priced(t, asked, profile, s.k), mine)]


def bench_rows(asked: Asked, bench, mine: bool, profile: machine.Profile | None = None) -> list[SpeedRow]:
    """The benchmark's speculative row of each (T, k) it ran with this pair and the box's drafter
    (`bench`: a record.Bench; `mine`: measured here, else shipped), its figure at this machine's prices."""
    if bench is None or (bench.target, bench.draft, bench.drafter) != (asked.target, asked.draft,
                                                                        asked.settings.drafter):
        return []
    out = []
    for s in bench.settings:
        if (r := s.row(RowKind.SPEC)) is None or r.speedup is None:
            continue
        p = SimpleNamespace(k=s.k, mean_acceptance_length=r.mean_acceptance_length)
        measured = mine or shipped.alike(bench.provenance.cpu)       # stands as measured: not priced again
        here = r.speedup if measured else priced(p, asked, profile, s.k)
        prompts = _("{n} held-out chats × {t} tokens (the benchmark)").format(n=bench.prompts, t=bench.max_new_tokens)
        differ = (asked.policy_reason(s.k) + t_and_k(s.temperature, s.k, asked.settings.temperature,
                                                      asked.k_against(s.k))
                  + [_("other prompts")]
                  + ([] if mine else [moved(p, asked, profile, s.k, bench.provenance.cpu)])
                  + ([_("priced for its rounds alone: the benchmark kept no prefill")]
                     if here and not measured else []))
        out.append(SpeedRow(badges.here() if mine else badges.shipped(bench.provenance.cpu, date=bench.provenance.date),
                            _("When it is fast (the benchmark)"), times(r.speedup),
                            setting_words(s.temperature, k_words_of(s.k, "constant"), prompts), "; ".join(differ),
                            here, False, Numbers(r.acceptance_rate, r.alpha, r.mean_acceptance_length, bench.c,
                                                 s.verify_cost), priced(p, asked, profile, s.k), measured))
    return out


def server_rows(asked: Asked, profile: machine.Profile | None = None) -> list[SpeedRow]:
    """In a server's batch-size-1 figure for the pair at the box's T and k, newest kept, else shipped,
    with what its batched loop paid (`profile`: this machine's step beside its plain pass)."""
    kept = [(key, r, None) for key, r in result_cache.kept("server_sweep", BatchSweep)]
    found = kept + [(key, r, r.provenance.cpu or "?") for key, r in shipped.all_of("server_sweep", BatchSweep)]
    for key, sweep, cpu in found:
        if key.get("pair") == [asked.target, asked.draft] and (sweep.k, sweep.temperature) == (
                asked.settings.k, asked.settings.temperature):
            facts = batching.facts(sweep)
            why = _("a server's figure: {r} requests queued at once and served {b} at a time, tokens a second "
                    "over all of them").format(r=sweep.requests, b=facts.first_batch) + "; " + _server_prices(
                facts, profile)
            whose = badges.of(cpu, sweep.provenance.date if cpu else None)
            here = _server_here(facts, sweep.k, asked, profile)
            return [SpeedRow(whose, _("In a server"), times(facts.first),
                             _("T = {t:g}, k = {k}, {n} prompts × {tokens} tokens").format(
                                 t=sweep.temperature, k=sweep.k, n=sweep.prompts, tokens=sweep.max_new_tokens), why,
                             here, numbers=_server_numbers(facts, sweep.k), priced=here,
                             mine=cpu is None or shipped.alike(cpu))]
    return []


def _server_numbers(facts, k: int) -> Numbers:
    """A server's round at its smallest batch: tokens a round, and its draft and pass in its loop's
    plain passes (no acceptance rate or α̂: its loop counts passes, not drafts)."""
    c = facts.draft_ms_1 / (k * facts.ar_pass_ms_1) if facts.ar_pass_ms_1 and k else None
    return Numbers(tokens=facts.tokens_per_pass_1, c=c, v=facts.pass_ratio_1)


def _server_prices(facts, profile: machine.Profile | None) -> str:
    """What a server's round paid: its loop's plain pass (slower than the engine's lean step, so
    drafting weighs less), a round in those passes, and its tokens a round."""
    said = _("its batched loop's round cost {round:.2f} of its target-alone passes and kept {tokens:.2f} "
             "tokens").format(
        round=facts.pass_ratio_1 + (facts.draft_ms_1 / facts.ar_pass_ms_1 if facts.ar_pass_ms_1 else 0.0),
        tokens=facts.tokens_per_pass_1)
    if profile is not None and facts.ar_pass_ms_1:
        said += " " + _("(a target-alone pass there {ar:.1f} ms, {ratio:.1f}× this machine's step: a cheaper draft "
                        "by comparison)").format(ar=facts.ar_pass_ms_1, ratio=facts.ar_pass_ms_1 / profile.step_ms)
    return said


def _server_here(facts, k: int, asked: Asked, profile: machine.Profile | None) -> float | None:
    """A server's tokens a round at batch size 1 priced at this machine's c and v(k + 1), rounds only."""
    c = machine.draft_c(profile, "model", asked.draft) if profile is not None else None
    if c is None or k + 1 not in profile.v or not facts.tokens_per_pass_1:
        return None
    return facts.tokens_per_pass_1 / (k * c + profile.v[k + 1])


def tree_rows(asked: Asked, profile: machine.Profile | None = None) -> list[SpeedRow]:
    """Many drafts at once' chain (k = its budget) and tree against the target alone for the pair at the box's
    T, kept here else shipped: the chain priced at this machine's c and v like any constant k (rounds alone),
    the tree not (its draft forwards read several branches at once: not a chain's c)."""
    kept = [(key, r, None) for key, r in result_cache.kept("trees", ChainOrTree)]
    found = kept + [(key, r, r.provenance.cpu or "?") for key, r in shipped.all_of("trees", ChainOrTree)]
    for key, table, cpu in found:
        if key.get("pair") != [asked.target, asked.draft] or \
                key["settings"]["temperature"] != asked.settings.temperature:
            continue
        alone, chain, tree = table.rows
        whose, t, n = badges.of(cpu, table.provenance.date if cpu else None), asked.settings.temperature, table.budget
        prompts = _("{n} prompts × {t} tokens").format(n=PROMPTS, t=key["settings"]["max_new_tokens"])
        ratios = {r.kind: [x / a for x, a in zip(r.tokens_per_s, alone.tokens_per_s)] for r in (chain, tree)}
        differ = t_and_k(t, n, t, asked.k_against(n)) + [_("other prompts")]
        point = SimpleNamespace(k=n, mean_acceptance_length=chain.tokens_per_pass)
        chained = chain.median_tps / alone.median_tps
        mine = cpu is None or shipped.alike(cpu)                      # stands as measured: not priced again
        chain_why = differ + ([] if cpu is None else [moved(point, asked, profile, n, cpu)]) + (
            [_("priced for its rounds alone: Many drafts at once kept no prefill")]
            if not mine and priced(point, asked, profile, n) is not None else [])
        tree_why = [_("a tree of {n} nodes, width {w}: another drafter").format(n=n, w=table.width), _("other prompts")]
        tree_why += [] if cpu is None else [_("not priced here: a tree's draft forward reads several branches at "
                                              "once, which c does not price")]
        return [SpeedRow(whose, _("Many drafts at once"), spread(chained, min(ratios["chain"]), max(ratios["chain"])),
                         setting_words(t, k_words_of(n, "constant"), prompts), "; ".join(chain_why),
                         chained if mine else priced(point, asked, profile, n), False,
                         Numbers(tokens=chain.tokens_per_pass), priced(point, asked, profile, n), mine),
                SpeedRow(whose, _("Many drafts at once"), spread(tree.median_tps / alone.median_tps,
                                                                 min(ratios["tree"]), max(ratios["tree"])),
                         setting_words(t, _("a tree of {n} nodes").format(n=n), prompts), "; ".join(tree_why),
                         tree.median_tps / alone.median_tps if cpu is None else None, False,
                         Numbers(tokens=tree.tokens_per_pass), mine=mine)]
    return []
