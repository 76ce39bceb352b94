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
