"""The generated text as a token strip (pure HTML builder, testable without a browser).

Prompt tokens muted; accepted drafts green; the rejected draft struck through in red
where it fell, followed by the drafts after it (discarded, dashed); the correction
orange; the bonus blue. Hovering a token shows its p, q and u.
"""
from __future__ import annotations

import html
from dataclasses import asdict
from typing import Callable, Sequence

from specdec.trace.run import Round
from ui.figures.rounds import COLORS, prob
from ui.i18n import N_, _

KINDS = (N_("correction"), N_("bonus"), N_("target"))   # final-token kinds, shown through _()

CSS = """<style>
.strip{font-family:ui-monospace,Menlo,monospace;font-size:15px;line-height:2.1;white-space:pre-wrap}
.strip span.t{padding:2px 1px;margin:0 1px;border-radius:4px}
.strip .prompt{color:%(prompt)s}
.strip .accepted{background:#dcfce7;color:#14532d;border-bottom:2px solid %(accepted)s}
.strip .rejected{background:#fee2e2;color:%(rejected)s;text-decoration:line-through}
.strip .discarded{color:%(discarded)s;border:1px dashed %(discarded)s;text-decoration:line-through}
.strip .correction{background:#ffedd5;color:#7c2d12;border-bottom:2px solid %(correction)s}
.strip .bonus{background:#dbeafe;color:#1e3a8a;border-bottom:2px solid %(bonus)s}
.strip .target{background:#f1f5f9;color:#0f172a;border-bottom:2px solid %(target)s}
.strip .sel{outline:2px solid #7c3aed}      /* seen on light and dark themes */
</style>""" % asdict(COLORS)


def _span(text: str, kind: str, tip: str, selected: bool, token: int | None = None) -> str:
    """Only kept tokens break the line; a rejected or discarded newline shows as ↵ in place.
    Every string is escaped (replayed files are untrusted); `data-id` carries the token id."""
    kept = kind not in ("rejected", "discarded")
    shown = html.escape(text).replace("\n", "↵\n" if kept else "↵") or "∅"
    cls = html.escape(f"t {kind}" + (" sel" if selected else ""))
    data = "" if token is None else f' data-id="{int(token)}"'
    return f'<span class="{cls}"{data} title="{html.escape(tip)}">{shown}</span>'


FINAL = 0          # the key of a round's final token in `drawn_texts` (drafts are 1…k)


def drawn_texts(rounds: Sequence[Round], decode: Callable[[list[int]], str]) -> dict[tuple[int, int], str]:
    """(round index, draft position or FINAL) -> its text as the strip draws it: the kept tokens written as one text,
    the drafts a round threw away as another, so a character split over tokens shows on the token that completes it
    (review 46's emoji prompt: "Ben���G" in the strip)."""
    kept, thrown = [], []
    for r in rounds:
        shown = min(r.n_accepted, len(r.emitted))
        kept += [((r.index, p.i), p.token) for p in r.positions if p.verdict == "accepted" and p.i <= shown]
        if len(r.emitted) > r.n_accepted:
            kept.append(((r.index, FINAL), r.final.token))
        thrown.append([((r.index, p.i), p.token) for p in r.positions if p.verdict != "accepted"])
    out = {}
    for seq in [kept, *thrown]:
        out.update(zip((key for key, _t in seq), prompt_texts([t for _k, t in seq], str, decode)))
    return out


def _round_spans(rnd: Round, selected: bool, fold: bool = False,
                 texts: dict[tuple[int, int], str] | None = None) -> list[str]:
    texts = texts or {}
    spans = []
    shown_accepted = min(rnd.n_accepted, len(rnd.emitted))     # EOS may cut the round
    for pos in rnd.positions:
        u = "—" if pos.u is None else f"{pos.u:.3f}"
        tip = _("round {n}, draft {i}: q={q} p={p} u={u} → {verdict}").format(
            n=rnd.index + 1, i=pos.i, q=prob(pos.q), p=prob(pos.p), u=u, verdict=_(pos.verdict))
        if fold and pos.verdict != "accepted":
            continue
        if pos.verdict != "accepted" or pos.i <= shown_accepted:
            spans.append(_span(texts.get((rnd.index, pos.i), pos.text), pos.verdict, tip, selected, pos.token))
    if len(rnd.emitted) > rnd.n_accepted:
        f = rnd.final
        tip = _("round {n}, {kind} token: p={p}").format(n=rnd.index + 1, kind=_(f.kind), p=prob(f.p))
        spans.append(_span(texts.get((rnd.index, FINAL), f.text), f.kind, tip, selected, f.token))
    return spans


def strip_html(prompt_texts: Sequence[str], rounds: Sequence[Round], selected: int | None,
               fold: bool = False, decode: Callable[[list[int]], str] | None = None) -> str:
    """fold: leave out rejected and discarded drafts (only what was emitted remains); `decode` (ids -> text): a
    character split over tokens drawn whole (`drawn_texts`; None: each token's own text)."""
    parts = [_span(t, "prompt", "prompt", False) for t in prompt_texts]
    texts = drawn_texts(rounds, decode) if decode is not None else None
    for rnd in rounds:
        parts += _round_spans(rnd, rnd.index == selected, fold, texts)
    return CSS + '<div class="strip">' + "".join(parts) + "</div>"


def legend_html() -> str:
    items = [("accepted", _("accepted draft")), ("rejected", _("rejected draft")),
             ("discarded", _("discarded (after a rejection)")),
             ("correction", _("correction (residual)")), ("bonus", _("bonus (pₖ₊₁)")),
             ("target", _("target token (no draft)")), ("prompt", _("prompt"))]
    return CSS + '<div class="strip">' + " ".join(
        _span(label, kind, label, False) for kind, label in items) + "</div>"


PART = "…"         # a token that holds only part of a character's bytes


def prompt_texts(ids: Sequence[int], label: Callable[[int], str],
                 decode: Callable[[list[int]], str] | None = None) -> list[str]:
    """Each prompt token's text; with `decode` (ids -> text), a token that ends inside a character (an emoji's
    bytes split over tokens) shows as … and the token that completes it shows the whole character (review 45:
    "ꙮꙮꙮ 🤖🤖" showed as "���")."""
    if decode is None:
        return [label(t) for t in ids]
    out, start = [], 0
    for i in range(len(ids)):
        text = decode(list(ids[start:i + 1]))
        if text.endswith("\ufffd") and i + 1 < len(ids) and i - start < 3:      # a character spans 4 bytes at most
            out.append(PART)
            continue
        out.append(text)
        start = i + 1
    return out


def prob_strip_html(prompt_texts: Sequence[str], rounds: Sequence[Round]) -> str:
    """Generated tokens shaded by the target's probability of that token; underlined green when
    the token came from an accepted draft, in the final token's colour otherwise."""
    parts = [_span(t, "prompt", "prompt", False) for t in prompt_texts]
    for rnd in rounds:
        shown = min(rnd.n_accepted, len(rnd.emitted))
        items = [(p.text, p.p, "accepted") for p in rnd.positions[:shown]]
        if len(rnd.emitted) > rnd.n_accepted:
            items.append((rnd.final.text, rnd.final.p, rnd.final.kind))
        for text, p, kind in items:
            shade = f"rgba(71,85,105,{0.08 + 0.6 * p:.2f})"
            tip = _("target p = {p} · {kind}").format(
                p=prob(p), kind=_("accepted draft") if kind == "accepted" else _(kind))
            shown_text = html.escape(text).replace("\n", "↵\n") or "∅"
            parts.append(f'<span class="t" style="background:{shade};border-bottom:3px solid '
                         f'{COLORS.of(kind, COLORS.target)}" title="{html.escape(tip)}">'
                         f'{shown_text}</span>')
    return CSS + '<div class="strip">' + "".join(parts) + "</div>"


def output_html(rounds: Sequence[Round], label: Callable[[int], str],
                decode: Callable[[list[int]], str] | None = None) -> str:
    """The generated text so far: emitted tokens only, escaped, in one box; with `decode` (ids -> text, special
    tokens left out) as the tokenizer writes it whole (review 45: "… 3<|im_end|>", a character's bytes split)."""
    ids = [t for rnd in rounds for t in rnd.emitted]
    return text_html(whole(decode(ids)) if decode is not None else "".join(map(label, ids)))


def whole(text: str) -> str:
    """Decoded text less a last character whose bytes the token limit (or the run so far) cut (review 46: an emoji
    race ended in "�")."""
    return text.rstrip("\ufffd")


def text_html(text: str) -> str:
    """Plain text in the strip's font, escaped, in one box; text that is only whitespace shows
    its line breaks as ↵ (the box would look empty)."""
    shown = html.escape(text) if text.strip() else text.replace("\n", "↵\n")
    return (CSS + '<div class="strip" style="border:1px solid #e5e7eb;border-radius:6px;'
            f'padding:6px 10px">{shown or "∅"}</div>')
