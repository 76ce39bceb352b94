"""Give the memory of closed sessions back to the operating system while the server runs.

Three things kept it otherwise, each measured with scripts/load_test.py:
- Streamlit keeps a disconnected session for `server.disconnectedSessionTTL` seconds, so a
  reconnecting browser finds it, but its storage (a TTL cache) drops expired entries only
  on its next write or length query — after the last visitor leaves, nothing writes, and
  every session's decoder, caches and traces stay in memory until someone connects.
  Every TRIM_EVERY_S seconds the expired ones are taken out and shut down.
- When a session is freed, glibc keeps the freed pages inside its heap arenas, so the
  resident size stays at its peak (in-process: 20 released sessions left 612 MB resident
  where 536 MB had been used; malloc_trim(0) brought it to 567 MB).
- Streamlit's own full garbage collection after every script run is switched off
  (.streamlit/config.toml): it held the GIL so often under load that health checks waited
  seconds. This thread collects once every TRIM_EVERY_S seconds instead.
One daemon thread per server process does all three. Without glibc there is no trim. The
trim reaches Python's own objects only when they live on glibc's heap: `make run` starts the
server with PYTHONMALLOC=malloc (pymalloc's arenas return only when entirely empty; 20 closed
sessions left the server at 1.23x its loaded size with pymalloc, 1.07x without).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time

import streamlit as st

TRIM_EVERY_S = 10.0


def _trim_function():
    """glibc's malloc_trim, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def reap_closed_sessions() -> int:
    """Shut down disconnected sessions whose reconnect time is over (Streamlit's own
    AppSession.shutdown: script thread, media and upload references); how many went.
    Reaches into Streamlit's runtime (no public API does this; its private names checked on
    streamlit 1.67.0); if its layout changes, this does nothing and the sessions go on the next
    connection as before."""
    try:
        from streamlit.runtime import Runtime
        manager = Runtime.instance()._session_mgr
        with manager._storage_lock:              # the lock Streamlit holds around its own writes
            expired = manager._session_storage._cache.expire()
    except Exception:                            # not in a server, or another Streamlit
        return 0
    for _, info in expired:
        info.session.shutdown()
    return len(expired)


def _loop(trim) -> None:
    while True:
        time.sleep(TRIM_EVERY_S)
        reap_closed_sessions()
        gc.collect()          # in place of Streamlit's collection after every script run
        if trim is not None:
            trim(0)


@st.cache_resource(show_spinner=False)
def start_trimming() -> bool:
    """Start the thread once per server process; True if glibc's trim is available."""
    trim = _trim_function()
    threading.Thread(target=_loop, args=(trim,), name="memory-return", daemon=True).start()
    return trim is not None
