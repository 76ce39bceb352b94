"""Too weak, right, too big (issue 40): the draft sizes of one family sorted into the three
roles from their measured points. The fastest draft model is "right". Every other one lost to
it; Theorem 3.8 with the measured α̂ and c says by what: its step cost (k·c + 1 against the
right one's) or its acceptance (expected tokens a round at its α̂ against the right one's).
Lost more to its cost: "too big"; more to its acceptance: "too weak"."""
from __future__ import annotations

from dataclasses import dataclass, replace

from specdec import defaults
from specdec.drafters.registry import DRAFTERS
from specdec.trace.theory import expected_tokens
from specdec.wording import N_, _
from ui.lessons import badges, store


@dataclass(frozen=True)
class Roles:
    too_weak: tuple = ()
    right: tuple = ()            # the fastest draft model (one)
    too_big: tuple = ()

    def count(self) -> int:
        return len(self.too_weak) + len(self.right) + len(self.too_big)


def lost_to_cost(point, right) -> bool:
    """Did the draft's step cost take more from it than its weaker acceptance did?"""
    k = point.k
    cost = (k * point.c + 1) / (k * right.c + 1)
    weakness = expected_tokens(right.alpha, k) / expected_tokens(point.alpha, k)
    return cost > weakness


def result_key(target: str, drafts: list[str], settings, texts: list[str], chat: bool, ran,
               exits: tuple[int, ...] = ()) -> dict:
    """The key of a draft-size trade-off's result (kept here or shipped) at `settings` (its length
    set) on the prompts `texts`: section 3's and the best-drafter answer's (ui/best_drafter_view.py)."""
    return store.measurement("tradeoff", (target, None), settings, texts, chat, ran, drafts=drafts,
                             repeats=defaults.REPEATS, **({"exits": list(exits)} if exits else {}))


def at_prices(here, points=()) -> list:
    """Shipped drafts priced here (specdec/bench/repriced.Repriced) as points carrying this
    machine's c and predicted speedup: the roles a learner's machine gives them; the draft models
    of `points` this machine has no price for (an early exit) keep their measured figures."""
    priced = {r.point.draft for r in here}
    return [replace(r.point, c=r.c, speedup=r.speedup) for r in here] + \
        [p for p in points if p.params > 0 and p.draft not in priced]


def whose(draft: str, priced_here: set | None, shipped_from: str | None) -> str:
    """After a draft's name in the roles' lines: under this machine's prices (`priced_here`: the
    drafts it priced), one it has no price for (an early exit) keeps the shipped figures, and its
    badge says whose ("" otherwise)."""
    if priced_here is None or draft in priced_here:
        return ""
    return " " + badges.shipped(shipped_from)


def roles(points) -> Roles:
    """The draft models (no n-gram lookup) in their roles."""
    models = [p for p in points if p.params > 0]
    if not models:
        return Roles()
    right = max(models, key=lambda p: p.speedup)
    others = [p for p in models if p is not right]
    return Roles(tuple(p for p in others if not lost_to_cost(p, right)), (right,),
                 tuple(p for p in others if lost_to_cost(p, right)))


def _one(point, name) -> str:
    text = _("{name} (acceptance rate {acc:.0%}, c = {c:.2f}, {speedup:.2f}×)").format(
        name=name(point.draft), acc=point.acceptance_rate, c=point.c, speedup=point.speedup)
    if point.c >= 1:
        text += " " + _("— one draft step costs more than a target step")
        if point.drafter and DRAFTERS[point.drafter].uses_exit_layer:
            text += " " + _("(its layers run through transformers' own forward, while the target's step is the lean "
                            "pass: one compiled call a layer)")
    return text


def _larger(point, right, name) -> str:
    """After a too-weak draft larger than the right one: its weakness is agreement, not size."""
    if point.params <= right.params or point.alpha is None or right.alpha is None:
        return ""
    return " " + _("— larger than {right}, yet it agrees less with the target (α̂ {a:.2f} against {b:.2f})").format(
        right=name(right.draft), a=point.alpha, b=right.alpha)


# a role is by what cost a draft its speed against the right one, not by its size (a larger draft
# that agrees less with the target is too weak)
WEAK = N_("(lost more to its acceptance than to its step cost)")
BIG = N_("(lost more to its step cost than to its acceptance)")


def roles_caption(points, name=lambda d: d) -> str | None:
    """One line per role; None when fewer than two draft models were measured."""
    found = roles(points)
    if found.count() < 2:
        return None
    right = _("Right") if found.right[0].speedup > 1 else _("Best of these sizes, yet slower than the target alone")
    best = found.right[0]
    weak = [_one(p, name) + _larger(p, best, name) for p in found.too_weak]
    lines = [f"**{word}**{why}: " + "; ".join(members)
             for word, why, members in ((_("Too weak"), " " + _(WEAK), weak), (right, "", [_one(best, name)]),
                                        (_("Too big"), " " + _(BIG), [_one(p, name) for p in found.too_big]))
             if members]
    if not found.too_big:
        lines.append(_("Every slower draft lost more to its acceptance than to its step cost: none is too big."))
    return "\n\n".join(lines)


def exits_note(points, cheap: int) -> str | None:
    """Where the sizes include early exits: which layers they are, beside the one Drafters compared runs (`cheap`
    layers), so two "early exit" figures read as two drafts (review 57: 0.37× there, 24–29 layers here); None
    without one."""
    layers = sorted({p.exit_layer for p in points if p.exit_layer and p.drafter
                     and DRAFTERS[p.drafter].uses_exit_layer})
    if not layers:
        return None
    return _("The early exits here are the target's own first {layers} layers: drafts nearly as big as the target, "
             "to show a draft too big to pay. Drafters compared's early exit runs its first {cheap}, a cheap "
             "draft.").format(layers=", ".join(map(str, layers)), cheap=cheap)
