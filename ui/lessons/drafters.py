"""Drafters compared: the store key of each measured point (specdec/bench/compared.py measures)."""
from __future__ import annotations

from dataclasses import replace

from specdec.bench.compared import ALL, Variant
from specdec.prompts import Prompt
from specdec.settings import Settings
from ui.lessons import store

# "Every drafter's numbers": what fits a 1400 px window inside its expander (a run measured here
# adds its clock, wall-clock speedup and repeats: the captions say them and the CSV keeps them)
ALL_COLUMNS = ("drafter", "acceptance_rate", "mean_acceptance_length", "c", "speedup", "speedup_min", "speedup_max")


def figure_key(target: str, settings: Settings, all_variants: list[Variant], prompts: list[Prompt], chat: bool,
               ran: store.Ran = store.DEFAULT_RAN):
    """The store key (ui/lessons/store.py) of a point: its variant's draft, drafter and policy, on
    the prompts of the point's kind (ALL: every prompt)."""
    by_label = {v.label: v for v in all_variants}

    def key_of(point):
        v = by_label.get(point.drafter)
        if v is None:
            return None
        texts = [p.prompt for p in prompts if point.kind in (ALL, p.kind)]
        s = replace(settings, drafter=v.drafter, policy=v.policy)
        return store.key(target, v.draft, s, s.k, store.PromptSet.of(texts, chat, settings.max_new_tokens,
                                                                  f"drafters/{point.kind}"), point.clock, ran)
    return key_of
