"""A long computation stopped by a click or a page switch is reported on the next page run (review 42: a
measurement left mid-way was dropped without a word)."""
import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from ui import jobs

from apptest import STEP, app


def test_a_job_that_ends_leaves_nothing_to_report_and_one_cut_off_leaves_where_it_stopped(tiny_dirs):
    at = app(tiny_dirs, page=None)
    assert jobs.RUNNING not in at.session_state

    def cut(progress):                      # what Streamlit does at a progress update after a page switch
        progress(3, 8, "prompt 3")
        raise StopException()

    def whole(progress):
        progress(8, 8, "done")
        return 42

    import streamlit as st
    with pytest.raises(StopException):
        jobs.run_job("Measuring these settings here", "t", cut)
    assert st.session_state[jobs.RUNNING] == {"label": "Measuring these settings here", "done": 3, "total": 8,
                                              "page": jobs.page_now()}
    assert jobs.stopped_note() == ("“Measuring these settings here” stopped after 3 of 8 steps, because you "
                                   "clicked or left its page; its partial results were dropped. Press its button "
                                   "again to run it.")
    assert jobs.stopped_note() is None                                     # said once
    assert jobs.run_job("Measuring these settings here", "t", whole) == 42 and jobs.stopped_note() is None

    def fault(progress):
        raise ZeroDivisionError
    with pytest.raises(ZeroDivisionError):
        jobs.run_job("Measuring these settings here", "t", fault)
    assert jobs.stopped_note() is None                                     # a fault is not "you clicked"


def test_the_next_page_says_what_stopped(tiny_dirs):
    at = app(tiny_dirs, page=None)
    at.session_state[jobs.RUNNING] = {"label": "Measuring these settings here", "done": 0, "total": 0}
    at.switch_page("pages/fast.py").run()
    assert not at.exception
    assert any(i.value.startswith("“Measuring these settings here” stopped, because you clicked or left its page")
               for i in at.info), [i.value for i in at.info]
    at.run()
    assert not any("stopped, because you clicked" in i.value for i in at.info)


def test_a_job_left_for_another_page_is_said_there_and_again_on_its_own_page(tiny_dirs):
    """Review 45: a measurement on Step through, left for 70 s and come back to, showed nothing of it there."""
    at = app(tiny_dirs)                                   # on Step through
    own = at.session_state[jobs.PAGE]                     # as its shell.page said
    assert own == "step_through"
    at.session_state[jobs.RUNNING] = {"label": "Measuring these settings here", "done": 1, "total": 6, "page": own}
    said = "“Measuring these settings here” stopped after 1 of 6 steps"

    def notes():
        return [i.value for i in at.info if i.value.startswith(said)]
    at.switch_page("pages/fast.py").run()
    assert len(notes()) == 1 and at.session_state[jobs.PAGE] == "fast"        # where the learner went
    at.run()
    assert notes() == []                                                      # once there
    at.switch_page(STEP).run()
    assert len(notes()) == 1                                                  # and again on its own page
    at.run()
    assert notes() == []
