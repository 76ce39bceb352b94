"""The server's compute turns: at most SLOTS sessions at once, re-entrant within a thread."""
import threading

import pytest

from ui.server import gate, health, turns


def test_at_most_slots_threads_hold_a_turn_and_nesting_is_free():
    inside, most, lock = 0, 0, threading.Lock()
    together = threading.Barrier(gate.SLOTS, timeout=20)     # breaks if fewer than SLOTS get in

    def work():
        nonlocal inside, most
        with gate.turn():
            with gate.turn():                  # a page that starts a round itself: no second slot
                with lock:
                    inside += 1
                    most = max(most, inside)
                together.wait()
                with lock:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(3 * gate.SLOTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)              # nobody waited for itself
    assert most == gate.SLOTS
    acquired = [gate._slots().acquire(blocking=False) for _ in range(gate.SLOTS)]
    assert all(acquired)                                       # every slot was given back
    for _ in acquired:
        gate._slots().release()


def test_a_turn_is_given_back_when_the_block_raises():
    for _ in range(gate.SLOTS + 1):
        try:
            with gate.turn():
                raise RuntimeError("a rerun or a failed round")
        except RuntimeError:
            pass
    with gate.turn():                          # would block forever had a slot leaked
        pass


def free_slots() -> int:
    """How many slots another session could take now (taken and given straight back)."""
    slots, taken = gate._slots(), 0
    while slots.acquire(blocking=False):
        taken += 1
    for _ in range(taken):
        slots.release()
    return taken


def test_a_long_job_gives_the_turn_back_and_takes_it_again():
    with gate.turn():
        assert free_slots() == gate.SLOTS - 1
        with gate.released():
            assert free_slots() == gate.SLOTS          # every slot free for other sessions meanwhile
        assert free_slots() == gate.SLOTS - 1          # the page holds its turn again
    assert free_slots() == gate.SLOTS


def one_session(monkeypatch) -> None:
    """Every thread of this test counts as one Streamlit session (threads of one session's reruns)."""
    monkeypatch.setattr(gate, "_session_key", lambda: "one-session")


def test_two_threads_of_one_session_never_compute_at_once(monkeypatch):
    """Streamlit's fast reruns start a click's script run while the previous one still computes
    (issue 48's crash): one session's threads take turns, whatever the free slots."""
    one_session(monkeypatch)
    inside, most, lock = 0, 0, threading.Lock()

    def work():
        nonlocal inside, most
        with gate.turn():
            with lock:
                inside += 1
                most = max(most, inside)
            threading.Event().wait(0.02)
            with lock:
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert most == 1
    assert free_slots() == gate.SLOTS


def test_a_waiting_thread_of_the_session_asks_the_holder_to_stop_between_rounds(monkeypatch):
    one_session(monkeypatch)
    rounds, started, order = [], threading.Event(), []

    def run_to_end():
        with gate.turn():
            started.set()
            while len(rounds) < 10_000 and not gate.wanted():   # a loop of rounds
                rounds.append(1)
                threading.Event().wait(0.001)
            order.append("stopped")

    def click():
        started.wait(10)
        with gate.turn():
            order.append("click")

    threads = [threading.Thread(target=run_to_end), threading.Thread(target=click)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert order == ["stopped", "click"]
    assert 0 < len(rounds) < 10_000            # stopped early, after whole rounds
    assert not gate.wanted()                    # nobody waits now


def test_a_turn_inside_a_released_job_does_not_wait_for_its_own_session(monkeypatch):
    one_session(monkeypatch)
    done = threading.Event()

    def job():
        with gate.turn(), gate.released(), gate.turn():
            done.set()

    t = threading.Thread(target=job)
    t.start()
    t.join(timeout=10)
    assert done.is_set() and not t.is_alive()
    assert free_slots() == gate.SLOTS


def test_a_turn_held_too_long_is_reported():
    assert turns.stuck(0.0) == []
    with gate.turn():
        threading.Event().wait(0.05)
        assert len(turns.stuck(0.01)) == 1
        assert turns.stuck(60.0) == []
    assert turns.stuck(0.0) == []


def no_time_allowed(monkeypatch) -> None:
    """Every turn is past its deadline and its grace as soon as it has begun."""
    monkeypatch.setattr(turns, "LIMIT_S", 0.0)
    monkeypatch.setattr(turns, "GRACE_S", 0.0)


def test_a_turn_is_overdue_only_past_its_deadline(monkeypatch):
    with gate.turn():
        assert not gate.overdue()                    # 120 s by default
        monkeypatch.setattr(turns, "LIMIT_S", 0.0)
        threading.Event().wait(0.001)
        assert gate.overdue()                        # a loop of rounds stops here
    assert not gate.overdue()                        # no turn, nothing to stop


def hold(count: int, release: threading.Event, errors: list) -> list[threading.Thread]:
    """`count` sessions (threads) that each take a turn and keep it until `release`."""
    inside = threading.Barrier(count + 1, timeout=20)

    def work():
        try:
            with gate.turn():
                inside.wait()
                release.wait(20)
        except BaseException as err:                 # a slot given back twice raises here
            errors.append(err)

    threads = [threading.Thread(target=work) for _ in range(count)]
    for t in threads:
        t.start()
    inside.wait()
    return threads


def test_a_stuck_turn_loses_its_slot_to_a_waiting_session_and_gives_nothing_back_twice(monkeypatch):
    release, errors, got_in = threading.Event(), [], threading.Event()
    holders = hold(gate.SLOTS, release, errors)     # every slot held
    no_time_allowed(monkeypatch)

    def newcomer():
        with gate.turn():
            got_in.set()

    t = threading.Thread(target=newcomer)
    t.start()
    t.join(timeout=20)
    assert got_in.is_set() and not t.is_alive()       # without the deadline it would wait for ever
    assert len(turns.stuck()) == gate.SLOTS           # the holders still compute, reported as stuck
    assert health.report()[0] == 503
    release.set()
    for h in holders:
        h.join(timeout=20)
    assert errors == []
    assert free_slots() == gate.SLOTS                 # each slot back exactly once
    assert turns.stuck() == [] and health.report() == (200, "ok")


def test_a_newer_click_stops_waiting_for_a_stuck_run_of_its_session(monkeypatch):
    one_session(monkeypatch)
    release, errors = threading.Event(), []
    holder = hold(1, release, errors)
    no_time_allowed(monkeypatch)
    try:
        with pytest.raises(gate.Busy):
            with gate.turn():
                pass
        clicked = []
        assert gate.in_turn(clicked.append)("click") is None and clicked == []   # the callback is dropped
    finally:
        release.set()
        holder[0].join(timeout=20)
    assert errors == []
    assert free_slots() == gate.SLOTS
    with gate.turn():                                 # the session's lock was given back too
        pass


def test_a_bad_deadline_setting_is_one_line_and_the_default(monkeypatch, capsys):
    for raw, expected in (("30", 30.0), ("", turns.DEFAULT_LIMIT_S), ("abc", turns.DEFAULT_LIMIT_S),
                          ("-5", turns.DEFAULT_LIMIT_S), ("nan", turns.DEFAULT_LIMIT_S)):
        monkeypatch.setenv(turns.LIMIT_ENV, raw)
        assert turns._limit_from_env() == expected
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 3 and "Traceback" not in err
    assert all(turns.LIMIT_ENV in line for line in err.strip().splitlines())
