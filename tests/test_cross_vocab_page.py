"""Across vocabularies (pages/cross_vocab.py, ui/lessons/cross_vocab.py): a round taken apart on a
pair of tiny models with two tokenizers (tests/tiny_vocabs.py: a byte-level BPE target, a
SentencePiece-style draft), the page in English and Korean, and the sidebar's switch away from a
drafter that needs a draft model when the pair has none (tests/test_gemma3.py's tiny Gemma 3)."""
import re

import pytest
import torch
from streamlit.testing.v1 import AppTest
from test_cross_vocab import LINK, D, T, cross, d_ids, mirrored, t_ids  # noqa: F401 (cross: a fixture)

import specdec
from specdec.models.backend import BACKEND_AUTO
from specdec.models.precision import PRECISION_AUTO
from ui.catalog import CHOICES, CUSTOM
from ui.lessons.cross_vocab import Stepper, cross_round

from apptest import APP

PAGE = "pages/cross_vocab.py"
# the tokens both tiny vocabularies hold with the same bytes, read off tiny_vocabs.py's two lists
SAME_BYTES = {(c, c) for c in "abcdefgh()"} | {("Ġ", "▁"), ("Ġa", "▁a"), ("Ċ", "<0x0A>"), ("Ã", "<0xC3>"),
                                               ("©", "<0xA9>"), ("Ã©", "é")}


class Favour(torch.nn.Module):
    """An output head that adds `by` to one token's logit."""

    def __init__(self, head, token: int, by: float):
        super().__init__()
        self.head, self.token, self.by = head, token, by

    def forward(self, hidden):
        out = self.head(hidden).clone()                      # (1, n, V_draft)
        out[..., self.token] += self.by
        return out


@pytest.fixture(scope="module")
def plain_pair(cross):  # noqa: F811 (the fixture imported above)
    return cross           # test_cross_vocab.py's pair: the target's weights read through the draft's vocabulary


@pytest.fixture(scope="module")
def rigged(plain_pair):
    """A draft whose first choice is always its own merge 'bc', which the target has no token for."""
    draft = mirrored(plain_pair.target)
    draft.lm_head = Favour(draft.lm_head, D.convert_tokens_to_ids("bc"), 12.0)
    return specdec.make_pair(plain_pair.target, draft, T, "tiny-bytes", "tiny-rigged", draft_tokenizer=D)


@pytest.fixture(scope="module")
def cross_dirs(tmp_path_factory, plain_pair):
    base = tmp_path_factory.mktemp("cross_models")
    for name, model, tok in (("target", plain_pair.target, T), ("draft", plain_pair.draft, D)):
        model.save_pretrained(base / name)
        tok.save_pretrained(base / name)
    return base


def test_a_round_shows_each_draft_token_as_the_target_token_of_the_same_bytes(rigged):
    stepper = Stepper(rigged, "ab(a", specdec.Settings(k=3, temperature=0, max_new_tokens=8))
    cr = stepper.step()
    assert len(cr.drafted) == 3
    for d in cr.drafted:
        assert (d.target_piece, d.draft_piece) in SAME_BYTES          # every drafted position is verifiable
        assert T.convert_tokens_to_ids(d.target_piece) == d.target_id
        assert D.convert_tokens_to_ids(d.draft_piece) == d.draft_id
    # the draft's own first choice 'bc' spans two target tokens: never proposed, and shown as the target's split
    first = cr.drafted[0].own
    assert first.piece == "bc" and not first.shared and first.target_split == tuple(T.tokenize("bc")) == ("b", "c")
    assert 0 <= first.inside < 0.5                                    # most of its mass was on 'bc'
    assert [d.verdict for d in cr.drafted][:cr.rnd.n_accepted] == ["accepted"] * cr.rnd.n_accepted


def test_a_merge_across_the_boundary_shows_which_draft_tokens_are_read_again(rigged):
    """'ab' reads as the draft's 'a' 'b'; once the target adds 'c' it reads 'a' 'bc': one token kept."""
    assert D.tokenize("ab") == ["a", "b"] and D.tokenize("abc") == ["a", "bc"]
    rnd = Stepper(rigged, "ab", specdec.Settings(k=2, temperature=0, max_new_tokens=4)).step().rnd
    cr = cross_round(rnd, t_ids("ab", "c"), d_ids("a", "b"), LINK, rigged.draft, T)
    assert (cr.kept, cr.cached, cr.reread, cr.fed) == (1, 2, ("bc",), 1)
    assert cr.context_tail == tuple(D.tokenize("abc"))


def test_a_draft_ending_half_way_through_a_character_says_so(rigged):
    """'Ã' is the first byte of 'é' (0xC3 0xA9): drafted last, it is no text yet."""
    from ui.lessons.cross_vocab import whole_text
    assert whole_text("aé".encode()[:-1]) == ("a", 1) and whole_text("é".encode()) == ("é", 0)


def cross_app(cross_dirs, lang: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = lang
    at.session_state["pair_label"] = CUSTOM
    at.session_state["custom_target"] = str(cross_dirs / "target")
    at.session_state["custom_draft"] = str(cross_dirs / "draft")
    at.session_state["cv_prompt"] = "ab(a"
    at.session_state["max_new_tokens"] = 8
    at.run()
    at.switch_page(PAGE).run()
    at.button(key="cv_next").click().run()
    at.button(key="cv_measure").click().run()
    assert not at.exception, at.exception
    return at


def texts(at) -> list[str]:
    """Every text of the page's main column (the sidebar is the shell's), table headings included."""
    main = at.main
    found = [e.value for kind in (main.title, main.subheader, main.markdown, main.caption, main.warning) for e in kind]
    found += [b.label for b in main.button] + [e.label for e in main.expander]
    return found + [str(c) for d in main.dataframe for c in d.value.columns]


def test_the_page_steps_a_round_and_compares_the_drafters_in_english(cross_dirs):
    at = cross_app(cross_dirs, "en")
    assert at.title[0].value == "Across vocabularies"
    assert any(s.value == "Round 1" for s in at.subheader)
    table = at.dataframe[0].value
    assert all((t, d) in SAME_BYTES for t, d in zip(table["target token"], table["draft token"]))
    rows = at.dataframe[1].value
    assert list(rows["drafter"]) == [str(cross_dirs / "draft"), "n-gram lookup"]      # no profile: no speed
    assert set(rows["predicted speedup ×"]) == {"—"}
    # the speeds are predictions from the tokens a round, and the page says so and over how many prompts
    assert any(s.value == "Tokens a round measured here, speedups predicted" for s in at.subheader)
    assert any("for each of 2 prompts" in m.value and "predicted from them" in m.value for m in at.markdown)
    at.text_area(key="cv_prompt").set_value("").run()          # bad input: a message, never a traceback
    at.button(key="cv_next").click().run()
    assert not at.exception and len(at.main.warning) == 1


# what a Korean text may keep: names, code, formulas, tokens (between ‹ ›), the paper's citation
ALLOWED = (r"(argmax|tiny-\S+|/\S+|TLI|BPE|arXiv|SentencePiece|Timor|et al|min|top-[kp]|[pquckTv]\b|‹[^›]*›|<0x..>"
           r"|scripts/\S+|make run"
           r"|:[a-z]+-badge\[|:material/[a-z_]+:)")                  # a badge's Markdown (ui/lessons/badges.py)


def test_the_page_speaks_korean_with_no_english_words_left(cross_dirs):
    at = cross_app(cross_dirs, "ko")
    assert at.title[0].value != "Across vocabularies"
    left = [(t[:80], w) for t in texts(at) for w in re.findall(r"[A-Za-z]{3,}", re.sub(ALLOWED, "", t))]
    assert left == [], left


def test_a_pair_without_a_draft_model_switches_the_drafter_and_says_so(monkeypatch):
    """Gemma 3 270M with the default drafter ("model", which needs a draft model): the sidebar
    switches to n-gram lookup and one line says so; a round runs."""
    from test_gemma3 import tiny_gemma

    from ui import loaders

    from tiny import char_tokenizer
    tok = char_tokenizer()
    gemma = specdec.make_pair(tiny_gemma(3, len(tok)), None, tok, "gemma3/target", None)
    real = specdec.load_pair
    monkeypatch.setattr(specdec, "load_pair", lambda t, d, **kw: gemma if t == "gemma3/target" else real(t, d, **kw))
    try:
        at = AppTest.from_file(APP, default_timeout=120)
        at.session_state["pair_label"] = next(c.label for c in CHOICES if c.target == "gemma3/target")
        at.session_state["prompt"] = "abc (abc"
        at.run()
        at.switch_page("pages/step_through.py").run()
        assert at.session_state["drafter"] != "model" and not at.warning
        assert any("no draft model, so the drafter is now n-gram lookup" in c.value for c in at.sidebar.caption)
        at.button(key="btn_next").click().run()
        assert not at.exception and not at.warning and any(s.value == "Round 1" for s in at.header)
    finally:
        loaders._load.clear("gemma3/target", None, PRECISION_AUTO, BACKEND_AUTO)     # only the stand-in


def test_a_draft_of_another_tokenizer_switches_to_the_bridging_drafter_and_says_so(monkeypatch, plain_pair):
    """Gemma 3 270M <- SmolLM2-135M (a listed pair across vocabularies) with the default drafter
    ("model", which cannot verify another tokenizer's tokens): the sidebar switches to the
    cross-vocabulary drafter and says so; a round runs (a tiny pair across vocabularies stands in)."""
    from ui import loaders
    named = specdec.make_pair(plain_pair.target, plain_pair.draft, T, "gemma3/target", "smollm2/target",
                              draft_tokenizer=D)
    real = specdec.load_pair
    monkeypatch.setattr(specdec, "load_pair", lambda t, d, **kw: named if (t, d) == ("gemma3/target", "smollm2/target")
                        else real(t, d, **kw))
    choice = next(c for c in CHOICES if c.target == "gemma3/target" and c.draft == "smollm2/target")
    assert choice.across and not next(c for c in CHOICES if c.draft == "smollm2/draft").across
    try:
        at = AppTest.from_file(APP, default_timeout=120)
        at.session_state["pair_label"] = choice.label
        at.session_state["prompt"] = "ab ab"
        at.run()
        at.switch_page("pages/step_through.py").run()
        assert at.session_state["drafter"] == "cross-vocab" and not at.warning
        assert any("another tokenizer than the target, so the drafter is now" in c.value for c in at.sidebar.caption)
        at.button(key="btn_next").click().run()
        assert not at.exception and not at.warning and any(s.value == "Round 1" for s in at.header)
    finally:
        loaders._load.clear("gemma3/target", "smollm2/target", PRECISION_AUTO, BACKEND_AUTO)   # only the stand-in


def test_the_speed_is_tokens_a_round_over_the_rounds_price_in_target_steps():
    """Leviathan's cost model with a measured pass: L / (k·c + v(k + 1)); c from the profile when
    it holds the draft, else the run's drafting time per drafted token over the profile's step."""
    from types import SimpleNamespace

    from specdec.bench.machine import Profile
    from ui.lessons.cross_vocab_speed import Source, Tally, cost_ratio, predicted
    assert predicted(2.0, 4, 0.1, 1.5) == pytest.approx(2.0 / 1.9)
    profile = Profile("cpu", "torch", 1, step_ms=20.0, v={1: 1.0, 5: 1.5}, c={"known": 0.25})
    known = SimpleNamespace(draft_name="known", draft=object(), reads_features=False)
    other = SimpleNamespace(draft_name="other", draft=object(), reads_features=False)
    run = Tally(rounds=10, emitted=15, drafted=40, accepted=5, draft_ms=160.0)
    assert cost_ratio(profile, known, "model", run) == (0.25, Source.PROFILE)
    assert cost_ratio(profile, other, "cross-vocab", run) == (pytest.approx(160.0 / 40 / 20.0), Source.RUN)
    assert cost_ratio(None, known, "model", run) == (None, Source.NONE)
    # a lookup that drafted 4 in one round and found nothing in three: passes of 5 and 1 tokens, priced
    # each at its own width, (1.5 + 3 × 1.0) / 4 = 1.125 steps; a width the profile lacks: no price
    lookup = Tally(rounds=4, widths=(5, 1, 1, 1))
    assert lookup.pass_steps(profile.v) == pytest.approx(4.5 / 4) and Tally(widths=(3,)).pass_steps(profile.v) is None


def test_the_figure_colours_the_cross_vocabulary_draft_and_names_the_cpu():
    from ui.figures.cross_vocab import speed_figure
    from ui.lessons.cross_vocab_speed import Source, SpeedRow
    rows = [SpeedRow("stdlib/draft-4l", "cross-vocab", True, 1.2, 0.1, 0.2, Source.RUN, 0.5),
            SpeedRow("", "ngram", False, 1.1, 0.1, 0.0, Source.PROFILE, None)]
    fig = speed_figure(rows, ["stdlib/draft-4l", "n-gram"], "Some CPU", 4)
    tokens, speed = fig.data
    assert list(tokens.y) == [1.2, 1.1] and list(speed.y) == [0.5, None]
    assert tokens.marker.color[0] != tokens.marker.color[1] and list(speed.text) == ["0.50×", "—"]
    assert "Some CPU" in fig.layout.title.text and "k = 4" in fig.layout.title.text


@pytest.fixture(scope="module")
def chat_dirs(tmp_path_factory, plain_pair):
    """cross_dirs with a target whose tokenizer has a chat template (the page offers a chat only then)."""
    import copy
    base = tmp_path_factory.mktemp("cross_chat_models")
    chatty = copy.deepcopy(T)
    chatty.chat_template = "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}"
    for name, model, tok in (("target", plain_pair.target, chatty), ("draft", plain_pair.draft, D)):
        model.save_pretrained(base / name)
        tok.save_pretrained(base / name)
    return base


def test_the_round_starts_on_raw_code_and_a_chat_is_one_click_away(chat_dirs):
    """Review 51: in a chat every round kept 0 of 4 (the drafts learned Python files, never a chat): the page's own
    prompt mode starts on raw code with its code example; a chat swaps in the chat example, never the learner's
    text."""
    from ui import cross_vocab_view as view
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["pair_label"] = CUSTOM
    at.session_state["custom_target"] = str(chat_dirs / "target")
    at.session_state["custom_draft"] = str(chat_dirs / "draft")
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert at.radio(key="cv_mode").value == "raw" and at.text_area(key="cv_prompt").value == view.PROMPTS[1]
    at.radio(key="cv_mode").set_value("chat").run()
    assert at.text_area(key="cv_prompt").value == view.PROMPTS[0]
    at.text_area(key="cv_prompt").set_value("def f(x):").run()
    at.radio(key="cv_mode").set_value("raw").run()
    assert at.text_area(key="cv_prompt").value == "def f(x):"          # the learner's text stays
