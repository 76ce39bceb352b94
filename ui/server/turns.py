"""The record of held compute turns: when each began, and the deadline none may pass.

A turn (ui/server/gate.py) holds one of the server's compute slots. Rounds, chat templates and jobs are
bounded on their own, so a turn held for minutes is a bug; but one such turn must not keep a
slot, and with it other learners' pages, for ever. So every turn has a hard deadline, LIMIT_S
(120 s unless SPECDEC_TURN_LIMIT_S says otherwise):
- a loop of rounds asks `overdue()` between rounds and stops there, whole (ui/session.py), and
  the learner is told why;
- a turn still held GRACE_S after its deadline is stuck: a thread waiting for a slot takes that
  slot back (`reclaim`; the holder, when it ends at last, gives nothing back twice), a newer
  click of the stuck session stops waiting (ui/server/gate.py), and the health route says so (ui/server/health.py).
Python cannot stop a thread from outside, so a stuck thread computes on until it ends, holding
its own session's lock (its state is never touched by two threads); only its slot is taken back.
No Streamlit here: the health route reads this record from the server's event loop.
"""
from __future__ import annotations

import math
import os
import sys
import threading
import time

LIMIT_ENV = "SPECDEC_TURN_LIMIT_S"
DEFAULT_LIMIT_S = 120.0
GRACE_S = 10.0                  # for the round in progress when the deadline passes (seconds at most)

_lock = threading.Lock()
_held: dict[int, float] = {}    # thread id -> when its turn began (perf_counter), slot held
_taken: dict[int, float] = {}   # the same for turns whose slot was taken back (stuck)


def _limit_from_env() -> float:
    """SPECDEC_TURN_LIMIT_S as seconds > 0; anything else is said once and the default is used."""
    raw = os.environ.get(LIMIT_ENV, "").strip()
    if not raw:
        return DEFAULT_LIMIT_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if math.isfinite(value) and value > 0:
        return value
    print(f"specdec: {LIMIT_ENV}={raw[:40]!r} is not a number of seconds above 0; "
          f"using {DEFAULT_LIMIT_S:.0f}", file=sys.stderr, flush=True)
    return DEFAULT_LIMIT_S


LIMIT_S = _limit_from_env()


def begin() -> None:
    """This thread has just taken a slot."""
    with _lock:
        _held[threading.get_ident()] = time.perf_counter()


def end() -> bool:
    """This thread's turn is over: True if it still holds its slot (the caller gives it back),
    False if the slot was taken back from it meanwhile."""
    me = threading.get_ident()
    with _lock:
        _taken.pop(me, None)
        return _held.pop(me, None) is not None


def age(thread: int | None) -> float:
    """Seconds since `thread` began its turn (0 when it holds none)."""
    with _lock:
        began = _held.get(thread, _taken.get(thread)) if thread is not None else None
    return 0.0 if began is None else time.perf_counter() - began


def overdue() -> bool:
    """True when this thread's turn has passed its deadline: a loop of rounds stops now."""
    return age(threading.get_ident()) > LIMIT_S


def reclaim() -> int:
    """Take back the slot of every stuck turn; returns how many slots the caller must give back."""
    cut = time.perf_counter() - LIMIT_S - GRACE_S
    with _lock:
        late = [thread for thread, began in _held.items() if began < cut]
        for thread in late:
            _taken[thread] = _held.pop(thread)
    return len(late)


def stuck(limit_s: float | None = None) -> list[float]:
    """How long each turn held for more than `limit_s` seconds (default: stuck, past its deadline
    and the grace) has been held, longest first (the server's log and its health route)."""
    limit = LIMIT_S + GRACE_S if limit_s is None else limit_s
    now = time.perf_counter()
    with _lock:
        began = [*_held.values(), *_taken.values()]
    return sorted((now - t for t in began if now - t > limit), reverse=True)
