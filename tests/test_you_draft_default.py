"""You are the drafter starts on a prompt the model continues predictably (issue 51, item 6): the
default guess for the chat model is a bundled chat, and SmolLM2 keeps most of it."""
import pytest

import specdec
from specdec.chat import user_turn
from specdec.prompts import load_prompts
from ui.examples import guess_example
from ui.lessons.you_draft import compare


@pytest.fixture(scope="module")
def smollm2():
    return specdec.load_pair("smollm2/target", None)


def test_the_default_chat_guess_is_a_bundled_prompt():
    prompt, guess = guess_example(chat=True)
    assert prompt in {p.prompt for p in load_prompts("chat")} and guess


def test_the_target_keeps_most_of_the_default_guess_at_the_sidebars_defaults(smollm2):
    prompt, guess = guess_example(chat=True)
    settings = specdec.Settings()                     # the sidebar's defaults: T = 0.7, seed 0
    you = compare(smollm2, user_turn(prompt), guess, settings)[0].round
    assert you.drafted >= 12 and you.n_accepted >= you.drafted / 2
