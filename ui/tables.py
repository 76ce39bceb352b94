"""Table headers: one readable, translated name per measured quantity, for every page's tables.

Measurement records name their fields with records/vocabulary.py's quantities, one name each; a
table shown to a user renames the columns it knows and leaves the others (prompt labels, drafter
names) as they are. `frame` makes a table of records, leaving out the columns no row has.
"""
import dataclasses

import pandas as pd
import streamlit as st

from ui.i18n import N_, _

HEADERS = {
    "k": "k", "c": "c", "alpha": "α̂",
    "kind": N_("kind"), "drafter": N_("drafter"), "draft": N_("draft"), "row": N_("row"),
    "label": N_("label"), "group": N_("group"), "rounds": N_("rounds"), "prompts": N_("prompts"),
    "params": N_("parameters"), "temperature": N_("temperature"), "repeats": N_("repeats"),
    "load": N_("load per core"),
    "acceptance_rate": N_("acceptance rate"), "mean_acceptance_length": N_("tokens a round (L)"),
    "speedup": N_("speedup"), "speedup_here": N_("speedup priced here"),
    "speedup_min": N_("speedup min"), "speedup_max": N_("speedup max"),
    "speedup_vs_engine_ar": N_("speedup over the target alone on this engine"),
    "per_position": N_("per position"), "histogram": N_("histogram"),
    "tokens_per_s": N_("tokens/s"), "baseline_tokens_per_s": N_("tokens/s, target alone"),
    "target_forwards_per_token": N_("target passes per token"),
    "expected_length": N_("theory: tokens a round (L)"),
    "verify_cost": N_("v (pass cost in steps)"),
    "batch": N_("batch size"), "mode": N_("mode"), "tokens_per_s_min": N_("tokens/s, slowest repeat"),
    "tokens_per_s_max": N_("tokens/s, fastest repeat"), "latency_s": N_("latency (s)"),
    "ttft_s": N_("time to first token (s)"), "forwards_per_token": N_("target passes per token"),
    "pass_ms": N_("ms per target pass"), "pass_rows": N_("tokens fed a pass"),
    "draft_ms": N_("drafting ms per round"),
    "bound": N_("bound"), "measured_over_bound": N_("measured / bound"),
    "bound_with_verify": N_("bound at v"), "measured_over_bound_with_verify": N_("measured / bound at v"),
    "predicted_run": N_("whole-run prediction"), "measured_over_predicted_run": N_("measured / whole-run prediction"),
}


THREE_PLACES = {"c"}        # cost ratios are small: three decimals
PERCENT = {"acceptance_rate"}   # as the charts and sentences say it: 17%, not 0.17 (review 28)


def frame(records, drop: tuple[str, ...] = ()) -> pd.DataFrame:
    """Records (frozen dataclasses, or dicts of result keys) as a table in their fields' order,
    without the fields in `drop` and the ones that are None in every row (a k sweep's points have
    no draft)."""
    table = pd.DataFrame([r if isinstance(r, dict) else dataclasses.asdict(r) for r in records])
    empty = [c for c in table.columns if table[c].isna().all()] if len(table) else []
    return table.drop(columns=[*empty, *(c for c in drop if c in table.columns)])


def number_formats(frame: pd.DataFrame) -> dict:
    """column_config for the number columns of `frame` (its result keys, before `headed`), gaps
    (None among numbers) included: two decimals, c three, acceptance rates in percent; keyed by the
    header `headed` gives."""
    return {_(HEADERS[c]) if c in HEADERS else c:
            st.column_config.NumberColumn(format="%.0f%%" if c in PERCENT else f"%.{3 if c in THREE_PLACES else 2}f")
            for c in frame.columns if _numbers(frame[c])}


def _numbers(column: pd.Series) -> bool:
    """Floats, possibly with gaps (None among numbers)."""
    values = column.dropna()
    return pd.api.types.is_float_dtype(column) or (
        len(values) > 0 and all(isinstance(v, float) for v in values))


def headed(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every known column named in the page's language."""
    return frame.rename(columns={c: _(HEADERS[c]) for c in frame.columns if c in HEADERS})


def show(frame: pd.DataFrame, key: str, place=st) -> None:
    """A result table as every page shows one: readable headers, numbers to two places (c three),
    a dash where a row has no value (an autoregressive row's acceptance), not "None"."""
    frame = frame.astype({c: float for c in frame.columns if _numbers(frame[c])})     # None -> NaN
    frame = frame.assign(**{c: frame[c] * 100 for c in PERCENT if c in frame.columns and _numbers(frame[c])})
    place.dataframe(headed(frame), hide_index=True, key=key, column_config=number_formats(frame),
                    placeholder="—", height="content" if len(frame) <= 30 else "auto")     # every row in view
