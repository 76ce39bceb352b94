"""Issue 50 item 6: a drafter is one file and its register() call. A throwaway one, registered
here, is offered by Settings, compared on Drafters compared and measured in the draft-size
sweep without any of them being edited; taken out again, it is gone from all three."""
import pytest
import torch

from specdec.bench.compared import ALL, compare, variants
from specdec.bench.sweeps import draft_tradeoff
from specdec.drafters.base import DRAFTERS, ChainDrafter, DrafterKind, Proposal, register, unregister
from specdec.errors import InputError
from specdec.prompts import Prompt
from specdec.settings import Settings
from ui.lessons.bench_words import drafter_name
from ui.lessons.fast import tradeoff_figure


class RepeatLast(ChainDrafter):
    """Drafts the sequence's last token again, k times (a point mass each)."""

    def __init__(self, vocab_size: int):
        self.vocab_size = vocab_size

    def propose(self, seq, k, sampling, generator, policy) -> Proposal:
        tokens = [seq[-1]] * k
        probs = torch.zeros(k, self.vocab_size)
        probs[:, seq[-1]] = 1.0
        return Proposal(tokens, probs, 0)


@pytest.fixture
def throwaway():
    kind = register(DrafterKind("repeat-last", "repeat the last token", False,
                                lambda pair, s: RepeatLast(pair.vocab_size), rank=50))
    yield kind
    unregister(kind.name)


def test_a_registered_drafter_is_a_setting_and_a_compared_row_then_gone_again(throwaway, pair):
    settings = Settings(k=2, temperature=0.0, max_new_tokens=4, drafter="repeat-last", exit_layer=1)   # offered
    rows = variants(["tiny-draft"], "tiny-draft", settings)
    assert [v.label for v in rows if v.drafter == "repeat-last"] == ["repeat the last token"]
    table = compare(lambda target, draft: pair, "tiny-target", rows, [Prompt("code", "a", "ab(a")],
                    settings, lambda *_: None, repeats=1)
    mine = [p for p in table.points if p.drafter == "repeat the last token" and p.kind == ALL]
    assert len(mine) == 1 and mine[0].c == 0.0                 # it runs no model: its drafts cost nothing
    assert drafter_name("repeat the last token") == "repeat the last token"    # no catalog line: as written
    unregister("repeat-last")
    assert "repeat-last" not in [v.drafter for v in variants(["tiny-draft"], "tiny-draft", settings)]
    with pytest.raises(InputError, match="drafter must be one of"):
        Settings(drafter="repeat-last")


def test_the_draft_size_sweep_measures_it_and_keys_it_by_its_own_name(throwaway, pair):
    settings = Settings(k=2, temperature=1.0, max_new_tokens=4)
    sweep = draft_tradeoff(lambda target, draft: pair, "tiny-target", ["tiny-draft"], ["ab(a"], settings,
                           lambda *_: None, repeats=1)
    assert [(p.draft, p.drafter) for p in sweep.points] == [
        ("tiny-draft", "model"), ("n-gram lookup", "ngram"), ("suffix match", "suffix"),
        ("repeat the last token", "repeat-last")]                 # menu order; early exit only with exits
    key = tradeoff_figure("tiny-target", settings, None)(sweep.points[-1])
    assert (key.draft, key.drafter) == (None, "repeat-last")


def test_a_drafter_with_a_setting_of_its_own_keys_and_names_its_measurements_by_its_value():
    kind = DrafterKind("widthy", "widthy", False, lambda pair, s: RepeatLast(pair.vocab_size), reads="tree_width")
    assert kind.key_id(Settings(tree_width=3)) == "widthy@3"
    assert kind.compared_as(Settings(tree_width=3)) == "widthy @ 3"
    assert DRAFTERS["early-exit"].compared_as(Settings(exit_layer=7)) == "early exit @ 7"
    assert drafter_name("early exit @ 7") == "early exit (first 7 layers)"        # what the value is, said
