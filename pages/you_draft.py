"""You are the drafter: type the continuation you expect; the target verifies it like a draft."""
import pandas as pd
import streamlit as st

from specdec.chat import has_template, user_turn
from specdec.errors import InputError
from ui import catalog, examples, session, shell, sidebar, state, strip
from ui.figures.rounds import prob, show
from ui.i18n import N_, _, current
from ui.lessons import beyond
from ui.lessons.you_draft import compare
from ui.safe import md

WHO = (N_("you"), N_("n-gram lookup"), N_("draft model"))   # the rows' drafters, shown through _()

shell.page(__file__)
st.title(_("You are the drafter"))
st.caption(_("Guess how the model will go on. The target checks your guess exactly as it checks a "
             "draft model's: each of your tokens survives with the probability the target gives it."))

def inputs(pair):
    chat = pair is not None and has_template(pair.tokenizer) and st.session_state.prompt_mode == "chat"
    for key, value in zip(("yd_prompt", "yd_text"), examples.guess_example(chat)):
        st.session_state.setdefault(key, value)
    c1, c2 = st.columns(2)
    c1.text_area(_("Your message to the model") if chat else _("Prompt"), key="yd_prompt", height=120,
                 max_chars=catalog.prompt_chars())
    c2.text_area(_("What you expect it to write next"), key="yd_text", height=120)
    return user_turn(st.session_state.yd_prompt) if chat else st.session_state.yd_prompt


def verdict_table(rnd, label) -> pd.DataFrame:
    return pd.DataFrame([{_("your token"): show(label(p.token)), _("p(d) (target)"): prob(p.p),
                          "u": prob(p.u), _("verdict"): _(p.verdict)} for p in rnd.positions])


def your_round(result, label, decode) -> None:
    """Your tokens' round, `decode` (ids -> text) writing a character split over tokens whole (review 47: an emoji
    guess read "������")."""
    rnd = result.round
    st.html(strip.strip_html([], [rnd], None, decode=decode))
    table = verdict_table(rnd, label)
    st.dataframe(table, hide_index=True, placeholder="—", key="yd_table",
                 height="content")              # every guessed token in view, no blank row below
    kept, total = rnd.n_accepted, rnd.drafted
    if kept == total:
        st.write(_("The target kept all **{total}** of your tokens and added `{bonus}` as a bonus.")
                 .format(total=total, bonus=md(show(label(rnd.final.token)))))
    else:
        miss, drawn = rnd.positions[kept], strip.drawn_texts([rnd], decode)
        st.write(_("The target kept **{kept}** of your {total} tokens. At token {i} (`{token}`, p = "
                   "{p}) it took over and wrote `{instead}` instead, drawn from p without your "
                   "token.").format(kept=kept, total=total, i=miss.i, token=md(show(drawn[(rnd.index, miss.i)])),
                                    p=prob(miss.p), instead=md(show(drawn[(rnd.index, strip.FINAL)]))))
    st.caption(_("The text after this round, and what the target wrote from there on its own:"))
    st.html(strip.text_html(strip.whole(decode(list(rnd.emitted + result.continuation)))))


def comparison(results) -> None:
    st.subheader(_("The same prompt, drafted by the machines"))
    st.dataframe(pd.DataFrame([{_("drafter"): _(r.who), _("tokens proposed"): r.round.drafted,
                                _("kept by the target"): r.round.n_accepted,
                                _("emitted in this round"): len(r.round.emitted)} for r in results]),
                 hide_index=True, placeholder="—", key="yd_compare")
    st.caption(_("Every row used the same prompt, seed and sampling, and drafted at most as many tokens as your "
                 "text has. The n-gram lookup proposes only what it finds after an earlier match in the text, so it "
                 "can propose fewer, or nothing."))          # review 47: "the same k (…) as its most"


def careful_result() -> tuple:
    """(the shipped Beyond tokens result or None, the session's language)."""
    return beyond.shipped_result(), current()


def signature() -> tuple:
    """A result belongs to one pair, prompt, guess and settings."""
    return (session.signature(), st.session_state.yd_prompt, st.session_state.yd_text)


pair = sidebar.active_pair()
prompt = inputs(pair)
if pair is None:
    st.warning(_("No model pair is loaded: choose one in the sidebar."))
elif st.button(_("Verify my continuation"), type="primary", key="yd_go"):
    try:
        st.session_state["yd_result"] = (
            compare(pair, prompt, st.session_state.yd_text, state.settings()), signature())
    except InputError as err:
        st.warning(md(err))
found = st.session_state.get("yd_result")
if pair is not None and found and found[1] == signature():
    label = lambda t: pair.tokenizer.decode([t])  # noqa: E731
    your_round(found[0][0], label, pair.tokenizer.decode)
    comparison(found[0])
st.divider()
st.subheader(_("A cheap proposer and an expensive approver"))
st.write(_("Guessing and checking, as above, is the whole trick: something cheap guesses, something careful "
           "checks many guesses at once and keeps them up to the first one that fails its check: a draw against "
           "min(1, p/q), so even a likely guess can fail, and the output stays the careful model's own. The speed "
           "depends on how often the cheap step is right — here, how predictable the next tokens are."))
with st.expander(_("The same shape in search and in agents")):
    st.write(_("The same shape turns up well beyond language models. A search engine lets a fast first stage "
               "pull a few hundred candidates and a slower ranking model order only those; an agent lets a "
               "quick rule propose the next action and calls a large model only to approve or correct it.")
             + " " + beyond.careful_step_words(*careful_result()))
