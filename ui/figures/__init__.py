"""Plotly figure builders for the pages: pure functions of runs and results (no streamlit)."""
