"""The chat prompt set and the drafts' training instructions: shape, balance, no overlap."""
from collections import Counter

from specdec.prompts import kinds_of, load_prompts, round_robin
from specdec.train.smollm2.instructions import build, passages


def test_chat_set_has_seven_kinds_with_short_and_long_prompts():
    prompts = load_prompts("chat")
    assert len(prompts) >= 60 and len(kinds_of(prompts)) >= 7
    for kind, n in Counter(p.kind for p in prompts).items():
        lengths = sorted(len(p.prompt) for p in prompts if p.kind == kind)
        assert n >= 6 and lengths[-1] >= 2.5 * lengths[0], kind     # short and long ones
    assert len({p.label for p in prompts}) == len(prompts)
    assert kinds_of(round_robin(prompts, 8)) == kinds_of(prompts)[:8]


def test_held_out_chat_prompts_share_nothing_with_training_instructions():
    """No training instruction contains a held-out prompt's text, and no held-out prompt
    quotes a training passage (a shared passage would leak answers)."""
    held = [p.prompt for p in load_prompts("chat")]
    train = build(2000)
    train_text = "\n".join(train)
    assert not [h for h in held if h in train_text]
    lines = {line for h in held for line in h.splitlines() if len(line) > 60}
    assert not [p for p in passages() if p in lines]
    assert len(set(train)) == len(train) == 2000


def test_no_committed_training_prompt_contains_a_held_out_chat_prompt():
    """What the drafts were actually trained on (the committed prompts of every selfgen
    shard, both instruction sets) never quotes a held-out chat prompt or its passage."""
    from pathlib import Path

    import numpy as np
    from transformers import AutoTokenizer
    root = Path(__file__).resolve().parent.parent
    tokenizer = AutoTokenizer.from_pretrained(root / "assets/models/smollm2/draft")
    shards = sorted((root / "assets/training/smollm2/gen").glob("shard_*.tokens.npz"))
    assert len(shards) >= 30
    trained = []
    for path in shards:
        d = np.load(path)
        offsets = np.concatenate([[0], np.cumsum(d["prompt_lens"])])
        trained += [tokenizer.decode(d["prompt_ids"][a:b].astype(np.int64)) for a, b in zip(offsets, offsets[1:])]
    text = "\n".join(trained)
    assert text.count("Translate into") > 50 and "Read the passage and answer" in text   # decoded
    held = [p.prompt for p in load_prompts("chat")]
    assert not [h for h in held if h in text]
    lines = {line for h in held for line in h.splitlines() if len(line) > 60}
    assert not [line for line in lines if line in text]


def _word_grams(text: str, n: int = 6) -> set[tuple[str, ...]]:
    import re
    words = re.findall(r"[a-z0-9']+", text.lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_kinds_set_shares_no_text_with_held_out_chat_prompts():
    """The set shaped like the chat set's eight kinds (kind_instructions.py, `selfgen --set
    kinds`) follows their phrasing but copies none of it: no held-out prompt, line or passage,
    and not even a run of six words of one, occurs in its instructions or its passages."""
    from pathlib import Path

    from transformers import AutoTokenizer

    from specdec.train.smollm2 import kind_instructions
    root = Path(__file__).resolve().parent.parent
    tokenizer = AutoTokenizer.from_pretrained(root / "assets/models/smollm2/draft")
    texts = kind_instructions.kind_passages(root / "assets/training/smollm2/gen", tokenizer)
    assert len(texts) > 500
    train = kind_instructions.build(4096, texts)
    assert len(set(train)) == len(train) == 4096
    assert train == kind_instructions.build(4096, texts)                  # deterministic
    held = [p.prompt for p in load_prompts("chat")]
    text = "\n".join(train + texts)
    assert not [h for h in held if h in text]
    lines = {line for h in held for line in h.splitlines() if len(line) > 30}
    assert not [line for line in lines if line in text]
    held_grams = set().union(*map(_word_grams, held))
    shared = {g for t in train + texts for g in _word_grams(t) & held_grams}
    assert not shared, sorted(shared)[:5]
    kinds = kind_instructions.KINDS
    assert len(kinds) == 8 and set(kinds) == set(kinds_of(load_prompts("chat")))
