"""A file uploader whose own texts follow the page's language.

Streamlit (1.67) draws the drop zone's button ("Upload"), its line ("200MB per file • JSON")
and the drag-over line ("Drag and drop a file here") itself, in English: `st.file_uploader`
takes only a label, help and label visibility, and no config option sets its language. So on
a page in another language the button's text and the size line are taken out with CSS scoped to
this widget's key (`.st-key-<key>`) and written again by CSS pseudo-elements, translated.
`display: none`, not `font-size: 0`: a text shrunk to nothing is still the element's text (what
a screen reader, a copy or a translation tool reads), so it stayed English though it looked
Korean. Streamlit's own error for a wrong file type stays English.
"""
from __future__ import annotations

import streamlit as st

from ui.i18n import _, current

ZONE = "[data-testid=stFileUploaderDropzone]"


def _quoted(text: str) -> str:
    """A CSS string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def css(key: str, button: str, line: str) -> str:
    """Take the widget's own texts out and show `button` and `line` in their place."""
    scope = f".st-key-{key} {ZONE}"
    hints = f"{scope} [data-testid=stFileUploaderDropzoneInstructions]"
    return (f"<style>{scope} button p, {hints} span {{display:none}}"
            f"{scope} button [data-testid=stMarkdownContainer]::after {{content:{_quoted(button)}}}"
            f"{hints} > div::after {{content:{_quoted(line)};font-size:0.875rem;opacity:0.7}}</style>")


def file_uploader(label: str, types: list[str], key: str, help: str | None = None):
    """st.file_uploader with its button and size line in the page's language."""
    if current() != "en":
        size = st.get_option("server.maxUploadSize")
        line = _("up to {size} MB per file • {types}").format(
            size=size, types=", ".join(t.upper() for t in types))
        st.html(css(key, _("Upload"), line))
    return st.file_uploader(label, type=types, key=key, help=help)
