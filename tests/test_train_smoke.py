"""Training code smoke test: a tiny corpus, a tiny model, a few steps, then resume."""
import json

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from specdec.train import loop
from specdec.train.__main__ import prepare
from specdec.train.corpus import is_held_out
from specdec.train.family import Member


def write_corpus(root):
    for i in range(60):
        sub = root / ("encodings" if i == 0 else "pkg")
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"mod{i}.py").write_text(f'def f{i}(x):\n    """Return x plus {i}."""\n'
                                        f"    return x + {i}\n\nclass C{i}:\n    pass\n" * 3)


def test_prepare_train_and_resume(tmp_path, monkeypatch):
    write_corpus(tmp_path / "lib")
    data, out, work = tmp_path / "data", tmp_path / "out", tmp_path / "work"
    stats = prepare(data, vocab_size=300, root=tmp_path / "lib")
    assert stats["train_files"] + stats["held_out_files"] == 59          # encodings/ excluded
    assert stats["held_out_files"] == sum(is_held_out(f"pkg/mod{i}.py") for i in range(1, 60))
    tiny = Member("tiny", 1, 32, 2, 64, tokens=4 * 2 * 32, lr=3e-3)
    monkeypatch.setattr(loop, "CKPT_EVERY", 2)
    logs = []
    result = loop.train_member(tiny, data, out, work, batch=2, seq_len=32, log=logs.append)
    assert any("step 4/4" in line for line in logs)
    assert torch.isfinite(torch.tensor(result["held_out_loss"]))
    model = AutoModelForCausalLM.from_pretrained(out / "tiny")
    tok = AutoTokenizer.from_pretrained(out / "tiny")
    assert next(model.parameters()).dtype == torch.float16                # stored as float16
    assert tok("def f(")["input_ids"][0] == tok.eos_token_id               # EOT prefix, like training
    assert json.loads((out / "tiny" / "training.json").read_text())["tokens"] == 256
    logs.clear()
    loop.train_member(tiny, data, out, work, batch=2, seq_len=32, log=logs.append)
    assert "steps 4->4" in logs[0]                                          # resumed from checkpoint
