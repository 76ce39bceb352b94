"""Acceptance rate and mean acceptance length: why their orders can differ, in one sentence.

acceptance rate a = accepted drafts / drafted tokens; mean acceptance length L = emitted
tokens / rounds, the final (correction or bonus) token included. A round emits its accepted
drafts and one final token, so L = a·D + 1 with D the tokens drafted per round: a drafter that
drafts fewer tokens a round can keep a larger share of them and still emit fewer a round.
"""
from __future__ import annotations

import math
from typing import Sequence

from specdec.trace.theory import drafted_per_round
from specdec.wording import _

Row = tuple[str, "float | None", "float | None"]    # (name, acceptance rate, mean acceptance length)
GAP = 0.01          # differences smaller than this read as equal at two decimals


def _number(value) -> bool:
    """A finite number (a row from a file may hold anything)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _crossed(rows: Sequence[Row]) -> list[tuple[Row, Row]]:
    """(higher rate, longer rounds) pairs: the first has the higher rate, the second the higher L."""
    full = [r for r in rows if all(_number(v) for v in r[1:])]
    return [(x, y) for x in full for y in full if x[1] > y[1] + GAP and x[2] < y[2] - GAP]


def disagreement(rows: Sequence[Row]) -> str | None:
    """One sentence when a row has the higher acceptance rate but the lower mean acceptance
    length (the pair with the largest gap in length); None when the two orders agree."""
    crossed = _crossed(rows)
    if not crossed:
        return None
    (hi, hi_rate, hi_len), (lo, lo_rate, lo_len) = max(crossed, key=lambda xy: xy[1][2] - xy[0][2])
    hi_d, lo_d = drafted_per_round(hi_rate, hi_len), drafted_per_round(lo_rate, lo_len)
    values = dict(hi=hi, lo=lo, hi_rate=hi_rate, lo_rate=lo_rate, hi_len=hi_len, lo_len=lo_len)
    if lo_d is None or hi_d >= lo_d:        # not the drafts per round: rounds cut short at the end
        return _("{hi} keeps a larger share of its drafts than {lo} ({hi_rate:.0%} vs {lo_rate:.0%}) but "
                 "emits fewer tokens a round ({hi_len:.2f} vs {lo_len:.2f}): more of its rounds ended "
                 "without a final token (the end of the text or the token limit).").format(**values)
    return _("{hi} keeps a larger share of its drafts than {lo} ({hi_rate:.0%} vs {lo_rate:.0%}) but emits "
             "fewer tokens a round ({hi_len:.2f} vs {lo_len:.2f}): it drafts about {hi_d:.1f} tokens a round "
             "against {lo_d:.1f}, and the acceptance rate is a share of the drafts, not their number "
             "(tokens a round = rate × drafts a round + 1).").format(hi_d=hi_d, lo_d=lo_d, **values)
