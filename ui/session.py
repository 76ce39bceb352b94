"""Per-user run state in st.session_state: the Decoder, its rounds, the selected round.

A run belongs to one (pair, prompt, settings) signature; when any of them changes the
run is reset and a note says why. Buttons act through on_click callbacks.
"""
from __future__ import annotations

import time

import streamlit as st

import specdec
from specdec.chat import has_template, user_turn
from specdec.rules.chain import FinalKind
from ui import loaders, state
from ui.i18n import N_, _
from ui.server import gate, turns

RUN, NOTE, ERROR, SELECTED, REPLAY = "run", "run_note", "run_error", "round_sel", "replay"
ERROR_FOR = "run_error_for"          # the signature an input error was said for: a changed prompt or setting clears it
OUTBOX = "_run_outbox"   # what a button's rounds leave for the page (see `_outbox`)
CLICK_T0, CLICK_MS = "_click_t0", "_last_click_ms"


def signature() -> tuple:
    return (st.session_state.get("active_pair"), st.session_state.prompt,
            st.session_state.prompt_mode, state.settings())


def uses_chat(pair: specdec.Pair) -> bool:
    """Chat mode applies when the user chose it (the default where nothing set it yet) and the
    target has a chat template."""
    return st.session_state.get("prompt_mode", state.DEFAULTS["prompt_mode"]) == "chat" and has_template(pair.tokenizer)


def decoder() -> specdec.Decoder | None:
    run = st.session_state.get(RUN)
    return run["decoder"] if run else None


def check_fresh() -> None:
    """Reset the run when the pair, prompt or settings changed since it started."""
    run = st.session_state.get(RUN)
    if run and run["signature"] != signature():
        reset()
        st.session_state[NOTE] = N_("Settings, prompt or model pair changed — the run was reset.")
    elif not run and ERROR_FOR in st.session_state and st.session_state[ERROR_FOR] != signature():
        st.session_state.pop(ERROR, None)         # said about a prompt or setting since changed (review 50: an
        st.session_state.pop(ERROR_FOR, None)     # empty prompt's warning stayed after a prompt was typed)


@gate.in_turn
def reset() -> None:
    """The Reset button (a callback): after any round this session is still computing."""
    for key in (RUN, SELECTED, ERROR, NOTE, OUTBOX):
        st.session_state.pop(key, None)


def _start() -> specdec.Decoder:
    pair = loaders.load(*st.session_state.active_pair)
    text = st.session_state.prompt
    dec = specdec.Decoder(pair, user_turn(text) if uses_chat(pair) else text, state.settings())
    st.session_state[RUN] = {"decoder": dec, "signature": signature()}
    return dec


def _outbox() -> dict:
    """A plain dict in the session's state for what rounds leave behind (the selected round, a
    note, an error). Streamlit checks at every st.session_state access whether a newer click has
    superseded this run and stops it there; after the rounds that would drop "stopped after round
    n" unsaid. Writing into a dict fetched before the rounds is no such access; `settle` moves its
    entries into the session's state when the page draws."""
    return st.session_state.setdefault(OUTBOX, {})


def settle() -> None:
    """The page, before it reads the run's note, error and selected round: take what rounds left. An entry
    leaves the outbox once the session's state holds it: a newer click or page may stop this run at that very
    write, and the next run takes it then."""
    out = st.session_state.get(OUTBOX)
    while out:
        key = next(iter(out))
        st.session_state[key] = out[key]
        out.pop(key, None)


def _advance(until_end: bool) -> None:
    st.session_state[CLICK_T0] = time.perf_counter()     # scripts/bench_step.py reads the latency
    st.session_state.pop(ERROR, None)
    st.session_state.pop(NOTE, None)
    out = _outbox()
    try:
        dec = decoder() or _start()
        run = st.session_state[RUN]
        while dec.stop is None:
            _timed_step(dec, run)
            if not until_end:
                break
            note = interrupted(dec)     # stop here, whole: the next round starts from this state
            if note:
                out[NOTE] = note
                break
        out[SELECTED] = shown_round(dec.history, until_end and dec.stop is not None)
    except specdec.InputError as err:
        out[ERROR], out[ERROR_FOR] = err.worded(_), signature()


def _timed_step(dec: specdec.Decoder, run: dict) -> None:
    """One round, and how long the machine waited before it since the last round ended (a click's pause:
    step_through_prices says what a pause costs a round)."""
    if (ended := run.get("ended")) is not None:
        run.setdefault("pauses", {})[len(dec.history)] = time.perf_counter() - ended
    dec.step()
    run["ended"] = time.perf_counter()


def pauses() -> dict[int, float]:
    """Round index (0-based) -> seconds the run waited before it since the round before ended."""
    run = st.session_state.get(RUN)
    return dict(run.get("pauses", {})) if run else {}


def shown_round(history: list, finished: bool) -> int:
    """The round (1-based) the inspector shows after a click: the newest, or where a run went to its end, the
    last round that drafted (a last round left no room to draft is the least to see: review 31)."""
    drafted = [i for i, r in enumerate(history, 1) if r.drafted] if finished else []
    return drafted[-1] if drafted else len(history)


PAUSED = N_("Stopped after round {n} ({tokens} of {limit} new tokens) because you clicked or "
            "left the page; press **Run to end** to go on.")


OVERDUE = N_("Stopped after round {n} ({tokens} of {limit} new tokens): one click may compute for "
             "{seconds:.0f} s at most, so that other learners get their turn; press **Run to end** to go on.")


def paused(dec: specdec.Decoder, why: str = PAUSED) -> tuple:
    """The note for a run of rounds that stopped early: the learner clicked or left the page
    (PAUSED), or the turn reached its deadline (OVERDUE, ui/server/turns.py)."""
    return (why, {"n": len(dec.history), "tokens": len(dec.generated), "limit": dec.settings.max_new_tokens,
                  "seconds": turns.LIMIT_S})


def interrupted(dec: specdec.Decoder) -> tuple | None:
    """Why a loop of rounds stops before its end, as a note; None to go on."""
    if gate.wanted():               # another click or page of this session waits
        return paused(dec)
    if gate.overdue():              # this click has computed for as long as one may
        return paused(dec, OVERDUE)
    return None


def note_text(note) -> str:
    """A note as stored (a message id, or one with its values) in the session's language."""
    msg, values = note if isinstance(note, tuple) else (note, {})
    return _(msg).format(**values)


JUMPS = {   # what a "Jump to" button looks for in the rounds after the selected one
    "partial": lambda r: 0 < r.n_accepted < r.drafted,       # a rejection after >= 1 acceptance
    "bonus": lambda r: r.final.kind == FinalKind.BONUS,
}


@gate.in_turn
def jump(kind: str) -> None:
    """Select the next round of that kind: among the rounds already run after the selected
    one, else by running more rounds until one appears or the run ends."""
    st.session_state.pop(NOTE, None)
    out = _outbox()
    try:
        dec = decoder() or _start()
        after = st.session_state.get(SELECTED, 0)
        found = next((r.index for r in dec.history[after:] if JUMPS[kind](r)), None)
        note = None
        while found is None and dec.stop is None and not (note := interrupted(dec)):
            rnd = dec.step()
            found = rnd.index if JUMPS[kind](rnd) else None
        out[SELECTED] = len(dec.history) if found is None else found + 1
        if found is None:
            out[NOTE] = note or N_("No such round before the end of the run.")
    except specdec.InputError as err:
        out[ERROR], out[ERROR_FOR] = err.worded(_), signature()


@gate.in_turn                         # button callbacks run before the page: take a turn too
def next_round() -> None:
    _advance(until_end=False)


@gate.in_turn
def run_to_end() -> None:
    _advance(until_end=True)


def load_replay(uploaded) -> None:
    """Replace the view with an uploaded JSON run (no model needed)."""
    try:
        st.session_state[REPLAY] = specdec.Run.from_json(uploaded.getvalue().decode("utf-8"))
        st.session_state[SELECTED] = 1
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
        st.session_state[ERROR] = _("that file is not a run exported by this app ({why})").format(
            why=err.worded(_) if isinstance(err, specdec.InputError) else err)


def record_latency() -> None:
    """After the page is drawn: server-side time from the click to the end of the render."""
    started = st.session_state.pop(CLICK_T0, None)
    if started is not None:
        st.session_state[CLICK_MS] = (time.perf_counter() - started) * 1e3
