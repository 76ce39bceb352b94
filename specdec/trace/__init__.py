"""Records of a run: `Round` / `Run` (run.py), how a round's tensors become records (record.py),
what a replayed file must meet (schema.py), the serving engines' metrics (metrics.py) and
Leviathan's formulas (theory.py)."""
from specdec.trace.metrics import Metrics, summarize
from specdec.trace.run import Round, Run

__all__ = ["Metrics", "Round", "Run", "summarize"]
