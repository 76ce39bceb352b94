"""The server's compute turns: at most SLOTS sessions at once, re-entrant within a thread."""
import threading

from ui import gate


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
    assert gate.stuck(0.0) == []
    with gate.turn():
        threading.Event().wait(0.05)
        assert len(gate.stuck(0.01)) == 1
        assert gate.stuck(60.0) == []
    assert gate.stuck(0.0) == []
