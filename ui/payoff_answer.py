"""Does it pay here? The one answer (specdec/bench/payoff.py) for the active pair and a page's settings:
this machine's newest measurement at them, the prediction from its profile (calibrated by how its earlier
measurements landed), where the tokens a round came from, and what drafting k by its prices would give
instead. ui/payoff_view.py shows it in the box on Home, Step through, When it is fast and Drafters compared."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from specdec import defaults
from specdec.bench import machine, payoff, repriced
from specdec.bench.points import Sweep
from specdec.bench.record import RowKind
from specdec.drafters.policies import PRICED
from specdec.drafters.registry import DRAFTERS
from specdec.models.kernels import cpu_model
from specdec.settings import LENGTHS
from specdec.trace.theory import run_speedup
from ui import family, session, state, typical
from ui.i18n import _
from ui.lessons import fast, payoff_words, shipped, speed_table, store
from ui.lessons.bottom_line import Run


def measured(names: tuple, settings) -> tuple[payoff.Measured | None, float | None]:
    """This machine's newest figure for the settings (store.newest), as the answer holds it, and
    its α̂ (None where it has none)."""
    drafts = (names[1],) if DRAFTERS[settings.drafter].needs_draft_model else (None, names[1])
    filed = [e for e in store.filed_here(names[0], drafts, settings, state.ran()) if e[1].figure.speedup is not None]
    if not filed:
        return None, None
    key, f = filed[0][0], filed[0][1].figure
    v = None if filed[0][1].source == "tradeoff" else f.verify_cost     # the draft sizes price no pass (v is 1 there
    return payoff.Measured(f.speedup, f.speedup_min or f.speedup, f.speedup_max or f.speedup, f.repeats,  # by design)
                           f.clock, f.mean_acceptance_length, filed[0][1].source, key.prompts.size,
                           tuple(e[1].figure.speedup for e in filed), f.c, f.acceptance_rate, f.alpha,
                           v, filed[0][1].at, repriced.overheads(f), load=f.load, wall=f.speedup_wall), f.alpha


def answer(pair, settings) -> tuple[payoff.Payoff, payoff.Payoff | None]:
    """The answer for `pair` (a loaded Pair) with `settings` on this machine, and what drafting k by
    this machine's prices would predict instead where the settings ask for another policy and that
    pays more (None otherwise)."""
    prices = machine.prices(machine.of(pair), pair, settings.drafter)
    found, usual, alpha = acceptance(pair, settings)
    fared = calibration(pair, settings, prices)
    p = replace(payoff.answer(settings.k, prices, found, usual, alpha if settings.policy == PRICED else None),
                band=fared)
    if settings.policy == PRICED and p.measured is None and prices is not None:
        picked = at_its_k(pair, settings, prices, p).calibrated()                 # one figure for the k it picks
        if (m := seen_at(pair, settings, picked.k)) is not None:                 # that k, measured: the answer
            picked = replace(picked, measured=m, constant=True)                  # (its prediction as the offer's)
        return picked, None
    if settings.policy == PRICED or alpha is None or prices is None:
        return p.calibrated(), None
    instead = replace(payoff.answer(settings.k, prices, None, None, alpha, p.over, p.over_on or _("the measured runs")),
                      tokens_on=usual.on if usual else "", band=fared)              # where α̂ came from
    instead, p = at_its_k(pair, settings, prices, instead).calibrated(), p.calibrated()
    figure = p.measured.speedup if p.measured else p.predicted
    better = instead.predicted is not None and (figure is None or instead.predicted > figure + 0.02)
    tried = measured_at(pair, settings, instead.k) is not None          # the answer to its button's click
    return p, instead if better or (tried and instead.k != settings.k) else None


def at_its_k(pair, settings, prices, instead: payoff.Payoff) -> payoff.Payoff:
    """The priced prediction at the tokens a round measured at the k it picks, where a constant-k run
    was measured there (here, else the shipped k sweep, else the benchmark): the figure section 2 and
    the pair card price, one figure for that k (reviews 13–15). Else as it came (eq. (1) at α̂)."""
    names = tuple(st.session_state.get("active_pair") or (pair.target_name, pair.draft_name))
    found = kept_at(names, replace(settings, k=instead.k, policy="constant"), session.uses_chat(pair))
    if found is None or instead.k + 1 not in prices.v:
        return instead
    tokens, over, where, whose = found
    over, over_on = (over, whose) if over else (instead.over, instead.over_on)
    return replace(instead, alpha=None, tokens=tokens, over=over, over_on=over_on, tokens_on=where,
                   predicted=run_speedup(tokens, instead.k, prices.c, prices.v[instead.k + 1], *(over or ())))


def kept_at(names: tuple, at, chat: bool) -> tuple | None:
    """(tokens a round, what the runs paid besides their rounds, where, whose runs) of a constant-k run at
    `at`: measured here, else the shipped k sweep, else the benchmark (which kept no overheads)."""
    if (found := measured(names, at)[0]) is not None and found.tokens:
        return found.tokens, found.over, _("measured here"), _("the runs measured here")
    if (point := swept_point(names, at, chat)[0]) is not None and point.mean_acceptance_length:
        where = _("the shipped k sweep")
        return point.mean_acceptance_length, repriced.overheads(point), where, where
    if (row := bench_row(names, at)) is not None and row[0].mean_acceptance_length:
        return row[0].mean_acceptance_length, None, _("the benchmark"), ""
    return None


def calibration(pair, settings, prices) -> payoff.Band | None:
    """How this machine's measurements of the pair's drafter at a constant k (on a lesson's whole prompt
    set, with what their runs paid besides their rounds) fell against the box's prediction for each: the
    profile's prices, the tokens a round they kept, their overheads (None: fewer than three)."""
    if prices is None:
        return None
    names = st.session_state.get("active_pair") or (pair.target_name, pair.draft_name)
    ran, pairs = state.ran(), []
    for key, entry in store.filed_of(names[0], names[1]):
        f, over = entry.figure, repriced.overheads(entry.figure)
        if key.policy != "constant" or key.drafter != store.drafter_id(settings) or not store.whole_set(key.prompts) \
                or (key.threads, key.precision) != (ran.threads, ran.label()) \
                or not (f.speedup and f.mean_acceptance_length and over) or key.k + 1 not in prices.v:
            continue
        pairs.append((f.speedup, run_speedup(f.mean_acceptance_length, key.k, prices.c, prices.v[key.k + 1], *over),
                      key.k))
    alike = shipped_calibration(tuple(names), settings, prices, session.uses_chat(pair))
    return payoff.band(pairs + alike, shipped=len(alike))


def shipped_calibration(names: tuple, settings, prices, chat: bool) -> list[tuple[float, float, int]]:
    """The shipped k sweeps' points of the pair's draft model measured on this CPU model, at every T (how
    runs land against their profile's prices is the machine's, not the temperature's: one range for T = 0
    and T = 0.7 alike), each priced as the box prices: (measured, predicted, k) beside this machine's
    own ([]: no such sweep, or another drafter or policy)."""
    if store.drafter_id(settings) != typical.DEFAULT_DRAFTER or settings.policy not in ("constant", PRICED):
        return []
    sweeps = [sweep for key, sweep in speed_table.ran_alike("ksweep", Sweep, state.ran())
              if key.get("pair") == list(names) and bool(key.get("chat")) == chat
              and sweep.provenance.cpu == cpu_model()]
    return [(p.speedup, run_speedup(p.mean_acceptance_length, p.k, prices.c, prices.v[p.k + 1],
                                    *repriced.overheads(p)), p.k)
            for sweep in sweeps for p in sweep.points
            if p.speedup and p.mean_acceptance_length and repriced.overheads(p) and p.k + 1 in prices.v]


def acceptance(pair, settings) -> tuple[payoff.Measured | None, payoff.Elsewhere | None, float | None]:
    """What the answer knows of acceptance at these settings: this machine's measured figure, else
    the shipped k sweep's on the same prompts (`swept`), else the typical one (tokens a round,
    speedup, CPU), and α̂: the measured figure's, else the typical
    one's (a figure filed without α̂, as Drafters compared files them, takes the typical α̂; the priced
    policy, where nothing is filed for it, takes the α̂ filed for the constant one)."""
    names = st.session_state.get("active_pair") or (pair.target_name, pair.draft_name)
    found, alpha = measured(tuple(names), settings)
    if found is None and (alike := alike_at(tuple(names), settings, session.uses_chat(pair))) is not None:
        return alike, None, alike.alpha
    if alpha is None and settings.policy == PRICED:     # α is the models' and the text's, not the policy's
        alpha = measured(tuple(names), replace(settings, policy="constant"))[1]
    if found is not None and alpha is not None:
        return found, None, alpha
    point, cpu, date = swept_point(tuple(names), settings, session.uses_chat(pair))
    t = None if point is None else typical_of(point, cpu, session.uses_chat(pair))
    on = _("the shipped k sweep at k = {k}, on When it is fast's prompts").format(k=settings.k)
    if t is None:
        t = typical.typical(tuple(names), settings.k, settings.temperature, None, store.drafter_id(settings))
        on = _("the pair's typical run on Where it works' prompts of every kind")
    if found is not None:
        return found, None, t.alpha if t else None
    if t is None:
        return None, None, alpha
    spread = (point.speedup_min, point.speedup_max, date) if point is not None else (None, None, None)
    return None, payoff.Elsewhere(t.mean_acceptance_length, t.speedup, t.measured, on,
                                  t.over if point is None else repriced.overheads(point), *spread), \
        alpha if alpha is not None else t.alpha


def runs_by_k(pair, settings) -> dict[int, list[Run]]:
    """k -> the speedups of every whole-set run at a constant k and the settings' other values, measured here
    (any section) or in the k sweep shipped from a machine like this one: what the box's "In short" weighs."""
    if settings.policy not in ("constant", PRICED):
        return {}
    names = tuple(st.session_state.get("active_pair") or (pair.target_name, pair.draft_name))
    at = replace(settings, policy="constant")
    drafts = (names[1],) if DRAFTERS[settings.drafter].needs_draft_model else (None, names[1])
    out: dict[int, list[Run]] = {}
    sweep, cpu = shipped_sweep(names, at, session.uses_chat(pair))
    if sweep is not None and shipped.alike(cpu):                # shipped first: the older runs
        for p in sweep.points:
            out.setdefault(p.k, []).append(_run(p, here=False))
    for k, found in store.filed_by_k(names[0], drafts, at, state.ran()).items():
        out.setdefault(k, []).extend(_run(e.figure) for e in sorted(found, key=lambda e: e.at)
                                     if e.figure.speedup is not None)
    return out


def _run(figure, here: bool = True) -> Run:
    """A filed figure or a sweep point as one run: its speedup, its repeats' range, whose, and its repeats."""
    return Run(figure.speedup, figure.speedup_min or figure.speedup, figure.speedup_max or figure.speedup, here,
               figure.repeats or 1)


def alike_at(names: tuple, settings, chat: bool) -> payoff.Measured | None:
    """The shipped k sweep's point at these (constant-k) settings where a machine of this CPU model measured it:
    that machine's kind's measurement, the answer until this one measures its own (None: none, another CPU
    model's, or a policy that picks k)."""
    if settings.policy != "constant":
        return None
    p, cpu, date = swept_point(names, settings, chat)
    if p is None or not shipped.alike(cpu):
        return None
    return payoff.Measured(p.speedup, p.speedup_min or p.speedup, p.speedup_max or p.speedup, p.repeats, p.clock,
                           p.mean_acceptance_length, "ksweep", len(family.speed_prompts(chat)[0]), (p.speedup,),
                           p.c, p.acceptance_rate, p.alpha, p.verify_cost, None, repriced.overheads(p), cpu, date,
                           getattr(p, "load", None), getattr(p, "speedup_wall", None))


def seen_at(pair, settings, k: int) -> payoff.Measured | None:
    """A constant `k` at the sidebar's other settings, measured: here, else on a machine like this one."""
    names = tuple(st.session_state.get("active_pair") or (pair.target_name, pair.draft_name))
    at = replace(settings, k=k, policy="constant")
    return measured(names, at)[0] or alike_at(names, at, session.uses_chat(pair))


def swept_point(names: tuple, settings, chat: bool):
    """The shipped k sweep's point at these settings, on the box's own prompts (When it is fast's),
    with its CPU and day: the acceptance (and what its runs paid besides their rounds) the box
    prices where nothing is measured here ((None, None, None): no such sweep, or another drafter
    than the sweep's draft model)."""
    sweep = shipped_sweep(names, settings, chat)[0]
    p = next((p for p in sweep.points if p.k == settings.k), None) if sweep else None
    return (None, None, None) if p is None else (p, sweep.provenance.cpu or "?", sweep.provenance.date)


def shipped_sweep(names: tuple, settings, chat: bool) -> tuple[Sweep | None, str | None]:
    """The shipped k sweep of the pair's draft model at these settings (When it is fast's prompts), and
    its CPU ((None, None): none, or another drafter or policy)."""
    if store.drafter_id(settings) != typical.DEFAULT_DRAFTER or settings.policy not in ("constant", PRICED):
        return None, None
    run = replace(settings, max_new_tokens=LENGTHS.speed)
    texts = family.speed_prompts(chat)[0]
    sweep = shipped.load("ksweep", store.measurement("ksweep", names, run, texts, chat, state.ran(),
                                                     repeats=defaults.REPEATS), Sweep)
    return (sweep, sweep.provenance.cpu or "?") if sweep else (None, None)


def typical_of(p, cpu: str, chat: bool) -> typical.Typical:
    return typical.Typical(None, len(family.speed_prompts(chat)[0]), p.acceptance_rate, p.alpha,
                           p.mean_acceptance_length, p.speedup, cpu)


def at_k(pair, settings, k: int) -> tuple | None:
    """A speedup measured at a constant k for the pair at these settings: here (None as its CPU, and its
    repeats' range after the words), else the shipped k sweep's (its CPU), with which section measured
    it on which prompts, in words; None where neither was."""
    names = tuple(st.session_state.get("active_pair") or (pair.target_name, pair.draft_name))
    at = replace(settings, k=k, policy="constant")
    where = _("T = {t:g}, When it is fast's {n} prompts").format(
        t=settings.temperature, n=len(family.speed_prompts(session.uses_chat(pair))[0]))
    if (m := measured(names, at)[0]) is not None:                   # with its repeats' range
        return m.speedup, None, _(payoff_words.SOURCES.get(m.source, m.source)) + ", " + where, (m.low, m.high)
    p, cpu, _date = swept_point(names, at, session.uses_chat(pair))
    swept = None if p is None or p.speedup is None else (p.speedup, cpu, _("the shipped k sweep") + ", " + where,
                                                          (p.speedup_min or p.speedup, p.speedup_max or p.speedup))
    bench = benched(names, at)
    ours = bench is not None and (bench[1] is None or shipped.alike(bench[1]))     # kept here, or shipped from
    if swept is None or (ours and not shipped.alike(cpu)):                        # a machine like this one
        return bench                # this machine's kind's benchmark before another CPU's sweep (review 42)
    return swept


def benched(names: tuple, settings) -> tuple[float, str | None, str] | None:
    """The benchmark's speculative speedup for the pair at these settings' T and k (kept here: None as
    its CPU; else shipped: its CPU), with its prompts in words; None where it ran no such row."""
    found = bench_row(names, settings)
    if found is None:
        return None
    r, bench = found
    return r.speedup, None if fast.BENCH_FILE.exists() else bench.provenance.cpu, _(
        "the benchmark, T = {t:g}, {n} held-out chats").format(t=settings.temperature, n=bench.prompts)


def bench_row(names: tuple, settings):
    """(the benchmark's speculative row for the pair at these settings' T and k, the benchmark), kept
    here else shipped; None where it ran no such row."""
    bench = fast.read_bench(None)[0]
    if bench is None or (bench.target, bench.draft, bench.drafter) != (*names, settings.drafter):
        return None
    for s in bench.settings:
        if s.k == settings.k and s.temperature == settings.temperature and (r := s.row(RowKind.SPEC)) and r.speedup:
            return r, bench
    return None


def measured_at(pair, settings, k: int) -> payoff.Measured | None:
    """This machine's newest figure at a constant `k` and the sidebar's other settings (None: none)."""
    names = tuple(st.session_state.get("active_pair") or (pair.target_name, pair.draft_name))
    return measured(names, replace(settings, k=k, policy="constant"))[0]
