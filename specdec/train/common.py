"""What the training scripts share: a timestamped progress line, and the learning-rate schedule."""
from __future__ import annotations

import math
import time


def log(msg: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


def warmup(step: int, steps: int) -> float:
    """Linear warm-up: (step + 1) / steps, at most 1."""
    return min(1.0, (step + 1) / steps)


def cosine_to_tenth(progress: float) -> float:
    """Cosine decay from 1 to 0.1 as progress goes from 0 to 1 (and stays at 0.1 after)."""
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def warmup_then_cosine(step: int, warmup_steps: int, total: int, peak: float) -> float:
    """`peak` times a linear warm-up over `warmup_steps`, then a cosine to 10 % at `total`."""
    if step < warmup_steps:
        return peak * warmup(step, warmup_steps)
    return peak * cosine_to_tenth((step - warmup_steps) / max(1, total - warmup_steps))
