"""`make run`'s ASGI entry: app.py served by Streamlit's public `st.App`, plus the app's own
health route (/healthz, ui/server/health.py). ui/server/serve.py loads the models, then runs
`streamlit run ui/server/launch.py [options]`; Streamlit finds `app` below and serves app.py with it.
"""
import streamlit as st

from ui.server import health

app = st.App("../../app.py", routes=health.routes())       # relative to this file
