"""The bench's greedy check: at T = 0 the rows that run the same model must give the same tokens;
where two do not, the first differing position and how close the target's top two were there."""
from __future__ import annotations

from dataclasses import replace

import torch

from specdec.bench.record import Mismatch, RowKind, Setting
from specdec.engine.prompt import encode_prompt
from specdec.models import precision
from specdec.models.backend import Backend
from specdec.rules.sampling import NEAR_TIE

PEERS = RowKind.LLAMA, RowKind.LLAMA_LOOKUP


def greedy_mismatches(outputs: dict[str, list[list[int]]]) -> list[Mismatch]:
    """Prompts where the rows' greedy outputs differ: the first differing position per row
    (Mismatch without the target's gap there: check() measures it)."""
    names = list(outputs)
    found = []
    for i, reference in enumerate(outputs[names[0]]):
        for name in names[1:]:
            other = outputs[name][i]
            if other != reference:
                at = next((j for j, (a, b) in enumerate(zip(reference, other)) if a != b),
                          min(len(reference), len(other)))
                found.append(Mismatch(i, name, names[0], at))
    return found


@torch.no_grad()
def top2_gap(pair, prompt, reference: list[int], position: int) -> float:
    """The target's top-2 probability gap where two greedy outputs first differ (prompt: text
    or chat, encoded as the engine encodes it)."""
    ids = encode_prompt(pair, prompt)[1] + reference[:position]
    probs = pair.target(torch.tensor([ids], device=pair.device)).logits[0, -1].float().softmax(-1)
    top = probs.topk(2).values.tolist()
    return top[0] - top[1]


def explain(gap: float) -> str:
    kind = "a near-tie that float rounding can flip" if gap < NEAR_TIE else "not a near-tie: investigate"
    return f"top-2 gap {gap:.2e} ({kind})"


def check(pair, prompts, measured: dict, entry: Setting) -> Setting:
    """T = 0: the rows that must agree token for token, where they do not, and how close the
    target's top two were there."""
    groups, why = comparable(pair, measured)
    found = []
    for mm in (mm for group in groups for mm in greedy_mismatches(group)):
        ref = measured[mm.reference][0].outputs[mm.prompt]
        gap = top2_gap(pair, prompts[mm.prompt], ref, mm.position)
        found.append(replace(mm, gap=gap, why=explain(gap)))
    return replace(entry, identical=not found, mismatches=tuple(found),
                   not_compared={str(name): w for name, w in why.items()})


def comparable(pair, measured: dict) -> tuple[list[dict], dict[str, str]]:
    """Groups of rows whose greedy outputs must agree token for token — the rows on the pair's
    backend, and the rows of the target's own modules (torch) — and why the others are not compared."""
    why = {p: "llama.cpp returns text; its own precision and kernels" for p in PEERS}
    why[RowKind.GENAI] = "the builder's own graph: its one-row attention gives other logits (models/onnx_graph.py)"
    if precision.of(pair.target) != precision.Precision.FLOAT32:
        why[RowKind.USER_LOADED] = (f"float32, while the engine's target multiplies in {precision.of(pair.target)}: "
                            "another model at the last bits")
    elsewhere = {RowKind.AR, RowKind.SPEC, RowKind.SPEC_DEFAULTS} if pair.passes.name != Backend.TORCH else set()
    groups = [{n: m[0].outputs for n, m in measured.items() if n in elsewhere},
              {n: m[0].outputs for n, m in measured.items() if n not in elsewhere and n not in why}]
    return [g for g in groups if len(g) > 1], {n: w for n, w in why.items() if n in measured}
