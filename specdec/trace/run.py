"""A whole run as an immutable record (`Run`) with its JSON round-trip; the per-round records it
holds live in rounds.py (re-exported here, where callers have always found them).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from specdec.chat import Message
from specdec.files import jsonstore
from specdec.trace import schema as trace_schema
from specdec.trace.metrics import Metrics, summarize
from specdec.trace.rounds import (
    FULL_VOCAB_LIMIT,
    TOP_N,
    Caches,
    Dist,
    Final,
    Position,
    Prefill,
    Round,
    Tree,
    TreeNode,
    make_dist,
)

__all__ = ["FULL_VOCAB_LIMIT", "TOP_N", "Caches", "Dist", "Final", "Position", "Prefill", "Round", "Run", "Tree",
           "TreeNode", "make_dist"]


@dataclass(frozen=True)
class Run:
    prompt: str
    prompt_ids: tuple[int, ...]
    settings: dict
    rounds: tuple[Round, ...]
    token_ids: tuple[int, ...]   # generated ids only
    text: str                    # generated text only
    stop_reason: str
    vocab: dict = dataclasses.field(default_factory=dict)  # str(id) -> text, to replay offline
    messages: tuple[Message, ...] | None = None  # the chat, when the prompt was one (`prompt`
                                                  # then holds the template's rendering)
    prefill: Prefill | None = None   # None: a file written before the prefill was its own step


    def label(self, token: int) -> str:
        return self.vocab.get(str(token), f"#{token}")

    @property
    def metrics(self) -> Metrics:
        return summarize(self.rounds, self.prefill)

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["metrics"] = dataclasses.asdict(self.metrics)
        return json.dumps(jsonstore.finite(data), allow_nan=False)   # NaN as null: always valid JSON

    @staticmethod
    def from_json(text: str | bytes) -> "Run":
        """Rebuild a run from `to_json`'s output; anything else raises TraceError (the file is
        checked against trace_schema first: types, ranges, allowed values, sizes)."""
        data = trace_schema.parse(text)
        data.pop("metrics", None)
        for rnd in data.get("rounds", []) if isinstance(data.get("rounds"), list) else []:
            if isinstance(rnd, dict) and "k" in rnd and "draft_limit" not in rnd:
                rnd["draft_limit"] = rnd.pop("k")          # files written before the rename
        run = trace_schema.decode(Run, data)
        trace_schema.check_run(run)
        return run
