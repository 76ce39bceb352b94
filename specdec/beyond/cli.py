"""`python -m specdec.beyond cascade ...`: measure the cascade on a split of the labelled
queries (and the agents part on the labelled requests), print the tables, write the JSON.

    python -m specdec.beyond cascade --pool 5,10,20,50 --gate 0,0.5,0.9,1 --split held-out --out cascade.json
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from specdec.beyond import agents, corpus, queries, run, stages
from specdec.beyond.judge import FORMATS, Judge
from specdec.beyond.record import Result
from specdec.errors import InputError
from specdec.files import atomic
from specdec.models.names import DEFAULT_TARGET


def numbers(kind):
    return lambda text: [kind(x) for x in text.split(",") if x.strip()]


def references(text: str) -> dict:
    """"50" (every language) or "en:30,ko:10"."""
    if ":" not in text:
        return {lang: int(text) for lang in queries.LANGUAGES}
    return {lang: int(n) for lang, n in (part.split(":") for part in text.split(","))}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m specdec.beyond", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("cascade", help="cheap stages propose, the target judges: the table and its JSON")
    p.add_argument("--pool", type=numbers(int), default=[1, 2, 3, 5, 10, 20, 50], help="pool sizes n (comma-separated)")
    p.add_argument("--gate", type=numbers(float), default=[0.0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0],
                   help="gates g in [0, 1]: skip the judge when the first stage's margin is above 1 − g")
    p.add_argument("--split", default="held-out", choices=list(queries.SPLITS))
    p.add_argument("--lang", type=lambda t: t.split(","), default=["en"], help="en, ko or en,ko")
    p.add_argument("--first", default="dense", choices=list(stages.FIRST_STAGES),
                   help="what fills the pool (dense: the best recall@20 on the development half)")
    p.add_argument("--judge", default="likelihood", choices=list(FORMATS),
                   help="how the judge scores (likelihood: the better MRR@10 on the development half)")
    p.add_argument("--reference", type=references, default={"en": 50, "ko": 50},
                   help="judge everywhere = the judge over the first stage's top N (or per language: en:30,ko:10)")
    p.add_argument("--limit", type=int, default=0, help="only the first N queries and requests (0: all)")
    p.add_argument("--k", type=numbers(int), default=[1, 2, 3, 5, 10, 24], help="agents: tools proposed")
    p.add_argument("--no-agents", action="store_true", help="leave out the agents part")
    p.add_argument("--no-retrieval", action="store_true", help="only the agents part")
    p.add_argument("--agent-lang", type=lambda t: t.split(","), default=None, help="agents' languages (default --lang)")
    p.add_argument("--modules", type=lambda t: tuple(t.split(",")), default=None,
                   help="a corpus of these stdlib modules only, no topics (a quick run; labels elsewhere miss)")
    p.add_argument("--no-dense", action="store_true", help="leave out the embedding stage")
    p.add_argument("--target", default=DEFAULT_TARGET, help="the judge: embedded name, local dir or hub id")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, help="write the result's JSON here")
    c = sub.add_parser("corpus", help="build the corpus from this Python's docs (kept in build/beyond/)")
    c.add_argument("--vectors", action="store_true", help="and the embedding stage's passage vectors")
    return ap


def build_corpus(args) -> int:
    t0 = time.perf_counter()
    passages = corpus.load()
    line = f"corpus: {len(passages)} passages ({corpus.store_path().name}, {time.perf_counter() - t0:.1f} s)"
    if args.vectors:
        torch.set_num_threads(max(1, torch.get_num_threads()))
        run.open_stages(passages)
        line += f"; embeddings ready ({time.perf_counter() - t0:.0f} s)"
    print(line)
    return 0


def progress(what: str):
    t0 = time.perf_counter()

    def say(done: int, total: int) -> None:
        if done == total or done % 5 == 0:
            print(f"  {what}: {done}/{total} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    return say


def measure(args) -> Result:
    from specdec.models.pair import load_pair
    pair = load_pair(args.target, None)
    passages = corpus.build(args.modules, topics=False) if args.modules else corpus.load()
    st = stages.build(passages) if args.no_dense else run.open_stages(passages)
    first = args.first if args.first in st.first_stages else "bm25"
    qs = [] if args.no_retrieval else queries.load(split=args.split)[:args.limit or None]
    reference = {lang: max(max(args.pool), args.reference.get(lang, 50)) for lang in args.lang}
    outcomes = run.retrieval(st, Judge(pair, args.judge), qs, args.lang, first, reference, progress("queries"))
    tool_outcomes = []
    if not args.no_agents:
        tools, requests = agents.load(split=args.split)
        router = stages.build(tools, st.dense, None)        # 24 short texts: embedded at once
        tool_outcomes = run.tools(router, Judge(pair, args.judge, "tool"), requests[:args.limit or None],
                                  args.agent_lang or args.lang, first, progress("requests"))
    return run.result(args.split, first, Judge(pair, args.judge), max(reference.values()), len(passages),
                      outcomes, args.pool, args.gate, tool_outcomes, args.k)


def show(r: Result) -> str:
    lines = [f"{r.corpus_size} passages, split {r.split}, first stage {r.first_stage}, judge {r.judge_format} "
             f"on {r.judge_backend}, judge everywhere = the judge over the first stage's top {r.reference}; {r.cpu}, "
             f"load {r.load:.1f} per core",
             "", "stage alone            lang  MRR@10  nDCG@10"]
    for name, by_lang in r.stages.items():
        lines += [f"{name:22s} {lang:4s}  {m['mrr']:.3f}   {m['ndcg']:.3f}" for lang, m in by_lang.items()]
    lines += ["", "lang pool gate  MRR@10 nDCG@10 recall agree differ skipped judge/q  ms/q"]
    lines += [f"{w.lang:4s} {w.pool:4d} {w.gate:4.2f}  {w.mrr:.3f}  {w.ndcg:.3f}  {w.recall:.3f}  {w.agree:.3f} "
              f"{w.differ:.3f}  {w.skipped:.3f}  {w.judge_calls:6.1f} {w.ms:6.0f}" for w in r.rows]
    if r.agent_rows:
        lines += ["", "agents: lang  k  accuracy router recall agree judge/q  ms/q"]
        lines += [f"        {a.lang:4s} {a.k:2d}  {a.accuracy:.3f}    {a.router:.3f}  {a.recall:.3f}  {a.agree:.3f} "
                  f"{a.judge_calls:5.1f}  {a.ms:6.0f}" for a in r.agent_rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "corpus":
        return build_corpus(args)
    if args.threads < 1 or any(p < 1 for p in args.pool) or any(not 0 <= g <= 1 for g in args.gate) \
            or set(args.lang) - set(queries.LANGUAGES):
        print("error: threads and pools must be ≥ 1, gates in [0, 1], languages en or ko", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    try:
        r = measure(args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(show(r))
    if args.out:
        atomic.write_text(args.out, r.to_json())
    return 0
