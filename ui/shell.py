"""What every page does first: make sure app.py's navigation is in charge, then draw the
shared sidebar.

Streamlit runs the first script of a new server (and every AppTest run) in its legacy
`pages/` mode, which runs a deep-linked page file without app.py. Its documented way
out: "as soon as any session executes st.navigation, the app ignores the pages/
directory". So a page that finds no mark from app.py calls st.navigation itself (hidden)
and reruns once; the rerun goes through app.py. Where app.py still did not run (AppTest
runs pages in that mode too) the page draws the shared sidebar itself.
"""
from pathlib import Path

import streamlit as st

from specdec import wording
from ui import i18n, jobs, navigation, sidebar
from ui.i18n import N_, _
from ui.server import gate, memory, turns

MARK, DRAWN = "_shell_ran", "_sidebar_drawn"


def run_page(page) -> None:
    """app.py: draw the shared sidebar, then the page (which first calls `page`)."""
    wording.use(i18n._)              # specdec's captions and chart titles in this session's language
    memory.start_trimming()
    st.session_state[MARK] = True
    sidebar.render()
    st.set_page_config(page_title=_("Speculative Decoding Lab"))      # the tab's title in the chosen language
    st.session_state[DRAWN] = True
    try:
        with gate.turn():
            page.run()
    except gate.Busy as busy:       # this session's previous run is stuck past its deadline
        st.warning(_(STUCK).format(seconds=busy.held_s, limit=turns.LIMIT_S))
    finally:
        st.session_state[DRAWN] = False


STUCK = N_("This session's previous computation has run for {seconds:.0f} s, past the {limit:.0f} s "
           "limit, and has not stopped yet. Reload the page to start afresh, or try again in a moment.")


def page(file: str) -> None:
    """Every page, first (`file`: its __file__): say which page this run draws (jobs.page_now); rerun through app.py
    if it was skipped; draw the sidebar if needed."""
    st.session_state[jobs.PAGE] = Path(file).stem
    if not st.session_state.get(MARK):
        st.session_state[MARK] = True               # rerun at most once
        st.navigation(navigation.st_pages(), position="hidden")
        st.rerun()
    if not st.session_state.get(DRAWN):
        wording.use(i18n._)
        sidebar.render()
    stopped()                                       # once this page is known: a job left here is said here


def stopped() -> None:
    """At the top of the page: what a click or a page switch stopped on the run before (ui/jobs.py)."""
    if note := jobs.stopped_note():
        st.info(note, icon=":material/stop_circle:")
