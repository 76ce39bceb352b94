"""Bad input gets a clear message; runs stop for the right reason; traces round-trip."""
import pytest

import specdec
from specdec.errors import LoadError
from specdec.models.pair import load_pair, vocab_difference

from tiny import char_tokenizer, tiny_llama


@pytest.mark.parametrize("kwargs, words", [
    (dict(k=0), r"k \(draft length\)"),
    (dict(k=-3), r"k \(draft length\)"),
    (dict(temperature=-0.1), "temperature"),
    (dict(top_p=0.0), "top-p"),
    (dict(top_p=1.5), "top-p"),
    (dict(max_new_tokens=0), "max new tokens"),
    (dict(drafter="oracle"), "drafter"),
    (dict(policy="psychic"), "policy"),
])
def test_bad_settings_say_what_to_change(pair, kwargs, words):
    with pytest.raises(specdec.InputError, match=words):
        specdec.generate(pair, "abc", **kwargs)


def test_empty_prompt(pair):
    with pytest.raises(specdec.InputError, match="prompt is empty"):
        specdec.generate(pair, "")


def test_prompt_past_the_context_window(pair):
    with pytest.raises(specdec.InputError, match="accept at most 64"):
        specdec.generate(pair, "a" * 80)


def test_vocabulary_mismatch_names_the_first_difference():
    assert "sizes differ" in vocab_difference(char_tokenizer(), char_tokenizer("abc"))
    diff = vocab_difference(char_tokenizer("abcdefgh ()\n"), char_tokenizer("bacdefgh ()\n"))
    assert diff == "token 'a' has id 1 in the target but has id 2 in the draft"
    tok, other = char_tokenizer(), char_tokenizer("abc")
    pair = specdec.make_pair(tiny_llama(len(tok), 1, 0), tiny_llama(len(other), 1, 1), tok, draft_tokenizer=other)
    assert pair.across_vocab and pair.draft_tokenizer is other and pair.vocab_size == len(tok)
    for drafter in ("model", "tree"):       # the same-vocabulary drafters refuse and name the one that bridges
        with pytest.raises(specdec.InputError, match="draft across vocabularies with cross-vocab .*sizes differ"):
            specdec.generate(pair, "abc", drafter=drafter, max_new_tokens=2)
    same = specdec.make_pair(pair.target, tiny_llama(len(tok), 1, 1), tok, draft_tokenizer=char_tokenizer())
    assert not same.across_vocab                       # an equal tokenizer is no bridge


def test_missing_path():
    with pytest.raises(LoadError, match="no such directory"):
        load_pair(target="./no/such/model", draft=None)


def test_offline_hub_id_says_so(monkeypatch, tmp_path):
    from huggingface_hub import constants
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(LoadError, match="not in the local Hugging Face cache"):
        load_pair(target="someone/not-a-cached-model", draft=None)


def test_max_new_tokens_is_exact(pair_no_eos):
    for k in (1, 4, 7):
        run = specdec.generate(pair_no_eos, "abc", k=k, temperature=1.0, seed=k, max_new_tokens=13)
        assert len(run.token_ids) == 13 and run.stop_reason == "max_new_tokens"
        assert run.rounds[-1].stop == "max_new_tokens"


def test_context_window_stops_cleanly(pair_no_eos):
    run = specdec.generate(pair_no_eos, "ab" * 25, k=4, temperature=1.0, max_new_tokens=100)
    assert run.stop_reason == "context window"
    assert len(run.prompt_ids) + len(run.token_ids) == 64


def test_eos_stops_and_cuts_the_round(pair):
    runs = [specdec.generate(pair, "ab", k=4, temperature=1.0, seed=s, max_new_tokens=60)
            for s in range(30)]
    stopped = [r for r in runs if r.stop_reason == "eos"]
    assert stopped, "the tiny target emits EOS (id 0) often enough to reach it in 30 runs"
    for run in stopped:
        assert run.token_ids[-1] == 0 and 0 not in run.token_ids[:-1]


def test_json_round_trip(pair):
    run = specdec.generate(pair, "abc", k=3, temperature=0.7, seed=1, max_new_tokens=20)
    back = specdec.Run.from_json(run.to_json())
    assert back == run and back.metrics == run.metrics
    assert isinstance(back.rounds[0].positions[0].target.probs, tuple)


def test_settings_as_a_dict_say_how_to_make_them(pair):
    for call in (specdec.generate, specdec.autoregressive):
        with pytest.raises(specdec.InputError, match=r"got a dict: make one with Settings\(\*\*d\)"):
            call(pair, "abc", {"k": 2})
    with pytest.raises(specdec.InputError, match=r"got str: make one with Settings\(k=4"):
        list(specdec.rounds(pair, "abc", "k=2"))


def test_no_pair_is_one_message():
    with pytest.raises(specdec.InputError, match=r"got NoneType: make one with specdec.load_pair"):
        specdec.generate(None, "abc")
    with pytest.raises(specdec.InputError, match="got str"):
        specdec.generate("stdlib/target", "abc")


def test_an_unknown_setting_lists_the_settings(pair):
    names = "k, temperature, top_k, top_p, seed, max_new_tokens, drafter"
    with pytest.raises(specdec.InputError, match=f"unknown setting 'bogus'; the settings are {names}"):
        specdec.Settings(bogus=1)
    with pytest.raises(specdec.InputError, match="unknown setting 'temprature'"):
        specdec.generate(pair, "abc", temprature=0.5)              # a misspelt keyword, at the edge
    with pytest.raises(specdec.InputError, match="given twice"):
        specdec.Settings(3, k=3)
    from specdec.settings import options
    n = len(options())
    with pytest.raises(specdec.InputError, match=f"at most {n} values, got {n + 1}"):
        specdec.Settings(*range(n + 1))


def test_replace_and_copies_of_settings_still_work():
    import copy
    import dataclasses
    import pickle
    s = specdec.Settings(k=3, temperature=0.0)
    assert dataclasses.replace(s, k=5).k == 5 and dataclasses.replace(s, k=5).temperature == 0.0
    assert pickle.loads(pickle.dumps(s)) == s == copy.deepcopy(s)
    with pytest.raises(specdec.InputError, match="unknown setting 'kk'"):
        dataclasses.replace(s, kk=5)
    with pytest.raises(specdec.InputError, match="draft length"):
        dataclasses.replace(s, k=0)
