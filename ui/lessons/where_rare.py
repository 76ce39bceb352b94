"""Rare tokens in words (Where it works): what the bands of specdec/bench/rarity.py say, computed from them."""
from __future__ import annotations

from specdec.bench.rarity import OUTSIDE, Rarity
from specdec.wording import _


def caption(r: Rarity) -> str | None:
    """One sentence: the draft's share of the most written tokens, of the rarest it keeps, and of those outside its
    vocabulary (None where the runs tried too few tokens to say)."""
    inside = [b for b in r.bands if b.label != OUTSIDE and b.tokens]
    if len(inside) < 2:
        return None
    common, rare = inside[0], inside[-1]
    values = dict(common=common.rate, common_band=_(common.label), rare=rare.rate, rare_band=_(rare.label))
    out = next((b for b in r.bands if b.label == OUTSIDE and b.tokens), None)
    if out is None or r.kept is None:
        return _("Where the draft tried, it guessed {common:.0%} of the tokens {common_band} and {rare:.0%} of those "
                 "{rare_band}.").format(**values)
    said = _("Where the draft tried, it guessed {common:.0%} of the tokens {common_band} and {rare:.0%} of those "
             "{rare_band}; of the {n} tokens outside its vocabulary ({kept:,} of the target's {vocab:,}) it guessed "
             "none: q = 0 there, so only the residual can write them.") if out.hits == 0 else _(
        "Where the draft tried, it guessed {common:.0%} of the tokens {common_band} and {rare:.0%} of those "
        "{rare_band}; of the {n} tokens outside its vocabulary ({kept:,} of the target's {vocab:,}) it guessed {hits}.")
    return said.format(n=out.tokens, kept=r.kept, vocab=r.vocab, hits=out.hits, **values)
