"""specdec: exact speculative decoding that records every decision.

    import specdec
    pair = specdec.load_pair(target="stdlib/target", draft="stdlib/draft-2l-distilled")
    settings = specdec.Settings(k=4, temperature=0.8, seed=0, max_new_tokens=48)
    run = specdec.generate(pair, "def parse(", settings)       # or keywords: k=4, ...
    run.text, run.token_ids, run.rounds, run.metrics
    for rnd in specdec.rounds(pair, "def parse(", settings): ...
    specdec.generate(pair, [{"role": "user", "content": "Hi"}], settings)   # a chat, for
                                                   # models with a chat template
    runs = specdec.generate_batch(pair, ["def parse(", "class A"], settings)   # one target pass
                                                   # verifies every request's drafts each round
"""
from specdec import settings as _settings
from specdec.drafters.base import DRAFTERS as _DRAFTERS
from specdec.drafters.policies import POLICIES as _POLICIES
from specdec.drafters.registry import make_drafter as _make_drafter  # noqa: F401 (imports every drafter module)
from specdec.drafters.tree import RULES as _TREE_RULES
from specdec.engine.batch import generate_batch
from specdec.engine.decoder import Decoder, autoregressive, generate, rounds
from specdec.errors import InputError, LoadError
from specdec.models.pair import Pair, load_pair, make_pair
from specdec.rules.sampling import Sampling
from specdec.settings import Settings
from specdec.trace import schema as _trace_schema
from specdec.trace.metrics import Metrics, summarize
from specdec.trace.run import Round, Run

# The one place the layers are wired together (not import-time calls inside the layers): the
# settings' choices that live in the drafters' layer above them, and the rule a replayed run's
# recorded settings must meet, which the trace layer below settings cannot import.
_settings.offer("drafter", _DRAFTERS)
_settings.offer("policy", _POLICIES)
_settings.offer("tree_children", _TREE_RULES)
_trace_schema.use_settings_rule(_settings.check_recorded)

__all__ = ["Decoder", "InputError", "LoadError", "Metrics", "Pair", "Round", "Run", "Sampling",
           "Settings", "autoregressive", "generate", "generate_batch", "load_pair", "make_pair", "rounds", "summarize"]
