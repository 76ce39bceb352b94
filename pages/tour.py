"""A guided tour: eight short steps, each with one live widget and one thing to try."""
from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
import torch

import specdec
from specdec.bench import server as serving
from specdec.chat import user_turn
from specdec.prompts import by_kind, load_prompts
from specdec.settings import LENGTHS
from specdec.trace.metrics import summarize
from specdec.wording import times
from ui import examples, payoff_view, session, shell, sidebar, state, strip, tour_budget_view
from ui.figures.rounds import COLORS
from ui.i18n import N_, _, choice, current
from ui.lessons import badges, beyond, server
from ui.lessons import exact as ex
from ui.lessons.home_race import facts, race, verdict_words
from ui.lessons.payoff_words import settings_line
from ui.lessons.you_draft import compare
from ui.round_view import chart
from ui.safe import md

shell.page(__file__)
st.title(_("A guided tour"))
STEP = "tour_step"
P = torch.tensor([0.40, 0.25, 0.15, 0.12, 0.08], dtype=torch.float64)
TOKENS = ["the", "a", "this", "one", "my"]


def prompt_for(pair, text: str):
    return user_turn(text) if session.uses_chat(pair) else text


def round_prompt(pair):
    """(what the tour sends, whether it stands in for the session's prompt). A target with no
    chat template given the app's default chat message gets the same task begun as code: an
    instruction means nothing to a model trained on plain text (the stdlib target only wrote
    newlines after it)."""
    text = st.session_state.prompt
    if session.uses_chat(pair) or text != state.DEFAULTS["prompt"]:
        return prompt_for(pair, text), False
    return load_prompts("text")[0].prompt, True


def try_this(text: str) -> None:
    st.info(_("**Try this:** {what}").format(what=text), icon=":material/touch_app:")


def step_rounds(pair) -> None:
    st.write(_("A model normally writes one token per pass of its full network. Here a small draft "
               "model writes a few tokens ahead, and the large target checks all of them in a "
               "single pass: the tokens it agrees with are kept at once, and where it disagrees it "
               "writes the token itself and the next round starts from there."))
    run, sig = st.session_state.get("tour_run", (None, None))
    if sig != session.signature():                 # the pair, prompt or settings changed
        run = None
    if st.button(_("Run one round"), type="primary", key="tour_round"):
        try:
            if run is None or run.stop is not None:
                run = specdec.Decoder(pair, round_prompt(pair)[0], state.settings())
            run.step()
            st.session_state["tour_run"] = (run, session.signature())
        except specdec.InputError as err:
            st.warning(md(err))
    if round_prompt(pair)[1]:
        st.caption(_("This target is a base model (no chat template): the tour gives it the same task "
                     "begun as code instead of the chat message."))
    if run is not None and run.history:
        label = lambda t: pair.tokenizer.decode([t])  # noqa: E731
        special = set(pair.tokenizer.all_special_ids)       # a BOS the tokenizer added is not the prompt
        shown = [t for t in run.prompt_ids if t not in special]
        st.html(strip.strip_html(strip.prompt_texts(shown, label, pair.tokenizer.decode), run.history, None,
                                 decode=pair.tokenizer.decode) + strip.legend_html())
        st.caption(_("Output so far (emitted tokens only)"))
        st.html(strip.output_html(run.history, label, lambda ids: pair.tokenizer.decode(ids, skip_special_tokens=True)))
        last = run.history[-1]
        st.write(_("Round {n}: {drafted} drafted, **{kept}** kept, {written} token(s) written for "
                   "one target pass.").format(n=last.index + 1, drafted=last.drafted,
                                              kept=last.n_accepted, written=len(last.emitted)))
    try_this(_("run a few rounds and count the green tokens each one keeps — every green token is one the large "
               "model did not have to write on its own pass; whether that saves time depends on what drafting and "
               "the wider check cost (step 3)."))


def step_exact() -> None:
    st.write(_("Why can a weaker model not spoil the text? It only proposes. A draft survives with "
               "probability min(1, p/q), and when one fails, the replacement is drawn from exactly "
               "the probability the draft left uncovered. Added up, every token comes out with the "
               "target's own probability."))
    bias = st.slider(_("How far the draft leans toward one word (0: the target's own p; 1: always that word)"),
                     0.0, 1.0, 0.5, key="tour_bias")
    q = (1 - bias) * P + bias * torch.nn.functional.one_hot(torch.tensor(1), 5).double()
    law = ex.composed_law("ratio", "residual", P, q)
    fig = go.Figure([go.Bar(name=_("p (target)"), x=TOKENS, y=P.tolist(), marker_color=COLORS.target),
                     go.Bar(name=_("q (draft)"), x=TOKENS, y=q.tolist(), marker_color=COLORS.draft),
                     go.Bar(name=_("what comes out"), x=TOKENS, y=law.tolist(),
                            marker_color=COLORS.accepted)])
    fig.update_layout(barmode="group", height=300, margin=dict(t=40, b=10), yaxis_title=_("probability"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))    # left of the toolbar
    chart(fig, "tour_exact")
    beta = float(torch.minimum(P, q).sum())
    gap = float((law - P).abs().max())           # exactly 0 reads as a word (review 58: "0.0e+00")
    st.write(_("A draft survives {share:.0%} of the time here; the largest gap between what comes "
               "out and p is {gap}.").format(share=beta, gap=f"{gap:.1e}" if gap else _("exactly 0")))
    try_this(_("drag the slider to 1. Fewer drafts survive, so it gets slower — but the green bars "
               "stay on the grey ones."))


def step_budget(pair) -> None:
    tour_budget_view.render(pair)
    try_this(_("raise c until no k beats the dashed line: a draft that is too expensive never pays."))


def step_where(pair) -> None:
    st.write(_("Drafts survive where the next token is easy to guess: fixed formats, names and phrases "
               "repeated from the prompt. They fail at branch points and rare words. Which kinds of text "
               "gain most depends on the pair and is measured, not assumed (*Where it works* ranks the kinds and "
               "rare tokens), so the average speed says less than the acceptance on the text you actually serve."))
    groups = by_kind(load_prompts("chat" if session.uses_chat(pair) else "text"))
    kinds = list(groups)
    c1, c2 = st.columns(2)
    a = c1.selectbox(_("One kind"), kinds, index=0, key=choice("tour_kind_a"), format_func=examples.namer(kinds))
    b = c2.selectbox(_("Another kind"), kinds, index=len(kinds) - 1, key=choice("tour_kind_b"),
                     format_func=examples.namer(kinds))
    examples.english_note()
    if st.button(_("Measure both (one prompt each, {n} tokens)").format(n=LENGTHS.tour_kinds), key="tour_where"):
        settings = replace(state.settings(), max_new_tokens=LENGTHS.tour_kinds, seed=0)
        rows = []
        for kind in (a, b):
            run = specdec.generate(pair, prompt_for(pair, groups[kind][0].prompt), settings)
            m = summarize(run.rounds)
            rows.append({"kind": examples.kind_name(kind), "acceptance rate": m.acceptance_rate,
                         "tokens per target pass": m.tokens / max(1, m.target_forwards)})
        st.session_state["tour_where_rows"] = rows
    rows = st.session_state.get("tour_where_rows")
    if rows:
        headers = {"kind": _("kind"), "acceptance rate": _("acceptance rate"),
                   "tokens per target pass": _("tokens per target pass")}
        shown = pd.DataFrame(rows).assign(**{"acceptance rate": lambda f: 100 * pd.to_numeric(f["acceptance rate"])})
        st.dataframe(shown.rename(columns=headers), hide_index=True, placeholder="—", key="tour_where_table",
                     column_config={headers["acceptance rate"]: st.column_config.NumberColumn(format="%.0f%%"),
                                    headers["tokens per target pass"]: st.column_config.NumberColumn(
                                        format="%.2f")})          # review 45: "0.1186", "1.4118"
        hi, lo = sorted(rows, key=lambda r: -(r["acceptance rate"] or 0))
        st.write(_("On these two prompts, *{hi}* kept {hi_rate:.0%} of its drafts and *{lo}* "
                   "{lo_rate:.0%} — one prompt each, so a hint, not a ranking (the page *Where it "
                   "works* measures whole sets).").format(
            hi=hi["kind"], hi_rate=hi["acceptance rate"] or 0, lo=lo["kind"],
            lo_rate=lo["acceptance rate"] or 0))
    try_this(_("compare a structured kind with a creative one."))


def step_server(pair) -> None:
    st.write(_("A server answers many people at once. Their requests share each pass of the target: "
               "one pass verifies every request's drafts. Each request keeps its own cache and its own "
               "random draws, so its text follows the same distribution as alone, and is usually the very "
               "same text."))
    n = st.slider(_("Requests in one batch"), 2, 6, 4, key="tour_batch_n")
    if st.button(_("Serve them together, then one by one"), key="tour_batch_go"):
        prompts = [prompt_for(pair, p.prompt) for p in
                   load_prompts("chat" if session.uses_chat(pair) else "text")[:n]]
        settings = serving.speculative(replace(state.settings(), max_new_tokens=LENGTHS.tour_batch, seed=0), pair)
        st.session_state["tour_batch"] = serving.together(pair, prompts, settings)
    r = st.session_state.get("tour_batch")
    if r:
        st.write(server.together_words(r))
        st.caption(_("The page *In a server* measures batch sizes up to 16, and where speculation stops "
                     "paying as the batch grows."))
    try_this(_("serve two requests, then six: does a bigger batch still finish sooner than one by one?"))


def step_beyond(pair) -> None:
    st.write(_("The pattern is older than language models: let something cheap propose and "
               "something expensive approve. Search engines fetch many candidates cheaply and let a "
               "costly ranker order a few; an agent may try a quick heuristic and ask a large model "
               "only to confirm. Here the cheap proposer can even be you."))
    c1, c2 = st.columns(2)
    prompt, guess = examples.guess_example(session.uses_chat(pair))
    c1.text_input(_("Prompt"), prompt, key="tour_prompt")
    c2.text_input(_("What you expect next"), guess, key="tour_guess")
    if st.button(_("Let the target verify my guess"), key="tour_guess_go"):
        try:
            prompt = prompt_for(pair, st.session_state.tour_prompt)
            st.session_state["tour_guess_round"] = compare(pair, prompt, st.session_state.tour_guess,
                                                           state.settings())[0].round
        except specdec.InputError as err:
            st.warning(md(err))
    rnd = st.session_state.get("tour_guess_round")
    if rnd is not None:
        st.html(strip.strip_html([], [rnd], None))
        st.write(_("The target kept **{kept}** of your {total} tokens in one pass.").format(
            kept=rnd.n_accepted, total=rnd.drafted))
    try_this(_("type what the model will obviously write, then something surprising."))


def step_search() -> None:
    st.write(_("The same pattern outside decoding, measured: a cheap search (BM25 and embeddings) hands a "
               "pool of candidate passages to the target model, which judges each one. A bigger pool holds "
               "the right answer more often and costs more judge calls, as a bigger k does; whether the judge "
               "then ranks it first is measured below."))
    found = beyond.shipped_result()
    if found is None:
        st.caption(_("The page *Beyond tokens* has no shipped measurement on this install."))
        return
    result = found
    lang = current() if current() in beyond.languages(result) else "en"
    sizes = beyond.pools(result, lang)
    pool = st.select_slider(_("Pool size n"), sizes, value=sizes[0], key="tour_pool")
    row = beyond.rows(result, lang, pool=pool, gate=0.0)[0]
    cheap = result.stages[result.first_stage][lang]["mrr"]
    words = (_("Cheap stage alone: MRR@10 {cheap:.3f}. Judge on a pool of {n}: {mrr:.3f}, {calls:.0f} judge "
               "call and {ms:.0f} ms a question.") if f"{row.judge_calls:.0f}" == "1" else
             _("Cheap stage alone: MRR@10 {cheap:.3f}. Judge on a pool of {n}: {mrr:.3f}, {calls:.0f} judge "
               "calls and {ms:.0f} ms a question."))
    st.write(words.format(cheap=cheap, n=pool, mrr=row.mrr, calls=row.judge_calls, ms=row.ms))
    try_this(_("slide the pool from small to large, then open *Beyond tokens* to see a gate that skips the "
               "judge — and stops being exact."))


def step_summary(pair) -> None:
    st.markdown(_("""In short:

1. a cheap draft writes ahead;
2. the target checks every guess in one pass;
3. it keeps the guesses it agrees with;
4. it replaces the first one it does not, from what the draft left out (or adds a bonus token
   when all pass);
5. both caches forget the rest.

The text follows the target exactly — only the speed depends on the draft."""))
    greedy = st.toggle(_("Greedy (T = 0): identical text expected"), value=True, key="tour_greedy")
    if st.button(_("Race: the target alone vs speculative decoding"), key="tour_race"):
        settings = replace(state.settings(), max_new_tokens=LENGTHS.tour_race,
                           temperature=0.0 if greedy else state.settings().temperature)
        try:
            alone, spec = race(pair, round_prompt(pair)[0], settings)
            st.caption(settings_line(settings, pair.draft_name, pair.reads_features) + " · " + _("one prompt, one run"))
            race_box(alone, spec, greedy, payoff_view.box_word(payoff_view.answer(pair, settings)[0]))
            st.caption(one_prompt(summarize(spec.decoder.history)))
        except specdec.InputError as err:
            st.warning(md(err))
    try_this(_("race at T = 0, then open *Step through* to see every number of every round."))


def one_prompt(m) -> str:
    """Under the tour's race: this prompt's acceptance, and that one prompt is not the pair's answer."""
    return _("On this prompt {rate} of the drafts were accepted ({tokens:.2f} tokens a round, the bonus token "
             "included; a round cut short by the token limit or the text's end keeps fewer): one prompt, not the "
             "pair's average. Whether it pays over many prompts is the answer box “Does it pay here?” on Home and When "
             "it is fast, and every figure of the pair is on the pair card (sidebar).").format(
        rate=f"{100 * (m.acceptance_rate or 0):.0f}%", tokens=m.mean_acceptance_length or 1.0)


def race_box(alone, spec, greedy: bool, verdict: tuple | None) -> None:
    """The race in a neutral box, whichever won, and under it the answer box's verdict at the race's settings
    (`verdict`: payoff_view.box_word's (word, figure, badge), None where there is none): one prompt is not the
    pair's answer (review 60: the tour ended on a green "1.08× (faster on this one prompt)" where the box said
    "No, 0.88×" at the same settings)."""
    said = badges.here() + " " + verdict_words(facts(alone, spec), greedy)
    if verdict is None:
        st.info(said + " " + _("One prompt, one run: *When it is fast* measures whether it pays over many."))
        return
    word, figure, badge = verdict
    st.info(said + " " + _("Over many prompts at these settings, “Does it pay here?” says: **{answer}, {x}** "
                           "{badge}.").format(answer=word, x=times(figure), badge=badge))


STEPS = [(N_("Draft, then verify"), step_rounds), (N_("The draft cannot change the text"), step_exact),
         (N_("A balance of agreement and cost"), step_budget), (N_("Where drafts survive"), step_where),
         (N_("Many requests at once"), step_server),
         (N_("Cheap proposer, expensive approver"), step_beyond),
         (N_("The pattern in search and agents"), step_search), (N_("In short"), step_summary)]
NEEDS_PAIR = {step_rounds, step_where, step_server, step_beyond, step_summary}


def move(delta: int) -> None:
    st.session_state[STEP] = min(len(STEPS) - 1, max(0, st.session_state.get(STEP, 0) + delta))


i = st.session_state.setdefault(STEP, 0)
title, body = STEPS[i]
st.progress((i + 1) / len(STEPS), _("Step {n} of {total}").format(n=i + 1, total=len(STEPS)))
st.header(f"{i + 1} · {_(title)}")
pair = sidebar.active_pair()
if body in NEEDS_PAIR and pair is None:
    st.warning(_("No model pair is loaded: choose one in the sidebar."))
elif body in NEEDS_PAIR or body is step_budget:
    body(pair)
else:
    body()
c1, c2, _spacer = st.columns([1, 1, 4])
c1.button(_("Back"), key="tour_back", on_click=move, args=(-1,), disabled=i == 0,
          icon=":material/arrow_back:")
c2.button(_("Next"), key="tour_next", on_click=move, args=(1,), disabled=i == len(STEPS) - 1,
          type="primary", icon=":material/arrow_forward:")
