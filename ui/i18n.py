"""한국어 / English: the app's words through gettext catalogs (locale/<lang>/LC_MESSAGES/).

`_("text")` returns the text in the session's language; numbers, tokens and model output
are never passed through it. The language comes, in order, from the session (the switch
at the top of the sidebar), the URL (`?lang=ko`, so a teacher can share a link) and the
browser's language (`st.context.locale`); English otherwise. Catalogs are extracted and
compiled with Babel (`make catalogs`; the set-up compiles them):

    pybabel extract -F babel.cfg -o locale/messages.pot .
    pybabel update -i locale/messages.pot -d locale
    pybabel compile -d locale

A message with no Korean yet falls back to English (gettext's rule), so a page is never
blank while its translation is incomplete.
"""
from __future__ import annotations

import functools
import gettext
import io
from pathlib import Path

import streamlit as st

from ui.korean import Text

LOCALES = Path(__file__).resolve().parent.parent / "locale"
LANGS = {"ko": "한국어", "en": "English"}
KEY = "lang"


@functools.lru_cache(maxsize=None)
def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog (`make catalogs`); where it is missing or older than its .po (a checkout
    started without `make`), the .po compiled in memory, so the app never falls back to English
    for want of a build step."""
    po = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    mo = po.with_suffix(".mo")
    if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
        return _compiled(po)
    return gettext.translation("messages", localedir=str(LOCALES), languages=[lang], fallback=True)


def _compiled(po: Path) -> gettext.GNUTranslations:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    buffer = io.BytesIO()
    with po.open("rb") as f:
        write_mo(buffer, read_po(f))
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _from_browser() -> str:
    locale = (getattr(st.context, "locale", None) or "").lower()
    return "ko" if locale.startswith("ko") else "en"


def current() -> str:
    """The session's language; chosen once from the URL or the browser, then kept."""
    if st.session_state.get(KEY) not in LANGS:
        asked = st.query_params.get(KEY)
        st.session_state[KEY] = asked if asked in LANGS else _from_browser()
    return st.session_state[KEY]


def _(text: str) -> str:
    """`text` in the session's language (English when the catalog has no translation); in Korean, a
    text whose `format` makes the particles after its figures agree with them (ui/korean.py)."""
    lang = current()
    found = catalog(lang).gettext(text)
    return Text(found) if lang == "ko" else found


SWITCH = "lang_switch"


CHOICES = "_translated_choices"


def choice(key: str) -> str:
    """The key of a choice widget whose options are shown in the session's language (returned
    as is). Streamlit's browser side sends back the shown text of a selected option, and reads it
    with this run's texts: after a language switch no option had that text any more, and the
    widget's value became the old language's text ('auto (the fastest step…)' as a precision).
    `_chosen` keeps every such widget's option across the switch."""
    st.session_state.setdefault(CHOICES, set()).add(key)
    return key


def _chosen() -> None:
    """The switch changed: keep the language for the session and in the URL, and every choice
    widget's option (read here with the old language's texts, then set as the option itself)."""
    for key in st.session_state.get(CHOICES, ()):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
    code = {name: code for code, name in LANGS.items()}[st.session_state[SWITCH]]
    st.session_state[KEY] = st.query_params[KEY] = code


def N_(text: str) -> str:
    """Marks a text for extraction where it is defined; `_` translates it where it is shown."""
    return text


def switch() -> None:
    """The language switch at the top of the sidebar; the choice goes into the URL too."""
    names = list(LANGS.values())
    st.sidebar.radio("Language / 언어", names, index=names.index(LANGS[current()]), key=SWITCH,
                     on_change=_chosen, horizontal=True, label_visibility="collapsed")
