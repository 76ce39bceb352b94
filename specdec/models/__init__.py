"""Models: names (names.py), loading a model (load.py) and a pair (pair.py), the forward pass
and its caches (runtime.py), and the formats the embedded models come in (gguf, packed, reduced vocabulary,
8-bit head, feature draft)."""
from specdec.models.load import load_model, load_tokenizer
from specdec.models.names import DEFAULT_DRAFT, DEFAULT_TARGET, EMBEDDED, FAST_DRAFT, FAST_TARGET, resolve
from specdec.models.pair import Pair, load_pair, make_pair
from specdec.models.runtime import crop_cache, forward, new_cache

__all__ = ["DEFAULT_DRAFT", "DEFAULT_TARGET", "EMBEDDED", "FAST_DRAFT", "FAST_TARGET", "Pair",
           "crop_cache", "forward", "load_model", "load_pair", "load_tokenizer", "make_pair",
           "new_cache", "resolve"]
