"""Chat prompts: the tokenizer's template renders them, end-of-turn stops a run, and every
kind of bad chat gets one clear message."""
import pytest

import specdec
from specdec.chat import as_messages

from tiny import char_tokenizer, tiny_llama

TEMPLATE = ("{% for m in messages %}({{ m['content'] }}){% endfor %}"
            "{% if add_generation_prompt %}h{% endif %}")   # h: the assistant's turn


@pytest.fixture(scope="module")
def chat_pair(pair):
    tok = char_tokenizer()
    tok.chat_template = TEMPLATE
    return specdec.make_pair(pair.target, pair.draft, tok, "tiny-chat", "tiny-draft")


def test_a_chat_is_rendered_by_the_template(chat_pair):
    chat = [{"role": "system", "content": "ab"}, {"role": "user", "content": "cd e"}]
    run = specdec.generate(chat_pair, chat, k=2, temperature=0, max_new_tokens=6)
    assert run.prompt == "(ab)(cd e)h"
    assert [m.role for m in run.messages] == ["system", "user"]
    assert run.prompt_ids == tuple(chat_pair.tokenizer("(ab)(cd e)h")["input_ids"])
    same = specdec.generate(chat_pair, "(ab)(cd e)h", k=2, temperature=0, max_new_tokens=6)
    assert same.token_ids == run.token_ids and same.messages is None


def test_a_chat_round_trips_through_json(chat_pair):
    run = specdec.generate(chat_pair, [{"role": "user", "content": "abc"}], max_new_tokens=4)
    back = specdec.Run.from_json(run.to_json())
    assert back.messages == run.messages and back.prompt == run.prompt


@pytest.mark.parametrize("chat, message", [
    ([], "the chat is empty"),
    ([{"role": "robot", "content": "ab"}], "role 'robot'"),
    ([{"role": "user", "content": "   "}], "has no text"),
    ([{"role": "user"}], "has no text"),
    (["ab"], "must be a dict"),
    ([{"role": "user", "content": "ab", "name": "x"}], "must be a dict"),
])
def test_bad_chats_are_explained(chat, message):
    with pytest.raises(specdec.InputError, match=message):
        as_messages(chat)


def test_a_model_without_a_template_cannot_take_a_chat(pair):
    with pytest.raises(specdec.InputError, match="no chat template"):
        specdec.generate(pair, [{"role": "user", "content": "abc"}], max_new_tokens=4)


def test_the_models_own_end_of_turn_stops_a_run(pair_no_eos):
    """A target whose generation_config names an end-of-turn id stops there, even when the
    tokenizer has no EOS."""
    target = tiny_llama(len(pair_no_eos.tokenizer), 2, seed=1)
    target.generation_config.eos_token_id = None
    free = specdec.generate(specdec.make_pair(target, None, pair_no_eos.tokenizer), "abc",
                            mode="autoregressive", temperature=0, max_new_tokens=30)
    end = free.token_ids[3]                     # call the 4th token "end of turn"
    target.generation_config.eos_token_id = end
    run = specdec.generate(specdec.make_pair(target, None, pair_no_eos.tokenizer), "abc",
                           mode="autoregressive", temperature=0, max_new_tokens=30)
    assert run.stop_reason == "eos" and run.token_ids[-1] == end
    assert run.token_ids == free.token_ids[:free.token_ids.index(end) + 1]
