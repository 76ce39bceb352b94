"""This machine's profile prices a draft as a run pays it (issue 51's review: the profile's bare
forward gave c = 0.089 while every run here paid 0.146): the engine's own draft forwards,
sampling and bookkeeping with them, over its autoregressive pass, as the k sweep measures c."""
from specdec.bench import machine


def test_a_draft_is_priced_inside_the_engines_rounds(pair):
    found = machine.engine_c(pair, {"tiny/draft": pair.draft})
    assert set(found) == {"tiny/draft"} and 0 < found["tiny/draft"] < 20
    assert machine.engine_c(pair, {}) == {}


def test_the_profile_keeps_the_engines_c_not_the_bare_forwards(pair, monkeypatch):
    monkeypatch.setattr(machine, "WIDTHS", (1, 2, 5))                    # quickly
    monkeypatch.setattr(machine, "engine_c", lambda p, drafts: {name: 0.5 for name in drafts})
    profile = machine.measure(pair, {"tiny/draft": pair.draft})
    assert profile.c == {"tiny/draft": 0.5}
    monkeypatch.setattr(machine, "engine_c", lambda p, drafts: {})      # no rounds gave one: the bare ratio
    bare = machine.measure(pair, {"tiny/draft": pair.draft}).c["tiny/draft"]
    assert bare > 0 and bare != 0.5


def test_the_probe_is_a_chat_where_the_pair_has_a_template_and_its_c_the_median_of_three(pair, monkeypatch):
    """The lessons prompt a chat model with a chat (a longer context costs a draft step more: one raw probe
    had priced c at 0.106 where chat runs paid 0.123-0.147); one probe's c moves with the moment, so three
    interleaved probes and their median."""
    from types import SimpleNamespace
    chat = SimpleNamespace(tokenizer=SimpleNamespace(chat_template="{{ messages }}"))
    raw = SimpleNamespace(tokenizer=SimpleNamespace(chat_template=None))
    assert machine.probe(raw) == machine.PROBE and machine.probe(chat)[0].content == machine.PROBE_CHAT
    paid = iter([0.1, 0.5, 0.2])
    monkeypatch.setattr(machine, "draft_cost_in_run", lambda spec, base: next(paid))
    assert machine.engine_c(pair, {"tiny/draft": pair.draft}) == {"tiny/draft": 0.2}
