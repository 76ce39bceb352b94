"""Speculative Decoding Lab — entry point: page config, shared sidebar, navigation."""
import streamlit as st

from ui import sidebar

st.set_page_config(page_title="Speculative Decoding Lab", page_icon="🔮", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/step_through.py", title="Step through", icon=":material/step:", url_path="step"),
]

page = st.navigation(PAGES)
sidebar.render()
page.run()
