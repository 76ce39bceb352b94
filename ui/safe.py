"""Text from files (replays, uploaded benchmarks) shown in Markdown: escaped, never rendered.

Streamlit renders Markdown in st.write / st.info / captions, so a string such as
`![](http://host/x.png)` from a file would make the viewer's browser fetch that URL.
`md()` backslash-escapes every character Markdown gives a meaning to.
"""
from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~:$&])")


def md(value) -> str:
    """Any value as literal Markdown text (control characters shown as escapes); an engine
    error in the session's language."""
    from specdec.errors import InputError
    from ui.i18n import _
    text = value.worded(_) if isinstance(value, InputError) else str(value)
    text = "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode()
                   for ch in text)
    return _SPECIAL.sub(r"\\\1", text)
