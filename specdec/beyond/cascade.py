"""Cheap proposes, expensive decides: the pipeline, the confidence gate and the table.

For pool size n the judge re-orders the first stage's top n (the rest keep the first stage's
order); "judge everywhere" is the judge over the whole reference pool (the first stage's top
R, every pool size's superset), the analogue of decoding with the target alone. The gate g ∈
[0, 1] lets a query through without the judge when the first stage's margin is above 1 − g:
g = 0 never skips (the full pipeline, exactly), g = 1 skips every query with any margin. The
skipped sets grow with g, so the share of answers that differ from the full pipeline can only
rise: unlike speculative decoding, which checks every token, a skipped check is a lost one.

Everything below `measure` is a pure function of the measured outcomes.
"""
from __future__ import annotations

from specdec.beyond import metrics
from specdec.beyond.judge import Judge
from specdec.beyond.record import Outcome, Row
from specdec.beyond.stages import Stages, cheap, first_margin

TOP = 10          # MRR@10, nDCG@10


def measure(stages: Stages, judge: Judge, qid: str, lang: str, text: str, answers: tuple[str, ...],
            first: str, reference: int) -> Outcome:
    """One query through every stage: the judge scores the first stage's top `reference`."""
    c = cheap(stages, text)
    pool = [int(i) for i in c.rankings[first][:reference]]
    scores = judge.scores(text, [stages.passages[i].body for i in pool])
    return Outcome(qid, lang, tuple(answers), tuple(stages.ids[i] for i in pool), tuple(scores),
                   first_margin(c, first),
                   {name: [stages.ids[int(i)] for i in r[:TOP]] for name, r in c.rankings.items()},
                   {k: round(v, 3) for k, v in c.ms.items()}, round(judge.prefix_ms, 3),
                   tuple(round(t, 3) for t in judge.each_ms))


def judged(o: Outcome, pool: int) -> list[str]:
    """The final ranking with the judge on the top `pool`: those by judge score (ties keep the
    first stage's order), then the rest in the first stage's order."""
    n = min(pool, len(o.first))
    top = sorted(range(n), key=lambda i: -o.judge[i])
    return [o.first[i] for i in top] + list(o.first[n:])


def skips(o: Outcome, gate: float) -> bool:
    """The gate lets the query through unjudged when the first stage is this sure of its top."""
    return o.margin > 1.0 - gate


def final(o: Outcome, pool: int, gate: float) -> list[str]:
    return list(o.first) if skips(o, gate) else judged(o, pool)


def cheap_ms(o: Outcome, first: str) -> float:
    used = ("bm25", "dense") if first == "hybrid" else (first,)
    return sum(o.ms_cheap.get(s, 0.0) for s in used)


def row(outcomes: list[Outcome], pool: int, gate: float, first: str) -> Row:
    """The mean over `outcomes` (one language) of every column at this pool size and gate."""
    lang = outcomes[0].lang
    finals = [final(o, pool, gate) for o in outcomes]
    skipped = [skips(o, gate) for o in outcomes]
    calls = [0 if s else min(pool, len(o.first)) for o, s in zip(outcomes, skipped)]
    mean = metrics.mean
    return Row(
        lang, pool, gate,
        mrr=mean(metrics.reciprocal_rank(f, o.answers, TOP) for f, o in zip(finals, outcomes)),
        ndcg=mean(metrics.ndcg(f, o.answers, TOP) for f, o in zip(finals, outcomes)),
        recall=mean(metrics.recall(list(o.first), o.answers, pool) for o in outcomes),
        agree=mean(f[0] == judged(o, len(o.first))[0] for f, o in zip(finals, outcomes)),
        differ=mean(f[0] != judged(o, pool)[0] for f, o in zip(finals, outcomes)),
        skipped=mean(skipped), judge_calls=mean(calls),
        ms=mean(cheap_ms(o, first) + (0.0 if s else o.ms_prefix + sum(o.ms_each[:n]))
                for o, s, n in zip(outcomes, skipped, calls)))


def table(outcomes: list[Outcome], pools: list[int], gates: list[float], first: str) -> list[Row]:
    """Every (language, pool, gate) row; pools past the reference pool are left out."""
    rows = []
    for lang in sorted({o.lang for o in outcomes}):
        mine = [o for o in outcomes if o.lang == lang]
        largest = min(len(o.first) for o in mine)
        for pool in [p for p in pools if p <= largest]:
            rows += [row(mine, pool, g, first) for g in gates]
    return rows


def stage_quality(outcomes: list[Outcome]) -> dict:
    """MRR@10 and nDCG@10 of each stage alone, and of judge everywhere, per language."""
    out: dict = {}
    for o in outcomes:
        rankings = {**o.stage_top, "judge-everywhere": judged(o, len(o.first))}
        for name, ranking in rankings.items():
            out.setdefault(name, {}).setdefault(o.lang, []).append(
                (metrics.reciprocal_rank(ranking, o.answers, TOP), metrics.ndcg(ranking, o.answers, TOP)))
    return {name: {lang: {"mrr": metrics.mean(v[0] for v in vals), "ndcg": metrics.mean(v[1] for v in vals)}
                   for lang, vals in by_lang.items()} for name, by_lang in out.items()}

