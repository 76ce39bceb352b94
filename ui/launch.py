"""`make run`'s ASGI entry: app.py served by Streamlit's public `st.App`, plus the app's own
health route (/healthz, ui/health.py). ui/serve.py loads the models, then runs
`streamlit run ui/launch.py [options]`; Streamlit finds `app` below and serves app.py with it.
"""
import streamlit as st

from ui import health

app = st.App("../app.py", routes=health.routes())          # relative to this file
