"""One word per concept (issue 51, deliverable 6): in Korean each concept has one chosen word, a round one
numbering and a multiple one unit; in English the baseline has one name."""
from catalogs import in_korean, marked_texts


def test_one_korean_word_per_concept(korean):
    """ui/glossary.KOREAN_TERMS: the chosen word is in use, no rejected variant is in any
    translation or in the glossary's Korean column."""
    from ui.home_glossary import KOREAN_TERMS, TERMS
    texts = [m.string for m in korean if m.id and m.string] + [ko for _en, ko, _m in TERMS]
    for concept, (chosen, rejected) in KOREAN_TERMS.items():
        assert any(chosen in t for t in texts), concept
        found = sorted({v for t in texts for v in rejected if v in t})
        assert not found, (concept, chosen, found, [t[:80] for t in texts if any(v in t for v in found)])


def test_the_baseline_has_one_english_name():
    """Review 56: "target alone", "plain decoding" and "autoregressive" named one baseline. Every text a page
    shows calls it the target alone; the bench's data names keep theirs and are shown by it."""
    import re

    from ui.lessons.bench_words import SHOWN_AS, bench_row
    other = re.compile(r"autoregressiv|plain (decoding|way|run|pass|loop)|decoding plainly|× plain", re.I)
    found = sorted(t for t in marked_texts() if other.search(t) and t not in SHOWN_AS)
    assert not found, found
    assert bench_row("engine autoregressive") == "engine, target alone"


def test_korean_numbers_a_round_one_way(korean):
    """Review 57: "1라운드 전" beside "라운드 2": a round is "라운드 n" (and n rounds "라운드 n개") everywhere."""
    import re
    mixed = [m.string for m in korean if m.id and m.string and re.search(r"[0-9}]라운드", m.string)]
    assert not mixed, mixed[:3]


def test_korean_writes_a_speedup_with_one_unit(korean):
    """A multiple is "1.23배" in Korean, never "1.23×" (× stays only as multiplication, between
    spaces: "프롬프트 {n}개 × {t} 토큰"); figures formatted in code go through `times`."""
    import re

    from specdec.wording import times
    mixed = [m.string for m in korean if m.id and m.string and re.search(r"[0-9}*]×|×[)\"]?$", m.string)]
    assert not mixed, mixed[:3]
    assert in_korean(korean, times, 2.154) == "2.15배" and times(2.154) == "2.15×" and times(None) == "—"
