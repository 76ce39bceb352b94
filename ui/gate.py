"""Who computes when: one script thread per session at a time, and at most SLOTS sessions at once.

One session, one thread at a time. Streamlit answers a click while the previous script run of
the same session is still working (its `runner.fastReruns`, on by default): it asks the old
run to stop and starts the new one at once, in a new thread. The old run stops only at its next
`st.*` call, and a button's callback (a round, "Run to end") makes none, so two threads of one
session could step the same run — feed its caches twice, bind its ONNX Runtime buffers twice —
which once fed a pass zero tokens and once corrupted the server's heap (issue 48: Reset and
four quick Next-round clicks). So a session's compute is serialised by its own lock: a new
thread waits for the old one, and while it waits it asks the old one to stop between rounds
(`wanted`) and leaves at once if it is itself superseded by a newer click (Streamlit's own
stop check). Cost: a turn took 44 µs uncontended (26 µs before the session's lock; AMD EPYC,
1 thread) against a round's tens of milliseconds, and a Decoder's own lock 0.3 µs a round.

Many sessions, SLOTS at a time. Twenty sessions stepping models at once on a small machine
mean twenty threads contending for the cores and for Python's GIL, and the server's event
loop (which answers health checks and sends every page) gets the GIL only now and then. A
session takes a turn for its page script and for the engine work of its buttons' callbacks;
nested turns in the same thread are free (a page that starts a round itself), so a session
never waits for itself. A measurement that runs for minutes (ui/jobs.py) gives its slot back
while it runs, so it never holds up the pages of other sessions; it keeps its session's lock.
Each held turn is on record with its start, so the server's log can name one held for minutes
(`stuck`, read by ui/serve.py).
"""
from __future__ import annotations

import contextlib
import os
import threading
import time
import weakref

import streamlit as st

SLOTS = max(2, os.cpu_count() or 2)
WAIT_TICK_S = 0.05               # how often a waiting thread checks whether it is still wanted
_held = threading.local()
_owners: weakref.WeakValueDictionary = weakref.WeakValueDictionary()   # outside a server: key -> _Owner
_owners_lock = threading.Lock()
_turns: dict[int, float] = {}    # thread id -> when it took its slot (perf_counter)


class _Owner:
    """One session's compute lock, and how many of its threads wait for it."""

    def __init__(self):
        self.lock, self.waiting = threading.Lock(), 0


@st.cache_resource(show_spinner=False)
def _slots() -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(SLOTS)


OWNER = "_gate_owner"              # a session's _Owner, in its own session state


def _session_key() -> str:
    """Outside a Streamlit server (tests, scripts): each thread counts as a session of its own."""
    return f"thread-{threading.get_ident()}"


def _owner() -> _Owner:
    """This session's _Owner: kept in its session state on a server (made once, under a lock:
    two threads of one session may ask at once), else one per `_session_key`."""
    with _owners_lock:
        if not st.runtime.exists():
            return _owners.setdefault(_session_key(), _Owner())
        owner = st.session_state.get(OWNER)
        if not isinstance(owner, _Owner):
            owner = st.session_state[OWNER] = _Owner()
        return owner


def _still_wanted() -> None:
    """Stop here if a newer click superseded this script run: Streamlit checks that at every
    session-state access (and raises its own stop), so one look is the check."""
    if st.runtime.exists():
        _ = OWNER in st.session_state


def _acquire(owner: _Owner) -> None:
    """The session's lock: wait for its other thread, asking it to stop between rounds."""
    with _owners_lock:
        owner.waiting += 1
    try:
        while not owner.lock.acquire(timeout=WAIT_TICK_S):
            _still_wanted()          # a newer click of this session came: this one is not needed
    finally:
        with _owners_lock:
            owner.waiting -= 1
    _held.owner = owner


@contextlib.contextmanager
def turn():
    """Hold this session's lock and one of the server's SLOTS for the block (re-entrant
    within a thread, and inside `released`). The session's lock first, so a thread never
    holds a slot while it waits for its own session."""
    depth = getattr(_held, "depth", 0)
    owner = getattr(_held, "owner", None)
    if depth == 0:
        if owner is None:
            _acquire(_owner())
        try:
            _slots().acquire()
        except BaseException:
            _let_go(owner)
            raise
        _turns[threading.get_ident()] = time.perf_counter()
    _held.depth = depth + 1
    try:
        yield
    finally:
        _held.depth = depth
        if depth == 0:
            _turns.pop(threading.get_ident(), None)
            _slots().release()
            _let_go(owner)


def _let_go(before: _Owner | None) -> None:
    """Release the session's lock if this thread took it in this block (`before` is None)."""
    if before is None and getattr(_held, "owner", None) is not None:
        _held.owner.lock.release()
        _held.owner = None


def wanted() -> bool:
    """True when another thread of this session waits for its turn (a newer click or page):
    a loop of rounds stops at the end of the round it is in."""
    owner = getattr(_held, "owner", None)
    return owner is not None and owner.waiting > 0


def stuck(limit_s: float) -> list[float]:
    """How long each turn held for more than `limit_s` seconds has been held (the server's log)."""
    now = time.perf_counter()
    return sorted((now - t for t in list(_turns.values()) if now - t > limit_s), reverse=True)


@contextlib.contextmanager
def released():
    """Give this thread's slot back for the block (a long job), then take it again. The
    session's lock stays held: the session's own next click waits (and asks this job to stop)."""
    depth = getattr(_held, "depth", 0)
    if depth:
        _slots().release()
        _turns.pop(threading.get_ident(), None)
        _held.depth = 0
    try:
        yield
    finally:
        if depth:
            _slots().acquire()
            _turns[threading.get_ident()] = time.perf_counter()
            _held.depth = depth
