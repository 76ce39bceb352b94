"""One quantity, one figure (issue 28): the speed figures every lesson measures, filed under
the key of what was measured and read back from here by every section and page — and the one
key builder of every measured result (issue 42).

Every key is built from the same parts: the pair, the Settings, the prompt set, and how the
target ran (`Ran`: precision, backend, torch threads); the CPU joins it where a result is
kept (result_cache: this machine's own), and a shipped result says which CPU measured it.
`measurement` is a page's result's key (ui/measured.py keeps and finds results by it); `key`
is one figure's: (target, draft, drafter, policy, k, T, prompt set, threads, clock,
precision), the prompt set being the prompts' texts, how they were sent (chat or raw) and
how many tokens each generated. A section that measures files its rows; a section that shows
rows first asks the store, so the same key shows the newest measurement of it everywhere, and
says which section it came from when that is another one. Figures are kept per machine and
weights like every measured result; shipped results are shown as shipped and not mixed in.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, fields, replace
from typing import Callable

from specdec.drafters.registry import DRAFTERS
from specdec.models.backend import BACKEND_AUTO
from specdec.models.precision import PRECISION_AUTO
from specdec.records.provenance import Clock
from specdec.settings import THREADS, Settings
from ui.lessons import result_cache

KIND = "figure"


@dataclass(frozen=True)
class Figure:
    """What one figure is: the speed and acceptance numbers of one measured setting, as the
    measured points name them (records/vocabulary.py); None where a point has no such number."""
    speedup: float | None = None
    speedup_min: float | None = None
    speedup_max: float | None = None
    speedup_wall: float | None = None
    speedup_cpu: float | None = None
    clock: Clock | None = None
    load: float | None = None
    repeats: int | None = None
    acceptance_rate: float | None = None
    alpha: float | None = None
    mean_acceptance_length: float | None = None
    c: float | None = None
    verify_cost: float | None = None            # v(k + 1) as the runs paid it
    tokens_per_s: float | None = None
    baseline_tokens_per_s: float | None = None
    prefill_steps: float | None = None          # what the runs paid besides their rounds (the k sweep)
    base_prefill_steps: float | None = None
    round_overhead: float | None = None
    base_overhead: float | None = None

    @staticmethod
    def of(point) -> "Figure":
        return Figure(**{f: getattr(point, f, None) for f in FIELDS})

    def numbers(self) -> dict:
        """The figure's fields that hold a number (or a clock)."""
        return {f: getattr(self, f) for f in FIELDS if getattr(self, f) is not None}


FIELDS = tuple(f.name for f in fields(Figure))


@dataclass(frozen=True)
class Filed:
    """A figure as the store keeps it: which section measured it, and when."""
    figure: Figure
    source: str
    at: float


@dataclass(frozen=True)
class PromptSet:
    """Which prompts a figure was measured on: their texts (as a digest), how many, how sent,
    how many new tokens each, and which set they are (`name`: a fixed id such as "speed" or
    "drafters/code" that the pages translate when they show it)."""
    digest: str
    size: int
    chat: bool
    new_tokens: int
    name: str

    @staticmethod
    def of(texts: list[str], chat: bool, new_tokens: int, name: str) -> "PromptSet":
        digest = hashlib.sha1(json.dumps([texts, chat, new_tokens]).encode()).hexdigest()[:12]
        return PromptSet(digest, len(texts), chat, new_tokens, name)


@dataclass(frozen=True)
class Ran:
    """How the target ran while measuring: its precision and backend (the sidebar's) and torch's
    threads. A part left at its default stays out of a result's key, so results measured with
    the defaults (every shipped one) keep the key they were filed under."""
    precision: str = PRECISION_AUTO
    backend: str = BACKEND_AUTO
    threads: int = THREADS

    def fields(self) -> dict:
        """The parts of a result's key that differ from the defaults."""
        return {name: value for name, value in asdict(self).items() if value != getattr(DEFAULT_RAN, name)}

    def label(self) -> str:
        """A figure's precision (Key.precision): the precision, "/backend" when not auto."""
        return self.precision if self.backend == DEFAULT_RAN.backend else f"{self.precision}/{self.backend}"


DEFAULT_RAN = Ran()

# The parts of each kind's key, named as its results were first filed (assets/results holds
# shipped ones: a kind keeps its names, or its files stop loading); a new kind holds FULL.
FULL = ("pair", "settings", "prompts", "chat")
LAYOUTS = {"ksweep": ("pair", "T", "prompts", "chat", "n"), "temps": ("pair", "k", "prompts", "chat", "n"),
           "tradeoff": ("target", "k", "T", "prompts", "chat", "n"),
           "drafters": ("target", "chat", "settings", "prompts"), "trees": ("pair", "settings"),
           "pass_price": ("pair",), "tree_exact": ("pair",), "many": ("pair", "settings", "chat")}


def measurement(kind: str, pair, /, settings: Settings | None = None, prompts=None, chat: bool | None = None,
                ran: Ran = DEFAULT_RAN, **lesson) -> dict:
    """The key of a measured result of `kind`: the pair (target, draft), the settings, the
    prompts (their texts or ids) and how they were sent, the lesson's own parts (`lesson`:
    repeats, batch sizes, ...) and how the target ran."""
    parts = {"pair": list(pair), "target": pair[0], "chat": chat, "prompts": None if prompts is None else list(prompts)}
    if settings is not None:
        parts.update(settings=settings.as_dict(), k=settings.k, T=settings.temperature, n=settings.max_new_tokens)
    layout = LAYOUTS.get(kind, FULL)
    nucleus = {"top_p": settings.top_p} if settings is not None and settings.top_p != 1.0 and "settings" not in \
        layout else {}               # a layout without the settings names top-p where it is not 1 (digests kept)
    return {**{name: parts[name] for name in layout}, **nucleus, **lesson, **ran.fields()}


@dataclass(frozen=True)
class Key:
    target: str
    draft: str | None
    drafter: str
    policy: str
    k: int
    temperature: float
    prompts: PromptSet
    clock: Clock
    threads: int = 0          # torch threads (filled in by `key`, from Ran)
    precision: str = PRECISION_AUTO   # the target's precision as the sidebar asked for it: Ran.label()
    top_p: float = 1.0        # the nucleus the runs sampled from (1: off); kept in the key's dict only where not 1

    def same_setting(self, other: "Key") -> bool:
        """The same pair, drafter, policy, k, T and threads — prompts and clock may differ."""
        return self.setting() == other.setting()

    def setting(self) -> tuple:
        return (self.target, self.draft, self.drafter, self.policy, self.k, self.temperature, self.threads,
                self.precision, self.top_p)


def key(target: str, draft: str | None, settings, k: int, prompts: PromptSet, clock: Clock,
        ran: Ran = DEFAULT_RAN) -> Key:
    """The key of a figure measured with `settings` (a Settings) at k: the drafter and the
    policy carry the settings they read (exit layer, tree shape, confidence threshold)."""
    return Key(target, draft, drafter_id(settings), policy_id(settings), int(k),
               float(settings.temperature), prompts, clock, ran.threads, ran.label(), float(settings.top_p))


def drafter_id(s) -> str:
    return DRAFTERS[s.drafter].key_id(s)


def policy_id(s) -> str:
    return f"confidence@{s.confidence:g}" if s.policy == "confidence" else s.policy


def _as_dict(k: Key) -> dict:
    """The key as filed: top-p only where it is not 1, so every key filed before top-p was one keeps its digest
    (review 54: a top-p 0.5 run answered at top-p 1, and the other way)."""
    found = asdict(k)
    if found["top_p"] == 1.0:
        del found["top_p"]
    return found


def file(points, key_of: Callable[[object], Key | None], source: str) -> None:
    """Keep each point's figure under its key as the newest measurement of it (`source`: the
    section that measured it, for the label of a figure shown elsewhere)."""
    at = time.time()
    for point in points:
        k = key_of(point)
        if k is not None:
            result_cache.save(KIND, _as_dict(k), Filed(Figure.of(point), source, at))


def read(k: Key) -> Filed | None:
    """The newest measurement filed under k, or None."""
    return result_cache.load(KIND, _as_dict(k), Filed)


def _taking(point, figure: Figure):
    """The point with the figure's numbers (only those the point has: a k-sweep point has no draft)."""
    return replace(point, **{f: v for f, v in figure.numbers().items() if hasattr(point, f)})


def _differs(point, merged) -> bool:
    return any(getattr(point, f, None) != getattr(merged, f, None) for f in FIELDS)


def agree(points, key_of: Callable[[object], Key | None], source: str,
          keep: bool = True) -> tuple[list, list[tuple[object, str]]]:
    """Points as the store has them: each point whose key holds a figure takes it (a point kept
    from before the store, whose key holds none, is filed now; not with `keep` False: a shipped point is
    not this machine's). Returns the points and (point, section) for every point whose figure came from
    another section."""
    out, taken = [], []
    for point in points:
        k = key_of(point)
        entry = newest_on_any_clock(k) if k is not None else None
        if entry is None:
            if k is not None and keep:
                file([point], key_of, source)
            out.append(point)
            continue
        merged = _taking(point, entry.figure)
        out.append(merged)
        if entry.source != source and _differs(point, merged):
            taken.append((merged, entry.source))
    return out, taken


def newest_on_any_clock(k: Key) -> Filed | None:
    """The newest figure filed under k's setting and prompts on either clock: a run timed in CPU time (the
    machine was busy) is still the newer run of that setting (review 30: a k sweep kept its shipped 1.08× at
    k = 1 beside the box's 1.03× measured here under load)."""
    found = [e for e in (read(replace(k, clock=clock)) for clock in Clock) if e is not None]
    return max(found, key=lambda e: e.at, default=None)


def agree_with(points, key_of: Callable[[object], Key | None], others,
               other_key_of: Callable[[object], Key | None]) -> tuple[list, list]:
    """Two results measured together (shipped from one machine in one run): each point takes the
    figure of the other result's point with the same key. (points, the points that took one)."""
    theirs = {other_key_of(o): o for o in others}
    out, taken = [], []
    for point in points:
        other = theirs.get(key_of(point))
        merged = point if other is None else _taking(point, Figure.of(other))
        out.append(merged)
        if other is not None and _differs(point, merged):
            taken.append(merged)
    return out, taken


def elsewhere(k: Key, source: str) -> list[tuple[Key, Filed]]:
    """Figures of the same setting that another section measured on other prompts (key,
    entry), newest first."""
    found = [(other, entry) for other, entry in _filed()
             if other.same_setting(k) and other.prompts != k.prompts and entry.source != source]
    return sorted(found, key=lambda e: (-e[1].at, -e[0].prompts.size))   # a whole set first


def _filed():
    """(Key, Filed) of every figure this machine filed whose key still reads as a Key."""
    for key_dict, entry in result_cache.kept(KIND, Filed):
        try:
            yield Key(**{**key_dict, "prompts": PromptSet(**key_dict["prompts"])}), entry
        except TypeError:
            continue


def whole_set(p: PromptSet) -> bool:
    """A set that is a lesson's whole measurement (not one kind of Drafters compared's prompts)."""
    group, _sep, kind = p.name.partition("/")
    return group != "drafters" or kind in ("", "all")


def newest(target: str, drafts: tuple, settings, ran: Ran = DEFAULT_RAN) -> tuple[Key, Filed] | None:
    """The newest figure this machine filed for the setting (target, drafter, policy, k, T,
    threads, precision; the draft one of `drafts`) on a whole prompt set, any clock: what "does it
    pay here?" states (ui/payoff_answer.py) — one figure on every page that asks."""
    return next(iter(filed_here(target, drafts, settings, ran)), None)


def filed_here(target: str, drafts: tuple, settings, ran: Ran = DEFAULT_RAN) -> list[tuple[Key, Filed]]:
    """Every figure this machine filed for the setting on a whole prompt set (see `newest`), newest first."""
    want = key(target, None, settings, settings.k, PromptSet("", 0, False, 0, ""), Clock.WALL, ran)
    found = [(other, entry) for other, entry in _filed()
             if other.draft in drafts and replace(other, draft=None).same_setting(want) and whole_set(other.prompts)]
    return sorted(found, key=lambda e: -e[1].at)


def filed_by_k(target: str, drafts: tuple, settings, ran: Ran = DEFAULT_RAN) -> dict[int, list[Filed]]:
    """Every figure this machine filed for the setting at any constant k, on a whole prompt set: k -> the
    filed figures (the bottom line across k, ui/lessons/bottom_line.py)."""
    want = key(target, None, settings, settings.k, PromptSet("", 0, False, 0, ""), Clock.WALL, ran)
    found: dict[int, list[Filed]] = {}
    for other, entry in _filed():
        if other.draft in drafts and whole_set(other.prompts) and \
                replace(other, draft=None, k=want.k).same_setting(want):
            found.setdefault(other.k, []).append(entry)
    return found


def filed_of(target: str, draft: str | None) -> list[tuple[Key, Filed]]:
    """Every figure this machine filed for the target and draft model, at any setting, newest first."""
    return sorted(((k, e) for k, e in _filed() if k.target == target and k.draft == draft), key=lambda f: -f[1].at)
