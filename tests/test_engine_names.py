"""Step through's metrics under the names serving engines report them by (vLLM's /metrics
counters, SGLang's average accept length): the same counts, the same two figures."""
import dataclasses

from specdec.trace.metrics import summarize
from ui.metrics_view import engine_rows


def test_a_runs_counts_as_vllm_counts_them():
    m = dataclasses.replace(summarize([]), rounds=10, drafted=40, accepted=12)
    rows = {r["this page"]: r for r in engine_rows(m)}
    assert rows["rounds (verification passes)"]["this run"] == "10"
    assert rows["Acceptance rate"]["this run"] == "30%"                      # 12 / 40
    mean = rows["Tokens a round (L)"]
    assert mean["this run"] == "2.20" and mean["SGLang"] == "avg_spec_accept_length"        # 1 + 12 / 10
    assert mean["vLLM (/metrics, vllm:spec_decode_…)"] == "1 + num_accepted_tokens / num_drafts"
    empty = {r["this page"]: r["this run"] for r in engine_rows(summarize([]))}
    assert empty["Acceptance rate"] == "—" and empty["Tokens a round (L)"] == "—"
