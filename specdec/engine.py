"""The speculative decoding loop, one round at a time (Leviathan et al. 2023).

`Decoder` holds one run's state (token ids, both KV caches, the run's single
`torch.Generator`, the draft-length policy); `Decoder.step()` performs one round
and returns its immutable trace. `rounds()` wraps it as a Python generator, so
the app can advance a run one click at a time; `generate()` runs to the end.
Mode "autoregressive" is the baseline: the same code path with k = 0.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Iterator, Sequence, Union

import torch

from specdec import record
from specdec.chat import Message, as_messages, render
from specdec.drafters import Proposal, make_drafter
from specdec.errors import InputError
from specdec.models import Pair, crop_cache, forward, forward_with_features, new_cache
from specdec.policies import make_policy
from specdec.rejection import verify_greedy, verify_sampled
from specdec.sampling import probs_from_logits
from specdec.settings import Settings
from specdec.trace import Caches, Round, Run
from specdec.tree_round import tree_step
from specdec.wording import N_

Prompt = Union[str, Sequence[Any]]     # raw text, or a chat: [{"role", "content"}, ...]


def encode_prompt(pair: Pair, prompt: Prompt) -> tuple[str, list[int], tuple[Message, ...] | None]:
    """(prompt text, ids, chat messages or None), with clear errors for empty prompts, bad
    chats and prompts past the context window."""
    if isinstance(prompt, str):
        if not prompt:
            raise InputError(N_("the prompt is empty: type some text to continue, e.g. `def parse(`"))
        text, ids, messages = prompt, list(pair.tokenizer(prompt)["input_ids"]), None
    else:
        messages = as_messages(prompt)
        text, ids = render(pair.tokenizer, messages)
    if len(ids) >= pair.context:
        cut = len(ids) - pair.context + 1
        raise InputError(N_("the prompt is {n} tokens but the models accept at most {limit}: "
                            "shorten it by at least 1 token") if cut == 1 else
                         N_("the prompt is {n} tokens but the models accept at most {limit}: "
                            "shorten it by at least {cut} tokens"), n=len(ids), limit=pair.context, cut=cut)
    return text, ids, messages


def stop_ids(pair: Pair) -> set[int]:
    """End-of-sequence and end-of-turn ids (the tokenizer's EOS and the model's own)."""
    ids = {pair.tokenizer.eos_token_id}
    configured = getattr(getattr(pair.target, "generation_config", None), "eos_token_id", None)
    ids.update(configured if isinstance(configured, (list, tuple)) else [configured])
    return {i for i in ids if i is not None}


class Decoder:
    def __init__(self, pair: Pair, prompt: Prompt, settings: Settings, drafter=None):
        """`drafter`: a Drafter instance to use instead of settings.drafter's (a person's text)."""
        self.pair, self.settings = pair, settings
        self.prompt, self.prompt_ids, self.messages = encode_prompt(pair, prompt)
        self.stop_ids = stop_ids(pair)
        self.seq: list[int] = list(self.prompt_ids)
        self.generator = torch.Generator().manual_seed(settings.generator_seed)   # one per run
        self.target_cache = new_cache(pair.target)
        self.drafter = drafter or make_drafter(pair, settings)
        self.policy = make_policy(settings.policy, settings.k, settings.confidence)
        self.history: list[Round] = []          # the rounds so far
        self.stop: str | None = None

    def __iter__(self) -> Iterator[Round]:
        while self.stop is None:
            yield self.step()

    @property
    def generated(self) -> list[int]:
        return self.seq[len(self.prompt_ids):]

    def _target_len(self) -> int:
        return self.target_cache.get_seq_length()

    def _draft_limit(self) -> int:
        """The policy's k, capped so the round cannot pass max_new_tokens or the context."""
        if self.settings.mode == "autoregressive":
            return 0
        room = min(self.settings.max_new_tokens - len(self.generated) - 1,
                   self.pair.context - len(self.seq) - 1)
        return max(0, min(self.policy.next_k(), room))

    def _propose(self, k: int) -> Proposal:
        if not k:
            return Proposal([], torch.zeros(0, self.pair.vocab_size), 0)
        return self.drafter.propose(self.seq, k, self.settings.sampling, self.generator, self.policy)

    def _verify_pass(self, ids: list[int], keep: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The target's logits for the last `keep` fed positions (keep, V), and its final
        hidden states (len(ids), H) when the drafter reads them (else None)."""
        pair = self.pair
        if getattr(self.drafter, "wants_features", False):
            return forward_with_features(pair.target, ids, self.target_cache, pair.vocab_size, keep)
        return forward(pair.target, ids, self.target_cache, pair.vocab_size, keep=keep), None

    def step(self) -> Round:
        """One round: steps 1-5 below double as the captions in the app."""
        if self.stop is not None:
            raise InputError(N_("this run has finished ({why}); reset to start again"), why=self.stop)
        if getattr(self.drafter, "drafts_trees", False):
            return tree_step(self)
        pair, sampling, k = self.pair, self.settings.sampling, self._draft_limit()
        prefix_len = len(self.seq)
        target_before, draft_before = self._target_len(), self.drafter.cache_len()
        # 1. Draft: the drafter proposes d_1..d_m (m <= k), sampled from q.
        t0 = time.perf_counter()
        prop = self._propose(k)
        t1 = time.perf_counter()
        # 2. Verify: one target forward over [unseen prefix, d_1..d_m] gives p_1..p_{m+1}.
        m = len(prop.tokens)
        logits, feats = self._verify_pass(self.seq[target_before:] + prop.tokens, m + 1)  # (m+1, V)
        target_probs = probs_from_logits(logits, sampling)                        # (m+1, V)
        t2 = time.perf_counter()
        target_peak, draft_peak = self._target_len(), self.drafter.cache_len()
        # 3. Accept / reject each draft; 4. resample from the residual, or take the bonus.
        verdict = (verify_greedy(prop.tokens, target_probs) if sampling.greedy else
                   verify_sampled(prop.tokens, prop.probs, target_probs, self.generator))
        # 5. Roll back both KV caches to the prefix plus the accepted drafts.
        crop_cache(self.target_cache, prefix_len + verdict.n_accepted)
        self.drafter.rollback(prefix_len + verdict.n_accepted)
        if feats is not None:     # a feature drafter reads the target's verified positions
            self.drafter.observe(target_before, feats[:prefix_len + verdict.n_accepted - target_before])
        emitted = self._emit(prop.tokens[:verdict.n_accepted] + [verdict.token])
        self.policy.update(m, verdict.n_accepted)
        tok, lean = pair.tokenizer, self.settings.lean
        rnd = Round(
            index=len(self.history), prefix_len=prefix_len, draft_limit=k, greedy=sampling.greedy,
            positions=record.positions(tok, prop.tokens, prop.probs, target_probs, verdict, lean,
                                       sampling.greedy),
            n_accepted=verdict.n_accepted, final=record.final(tok, verdict, target_probs, m, lean),
            emitted=tuple(emitted),
            caches=Caches(target_before, target_peak, self._target_len(),
                          draft_before, draft_peak, self.drafter.cache_len()),
            draft_forwards=prop.forwards, target_forwards=1,
            draft_ms=(t1 - t0) * 1e3, verify_ms=(t2 - t1) * 1e3, stop=self.stop)
        self.history.append(rnd)
        return rnd

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
                             "draft": self.pair.draft_name},
                   rounds=tuple(self.history), token_ids=tuple(ids),
                   text=self.pair.tokenizer.decode(ids, skip_special_tokens=True),
                   stop_reason=self.stop or "running",
                   vocab=record.vocabulary(self.pair.tokenizer, self.seq, self.history))


def _settings(settings: Settings | None, overrides: dict) -> Settings:
    """A Settings, with keyword overrides applied (keywords are a convenience of this edge)."""
    return replace(settings or Settings(), **overrides)


def rounds(pair: Pair, prompt: Prompt, settings: Settings | None = None,
           **overrides) -> Iterator[Round]:
    """Yield one immutable Round per draft -> verify round until a stop."""
    yield from Decoder(pair, prompt, _settings(settings, overrides))


def generate(pair: Pair, prompt: Prompt, settings: Settings | None = None, **overrides) -> Run:
    """Run to the end and return the whole Run (text, ids, rounds, metrics)."""
    decoder = Decoder(pair, prompt, _settings(settings, overrides))
    for _ in decoder:
        pass
    return decoder.result()


def autoregressive(pair: Pair, prompt: Prompt, settings: Settings | None = None, **overrides) -> Run:
    """Target-only baseline with the same sampling, generator and cache handling."""
    return generate(pair, prompt, settings, **{**overrides, "mode": "autoregressive"})
