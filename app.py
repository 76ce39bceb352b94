"""Speculative Decoding Lab — entry point: page config, shared sidebar, navigation over pages/."""
from pathlib import Path

import streamlit as st

from ui import navigation, shell

ICON = Path(__file__).resolve().parent / "assets" / "favicon.png"   # local: no font fetched from the web
st.set_page_config(page_title="Speculative Decoding Lab", page_icon=str(ICON), layout="wide")
page = st.navigation(navigation.st_pages())
shell.run_page(page)   # the shared sidebar, then the page
