"""Speculative Decoding Lab — entry point: page config, shared sidebar, navigation over pages/."""
import streamlit as st

from ui import navigation, shell

st.set_page_config(page_title="Speculative Decoding Lab", page_icon=":material/fast_forward:", layout="wide")
page = st.navigation(navigation.st_pages())
shell.run_page(page)   # the shared sidebar, then the page
