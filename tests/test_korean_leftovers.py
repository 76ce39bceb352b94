"""Issue 51's Korean leftovers: the title and every text say 추측 디코딩 and 실험실, the page name fits
the sidebar, and a bench row's settings join its own brackets instead of stacking a second pair."""
import re

from ui.i18n import catalog
from ui.lessons.bench_words import named_at


def korean(text: str) -> str:
    return catalog("ko").gettext(text)


def test_the_title_and_the_page_name_are_korean_and_short():
    assert korean("Speculative Decoding Lab") == "추측 디코딩 실험실"
    name = korean("You are the drafter")
    assert name != "You are the drafter" and len(name) <= 6          # the sidebar shows about 20 columns


def test_no_english_term_is_left_in_a_korean_text():
    texts = [m for m in catalog("ko")._catalog.values() if isinstance(m, str)]
    for english in ("Speculative decoding", "Speculative Decoding", "typical acceptance", "assisted generation",
                    "점점이", "실습실",
                    "순전파", "받아들",           # one word a concept: 패스 (a pass), 수용 (accept; review 50),
                    "벽시계", "실제 시간", "훑기"):  # 실제 경과 시간 (wall clock), 스윕 (a sweep; review 53)
        assert not [t for t in texts if english in t], english


def test_a_rows_settings_go_inside_its_own_brackets():
    assert named_at("엔진 추측 디코딩 (라이브러리 기본값)", 0.0, 2) == \
        "엔진 추측 디코딩 (라이브러리 기본값, T = 0, k = 2)"
    assert named_at("engine speculative", 0.7, 4) == "engine speculative (T = 0.7, k = 4)"


def unclosed_bold(text: str) -> list[str]:
    """Where a `**` would show as two stars: CommonMark opens bold only at a left-flanking `**`
    and closes it only at a right-flanking one, and a punctuation mark or symbol beside it (×, %)
    counts against it: `**2.15×**에` never closes, `**2.15×**.` and `**2.15배**에` do. Placeholders
    read as the digit they become."""
    t = re.sub(r"\{[^{}]*\}", "1", text)
    bad = []
    for i, m in enumerate(re.finditer(r"\*{2,}", t)):
        before = t[m.start() - 1] if m.start() else " "
        after = t[m.end()] if m.end() < len(t) else " "
        near, far = (after, before) if i % 2 == 0 else (before, after)    # opening, closing
        if near.isspace() or (_punctuation(near) and not (far.isspace() or _punctuation(far))):
            bad.append(t[max(0, m.start() - 20):m.end() + 20])
    return bad


def _punctuation(ch: str) -> bool:
    return not ch.isalnum() and not ch.isspace()


def test_the_rule_finds_a_bold_that_cannot_close():
    assert unclosed_bold("k = 6에서 **2.15×**에 이릅니다") == ["k = 6에서 **2.15×**에 이릅니다"]
    assert unclosed_bold("k = {k}에서 **{best:.2f}배**에 이릅니다") == []
    assert unclosed_bold("reach **{best:.2f}×** at k = {k}.") == []
    assert unclosed_bold("a**(1)** b") != []                     # opening: a letter before, a bracket after


def test_every_bold_closes_in_both_languages():
    texts = [t for pair in catalog("ko")._catalog.items() for t in pair if isinstance(t, str)]
    assert sum("**" in t for t in texts) > 100                    # the catalog's English and Korean
    assert not [b for t in texts for b in unclosed_bold(t)]


def test_a_drafters_name_in_the_same_settings_elsewhere_lines_is_korean(monkeypatch):
    from types import SimpleNamespace

    from specdec import wording
    from specdec.records.provenance import Clock
    from ui.lessons import store, store_words
    here, there = (store.Key("t", None, "ngram", "fixed", 4, 0.0, prompts, Clock.WALL) for prompts in
                   (store.PromptSet("a", 10, True, 32, "drafters/all"), store.PromptSet("b", 8, True, 48, "speed")))
    filed = SimpleNamespace(figure=SimpleNamespace(speedup=0.87, acceptance_rate=0.12))
    monkeypatch.setattr(store, "elsewhere", lambda k, source: [(there, filed)])
    point = SimpleNamespace(drafter="n-gram lookup", speedup=0.92, acceptance_rate=0.11)
    wording.use(catalog("ko").gettext)
    try:
        text = store_words.elsewhere_caption([point], lambda p: here, "drafters", lambda p: p.drafter)
    finally:
        del wording._local.translate
    line = text.split("\n\n")[1]
    assert line.startswith("- " + korean("n-gram lookup") + ":") and "n-gram lookup" not in line


def test_where_it_works_names_its_length_and_position_groups_in_korean():
    """Session 29's review: "short prompt" and "tokens 1-16" were left in English on Korean pages."""
    from specdec import wording
    from specdec.bench.where import Group, summarize
    from ui.i18n import catalog
    from ui.lessons.where import group_rows
    groups = [Group(name, summarize([])) for name in ("short prompt", "long prompt", "tokens 1-16", "tokens 17+")]
    assert [r.group for r in group_rows(groups)] == ["short prompt", "long prompt", "tokens 1–16", "tokens 17 and on"]
    wording.use(catalog("ko").gettext)
    try:
        names = [r.group for r in group_rows(groups)]
    finally:
        del wording._local.translate
    assert names == ["짧은 프롬프트", "긴 프롬프트", "1–16번째 토큰", "17번째 토큰부터"]
