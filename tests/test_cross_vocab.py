"""Drafting across vocabularies (drafters/cross_vocab.py, models/vocab_bridge.py): tokens compared
by bytes, the re-tokenisation pitfalls one by one, and exactness — greedy output identical to the
target's, and the first two tokens' law at T = 1 checked by chi-square on a pair built from configs
(a byte-level BPE target, a SentencePiece-style draft: tests/tiny_vocabs.py)."""
import copy
import random

import pytest
import torch

import specdec
from specdec.drafters.cross_vocab import CrossVocabDrafter
from specdec.drafters.policies import make_policy
from specdec.models.vocab_bridge import Spelling, bridge, bytes_of, spelling
from specdec.rules.sampling import Sampling

from stats import chi2_pvalue
from test_lossless import RUNS, exact_two_token_law
from tiny import char_tokenizer, tiny_llama
from tiny_vocabs import EOT, TEXT_CHARS, USER, byte_level_tokenizer, sentencepiece_tokenizer

T, D = byte_level_tokenizer(), sentencepiece_tokenizer()
LINK = bridge(T, D, "T", "D")


def t_ids(*pieces: str) -> list[int]:
    return T.convert_tokens_to_ids(list(pieces))


def d_ids(*pieces: str) -> list[int]:
    return D.convert_tokens_to_ids(list(pieces))


def mirrored(target, seed: int = 5):
    """The target's weights read through the draft's vocabulary: a token both hold gets the
    target's embedding and output rows, the draft's others random ones. Its context is tokenised
    otherwise, so it agrees with the target often but not always: many rounds accept, some reject."""
    draft = copy.deepcopy(target)
    torch.manual_seed(seed)
    for module, source in ((draft.get_input_embeddings(), target.get_input_embeddings()),
                           (draft.get_output_embeddings(), target.get_output_embeddings())):
        rows = torch.randn(len(D), source.weight.shape[1]) * 0.3                      # (V_draft, H)
        rows[LINK.draft_ids] = source.weight.data[LINK.target_ids]
        module.weight.data = rows
    draft.config.vocab_size = len(D)
    return draft.eval()


@pytest.fixture(scope="module")
def cross():
    target = tiny_llama(len(T), 2, seed=1)
    return specdec.make_pair(target, mirrored(target), T, "tiny-bytes", "tiny-pieces", draft_tokenizer=D)


@pytest.fixture(scope="module")
def random_cross(cross):
    draft = tiny_llama(len(D), 1, seed=2)
    return specdec.make_pair(cross.target, draft, T, "tiny-bytes", "tiny-random", draft_tokenizer=D)


# --- tokens as bytes --------------------------------------------------------------------------

def test_each_spelling_is_read_as_the_bytes_it_stands_for():
    assert (spelling(T), spelling(D), spelling(char_tokenizer())) == \
        (Spelling.BYTE_LEVEL, Spelling.SENTENCEPIECE, Spelling.PLAIN)
    assert [bytes_of(w, Spelling.BYTE_LEVEL) for w in ("Ġa", "Ċ", "Ã", "Ã©")] == [b" a", b"\n", b"\xc3", "é".encode()]
    assert [bytes_of(w, Spelling.SENTENCEPIECE) for w in ("▁a", "<0x0A>", "<0xC3>", "é")] == \
        [b" a", b"\n", b"\xc3", "é".encode()]


def test_the_intersection_pairs_tokens_by_bytes_never_by_spelling():
    pairs = set(zip(T.convert_ids_to_tokens(LINK.target_ids.tolist()),
                    D.convert_ids_to_tokens(LINK.draft_ids.tolist())))
    letters = {(c, c) for c in "abcdefgh()"}
    assert pairs == letters | {("Ġ", "▁"), ("Ġa", "▁a"), ("Ċ", "<0x0A>"), ("Ã", "<0xC3>"), ("©", "<0xA9>"), ("Ã©", "é")}
    # one side's merges ('ab'; 'bc', '()') and every special stay out
    assert LINK.specials == {T.convert_tokens_to_ids(EOT): D.convert_tokens_to_ids(EOT),
                             T.convert_tokens_to_ids(USER): None}


def test_a_tokenizer_bridged_to_itself_keeps_every_token_but_the_specials():
    link = bridge(T, T, "same", "same")
    ordinary = [i for i in range(len(T)) if i not in T.all_special_ids]
    assert link.target_ids.tolist() == link.draft_ids.tolist() == ordinary
    assert link.context(t_ids("ab", "Ġa", USER, "Ã")) == t_ids("ab", "Ġa", USER, "Ã")    # a special maps by name


def test_the_real_pair_shares_its_common_pieces_and_maps_its_specials():
    """SmolLM2 (49,152 tokens) and the stdlib family (4,096), both byte-level BPE: a piece the two
    spell alike stands for the same bytes, so each stdlib piece of a snippet that SmolLM2 also
    holds is in the intersection; <|endoftext|> maps by name, the chat markers are dropped."""
    from specdec.models.load import load_tokenizer
    smol, stdlib = load_tokenizer("smollm2/target"), load_tokenizer("stdlib/target")
    link = bridge(smol, stdlib, "smollm2/target", "stdlib/target")
    pairs = set(zip(link.target_ids.tolist(), link.draft_ids.tolist()))
    pieces = stdlib.tokenize("def add(a, b):\n    return a + b  # é\n")
    common = [(smol.convert_tokens_to_ids(p), stdlib.convert_tokens_to_ids(p)) for p in pieces if p in smol.get_vocab()]
    assert len(common) >= 8 and set(common) <= pairs
    names = {smol.convert_ids_to_tokens(t): m for t, m in link.specials.items()}
    assert names["<|endoftext|>"] == stdlib.convert_tokens_to_ids("<|endoftext|>") and names["<|im_start|>"] is None
    assert 0 not in link.encode(b"say <|endoftext|> here")      # typed control text stays text


# --- the draft's context: re-tokenisation pitfalls ---------------------------------------------

def test_a_draft_token_merging_across_target_tokens_is_re_read():
    """'ab' + 'c' for the target is 'a' + 'bc' for the draft: the last draft token changes."""
    assert LINK.context(t_ids("ab")) == d_ids("a", "b")
    assert LINK.context(t_ids("ab", "c")) == d_ids("a", "bc")
    assert LINK.context(t_ids("(", ")")) == d_ids("()")          # two target tokens, one draft token


def test_spaces_and_newlines_meet_across_spellings():
    assert LINK.context(t_ids("Ġa", "Ċ", "Ġ", "b")) == d_ids("▁a", "<0x0A>", "▁", "b")


def test_half_characters_become_byte_fallback_tokens():
    """Work in bytes, not str: the target may stop half-way through 'é' (its byte 0xC3)."""
    assert LINK.context(t_ids("Ã")) == d_ids("<0xC3>")
    assert LINK.context(t_ids("Ã", "©")) == d_ids("é")                # completed: one piece again
    assert LINK.context(t_ids("©")) == d_ids("<0xA9>")                # a stray continuation byte
    assert LINK.context(t_ids("Ã", "a")) == d_ids("<0xC3>", "a")     # not UTF-8: kept as a byte


def test_special_tokens_never_cross_over():
    """A target special maps to the draft's of the same name or is dropped, and text never merges
    across it ('b' <|user|> 'c' is not the draft's 'bc')."""
    assert LINK.context(t_ids("b", USER, "c", EOT)) == d_ids("b", "c", EOT)


def test_the_drafts_cache_after_rollbacks_equals_a_fresh_read(cross):
    """The cache kept to the longest common prefix of the draft ids (cropped, then fed the rest)
    gives the logits a fresh read of the whole re-tokenised sequence gives."""
    drafter = CrossVocabDrafter(cross.draft, LINK, cross.vocab_size)
    for seq in (t_ids("ab"), t_ids("ab", "c"), t_ids("ab", "c", "Ã"), t_ids("ab", "c", "Ã", "©", "(", ")"),
                t_ids("ab", "Ġa")):
        row = drafter.sync(LINK.context(seq), len(seq))
        fresh = cross.draft(torch.tensor([LINK.context(seq)])).logits[0, -1]
        assert drafter.fed == LINK.context(seq) and drafter.cache.get_seq_length() == len(drafter.fed)
        torch.testing.assert_close(row[0], fresh, rtol=1e-4, atol=1e-5)


def test_q_lives_on_the_intersection_even_when_the_draft_prefers_other_tokens(cross):
    """A draft that puts almost all its mass on its own merge 'bc' and its <eot> (no target token
    stands for 'bc'; specials never cross) still proposes only intersection tokens, q summing to 1."""
    rigged = copy.deepcopy(cross.draft)
    rigged.get_output_embeddings().weight.data[d_ids("bc", EOT)] *= 50
    drafter = CrossVocabDrafter(rigged, LINK, cross.vocab_size)
    generator = torch.Generator().manual_seed(0)
    for sampling in (Sampling(temperature=0), Sampling(temperature=1.0), Sampling(temperature=1.0, top_p=0.5)):
        prop = drafter.propose(t_ids("a", "b"), 3, sampling, generator, make_policy("constant", 3, 0.3))
        outside = torch.ones(cross.vocab_size, dtype=torch.bool)
        outside[LINK.target_ids] = False
        assert set(prop.tokens) <= set(LINK.target_ids.tolist()) and len(prop.tokens) == 3
        assert float(prop.probs[:, outside].abs().sum()) == 0.0
        torch.testing.assert_close(prop.probs.sum(-1), torch.ones(3))


def test_no_shared_token_is_a_clear_error():
    with pytest.raises(specdec.InputError, match="share no token"):
        bridge(char_tokenizer("abc"), char_tokenizer("xyz"))
    tok, other = char_tokenizer(), char_tokenizer("xyz")
    pair = specdec.make_pair(tiny_llama(len(tok), 1, 0), tiny_llama(len(other), 1, 1), tok, draft_tokenizer=other)
    with pytest.raises(specdec.InputError, match="share no token"):
        specdec.generate(pair, "abc", drafter="cross-vocab", max_new_tokens=2)


def test_wordpiece_cannot_say_its_bytes():
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast
    pieces = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2},
                                                                                  unk_token="[UNK]")))
    with pytest.raises(specdec.InputError, match="WordPiece"):
        spelling(pieces)


def test_a_full_draft_window_drafts_nothing_and_the_output_is_the_targets(cross):
    """A draft reads at most its context window (8 positions here) of its own tokens: a round
    drafts no more than the room left, then nothing, and the output stays the target's."""
    short = tiny_llama(len(D), 1, seed=2, context=8)
    pair = specdec.make_pair(cross.target, short, T, draft_tokenizer=D)
    run = specdec.generate(pair, "ab c", k=3, temperature=0, max_new_tokens=10, drafter="cross-vocab")
    seq = list(run.prompt_ids) + list(run.token_ids)
    rooms = [8 - len(LINK.context(seq[:r.prefix_len])) for r in run.rounds]
    assert rooms[0] == 4 and len(run.rounds[0].positions) == 3            # 'a b ▁ c': room for 3 drafts
    assert all(len(r.positions) <= max(0, room) for r, room in zip(run.rounds, rooms))
    assert any(r.draft_limit > 0 and not r.positions for r in run.rounds)  # full: nothing drafted
    assert run.token_ids == specdec.autoregressive(pair, "ab c", temperature=0, max_new_tokens=10).token_ids


# --- exactness ---------------------------------------------------------------------------------

PROMPTS = ["".join(random.Random(i).choice(TEXT_CHARS) for _ in range(2 + i % 6)) for i in range(20)]


@pytest.mark.parametrize("k", [2, 4])
def test_greedy_output_is_the_targets_own(cross, k):
    accepted = 0
    for prompt in PROMPTS:
        spec = specdec.generate(cross, prompt, k=k, temperature=0, max_new_tokens=12, drafter="cross-vocab")
        base = specdec.autoregressive(cross, prompt, temperature=0, max_new_tokens=12)
        assert spec.token_ids == base.token_ids, prompt
        accepted += sum(r.n_accepted for r in spec.rounds)
    assert accepted > 20            # the drafts were accepted, rolled back and re-read, not only rejected


@pytest.mark.parametrize("which, settings", [("mirrored", dict(temperature=1.0)),
                                             ("random", dict(temperature=0.8, top_p=0.8))])
def test_the_first_two_tokens_follow_the_target(cross, random_cross, which, settings):
    pair = cross if which == "mirrored" else random_cross
    settings = specdec.Settings(k=3, max_new_tokens=4, drafter="cross-vocab", **settings)
    prompt = "a(b é"
    law = exact_two_token_law(pair, prompt, settings.sampling)
    samples = [tuple(specdec.generate(pair, prompt, settings, seed=s).token_ids[:2]) for s in range(RUNS)]
    assert chi2_pvalue(samples, law) > 1e-3


def test_rounds_record_q_on_the_targets_ids(cross):
    run = specdec.generate(cross, "ab(", k=3, temperature=1.0, seed=1, max_new_tokens=16, drafter="cross-vocab")
    shared = set(LINK.target_ids.tolist())
    positions = [pos for r in run.rounds for pos in r.positions]
    assert positions and any(pos.verdict == "accepted" for pos in positions)
    for pos in positions:
        assert pos.token in shared and pos.q == pytest.approx(pos.draft.prob(pos.token))
        assert all(pos.draft.probs[i] == 0.0 for i in range(cross.vocab_size) if i not in shared)
        assert sum(pos.draft.probs) == pytest.approx(1.0, abs=1e-5)


# --- the bench ---------------------------------------------------------------------------------

def test_the_bench_runs_the_cross_vocabulary_rows_and_transformers_counterpart(cross):
    """`python -m specdec bench --drafter cross-vocab`: the engine's rows draft across
    vocabularies, transformers' assisted rows run its universal assisted generation on a copy of
    the draft (it prunes its assistant's head at T > 0), a tree row drafts n-gram matches, and
    greedy outputs agree across rows."""
    from specdec.bench.runner import bench
    from specdec.cli.terminal import table
    before = [p.clone() for p in cross.draft.parameters()]
    result = bench(cross, ["ab", "(a é"], [2], [0.0, 1.0], 6, 1, trees=(4,),
                   drafting=specdec.Settings(drafter="cross-vocab"))
    assert result.drafter == "cross-vocab" and result.settings[0].identical is True
    assert any(r.row.startswith("engine tree") for r in result.settings[0].rows)      # n-gram matches: no tree bridges
    assert "assistant_tokenizer" in table(result)
    spec = next(r for r in result.settings[1].rows if r.row == "engine speculative")
    assert spec.acceptance_rate is not None and spec.acceptance_rate > 0
    assert all(torch.equal(a, b) for a, b in zip(before, cross.draft.parameters()))   # the engine's draft untouched


def test_the_draft_size_sweep_drafts_another_tokenizer_across_vocabularies(cross):
    """A draft of another tokenizer is a draft size like any other: the sweep measures it with
    the cross-vocabulary drafter (the plain draft-model drafter would refuse it)."""
    from specdec.bench.sweeps import draft_tradeoff
    pairs = {"tiny-pieces": cross, None: specdec.make_pair(cross.target, None, T, "tiny-bytes", None),
             "tiny-bytes": specdec.make_pair(cross.target, copy.deepcopy(cross.target), T, "tiny-bytes", "tiny-bytes")}
    sweep = draft_tradeoff(lambda target, draft: pairs[draft], "tiny-bytes", ["tiny-pieces", "tiny-bytes"], ["ab"],
                           specdec.Settings(k=2, temperature=0.0, max_new_tokens=4), lambda *_: None, repeats=1)
    drafted = {p.draft: p.drafter for p in sweep.points if p.params}
    assert drafted == {"tiny-pieces": "cross-vocab", "tiny-bytes": "model"}


def test_the_draft_size_lesson_sizes_gemma_with_other_families_drafts():
    """Gemma 3 has no draft of its own: the draft-size lesson drafts for it with SmolLM2-135M and
    a stdlib draft (both of other tokenizers); a family with drafts keeps exactly its own."""
    from specdec.models.names import family_drafts, sized_drafts
    assert sized_drafts("gemma3/target") == ["smollm2/target", "stdlib/draft-4l"]
    assert sized_drafts("smollm2/target") == family_drafts("smollm2/target") == ["smollm2/draft", "smollm2/draft-2l"]
