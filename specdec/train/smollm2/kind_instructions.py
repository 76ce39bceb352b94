"""A third set of training instructions, one per kind of the held-out chat set, phrased the way
those prompts are (`selfgen --set kinds`).

`smollm2/draft` agreed with the target on 63 % of held-out answers to its own kind of
instruction but on 52 % of the hand-written chat prompts' answers (summarise, translation and
passage-qa lowest). This set follows the chat set's eight kinds — code, edit, structured,
summarise, passage-qa, arithmetic, creative, translation — and their shapes: short one-line
requests ("Python: a function …", "Haiku: …", "Translate to Spanish: …") beside long ones
with a constraint at the end ("… Explain each step.", "… Keep the behaviour the same."),
code to edit in a fenced block after a one-line request, a passage followed by
"Question: …", a short "Passage: … Question: …" pair, multi-step word problems, emails and
instructions to translate. Every kind gets the same share (instruction i is of kind i mod 8).

All text here is written for this set or generated from templates and word lists (fixed seed);
the long passages are the target's own explanatory answers from the committed shards made
before this set (`chat_instructions.answer_passages`, shards below FIRST_SHARD) and a few
short paragraphs written here on other subjects than the chat set's. It shares no text with
the held-out prompts: no word 6-gram of theirs occurs here (`tests/test_smollm2_data.py`).
Shards of this set start at FIRST_SHARD (200), clear of the earlier sets' 0-155.
"""
from __future__ import annotations

import random
from pathlib import Path

from specdec.train.smollm2.kinds.arithmetic import arithmetic
from specdec.train.smollm2.kinds.code import code
from specdec.train.smollm2.kinds.creative import creative
from specdec.train.smollm2.kinds.edit import edit
from specdec.train.smollm2.kinds.passages import passage_qa, summarise
from specdec.train.smollm2.kinds.structured import structured
from specdec.train.smollm2.kinds.translation import translation

KINDS = ("code", "edit", "structured", "summarise", "passage-qa", "arithmetic", "creative", "translation")
FIRST_SHARD = 200
SEED = 27


# ---------------------------------------------------------------- the set
def instruction(kind: str, rng: random.Random, texts: list[str]) -> str:
    if kind == "summarise":
        return summarise(rng, texts)
    if kind == "passage-qa":
        return passage_qa(rng, texts)
    return {"code": code, "edit": edit, "structured": structured, "arithmetic": arithmetic,
            "creative": creative, "translation": translation}[kind](rng)


def build(n: int, texts: list[str], seed: int = SEED) -> list[str]:
    """n distinct instructions, kind i mod 8 for the i-th; deterministic for (n, texts, seed).
    A kind whose templates run out of new instructions is skipped from then on."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    misses = dict.fromkeys(KINDS, 0)
    i = 0
    while len(seen) < n:
        live = [k for k in KINDS if misses[k] < 200]
        if not live:
            raise ValueError(f"only {len(seen)} distinct instructions")
        kind = live[i % len(live)]
        text = instruction(kind, rng, texts)
        if text in seen:
            misses[kind] += 1
            continue
        seen[text] = None
        i += 1
    return list(seen)


def kind_passages(folder: Path, tokenizer) -> list[str]:
    """The target's explanatory answers (chat_instructions.answer_passages' choice) from the
    committed shards made before this set (below FIRST_SHARD), so the set stays the same as
    its own shards are added."""
    import tempfile

    from specdec.train.smollm2.chat_instructions import answer_passages
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(folder.glob("shard_*.tokens.npz")):
            if int(path.name.split("_")[1].split(".")[0]) < FIRST_SHARD:
                (Path(tmp) / path.name).symlink_to(path.resolve())
        return answer_passages(Path(tmp), tokenizer)
