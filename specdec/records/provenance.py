"""Where and how a measurement was taken: the record every measurement carries (issue 50).

A speedup measured on one CPU says little about another: a round's price (c, v) belongs to the
machine, its backend and its kernels, and to how busy the machine was. So every measurement
record holds a `Provenance`: the CPU and the instructions torch dispatches to, the cores and
torch threads, what ran the target's passes and how its linear layers multiplied, which clock
the headline uses and the load seen, the library versions, this app's revision and the date.
`here()` builds one for this machine, now.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import torch

from specdec.models import kernels
from specdec.models.backend import Backend

ROOT = Path(__file__).resolve().parents[2]
BUSY_LOAD = 1.0          # per core, sampled during a measurement: another job is competing,
                         # so headline speedups use CPU time (bench/clock.py)


class Clock(StrEnum):
    """Which clock a speedup is on (bench/clock.py): wall-clock, or CPU time when the machine was busy."""
    WALL = "wall"
    CPU = "cpu"


def clock_for(load: float | None) -> Clock:
    """The clock headline speedups use: CPU time when the machine was busy, else wall-clock."""
    return Clock.CPU if load is not None and load >= BUSY_LOAD else Clock.WALL


@dataclass(frozen=True)
class Provenance:
    cpu: str | None = None                 # the CPU's model name (models/kernels.cpu_model)
    instructions: str | None = None        # the vector instructions torch dispatches to here (AVX2, AVX512)
    cores: int | None = None
    threads: int | None = None             # torch threads the runs used
    backend: Backend | None = None         # what ran the target's passes (models/backend.py); None: not recorded
    kernels: str | None = None             # how the target's linear layers multiplied (kernels.describe)
    bandwidth: str | None = None           # the target's memory traffic against this machine's
    backend_note: str | None = None        # the backend in one line (the bench's)
    clock: Clock = Clock.WALL              # the headline's clock: CPU time when the machine was busy
    load: float | None = None              # the highest load per core seen while measuring
    torch: str | None = None
    transformers: str | None = None
    revision: str | None = None            # this app's git commit (None: not a checkout)
    date: str | None = None                # YYYY-MM-DD
    seconds: float | None = None           # how long the measurement took


def here(pair=None, load: float | None = None, started: float | None = None) -> Provenance:
    """This machine, now; `pair`: the target whose backend and kernels ran, `load`: the highest
    load per core seen (it picks the clock), `started`: time.perf_counter() at the start."""
    import transformers
    target = {} if pair is None else {"backend": pair.passes.name, "kernels": kernels.describe(pair.target),
                                      "bandwidth": kernels.bandwidth_of(pair.target)}
    return Provenance(cpu=kernels.cpu_model(), instructions=torch.backends.cpu.get_cpu_capability(),
                      cores=os.cpu_count(), threads=torch.get_num_threads(), **target, clock=clock_for(load),
                      load=load, torch=torch.__version__.split("+")[0], transformers=transformers.__version__,
                      revision=revision(), date=time.strftime("%Y-%m-%d"),
                      seconds=None if started is None else round(time.perf_counter() - started, 1))


def revision(root: Path = ROOT) -> str | None:
    """The checkout's commit now, read from .git without running git (None outside a checkout); a worktree's
    .git file names its own folder (its HEAD) and that one the common folder (the refs)."""
    try:
        git = _git_dir(root)
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head[:12]
        ref = head[5:]
        common = git / (git / "commondir").read_text().strip() if (git / "commondir").is_file() else git
        loose = common / ref
        if loose.is_file():
            return loose.read_text().strip()[:12]
        packed = (common / "packed-refs").read_text().splitlines()
        return next((line.split()[0][:12] for line in packed if line.endswith(" " + ref)), None)
    except (OSError, IndexError):
        return None


def _git_dir(root: Path) -> Path:
    """A checkout's git folder: .git, or where a worktree's .git file points ("gitdir: <path>")."""
    dot = root / ".git"
    if dot.is_file() and (text := dot.read_text().strip()).startswith("gitdir: "):
        return root / text[len("gitdir: "):]
    return dot
