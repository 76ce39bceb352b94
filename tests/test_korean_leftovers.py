"""Issue 51's Korean leftovers: the title and every text say 추측 디코딩 and 실험실, the page name fits
the sidebar, and a bench row's settings join its own brackets instead of stacking a second pair."""
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
                    "점점이", "실습실"):
        assert not [t for t in texts if english in t], english


def test_a_rows_settings_go_inside_its_own_brackets():
    assert named_at("엔진 추측 디코딩 (라이브러리 기본값)", 0.0, 2) == \
        "엔진 추측 디코딩 (라이브러리 기본값, T = 0, k = 2)"
    assert named_at("engine speculative", 0.7, 4) == "engine speculative (T = 0.7, k = 4)"
