"""A run's figures beside the pair's typical ones (ui/typical.py), in one caption."""
from __future__ import annotations

import streamlit as st

from specdec.trace.metrics import Metrics
from ui import examples, typical
from ui.i18n import N_, _
from ui.lessons import badges


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def _num(x, spec: str = ".2f") -> str:
    return "—" if x is None else format(x, spec)


def sentence(m: Metrics, t: typical.Typical | None, k: int, temperature: float, shown_at: float | None = None) -> str:
    """This run's acceptance beside the typical run's; `shown_at`: the sidebar's T, at which Where it
    works shows its results (where it is not this run's T, the page would not show the typical one)."""
    if t is None:
        return _("No kept or shipped “Where it works” result exists for this pair at k = {k}, T = {t}: "
                 "measure that page at these settings to see what is typical.").format(k=k, t=f"{temperature:g}")
    group = examples.kind_name(t.kind) if t.kind else _("all kinds")
    where = _("measured here") if t.measured == "here" else _("shipped, measured on {cpu}").format(cpu=t.measured)
    run = badges.here() + " " + _("This run: acceptance rate {acc} · α̂ {alpha} · {len} tokens a round.").format(
        acc=_pct(m.acceptance_rate), alpha=_num(m.mean_beta), len=_num(m.mean_acceptance_length))
    badge = badges.here() if t.measured == "here" else badges.shipped(t.measured)
    usual = badge + " " + _("Typical for {group} at k = {k}, T = {t}: acceptance rate {tacc} · α̂ {talpha} · {tlen} "
                            "tokens a round ({n} prompts; {where}).").format(
        group=group, k=k, t=f"{temperature:g}", tacc=_pct(t.acceptance_rate), talpha=_num(t.alpha),
        tlen=_num(t.mean_acceptance_length), n=t.prompts, where=where)
    # no speedup here: "Does it pay here?" (ui/payoff_view.py) states the one figure for these settings
    drafted = m.drafted / m.rounds if m.rounds else 0.0
    other_k = _("This run drafted {d:.1f} tokens a round, not k = {k}: compare α̂.").format(d=drafted, k=k) \
        if m.rounds and abs(drafted - k) > 0.5 else ""
    hidden = _("Where it works shows that set when the sidebar's temperature is {t} (now {now}).").format(
        t=f"{temperature:g}", now=f"{shown_at:g}") if shown_at is not None and shown_at != temperature else ""
    typical_line = " ".join(filter(None, (usual, hidden, _("One prompt is not the pair's average."))))
    return "\n\n".join((run, typical_line, " ".join(filter(None, (_(TWO_FIGURES), other_k, _(ON_THE_CARD))))))


# why 20 % and α̂ 0.46 side by side are no contradiction (at k = 4: 0.46 + 0.46² + … ≈ 0.8 of 4 drafts)
TWO_FIGURES = N_("Acceptance rate = accepted ÷ drafted tokens: every draft after a round's first rejection counts "
                 "as lost, so it falls as k grows. α̂ = the mean β, the chance a draft is accepted at one position, "
                 "whatever k.")


ON_THE_CARD = N_("Every acceptance figure of this pair side by side, with its prompts, T and k: the pair card "
                 "(its button is in the sidebar).")


def kind_of(prompt_text: str, prompts) -> str | None:
    """The kind of a bundled example whose text this is (None: the user's own text)."""
    return next((p.kind for p in prompts if p.prompt == prompt_text), None)


def render(m: Metrics, pair: tuple, k: int, temperature: float, kind: str | None, drafter: str,
           shown_at: float | None = None) -> None:
    """`drafter`: the run's, as measurements name it (ui/typical.drafter_of); `shown_at`: the
    sidebar's T where the run had its own (Home's race)."""
    st.caption(sentence(m, typical.typical(pair, k, temperature, kind, drafter), k, temperature, shown_at))
