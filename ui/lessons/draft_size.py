"""Too weak, right, too big (issue 40): the draft sizes of one family sorted into the three
roles from their measured rows. The fastest draft model is "right". Every other one lost to
it; Theorem 3.8 with the measured α̂ and c says by what: its step cost (k·c + 1 against the
right one's) or its acceptance (expected tokens a round at its α̂ against the right one's).
Lost more to its cost: "too big"; more to its acceptance: "too weak"."""
from __future__ import annotations

from specdec.trace.theory import expected_tokens
from specdec.wording import _


def lost_to_cost(row: dict, right: dict) -> bool:
    """Did the draft's step cost take more from it than its weaker acceptance did?"""
    k = row["k"]
    cost = (k * row["c"] + 1) / (k * right["c"] + 1)
    weakness = expected_tokens(right["alpha"], k) / expected_tokens(row["alpha"], k)
    return cost > weakness


def roles(rows: list[dict]) -> dict[str, list[dict]]:
    """{"too weak": [...], "right": [the fastest draft model], "too big": [...]} (no n-gram)."""
    models = [r for r in rows if r["params"] > 0]
    if not models:
        return {}
    right = max(models, key=lambda r: r["speedup"])
    others = [r for r in models if r is not right]
    return {"too weak": [r for r in others if not lost_to_cost(r, right)], "right": [right],
            "too big": [r for r in others if lost_to_cost(r, right)]}


def _one(row: dict, name) -> str:
    text = _("{name} (acceptance {acc:.0%}, c = {c:.2f}, {speedup:.2f}×)").format(
        name=name(row["draft"]), acc=row["acceptance_rate"], c=row["c"], speedup=row["speedup"])
    if row["c"] >= 1:
        text += " " + _("— one draft step costs more than a target step")
    return text


def roles_caption(rows: list[dict], name=lambda d: d) -> str | None:
    """One line per role; None when fewer than two draft models were measured."""
    found = roles(rows)
    if sum(map(len, found.values())) < 2:
        return None
    words = {"too weak": _("Too weak"), "right": _("Right"), "too big": _("Too big")}
    lines = [f"**{words[role]}**: " + "; ".join(_one(r, name) for r in found[role])
             for role in ("too weak", "right", "too big") if found[role]]
    if not found["too big"]:
        lines.append(_("Every slower draft lost more to its acceptance than to its step cost: none is too big."))
    return "\n\n".join(lines)
