"""Home, Step through, the sidebar and replays (AppTest, tiny models); the race: test_home_race.py."""
import re

import pytest
from conftest import needs_embedded
from streamlit.testing.v1 import AppTest

from ui.catalog import CHOICES, CUSTOM

from apptest import APP, STEP, app, rounds


def test_home_renders(tiny_dirs):
    at = app(tiny_dirs, page=None)
    assert "Speculative Decoding Lab" in at.title[0].value
    assert at.button(key="home_start")
    assert not any("feature draft" in c.value for c in at.caption)      # the tiny pair's draft reads text only


def test_a_long_prompt_says_its_first_round_will_be_slow(tiny_dirs):
    """Review 44: an 18,000-character prompt's first round took 51 s with no word before it."""
    at = app(tiny_dirs)
    assert not any(c.value.startswith("A long prompt,") for c in at.caption)
    at.session_state["prompt"] = "abc " * 600                         # 2,400 characters; one token each
    at.run()
    said = [c.value for c in at.caption if c.value.startswith("A long prompt,")]
    assert said == ["A long prompt, 2400 tokens (the lessons' prompts have under 100): the first round reads all of "
                    "it before drafting anything, and on this machine that can take many seconds."], said
    at.switch_page("pages/home.py").run()                               # Home's race too (review 46: 302 s unsaid)
    assert not any(c.value.startswith("A long prompt,") for c in at.caption)
    at.text_input(key="race_prompt").set_value("abc " * 600).run()
    assert [c.value for c in at.caption if c.value.startswith("A long prompt,")] == said


def test_next_round_grows_the_trace(tiny_dirs):
    at = app(tiny_dirs)
    at.button(key="btn_next").click().run()
    assert not at.exception and len(rounds(at)) == 1
    at.button(key="btn_next").click().run()
    assert len(rounds(at)) == 2
    assert any("Round 2" in h.value for h in at.header)
    waited = at.session_state["run"]["pauses"]       # the wait before round 2 (the click's), none before round 1
    assert list(waited) == [1] and 0 < waited[1] < 60, waited
    at.button(key="btn_end").click().run()          # Run to end's rounds each follow the last at once (its first
    waited = at.session_state["run"]["pauses"]       # waits for the click's rerun, as a clicked round does)
    assert len(waited) == len(rounds(at)) - 1 and max(list(waited.values())[2:]) < 0.2, waited


def test_a_rounds_times_carry_the_measured_here_badge_and_the_first_says_its_caches_were_cold(tiny_dirs):
    at, said = app(tiny_dirs), []
    for _ in range(2):
        at.button(key="btn_next").click().run()
        said += [m.value for m in at.markdown if m.value.startswith("One target forward over")]
    assert len(said) == 2 and all(":green-badge[measured here]" in s for s in said), said
    assert ["cold caches" in s for s in said] == [True, False], said


def test_run_to_end_and_reset(tiny_dirs):
    at = app(tiny_dirs, max_new_tokens=20)
    at.button(key="btn_end").click().run()
    dec = at.session_state["run"]["decoder"]
    assert not at.exception and dec.stop is not None
    finished = [s.value for s in at.success if s.value.startswith("Run finished: ")]
    words = ("Run finished: the model wrote its end-of-text token.",
             "Run finished: it reached the sidebar's Max new tokens.")
    assert finished and dec.stop not in finished[0] and finished[0] in words   # in words, not the engine's name
    drafted = [i for i, r in enumerate(rounds(at), 1) if r.drafted]      # the inspector: the last round that drafted
    assert at.session_state["round_sel"] == drafted[-1]
    # the target alone timed once on the same prompt when the run ends: one ratio a token, measured here
    note = next(c.value for c in at.caption if c.value.startswith("This run:"))
    ms = re.search(r"the target alone's passes took ([\d.]+) ms a token and this run's rounds ([\d.]+): \*\*([\d.]+)×",
                   note)
    alone, mine, x = (float(v) for v in ms.groups()) if ms else (0.0, 0.0, -1.0)
    # the ratio of the two times shown, within their rounding to 0.1 ms
    assert (alone - 0.05) / (mine + 0.05) - 0.01 <= x <= (alone + 0.05) / max(mine - 0.05, 1e-9) + 0.01, note
    assert "at this machine's step" not in note and ":green-badge[" in note            # one ratio, measured here
    at.button(key="btn_reset").click().run()
    assert "run" not in at.session_state


def test_a_run_to_end_past_the_turn_deadline_stops_whole_and_goes_on_exactly(tiny_dirs, monkeypatch):
    """A click may compute for turns.LIMIT_S at most: past it, Run to end stops after the round it
    is in, says so, and the next Run to end goes on from the same state: the tokens are those of a
    run never stopped (sampled, so the generator's state is carried too)."""
    from ui.server import turns
    settings = {"temperature": 0.9, "k": 3, "max_new_tokens": 30, "seed": 5}
    whole = app(tiny_dirs, **settings)
    whole.button(key="btn_end").click().run()
    expected = whole.session_state["run"]["decoder"]
    at = app(tiny_dirs, **settings)
    monkeypatch.setattr(turns, "LIMIT_S", 0.0)          # every round is past the deadline
    at.button(key="btn_end").click().run()
    assert not at.exception and len(rounds(at)) == 1
    assert any("Stopped after round 1" in i.value and "at most" in i.value for i in at.info)
    monkeypatch.setattr(turns, "LIMIT_S", turns.DEFAULT_LIMIT_S)
    at.button(key="btn_end").click().run()
    dec = at.session_state["run"]["decoder"]
    assert not at.exception and dec.stop is not None and len(rounds(at)) > 1
    assert dec.generated == expected.generated and dec.stop == expected.stop


def test_k_slider_reaches_the_engine(tiny_dirs):
    at = app(tiny_dirs)
    at.slider(key="k").set_value(2).run()
    at.button(key="btn_end").click().run()
    assert not at.exception
    assert all(r.drafted <= 2 for r in rounds(at)) and max(r.drafted for r in rounds(at)) == 2


def test_temperature_slider_resets_with_a_note(tiny_dirs):
    at = app(tiny_dirs, temperature=0.7)
    at.button(key="btn_next").click().run()
    at.slider(key="temperature").set_value(0.0).run()
    assert "run" not in at.session_state
    assert any("reset" in i.value for i in at.info)
    at.button(key="btn_next").click().run()
    assert rounds(at)[0].greedy


def test_empty_prompt_shows_a_message(tiny_dirs):
    at = app(tiny_dirs)
    at.text_area(key="prompt").set_value("").run()
    at.button(key="btn_next").click().run()
    assert not at.exception
    assert any("prompt is empty" in w.value for w in at.warning)
    at.text_area(key="prompt").set_value("abc").run()               # a prompt again: the warning goes (review 50)
    assert not at.exception and not any("prompt is empty" in w.value for w in at.warning)


def test_prompt_past_the_context_window(tiny_dirs):
    at = app(tiny_dirs, prompt="a" * 300)
    at.button(key="btn_next").click().run()
    assert not at.exception and any("shorten it" in w.value for w in at.warning)


def test_bad_custom_model_keeps_the_previous_pair(tiny_dirs):
    at = app(tiny_dirs)
    at.text_input(key="custom_target").set_value("./no/such/dir").run()
    assert not at.exception
    assert any("no such directory" in e.value for e in at.error)
    assert at.session_state["active_pair"][0] == str(tiny_dirs / "target")
    at.button(key="btn_next").click().run()
    assert len(rounds(at)) == 1


def test_hosted_mode_hides_custom_models(tiny_dirs, monkeypatch):
    monkeypatch.setenv("SPECDEC_HOSTED", "1")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert CUSTOM not in at.selectbox(key="pair_label").options


def test_replay_of_a_downloaded_run_needs_no_model(tiny_dirs):
    import specdec

    from tiny import tiny_pair
    run = specdec.generate(tiny_pair(eos=False), "abc (", k=3, temperature=0.8, seed=1, max_new_tokens=12)
    assert len(run.rounds) > 1
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["pair_label"] = CUSTOM           # no pair loaded at all
    at.session_state["replay"] = specdec.Run.from_json(run.to_json())
    at.run()
    at.switch_page(STEP).run()
    assert not at.exception
    assert any("Replaying an uploaded run" in i.value for i in at.info)
    assert any(f"Round {len(run.rounds)}" in h.value for h in at.header)
    at.slider(key="round_sel").set_value(1).run()
    assert any("Round 1" in h.value for h in at.header)


def test_a_hostile_replay_file_becomes_an_escaped_warning(tiny_dirs):
    """The upload path: load_replay turns a bad file into one message; the page shows it as a
    warning, its quoted file content escaped (no Markdown image is rendered)."""
    from streamlit.testing.v1 import AppTest as Tester

    def script():
        import streamlit as st

        from ui import session
        from ui.safe import md

        class Upload:
            def getvalue(self):
                return b'{"prompt": "a", "prompt_ids": "![](http://host/x.png)"}'
        session.load_replay(Upload())
        st.warning(md(st.session_state[session.ERROR]))

    at = Tester.from_function(script).run()
    assert not at.exception
    text = at.warning[0].value
    assert "not a run exported by this app" in text and "prompt" in text and "host" in text
    assert "![](" not in text and r"\!\[\]\(" in text


def test_step_through_chats_with_the_real_instruct_model():
    """SmolLM2 without a draft model: Chat mode (the template becomes the prompt), the
    early-exit drafter, two rounds; switching to Raw text resets the run."""
    label = next(c.label for c in CHOICES if c.target == "smollm2/target" and c.draft is None)
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in {"pair_label": label, "drafter": "early-exit", "exit_layer": 4, "k": 2,
                       "temperature": 0.0, "max_new_tokens": 8,
                       "prompt": "Name a colour."}.items():
        at.session_state[key] = value
    at.run()
    at.switch_page(STEP).run()
    assert not at.exception and at.radio(key="prompt_mode").value == "chat"
    at.button(key="btn_next").click().run()
    at.button(key="btn_next").click().run()
    assert not at.exception and len(rounds(at)) == 2
    decoder = at.session_state["run"]["decoder"]
    assert decoder.prompt.startswith("<|im_start|>system") and decoder.messages[-1].content == "Name a colour."
    at.radio(key="prompt_mode").set_value("raw").run()
    assert not at.exception and "run" not in at.session_state


def test_step_through_jumps_folds_and_shows_the_output(tiny_dirs):
    at = app(tiny_dirs, temperature=0.8, k=3, max_new_tokens=40, seed=3)
    at.button(key="btn_jump_partial").click().run()
    assert not at.exception
    picked = rounds(at)[at.session_state["round_sel"] - 1]
    assert 0 < picked.n_accepted < picked.drafted or at.session_state["run"]["decoder"].stop
    at.button(key="btn_jump_bonus").click().run()
    picked = rounds(at)[at.session_state["round_sel"] - 1]
    assert picked.final.kind == "bonus" or any("No such round" in i.value for i in at.info)
    assert any("Output so far" in c.value for c in at.caption)
    labels = {m.label for m in at.metric}
    if at.session_state["run"]["decoder"].stop:                 # ended: the whole run's times, no "so far"
        assert labels >= {"Drafting", "Verifying", "Total"} and "Metrics of the whole run" in at.header.values
    else:
        assert labels >= {"Drafting so far", "Verifying so far", "Total so far"} and "Metrics so far" in \
            at.header.values
    at.toggle(key="show_drafts").set_value(False).run()
    assert not at.exception
    if not at.session_state["run"]["decoder"].stop:
        at.button(key="btn_end").click().run()
    assert "Metrics of the whole run" in at.header.values and "Total" in {m.label for m in at.metric}


def test_you_are_the_drafter_verifies_a_typed_continuation(tiny_dirs):
    """The typed tokens are verified with q = a point mass: kept with probability p(d), so the
    page's verdicts equal the engine's PointMassDrafter round for the same seed."""
    import specdec
    from specdec.drafters.ngram import PointMassDrafter
    at = app(tiny_dirs, page="pages/you_draft.py", temperature=1.0, k=4, seed=11)
    at.text_area(key="yd_prompt").set_value("abc ab").run()
    at.text_area(key="yd_text").set_value("c abc").run()
    at.button(key="yd_go").click().run()
    assert not at.exception
    table = at.dataframe[0].value                                 # yd_table
    pair = specdec.load_pair(str(tiny_dirs / "target"), str(tiny_dirs / "draft"))
    ids = pair.tokenizer("c abc")["input_ids"]
    dec = specdec.Decoder(pair, "abc ab", specdec.Settings(k=len(ids), temperature=1.0, seed=11,
                                                            max_new_tokens=len(ids) + 17),
                          PointMassDrafter(pair.vocab_size, 6, ids))
    rnd = dec.step()
    assert list(table["verdict"]) == [p.verdict for p in rnd.positions]
    for p in rnd.positions:                                     # acceptance = p(d) for a point mass
        assert p.q == 1.0 and p.ratio == pytest.approx(p.p)
    assert list(at.dataframe[1].value["drafter"]) == ["you", "n-gram lookup", "draft model"]


def test_a_pair_that_fails_to_load_keeps_the_previous_one(tiny_dirs, tmp_path):
    at = app(tiny_dirs)
    at.button(key="btn_next").click().run()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    at.text_input(key="custom_target").set_value(str(broken)).run()
    assert not at.exception
    errors = " ".join(e.value for e in at.sidebar.error)
    assert "Could not load that pair" in errors and "Still using" in errors
    at.button(key="btn_next").click().run()            # the previous pair still steps
    assert not at.exception and len(rounds(at)) >= 1


@needs_embedded
def test_sidebar_shows_a_short_pair_name_and_the_full_one_below():
    at = AppTest.from_file(APP, default_timeout=120).run()
    box = at.sidebar.selectbox(key="pair_label")
    assert box.value == CHOICES[0].label
    assert all(len(o) <= 32 for o in box.options[:-1])          # fits the sidebar (custom aside)
    assert CHOICES[0].target == "smollm2/target" and CHOICES[0].draft == "smollm2/draft"   # issue 12
    assert any("smollm2/target" in c.value and "smollm2/draft" in c.value for c in at.sidebar.caption)


def test_run_to_end_shows_the_last_round_that_drafted_and_next_round_the_newest():
    """Review 31: after Run to end the inspector sat on a last round left no room to draft."""
    from types import SimpleNamespace

    from ui.session import shown_round
    history = [SimpleNamespace(drafted=d) for d in (4, 4, 2, 0)]
    assert shown_round(history, finished=True) == 3
    assert shown_round(history, finished=False) == 4
    assert shown_round(history[:1], finished=True) == 1
    assert shown_round([SimpleNamespace(drafted=0)], finished=True) == 1


def test_what_rounds_leave_survives_a_run_stopped_while_the_page_takes_it(monkeypatch):
    """A newer click or page may stop a run at a session-state write (Streamlit's stop check): the page's `settle`
    keeps an entry in the outbox until the state holds it, so the next run of the page still shows the round Run to
    end selected (review 57: back on Step through after a page switch, the finished run sat on round 1)."""
    from types import SimpleNamespace

    from ui import session

    class Stopped(Exception):
        pass

    class State(dict):
        stops = 1

        def __setitem__(self, key, value):
            if self.stops:
                self.stops -= 1
                raise Stopped
            super().__setitem__(key, value)

    state = State({session.OUTBOX: {session.SELECTED: 17}})
    monkeypatch.setattr(session, "st", SimpleNamespace(session_state=state))
    with pytest.raises(Stopped):
        session.settle()                                  # stopped at the write: the entry waits
    session.settle()                                      # the next run takes it
    assert state[session.SELECTED] == 17 and state[session.OUTBOX] == {}
