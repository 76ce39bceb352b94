"""Home: a live race, what speculative decoding is, and a one-click start."""
from dataclasses import replace
from typing import NamedTuple

import streamlit as st

from specdec.bench import machine
from specdec.bench.measure import machine_load
from specdec.chat import user_turn
from specdec.drafters.policies import PRICED
from specdec.errors import InputError
from specdec.models.kernels import cpu_model
from specdec.prompts import load_prompts
from specdec.records.provenance import BUSY_LOAD
from specdec.trace.metrics import summarize
from ui import catalog, context_view, navigation, payoff_view, session, shell, sidebar, state, strip
from ui.home_glossary import glossary
from ui.i18n import _
from ui.lessons import badges, store
from ui.lessons.home_race import alone_rate, chosen_k, facts, race, race_numbers, verdict_words, why_parts
from ui.lessons.pair_card import Numbers
from ui.safe import md

shell.page(__file__)

EXAMPLE = "class Connection:\n    def __init__(self, host, port=None):\n"     # raw text: continued
CHAT_EXAMPLE = state.DEFAULTS["prompt"]                                      # a chat: answered


def chatting(pair) -> bool:
    return pair is not None and session.uses_chat(pair)


def start() -> None:
    st.session_state.prompt = CHAT_EXAMPLE if chatting(sidebar.active_pair()) else EXAMPLE
    st.session_state.pair_label = st.session_state.get("pair_label")
    st.session_state.start_now = True


st.title(_("Speculative Decoding Lab"))


def race_box():
    """Target alone vs speculative, live, on one prompt: speed and exactness before any formula. Returns the
    sidebar's pair (None: none loaded)."""
    st.subheader(_("A race, before any formula"))
    pair = sidebar.active_pair()
    if pair is None:
        st.info(_("Load a model pair in the sidebar to race."))
        return None
    c1, c2 = st.columns([3, 1])
    chat = chatting(pair)
    c1.text_input(_("Your message") if chat else _("Prompt"), value=CHAT_EXAMPLE if chat else EXAMPLE,
                  key="race_prompt", max_chars=catalog.prompt_chars())
    if (note := catalog.long_prompt_note(pair, st.session_state.race_prompt)) is not None:
        c1.caption(note)
    # off by default: the race runs the sidebar's settings, which the box under it and every page answer for
    # (review 45: a race at T = 0 and priced k over a box at the sidebar's T = 0.7, k = 4, then a green 1.19× for
    # one prompt above "No, 0.74×")
    greedy = c2.toggle(_("Greedy (T = 0)"), key="race_greedy",
                       help=_("At T = 0 both runs must write exactly the same text."))
    sidebar_settings = state.settings()
    if sidebar_settings.policy == PRICED:       # the sidebar drafts k by the prices already: shown on (review 59:
        by_prices = c2.toggle(_("k by this machine's prices"), value=True, disabled=True,      # the box's button
                              key="race_priced_by_sidebar",                                      # set it, the
                              help=_("The sidebar's draft-length policy drafts k by this machine's prices: every "
                                     "page's runs do, this race's too."))                         # toggle said off)
    else:
        by_prices = c2.toggle(_("k by this machine's prices"), key="race_priced",
                              help=_("Each round drafts the k (up to the sidebar's) that this machine's measured "
                                     "prices and the acceptance seen so far favour: the priced policy."))
    settings = replace(sidebar_settings, temperature=0.0 if greedy else sidebar_settings.temperature,
                       policy=PRICED if by_prices else sidebar_settings.policy)
    if (note := overridden(sidebar_settings, settings)) is not None:
        st.caption(note)
    go = st.button(_("Race: the target alone vs speculative decoding"), key="race_go")
    answer = st.container()         # the answer box above the race's lanes (review 53: a 1.12× race read first)
    ran = race_now(pair, settings, chat, greedy) if go else None
    if ran is None:
        shown_again(race_key(pair, settings))       # a rerun (the pair card, a toggle) keeps the last race in view
    races, numbers = remembered(pair, settings, ran)
    # after a race the box answers for the race's settings, its races one line under the prompt set's verdict
    # (review 46), and they stay on later reruns (opening the pair card); before a race, the answer every other page
    # gives at the sidebar's settings (review 43: "a little, 1.03×" for the race's own settings beside "No, 0.74×")
    with answer:
        if races:
            payoff_view.render(pair, settings, race=(races, numbers), offer_run=False, sidebar=sidebar_settings)
        else:
            payoff_view.render(pair, sidebar_settings, offer_run=False)
    if ran is not None:             # the race's why at this machine's prices, in its expander
        explain(*ran, settings, chat, reason_of(*ran, settings) or ("", ""))
    return pair


def overridden(sidebar_settings, settings) -> str | None:
    """One line where the race's switches set other T or k than the sidebar's (None where they agree)."""
    if (settings.temperature, settings.policy) == (sidebar_settings.temperature, sidebar_settings.policy):
        return None

    def said(s) -> str:
        k = (_("k by this machine's prices, up to {k}") if s.policy == PRICED else _("k = {k}")).format(k=s.k)
        return f"T = {s.temperature:g}, {k}"
    return _("The switches set this race's own settings ({ours}); the sidebar's ({theirs}) hold on every other "
             "page.").format(ours=said(settings), theirs=said(sidebar_settings))


def remembered(pair, settings, ran) -> tuple[tuple[float, ...], Numbers | None]:
    """Every race this session ran with this pair, prompt and settings, newest first (with `ran`, a
    race just run: (pair, target alone, speculative)): their spread is what one run cannot show; and
    what the newest race's rounds measured besides its speedup (the pair card's row)."""
    key = race_key(pair, settings)
    races = st.session_state.setdefault("home_races", {})
    numbers = st.session_state.setdefault("home_race_numbers", {})
    if ran is not None:
        races[key] = (ran[1].seconds / max(ran[2].seconds, 1e-9), *races.get(key, ()))
        numbers[key] = race_numbers(ran[1], ran[2], settings)
    return races.get(key, ()), numbers.get(key)


def reason_of(pair, alone, spec, settings) -> tuple[str, str] | None:
    """Why the race came out as it did, at this machine's prices (home_race.why_parts)."""
    prices = pair.prices or machine.prices(machine.of(pair), pair, settings.drafter)
    return why_parts(alone, spec, spec.decoder.target.name, cpu_model(), prices)


def race_key(pair, settings) -> tuple:
    """What makes two races the same race: the pair, the prompt and the settings."""
    return pair.target_name, pair.draft_name, st.session_state.race_prompt, repr(settings)


LAST_RACE = "home_last_race"      # (race_key, the two lanes, the verdict's facts and greedy): what a rerun shows


class Lane(NamedTuple):
    """One racer's column, as numbers: worded when drawn, so a rerun speaks the language of the moment."""
    name: str                 # "target alone" | "speculative"
    tokens: int
    rate: float               # tokens/s
    passes: int
    text: str
    cut: int                  # the new-token limit that cut it (0: it finished)


def draw_lane(lane: Lane, tip: str | None = None) -> None:
    names = {"target alone": _("target alone"), "speculative": _("speculative")}
    st.markdown(_("**{name}** · {tokens} tokens · {rate:.1f} tokens/s · {passes} target passes").format(
        name=names[lane.name], tokens=lane.tokens, rate=lane.rate, passes=lane.passes) + " " + badges.here(), help=tip)
    st.html(strip.text_html(lane.text))
    if lane.cut:
        st.caption(_("Cut at the sidebar's limit of {n} new tokens (Max new tokens), not finished.").format(n=lane.cut))


def shown_again(key: tuple) -> None:
    """The last race of these settings as it ended, without running it again (review 28: opening the pair card
    erased it); nothing where the last race ran other settings or a prompt since changed."""
    last = st.session_state.get(LAST_RACE)
    if last is None or last[0] != key:
        return
    _key, lanes, (said, greedy) = last
    for col, lane in zip(st.columns(2), lanes):
        with col.container(border=True):
            draw_lane(lane)
    st.caption(verdict_words(said, greedy, ratio=False))


def race_now(pair, settings, chat: bool, greedy: bool):
    """Run the race live in two columns and say its verdict: (the pair as it raced, the target alone,
    speculative), or None where the prompt is refused."""
    if not st.session_state.race_prompt.strip():        # review 60: "message 1 (user) has no text" for one box
        st.warning(_("Your message is empty: type something to race on."))
        return None
    pair = sidebar.with_prices(pair, settings, say=False)
    profile = machine.of(pair)
    left, right = st.columns(2)
    boxes = {"target alone": left.empty(), "speculative": right.empty()}
    lanes = {}

    def show(r) -> None:
        lanes[r.name] = Lane(r.name, r.tokens, r.tokens_per_s, r.steps, strip.whole(pair.tokenizer.decode(
            r.decoder.generated, skip_special_tokens=True)), r.decoder.settings.max_new_tokens
                             if r.decoder.stop == "max_new_tokens" else 0)
        with boxes[r.name].container(border=True):
            draw_lane(lanes[r.name], tip=alone_rate(r, profile.step_ms if profile else None)
                      if r.name == "target alone" else None)
    try:
        text = st.session_state.race_prompt
        alone, spec = race(pair, user_turn(text) if chat else text, settings, show)
    except InputError as err:
        st.warning(md(err))
        return None
    # a caption, not a banner: the race's one-prompt figure is the box's line under its verdict (review 48: a blue
    # "1.10× (faster on this one prompt)" was the first figure a newcomer read, above the box's "No, 0.74×")
    said = facts(alone, spec)
    st.caption(verdict_words(said, greedy, ratio=False))
    st.session_state[LAST_RACE] = (race_key(pair, settings), [lanes[n] for n in boxes], (said, greedy))
    if (load := machine_load()) >= BUSY_LOAD:
        st.caption(_("The machine was busy during the race (load {load:.1f} per core: other work shared the "
                     "cores), so both racers ran slower than this machine's step: compare the ratio, not the "
                     "tokens per second.").format(load=load))
    return pair, alone, spec


def explain(pair, alone, spec, settings, chat: bool, reason: tuple[str, str]) -> None:
    """In one expander, closed (review 46: three figures for one race in view): the race's why at this machine's
    prices and what explains the rest of its gap to the measurement (`reason`), which k it drafted or which would
    be fastest, and how this run compares with the typical one."""
    text = st.session_state.race_prompt
    kind = context_view.kind_of(text, load_prompts("chat" if chat else "text"))
    with st.expander(_("Why this race's speed, and how this run compares")):
        for line in reason:
            if line:
                st.caption(line)
        if settings.policy == PRICED:         # which k it drafted (the best k: the box's In short, review 47:
            st.caption(chosen_k(spec, pair.prices, settings.k))    # "1.25× at k = 1 against 1.01× at k = 4" here)
        context_view.render(summarize(spec.decoder.history), (pair.target_name, pair.draft_name),
                            settings.k, settings.temperature, kind, store.drafter_id(settings),
                            state.settings().temperature)


PAIR = race_box()
st.markdown(_("A large language model writes one token per forward pass, and each pass is slow. "
              "**Speculative decoding** lets a small **draft** model *q* guess the next *k* tokens "
              "cheaply; the large **target** model *p* then checks all of them in **one** forward pass:"))
st.markdown(_("""1. **Draft** — the draft samples d₁…dₖ from q.
2. **Verify** — one target pass gives p₁…pₖ₊₁.
3. **Accept / reject** — keep dᵢ while a uniform draw u ≤ min(1, p(dᵢ)/q(dᵢ)).
4. **Resample or bonus** — at the first rejection draw from the residual norm(max(0, p − q));
   if all k survive, draw a free bonus token from pₖ₊₁.
5. **Roll back** — crop both KV caches to what was accepted."""))
st.markdown(_("The output has **exactly** the target's distribution — the draft only changes the speed."))
if PAIR is not None and PAIR.reads_features:
    st.caption(_("This pair's draft is a **feature draft**: besides the text it reads the target's last hidden "
                 "state (EAGLE's idea), so it guesses better than a model of the text alone. It still proposes "
                 "a distribution q, so every step above, and why the result is exact, stay the same."))
with st.expander(_("The models this lab runs")):
    st.markdown(_("Here you can watch every number that decides each token, on models that run on this "
                  "machine: a small family trained on Python's standard library (fast enough for lessons "
                  "that run thousands of rounds) and SmolLM2-135M-Instruct, a real chat model."))
if st.button(_("Start: step through the default pair on a Python task"), type="primary",
             icon=":material/play_arrow:",
             key="home_start", on_click=start):
    st.switch_page("pages/step_through.py")
st.caption(_("Pick another pair, k, temperature or drafter in the sidebar at any time."))
st.page_link("pages/tour.py", label=_("New here? Take the guided tour: eight short steps, each with "
                                      "something to try"), icon=":material/tour:")
st.subheader(_("Lessons"))
for info in navigation.PAGES:
    if info.blurb:
        st.page_link(info.path, label=f"{_(info.title)} — {_(info.blurb)}", icon=info.icon)
glossary()
