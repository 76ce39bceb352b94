"""Korean particles after a figure agree with how the figure is read (review 29: "k = 1를", "T = 0로")."""
import pytest

from ui.korean import Text, agreed, ending


@pytest.mark.parametrize("template, values, shown", [
    ("k = {k}를 고릅니다", {"k": 1}, "k = 1을 고릅니다"),          # 일: a final ㄹ
    ("k = {k}을 고릅니다", {"k": 2}, "k = 2를 고릅니다"),          # 이: a vowel
    ("고정된 k = {k}가 낫습니다", {"k": 1}, "고정된 k = 1이 낫습니다"),
    ("T = {t:g}로 잰 값", {"t": 0}, "T = 0으로 잰 값"),           # 영: a final consonant
    ("T = {t:g}으로 잰 값", {"t": 0.7}, "T = 0.7로 잰 값"),        # 칠: ㄹ takes 로
    ("{x}을 넘습니다", {"x": "1.23배"}, "1.23배를 넘습니다"),      # a Hangul syllable by its final sound
    ("**{x}**을", {"x": "16%"}, "**16%**를"),                     # Markdown is not read; % is 퍼센트
    ("{a}와 {b}", {"a": "3", "b": "2"}, "3과 2"),
    ("{n}이상", {"n": 3}, "3이상"),                                # 이상 is a word, not a particle: untouched
    ("{name}을 봅니다", {"name": "draft"}, "draft을 봅니다"),     # a Latin letter: left as written
    ("{}을 {}", (5, "끝"), "5를 끝"),                                # auto-numbered fields
    ("α̂ = {a:.2f}로부터", {"a": 0.5}, "α̂ = 0.50으로부터"),       # review 32: 로부터 after 영
    ("α̂ = {a:.2f}으로부터", {"a": 0.51}, "α̂ = 0.51로부터"),
])
def test_a_particle_after_a_placeholder_agrees_with_the_figure(template, values, shown):
    text = Text(template)
    assert (text.format(*values) if isinstance(values, tuple) else text.format(**values)) == shown


def test_endings_and_a_particle_that_starts_nothing():
    assert [ending(x) for x in ("1", "2", "3", "배", "일", "값", "k", "")] == ["l", "v", "c", "v", "l", "c", None, None]
    assert agreed("3", " 개") == " 개" and agreed("3", "") == ""


def test_the_apps_korean_texts_agree_and_english_ones_are_plain(monkeypatch):
    from ui import i18n
    monkeypatch.setattr(i18n, "current", lambda: "ko")
    korean = i18n._("k = {k}")
    assert isinstance(korean, Text)
    monkeypatch.setattr(i18n, "current", lambda: "en")
    assert type(i18n._("k = {k}")) is str


# the lab's nouns: a particle after one agrees with its last sound (review 52: 스텝는)
NOUNS = ("토큰", "모델", "초안", "타깃", "스텝", "비용", "행", "실행", "측정", "프롬프트", "패스", "라운드", "캐시",
         "배치", "값", "분포", "확률")


def test_a_particle_after_the_labs_nouns_agrees_with_their_last_sound():
    import re

    from ui.i18n import catalog

    def right(noun: str, particle: str) -> bool:
        final = (ord(noun[-1]) - 0xAC00) % 28            # 0: a vowel, 8: ㄹ, else another final consonant
        vowel, rieul = ("는", "가", "를", "와", "로"), ("은", "이", "을", "과", "로")
        other = ("은", "이", "을", "과", "으로")
        return particle in (vowel if final == 0 else rieul if final == 8 else other)
    texts = [t for t in catalog("ko")._catalog.values() if isinstance(t, str)]
    wrong = [m.group(0) for t in texts for n in NOUNS
             for m in re.finditer(re.escape(n) + r"(는|은|가|이|를|을|와|과|으로|로)(?=[\s,.):;\]”])", t)
             if not right(n, m.group(1))]
    assert not wrong, wrong
    assert right("스텝", "은") and not right("스텝", "는") and right("모델", "로") and not right("토큰", "로")
