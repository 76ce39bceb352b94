"""Korean particles that agree with the figure before them, however the figure ends.

A Korean particle takes one form after a final consonant and another after a vowel (을/를, 이/가,
은/는, 과/와, 으로/로, which takes 로 after ㄹ too). A translation writes one form after a
placeholder, but the figure that fills it decides: "k = {k}를" reads "k = 1를" for k = 1 (일, a final
ㄹ: 을). `Text.format` fills the placeholders as str.format does, then sets each particle that starts
the text right after a placeholder to the form the filled figure's last character takes (a digit as
it is read, %, × and a Hangul syllable by their final sound); a particle after anything else (a
Latin letter, a bracket) is left as the translator wrote it (review 29).
"""
from __future__ import annotations

import string

# each pair: (after a final consonant, after a vowel)
PAIRS = (("을", "를"), ("이", "가"), ("은", "는"), ("과", "와"), ("으로부터", "로부터"), ("으로", "로"))
# how a digit is read: 영 일 이 삼 사 오 육 칠 팔 구 — c: a final consonant, l: a final ㄹ, v: a vowel
DIGITS = dict(zip("0123456789", "clvcvvcllv"))
SIGNS = {"%": "v", "×": "v"}          # 퍼센트, 배
SKIPPED = "*`_"                       # Markdown around a figure is not read
HANGUL = ("\uac00", "\ud7a3")


def ending(text: str) -> str | None:
    """How `text` ends when read aloud: "c", "l" or "v" (None: not known, e.g. a Latin letter)."""
    text = text.rstrip(SKIPPED)
    if not text:
        return None
    last = text[-1]
    if last in DIGITS:
        return DIGITS[last]
    if last in SIGNS:
        return SIGNS[last]
    if HANGUL[0] <= last <= HANGUL[1]:
        final = (ord(last) - ord(HANGUL[0])) % 28
        return "v" if final == 0 else "l" if final == 8 else "c"
    return None


def agreed(before: str, after: str) -> str:
    """`after` with the particle it starts with set to agree with `before`'s ending (unchanged where it
    starts with none, the particle runs into a longer word, or the ending is not known)."""
    sound = ending(before)
    if sound is None:
        return after
    marks = after[:len(after) - len(after.lstrip(SKIPPED))]          # Markdown closing the figure
    text = after[len(marks):]
    for consonant, vowel in PAIRS:
        for found in sorted((consonant, vowel), key=len, reverse=True):
            rest = text[len(found):]
            if text.startswith(found) and not (rest and HANGUL[0] <= rest[0] <= HANGUL[1]):
                if vowel.startswith("로"):
                    right = vowel if sound in "vl" else consonant
                else:
                    right = vowel if sound == "v" else consonant
                return marks + right + rest
    return after


class Text(str):
    """A Korean translation whose `format` makes the particles after its placeholders agree."""

    def format(self, *args, **kwargs) -> str:
        out, formatter, auto = "", string.Formatter(), 0
        for literal, field, spec, conversion in formatter.parse(self):
            out += agreed(out, literal) if out and literal else literal
            if field is not None:
                if field == "":                          # "{}": the next positional argument
                    field, auto = str(auto), auto + 1
                value, _key = formatter.get_field(field, args, kwargs)
                value = formatter.convert_field(value, conversion)
                out += formatter.format_field(value, formatter.vformat(spec, args, kwargs) if spec else "")
        return out
