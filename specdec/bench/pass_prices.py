"""A target's pass prices measured on one device (scripts/gpu_pass_cost.py): a pass of M tokens
in one-token steps for M = 1, 2, …, and each draft's step in the target's, with the provenance
of the measurement. Shipped as assets/bench/gpu-pass-cost.json when taken on a GPU; When it is
fast sets it beside the datacenter GPU's roofline (ui/lessons/fast_regime.py)."""
from __future__ import annotations

from dataclasses import dataclass

from specdec.records.provenance import Provenance


@dataclass(frozen=True)
class PassPrices:
    target: str
    device: str                    # torch's name of the device (a GPU's model, or the CPU's)
    dtype: str
    step_ms: float                 # the target's one-token step
    widths: tuple[int, ...]        # M, the tokens of each timed pass
    v: tuple[float, ...]           # v[i]: a pass of widths[i] tokens over the one-token step
    c: dict                        # draft name -> its one-token step over the target's
    provenance: Provenance = Provenance()

    def price(self, m: int) -> float | None:
        """v(M), or None where M was not timed."""
        return self.v[self.widths.index(m)] if m in self.widths else None
