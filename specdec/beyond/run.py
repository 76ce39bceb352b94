"""A whole measurement: the stages built, every query of a split through them, the table.

`retrieval` and `tools` return per-query outcomes (the slow part: the judge); `result`
assembles the record from them with the pure functions of cascade.py and agents.py.
"""
from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import Callable

import torch

from specdec.beyond import agents, cascade, corpus, dense, queries, stages
from specdec.beyond.judge import Judge
from specdec.beyond.record import Outcome, Result
from specdec.models.kernels import cpu_model
from specdec.records.provenance import Clock, here

Progress = Callable[[int, int], None]


def open_stages(passages: list[corpus.Passage], store=corpus.STORE) -> stages.Stages:
    """BM25, plus embeddings when the packaged model is installed (else the stage is skipped
    and a line on stderr says why)."""
    folder = dense.model_folder()
    if folder is None:
        print(f"specdec: no embedding stage: the package {dense.PACKAGE} is not installed", file=sys.stderr)
        return stages.build(passages)
    return stages.build(passages, dense.Dense(folder), store)


def retrieval(st: stages.Stages, judge: Judge, qs: list[queries.Query], langs: list[str], first: str,
              reference: dict, progress: Progress | None = None) -> list[Outcome]:
    """Every query in every language; `reference`: language -> how many first-stage passages
    the judge scores (judge everywhere)."""
    out, total = [], len(qs) * len(langs)
    for lang in langs:
        for q in qs:
            out.append(cascade.measure(st, judge, q.id, lang, q.text[lang], q.answers, first, reference[lang]))
            if progress:
                progress(len(out), total)
    return out


def tools(router: stages.Stages, judge: Judge, requests: list[agents.Request], langs: list[str], first: str,
          progress: Progress | None = None) -> list[Outcome]:
    """Every request in every language, the judge over every tool in the router's order."""
    out, total, every = [], len(requests) * len(langs), len(router.passages)
    for lang in langs:
        for r in requests:
            out.append(cascade.measure(router, judge, r.id, lang, r.text[lang], (r.tool,), first, every))
            if progress:
                progress(len(out), total)
    return out


def result(split: str, first: str, judge: Judge, reference: int, corpus_size: int, outcomes: list[Outcome],
           pools: list[int], gates: list[float], tool_outcomes: list[Outcome], ks: list[int]) -> Result:
    v, load = sys.version_info, round(os.getloadavg()[0] / (os.cpu_count() or 1), 2)
    return Result(
        split, first, judge.fmt, judge.backend.name, reference, corpus_size, f"{v.major}.{v.minor}.{v.micro}",
        cpu_model(), torch.get_num_threads(), load, cascade.stage_quality(outcomes),
        tuple(cascade.table(outcomes, pools, gates, first)), tuple(outcomes),
        tuple(agents.rows(tool_outcomes, ks, first)) if tool_outcomes else (), tuple(tool_outcomes),
        replace(here(load=load), backend=judge.backend.name, clock=Clock.WALL))      # its ms are wall-clock
