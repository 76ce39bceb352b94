"""The speculative decoding loop, one round at a time (Leviathan et al. 2023).

`Decoder` holds one run's state (token ids, the target's KV cache, the drafter and its
caches, the run's single `torch.Generator`, the draft-length policy) and owns every round's
bookkeeping: the draft limit, timing, both caches, the `Round` record, the history and the
stops. What differs between a chain of drafts and a tree of drafts — how to draft, verify and
decide — is a strategy module (chain.py, tree.py). `rounds()` wraps the decoder as a Python
generator, so the app can advance a run one click at a time; `generate()` runs to the end.
Mode "autoregressive" is the baseline: the same code path with k = 0, except that its prompt's
pass reads the prompt's last token too and gives the first new token (as every plain generation
loop does), so its round 1 makes no pass of its own.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Iterator

import torch

from specdec.drafters.base import Drafter, FeatureReader, Proposal, TreeDrafter, TreeProposal
from specdec.drafters.policies import make_policy
from specdec.drafters.registry import make_drafter
from specdec.engine import chain, checks, tree
from specdec.engine.outcome import Outcome
from specdec.engine.prompt import Prompt, encode_prompt, stop_ids
from specdec.errors import InputError
from specdec.models.pair import Pair
from specdec.models.runtime import keep_rows
from specdec.settings import Mode, Settings
from specdec.trace import record
from specdec.trace.run import Caches, Prefill, Round, Run
from specdec.wording import N_


@dataclass(frozen=True)
class Plan:
    """A round up to the target's pass: the draft limit, the lengths before, the drafts."""
    k: int
    prefix_len: int
    target_before: int
    draft_before: int
    prop: Proposal | TreeProposal   # a chain's drafts or a tree's
    pending: list[int]         # tokens the target has not read yet (the last emitted one)
    draft_ms: float


class Decoder:
    def __init__(self, pair: Pair, prompt: Prompt, settings: Settings, drafter: Drafter | None = None,
                 batched: bool = False):
        """`drafter`: a Drafter instance to use instead of settings.drafter's (a person's text);
        `batched`: the target's passes are a batch's (engine/batch.py), which torch runs."""
        self.pair, self.settings = pair, settings
        self.prompt, self.prompt_ids, self.messages = encode_prompt(pair, prompt)
        self.stop_ids = stop_ids(pair)
        self.seq: list[int] = list(self.prompt_ids)
        self.generator = torch.Generator().manual_seed(settings.generator_seed)   # one per run
        self.drafter = drafter or make_drafter(pair, settings)
        self.strategy = tree if isinstance(self.drafter, TreeDrafter) else chain
        self.target = pair.passes_for(chain=self.strategy is chain and not batched)   # models/backend.py
        self.target_cache = self.target.new_cache()
        self.policy = make_policy(settings.policy, settings.k, settings.confidence, pair.prices)
        self.prefill: Prefill | None = None    # the prompt read before round 1 (read_prompt)
        self.whole_prompt = settings.mode == Mode.AUTOREGRESSIVE and not batched   # read_prompt
        self.first_logits: torch.Tensor | None = None   # (1, V) from the prompt's pass when it read it whole
        self.prompt_feats: torch.Tensor | None = None   # a feature drafter's: (len(prompt) - 1, H)
        self.history: list[Round] = []          # the rounds so far
        self.stop: str | None = None
        self._busy = threading.Lock()           # one round at a time, whichever thread asks

    def __iter__(self) -> Iterator[Round]:
        while self.stop is None:
            yield self.step()

    @property
    def generated(self) -> list[int]:
        return self.seq[len(self.prompt_ids):]

    def draft_limit(self) -> int:
        """The policy's k, capped so the round cannot pass max_new_tokens or the context."""
        if self.settings.mode == Mode.AUTOREGRESSIVE:
            return 0
        room = min(self.settings.max_new_tokens - len(self.generated) - 1,
                   self.pair.context - len(self.seq) - 1)
        return max(0, min(self.policy.next_k(), room))

    def _lengths(self) -> tuple[int, int]:
        return self.target_cache.get_seq_length(), self.drafter.cache_len()

    def read_prompt(self, reused: int = 0, reused_feats: torch.Tensor | None = None) -> Prefill:
        """The prefill: the target reads the prompt but its last token (a feature drafter gets
        their features), then a drafter with its own cache reads them too. Round 1 then drafts.
        An autoregressive run alone reads the whole prompt and keeps the last row's logits: its
        round 1 has nothing to feed. reused: the first prompt tokens the target cache already
        holds (a server's prefix cache, engine/serving.py), with their features for a feature drafter."""
        if self.prefill is not None:
            return self.prefill
        whole = self.whole_prompt and not reused
        ids, t0 = self.prompt_ids if whole else self.prompt_ids[:-1], time.perf_counter()
        fresh, reads = ids[reused:], isinstance(self.drafter, FeatureReader)
        feats = reused_feats[:reused] if reads and reused_feats is not None else torch.zeros(0, 0)
        if fresh:
            last, new = self.target.forward(fresh, self.target_cache, keep=1, features=reads)   # (1, V)
            self.first_logits = checks.logits(last) if whole else None
            if reads:
                feats = torch.cat([feats, new]) if reused else new
        if reads and len(feats):
            self.drafter.observe(0, feats)
        self.prompt_feats = feats if reads else None
        t1 = time.perf_counter()
        draft_tokens = len(ids) if self.drafter.prefill(ids) else 0
        t2 = time.perf_counter()
        self.prefill = Prefill(len(fresh), (t1 - t0) * 1e3, self.target_cache.get_seq_length(),
                               draft_tokens, (t2 - t1) * 1e3, self.drafter.cache_len(),
                               len(ids) if reads else 0, self.first_logits is not None)
        return self.prefill

    def step(self) -> Round:
        """One round: steps 1-5 double as the captions in the app (chain.py, tree.py: 1-4).
        Rounds of one run are serialised: two threads stepping it at once would each read the
        caches the other is changing."""
        with self._busy:
            plan = self.propose()                                                 # 1. draft
            t1 = time.perf_counter()
            verified = self.strategy.verify(self, plan.prop, plan.pending)        # 2. verify
            return self.conclude(plan, verified, (time.perf_counter() - t1) * 1e3)

    def propose(self) -> Plan:
        """Step 1, and what step 2 needs: the drafts and the tokens the target has not read yet
        (a batch runs step 2 for many decoders in one pass: engine/batch.py)."""
        if self.stop is not None:
            raise InputError(N_("this run has finished ({why}); reset to start again"), why=self.stop)
        self.read_prompt()
        k, prefix_len = self.draft_limit(), len(self.seq)
        (target_before, draft_before), t0 = self._lengths(), time.perf_counter()
        prop = self.strategy.draft(self, k)
        return Plan(k, prefix_len, target_before, draft_before, prop, self.seq[target_before:],
                    (time.perf_counter() - t0) * 1e3)

    def conclude(self, plan: Plan, verified, verify_ms: float) -> Round:
        """Steps 3-5 after the target's pass: accept, final token, roll back; the Round."""
        target_peak, draft_peak = self._lengths()
        prop, prefix_len = plan.prop, plan.prefix_len
        out = self.strategy.decide(self, prop, verified)                          # 3-4. accept, final
        self._keep(prefix_len, plan.target_before, out, verified.feats)           # 5. roll back
        emitted = self._emit(out.accepted + [out.token])
        if out.drafted is not None:
            self.policy.update(out.drafted, len(out.kept))
        rnd = Round(
            index=len(self.history), prefix_len=prefix_len, draft_limit=plan.k,
            greedy=self.settings.sampling.greedy, positions=out.positions,
            n_accepted=len(out.kept), final=out.final, emitted=tuple(emitted),
            caches=Caches(plan.target_before, target_peak, self.target_cache.get_seq_length(),
                          plan.draft_before, draft_peak, self.drafter.cache_len()),
            draft_forwards=prop.forwards, target_forwards=verified.passes, draft_ms=plan.draft_ms,
            verify_ms=verify_ms, stop=self.stop, tree=out.tree)
        self.history.append(rnd)
        return rnd

    def _keep(self, prefix_len: int, target_before: int, out: Outcome, feats) -> None:
        """Step 5: both caches keep the prefix and the accepted drafts; a feature drafter
        reads the target's features of the pending tokens and the accepted drafts."""
        keep_rows(self.target_cache, prefix_len, [prefix_len + i for i in out.kept])
        self.drafter.rollback(prefix_len + len(out.kept))
        if isinstance(self.drafter, FeatureReader) and feats is not None:
            pending = prefix_len - target_before
            self.drafter.observe(target_before, feats[list(range(pending)) + [pending + i for i in out.kept]])

    def _emit(self, tokens: list[int]) -> list[int]:
        """Append the round's tokens (cut after EOS) and decide whether the run stops."""
        ends = [i for i, t in enumerate(tokens) if t in self.stop_ids]
        if ends:
            tokens = tokens[:ends[0] + 1]
            self.stop = "eos"
        self.seq.extend(tokens)
        if self.stop is None and len(self.generated) >= self.settings.max_new_tokens:
            self.stop = "max_new_tokens"
        if self.stop is None and len(self.seq) >= self.pair.context:
            self.stop = "context window"
        return tokens

    def result(self) -> Run:
        ids = self.generated
        return Run(prompt=self.prompt, prompt_ids=tuple(self.prompt_ids), messages=self.messages,
                   settings={**self.settings.as_dict(), "target": self.pair.target_name,
                             "draft": self.pair.draft_name, "backend": self.target.name},
                   rounds=tuple(self.history), token_ids=tuple(ids),
                   text=self.pair.tokenizer.decode(ids, skip_special_tokens=True),
                   stop_reason=self.stop or "running", prefill=self.prefill,
                   vocab=record.vocabulary(self.pair.tokenizer, self.seq, self.history))


def _settings(settings: Settings | None, overrides: dict) -> Settings:
    """A Settings, with keyword overrides applied (keywords are a convenience of this edge).
    Anything else is refused here: a dict's or a string's attribute error deep in a round
    would not say what to pass."""
    if isinstance(settings, dict):
        raise InputError(N_("settings must be a Settings, got a dict: make one with Settings(**d) "
                            "(or pass the values as keywords)"))
    if settings is not None and not isinstance(settings, Settings):
        raise InputError(N_("settings must be a Settings or None, got {kind}: make one with "
                            "Settings(k=4, ...)"), kind=type(settings).__name__)
    return replace(settings or Settings(), **overrides)


def check_pair(pair) -> None:
    """A loaded Pair (None or a model's name would fail at its first attribute, saying nothing)."""
    if not isinstance(pair, Pair):
        raise InputError(N_("pair must be a loaded pair of models, got {kind}: make one with "
                            "specdec.load_pair(...) or specdec.make_pair(...)"), kind=type(pair).__name__)


def checked(pair: Pair, settings: Settings | None, overrides: dict) -> Settings:
    """The API's edge (generate, rounds, a batch, a server): a loaded pair and the settings."""
    check_pair(pair)
    return _settings(settings, overrides)


def rounds(pair: Pair, prompt: Prompt, settings: Settings | None = None,
           **overrides) -> Iterator[Round]:
    """Yield one immutable Round per draft -> verify round until a stop."""
    yield from Decoder(pair, prompt, checked(pair, settings, overrides))


def generate(pair: Pair, prompt: Prompt, settings: Settings | None = None, **overrides) -> Run:
    """Run to the end and return the whole Run (text, ids, rounds, metrics)."""
    decoder = Decoder(pair, prompt, checked(pair, settings, overrides))
    for _ in decoder:
        pass
    return decoder.result()


def autoregressive(pair: Pair, prompt: Prompt, settings: Settings | None = None, **overrides) -> Run:
    """Target-only baseline with the same sampling, generator and cache handling."""
    return generate(pair, prompt, settings, **{**overrides, "mode": Mode.AUTOREGRESSIVE.value})
