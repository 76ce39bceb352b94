"""When it is fast, section 6: this engine against the plain ways to run the same model, from
`python -m specdec bench`'s file (a local one, an uploaded one, or the one shipped with the app):
one line per setting and a figure per temperature in view, the set-up, notes and table behind an
expander."""
import pandas as pd
import streamlit as st

from specdec.drafters.registry import DRAFTERS
from specdec.models.backend import Backend
from specdec.wording import times
from ui import payoff_answer, payoff_view, state, tables
from ui.figures import fast as lp
from ui.i18n import _
from ui.lessons import badges, bench_lines, fast
from ui.lessons.acceptance_words import disagreement
from ui.lessons.bench_words import bench_row, kernel_choice, kernel_line, named_at
from ui.round_view import chart
from ui.safe import md
from ui.upload import file_uploader


def acceptance_note(named: list[tuple]) -> None:
    note = disagreement(named)
    if note:
        st.caption(note)


def bench_drafter(result) -> str:
    """The draft model's name, or the drafter a bench (specdec/bench/record.Bench) used instead."""
    kind = DRAFTERS[result.drafter]                 # a known drafter: record.py checks it on reading
    if kind.needs_draft_model:
        return md(result.draft)
    if kind.uses_exit_layer:
        return _("early exit after layer {n}").format(n=md(result.exit_layer))
    return _(kind.label)


def render(pair=None) -> None:
    """The tab; `pair`: the active pair, whose box figure is set beside the bench's at the sidebar's settings."""
    st.header(_("6 · The benchmark: this engine vs other ways to run the target alone"))
    with st.expander(_("For people running the lab themselves: the benchmark, or a file from another machine")):
        st.write(_("`python -m specdec bench --out build/bench.json` runs this engine's decoding with the "
                   "target alone and speculative decoding on each target backend, transformers `generate()` and "
                   "assisted generation, ONNX Runtime's own generation loop and, where it is built (`make peers`), "
                   "llama.cpp, side by side (see the README). Its results show up here; you can also upload "
                   "a file from another machine."))
        upload = file_uploader(_("Benchmark JSON"), ["json"], key="fast_bench_file")
    result, error = fast.read_bench(upload.getvalue() if upload else None)
    if error:
        st.error(error)
    if not result:
        return
    if upload is None and not fast.BENCH_FILE.exists():
        m = result.provenance
        how = (_("the target ran on ONNX Runtime (int4 weights re-quantised by onnxruntime-genai's "
                 "builder: a different model from the GGUF's own Q4_1 blocks)") if m.backend == Backend.ONNX else
               _("the target multiplied in {how}").format(how=md(kernel_line(m.kernels or "float32"))))
        said = _("Shipped with the lab, measured on {cpu} (none taken here yet), {threads} thread(s); {how}.").format(
            cpu=md(m.cpu or "?"), threads=m.threads or "?", how=how)
        st.caption(badges.shipped(m.cpu, date=m.date) + " " + said, help=kernel_choice() if "kernel)" in (
            m.kernels or "") else None)
    rows = [bench_lines.baseline_row(setting) for setting in result.settings if setting.baseline]
    if rows:
        st.caption(_("Tokens per second, the median over repeats (speculative and the target alone: their range), "
                     "against the fastest way to run the target alone:"))
        st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder="—", key="fast_bench_peers", height="content")
        notes = (bench_lines.transformers_note(result), bench_lines.llama_note(result), skipped(result),
                 None if upload is not None else beside_box(pair, result))
        for note in filter(None, notes):
            st.caption(note)
    temps = sorted({s.temperature for s in result.settings})
    for col, t in zip(st.columns(len(temps)), temps):
        with col:
            chart(lp.bench_figure(result, t), f"fast-bench-{t}")
    for t in temps:                                  # full width: a half-width column made it a paragraph
        for line in filter(None, (bench_lines.fastest_caption(result, t), bench_lines.longer_caption(result, t))):
            st.caption(line)
    if (sampled := bench_lines.sampled_caption(result)) is not None:
        st.caption(sampled)
    with st.expander(_("What the lines are, and every number")):
        bench_notes(result, temps)


def beside_box(pair, result) -> str | None:
    """Where this benchmark (the one the box reads, not an upload) ran the active pair at the sidebar's k and T: its
    speculative figure beside the box's, one setting on two texts (review 35 asked for the defaults here; then
    they are a second figure for them)."""
    if pair is None:
        return None
    settings = state.settings()
    names = tuple(st.session_state.get("active_pair") or (pair.target_name, pair.draft_name))
    found = payoff_answer.bench_row(names, settings) if settings.policy == "constant" else None
    if found is None:
        return None
    mine = _("In this benchmark, k = {k}, T = {t:g}: **{x}** on {n} held-out chats × {tokens} tokens").format(
        k=settings.k, t=settings.temperature, x=times(found[0].speedup), n=result.prompts,
        tokens=result.max_new_tokens)
    return payoff_view.measured_line(pair, settings, mine)


def skipped(result) -> str | None:
    """The rows the command runs that this benchmark did not, and why (review 32: the intro names assisted
    generation, the table has no such row); None where it ran them all."""
    if not result.skipped_rows:
        return None
    why = _(result.skipped_why) if result.skipped_why else "—"
    return _("Not in this benchmark: {rows} ({why}).").format(rows=", ".join(bench_row(r) for r in result.skipped_rows),
                                                               why=why)


BENCH_SHOWN = ("temperature", "k", "row", "speedup", "predicted_run", "verify_cost")     # fits 1400 px


def bench_notes(result, temps: list[float]) -> None:
    """The benchmark's set-up, what its figures show, acceptance per row, and its table (the
    columns that fit a 1400 px window)."""
    st.caption(_("{target} ← {draft}, {prompts} prompts × {tokens} tokens, {repeats} repeats, c = "
                 "{c:.3f}.").format(target=md(result.target), draft=bench_drafter(result),
                                    prompts=md(result.prompts), tokens=result.max_new_tokens,
                                    repeats=result.repeats, c=result.c))
    if result.c_probed and result.draft is not None:
        st.caption(_("This c is one draft step timed alone over one target step ({draft:.2f} ms / {target:.2f} ms): "
                     "the bench predates the lab's one c, a draft forward as the runs paid it (the k sweep's and "
                     "the profile's).").format(
            draft=result.draft_step_ms, target=result.target_step_ms))
    if result.library_drafting:
        st.caption(_("Assisted rows: transformers' own counterpart: {how}.").format(
            how=md(result.library_drafting)))
    st.caption(_("Notice: the gap between the solid and dashed lines is what a verification pass "
                 "over k + 1 tokens costs beyond one step on this machine; a measured point below "
                 "the dashed line is per-round overhead, one above it is run-to-run noise or text "
                 "that suits the draft better than the average α suggests. Dotted: transformers' "
                 "default drafting (up to 20 drafts a round, stop when q(d) < 0.4) in the library "
                 "and in this engine — it ignores k, so it is flat."))
    for line in filter(None, (bench_lines.bench_run_caption(result, t) for t in temps)):
        st.caption(line)
    for t in temps:                          # rows of one temperature: the same text to draft
        named = {named_at(bench_row(r.row), t, s.k if bench_lines.drafts_k(r.row) else None): r   # a row that
                 for s in result.settings if s.temperature == t for r in s.rows}    # ignores k: once, without it
        acceptance_note([(md(name), r.acceptance_rate, r.mean_acceptance_length) for name, r in named.items()])
    table = bench_lines.bench_table(result)
    tables.show(table[[c for c in BENCH_SHOWN if c in table]], "fast_bench_rows")
