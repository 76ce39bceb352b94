"""Measured points for caption and figure tests: every field a record needs, the test's own
numbers where it names them."""
from specdec.bench.points import Point
from specdec.records.provenance import Clock

MEASURED = dict(k=4, alpha=0.4, acceptance_rate=0.3, mean_acceptance_length=1.5, c=0.1, speedup=1.0, speedup_min=0.9,
                speedup_max=1.1, clock=Clock.WALL, speedup_wall=1.0, speedup_cpu=1.0, repeats=3, load=0.2,
                expected_length=1.6, bound=1.2, verify_cost=1.3, bound_with_verify=1.1, tokens_per_s=10.0,
                baseline_tokens_per_s=9.0)


def point(**changes) -> Point:
    return Point(**{**MEASURED, **changes})
