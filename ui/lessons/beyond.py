"""Beyond tokens (issue 41): what the page computes from the shipped cascade measurement and
from a learner's own question. No Streamlit here.

The shipped result is specdec.beyond's record (python -m specdec.beyond cascade), measured on
the held-out half and filed by scripts/beyond_ship.py under kind "beyond" (ui/lessons/shipped.py).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from specdec.beyond import cascade, queries
from specdec.beyond.agents import TOOLS
from specdec.beyond.judge import Judge
from specdec.beyond.record import Result
from specdec.beyond.stages import Stages, cheap
from specdec.wording import _
from ui.lessons import shipped

KIND = "beyond"


def key(split: str = "held-out") -> dict:
    """What a shipped result is filed under: the split and the labelled sets' contents."""
    digest = hashlib.sha1(queries.QUERIES.read_bytes() + TOOLS.read_bytes()).hexdigest()[:12]
    return {"split": split, "labels": digest, "target": "smollm2/target"}


def questions() -> list[queries.Query]:
    return queries.load()


def shipped_result() -> Result | None:
    """The shipped measurement of the current labelled sets (its provenance says where it was taken)."""
    found = shipped.load(KIND, key(), Result)
    return one_reference(found) if found is not None else None


def one_reference(result: Result) -> Result:
    """The result with judge everywhere over the same number of passages in every language (the
    fewest any language was measured with), its rows and judge-everywhere scores recomputed."""
    n = min(max(len(o.first) for o in result.outcomes if o.lang == lang) for lang in languages(result))
    if all(len(o.first) <= n for o in result.outcomes):
        return result
    trimmed = [replace(o, first=o.first[:n], judge=o.judge[:n], ms_each=o.ms_each[:n]) for o in result.outcomes]
    pools, gates = sorted({r.pool for r in result.rows}), sorted({r.gate for r in result.rows})
    every = cascade.stage_quality(trimmed)["judge-everywhere"]
    return replace(result, reference=n, outcomes=tuple(trimmed),
                   rows=tuple(cascade.table(trimmed, pools, gates, result.first_stage)),
                   stages={**result.stages, "judge-everywhere": every})


def careful_step_words(result: Result | None, lang: str) -> str:
    """Whether the careful step is the better one on Beyond tokens, from its shipped numbers."""
    if result is None or lang not in languages(result):
        return _("In speculative decoding the careful step is the target itself, so the text is exactly the "
                 "target's; elsewhere a cascade is only as good as its careful step.")
    cheap_mrr = result.stages[result.first_stage][lang]["mrr"]
    best = result.stages["judge-everywhere"][lang]["mrr"]
    if best >= cheap_mrr:
        return _("On *Beyond tokens* the careful step is also the better one (MRR@10 {best:.3f} against "
                 "{cheap:.3f} for the cheap stage alone), so the cascade keeps its quality.").format(
            best=best, cheap=cheap_mrr)
    return _("That needs a careful step that is also the better one. On *Beyond tokens* it is not: the small "
             "judge ranks worse (MRR@10 {best:.3f}) than the cheap stage alone ({cheap:.3f}). In speculative "
             "decoding the careful step is the target itself, so the text is exactly the target's.").format(
        best=best, cheap=cheap_mrr)


def rows(result: Result, lang: str, pool: int | None = None, gate: float | None = None) -> list:
    return [r for r in result.rows if r.lang == lang and (pool is None or r.pool == pool)
            and (gate is None or r.gate == gate)]


def languages(result: Result) -> list[str]:
    return sorted({r.lang for r in result.rows})


def pools(result: Result, lang: str) -> list[int]:
    return sorted({r.pool for r in rows(result, lang)})


def gates(result: Result, lang: str) -> list[float]:
    return sorted({r.gate for r in rows(result, lang)})


def everywhere(result: Result, lang: str) -> int:
    """How many passages judge everywhere judged per question in this language."""
    return max(len(o.first) for o in result.outcomes if o.lang == lang)


@dataclass(frozen=True)
class Pool:
    """The smallest pool that gets close to judge everywhere, and what it costs."""
    pool: int
    calls: float                   # its judge calls as a share of judge everywhere's
    mrr: float | None = None       # within: its MRR@10, and judge everywhere's (best)
    best: float | None = None
    agree: float | None = None     # agreeing: the share of questions whose top answer is the same


def within(result: Result, lang: str, share: float = 0.02) -> Pool | None:
    """The smallest pool whose MRR@10 is within `share` of judge everywhere's, and its judge calls
    as a share of judge everywhere's (None: no pool gets that close)."""
    best = result.stages.get("judge-everywhere", {}).get(lang, {}).get("mrr")
    if best is None:
        return None
    for r in sorted(rows(result, lang, gate=0.0), key=lambda r: r.pool):
        if r.mrr >= best * (1 - share):
            return Pool(r.pool, r.judge_calls / everywhere(result, lang), mrr=r.mrr, best=best)
    return None


def agreeing(result: Result, lang: str, share: float = 0.98) -> Pool | None:
    """The smallest pool whose top answer is judge everywhere's for at least `share` of the
    questions (the exactness the cascade buys with judge calls), and those calls' share."""
    for r in sorted(rows(result, lang, gate=0.0), key=lambda r: r.pool):
        if r.agree >= share:
            return Pool(r.pool, r.judge_calls / everywhere(result, lang), agree=r.agree)
    return None


@dataclass(frozen=True)
class Design:
    name: str              # an id the page translates
    ms: float              # per query, one thread
    judge_calls: float

    @property
    def per_second(self) -> float:
        """Queries per second on one core (the measurements ran on one thread)."""
        return 1e3 / self.ms if self.ms > 0 else 0.0


def agents_verdict(rows: list) -> str:
    """What the agents table shows, from its rows (one language): where the judge helps, or that
    it does not, and where the right tool was among the router's proposals."""
    best = max(rows, key=lambda r: (r.accuracy, -r.k))
    near = min((r for r in rows if r.recall >= 0.9), key=lambda r: r.k, default=max(rows, key=lambda r: r.k))
    if best.accuracy > best.router:
        head = _("The judge helps most over the router's top {k}: the right tool {acc:.0%} of the time against "
                 "{router:.0%} for the router alone.").format(k=best.k, acc=best.accuracy, router=best.router)
    else:
        head = _("No k beats the router alone ({router:.0%}): the judge is the weaker link here.").format(
            router=best.router)
    return head + " " + _("The right tool is among the router's top {k} for {recall:.0%} of requests; over all "
                          "{n} tools the judge is right for {all:.0%}.").format(
        k=near.k, recall=near.recall, n=max(r.k for r in rows), all=max(rows, key=lambda r: r.k).accuracy)


def scale(result: Result, lang: str, pool: int, gate: float) -> list[Design]:
    """The designs side by side at the page's pool and gate, from the same measured outcomes."""
    mine = [o for o in result.outcomes if o.lang == lang]
    first = result.first_stage
    cheap_ms = sum(cascade.cheap_ms(o, first) for o in mine) / len(mine)
    every = cascade.row(mine, everywhere(result, lang), 0.0, first)
    judged = cascade.row(mine, pool, 0.0, first)
    gated = cascade.row(mine, pool, gate, first)
    return [Design("cheap stage only", cheap_ms, 0.0), Design("cascade", gated.ms, gated.judge_calls),
            Design("judge the pool", judged.ms, judged.judge_calls),
            Design("judge everywhere", every.ms, every.judge_calls)]


@dataclass(frozen=True)
class Candidate:
    id: str
    title: str
    text: str
    bm25: float
    dense: float | None
    first_rank: int        # 1-based, in the first stage's order
    judge: float


def live(stages: Stages, judge: Judge, text: str, pool: int, first: str) -> tuple[list[Candidate], dict]:
    """The learner's question through the stages: the pool's candidates in the judge's order,
    and the time each stage took (ms)."""
    c = cheap(stages, text)
    picked = [int(i) for i in c.rankings[first][:pool]]
    scores = judge.scores(text, [stages.passages[i].body for i in picked])
    out = [Candidate(stages.ids[i], stages.passages[i].title, stages.passages[i].text, float(c.scores["bm25"][i]),
                     float(c.scores["dense"][i]) if "dense" in c.scores else None, rank + 1, s)
           for rank, (i, s) in enumerate(zip(picked, scores))]
    ms = {**c.ms, "judge": judge.prefix_ms + sum(judge.each_ms)}
    return sorted(out, key=lambda x: -x.judge), ms
