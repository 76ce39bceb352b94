"""What every page does first: make sure app.py's navigation is in charge, then draw the
shared sidebar.

Streamlit runs the first script of a new server (and every AppTest run) in its legacy
`pages/` mode, which runs a deep-linked page file without app.py. A page that finds no
mark from app.py switches that mode off and reruns once, so the rerun goes through
app.py's st.navigation. Where app.py did not run (AppTest runs pages in that mode too)
the page draws the shared sidebar itself.
"""
import streamlit as st

from ui import sidebar

MARK, DRAWN = "_shell_ran", "_sidebar_drawn"


def run_page(page) -> None:
    """app.py: draw the shared sidebar, then the page."""
    st.session_state[MARK] = True
    sidebar.render()
    st.session_state[DRAWN] = True
    try:
        page.run()
    finally:
        st.session_state[DRAWN] = False


def page() -> None:
    """Every page, first: rerun through app.py if it was skipped; draw the sidebar if needed."""
    if not st.session_state.get(MARK):
        from streamlit.runtime.pages_manager import PagesManager
        PagesManager.uses_pages_directory = False   # what app.py's st.navigation sets
        st.session_state[MARK] = True               # rerun at most once
        st.rerun()
    if not st.session_state.get(DRAWN):
        sidebar.render()
