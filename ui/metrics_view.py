"""Running metrics for the run so far, with the serving engines' definitions."""
from __future__ import annotations

import streamlit as st

from specdec.trace.metrics import summarize
from ui import context_view
from ui.figures import rounds as plots
from ui.i18n import _
from ui.lessons import badges
from ui.round_view import chart


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


APART = 0.08       # acceptance rate and α̂ this far apart get a caption saying why


def apart(rounds, m) -> str | None:
    """Why acceptance rate and α̂ differ, computed from the rounds (None when they agree)."""
    if m.acceptance_rate is None or m.mean_beta is None or abs(m.acceptance_rate - m.mean_beta) < APART:
        return None
    positions = [p for r in rounds for p in r.positions]
    examined = [p for p in positions if p.verdict != "discarded"]
    discarded = len(positions) - len(examined)
    accepted = sum(p.verdict == "accepted" for p in examined)
    shown = _pct(accepted / len(examined)) if examined else "—"
    return _("Acceptance rate ({acc}) and α̂ ({alpha}) measure different things. Acceptance counts every "
             "drafted token, including the {d} discarded after a rejection, which were never examined; α̂ "
             "averages β = Σ min(p, q), the chance each of the {e} examined drafts had. Of the examined "
             "drafts {shown} were accepted: what is left of the gap is the luck of the draws u.").format(
        acc=_pct(m.acceptance_rate), alpha=f"{m.mean_beta:.2f}", d=discarded, e=len(examined), shown=shown)


def engine_rows(m) -> list[dict]:
    """This run's counts as vLLM's /metrics counters name them (vllm:spec_decode_num_drafts,
    _num_draft_tokens, _num_accepted_tokens) and the two figures serving engines derive from them:
    acceptance rate = accepted / draft tokens; mean acceptance length = 1 + accepted / drafts
    (SGLang's avg_spec_accept_length, AIPerf's mean_acceptance_length)."""
    rate = m.accepted / m.drafted if m.drafted else None
    length = 1 + m.accepted / m.rounds if m.rounds else None
    rows = [(_("rounds (verification passes)"), "num_drafts", "—", str(m.rounds)),
            (_("drafted tokens"), "num_draft_tokens", "—", str(m.drafted)),
            (_("accepted drafts"), "num_accepted_tokens", "—", str(m.accepted)),
            (_("Acceptance rate"), "num_accepted_tokens / num_draft_tokens", "—", _pct(rate)),
            (_("Tokens a round (L)"), "1 + num_accepted_tokens / num_drafts", "avg_spec_accept_length",
             "—" if length is None else f"{length:.2f}")]
    return [{_("this page"): a, _("vLLM (/metrics, vllm:spec_decode_…)"): b, _("SGLang"): c, _("this run"): d}
            for a, b, c, d in rows]


def glossary() -> None:
    """The serving engines' speculative-decoding metrics and what each is in this lab (In a server)."""
    rows = [("vllm:spec_decode_num_drafts", "—", _("rounds: one verification pass each")),
            ("vllm:spec_decode_num_draft_tokens", "—", _("drafted tokens")),
            ("vllm:spec_decode_num_accepted_tokens", "—", _("accepted drafts")),
            ("num_accepted_tokens / num_draft_tokens", "—", _("Acceptance rate")),
            ("1 + num_accepted_tokens / num_drafts", "avg_spec_accept_length",
             _("Tokens a round (L): the engines' mean acceptance length"))]
    st.dataframe([{_("vLLM (/metrics)"): a, _("SGLang"): b, _("in this lab"): c} for a, b, c in rows],
                 hide_index=True, key="server_metrics")
    st.caption(_("Step through gives these figures for your own run, under the same names, after a run "
                 "(“The same figures as serving engines report them”)."))


def engines(m) -> None:
    """The run's figures under the names serving engines report them by."""
    with st.expander(_("The same figures as serving engines report them")):
        st.dataframe(engine_rows(m), hide_index=True, key="metrics_engines")
        st.caption(_("Tokens a round (L) here counts the tokens a round emitted; it equals 1 + accepted / "
                     "rounds except where a run stopped inside a round (its token limit or an end token)."))


def render(rounds, selected: int | None, prefill=None, context: tuple | None = None, finished: bool = False) -> None:
    """`prefill`: the run's Prefill record (None: a file from before it was recorded);
    `context`: (pair names, k, T, kind, drafter id) for the run-in-context caption (ui/context_view.py);
    `finished`: the run has ended, so its times are the whole run's, not "so far"."""
    m = summarize(rounds, prefill)
    cols = st.columns(5)
    cols[0].metric(_("Acceptance rate"), _pct(m.acceptance_rate),
                   help=_("accepted drafts ÷ drafted tokens, counting the drafts thrown away after a rejection "
                          "unexamined, so it runs below α̂"))
    sd = m.acceptance_length_sd
    cols[1].metric(_("Tokens a round (L)"),
                   "—" if m.mean_acceptance_length is None else f"{m.mean_acceptance_length:.2f}",
                   delta=None if sd is None else f"± {sd:.1f}", delta_color="off", delta_arrow="off",
                   delta_description=None if sd is None else _("s.d. over {n} rounds").format(n=m.rounds),
                   help=_("tokens emitted per round, correction/bonus included; serving engines call it "
                          "the mean acceptance length. Under it, how much one round's count varies about it "
                          "(the standard deviation over this run's rounds)"))   # review 44: a mean without spread
    cols[2].metric(_("Target forwards / tokens"), f"{m.target_forwards} / {m.tokens}")
    cols[3].metric(_("Passes saved (not time)"), _pct(m.target_calls_saved),
                   help=_("1 − target forwards / tokens emitted. Passes, not time: a pass over k + 1 tokens costs "
                          "more than a one-token step here, and drafting costs too; “Does it pay here?” gives the "
                          "time"))  # review 42: 70% saved beside a run at 0.71×
    cols[4].metric(_("α̂ (mean β)"), "—" if m.mean_beta is None else f"{m.mean_beta:.2f}",
                   help=_("a drafted token's chance of acceptance where it is examined: the mean overlap "
                          "Σ min(p, q) of p and q there. It sets the expected tokens a round, "
                          "(1 − α̂ᵏ⁺¹) ÷ (1 − α̂)"))
    t0, t1, t2, t3, _spacer = st.columns([1, 1, 1, 1, 1])
    t0.metric(_("Prefill"), f"{m.prefill_ms:.0f} ms",
              help=_("wall-clock of reading the prompt before round 1 (target, and a draft with a "
                     "cache); not a round, so not in the acceptance or per-round figures"))
    t1.metric(_("Drafting") if finished else _("Drafting so far"), f"{m.draft_ms:.0f} ms",
              help=_("wall-clock of every draft step of this run on this machine"))
    t2.metric(_("Verifying") if finished else _("Verifying so far"), f"{m.verify_ms:.0f} ms",
              help=_("wall-clock of every target pass"))
    t3.metric(_("Total") if finished else _("Total so far"), f"{m.wall_ms:.0f} ms",
              help=_("prefill + drafting + verifying; compare k, drafters and policies on this page: "
                     "same prompt, same seed"))
    st.caption(badges.here() + " " + _("Times: this run's wall clock on this machine, the first round's on cold "
                                       "caches."))
    c1, c2, c3 = st.columns(3)
    with c1:
        chart(plots.timeline_figure(list(rounds), selected), "m-timeline")
    with c2:
        chart(plots.per_position_figure(m.per_position), "m-perpos")
    with c3:
        chart(plots.histogram_figure(m.histogram), "m-hist")
    engines(m)
    if context:
        context_view.render(m, *context)
    why = apart(rounds, m)
    if why:
        with st.expander(_("Why the acceptance rate and α̂ differ")):
            st.caption(why)
