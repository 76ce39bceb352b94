"""Two clocks for every measurement: wall-clock, and the CPU time the run itself used.

On a busy machine (a classroom server, a second job) a run's wall-clock grows with every
process competing for the cores, while the CPU time it needed stays about the same (on this
2-core machine without shared hyperthreads). A speedup from CPU times therefore survives a
busy machine; one from wall-clock does not (issue 28). With one torch thread the models run
in the calling thread, so that thread's CPU time counts them (and not the other sessions of
an app server); with more torch threads the process's CPU time does (the bench runs alone).
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import torch


@dataclass
class Lap:
    wall: float = 0.0        # seconds, time.perf_counter
    cpu: float = 0.0         # seconds of CPU time (cpu_now)


def cpu_now() -> float:
    return time.thread_time() if torch.get_num_threads() == 1 else time.process_time()


@contextmanager
def stopwatch() -> Iterator[Lap]:
    """`with stopwatch() as lap: ...`; lap.wall and lap.cpu are set when the block ends."""
    lap, wall, cpu = Lap(), time.perf_counter(), cpu_now()
    try:
        yield lap
    finally:
        lap.wall, lap.cpu = time.perf_counter() - wall, cpu_now() - cpu
