"""Speculative Decoding Lab — placeholder until the app lands (issue 4)."""
import streamlit as st

st.set_page_config(page_title="Speculative Decoding Lab", page_icon="🔮")
st.title("Speculative Decoding Lab")
st.write("The step-through lesson is being built. Meanwhile: `python -m specdec run --prompt 'def f('`.")
