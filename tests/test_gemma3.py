"""Gemma 3, the second family: a tiny Gemma 3 built from a config for the engine's logic (its
sliding-window layers), a tiny Gemma 3 GGUF through the conversion gemma3/target takes, the
chunked GGUF's assembly on a stand-in package and on the installed one."""
import hashlib
import sys
from pathlib import Path

import pytest
import torch
from transformers import Gemma3ForCausalLM, Gemma3TextConfig

import specdec
from specdec.chat import has_template
from specdec.models import assembled
from specdec.models.names import GEMMA_GGUF, GEMMA_PACKAGE

from tiny import char_tokenizer

ROOT = Path(__file__).resolve().parents[1]
WINDOW = 4                     # the tiny model's sliding window: every run below goes far past it


def tiny_gemma(seed: int, vocab: int) -> Gemma3ForCausalLM:
    """Two sliding-window layers and a full one (Gemma 3 alternates 5 and 1). An untied head:
    a tied one, under Gemma's scaled embeddings, repeats the last token whatever the seed."""
    torch.manual_seed(seed)
    cfg = Gemma3TextConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                           num_attention_heads=2, num_key_value_heads=1, head_dim=16, query_pre_attn_scalar=16,
                           max_position_embeddings=128, sliding_window=WINDOW, initializer_range=0.3,
                           layer_types=["sliding_attention", "sliding_attention", "full_attention"],
                           tie_word_embeddings=False, eos_token_id=None, bos_token_id=0, pad_token_id=0)
    return Gemma3ForCausalLM(cfg).eval()


@pytest.fixture(scope="module")
def tiny_gemma_pairs():
    tok = char_tokenizer()
    tok.eos_token = None                      # no end of sequence: every run makes all its tokens
    target, draft = tiny_gemma(3, len(tok)), tiny_gemma(5, len(tok))
    return (specdec.make_pair(target, draft, tok, "tiny-gemma", "tiny-gemma-draft"),
            specdec.make_pair(target, None, tok, "tiny-gemma", None))


TINY_PROMPTS = ["abc (d", "hhh gg\n", "fed cba", "(a)"]


@pytest.mark.parametrize("drafter", ["draft model", "ngram", "early-exit"])
def test_a_sliding_window_model_keeps_its_greedy_text_far_past_its_window(tiny_gemma_pairs, drafter):
    """transformers' own generate() (its sliding-window cache) is the reference; the engine's rounds
    roll back caches long after the window filled (a sliding layer's own crop refuses there)."""
    with_draft, alone = tiny_gemma_pairs
    pair = with_draft if drafter == "draft model" else alone
    extra = {} if drafter == "draft model" else {"drafter": drafter}
    if drafter == "early-exit":
        extra["exit_layer"] = 1
    rolled_back = 0
    for prompt in TINY_PROMPTS:
        ids = pair.tokenizer(prompt)["input_ids"]
        with torch.no_grad():
            ref = pair.target.generate(torch.tensor([ids]), max_new_tokens=24, do_sample=False)[0, len(ids):]
        run = specdec.generate(pair, prompt, k=3, temperature=0, max_new_tokens=24, **extra)
        assert list(run.token_ids) == ref.tolist(), prompt
        rolled_back += sum(r.caches.target_cropped > 0 and r.prefix_len > WINDOW for r in run.rounds)
    assert rolled_back > 0                       # some rejected drafts were cropped past the window


def test_every_cache_layer_of_a_sliding_window_model_keeps_every_position(tiny_gemma_pairs):
    from specdec.models.runtime import crop_cache, forward, new_cache
    pair = tiny_gemma_pairs[1]
    cache = new_cache(pair.target)
    ids = pair.tokenizer("abcdefgh abcdefgh")["input_ids"]                    # 17 positions
    forward(pair.target, ids, cache, pair.vocab_size)
    assert [layer.keys.shape[-2] for layer in cache.layers] == [len(ids)] * 3
    crop_cache(cache, 9)                                                      # past the window of 4
    again = forward(pair.target, ids[9:], cache, pair.vocab_size)
    whole = forward(pair.target, ids, new_cache(pair.target), pair.vocab_size)[9:]
    torch.testing.assert_close(again, whole, rtol=1e-5, atol=1e-5)


# --- the chunked GGUF, on a stand-in package with the real one's functions -------------------

STANDIN = '''
import hashlib
from pathlib import Path
HERE = Path(__file__).parent
EXPECTED_SHA256 = hashlib.sha256((HERE / "a.part").read_bytes() + (HERE / "b.part").read_bytes()).hexdigest()
made = []
def chunk_paths():
    return [HERE / "a.part", HERE / "b.part"]
def verify_chunks():
    missing = [str(p) for p in chunk_paths() if not p.exists()]
    if missing:
        raise FileNotFoundError("Missing chunk files: " + ", ".join(missing))
def assemble(output_path, overwrite=False):
    verify_chunks()
    made.append(output_path)
    Path(output_path).write_bytes(b"".join(p.read_bytes() for p in chunk_paths()))
    if hashlib.sha256(Path(output_path).read_bytes()).hexdigest() != EXPECTED_SHA256:
        raise ValueError("Assembled file sha256 did not match expected value")
    return Path(output_path)
'''


@pytest.fixture
def standin(tmp_path, monkeypatch):
    folder = tmp_path / "pkgs" / "standin_gguf"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(STANDIN)
    (folder / "a.part").write_bytes(b"GGUF" + bytes(range(200)))
    (folder / "b.part").write_bytes(bytes(range(100, 250)))
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.setitem(assembled.PACKAGES, "standin_gguf", "standin-gguf==1.0")
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path / "cache"))
    monkeypatch.delitem(sys.modules, "standin_gguf", raising=False)
    import standin_gguf
    return standin_gguf, folder


def test_the_pieces_are_put_together_once_and_again_when_the_file_changes(standin):
    package, folder = standin
    path = assembled.gguf_file("standin_gguf", "model.gguf")
    assert path == assembled.path_of("model.gguf") and len(package.made) == 1
    assert path.read_bytes() == (folder / "a.part").read_bytes() + (folder / "b.part").read_bytes()
    assert assembled.gguf_file("standin_gguf", "model.gguf") == path and len(package.made) == 1
    path.write_bytes(path.read_bytes()[:-1] + b"X")                 # damaged: the same size, other bytes
    assembled.gguf_file("standin_gguf", "model.gguf")
    assert len(package.made) == 2 and package.EXPECTED_SHA256 == __import__("hashlib").sha256(
        path.read_bytes()).hexdigest()
    assert not list(path.parent.glob(".*.tmp"))                     # the temporary file is gone


def test_a_missing_or_damaged_piece_is_one_clear_message(standin):
    package, folder = standin
    (folder / "b.part").write_bytes(b"other bytes")                 # not what EXPECTED_SHA256 says
    with pytest.raises(specdec.LoadError, match="could not put the pieces of model.gguf together.*reinstall"):
        assembled.gguf_file("standin_gguf", "model.gguf")
    assert not assembled.path_of("model.gguf").exists()
    (folder / "b.part").unlink()
    with pytest.raises(specdec.LoadError, match="not installed.*pip install standin-gguf==1.0"):
        assembled.gguf_file("standin_gguf", "model.gguf")


def test_a_package_that_is_not_installed_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(assembled.PACKAGES, "no_such_gguf_package", "no-such-gguf-package==1.0")
    with pytest.raises(specdec.LoadError, match="pip install no-such-gguf-package==1.0"):
        assembled.gguf_file("no_such_gguf_package", "x.gguf")


# --- a Gemma 3 GGUF through the conversion; the installed package's file ----------------------
# The real model is not converted here: transformers' GGUF reader takes about a minute of CPU over
# its 262,144-token vocabulary, which `make test` cannot afford (the conversion added 52 s to its
# first steps on 2 cores). scripts/gemma3_measure.py checks the real model's drafters instead.

def test_a_gemma3_gguf_converts_and_decodes_as_transformers_reads_it(tmp_path, monkeypatch):
    """A tiny Gemma 3 written by llama.cpp's own writer, through the same conversion as
    gemma3/target: its logits are transformers' own reading of the file, and n-gram and early-exit
    drafts keep the greedy text of transformers' generate() far past its window of 4."""
    from transformers import AutoModelForCausalLM

    from specdec.models.load import _auto_for
    from specdec.models.runtime import forward, new_cache

    from tiny_gguf import write_tiny_gemma3_gguf
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path / "cache"))
    (tmp_path / "files").mkdir()
    path = write_tiny_gemma3_gguf(tmp_path / "files" / "tiny-gemma3.gguf")
    pair = specdec.load_pair(str(path), None)
    assert pair.target.config.layer_types.count("full_attention") == 1 and not has_template(pair.tokenizer)
    direct = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32).eval()
    prompt = "ab ab abba\nab"
    ids = pair.tokenizer(prompt)["input_ids"]
    with torch.no_grad():
        theirs = direct(input_ids=torch.tensor([ids])).logits[0, :, :pair.vocab_size]
        ref = direct.generate(torch.tensor([ids]), max_new_tokens=16, do_sample=False)[0, len(ids):].tolist()
    torch.testing.assert_close(forward(pair.target, ids, new_cache(pair.target), pair.vocab_size), theirs,
                               rtol=1e-5, atol=1e-5)
    kept = 0
    for drafter in ("ngram", "early-exit"):
        run = specdec.generate(pair, prompt, k=3, temperature=0, max_new_tokens=16, drafter=drafter, exit_layer=2)
        assert list(run.token_ids) == ref[:len(run.token_ids)] and len(ref) >= len(run.token_ids) >= 1, drafter
        kept += sum(r.n_accepted for r in run.rounds)
    assert kept > 0
    assert _auto_for(str(path), "auto") == "float32"         # a gemma3 file: its weights as the file has them


def test_the_installed_package_puts_together_the_file_of_gemma3s_card(tmp_path, monkeypatch):
    """The real pieces, assembled into a fresh cache: the file's SHA-256 and size as the model card
    gives them, and the metadata of a base Gemma 3 270M (no chat template) that transformers reads."""
    from transformers.integrations.gguf import read_gguf_metadata

    from specdec.models.gguf import check_architecture
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path))
    path = assembled.gguf_file(GEMMA_PACKAGE, GEMMA_GGUF)
    assert path == tmp_path / "assembled" / GEMMA_GGUF and path.stat().st_size == 253_113_024
    card = (ROOT / "assets/models/gemma3/README.md").read_text()
    assert hashlib.sha256(path.read_bytes()).hexdigest() in card
    meta, tensors = read_gguf_metadata(str(path))
    assert (meta["general.architecture"], meta["gemma3.block_count"], meta["gemma3.embedding_length"],
            meta["gemma3.attention.sliding_window"], meta["tokenizer.ggml.tokens"]) == ("gemma3", 18, 640, 512, 262_144)
    assert "tokenizer.chat_template" not in meta and "output.weight" not in tensors    # base model; tied head
    check_architecture(path)                                  # one transformers reads from GGUF
    assert assembled.gguf_file(GEMMA_PACKAGE, GEMMA_GGUF).stat().st_mtime_ns == path.stat().st_mtime_ns   # kept


def test_auto_keeps_the_files_weights_where_the_integer_kernels_cannot_read_its_blocks():
    """Gemma 3's Q4_K_M layers are not blocks the integer kernels take: auto is float32 (its file's
    model), not a rounded copy; asked for by name, a precision is used; SmolLM2 keeps every candidate."""
    from specdec.models.load import _auto_for
    assert _auto_for("gemma3/target", "auto") == "float32"
    assert _auto_for("gemma3/target", "intdot") == "intdot"
    assert _auto_for("smollm2/target", "auto") == "auto" and _auto_for("stdlib/target", "auto") == "auto"


def test_make_runs_server_converts_gemma3_in_the_background_once(tmp_path, monkeypatch, capsys):
    """ui/server/serve.py: a low-priority process loads gemma3/target while it is not converted; once it
    is, nothing runs."""
    import subprocess
    from types import SimpleNamespace

    from specdec.models import names
    from specdec.models.names import converted_ready
    from ui.server import serve
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: calls.append(cmd) or SimpleNamespace(returncode=0))
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path))       # a machine where it was never converted
    assert not converted_ready("gemma3/target")
    serve._prepare_gemma3()
    assert len(calls) == 1 and calls[0][:3] == ["nice", "-n", "19"] and "load_model('gemma3/target')" in calls[0][-1]
    assert "Converting Gemma 3 270M" in capsys.readouterr().out
    monkeypatch.setattr(names, "converted_ready", lambda name: True)     # once it is converted
    serve._prepare_gemma3()
    assert len(calls) == 1
