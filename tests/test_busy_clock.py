"""Speed that survives a busy machine (issue 28): a speedup on CPU time stays put when two
CPU-bound processes compete for the cores, while the wall-clock one is free to move.

The check the issue asks for: the T = 0 speedup of 4 prompts x 48 tokens, measured on the CPU
clock (specdec/bench/clock.py) with the machine as it is and again with two busy processes
beside it, agrees within 10 %. The same by hand on the real pair: the closing note."""
import statistics
import subprocess
import sys
from contextlib import contextmanager

from specdec.bench.measure import speedups, timed
from specdec.settings import Settings

PROMPTS = ["abc", "a b c d", "(a)", "fed cba"]
SPEC = Settings(k=3, temperature=0.0, max_new_tokens=48)
BASE = Settings(mode="autoregressive", temperature=0.0, max_new_tokens=48)
CYCLES, REPEATS = 3, 3        # idle and busy phases alternate, so a slow drift hits both alike


@contextmanager
def busy(processes: int = 2):
    """CPU-bound processes (a Python busy loop each) running until the block ends."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def repeats(pair, clock: str, n: int = REPEATS) -> list[float]:
    """n speedups on `clock`, each from a speculative and an autoregressive run side by side."""
    out = []
    for _ in range(n):
        spec, base = timed(pair, PROMPTS, SPEC), timed(pair, PROMPTS, BASE)
        assert spec.tokens == base.tokens == 4 * 48
        out += speedups([spec], [base], clock)
    return out


def idle_and_busy(pair, clock: str) -> tuple[float, float]:
    """Median speedups with the machine as it is and with two busy processes beside it."""
    timed(pair, PROMPTS[:1], SPEC)                                      # warm up: first-call costs
    idle, loaded = [], []
    for _ in range(CYCLES):
        idle += repeats(pair, clock)
        with busy(2):
            loaded += repeats(pair, clock)
    return statistics.median(idle), statistics.median(loaded)


def test_the_cpu_time_speedup_survives_two_competing_processes(pair_no_eos):
    idle, loaded = idle_and_busy(pair_no_eos, "cpu")
    assert abs(loaded / idle - 1) < 0.10, (idle, loaded)


def test_cpu_time_counts_the_runs_own_work_not_the_waiting():
    """A thread that sleeps uses no CPU time; one that computes uses about its wall-clock."""
    import time

    from specdec.bench.clock import stopwatch
    with stopwatch() as lap:
        time.sleep(0.2)
    assert lap.wall >= 0.2 and lap.cpu < 0.05
    with stopwatch() as lap:
        sum(i * i for i in range(2_000_000))
    assert lap.cpu > 0.5 * lap.wall > 0
