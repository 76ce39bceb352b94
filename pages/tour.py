"""A guided tour: six short steps, each with one live widget and one thing to try."""
from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import torch

import specdec
from specdec.chat import user_turn
from specdec.lessons import exactness as ex
from specdec.lessons.race import race, verdict
from specdec.lessons.you_draft import compare
from specdec.metrics import summarize
from specdec.plots import COLORS
from specdec.prompts import by_kind, load_prompts
from specdec.theory import best_k, expected_speedup
from ui import session, shell, sidebar, state, strip
from ui.round_view import chart
from ui.safe import md

shell.page()
st.title("A guided tour")
STEP = "tour_step"
P = torch.tensor([0.40, 0.25, 0.15, 0.12, 0.08], dtype=torch.float64)
TOKENS = ["the", "a", "this", "one", "my"]


def prompt_for(pair, text: str):
    return user_turn(text) if session.uses_chat(pair) else text


def try_this(text: str) -> None:
    st.info(f"**Try this:** {text}", icon=":material/touch_app:")


def step_rounds(pair) -> None:
    st.write("A model normally writes one token per pass of its full network. Here a small draft "
             "model writes a few tokens ahead, and the large target checks all of them in a single "
             "pass: the tokens it agrees with are kept at once, and where it disagrees it writes "
             "the token itself and the next round starts from there.")
    run, sig = st.session_state.get("tour_run", (None, None))
    if sig != session.signature():                 # the pair, prompt or settings changed
        run = None
    if st.button("Run one round", type="primary", key="tour_round"):
        try:
            if run is None or run.stop is not None:
                run = specdec.Decoder(pair, prompt_for(pair, st.session_state.prompt), state.settings())
            run.step()
            st.session_state["tour_run"] = (run, session.signature())
        except specdec.InputError as err:
            st.warning(md(err))
    if run is not None and run.history:
        label = lambda t: pair.tokenizer.decode([t])  # noqa: E731
        st.html(strip.strip_html(strip.prompt_texts(run.prompt_ids, label), run.history, None)
                + strip.legend_html())
        last = run.history[-1]
        st.write(f"Round {last.index + 1}: {last.drafted} drafted, **{last.n_accepted}** kept, "
                 f"{len(last.emitted)} token(s) written for one target pass.")
    try_this("run a few rounds and count the green tokens each one keeps — every green token is a "
             "pass of the large model you did not pay for.")


def step_exact() -> None:
    st.write("Why can a weaker model not spoil the text? It only proposes. A draft survives with "
             "probability min(1, p/q), and when one fails, the replacement is drawn from exactly the "
             "probability the draft left uncovered. Added up, every token comes out with the "
             "target's own probability.")
    bias = st.slider("How sure the draft is of its favourite word", 0.0, 1.0, 0.5, key="tour_bias")
    q = (1 - bias) * P + bias * torch.nn.functional.one_hot(torch.tensor(1), 5).double()
    law = ex.composed_law("ratio", "residual", P, q)
    fig = go.Figure([go.Bar(name="p (target)", x=TOKENS, y=P.tolist(), marker_color=COLORS["target"]),
                     go.Bar(name="q (draft)", x=TOKENS, y=q.tolist(), marker_color=COLORS["draft"]),
                     go.Bar(name="what comes out", x=TOKENS, y=law.tolist(),
                            marker_color=COLORS["accepted"])])
    fig.update_layout(barmode="group", height=300, margin=dict(t=10, b=10), yaxis_title="probability")
    chart(fig, "tour_exact")
    beta = float(torch.minimum(P, q).sum())
    st.write(f"A draft survives {beta:.0%} of the time here; the largest gap between what comes "
             f"out and p is {float((law - P).abs().max()):.1e}.")
    try_this("drag the slider to 1. Fewer drafts survive, so it gets slower — but the green bars "
             "stay on the grey ones.")


def step_budget() -> None:
    st.write("Speed is a balance. The draft has to agree with the target often (α, the chance a "
             "draft survives), and it has to be cheap (c, one draft step as a fraction of a target "
             "step). A weak draft wastes its guesses; a big one costs as much as it saves.")
    c1, c2 = st.columns(2)
    alpha = c1.slider("α: how often a draft survives", 0.05, 0.95, 0.7, key="tour_alpha")
    c = c2.slider("c: draft step / target step", 0.0, 1.0, 0.1, key="tour_c")
    ks = list(range(1, 13))
    fig = go.Figure(go.Scatter(x=ks, y=[expected_speedup(alpha, k, c) for k in ks], mode="lines+markers"))
    fig.add_hline(y=1.0, line_dash="dash", annotation_text="target alone")
    fig.update_layout(height=280, xaxis_title="k (drafts per round)", yaxis_title="expected speedup",
                      margin=dict(t=10, b=10))
    chart(fig, "tour_budget")
    k = best_k(alpha, c, 12)
    st.write(f"Best k here: **{k}**, for an expected {expected_speedup(alpha, k, c):.2f}× "
             "(Leviathan et al.'s formula; the page *When it is fast* measures it on this machine).")
    try_this("raise c until no k beats the dashed line: a draft that is too expensive never pays.")


def step_where(pair) -> None:
    st.write("Drafts survive where the text is predictable: fixed formats, repeated names, common "
             "code patterns. They fail at branch points and rare words. So the average speed says "
             "less than the acceptance on the kind of text you actually serve.")
    groups = by_kind(load_prompts("chat" if session.uses_chat(pair) else "text"))
    kinds = list(groups)
    c1, c2 = st.columns(2)
    a = c1.selectbox("One kind", kinds, index=0, key="tour_kind_a")
    b = c2.selectbox("Another kind", kinds, index=len(kinds) - 1, key="tour_kind_b")
    if st.button("Measure both (one prompt each, 24 tokens)", key="tour_where"):
        settings = replace(state.settings(), max_new_tokens=24, seed=0)
        rows = []
        for kind in (a, b):
            run = specdec.generate(pair, prompt_for(pair, groups[kind][0].prompt), settings)
            m = summarize(run.rounds)
            rows.append({"kind": kind, "acceptance rate": m.acceptance_rate,
                         "tokens per target pass": m.tokens / max(1, m.target_forwards)})
        st.session_state["tour_where_rows"] = rows
    rows = st.session_state.get("tour_where_rows")
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, key="tour_where_table")
        hi, lo = sorted(rows, key=lambda r: -(r["acceptance rate"] or 0))
        st.write(f"On these two prompts, *{hi['kind']}* kept {hi['acceptance rate'] or 0:.0%} of its "
                 f"drafts and *{lo['kind']}* {lo['acceptance rate'] or 0:.0%} — one prompt each, so "
                 "a hint, not a ranking (the page *Where it works* measures whole sets).")
    try_this("compare a structured kind with a creative one.")


def step_beyond(pair) -> None:
    st.write("The pattern is older than language models: let something cheap propose and something "
             "expensive approve. Search engines fetch many candidates cheaply and let a costly "
             "ranker order a few; an agent may try a quick heuristic and ask a large model only to "
             "confirm. Here the cheap proposer can even be you.")
    c1, c2 = st.columns(2)
    c1.text_input("Prompt", "def add(a, b):", key="tour_prompt")
    c2.text_input("What you expect next", "\n    return a + b", key="tour_guess")
    if st.button("Let the target verify my guess", key="tour_guess_go"):
        try:
            prompt = prompt_for(pair, st.session_state.tour_prompt)
            st.session_state["tour_guess_round"] = compare(pair, prompt, st.session_state.tour_guess,
                                                           state.settings())[0].round
        except specdec.InputError as err:
            st.warning(md(err))
    rnd = st.session_state.get("tour_guess_round")
    if rnd is not None:
        st.html(strip.strip_html([], [rnd], None))
        st.write(f"The target kept **{rnd.n_accepted}** of your {rnd.drafted} tokens in one pass.")
    try_this("type what the model will obviously write, then something surprising.")


def step_summary(pair) -> None:
    st.markdown("""In short:
1. a cheap draft writes ahead; 2. the target checks every guess in one pass;
3. it keeps the guesses it agrees with; 4. it replaces the first one it does not, from what the
draft left out (or adds a bonus token when all pass); 5. both caches forget the rest.
The text follows the target exactly — only the speed depends on the draft.""")
    greedy = st.toggle("Greedy (T = 0): identical text expected", value=True, key="tour_greedy")
    if st.button("Race: the target alone vs speculative decoding", key="tour_race"):
        settings = replace(state.settings(), max_new_tokens=32,
                           temperature=0.0 if greedy else state.settings().temperature)
        try:
            alone, spec = race(pair, prompt_for(pair, st.session_state.prompt), settings)
            st.success(verdict(alone, spec, greedy))
        except specdec.InputError as err:
            st.warning(md(err))
    try_this("race at T = 0, then open *Step through* to see every number of every round.")


STEPS = [("Draft, then verify", step_rounds), ("The draft cannot change the text", step_exact),
         ("A balance of agreement and cost", step_budget), ("Where drafts survive", step_where),
         ("Cheap proposer, expensive approver", step_beyond), ("In short", step_summary)]
NEEDS_PAIR = {step_rounds, step_where, step_beyond, step_summary}


def move(delta: int) -> None:
    st.session_state[STEP] = min(len(STEPS) - 1, max(0, st.session_state.get(STEP, 0) + delta))


i = st.session_state.setdefault(STEP, 0)
title, body = STEPS[i]
st.progress((i + 1) / len(STEPS), f"Step {i + 1} of {len(STEPS)}")
st.header(f"{i + 1} · {title}")
pair = sidebar.active_pair()
if body in NEEDS_PAIR and pair is None:
    st.warning("No model pair is loaded: choose one in the sidebar.")
elif body in NEEDS_PAIR:
    body(pair)
else:
    body()
c1, c2, _ = st.columns([1, 1, 4])
c1.button("Back", key="tour_back", on_click=move, args=(-1,), disabled=i == 0,
          icon=":material/arrow_back:")
c2.button("Next", key="tour_next", on_click=move, args=(1,), disabled=i == len(STEPS) - 1,
          type="primary", icon=":material/arrow_forward:")
