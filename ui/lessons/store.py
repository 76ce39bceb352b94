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
from dataclasses import asdict, dataclass
from typing import Callable

from specdec.drafters.registry import DRAFTERS
from specdec.models.backend import BACKEND_AUTO
from specdec.models.precision import PRECISION_AUTO
from specdec.records.provenance import Clock
from specdec.settings import THREADS, Settings
from specdec.wording import _
from ui.lessons import result_cache

KIND = "figure"
# what one figure is: the speed and acceptance numbers of one measured setting
FIELDS = ("speedup", "speedup_min", "speedup_max", "speedup_wall", "speedup_cpu", "clock", "load",
          "repeats", "acceptance_rate", "alpha", "tokens_per_round", "mean_acceptance_length", "c",
          "tokens_per_s", "baseline_tokens_per_s")


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
    return {**{name: parts[name] for name in LAYOUTS.get(kind, FULL)}, **lesson, **ran.fields()}


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

    def same_setting(self, other: "Key") -> bool:
        """The same pair, drafter, policy, k, T and threads — prompts and clock may differ."""
        return self.setting() == other.setting()

    def setting(self) -> tuple:
        return (self.target, self.draft, self.drafter, self.policy, self.k, self.temperature, self.threads,
                self.precision)


def key(target: str, draft: str | None, settings, k: int, prompts: PromptSet, clock: Clock,
        ran: Ran = DEFAULT_RAN) -> Key:
    """The key of a figure measured with `settings` (a Settings) at k: the drafter and the
    policy carry the settings they read (exit layer, tree shape, confidence threshold)."""
    return Key(target, draft, drafter_id(settings), policy_id(settings), int(k),
               float(settings.temperature), prompts, clock, ran.threads, ran.label())


def drafter_id(s) -> str:
    return DRAFTERS[s.drafter].key_id(s)


def policy_id(s) -> str:
    return f"confidence@{s.confidence:g}" if s.policy == "confidence" else s.policy


def _as_dict(k: Key) -> dict:
    return asdict(k)


def file(rows: list[dict], key_of: Callable[[dict], Key | None], source: str) -> None:
    """Keep each row's figure under its key as the newest measurement of it (`source`: the
    section that measured it, for the label of a figure shown elsewhere)."""
    at = time.time()
    for row in rows:
        k = key_of(row)
        if k is not None:
            figure = {f: row[f] for f in FIELDS if f in row}
            result_cache.save(KIND, _as_dict(k), {"figure": figure, "source": source, "at": at})


def read(k: Key) -> dict | None:
    """{"figure", "source", "at"} of the newest measurement filed under k, or None."""
    entry = result_cache.load(KIND, _as_dict(k))
    return entry if isinstance(entry, dict) and isinstance(entry.get("figure"), dict) else None


def agree(rows: list[dict], key_of: Callable[[dict], Key | None], source: str
          ) -> tuple[list[dict], list[tuple[dict, str]]]:
    """Rows as the store has them: each row whose key holds a figure takes it (a row kept from
    before the store, whose key holds none, is filed now). Returns the rows and (row, section)
    for every row whose figure came from another section."""
    out, taken = [], []
    for row in rows:
        k = key_of(row)
        entry = read(k) if k is not None else None
        if entry is None:
            if k is not None:
                file([row], key_of, source)
            out.append(row)
            continue
        merged = {**row, **entry["figure"]}
        out.append(merged)
        if entry.get("source") != source and any(row.get(f) != v for f, v in entry["figure"].items()):
            taken.append((merged, entry["source"]))
    return out, taken


def agree_with(rows: list[dict], key_of: Callable[[dict], Key | None], others: list[dict],
               other_key_of: Callable[[dict], Key | None]) -> tuple[list[dict], list[dict]]:
    """Two results measured together (shipped from one machine in one run): each row takes the
    figure of the other result's row with the same key. (rows, the rows that took one)."""
    theirs = {other_key_of(o): o for o in others}
    out, taken = [], []
    for row in rows:
        other = theirs.get(key_of(row))
        if other is None:
            out.append(row)
            continue
        merged = {**row, **{f: other[f] for f in FIELDS if f in other}}
        out.append(merged)
        if any(row.get(f) != merged.get(f) for f in FIELDS):
            taken.append(merged)
    return out, taken


def elsewhere(k: Key, source: str) -> list[tuple[Key, dict]]:
    """Figures of the same setting that another section measured on other prompts (key,
    entry), newest first."""
    found = []
    for key_dict, entry in result_cache.kept(KIND):
        try:
            other = Key(**{**key_dict, "prompts": PromptSet(**key_dict["prompts"])})
        except TypeError:
            continue
        if (other.same_setting(k) and other.prompts != k.prompts and isinstance(entry, dict)
                and entry.get("source") != source):
            found.append((other, entry))
    return sorted(found, key=lambda e: (-e[1].get("at", 0), -e[0].prompts.size))   # a whole set first


def clock_name(clock: Clock) -> str:
    return _("CPU time") if clock == Clock.CPU else _("wall-clock")


def set_name(p: PromptSet, kind_name: Callable[[str], str] = str) -> str:
    """How a page names a prompt set (its id is fixed; the words are translated)."""
    n, t = p.size, p.new_tokens
    if p.name == "speed":
        return (_("{n} code and structured chats × {t} tokens (When it is fast)") if p.chat else
                _("{n} code and structured prompts × {t} tokens (When it is fast)")).format(n=n, t=t)
    group, _sep, kind = p.name.partition("/")
    if group == "drafters" and kind in ("", "all"):
        return (_("{n} chats of every kind × {t} tokens (Drafters compared)") if p.chat else
                _("{n} prompts of every kind × {t} tokens (Drafters compared)")).format(n=n, t=t)
    if group == "drafters":
        return (_("{n} chats of the kind “{kind}” × {t} tokens (Drafters compared)") if p.chat else
                _("{n} prompts of the kind “{kind}” × {t} tokens (Drafters compared)")).format(
            n=n, t=t, kind=kind_name(kind))
    return (_("{n} chats × {t} tokens") if p.chat else _("{n} prompts × {t} tokens")).format(n=n, t=t)


def elsewhere_caption(rows: list[dict], key_of: Callable[[dict], Key | None], source: str,
                      label: Callable[[dict], str], kind_name: Callable[[str], str] = str) -> str | None:
    """One line per row whose setting another section measured on other prompts: its newest
    figure there, and that the prompts are the difference (None when no row has one)."""
    lines = []
    for row in rows:
        k = key_of(row)
        for other, entry in elsewhere(k, source)[:1] if k is not None else []:
            fig = entry["figure"]
            lines.append(_("{name}: {speedup:.2f}× ({clock}) and acceptance {acc:.0%} on {other}; here "
                           "{here:.2f}× ({clock_here}) and {acc_here:.0%} on {this}.").format(
                name=label(row), speedup=fig.get("speedup", 0.0), acc=fig.get("acceptance_rate", 0.0),
                clock=clock_name(other.clock), other=set_name(other.prompts, kind_name),
                here=row.get("speedup", 0.0), clock_here=clock_name(k.clock),
                acc_here=row.get("acceptance_rate", 0.0), this=set_name(k.prompts, kind_name)))
    if not lines:
        return None
    return _("The same settings measured on other prompts (the prompts are the difference, so "
             "the figures differ):") + "\n\n" + "\n\n".join("- " + line for line in lines)
