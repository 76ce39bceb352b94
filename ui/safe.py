"""Text from files (replays, uploaded benchmarks) shown in Markdown: escaped, never rendered.

Streamlit renders Markdown in st.write / st.info / captions, so a string such as
`![](http://host/x.png)` from a file would make the viewer's browser fetch that URL.
`md()` backslash-escapes every character Markdown gives a meaning to.
"""
from __future__ import annotations

import html
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


_TRACE_TEXT = ("x", "y", "text", "hovertext", "name", "labels")


def _plain(value):
    """Strings (alone or in a list) with Plotly's HTML subset escaped; anything else as is."""
    if isinstance(value, str):
        return html.escape(value, quote=False)
    if isinstance(value, (list, tuple)) and any(isinstance(v, str) for v in value):
        return [html.escape(v, quote=False) if isinstance(v, str) else v for v in value]
    return value


def plain_figure(fig):
    """The figure with every label shown as text: Plotly renders <b>, <br>, <a href> and more
    inside trace names, category labels, text, hovers, titles and annotations, and token texts
    (a real model's included) or names from a file can contain them. Templates
    (hovertemplate) are the app's own and keep their tags; the values they show are escaped."""
    for trace in fig.data:
        for key in _TRACE_TEXT:
            if key in trace and trace[key] is not None:
                trace[key] = _plain(trace[key])
    layout = fig.layout
    if layout.title and layout.title.text:
        layout.title.text = _plain(layout.title.text)
    for note in layout.annotations or ():
        note.text = _plain(note.text)
    for axis in (layout.xaxis, layout.yaxis):
        if axis.ticktext is not None:
            axis.ticktext = _plain(list(axis.ticktext))
        if axis.title and axis.title.text:
            axis.title.text = _plain(axis.title.text)
    return fig
