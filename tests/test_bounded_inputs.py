"""Work a model file or a user can ask for is bounded (issue 48): chat templates, prompt sizes."""
import copy
import time

import pytest

import specdec
from specdec import chat
from specdec.engine import prompt as prompts

NEVER_ENDS = "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}"


@pytest.fixture
def templated(pair):
    """The tiny pair with a chat template of the test's choosing (a copy: the pair is shared)."""
    tokenizer = copy.deepcopy(pair.tokenizer)
    return lambda template: (setattr(tokenizer, "chat_template", template), tokenizer)[1]


def test_a_template_that_never_ends_is_stopped_and_said(templated, monkeypatch):
    monkeypatch.setattr(chat, "RENDER_SECONDS", 0.3)
    t0 = time.monotonic()
    with pytest.raises(specdec.InputError, match="did not finish within 0.3 seconds"):
        chat.render(templated(NEVER_ENDS), chat.user_turn("hi"))
    assert time.monotonic() - t0 < 30          # it did end (the loops alone run for hours)


@pytest.mark.parametrize("template, words", [
    ("{{ raise_exception('no system role here') }}", "no system role here"),
    ("{% for i in range(10**9) %}{% endfor %}", "asked for too much (OverflowError)"),
    ("{{ 'ab ' * 30000000 }}", "more than 1,000,000 characters|did not finish"),   # its size, or its time
    ("{% for m in messages %}{{ m.content.__class__.__mro__[1].__subclasses__() }}{% endfor %}", "failed"),
    ("{{ messages[0].content | nosuchfilter }}", "failed"),
])
def test_a_template_error_is_one_message(templated, template, words):
    with pytest.raises(specdec.InputError) as err:
        chat.render(templated(template), chat.user_turn("hi"))
    assert any(w in str(err.value) for w in words.split("|")) and "Traceback" not in str(err.value)


def test_the_deadline_puts_back_the_tracer_it_found():
    import sys
    before = sys.gettrace()
    with pytest.raises(chat.Overrun), chat.limit(0.0):
        sum(range(10))
        for _ in range(10**6):
            pass
    assert sys.gettrace() is before


def test_a_prompt_that_cannot_fit_is_refused_before_it_is_tokenised(pair, monkeypatch):
    def no_tokenising(*a, **k):
        raise AssertionError("tokenised a prompt that cannot fit")
    limit = prompts.CHARS_PER_TOKEN * pair.context
    huge = "x" * (limit + 1)
    monkeypatch.setattr(type(pair.tokenizer), "__call__", no_tokenising)
    for given in (huge, [{"role": "user", "content": huge}]):
        with pytest.raises(specdec.InputError, match="characters, more than"):
            prompts.encode_prompt(pair, given)


def test_a_hosted_server_caps_its_prompt_boxes(monkeypatch):
    from ui import catalog
    monkeypatch.setenv(catalog.HOSTED_ENV, "1")
    assert catalog.prompt_chars() == catalog.HOSTED_PROMPT_CHARS
    monkeypatch.setenv(catalog.HOSTED_ENV, "0")
    assert catalog.prompt_chars() is None
