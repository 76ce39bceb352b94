""""Best drafter here" (ui/lessons/best_drafter.py): the fastest drafter of each prompt set that ranks
drafters — When it is fast's draft sizes and Drafters compared — read from their results (kept
here, else shipped and priced at this machine's prices), said the same on both pages."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from specdec import defaults
from specdec.bench import machine, repriced
from specdec.bench.compared import ALL, DrafterTable, variants
from specdec.bench.points import Sweep
from specdec.defaults import K_MAX
from specdec.drafters.policies import PRICED
from specdec.prompts import round_robin
from specdec.settings import LENGTHS
from specdec.wording import times
from ui import family, payoff_answer, state
from ui.examples import kind_name
from ui.i18n import _
from ui.lessons import badges, best_drafter, drafters, fast_draft_size, result_cache, shipped, store, store_words
from ui.lessons.bench_words import drafter_name
from ui.lessons.best_drafter import Best


def _result(kind: str, key: dict, record):
    """(the result, measured here?): kept on this machine, else shipped ((None, False): neither)."""
    mine = result_cache.load(kind, key, record)
    return (mine, True) if mine is not None else (shipped.load(kind, key, record), False)


def sizes(pair, settings) -> Best | None:
    """The fastest of section 3's drafts (When it is fast's prompts)."""
    target, drafts = family.sizes(pair)
    chat = family.chats(target)
    texts = family.speed_prompts(chat)[0]
    run = replace(settings, max_new_tokens=LENGTHS.speed)
    sweep, mine = _result("tradeoff", fast_draft_size.result_key(target, drafts, run, texts, chat, state.ran(),
                                                                   family.too_big_exits(target)), Sweep)
    if sweep is None:
        return None
    words = (_("When it is fast"), store_words.set_name(family.speed_set(chat), kind_name))
    if mine or shipped.alike(sweep.provenance.cpu):        # measured: here, or on a machine like this one
        return best_drafter.best_of([(p.draft, p.speedup) for p in sweep.points], True, *words,
                                    cpu=None if mine else sweep.provenance.cpu)
    here = repriced.drafts(sweep.points, machine.of(pair)) if target == pair.target_name else []
    return best_drafter.best_of([(r.point.draft, r.speedup) for r in here], False, *words)


def _comparison(pair, settings, n: int):
    """Drafters compared's result at these settings over its `n` prompts, as (its every-prompt points,
    measured here?, its variants by label, its run settings, its target, its prompt set's words);
    None where neither this machine nor the app holds one."""
    target, drafts, policy_draft = family.of(pair)
    chat = family.chats(target)
    prompts = round_robin(family.prompt_set(chat), n)
    run = replace(settings, max_new_tokens=LENGTHS.drafters, seed=0)
    table, mine = _result("drafters", drafters.result_key(target, drafts, run, prompts, chat, state.ran()),
                          DrafterTable)
    if table is None:
        return None
    words = (_("Drafters compared"), store_words.set_name(store.PromptSet.of([p.prompt for p in prompts], chat,
                                                                     LENGTHS.drafters, "drafters/all"), kind_name))
    return ([p for p in table.points if p.kind == ALL], mine, {v.label: v for v in variants(drafts, policy_draft, run)},
            run, target, words, table.provenance.cpu)


def _priced(pair, overall, vs, run, target) -> dict[str, float]:
    """The drafters this machine has a price for, at its prices (label -> predicted speedup)."""
    if target != pair.target_name:
        return {}
    return {r.point.drafter: r.speedup for r in repriced.compared(overall, list(vs.values()), run.k, machine.of(pair))}


def compared(pair, settings, n: int = defaults.DRAFTERS_PROMPTS) -> Best | None:
    """The fastest drafter of Drafters compared over its `n` prompts of every kind."""
    if (found := _comparison(pair, settings, n)) is None:
        return None
    overall, mine, vs, run, target, words, cpu = found
    if mine or shipped.alike(cpu):
        return best_drafter.best_of([(p.drafter, p.speedup) for p in overall], True, *words,
                                    cpu=None if mine else cpu)
    return best_drafter.best_of(list(_priced(pair, overall, vs, run, target).items()), False, *words)


def every_drafter(pair, settings, n: int = defaults.DRAFTERS_PROMPTS) -> list[tuple[str, str, float, str]]:
    """Each drafter Drafters compared ran as (drafter, k, speedup, whose): measured here, else priced at
    this machine's prices, fastest first; then (a draft-length policy, an early exit: no price here) as
    shipped with its badge, fastest first, below them (another day's prices: not ranked among this
    machine's). One prompt set at one k: the k these prices pick is the sentence's, on other prompts."""
    if (found := _comparison(pair, settings, n)) is None:
        return []
    overall, mine, vs, run, target, _words, cpu = found
    measured = mine or shipped.alike(cpu)                  # here, or on a machine like this one: as measured
    priced = {} if measured else _priced(pair, overall, vs, run, target)
    rows, other = [], []
    for p in overall:
        k = _k_words(vs[p.drafter].policy if p.drafter in vs else "constant", run.k)
        if measured:
            rows.append((drafter_name(p.drafter), k, p.speedup, badges.of(None if mine else cpu)))
        elif p.drafter in priced:
            rows.append((drafter_name(p.drafter), k, priced[p.drafter], badges.predicted()))
        else:
            other.append((drafter_name(p.drafter), k, p.speedup, badges.shipped(cpu) + " " + _("not priced here")))
    return sorted(rows, key=lambda r: -r[2]) + sorted(other, key=lambda r: -r[2])


def _k_words(policy: str, k: int) -> str:
    """The k column of a row: a constant k; a policy that stops early, at most k; the heuristic, which starts
    at k and moves by +2 / −1 each round, past it (review 30: "≤ 1" beside 1.8 drafts a round)."""
    if policy == "constant":
        return f"{k}"
    if policy.split("@", 1)[0] == "heuristic":
        return _("from {k}, up to {most}").format(k=k, most=K_MAX)
    return f"≤ {k}"


def table_markdown(rows) -> str:
    """The drafters' rows as a Markdown table (badges render there)."""
    head = [_("drafter"), "k", _("speedup"), _("whose")]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|---|"]
    return "\n".join(lines + [f"| {name} | {k} | **{times(x)}** | {whose} |" for name, k, x, whose in rows])


def _instead(pair, settings) -> best_drafter.Instead | None:
    """The box's other answer (the draft model at the k this machine's prices pick): its speedup measured
    at that constant k where it was, here or on a machine like this one (a measurement replaces the
    prediction), else predicted."""
    if not pair.draft_name:
        return None
    box, other = payoff_answer.answer(pair, settings)
    other = box if settings.policy == PRICED else other          # the box drafts k by the prices itself
    if other is None or not other.predicted:
        return None
    if (m := payoff_answer.seen_at(pair, settings, other.k)) is not None:
        return best_drafter.Instead(pair.draft_name, other.k, m.speedup, True, m.cpu)
    return best_drafter.Instead(pair.draft_name, other.k, other.predicted, False)


def render(pair, settings, n: int = defaults.DRAFTERS_PROMPTS, table: bool = False) -> None:
    """The sentence, where a set ranked drafters at these settings (nothing without a pair)."""
    if pair is None:
        return
    ranked = replace(settings, policy="constant")   # the sets rank drafters at a constant k (policies: rows)
    found = [b for b in (sizes(pair, ranked), compared(pair, ranked, n)) if b is not None]
    instead = _instead(pair, settings)
    picked = replace(ranked, k=instead.k) if instead is not None and instead.k != settings.k else None
    at_pick = [b for b in (sizes(pair, picked), compared(pair, picked, n)) if b is not None] if picked else []
    if (said := best_drafter.sentence(found, settings.k, settings.temperature, instead, at_pick)) is not None:
        st.markdown(said, help=best_drafter.help_text(found))
    if table and (rows := every_drafter(pair, ranked, n)):    # one prompt set, one k: the sentence gives the
        st.markdown(table_markdown(rows))                               # k the prices pick (review 52: a k = 1 row on
                                                                        # 8 prompts ranked over k = 4 rows on 24)
