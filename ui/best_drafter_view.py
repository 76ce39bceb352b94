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
from specdec.prompts import round_robin
from specdec.settings import LENGTHS
from specdec.wording import times
from ui import family, payoff_view, state
from ui.examples import kind_name
from ui.i18n import _
from ui.lessons import badges, best_drafter, drafters, fast_draft_size, result_cache, shipped, store
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
    words = (_("When it is fast"), store.set_name(family.speed_set(chat), kind_name))
    if mine:
        return best_drafter.best_of([(p.draft, p.speedup) for p in sweep.points], True, *words)
    here = repriced.drafts(sweep.points, machine.of(pair)) if target == pair.target_name else []
    return best_drafter.best_of([(r.point.draft, r.speedup) for r in here], False, *words)


def compared(pair, settings, n: int = defaults.DRAFTERS_PROMPTS) -> Best | None:
    """The fastest drafter of Drafters compared over its `n` prompts of every kind."""
    target, drafts, policy_draft = family.of(pair)
    chat = family.chats(target)
    prompts = round_robin(family.prompt_set(chat), n)
    run = replace(settings, max_new_tokens=LENGTHS.drafters, seed=0)
    table, mine = _result("drafters", drafters.result_key(target, drafts, run, prompts, chat, state.ran()),
                          DrafterTable)
    if table is None:
        return None
    overall = [p for p in table.points if p.kind == ALL]
    words = (_("Drafters compared"), store.set_name(store.PromptSet.of([p.prompt for p in prompts], chat,
                                                                     LENGTHS.drafters, "drafters/all"), kind_name))
    if mine:
        return best_drafter.best_of([(p.drafter, p.speedup) for p in overall], True, *words)
    here = repriced.compared(overall, variants(drafts, policy_draft, run), run.k, machine.of(pair)) \
        if target == pair.target_name else []
    return best_drafter.best_of([(r.point.drafter, r.speedup) for r in here], False, *words)


def every_drafter(pair, settings, instead, n: int = defaults.DRAFTERS_PROMPTS) -> list[tuple[str, str, float, str]]:
    """Each drafter Drafters compared ran, fastest first, as (drafter, k, speedup, whose): measured here,
    else priced at this machine's prices, else (a draft-length policy, an early exit: no price here) as
    shipped with its badge; the box's other answer (the draft model at the k these prices pick) on top."""
    target, drafts, policy_draft = family.of(pair)
    chat = family.chats(target)
    run = replace(settings, max_new_tokens=LENGTHS.drafters, seed=0)
    table, mine = _result("drafters", drafters.result_key(target, drafts, run, round_robin(family.prompt_set(chat), n),
                                                          chat, state.ran()), DrafterTable)
    if table is None:
        return []
    overall = [p for p in table.points if p.kind == ALL]
    vs = {v.label: v for v in variants(drafts, policy_draft, run)}
    priced = {} if mine or target != pair.target_name else \
        {r.point.drafter: r.speedup for r in repriced.compared(overall, list(vs.values()), run.k, machine.of(pair))}
    rows = []
    for p in overall:
        k = f"{run.k}" if p.drafter not in vs or vs[p.drafter].policy == "constant" else f"≤ {run.k}"
        if mine:
            rows.append((drafter_name(p.drafter), k, p.speedup, badges.here()))
        elif p.drafter in priced:
            rows.append((drafter_name(p.drafter), k, priced[p.drafter], badges.predicted()))
        else:
            rows.append((drafter_name(p.drafter), k, p.speedup,
                         badges.shipped(table.provenance.cpu) + " " + _("not priced here")))
    top = [(drafter_name(instead[0].split("/", 1)[-1]), _("{k}, picked by this machine's prices").format(k=instead[1]),
            instead[2], badges.predicted())] \
        if instead else []
    return top + sorted(rows, key=lambda r: -r[2])


def table_markdown(rows) -> str:
    """The drafters' rows as a Markdown table (badges render there)."""
    head = [_("drafter"), "k", _("speedup"), _("whose")]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|---|"]
    return "\n".join(lines + [f"| {name} | {k} | **{times(x)}** | {whose} |" for name, k, x, whose in rows])


def render(pair, settings, n: int = defaults.DRAFTERS_PROMPTS, table: bool = False) -> None:
    """The sentence, where a set ranked drafters at these settings (nothing without a pair)."""
    if pair is None:
        return
    found = [b for b in (sizes(pair, settings), compared(pair, settings, n)) if b is not None]
    other = payoff_view.answer(pair, settings)[1] if pair.draft_name else None       # the box's other answer
    instead = (pair.draft_name, other.k, other.predicted) if other is not None and other.predicted else None
    if (said := best_drafter.sentence(found, settings.k, settings.temperature, instead)) is not None:
        st.markdown(said, help=best_drafter.help_text(found))
    if table and (rows := every_drafter(pair, settings, instead if instead and instead[2] > 1 else None, n)):
        st.markdown(table_markdown(rows))
