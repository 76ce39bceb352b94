"""The retrieval corpus: Python's own documentation, read from this interpreter at set-up.

Passages are the standard library's docstrings (every public module, function, class and
method that has one) and the reference topics of `pydoc_data.topics` (`help("with")`), split
into paragraphs. Nothing is shipped: `make corpus` builds them here in a second or two and
keeps them in build/beyond/ under this Python's version (another Python has other docstrings).
A passage's id is its dotted name (`os.path.join`, `str.split`) or `topic:<name>#<n>`; the
labelled queries (assets/beyond/) name these ids. The same Python gives the same passages in every
process (a signature's defaults never show the environment, paths or object addresses), so the
embedding stage's vectors can ship with the app (dense.py).
"""
from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from specdec.files import atomic

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "build" / "beyond"
REVISION = 2                 # bump when the passages change shape: the cached file is rebuilt
MAX_CHARS = 600              # of a docstring kept in its passage (the first paragraphs say what it is)
TOPIC_CHARS = 700            # a reference topic is cut into paragraphs of about this size
# modules that act when imported (a browser opens, the Zen prints), need a display, or are tests
SKIP = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "ensurepip", "lib2to3",
        "pydoc_data", "test", "__hello__", "__phello__", "xxsubtype", "msilib", "winreg", "winsound",
        "nt", "ntpath", "posix", "genericpath", "sre_compile", "sre_constants", "sre_parse", "pydoc"}
NO_SUBMODULES = {"encodings"}        # a module per codec: a thousand passages that say "codec"
# C modules whose functions a public module re-exports as its own (csv's from _csv is found by name)
HOMES = {"os": {"posix", "nt"}, "threading": {"_thread"}}
ALIASES = {"os.path": "os.path"}     # imported under a public name, defined in posixpath / ntpath


@dataclass(frozen=True)
class Passage:
    id: str          # "os.path.join", "str.split", "topic:with#0"
    title: str       # the id with its signature: "os.path.join(a, *p)"
    text: str        # the docstring's first paragraphs, or a paragraph of a topic

    @property
    def body(self) -> str:
        """What the stages read: the title, then the text."""
        return f"{self.title}\n{self.text}"


def public_modules(only: tuple[str, ...] | None = None) -> list[str]:
    """The stdlib's public module names (and their public submodules), imported; `only`: these
    top-level names instead of all (tests build a slice)."""
    names = sorted(only) if only else sorted(n for n in sys.stdlib_module_names
                                             if not n.startswith("_") and n not in SKIP)
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # deprecated modules still have docs
        for name in names:
            module = _imported(name)
            if module is None:
                continue
            found.append(name)
            found += _submodules(module)
    for alias in ALIASES:                  # right after its parent: it wins over posixpath's names
        if alias.split(".")[0] in found and alias not in found:
            found.insert(found.index(alias.split(".")[0]) + 1, alias)
    return found


def _imported(name: str):
    try:
        return importlib.import_module(name)
    except Exception:           # a platform's module (winreg) or one that needs what is absent
        return None


def _submodules(module) -> list[str]:
    if not hasattr(module, "__path__") or module.__name__ in NO_SUBMODULES:
        return []
    out = []
    for info in pkgutil.iter_modules(module.__path__, module.__name__ + "."):
        if any(part.startswith("_") or part in ("test", "tests") for part in info.name.split(".")):
            continue
        sub = _imported(info.name)
        out += [info.name, *_submodules(sub)] if sub is not None else []
    return out


def first_paragraphs(doc: str, limit: int = MAX_CHARS) -> str:
    """The docstring's opening paragraphs, whole, up to about `limit` characters."""
    out = ""
    for para in doc.strip().split("\n\n"):
        if out and len(out) + len(para) > limit:
            break
        out = f"{out}\n\n{para}" if out else para
    return out[:limit]


def signature(obj) -> str:
    """`obj`'s signature as its documentation would show it, the same in every process: a default
    is shown by `_shown` (never this process's environment, paths or addresses)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "()" if callable(obj) and not inspect.isclass(obj) else ""
    params = [p if p.default is p.empty else p.replace(default=_Shown(_shown(p.default)))
              for p in sig.parameters.values()]
    return ADDRESS.sub("", str(sig.replace(parameters=params)))


class _Shown:
    """A default value that prints as the given text."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")     # an object's address: another in every process
LONG_DEFAULT = 60                               # characters: a longer default is shown as …


def _shown(default) -> str:
    """A default as a reader needs it: the process's own state by name (os.environ: its variables;
    sys.executable: this interpreter's path), an object without its address, a long value as …"""
    if default is os.environ:
        return "os.environ"
    if isinstance(default, str) and default == sys.executable:
        return "sys.executable"
    text = ADDRESS.sub("", repr(default))
    return text if len(text) <= LONG_DEFAULT else "…"


def _defined_here(name: str, module, obj) -> bool:
    if name == "builtins" or name in ALIASES:
        return True
    home = getattr(obj, "__module__", None) or ""
    if home in HOMES.get(name, ()):
        return True
    if hasattr(module, "__path__") and home.startswith(module.__name__ + "."):
        return True           # a package's names defined in its submodules: asyncio.run, not asyncio.runners.run
    return home == module.__name__ or (home.startswith("_") and home.lstrip("_") == name)


def module_passages(name: str) -> list[tuple[Passage, object]]:
    """(passage, the object it documents): the module's own docstring, its public functions and
    classes, and their methods."""
    module = sys.modules[name]
    out = []
    if inspect.getdoc(module):
        out.append((Passage(name, name, first_paragraphs(inspect.getdoc(module))), module))
    for attr in sorted(set(vars(module)) | set(getattr(module, "__all__", ()))):
        obj = getattr(module, attr, None)           # __all__ holds lazy names (concurrent.futures)
        obj = _hook_default(name, attr, obj)
        if attr.startswith("_") or not (inspect.isroutine(obj) or inspect.isclass(obj)):
            continue
        doc = inspect.getdoc(obj)
        if not doc or not _defined_here(name, module, obj):
            continue
        qual = f"{name}.{attr}" if name != "builtins" else attr
        out.append((Passage(qual, qual + signature(obj), first_paragraphs(doc)), obj))
        if inspect.isclass(obj):
            out += method_passages(qual, obj)
    return out


def _hook_default(module: str, attr: str, obj):
    """A hook a program may replace (pytest replaces threading.excepthook) documented as the
    interpreter's own: the passages do not depend on who imported the corpus."""
    import threading
    originals = {("sys", "excepthook"): sys.__excepthook__, ("sys", "displayhook"): sys.__displayhook__,
                 ("sys", "unraisablehook"): sys.__unraisablehook__, ("sys", "breakpointhook"): sys.__breakpointhook__,
                 ("threading", "excepthook"): threading.__excepthook__}
    return originals.get((module, attr), obj)


def method_passages(qual: str, cls) -> list[tuple[Passage, object]]:
    """Its own methods, and those it takes from private bases (argparse's _ActionsContainer)."""
    own = {}
    for base in reversed(cls.__mro__):
        if base is cls or base.__name__.startswith("_"):
            own.update(vars(base))
    out = []
    for attr, raw in sorted(own.items()):
        obj = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
        if attr.startswith("_") or not callable(obj):
            continue
        doc = inspect.getdoc(obj)
        if doc:
            out.append((Passage(f"{qual}.{attr}", f"{qual}.{attr}{signature(obj)}", first_paragraphs(doc)),
                        (cls, obj)))
    return out


def topic_passages() -> list[Passage]:
    """pydoc's reference topics (the language reference: `with`, `for`, string formatting ...)."""
    from pydoc_data.topics import topics
    out = []
    for name, text in sorted(topics.items()):
        for i, chunk in enumerate(chunks(text)):
            out.append(Passage(f"topic:{name}#{i}", f"topic {name}", chunk))
    return out


def chunks(text: str, size: int = TOPIC_CHARS) -> list[str]:
    """Paragraphs joined up to about `size` characters (a longer paragraph stays whole, cut)."""
    out, now = [], ""
    for para in (p.strip() for p in text.split("\n\n")):
        if not para:
            continue
        if now and len(now) + len(para) > size:
            out.append(now)
            now = ""
        now = f"{now}\n\n{para}" if now else para
    return [c[:2 * size] for c in out + ([now] if now else [])]


def build(only: tuple[str, ...] | None = None, topics: bool = True) -> list[Passage]:
    """Every passage once, in a fixed order: unique by id, and an object a package re-exports
    is kept under the first name it was found by (the package's: asyncio.run)."""
    seen, objects, out = set(), set(), []
    for name in public_modules(only):
        for p, obj in module_passages(name):
            key = (id(obj[0]), id(obj[1])) if isinstance(obj, tuple) else id(obj)
            if p.id not in seen and key not in objects:
                seen.add(p.id)
                objects.add(key)
                out.append(p)
    return out + (topic_passages() if topics else [])


def store_path() -> Path:
    v = sys.version_info
    return STORE / f"corpus-py{v.major}.{v.minor}.{v.micro}-r{REVISION}.json"


def load(path: Path | None = None) -> list[Passage]:
    """The whole corpus: read from build/beyond/, built (and kept) the first time."""
    path = path or store_path()
    try:
        return [Passage(**p) for p in json.loads(path.read_text())]
    except (OSError, ValueError, TypeError):
        passages = build()
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, json.dumps([asdict(p) for p in passages], ensure_ascii=False))
        return passages
