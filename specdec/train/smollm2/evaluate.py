"""Measure the SmolLM2 drafts on held-out chat prompts (the card they fill: model_card.py).

    python -m specdec.train.smollm2.evaluate --prompts 24 --tokens 64     # -> build/smollm2_eval.json
    python -m specdec.train.smollm2.evaluate --merge run1.json run2.json  # repeated runs -> medians and ranges
    python -m specdec.train.smollm2.evaluate --card     # -> assets/models/smollm2/README.md + eval.json

Per draft (learned drafts, early exit at a few depths, n-gram lookup): parameters, the
cost ratio c (draft step ms / target 1-token step ms, measure.cost_ratio, one thread),
greedy agreement (share of the target's greedy answer positions where the draft's
argmax is the target's), acceptance rate and mean acceptance length at k = 4 for T = 0
and T = 1, and the wall-clock speedup over the target alone on the same prompts.
The prompts are `assets/prompts_chat.json`, which no training step saw.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch

from specdec.bench.measure import step_ms
from specdec.chat import user_turn
from specdec.files import atomic
from specdec.models import kernels
from specdec.models.packed import packed_count
from specdec.prompts import load_prompts, round_robin
from specdec.trace.survival import conditional
from specdec.train.smollm2.model_card import CARD, MEASURED, card, merge, training_records

OUT = Path("build/smollm2_eval.json")
TARGET = "smollm2/target"


def draft_logits(pair, seq: torch.Tensor) -> torch.Tensor:
    """(T, V): row i is the draft's guess for s_{i+1}. A feature draft reads the target's
    features: its pair j = (f_j, s_{j+1}) guesses s_{j+2}, so its rows start at i = 1
    (row 0 is the target's own first guess, which such a draft never makes: -inf)."""
    if not pair.reads_features:
        return pair.draft(input_ids=seq).logits[0]
    feats = pair.target.get_decoder()(input_ids=seq).last_hidden_state                # (1, T, H)
    rows = pair.draft(seq[:, 1:], features=feats[:, :-1], use_cache=False).logits[0]  # (T-1, V)
    return torch.cat([torch.full_like(rows[:1], float("-inf")), rows])


def coverage(pair, answers) -> tuple[int, float]:
    """(the draft's vocabulary size, share of the target's greedy answer tokens inside it)."""
    keep = set(pair.draft.keep_ids.tolist())
    tokens = [t for answer in answers for t in answer]
    return len(keep), sum(t in keep for t in tokens) / max(1, len(tokens))


@torch.no_grad()
def agreement_hits(pair, chats, answers) -> list[list[bool]]:
    """Teacher-forced, per chat and answer position: does the draft's argmax equal the
    target's next greedy token?"""
    from specdec.chat import render
    out = []
    for chat, answer in zip(chats, answers):
        _, ids = render(pair.tokenizer, chat)
        seq = torch.tensor([ids + list(answer[:-1])])                                 # (1, T)
        logits = draft_logits(pair, seq)[len(ids) - 1:, :pair.vocab_size]              # (A, V)
        out.append((logits.argmax(-1) == torch.tensor(answer)).tolist())
    return out


def share(hits: list[list[bool]]) -> float:
    return sum(map(sum, hits)) / max(1, sum(map(len, hits)))


def share_after(hits: list[list[bool]], previous: bool) -> float | None:
    """Agreement at the positions whose previous position was a hit (True) or a miss (False)."""
    pairs = [b for h in hits for a, b in zip(h, h[1:]) if a == previous]
    return sum(pairs) / len(pairs) if pairs else None


def agreement_by_kind(kinds: list[str], hits: list[list[bool]]) -> dict[str, float]:
    return {kind: share([h for h, k in zip(hits, kinds) if k == kind]) for kind in dict.fromkeys(kinds)}


def timed_runs(pair, chats, settings):
    """(tokens/s over all chats, rounds, outputs, per chat (tokens, seconds, rounds))."""
    import specdec
    tokens, seconds, rounds, outs, each = 0, 0.0, [], [], []
    for i, chat in enumerate(chats):
        t0 = time.perf_counter()
        run = specdec.generate(pair, chat, settings, seed=i, lean=True)
        dt = time.perf_counter() - t0
        seconds += dt
        tokens, rounds, outs = tokens + len(run.token_ids), rounds + list(run.rounds), outs + [run.token_ids]
        each.append((len(run.token_ids), dt, list(run.rounds)))
    return tokens / seconds, rounds, outs, each


def by_kind(kinds: list[str], each: list, base_each: list) -> dict:
    """Per kind of prompt: acceptance, mean acceptance length, speedup (tokens/s ratio)."""
    from specdec.trace.metrics import summarize
    out = {}
    for kind in dict.fromkeys(kinds):
        idx = [i for i, k in enumerate(kinds) if k == kind]
        m = summarize([r for i in idx for r in each[i][2]])
        rate = sum(each[i][0] for i in idx) / sum(each[i][1] for i in idx)
        base = sum(base_each[i][0] for i in idx) / sum(base_each[i][1] for i in idx)
        out[kind] = {"acceptance_rate": m.acceptance_rate, "mean_acceptance_length":
                     m.mean_acceptance_length, "speedup": rate / base}
    return out


def row(label, pair, chats, base, settings, c, params, kinds) -> dict:
    from specdec.trace.metrics import summarize
    out = {"draft": label, "params": params, "c": c}
    for t in (0.0, 1.0):
        tps, rounds, outs, each = timed_runs(pair, chats, replace(settings, temperature=t))
        m = summarize(rounds)
        out[f"T{t:g}"] = {"acceptance_rate": m.acceptance_rate, "mean_acceptance_length":
                          m.mean_acceptance_length, "speedup": tps / base[t][0],
                          "tokens_per_s": tps, "identical_to_target": outs == base[t][1] if t == 0 else None,
                          "by_kind": by_kind(kinds, each, base[t][2]), "per_check": conditional(rounds)}
    return out


def evaluate(n_prompts: int, tokens: int, drafts: list[str], exits: list[int]) -> dict:
    import specdec
    torch.set_num_threads(1)
    prompts = round_robin(load_prompts("chat"), n_prompts)
    chats, kinds = [user_turn(p.prompt) for p in prompts], [p.kind for p in prompts]
    settings = specdec.Settings(k=4, max_new_tokens=tokens)
    target = specdec.load_pair(TARGET, None)
    target_ms = step_ms(target.target, target.vocab_size)
    base = {t: [timed_runs(target, chats, replace(settings, temperature=t, mode="autoregressive"))[i]
                for i in (0, 2, 3)] for t in (0.0, 1.0)}         # tokens/s, outputs, per chat
    answers = base[0.0][1]
    rows = []
    for name in drafts:
        pair = specdec.load_pair(TARGET, name)
        c = step_ms(pair.draft, pair.vocab_size) / target_ms
        r = row(name, pair, chats, base, settings, c, sum(p.numel() for p in pair.draft.parameters()), kinds)
        vocab, covered = coverage(pair, answers)
        hits = agreement_hits(pair, chats, answers)
        rows.append({**r, "greedy_agreement": share(hits), "agreement_by_kind": agreement_by_kind(kinds, hits),
                     "agreement_after_hit": share_after(hits, True),
                     "agreement_after_miss": share_after(hits, False),
                     "vocab": vocab, "vocab_coverage": covered,
                     "bf16_linears": packed_count(pair.draft, torch.bfloat16)})
    for layers in exits:
        view = specdec.Settings(k=4, max_new_tokens=tokens, drafter="early-exit", exit_layer=layers)
        from specdec.drafters.early_exit import early_exit_model
        ee = early_exit_model(target.target, layers)
        c = step_ms(ee, target.vocab_size) / target_ms
        early = specdec.make_pair(target.target, ee, target.tokenizer, TARGET, f"early exit {layers}")
        r = row(f"early exit after layer {layers}", target, chats, base, view, c, 0, kinds)
        rows.append({**r, "greedy_agreement": share(agreement_hits(early, chats, answers))})
    ngram = replace(settings, drafter="ngram")
    rows.append({**row("n-gram lookup", target, chats, base, ngram, 0.0, 0, kinds), "greedy_agreement": None})
    return {"machine": platform.processor() or platform.machine(), "date": time.strftime("%Y-%m-%d"),
            "threads": 1, "prompts": len(chats), "max_new_tokens": tokens, "k": 4,
            "target_step_ms": target_ms, "packed_linears": packed_count(target.target),
            "target_kernels": kernels.describe(target.target), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.smollm2.evaluate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompts", type=int, default=24)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--drafts", default="smollm2/draft,smollm2/draft-2l")
    ap.add_argument("--exits", default="4,8")
    ap.add_argument("--card", action="store_true", help=f"write {CARD} and {MEASURED} from {OUT}")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help=f"runs of this evaluation (earlier {OUT} files) -> one, in {OUT}")
    args = ap.parse_args(argv)
    if args.merge:
        atomic.write_text(OUT, json.dumps(merge([json.loads(Path(f).read_text()) for f in args.merge]),
                                          indent=1) + "\n")
        return 0
    if args.card:
        atomic.write_text(MEASURED, OUT.read_text())
        atomic.write_text(CARD, card(json.loads(MEASURED.read_text()), training_records()))
        return 0
    result = evaluate(args.prompts, args.tokens, [d for d in args.drafts.split(",") if d],
                      [int(x) for x in args.exits.split(",") if x])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(OUT, json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
