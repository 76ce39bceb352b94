"""The "Many drafts at once" lesson: chain against tree, the price of a wide pass, and the
per-node rules checked for exactness on the pair's real first-position p and q."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace
from typing import Callable

import torch

from specdec.bench import machine
from specdec.bench.measure import machine_load, step_ms
from specdec.bench.pass_prices import PassPrices
from specdec.drafters.registry import chain_for
from specdec.engine.decoder import generate
from specdec.engine.prompt import Prompt
from specdec.models.kernels import cpu_model
from specdec.records.provenance import Provenance, here
from specdec.rules.tree import TreeRule, verify_deterministic_children, verify_sampled_children, wrong_match_rule
from specdec.settings import Settings
from specdec.trace.metrics import summarize
from specdec.wording import N_, _

ROW_NAMES = {"alone": N_("target alone"), "chain": N_("chain, k = {k}"), "tree": N_("tree, {n} nodes, width {w}")}


@dataclass(frozen=True)
class Contender:
    kind: str                      # a key of ROW_NAMES
    settings: Settings


def contenders(base: Settings, budget: int, width: int, has_draft: bool) -> list[Contender]:
    """Target alone, a chain of `budget` drafts and a tree of `budget` nodes: chain and tree
    verify the same number of tokens per pass (budget + 1)."""
    kind = chain_for(has_draft, with_tree=True)       # the draft model's chain, else n-gram lookup
    chain, tree = kind.name, kind.tree_form
    return [Contender("alone", replace(base, mode="autoregressive")),
            Contender("chain", replace(base, drafter=chain, k=budget)),
            Contender("tree", replace(base, drafter=tree, k=budget, tree_budget=budget, tree_width=width))]


PROMPTS = 6             # chain against tree: prompts taken one of each kind in turn


@dataclass(frozen=True)
class Row:
    kind: str                       # a key of ROW_NAMES
    tokens_per_pass: float          # emitted tokens / target forwards
    by_depth: tuple[float, ...]     # acceptance at depth 1, 2, ... (metrics.per_position)
    tokens_per_s: tuple[float, ...]     # one per repeat
    verified_per_pass: float        # tokens the target read per pass (1 + drafted per round)
    drafts_per_round: float | None = None   # draft forwards a round (None: a record from before it was kept)

    @property
    def median_tps(self) -> float:
        return statistics.median(self.tokens_per_s)


@dataclass(frozen=True)
class ChainOrTree:
    """Chain against tree on one machine (a record: kept per machine, shipped with the app)."""
    budget: int                     # the chain's k and the tree's nodes
    width: int
    rows: tuple[Row, ...]           # target alone, chain, tree
    provenance: Provenance = Provenance()

    def name(self, row: Row) -> str:
        """The row's name in the page's language."""
        return row_name(row.kind, self.budget, self.width)


def row_name(kind: str, budget: int, width: int) -> str:
    """A contender's name (a key of ROW_NAMES) in the page's language."""
    return _(ROW_NAMES[kind]).format(k=budget, n=budget, w=width)


def _timed(pair, prompts: list[Prompt], settings: Settings):
    """(tokens/s, every run's rounds, the prompt passes that gave a run's first token: the target
    alone's, which no round counts)."""
    t0, rounds, tokens, first = time.perf_counter(), [], 0, 0
    for i, prompt in enumerate(prompts):
        run = generate(pair, prompt, settings, seed=i, lean=True)
        rounds += run.rounds
        tokens += len(run.token_ids)
        first += int(run.prefill is not None and run.prefill.first_token)
    return tokens / (time.perf_counter() - t0), rounds, first


def compare(pair, prompts: list[Prompt], base: Settings, budget: int, width: int, repeats: int = 3,
            progress: Callable = lambda *_: None) -> ChainOrTree:
    """Every contender on the same prompts and seeds; repeats interleaved, so a slow spell of
    the machine hits every row alike."""
    started, load = time.perf_counter(), machine_load()
    cs = contenders(base, budget, width, pair.draft is not None)
    speeds: dict[int, list[float]] = {j: [] for j in range(len(cs))}
    rounds: dict[int, tuple[list, int]] = {}
    for r in range(repeats):
        for j, c in enumerate(cs):
            progress(r * len(cs) + j, repeats * len(cs),
                     _("{name} (repeat {r})").format(name=row_name(c.kind, budget, width), r=r + 1))
            tps, rnds, first = _timed(pair, prompts, c.settings)
            speeds[j].append(tps)
            rounds.setdefault(j, (rnds, first))
            load = max(load, machine_load())
    out = []
    for j, c in enumerate(cs):
        m = summarize(rounds[j][0])
        out.append(Row(c.kind, m.tokens / (m.target_forwards + rounds[j][1]), tuple(m.per_position),
                       tuple(speeds[j]), 1 + m.drafted / m.rounds, m.draft_forwards / m.rounds))
    return ChainOrTree(budget, width, tuple(out), here(pair, load, started))


def pass_prices(pair, sizes=(1, 4, 8, 16, 32), reps: int = 3, rounds: int = 5) -> PassPrices:
    """v(n): an n-token target pass over a one-token step, timed the same way on this machine (so
    v(1) = 1), as the record the GPU measurement ships: `rounds` rounds that each time every width
    in turn, v the median of each round's ratio (machine.ratio: one click had given a 32-token
    pass 9.7, 7.0 and 4.1 steps as the load moved between widths)."""
    started, load, widths = time.perf_counter(), machine_load(), sorted(set(sizes) | {1})
    ms: dict[int, list[float]] = {n: [] for n in widths}
    for _round in range(rounds):
        for n in widths:
            ms[n].append(step_ms(pair.passes, pair.vocab_size, tokens=n, reps=reps))
        load = max(load, machine_load())
    dtype = str(next(pair.target.parameters()).dtype).removeprefix("torch.")
    return PassPrices(pair.target_name, cpu_model(), dtype, statistics.median(ms[1]), tuple(sizes),
                      tuple(machine.ratio(ms[n], ms[1]) for n in sizes), {}, here(pair, load, started))


RULES = {   # shown through _()
    N_("sampled children, min(1, p/q) and the residual"): TreeRule.SAMPLED,
    N_("top-w children as point masses, p(x) and remove x"): TreeRule.DETERMINISTIC,
    N_("wrong: sample one target token per child, keep a match"): "wrong",
}


def first_token_law(rule: str, p: torch.Tensor, q: torch.Tensor, width: int, n: int,
                    seed: int = 0) -> torch.Tensor:
    """Empirical law (V,) of the token a node emits (its accepted child, else the fallback)
    over n independent trials of `rule` with `width` children."""
    g = torch.Generator().manual_seed(seed)
    counts = torch.zeros_like(p, dtype=torch.float64)
    top = q.topk(width).indices.tolist()
    for _draw in range(n):
        if rule == TreeRule.SAMPLED:
            kids = torch.multinomial(q, width, replacement=True, generator=g).tolist()
            v = verify_sampled_children(kids, q, p, g)
        elif rule == TreeRule.DETERMINISTIC:
            kids, v = top, verify_deterministic_children(top, p, g)
        else:
            kids, v = top, wrong_match_rule(top, p, g)
        token = kids[v.accepted_child] if v.accepted_child is not None else v.token
        counts[token] += 1
    return counts / n


def total_variation(a: torch.Tensor, b: torch.Tensor) -> float:
    return 0.5 * float((a.double() - b.double()).abs().sum())


@dataclass(frozen=True)
class Noise:
    """TV between p and n draws from p itself, over many such sets: what sampling noise alone gives."""
    mean: float
    high: float          # 19 of 20 sets stay at or below it (the 95th percentile)


def noise_floor(p: torch.Tensor, n: int, seed: int = 1, sets: int = 200) -> Noise:
    """`sets` sets of n draws from p, each set's TV to p: their mean and 95th percentile."""
    g = torch.Generator().manual_seed(seed)
    draws = torch.multinomial(p.double(), n * sets, replacement=True, generator=g).view(sets, n)
    tvs = sorted(total_variation(torch.bincount(d, minlength=len(p)).double() / n, p) for d in draws)
    return Noise(sum(tvs) / sets, tvs[int(0.95 * (sets - 1))])


def twins(tree) -> int:
    """Nodes that repeat a sibling's token (the same parent and token): sampled children are
    independent draws from q, so a likely token can be drawn twice."""
    return len(tree.nodes) - len({(node.parent, node.token) for node in tree.nodes})


def twins_note(n: int) -> str:
    return _("{n} node(s) repeat a sibling's token: sampled children are independent draws from q, so a likely "
             "token can come twice. Each copy is one more try against what is left of p, and the output stays "
             "exact.").format(n=n)
