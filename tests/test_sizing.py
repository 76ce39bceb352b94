"""A model folder is sized before it is built (specdec/models/sizing.py): a config outside the
ceilings, or one whose float32 weights exceed free memory, is one LoadError before transformers
allocates a layer."""
import pytest
from transformers import LlamaConfig

from specdec.errors import LoadError
from specdec.models import load, sizing


@pytest.fixture
def never_built(monkeypatch):
    """Building the model would be the bug: any call to the weights' loader fails the test."""
    monkeypatch.setattr(load, "_weights", lambda *a, **k: pytest.fail("the model was built"))


def folder(tmp_path, **sizes):
    config = LlamaConfig(vocab_size=13, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=2)
    for key, value in sizes.items():
        setattr(config, key, value)
    config.save_pretrained(tmp_path)
    return str(tmp_path)


@pytest.mark.parametrize("field, value, limit", [
    ("num_hidden_layers", 10**9, "between 1 and 512"),
    ("vocab_size", 10**9, "between 1 and 1048576"),
    ("hidden_size", 10**6, "between 1 and 65536"),
    ("num_hidden_layers", 0, "between 1 and 512"),
])
def test_a_config_outside_the_ceilings_is_one_message_before_anything_is_built(tmp_path, never_built,
                                                                              field, value, limit):
    with pytest.raises(LoadError) as err:
        load.load_model(folder(tmp_path, **{field: value}))
    assert f"{field} = {value}" in str(err.value) and limit in str(err.value)


def test_weights_larger_than_free_memory_are_refused_with_both_sizes(tmp_path, never_built, monkeypatch):
    # 32 layers, width 4096, feed-forward 11008, 32k tokens (a 7B Llama): 6.74 billion weights, 25.1 GiB
    big = folder(tmp_path, num_hidden_layers=32, hidden_size=4096, intermediate_size=11008,
                 num_attention_heads=32, num_key_value_heads=32, vocab_size=32000, head_dim=128)
    monkeypatch.setattr(sizing, "free_bytes", lambda: 8 * 2**30)
    with pytest.raises(LoadError) as err:
        load.load_model(big)
    assert "6.7 billion parameters" in str(err.value) and "25.1 GiB" in str(err.value)
    assert "8.0 GiB of memory free" in str(err.value)


def test_the_parameter_estimate_matches_smollm2s_published_size():
    """SmolLM2-135M-Instruct: 134.5 million weights (its model card; tied embeddings)."""
    config = LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                         num_attention_heads=9, num_key_value_heads=3, tie_word_embeddings=True)
    assert sizing.parameters(config) == pytest.approx(134.5e6, rel=0.01)


def test_a_small_model_still_loads(tmp_path):
    from transformers import LlamaForCausalLM
    path = folder(tmp_path)
    LlamaForCausalLM(LlamaConfig.from_pretrained(path)).save_pretrained(path)
    assert load.load_model(path).config.num_hidden_layers == 2


def test_a_gguf_is_sized_from_its_metadata_before_its_tensors_are_read(tmp_path, monkeypatch):
    from transformers import AutoModelForCausalLM

    from specdec.models import gguf

    from tiny_gguf import write_tiny_gguf
    monkeypatch.setenv("SPECDEC_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained",
                        lambda *a, **k: pytest.fail("the GGUF's tensors were read"))
    path = write_tiny_gguf(tmp_path / "claims.gguf", claimed_layers=10**9)
    with pytest.raises(LoadError) as err:
        gguf.converted_file(str(path))
    assert "num_hidden_layers = 1000000000" in str(err.value)
    assert not any((tmp_path / "cache").glob("*/config.json"))               # nothing left half-built
