"""At most SLOTS sessions compute at once; the others wait their turn without using the CPU.

Every Streamlit session runs its script in its own thread. Twenty sessions stepping models
at once on a small machine mean twenty threads contending for the cores and for Python's
GIL, and the server's event loop (which answers health checks and sends every page) gets
the GIL only now and then. A session takes a turn for its page script and for the engine
work of its buttons' callbacks; nested turns in the same thread are free (a page that
starts a round itself), so a session never waits for itself. A measurement that runs for
minutes (ui/jobs.py) gives its turn back while it runs, so it never holds up the pages of
other sessions.
"""
from __future__ import annotations

import contextlib
import os
import threading

import streamlit as st

SLOTS = max(2, os.cpu_count() or 2)
_held = threading.local()


@st.cache_resource(show_spinner=False)
def _slots() -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(SLOTS)


@contextlib.contextmanager
def turn():
    """Hold one of the server's SLOTS for the block (re-entrant within a thread)."""
    depth = getattr(_held, "depth", 0)
    if depth == 0:
        _slots().acquire()
    _held.depth = depth + 1
    try:
        yield
    finally:
        _held.depth = depth
        if depth == 0:
            _slots().release()


@contextlib.contextmanager
def released():
    """Give this thread's turn back for the block (a long job), then take it again."""
    depth = getattr(_held, "depth", 0)
    if depth:
        _slots().release()
        _held.depth = 0
    try:
        yield
    finally:
        if depth:
            _slots().acquire()
            _held.depth = depth
