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
from pathlib import Path

import streamlit as st

LOCALES = Path(__file__).resolve().parent.parent / "locale"
LANGS = {"ko": "한국어", "en": "English"}
KEY = "lang"


@functools.lru_cache(maxsize=None)
def catalog(lang: str) -> gettext.NullTranslations:
    return gettext.translation("messages", localedir=str(LOCALES), languages=[lang], fallback=True)


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
    """`text` in the session's language (English when the catalog has no translation)."""
    return catalog(current()).gettext(text)


def _keep_in_url() -> None:
    st.query_params[KEY] = st.session_state[KEY]


def N_(text: str) -> str:
    """Marks a text for extraction where it is defined; `_` translates it where it is shown."""
    return text


def switch() -> None:
    """The language switch at the top of the sidebar; the choice goes into the URL too."""
    current()
    st.sidebar.radio("Language / 언어", list(LANGS), key=KEY, format_func=LANGS.get,
                     on_change=_keep_in_url, horizontal=True, label_visibility="collapsed")
