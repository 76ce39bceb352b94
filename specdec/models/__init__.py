"""Models: names (names.py), loading a pair (load.py), the forward pass and its caches
(runtime.py), and the formats the embedded models come in (gguf, packed, reduced vocabulary,
8-bit head, feature draft)."""
from specdec.models.load import Pair, load_model, load_pair, load_tokenizer, make_pair
from specdec.models.names import DEFAULT_DRAFT, DEFAULT_TARGET, EMBEDDED, FAST_DRAFT, FAST_TARGET, resolve
from specdec.models.runtime import crop_cache, forward, new_cache

__all__ = ["DEFAULT_DRAFT", "DEFAULT_TARGET", "EMBEDDED", "FAST_DRAFT", "FAST_TARGET", "Pair",
           "crop_cache", "forward", "load_model", "load_pair", "load_tokenizer", "make_pair",
           "new_cache", "resolve"]
