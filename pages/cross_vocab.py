"""Across vocabularies: a draft with another tokenizer, verified exactly, one round at a time."""
import streamlit as st

from specdec.bench import machine
from specdec.chat import has_template, user_turn
from specdec.errors import InputError
from specdec.models.kernels import cpu_model
from ui import catalog, family, session, shell, sidebar, state
from ui import cross_vocab_view as view
from ui.i18n import N_, _, choice
from ui.lessons.cross_vocab import Stepper
from ui.safe import md

shell.page(__file__)
st.title(_("Across vocabularies"))
st.caption(_("A draft model with its own tokenizer can still draft for a target: it proposes only "
             "tokens that stand for the same bytes in both vocabularies, and the target checks them as usual."))


def prompt_for(pair):
    """The round's prompt: raw code by default, this page's own choice (review 51: in a chat every round kept 0 of
    4; these drafts learned Python source files, never a chat), with the example of the mode chosen."""
    chat = has_template(pair.tokenizer) and st.radio(
        _("Prompt as"), ("raw", "chat"), key=choice("cv_mode"), horizontal=True,
        format_func={m: _(text) for m, text in MODES.items()}.get,
        help=_("These drafts learned Python source files, never a chat: raw code is text they can guess, so the "
               "target accepts some of their drafts. In a chat they seldom guess a token.")) == "chat"
    example = view.PROMPTS[0] if chat else view.PROMPTS[1]
    if st.session_state.get("cv_prompt") in (None, *view.PROMPTS):      # an example, not the learner's text
        st.session_state.cv_prompt = example
    st.text_area(_("Your message to the model") if chat else _("Prompt"), key="cv_prompt", height=80,
                 max_chars=catalog.prompt_chars())
    return user_turn(st.session_state.cv_prompt) if chat else st.session_state.cv_prompt


MODES = {"raw": N_("Raw code"), "chat": N_("Chat")}


def signature(pair) -> tuple:
    return (pair.target_name, pair.draft_name, st.session_state.cv_prompt, st.session_state.get("cv_mode"),
            session.signature())


def next_round(pair, prompt) -> None:
    found = st.session_state.get("cv_run")
    try:
        if found is None or found[0] != signature(pair) or found[1].done:
            found = (signature(pair), Stepper(pair, prompt, state.settings()))
        found[1].step()
        st.session_state.cv_run = found
    except InputError as err:
        st.warning(md(err))


def rounds_section(pair) -> None:
    st.subheader(_("One round, taken apart"))
    t = state.settings().temperature
    st.write(_("Each round the draft re-reads the text in its own tokens and proposes up to k shared tokens; "
               "the target verifies them {how}.").format(
        how=_("greedily (T = 0): a draft is kept where it is the target's argmax") if t == 0 else
        _("by sampling (T = {t}): a draft is kept with probability min(1, p/q)").format(t=t)))
    prompt = prompt_for(pair)
    left, right = st.columns(2)
    if left.button(_("Next round"), type="primary", key="cv_next"):
        next_round(pair, prompt)
    if right.button(_("Start again"), key="cv_reset"):
        st.session_state.pop("cv_run", None)
    found = st.session_state.get("cv_run")
    if found and found[0] == signature(pair) and found[1].taken:
        view.show_round(found[1].taken[-1])
        view.text_so_far(pair, found[1])
    with st.expander(_("Which rule runs, and what it costs")):
        st.markdown(_(RULE))


RULE = N_("Token-level intersection (TLI, Timor et al. 2025, arXiv 2502.05202). Two tokens are the same when they "
        "stand for the same bytes: byte-level BPE's Ġ and SentencePiece's ▁ both mean a space, and a byte-fallback "
        "token such as <0xC3> means that one byte. The draft's distribution q keeps only the tokens both vocabularies "
        "hold, renormalised (then the run's temperature, top-k and top-p), so every drafted token is one target token "
        "and the target accepts it with probability min(1, p/q), resamples the residual at a rejection and adds a "
        "bonus after a full round: the output follows the target exactly. At T = 0 the draft proposes its most likely "
        "shared token and the target keeps it only where it is the target's own argmax.\n\n"
        "What it costs: before each round the target's text is turned into bytes and tokenised again by the draft's "
        "tokenizer, and the draft's cache is cut back to where the two readings agree (a merge across the boundary "
        "changes the draft's last tokens). The draft's mass on tokens the target lacks is lost, so it is accepted "
        "less often than it would be in its own vocabulary. Special tokens never cross over.\n\n"
        "Why not compare text instead? A rule that re-tokenises the draft's text must hold back its last target "
        "token, which the next characters could still extend, and it needs more care to stay exact when sampling; "
        "proposing whole shared tokens avoids both.")


def speed_section(pair) -> None:
    st.subheader(_("Tokens a round measured here, speedups predicted"))
    settings = view.speed_settings(state.settings())
    entries = view.speed_entries(pair)
    prompts = family.speed_prompts(session.uses_chat(pair), n=2)
    st.write(_("Beside the target's own drafts, each drafter writes {tokens} tokens for each of {n} prompts on this "
               "computer (k = {k}, T = {t}). The tokens a round are measured; each speedup is predicted from them "
               "and this machine's prices, not timed.").format(tokens=settings.max_new_tokens, n=len(prompts[0]),
                                                               k=settings.k, t=settings.temperature))
    key = (tuple((p.target_name, p.draft_name, d) for p, d in entries), prompts[0], settings, state.ran())
    if st.button(_("Measure here"), key="cv_measure"):
        with st.spinner(_("Running {n} drafters on {m} prompts …").format(n=len(entries), m=len(prompts[0]))):
            st.session_state.cv_speed = (key, view.measured(key, entries, prompts[1], settings,
                                                            machine.of(pair)))
    found = st.session_state.get("cv_speed")
    if found and found[0] == key:
        profile = machine.of(pair)
        view.show_speed(found[1], profile.cpu if profile else cpu_model(), settings.k)
        if profile is None:
            st.caption(_("This computer has no profile for this target yet (the lab measures one in the "
                         "background after it starts), so only the tokens a round are shown."))
    with st.expander(_("How the speed is predicted")):
        st.markdown(_(SPEED).format(tokens=settings.max_new_tokens, n=len(prompts[0])))


SPEED = N_("Each drafter writes {tokens} tokens for each of {n} prompts (code, structured output) with the "
           "sidebar's k and temperature. Tokens a round count the accepted drafts and the token the target adds."
           " A round costs d·c + v(d+1) target steps for the d tokens it drafted (a lookup that finds nothing "
           "drafts none), with v (a pass of d+1 tokens over a one-token step) from this machine's profile and "
           "c (a draft step over a target step) from the profile where it was "
           "measured beside this target; otherwise from these runs' drafting time per drafted token, which for "
           "the draft of another vocabulary includes reading the text again with its tokenizer. Predicted "
           "speedup = tokens a round / that cost. Without a profile (the lab measures one in the background "
           "after it starts) only the tokens a round are shown. {n} short prompts are a small sample.")


active = sidebar.active_pair()
pair = view.cross_pair(active)
if pair is not None:
    rounds_section(pair)
    st.divider()
    speed_section(pair)
