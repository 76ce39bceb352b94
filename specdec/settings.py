"""Run settings: one frozen dataclass, validated once — the one source of every setting.

Each field carries its own description (`option`): the label and help people read, its limits
and choices, the error that names a bad value, and where it shows up. The CLI's options
(cli/main.py) and the app's sidebar widgets (ui/sidebar.py) are generated from these fields,
so a default, a limit or a choice is written once, here. The ranges and lists the app and the
CLI offer, and the defaults more than one layer shares (k's ceiling and span, the temperature,
the confidence threshold, each lesson's run length: LENGTHS) live in the one table, defaults.py;
the threads a run uses are here; the precision's default is models.precision.PRECISION_AUTO.
"""
from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from enum import StrEnum
from typing import Callable, Collection

from specdec import defaults
from specdec.defaults import K_MAX as K_MAX  # noqa: F401 (re-exported: its readers import it from here)
from specdec.defaults import LENGTHS as LENGTHS  # noqa: F401
from specdec.errors import InputError
from specdec.rules.sampling import Sampling
from specdec.wording import N_


class Mode(StrEnum):
    """Settings.mode: speculative decoding, or the target alone (the baseline)."""
    SPECULATIVE = "speculative"
    AUTOREGRESSIVE = "autoregressive"


MODES = tuple(Mode)
# The values of the settings whose choices live in the layer above (drafters take Settings, so
# Settings cannot import them). specdec/__init__.py, the one place the layers are wired, offers
# each collection once (the drafter registry, the draft-length policies, the tree rules); a
# choice is read from it when a value is checked, so a drafter registered later counts too.
CHOICES: dict[str, Collection[str]] = {"drafter": (), "policy": (), "tree_children": ()}
WORDS = {"top_k": "top-k", "top_p": "top-p"}      # how messages name a field (else its words)
THREADS = 1     # torch threads of the app and the CLI: batch-1 decoding of small models gains nothing
                # from more, and collapses when the cores are busy


@dataclass(frozen=True)
class Option:
    label: str                                # what the sidebar calls it (translated where shown)
    help: str                                 # one line for --help and the widget's tooltip
    low: float | None = None                  # valid range, inclusive (None: unbounded)
    high: float | None = None
    error: str | None = None                  # the message for a value outside [low, high]
    choices: Callable[[], tuple[str, ...]] | None = None   # the valid values, read when checked
    widget: str | None = None                 # the sidebar's widget: slider | number | radio | select
    span: tuple | None = None                 # a slider's or number box's (low, high, step)
    shown_when: tuple[str, str] | None = None  # (setting, value): the widget only for that value
    flag: bool = True                         # False: no --flag (a setting only code sets)


def option(default, label: str, help: str, **kwargs):
    return field(default=default, metadata={"option": Option(label, help, **kwargs)})


def offer(setting: str, names: Collection[str]) -> None:
    """The values `setting` may take, in menu order: `names` is kept, not copied (a registry's
    dict stays current)."""
    CHOICES[setting] = names


def choices_of(setting: str) -> tuple[str, ...]:
    return tuple(CHOICES[setting])


def _one_of(kind: str) -> str:
    return {"drafter": N_("drafter must be one of {choices}, got {value}"),
            "policy": N_("policy must be one of {choices}, got {value}"),
            "mode": N_("mode must be one of {choices}, got {value}"),
            "tree_children": N_("tree children must be one of {choices}, got {value}")}[kind]


@dataclass(frozen=True)
class Settings:
    k: int = option(4, N_("k (draft length)"), "draft length: the policy's starting / maximum k",
                    low=1, high=defaults.K_MAX, widget="slider", span=(*defaults.K_OFFERED, 1),
                    error=N_("k (draft length) must be between 1 and {high}, got {value}"))
    temperature: float = option(defaults.TEMPERATURE, N_("Temperature (0 = greedy)"), "0 = greedy",
                                widget="slider", span=defaults.TEMPERATURE_SPAN)
    top_k: int = option(0, N_("Top-k"), "0 = off")
    top_p: float = option(1.0, N_("Top-p"), "1 = off", widget="slider", span=(0.05, 1.0, 0.05))
    seed: int = option(0, N_("Seed"), "any whole number; the run's generator uses seed mod 2**64",
                       widget="number", span=(0, 2**31 - 1, 1))
    max_new_tokens: int = option(48, N_("Max new tokens"), "stop after this many new tokens", low=1,
                                 widget="slider", span=(4, 256, 4),
                                 error=N_("max new tokens must be at least 1, got {value}"))
    drafter: str = option("model", N_("Drafter"), "what proposes the drafts",
                          choices=lambda: choices_of("drafter"), widget="radio")
    exit_layer: int = option(4, N_("Exit layer (target layers the draft keeps)"),
                             "layers kept by the early-exit drafter", low=1, widget="slider", span=(1, 16, 1),
                             shown_when=("drafter", "early-exit"),
                             error=N_("exit layer must be at least 1, got {value}"))
    policy: str = option("constant", N_("Draft-length policy"), "how many tokens to draft each round",
                         choices=lambda: choices_of("policy"), widget="select")
    confidence: float = option(defaults.CONFIDENCE, N_("Confidence threshold"), "threshold of the confidence policy",
                               low=0, high=1, widget="slider", span=(0.0, 1.0, 0.05),
                               shown_when=("policy", "confidence"),
                               error=N_("confidence threshold must be in [0, 1], got {value}"))
    tree_width: int = option(2, N_("Tree width"), "tree drafters: children per expanded node", low=1, high=16,
                             error=N_("tree width must be between 1 and 16, got {value}"))
    tree_budget: int = option(8, N_("Tree budget"), "tree drafters: drafted nodes per round (k = max depth)",
                              low=1, high=64, error=N_("tree budget must be between 1 and 64 nodes, got {value}"))
    tree_children: str = option("sampled", N_("Tree children"),
                                "model trees: top-w tokens of q (each verified as a point mass), or w "
                                "independent draws from q (top-w at T = 0)",
                                choices=lambda: choices_of("tree_children"))
    mode: str = option(Mode.SPECULATIVE.value, N_("Mode"),
                       "speculative, or autoregressive (the target alone: the baseline)", choices=lambda: MODES)
    lean: bool = option(False, N_("Lean"), "record counters only, no distributions (benchmarks)", flag=False)

    def __new__(cls, *args, **kwargs):
        # Before the dataclass's __init__, whose TypeError for a misspelt name lists nothing:
        # `Settings(**d)` and `replace(settings, **overrides)` both come through here.
        _check_names(len(args), kwargs)
        return super().__new__(cls)

    def __post_init__(self):
        for f in fields(self):
            _check(f.name, f.type, f.metadata["option"], getattr(self, f.name))
        Sampling(self.temperature, self.top_k, self.top_p)   # temperature, top-k and top-p together

    @property
    def generator_seed(self) -> int:
        """torch.Generator takes 0 <= seed < 2**64: any integer is reduced modulo 2**64."""
        return self.seed % 2**64

    @property
    def sampling(self) -> Sampling:
        return Sampling(self.temperature, self.top_k, self.top_p)

    def as_dict(self) -> dict:
        return asdict(self)


def _check_names(positional: int, kwargs: dict) -> None:
    """Every keyword is a setting and no more values than settings: one message naming them all."""
    names = [f.name for f in fields(Settings)]
    unknown = [key for key in kwargs if key not in names]
    if unknown:
        raise InputError(N_("unknown setting {unknown}; the settings are {names}"),
                         unknown=", ".join(map(repr, unknown)), names=", ".join(names))
    if positional > len(names):
        raise InputError(N_("Settings takes at most {n} values, got {got}; name them, e.g. Settings(k=4)"),
                         n=len(names), got=positional)
    twice = [name for name in names[:positional] if name in kwargs]
    if twice:
        raise InputError(N_("the setting {name} is given twice (by position and by name)"), name=twice[0])


def _check(name: str, kind: str, opt: Option, value) -> None:
    """One field: its type, then its range or its choices (the message names the field)."""
    words = WORDS.get(name, name.replace("_", " "))
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        raise InputError(N_("{name} must be a whole number, got {value}"), name=words, value=repr(value))
    if kind == "float" and (isinstance(value, bool) or not isinstance(value, (int, float))
                            or not math.isfinite(value)):
        raise InputError(N_("{name} must be a finite number, got {value}"), name=words, value=repr(value))
    if kind in ("str", "bool") and type(value).__name__ != kind:
        raise InputError(N_("{name} must be one of {choices}, got {value}"), name=words,
                         choices=", ".join(opt.choices()) if opt.choices else "true, false", value=repr(value))
    if opt.choices and value not in opt.choices():
        raise InputError(_one_of(name), choices=", ".join(opt.choices()), value=repr(value))
    if (opt.low is not None and value < opt.low) or (opt.high is not None and value > opt.high):
        raise InputError(opt.error, value=value, high=opt.high)


def options() -> dict[str, tuple[object, Option]]:
    """Every setting's default and description, in the order the dataclass declares them."""
    return {f.name: (f.default if f.default is not MISSING else None, f.metadata["option"])
            for f in fields(Settings)}


def check_recorded(values: dict) -> None:
    """A run's recorded settings (a replay file's) by these same rules. A run records its models
    and backend beside the settings, and a file from an older version may lack newer settings
    (their defaults stand in), so only the names that are settings are checked."""
    names = {f.name for f in fields(Settings)}
    Settings(**{name: value for name, value in values.items() if name in names})

