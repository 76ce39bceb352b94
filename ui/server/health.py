"""The served app's own health route: 200 "ok", or 503 with a short reason while a compute turn
is stuck past its deadline (ui/server/turns.py).

Streamlit's /_stcore/health says that its server answers, and it does while every learner's page
waits for a slot held for ever. Streamlit 1.67's public `st.App` takes extra Starlette routes, so
`make run` serves app.py through one (launch.py) and this route answers on the same port:

    curl -i http://localhost:8501/healthz          # under server.baseUrlPath: /<base>/healthz
"""
from __future__ import annotations

import streamlit as st
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from ui.server import turns

NAME = "healthz"


def report() -> tuple[int, str]:
    """(HTTP status, reason): 503 while any compute turn is held past its deadline and grace."""
    held = turns.stuck()
    if not held:
        return 200, "ok"
    return 503, (f"unhealthy: {len(held)} compute slot(s) held for {held[0]:.0f} s, past the "
                 f"{turns.LIMIT_S:.0f} s deadline")


async def answer(_request) -> PlainTextResponse:
    """Answered on the server's event loop: reads the record of turns, computes nothing."""
    status, text = report()
    return PlainTextResponse(text + "\n", status_code=status)


def path() -> str:
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/{NAME}" if base else f"/{NAME}"


def routes() -> list[Route]:
    return [Route(path(), answer, methods=["GET", "HEAD"])]
