"""Beyond tokens (issue 41): the corpus, the labelled sets, the stages, the cascade and its record.

Small on purpose: a slice of the corpus (two modules), the tiny model of tests/tiny.py as judge.
"""
import json
import math

import numpy as np
import pytest
import torch

from specdec.beyond import agents, cascade, corpus, judge, lexical, metrics, queries, record, stages
from specdec.beyond.record import Outcome, ResultError

SLICE = ("json", "csv")


@pytest.fixture(scope="module")
def passages():
    return corpus.build(only=SLICE, topics=False)


def test_the_slice_holds_the_modules_functions_under_their_public_names(passages):
    ids = {p.id for p in passages}
    assert {"json", "json.loads", "json.dump", "csv.reader", "csv.writer", "json.JSONDecoder.decode"} <= ids
    assert len(ids) == len(passages)                                       # unique
    assert not any(i.startswith(("os.", "topic:")) for i in ids)
    loads = next(p for p in passages if p.id == "json.loads")
    assert loads.title.startswith("json.loads(") and "JSON document" in loads.text


def test_a_package_reexport_is_kept_once_under_the_packages_name():
    ids = [p.id for p in corpus.build(only=("concurrent",), topics=False)]
    assert "concurrent.futures.ThreadPoolExecutor" in ids
    assert "concurrent.futures.thread.ThreadPoolExecutor" not in ids


def test_topics_are_cut_into_paragraphs_no_longer_than_twice_the_size():
    parts = corpus.chunks("a" * 10 + "\n\n" + "b" * 10 + "\n\n" + "c" * 30, size=25)
    assert parts == ["a" * 10 + "\n\n" + "b" * 10, "c" * 30]
    assert corpus.first_paragraphs("one.\n\ntwo.\n\n" + "x" * 50, limit=20) == "one.\n\ntwo."


def test_every_labelled_answer_is_a_passage_of_this_pythons_corpus():
    ids = {p.id for p in corpus.load()}
    qs = queries.load()
    missing = {a for q in qs for a in q.answers if a not in ids}
    assert not missing
    assert len(qs) >= 120 and {q.split for q in qs} == set(queries.SPLITS)
    assert abs(sum(q.split == "dev" for q in qs) - len(qs) / 2) <= 1
    assert all(any("\uac00" <= ch <= "\ud7a3" for ch in q.text["ko"]) for q in qs)     # Hangul in every one
    assert len({q.text["en"] for q in qs}) == len(qs)


def test_the_tools_and_requests_are_labelled_with_known_tools():
    tools, requests = agents.load()
    names = {t.id for t in tools}
    assert len(tools) >= 20 and len(requests) >= 100
    assert {r.tool for r in requests} == names                 # every tool asked for
    assert all(r.text["en"] and r.text["ko"] for r in requests)
    assert len(agents.load(split="dev")[1]) + len(agents.load(split="held-out")[1]) == len(requests)


def test_ranking_metrics_by_hand():
    ranking = ["a", "b", "c", "d"]
    assert metrics.reciprocal_rank(ranking, {"c"}) == pytest.approx(1 / 3)
    assert metrics.reciprocal_rank(ranking, {"d"}, n=3) == 0.0
    # relevant at ranks 2 and 4 of two: (1/log2 3 + 1/log2 5) / (1 + 1/log2 3)
    assert metrics.ndcg(ranking, {"b", "d"}) == pytest.approx((0.63093 + 0.43068) / 1.63093, abs=1e-4)
    assert metrics.ndcg(["b", "a"], {"b"}) == 1.0
    assert metrics.recall(ranking, {"a", "z"}, 2) == 0.5


def test_bm25_puts_the_passage_that_uses_the_words_first(passages):
    lx = lexical.Lexical([p.body for p in passages])
    top = int(np.argmax(lx.scores("write rows to a csv file with a writer object")))
    assert passages[top].id.startswith("csv.") and "writer" in passages[top].id.lower()
    assert not lx.scores("파일을 읽으려면").any()              # no shared word: every score 0
    assert lexical.words("os.path.join read_csv") == ["os", "path", "join", "read", "csv"]


def test_reciprocal_rank_fusion_and_the_margin_by_hand():
    fused = stages.fuse([np.array([0, 1, 2]), np.array([1, 0, 2])], 3)
    assert fused[0] == pytest.approx(1 / 61 + 1 / 62) and fused[0] == fused[1] > fused[2]
    assert stages.margin(np.array([4.0, 1.0, 0.0]), np.array([0, 1, 2])) == pytest.approx(0.75)
    assert stages.margin(np.array([0.0, 0.0]), np.array([0, 1])) == 0.0


def test_the_judges_cached_prefix_gives_the_scores_of_whole_sequences(pair):
    """Each candidate's score with the shared prefix read once and the cache cropped back equals
    the score of [prefix + candidate] fed whole, with no cache, through the torch model."""
    for fmt in judge.FORMATS:
        j = judge.Judge(pair, fmt)
        j.yes, j.no = [1, 2], [3]                      # the char tokenizer has no "yes": pick ids
        texts = ["abc de", "hh (a)", "fed cba\nab"]
        got = j.scores("bad cafe", texts)
        p = judge.plan(pair.tokenizer, fmt, "bad cafe", texts)
        for rows, score in zip(p.rows, got):
            with torch.no_grad():
                logits = pair.target(input_ids=torch.tensor([p.prefix + rows])).logits[0, -p.keep:]
            assert score == pytest.approx(judge.score_rows(fmt, logits[:, :pair.vocab_size], rows, j.yes, j.no),
                                          abs=1e-4)
        assert len(j.each_ms) == len(texts) and len(set(got)) > 1


def test_likelihood_is_the_mean_log_probability_of_the_query_tokens():
    logits = torch.log(torch.tensor([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]))
    # rows predict tokens 1 then 2 (the last row is the one after the query)
    got = judge.score_rows("likelihood", logits, [0, 1, 2], [], [])
    assert got == pytest.approx((math.log(0.25) + math.log(0.1)) / 2)


def outcome(first, scores, margin, answers=("b",), lang="en"):
    n = len(first)
    return Outcome("q", lang, tuple(answers), tuple(first), tuple(scores), margin, {"bm25": list(first)},
                   {"bm25": 1.0}, 5.0, tuple([10.0] * n))


def test_the_judge_reorders_its_pool_only_and_the_gate_skips_above_one_minus_g():
    o = outcome(["a", "b", "c", "d"], [0.1, 0.9, 0.2, 5.0], margin=0.3)
    assert cascade.judged(o, 2) == ["b", "a", "c", "d"]            # d's high score is outside the pool
    assert cascade.judged(o, 4) == ["d", "b", "c", "a"]
    assert not cascade.skips(o, 0.0) and not cascade.skips(o, 0.7) and cascade.skips(o, 0.71)
    r = cascade.row([o], pool=2, gate=0.0, first="bm25")
    assert (r.mrr, r.recall, r.judge_calls, r.ms, r.agree, r.differ) == (1.0, 1.0, 2, 1.0 + 5.0 + 20.0, 0.0, 0.0)
    skipped = cascade.row([o], pool=2, gate=1.0, first="bm25")
    assert (skipped.mrr, skipped.judge_calls, skipped.ms, skipped.differ) == (0.5, 0, 1.0, 1.0)


@pytest.fixture(scope="module")
def measured(pair, passages):
    """Real outcomes: the slice's stages and the tiny model as judge, on the development queries
    about csv and json (and a few others, which find nothing relevant here)."""
    st = stages.build(passages)
    j = judge.Judge(pair, "likelihood")
    qs = queries.load(split="dev")[:12]
    return [cascade.measure(st, j, q.id, "en", q.text["en"], q.answers, "bm25", 12) for q in qs]


def test_at_gate_zero_the_cascade_is_the_full_pipeline_exactly(measured):
    for pool in (1, 3, 12):
        for o in measured:
            assert cascade.final(o, pool, 0.0) == cascade.judged(o, pool)
        r = cascade.row(measured, pool, 0.0, "bm25")
        assert r.skipped == 0.0 and r.differ == 0.0 and r.judge_calls == pool


def test_answers_differing_from_the_full_pipeline_rise_with_the_gate(measured):
    gates = [0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.99, 1.0]
    rows = [cascade.row(measured, 3, g, "bm25") for g in gates]
    differ, skipped = [r.differ for r in rows], [r.skipped for r in rows]
    assert differ == sorted(differ) and skipped == sorted(skipped)
    assert skipped[-1] > 0 and rows[-1].judge_calls < rows[0].judge_calls
    margins = sorted(o.margin for o in measured)
    assert len(set(margins)) > 3                       # the gate has something to sort


def test_agents_k1_is_the_routers_choice_and_k_all_is_the_judge_over_every_tool(pair):
    tools, requests = agents.load(split="dev")
    router = stages.build(tools)
    j = judge.Judge(pair, "likelihood", "tool")
    outs = [cascade.measure(router, j, r.id, "en", r.text["en"], (r.tool,), "bm25", len(tools))
            for r in requests[:6]]
    rows = agents.rows(outs, [1, 3, len(tools), 99], "bm25")
    assert [r.k for r in rows] == [1, 3, len(tools)]
    assert rows[0].accuracy == rows[0].router and rows[-1].agree == 1.0 and rows[-1].recall == 1.0
    assert rows[0].judge_calls < rows[1].judge_calls < rows[2].judge_calls


def test_a_result_survives_json_and_a_damaged_file_is_refused(measured):
    r = record.Result("dev", "bm25", "likelihood", "torch", 12, 100, "3.11.7", "cpu", 1, 0.5,
                      cascade.stage_quality(measured), tuple(cascade.table(measured, [1, 3], [0.0, 1.0], "bm25")),
                      tuple(measured))
    back = record.from_json(r.to_json())
    assert back == r
    data = json.loads(r.to_json())
    bad = [dict(data, outcomes=[dict(data["outcomes"][0], margin=2.0)]),
           dict(data, rows=[dict(data["rows"][0], mrr="high")]),
           {k: v for k, v in data.items() if k != "split"},
           dict(data, outcomes=[dict(data["outcomes"][0], judge=[1.0])])]
    for damaged in bad:
        with pytest.raises(ResultError):
            record.from_json(json.dumps(damaged))
    with pytest.raises(ResultError):
        record.from_json(r.to_json().replace('"margin": 0', '"margin": NaN', 1))


def test_the_cli_prints_the_table_and_writes_a_result_that_reads_back(tiny_dirs, tmp_path, capsys):
    from specdec.beyond.cli import main
    out = tmp_path / "cascade.json"
    code = main(["cascade", "--split", "dev", "--limit", "3", "--pool", "1,2", "--gate", "0,1", "--reference", "3",
                 "--k", "1,24", "--modules", "json,csv", "--no-dense", "--first", "dense",
                 "--target", str(tiny_dirs / "target"), "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "lang pool gate" in printed and "agents:" in printed and "first stage bm25" in printed
    r = record.from_json(out.read_text())
    assert len(r.outcomes) == 3 and len(r.rows) == 2 * 2 and [a.k for a in r.agent_rows] == [1, 24]
    assert main(["cascade", "--gate", "2"]) == 2                       # a gate outside [0, 1]


def test_the_agents_caption_says_where_the_judge_helps_or_that_it_does_not():
    from specdec.beyond.record import AgentRow
    from ui.lessons.beyond import agents_verdict

    def row(k, accuracy, recall):
        return AgentRow("en", k, accuracy=accuracy, router=0.30, recall=recall, agree=0.5, judge_calls=k, ms=1.0)
    helps = agents_verdict([row(1, 0.30, 0.30), row(2, 0.35, 0.45), row(10, 0.24, 0.95), row(24, 0.18, 1.0)])
    assert "helps most over the router's top 2: the right tool 35% of the time against 30%" in helps
    assert "among the router's top 10 for 95% of requests" in helps
    assert "all 24 tools the judge is right for 18%" in helps
    weaker = agents_verdict([row(1, 0.30, 0.30), row(2, 0.28, 0.98)])
    assert "No k beats the router alone (30%)" in weaker and "top 2 for 98%" in weaker


def test_passage_vectors_are_read_from_the_shipped_copy_where_the_store_has_none(tmp_path, monkeypatch):
    """A first start embeds nothing where the app ships the corpus' vectors; the store's own copy
    comes first, and a file of the wrong shape is no copy."""
    import numpy as np

    from specdec.beyond import dense
    texts = ["a passage", "another"]
    shipped, store = tmp_path / "shipped", tmp_path / "store"
    monkeypatch.setattr(dense, "SHIPPED", shipped)
    assert dense.kept_vectors(texts, store) is None
    shipped.mkdir()
    np.save(dense.vectors_path(texts, shipped), np.ones((2, 384), dtype=np.float32))
    assert dense.kept_vectors(texts, store).sum() == 2 * 384
    store.mkdir()
    np.save(dense.vectors_path(texts, store), np.zeros((2, 384), dtype=np.float32))
    assert dense.kept_vectors(texts, store).sum() == 0                          # the store's own first
    np.save(dense.vectors_path(texts, store), np.zeros((3, 384), dtype=np.float32))
    assert dense.kept_vectors(texts, store).sum() == 2 * 384                   # wrong shape: the shipped one


def test_the_corpus_is_the_same_in_every_process():
    """Built here (under pytest, which replaces threading's hook) and in a fresh process with another
    environment and folder: the same passages, none showing the environment, a path or an address
    (the vectors shipped for the corpus are found by its digest)."""
    import json
    import os
    import subprocess
    import sys

    from specdec.beyond import corpus
    only = ("sys", "threading", "platform", "cgi", "logging", "shutil", "socket")
    here = [[p.id, p.title, p.text] for p in corpus.build(only=only, topics=False)]
    code = (f"import json; from specdec.beyond import corpus; print(json.dumps([[p.id, p.title, p.text] for p in "
            f"corpus.build(only={only!r}, topics=False)]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/",
                          env={**os.environ, "PYTHONPATH": str(corpus.ROOT), "SPECDEC_PROBE": "elsewhere"})
    assert json.loads(done.stdout) == here
    titles = " ".join(title for _id, title, _text in here)
    assert " at 0x" not in titles and os.environ["PATH"] not in titles and sys.executable not in titles
    assert "threading.excepthook" in {i for i, _t, _x in here} and "environ=os.environ" in titles
