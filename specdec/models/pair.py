"""A draft/target pair: the record the engine runs (Pair), assembled from loaded models
(make_pair) or by name (load_pair, through load.py's load_model). A draft with another
tokenizer than the target's keeps it (`Pair.draft_tokenizer`): only a drafter that bridges
vocabularies drafts with it (drafters/cross_vocab.py); the others refuse the pair with a message
that names it.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from specdec.errors import LoadError
from specdec.models import backend as backends
from specdec.models import precision as precisions
from specdec.models.backend import BACKEND_AUTO, Backend, TorchBackend
from specdec.models.feature import FeatureDraft
from specdec.models.intdot import available as intdot_available
from specdec.models.load import check_backend, check_precision, load_model, load_tokenizer
from specdec.models.names import DEFAULT_DRAFT, DEFAULT_TARGET
from specdec.models.packed import pack_draft
from specdec.models.precision import PRECISION_AUTO, Precision
from specdec.models.prices import Prices
from specdec.wording import N_


@dataclass(frozen=True)
class Pair:
    target: torch.nn.Module
    draft: torch.nn.Module | None      # None: no draft model (n-gram drafting only)
    tokenizer: object
    target_name: str
    draft_name: str | None
    vocab_size: int                    # logits are cut to this many columns
    context: int                       # max positions both models accept
    device: torch.device
    backend: object = None             # what runs the target's chain passes (backend.py); None: torch
    prices: Prices | None = None       # this machine's c and v(M) for this pair (bench/machine.py), if measured
    draft_tokenizer: object = None     # the draft's own tokenizer when it differs from the target's, else None

    @property
    def passes(self):
        """The target's backend (torch's own modules unless another one was chosen at load)."""
        return self.backend if self.backend is not None else TorchBackend(self.target, self.vocab_size)

    def passes_for(self, chain: bool):
        """The backend a run verifies on: the pair's, if it serves that kind of round, else torch."""
        chosen = self.passes
        return chosen if chain or chosen.name == Backend.TORCH else TorchBackend(self.target, self.vocab_size)

    @property
    def across_vocab(self) -> bool:
        """True when the draft model has another tokenizer than the target."""
        return self.draft_tokenizer is not None

    @property
    def draft_vocab_size(self) -> int:
        """Logits the draft model gives: the target's count, or its own across vocabularies."""
        return self.draft.config.vocab_size if self.across_vocab else self.vocab_size

    @property
    def reads_features(self) -> bool:
        """True when the draft reads the target's final hidden states (EAGLE, feature.py)."""
        return isinstance(self.draft, FeatureDraft)


def vocab_difference(target_tok, draft_tok) -> str | None:
    """None when both tokenizers map the same tokens to the same ids, else the first difference."""
    if len(target_tok) != len(draft_tok):
        return f"vocabulary sizes differ: target has {len(target_tok)} tokens, draft has {len(draft_tok)}"
    t_vocab, d_vocab = target_tok.get_vocab(), draft_tok.get_vocab()
    for token, tid in sorted(t_vocab.items(), key=lambda kv: kv[1]):
        did = d_vocab.get(token)
        if did != tid:
            where = "is missing in the draft" if did is None else f"has id {did} in the draft"
            return f"token {token!r} has id {tid} in the target but {where}"
    return None


def context_window(config) -> int:
    """Positions the model accepts, from its config (GPT-2 says n_positions)."""
    for key in ("max_position_embeddings", "n_positions", "n_ctx", "seq_length"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return 2048


def check_pair(target, draft, tokenizer, draft_tokenizer) -> str | None:
    """None when the draft shares the target's tokenizer, else how they differ (a draft that reads
    the target's features must share it); each model has a logit for each of its tokenizer's tokens."""
    diff = vocab_difference(tokenizer, draft_tokenizer) if draft_tokenizer is not None else None
    if diff and isinstance(draft, FeatureDraft):
        raise LoadError(N_("draft and target cannot share tokens: {diff}"), diff=diff)
    for model, tok in ((target, tokenizer), (draft, draft_tokenizer if diff else tokenizer)):
        if model is not None and model.config.vocab_size < len(tok):
            raise LoadError(N_("a model has {logits} logits but the tokenizer has {tokens} tokens"),
                            logits=model.config.vocab_size, tokens=len(tok))
    return diff


def beside(target, draft) -> None:
    """Make `draft` (in place) run as it runs in a pair with `target`: on the target's integer
    kernels (a small part of a step), or packed to half its bytes beside a memory-bound target; a
    feature draft reads the target's embeddings."""
    if draft is not None and precisions.of(target) == Precision.INTDOT and intdot_available():
        precisions.draft_intdot(draft)
    else:
        pack_draft(target, draft)
    if isinstance(draft, FeatureDraft):
        draft.attach(target)


def make_pair(target, draft, tokenizer, target_name="target", draft_name="draft",
              draft_tokenizer=None, backend: str = Backend.TORCH) -> Pair:
    """Assemble a Pair from loaded objects (tests build tiny models from configs). A
    `draft_tokenizer` that differs from `tokenizer` is kept: the pair drafts across vocabularies."""
    across = check_pair(target, draft, tokenizer, draft_tokenizer) is not None
    beside(target, draft)
    models = [m for m in (target, draft) if m is not None and not (across and m is draft)]
    vocab_size = min(m.config.vocab_size for m in models)
    return Pair(target=target.eval(), draft=None if draft is None else draft.eval(),
                tokenizer=tokenizer, target_name=target_name, draft_name=draft_name,
                vocab_size=vocab_size, context=min(context_window(m.config) for m in models),
                device=next(target.parameters()).device,
                backend=backends.make(target_name, target, vocab_size, backend),
                draft_tokenizer=draft_tokenizer if across else None)


def load_pair(target: str = DEFAULT_TARGET, draft: str | None = DEFAULT_DRAFT,
              device: torch.device | None = None, device_map=None, precision: str = PRECISION_AUTO,
              backend: str = BACKEND_AUTO) -> Pair:
    """Load target and draft by name (embedded, local dir or hub id); draft None = no draft
    model. `device_map` goes to transformers / accelerate unchanged (e.g. "auto"); `precision`
    is the target's (load_model); `backend` what runs its chain passes (backend.py). A draft with
    another tokenizer keeps it: the cross-vocabulary drafter drafts with it, the others refuse."""
    check_precision(precision)
    check_backend(backend)
    tokenizer = load_tokenizer(target)
    draft_tokenizer = load_tokenizer(draft) if draft else None
    target_model = load_model(target, device, device_map, precision)
    draft_model = load_model(draft, device, device_map) if draft else None
    return make_pair(target_model, draft_model, tokenizer, target, draft, draft_tokenizer, backend=backend)


