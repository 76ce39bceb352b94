"""Drafters compared: every embedded draft, n-gram lookup and the draft-length policies,
on the same prompts against the same target; overall and per kind of text."""
from __future__ import annotations

from dataclasses import dataclass, replace

from specdec.measure import cost_ratio, timed
from specdec.metrics import summarize
from specdec.prompts import Prompt
from specdec.settings import Settings


@dataclass(frozen=True)
class Variant:
    label: str
    draft: str | None        # None: no draft model (n-gram)
    drafter: str = "model"
    policy: str = "constant"


def variants(drafts: list[str], policy_draft: str) -> list[Variant]:
    out = [Variant(d.split("/", 1)[-1], d) for d in drafts]
    out.append(Variant("n-gram lookup", None, drafter="ngram"))
    out += [Variant(f"{policy_draft.split('/', 1)[-1]} · {p}", policy_draft, policy=p)
            for p in ("heuristic", "confidence")]
    return out


def _rows(label: str, spec_by_kind: dict, base_by_kind: dict, c: float) -> list[dict]:
    rows = []
    for kind in ["all"] + sorted(k for k in spec_by_kind if k != "all"):
        spec, base = spec_by_kind[kind], base_by_kind[kind]
        m = summarize(spec["rounds"])
        rows.append({"drafter": label, "kind": kind, "acceptance_rate": m.acceptance_rate,
                     "mean_acceptance_length": m.mean_acceptance_length, "c": c,
                     "speedup": (spec["tokens"] / spec["seconds"]) / (base["tokens"] / base["seconds"])})
    return rows


def _by_kind(pair, prompts: list[Prompt], settings: Settings) -> dict:
    """Pooled tokens, seconds and rounds per kind (and 'all')."""
    out: dict = {}
    for p in prompts:
        t = timed(pair, [p.prompt], settings)
        for kind in (p.kind, "all"):
            acc = out.setdefault(kind, {"tokens": 0, "seconds": 0.0, "rounds": []})
            acc["tokens"] += t.tokens
            acc["seconds"] += t.seconds
            acc["rounds"] += list(t.rounds)
    return out


def compare(load, target: str, all_variants: list[Variant], prompts: list[Prompt],
            settings: Settings, progress) -> list[dict]:
    total = len(all_variants) + 1
    progress(0, total, "autoregressive baseline")
    base = _by_kind(load(target, None), prompts, replace(settings, mode="autoregressive"))
    rows = []
    for i, v in enumerate(all_variants):
        progress(i + 1, total, v.label)
        pair = load(target, v.draft)
        spec = _by_kind(pair, prompts, replace(settings, drafter=v.drafter, policy=v.policy))
        rows += _rows(v.label, spec, base, cost_ratio(pair)[0] if v.draft else 0.0)
    progress(total, total, "done")
    return rows
