"""Step through: draft → verify → accept/reject, one round per click."""
import weakref

import streamlit as st

from specdec.bench import machine
from specdec.chat import has_template
from specdec.drafters.base import FeatureReader
from specdec.engine.decoder import autoregressive
from specdec.prompts import load_prompts
from specdec.settings import Mode
from specdec.trace.metrics import summarize
from ui import (
    cache_story,
    catalog,
    context_view,
    many_view,
    metrics_view,
    payoff_answer,
    payoff_view,
    prefill_view,
    round_view,
    session,
    shell,
    sidebar,
    state,
    strip,
    typical,
)
from ui import examples as examples_ui
from ui.i18n import N_, _, choice
from ui.lessons import store
from ui.lessons.step_through_prices import FEW, PAUSE, Priced, alone_now, beside_box
from ui.safe import md
from ui.upload import file_uploader

# why a run stopped, in words (review 49: "Run finished: max_new_tokens." gave the engine's own name)
STOP_REASONS = {"eos": N_("the model wrote its end-of-text token"),
                "max_new_tokens": N_("it reached the sidebar's Max new tokens"),
                "context window": N_("the context window is full"), "running": N_("still running")}

shell.page(__file__)

st.title(_("Step through a run"))
st.caption(_("Press **Next round** and watch the draft propose, the target verify, and each "
             "token be accepted or rejected — with the numbers that decided it."))

def examples(pair) -> list:
    """The chat set for a model that takes chats, else the raw-text set."""
    return load_prompts("chat" if pair is not None and session.uses_chat(pair) else "text")


def use_example(prompts) -> None:
    choice = st.session_state.get("example")
    match = next((p for p in prompts if f"{p.kind} · {p.label}" == choice), None)
    if match is not None:
        st.session_state.prompt = match.prompt


def prompt_box(pair) -> None:
    chat_ok = pair is not None and has_template(pair.tokenizer)
    c1, c2 = st.columns([1, 2])
    with c1:
        st.radio(_("Prompt as"), ["chat", "raw"], key=choice("prompt_mode"), horizontal=True,
                 format_func={"chat": _("Chat"), "raw": _("Raw text")}.get, disabled=not chat_ok,
                 help=_("Chat sends your text as a user message through the model's chat template "
                        "(shown as the prompt in the token strip); raw text is continued as is."))
        prompts = examples(pair)
        titles = {f"{p.kind} · {p.label}": examples_ui.title(p) for p in prompts}
        st.selectbox(_("Example prompts by kind"), list(titles), format_func=titles.get,
                     index=None, placeholder=_("Choose an example…"), key=choice("example"),
                     on_change=use_example, args=(prompts,))
        examples_ui.english_note()
    c2.text_area(_("Your message") if chat_ok and st.session_state.prompt_mode == "chat" else _("Prompt"),
                 key="prompt", height=130, max_chars=catalog.prompt_chars())
    if (note := catalog.long_prompt_note(pair, st.session_state.prompt)) is not None:
        c2.caption(note)


def controls(finished: bool) -> None:
    c1, c2, c3, c4, c5 = st.columns([1, 1, 1, 1.6, 1.4])
    c1.button(_("Next round"), type="primary", on_click=session.next_round, key="btn_next",
              icon=":material/play_arrow:",
              disabled=finished)
    c2.button(_("Run to end"), on_click=session.run_to_end, key="btn_end", disabled=finished,
              icon=":material/fast_forward:")
    c3.button(_("Reset"), on_click=session.reset, key="btn_reset", icon=":material/restart_alt:")
    c4.button(_("Jump: next partial accept"), on_click=session.jump, args=("partial",),
              key="btn_jump_partial", help=_("Runs rounds until one accepts some drafts and then "
                                             "rejects one (or selects it, if already run)."))
    c5.button(_("Jump: next bonus round"), on_click=session.jump, args=("bonus",), key="btn_jump_bonus",
              help=_("Runs rounds until every draft of a round is accepted and a bonus token follows."))


def messages() -> None:
    if st.session_state.get(session.NOTE):
        st.info(session.note_text(st.session_state[session.NOTE]))
    if st.session_state.get(session.ERROR):
        st.warning(md(st.session_state[session.ERROR]))   # may quote a hostile file


def round_selector(n: int) -> int:
    if n == 1:
        return 0
    sel = st.session_state.get(session.SELECTED, n)
    st.session_state[session.SELECTED] = min(max(1, sel), n)
    return st.slider(_("Inspect round"), 1, n, key=session.SELECTED) - 1


def show_run(rounds, prompt_ids, label, finished_reason, prefill, drafter, reads_features=None,
             context=None, priced: Priced | None = None, tokenizer=None) -> None:
    """`context`: (pair names, k, T, kind, drafter id) for the run-in-context caption; `priced`: this
    machine's profile beside each round's times (None: a replayed run); `tokenizer`: the pair's, to write the
    text whole (None: a replayed run, token by token)."""
    sel = round_selector(len(rounds))
    st.caption(_("Output so far (emitted tokens only)"))
    st.html(strip.output_html(rounds, label, None if tokenizer is None else
                              lambda ids: tokenizer.decode(ids, skip_special_tokens=True)))
    show = st.toggle(_("Show rejected and discarded drafts in the token strip"), value=True,
                     key="show_drafts")
    shown = strip.prompt_texts(prompt_ids, label, None if tokenizer is None else tokenizer.decode)
    st.html(strip.strip_html(shown, rounds, sel, fold=not show, decode=None if tokenizer is None else tokenizer.decode))
    st.html(strip.legend_html())
    if finished_reason:
        st.success(_("Run finished: {reason}.").format(reason=_(STOP_REASONS.get(finished_reason, finished_reason))))
    st.divider()
    prefill_view.render(prefill, len(prompt_ids), drafter, first=sel == 0)
    st.header(_("Round {n}").format(n=sel + 1))
    round_view.render(rounds[sel], label, cache_story.kind_of(rounds, prefill, reads_features), priced)
    st.divider()
    st.header(_("Metrics of the whole run") if finished_reason else _("Metrics so far"))
    metrics_view.render(rounds, sel, prefill, context, finished=bool(finished_reason))


def replay_view() -> None:
    run = st.session_state[session.REPLAY]
    s = {key: md(run.settings.get(key)) for key in ("target", "draft", "k", "temperature")}
    st.info(_("Replaying an uploaded run ({target} ← {draft}, k = {k}, T = {t}). No model is "
              "needed.").format(target=s["target"], draft=s["draft"], k=s["k"], t=s["temperature"]))
    if st.button(_("Back to the live run"), key="btn_live"):
        st.session_state.pop(session.REPLAY)
        st.rerun()
    g = run.settings.get
    drafter = typical.drafter_of(run.settings)
    context = ((g("target"), g("draft")), g("k"), g("temperature"), None, drafter) \
        if drafter is not None and g("mode") == Mode.SPECULATIVE else None
    show_run(list(run.rounds), run.prompt_ids, run.label, run.stop_reason, run.prefill,
             g("drafter"), context=context)


def live_view() -> None:
    pair = sidebar.active_pair()
    prompt_box(pair)
    if pair is None:
        st.warning(_("No model pair is loaded: choose one in the sidebar."))
        return
    session.check_fresh()
    if st.session_state.pop("start_now", False):
        session.next_round()
    session.settle()
    dec = session.decoder()
    controls(finished=dec is not None and dec.stop is not None)
    messages()
    if dec is None or not dec.history:
        st.write(_("Press **Next round** to draft and verify the first round."))
        payoff_view.render(pair, state.settings())
        many_prompts(pair)
        return
    label = lambda t: pair.tokenizer.decode([t])  # noqa: E731
    s = dec.settings
    context = ((dec.pair.target_name, dec.pair.draft_name), s.k, s.temperature,
               context_view.kind_of(st.session_state.prompt, examples(pair)), store.drafter_id(s)) \
        if s.mode == Mode.SPECULATIVE else None
    priced = priced_of(dec.pair, s.drafter)
    show_run(dec.history, dec.prompt_ids, label, dec.stop, dec.prefill, s.drafter,
             isinstance(dec.drafter, FeatureReader), context, priced, pair.tokenizer)
    if dec.stop is not None and s.mode == Mode.SPECULATIVE:         # beside the run's metrics, not under the box
        finished_note(dec)
    st.download_button(_("Download this run (JSON)"), lambda: dec.result().to_json(),   # built on click
                       "specdec-run.json", "application/json", key="btn_download")
    payoff_view.render(pair, state.settings())
    many_prompts(pair)


def priced_of(pair, drafter: str) -> Priced | None:
    """This machine's profile for the pair's rounds (None: not measured yet)."""
    profile = machine.of(pair)
    return None if profile is None else Priced(profile.step_ms, machine.draft_c(profile, drafter, pair.draft_name),
                                               dict(profile.v), session.pauses())


ALONE_NOW = "_alone_now"          # (a weak reference to the decoder it was timed for, the target alone's tokens, ms)


def finished_note(dec) -> None:
    """A finished run against the target alone, timed once when the run ends on the same prompt and settings
    (one prompt's ratio, measured; review 19 saw a ratio against the profile's step swing 0.42×–1.19× with
    the load)."""
    m = summarize(dec.history, dec.prefill)
    timed = st.session_state.get(ALONE_NOW)
    if timed is None or timed[0]() is not dec:
        with st.spinner(_("Running the target alone on this prompt, for comparison")):
            alone = autoregressive(dec.pair, dec.prompt, dec.settings, max_new_tokens=m.tokens)
        timed = (weakref.ref(dec), len(alone.token_ids), sum(r.verify_ms for r in alone.rounds))   # keeps no caches
        st.session_state[ALONE_NOW] = timed
    box = payoff_answer.answer(dec.pair, state.settings())[0]
    ratio = timed[2] / timed[1] / ((m.draft_ms + m.verify_ms) / m.tokens) if min(timed[1], m.tokens) >= FEW and \
        m.draft_ms + m.verify_ms else None                   # the target alone's ms a token over this run's
    said = (alone_note(m), alone_now(m.tokens, m.draft_ms + m.verify_ms, *timed[1:]),
            beside_box(m.mean_acceptance_length, box, ratio,
                       (sum(w >= PAUSE for w in session.pauses().values()), len(dec.history))))
    st.caption(" ".join(filter(None, said)))   # small print: one prompt's ratio, under the box's (review 44: a blue
                                               # "1.11× measured here" right above "No: 0.74×")


def alone_note(m) -> str:
    """Why the box above does not use a finished run: it timed speculative decoding alone."""
    return _("This run: {tokens} tokens in {ms:.0f} ms ({rate:.1f} tokens/s, its prefill included).").format(
        tokens=m.tokens, ms=m.wall_ms, rate=m.tokens / m.wall_ms * 1e3 if m.wall_ms else 0.0)


def many_prompts(pair) -> None:
    """One prompt is one draw: the same comparison averaged over many (issue 40)."""
    st.divider()
    st.header(_("Try it on many prompts"))
    st.caption(_("Changed T, k or the drafter and saw the run change? One prompt is noisy: compare the "
                 "sidebar's setting with another on many prompts of one kind, and see where this run falls."))
    many_view.render(pair, context_view.kind_of(st.session_state.prompt, examples(pair)))


def upload_box() -> None:
    with st.expander(_("Replay a downloaded run (no model needed)")):
        up = file_uploader(_("Run JSON"), ["json"], key="upload")
        if up is not None and st.button(_("Replay it"), key="btn_replay"):
            session.load_replay(up)
            st.rerun()


if st.session_state.get(session.REPLAY) is not None:
    replay_view()
else:
    live_view()
upload_box()
session.record_latency()
