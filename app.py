"""Speculative Decoding Lab — entry point: page config, shared sidebar, navigation over pages/."""
import streamlit as st

from ui import shell

st.set_page_config(page_title="Speculative Decoding Lab", page_icon="🔮", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/step_through.py", title="Step through", icon=":material/step:", url_path="step_through"),
    st.Page("pages/exact.py", title="Why it is exact", icon=":material/balance:", url_path="exact"),
    st.Page("pages/fast.py", title="When it is fast", icon=":material/speed:", url_path="fast"),
    st.Page("pages/where.py", title="Where it works", icon=":material/travel_explore:", url_path="where"),
    st.Page("pages/drafters.py", title="Drafters compared", icon=":material/compare_arrows:", url_path="drafters"),
]

page = st.navigation(PAGES)
shell.run_page(page)   # the shared sidebar, then the page
