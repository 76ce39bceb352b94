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
Every turn has a hard deadline (ui/server/turns.py): a loop of rounds stops at the first round
boundary past it (`overdue`); a thread waiting for a slot takes back the slot of a turn stuck past
it; a newer click of a session whose previous run is stuck stops waiting and says so (`Busy`).
"""
from __future__ import annotations

import contextlib
import functools
import os
import threading
import weakref

import streamlit as st

from ui.server import turns

SLOTS = max(2, os.cpu_count() or 2)
WAIT_TICK_S = 0.05               # how often a waiting thread checks whether it is still wanted
_held = threading.local()
_owners: weakref.WeakValueDictionary = weakref.WeakValueDictionary()   # outside a server: key -> _Owner
_owners_lock = threading.Lock()


class _Owner:
    """One session's compute lock, how many of its threads wait for it, and which thread holds it."""

    def __init__(self):
        self.lock, self.waiting, self.holder = threading.Lock(), 0, None


class Busy(RuntimeError):
    """This session's previous run holds its lock past the deadline: a newer click stops waiting."""

    def __init__(self, held_s: float):
        super().__init__(f"this session's previous run has held its turn for {held_s:.0f} s")
        self.held_s = held_s


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
            held = turns.age(owner.holder)
            if held > turns.LIMIT_S + turns.GRACE_S:
                raise Busy(held)     # the holder is stuck: waiting longer would never end
    finally:
        with _owners_lock:
            owner.waiting -= 1
    owner.holder = threading.get_ident()
    _held.owner = owner


def _take_slot() -> None:
    """One of the SLOTS, on record from now. While none is free, the slots of stuck turns
    (past their deadline and its grace) are taken back, so no one waits for ever."""
    slots = _slots()
    while not slots.acquire(timeout=WAIT_TICK_S):
        for _ in range(turns.reclaim()):
            slots.release()
    turns.begin()


def _give_slot() -> None:
    """This thread's slot back, unless it was taken back from it already."""
    if turns.end():
        _slots().release()


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
            _take_slot()
        except BaseException:
            _let_go(owner)
            raise
    _held.depth = depth + 1
    try:
        yield
    finally:
        _held.depth = depth
        if depth == 0:
            _give_slot()
            _let_go(owner)


def _let_go(before: _Owner | None) -> None:
    """Release the session's lock if this thread took it in this block (`before` is None)."""
    if before is None and getattr(_held, "owner", None) is not None:
        _held.owner.holder = None
        _held.owner.lock.release()
        _held.owner = None


def in_turn(callback):
    """A button's callback, run in a turn; dropped when this session's previous run is stuck
    (the page's own turn then says so: ui/shell.py)."""
    @functools.wraps(callback)
    def run(*args, **kwargs):
        try:
            with turn():
                return callback(*args, **kwargs)
        except Busy:
            return None
    return run


def wanted() -> bool:
    """True when another thread of this session waits for its turn (a newer click or page):
    a loop of rounds stops at the end of the round it is in."""
    owner = getattr(_held, "owner", None)
    return owner is not None and owner.waiting > 0


def overdue() -> bool:
    """True when this thread's turn has passed its deadline: a loop of rounds stops at the end
    of the round it is in, whole, and says why."""
    return turns.overdue()


@contextlib.contextmanager
def released():
    """Give this thread's slot back for the block (a long job), then take it again. The
    session's lock stays held: the session's own next click waits (and asks this job to stop)."""
    depth = getattr(_held, "depth", 0)
    if depth:
        _give_slot()
        _held.depth = 0
    try:
        yield
    finally:
        if depth:
            _take_slot()
            _held.depth = depth
