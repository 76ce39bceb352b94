"""Step 5 in words: why each KV cache grew and shrank in a round, and why the two differ.

Every sentence is computed from the round's `Caches` record; `kind` says what the drafter
keeps: "own" (a draft model or early exit: a KV cache over the text), "features" (a feature
draft: pairs of the target's verified feature and the next token), "none" (no cache), or
"unknown" (a file from before the prefill was recorded, which does not say).
"""
from __future__ import annotations

from specdec.trace.run import Prefill, Round
from ui.i18n import _


def kind_of(rounds, prefill: Prefill | None, reads_features: bool | None = None) -> str:
    if reads_features:
        return "features"
    if all(not (r.caches.draft_before or r.caches.draft_peak or r.caches.draft_after) for r in rounds):
        return "none"
    if reads_features is None and prefill is None:
        return "unknown"
    return "features" if prefill is not None and prefill.features else "own"


def target_lines(rnd: Round) -> list[str]:
    c = rnd.caches
    pending = rnd.prefix_len - c.target_before
    return [
        _("Target {before} → {peak}: the verification pass added {fed} rows, {pending} token(s) not in "
          "the cache yet (the previous round's final token, or the prompt's last token in round 1) "
          "and {drafted} draft(s).").format(before=c.target_before, peak=c.target_peak,
                                            fed=c.target_peak - c.target_before, pending=pending,
                                            drafted=rnd.drafted),
        _("It kept {after}: the {prefix} tokens before this round and {acc} accepted draft(s); "
          "{cropped} row(s) of rejected, discarded or untried drafts were cropped.").format(
            after=c.target_after, prefix=rnd.prefix_len, acc=rnd.n_accepted, cropped=c.target_cropped)]


def draft_lines(rnd: Round, kind: str) -> list[str]:
    c = rnd.caches
    if kind == "none":
        return [_("The drafter keeps no KV cache: an n-gram lookup reads the text itself, and the "
                  "target alone drafts nothing.")]
    if kind == "features":
        return _feature_lines(rnd)
    if kind == "own":
        return _own_lines(rnd)
    return [_("Draft {before} → {peak} → kept {after}, cropped {cropped} (this file does not say what "
              "kind of cache the drafter keeps).").format(before=c.draft_before, peak=c.draft_peak,
                                                          after=c.draft_after, cropped=c.draft_cropped)]


def _own_lines(rnd: Round) -> list[str]:
    c = rnd.caches
    unseen, fed = rnd.prefix_len - c.draft_before, max(0, c.draft_peak - rnd.prefix_len)
    lines = [_("Draft {before} → {peak}: it read the {unseen} token(s) it had not seen and {fed} of its "
               "own drafts; the last draft is never fed, since nothing is drafted after it (a tree "
               "drafter feeds each node's path and crops it again at once).").format(
                   before=c.draft_before, peak=c.draft_peak, unseen=unseen, fed=fed),
             _("It kept {after} and cropped {cropped}.").format(after=c.draft_after, cropped=c.draft_cropped)]
    lag = c.target_after - c.draft_after
    if lag <= 0:
        lines.append(_("Same length as the target's cache."))
    elif not rnd.drafted:
        lines.append(_("{lag} behind the target: it drafted nothing this round, so it read nothing; it "
                       "catches up before it drafts next.").format(lag=lag))
    else:
        lines.append(_("{lag} behind the target: the last accepted draft was never fed to the draft "
                       "model; it reads it next round, before the final token.").format(lag=lag))
    return lines


def _feature_lines(rnd: Round) -> list[str]:
    c = rnd.caches
    return [_("The feature draft's cache holds pairs (the target's feature at a position, the next "
              "token); a position's feature exists only once the target has verified it."),
            _("Draft {before} → {peak}: {real} pair(s) from features the target verified before this "
              "round, then {guesses} pair(s) built from its own guesses while drafting; it kept the "
              "{after} real pairs and cropped the guesses.").format(
                before=c.draft_before, peak=c.draft_peak, real=c.draft_after - c.draft_before,
                guesses=c.draft_cropped, after=c.draft_after),
            _("{lag} behind the target's {target}: positions the target has verified whose features it "
              "has not read yet; it reads them before it drafts next.").format(
                lag=c.target_after - c.draft_after, target=c.target_after)]


def rollback_words(rnd: Round, kind: str) -> str:
    """Step 5's sentence: what the target's cache kept and dropped, and where a feature draft dropped its guessed
    entries in a round that kept every draft, why (review 55: red "cropped" cells there read as a rejection)."""
    c = rnd.caches
    said = _("Each cache is cropped back to the text the round kept: the target's holds {after} "
             "positions and dropped {cropped}.").format(after=c.target_after, cropped=c.target_cropped)
    if kind == "features" and c.draft_cropped and rnd.drafted and rnd.n_accepted == rnd.drafted:
        said += " " + _("The draft's dropped its {n} guessed entries although every draft was kept: it built them "
                        "from its own guesses, not the target's features, and reads those positions again next "
                        "round.").format(n=c.draft_cropped)
    return said


def final_line(rnd: Round) -> str:
    return _("The final token is in neither cache yet: the next round feeds it first.")
