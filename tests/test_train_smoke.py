"""Training code smoke test: a tiny corpus, a tiny model, a few steps, then resume."""
import json

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from specdec.train.stdlib import loop
from specdec.train.stdlib.__main__ import prepare
from specdec.train.stdlib.corpus import is_held_out
from specdec.train.stdlib.family import Member


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


def test_warm_restart_schedule_and_resume(tmp_path, monkeypatch):
    phases = Member("m", 1, 32, 2, 64, tokens=200 * 64, lr=1e-3, restart=(300 * 64, 2e-3)).phases(64)
    assert phases == [(200, 1e-3), (300, 2e-3)]
    assert loop.lr_at(0, phases) == pytest.approx(1e-5)                     # warm-up from 1/100
    assert loop.lr_at(199, phases) == pytest.approx(1e-4, rel=0.01)                 # decayed to 10 % of peak
    assert loop.lr_at(200, phases) == pytest.approx(2e-5)                   # restart: warm-up again
    assert loop.lr_at(299, phases) == pytest.approx(2e-3)                   # ... to the new peak
    assert loop.lr_at(499, phases) == pytest.approx(2e-4, rel=0.01) and loop.lr_at(900, phases) == 2e-4
    write_corpus(tmp_path / "lib")
    data, out, work = tmp_path / "data", tmp_path / "out", tmp_path / "work"
    prepare(data, vocab_size=300, root=tmp_path / "lib")
    first = Member("tiny", 1, 32, 2, 64, tokens=4 * 2 * 32, lr=3e-3)
    monkeypatch.setattr(loop, "CKPT_EVERY", 2)
    loop.train_member(first, data, out, work, batch=2, seq_len=32, log=lambda _: None)
    longer = Member("tiny", 1, 32, 2, 64, tokens=4 * 2 * 32, lr=3e-3, restart=(2 * 2 * 32, 1e-3))
    logs = []
    result = loop.train_member(longer, data, out, work, batch=2, seq_len=32, log=logs.append)
    assert "steps 4->6" in logs[0] and result["tokens"] == 384              # continued, not restarted


def test_selfgen_batched_decoding_equals_one_prompt_at_a_time():
    """Left-padded rows that leave the batch as they finish: every greedy answer equals
    transformers' generate() on that prompt alone, and top-K rows match its log-probs."""
    from specdec.train.smollm2.selfgen import TOPK, decode, left_pad

    from tiny import tiny_llama
    model = tiny_llama(40, 2, seed=5, context=128).eval()
    eos = 13                                   # two rows end early, at different steps
    prompts = [[1, 2, 3, 4, 5, 6], [9, 3], [11, 12, 13, 14]]
    ids, mask = left_pad(prompts, eos)
    answers, tops = decode(model, ids, mask, greedy=True, seed=0, max_new=12, eos=eos)
    assert sorted(map(len, answers)) == [6, 7, 12]
    for prompt, answer, top in zip(prompts, answers, tops):
        out = model.generate(input_ids=torch.tensor([prompt]), max_new_tokens=12, do_sample=False,
                             eos_token_id=eos, pad_token_id=eos, output_logits=True,
                             return_dict_in_generate=True)
        assert answer == out.sequences[0, len(prompt):].tolist()
        ref = torch.stack(out.logits, 1)[0].float().log_softmax(-1).topk(TOPK)
        got = torch.stack([values for _, values in top])
        assert torch.allclose(got, ref.values, atol=1e-4)
    again, _ = decode(model, ids, mask, greedy=False, seed=3, max_new=12, eos=eos)
    assert again == decode(model, ids, mask, greedy=False, seed=3, max_new=12, eos=eos)[0]
