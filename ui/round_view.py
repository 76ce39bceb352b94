"""One round, as five numbered steps with captions (the engine's step comments)."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from specdec.trace.run import Round
from ui import cache_story
from ui.figures import rounds as plots
from ui.i18n import N_, _, choice
from ui.lessons import badges
from ui.lessons.step_through_prices import Priced, in_steps
from ui.safe import plain_figure

WORDS = (N_("accepted"), N_("rejected"), N_("discarded"), N_("untried"), N_("deterministic"),
         N_("sampled"), N_("greedy"))   # verdicts and tree rules, shown through _()

PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2},
               "modeBarButtons": [["toImage", "resetScale2d"]],   # small: clear of the titles
               "displayModeBar": "hover"}      # shown on hover only: a long title runs under it (review 56)


def chart(fig, key: str, where=st) -> None:
    """Every figure of the app is drawn here, its labels as plain text (ui/safe.plain_figure)."""
    where.plotly_chart(plain_figure(fig), key=key, config=PLOT_CONFIG)


def code(text: str) -> str:
    """A token as inline code, safe from markdown."""
    return "`" + in_code(text) + "`"


def in_code(text: str, limit: int = 16) -> str:
    """A text for inside a code span: whitespace made visible, and a backtick (it would end the
    span; a backslash shows there as itself) swapped for a look-alike."""
    return plots.show(text, limit).replace("`", "ˋ")


def position_table(rnd: Round) -> list[dict]:
    """A row per drafted position. In greedy mode the check is d = argmax p, no draw: a yes or no where it was
    made (review 42: "min(1, p/q)" read 0 beside p/q = 0.10, the greedy rule's 0 under the sampling rule's name)."""
    prob = plots.prob
    if rnd.greedy:
        return [{"i": p.i, _("token"): plots.show(p.text), "q(d)": prob(p.q), "p(d)": prob(p.p),
                 _("d = argmax p?"): None if p.verdict == "discarded" else _("yes") if p.ratio >= 1 else _("no"),
                 _("verdict"): _(p.verdict)} for p in rnd.positions]
    tested = [p.verdict != "discarded" for p in rnd.positions]       # one after the rejection: its p follows a
    return [{"i": p.i, _("token"): plots.show(p.text), "q(d)": prob(p.q),   # rejected token, never tested (rev. 53)
             "p(d)": prob(p.p) if t else None, "min(1, p/q)": prob(p.ratio) if t else None, "u": prob(p.u),
             _("verdict"): _(p.verdict)} for p, t in zip(rnd.positions, tested)]


def step_draft(rnd: Round) -> None:
    st.subheader(_("1 · Draft"))
    if not rnd.positions:
        st.write(_("No draft this round: only one token was left before Max new tokens, so the target samples "
                   "it on its own.") if rnd.draft_limit == 0 else
                 _("No draft this round: the drafter proposed nothing (a lookup found no match, or the policy "
                   "stopped at once), so the target samples one token on its own."))
        return
    how = (_("its own argmax (greedy mode, T = 0)") if rnd.greedy else
           _("sampled from its own distribution q with the same temperature / top-p as the target"))
    st.write(_("The drafter proposed **{n}** token(s) (limit this round: {limit}, the policy's k, or fewer near "
               "Max new tokens), each {how}.").format(
        n=rnd.drafted, limit=rnd.draft_limit, how=how))
    st.dataframe(position_table(rnd), hide_index=True, placeholder="—", key=f"tbl{rnd.index}")


def timed(rnd: Round) -> str:
    """The round's times are this machine's, one round's; the first runs on cold caches."""
    text = " " + badges.here()
    if rnd.index == 0:
        text += " " + _("The first round runs on cold caches, so its times run high; the lab's prices (c, v) "
                        "leave it out.")
    return text


def each(rnd: Round) -> str:
    """', 2.1 ms a draft step' where the round ran the draft model more than once ('' otherwise)."""
    steps = rnd.draft_forwards
    return _(", {ms:.1f} ms a draft step").format(ms=rnd.draft_ms / steps) if steps > 1 else ""


def step_verify(rnd: Round, label: Callable[[int], str], priced: Priced | None = None) -> None:
    st.subheader(_("2 · Verify"))
    if not rnd.drafted:
        st.write(_("One target forward over the last position gave p for the next token ({verify:.1f} ms); "
                   "nothing was drafted.").format(verify=rnd.verify_ms) + timed(rnd))
    else:
        st.write(_("One target forward over {n} position(s) gave p₁…p₍ₖ₊₁₎ at once ({verify:.1f} ms; "
                   "drafting took {draft:.1f} ms{each}).").format(n=rnd.drafted + 1, verify=rnd.verify_ms,
                                                                  draft=rnd.draft_ms, each=each(rnd)) + timed(rnd))
    if said := in_steps(rnd, priced):
        st.caption(said)
    if not rnd.positions or rnd.positions[0].target is None:
        return
    names = {p.i: f"{p.i}: {plots.show(p.text)} ({_(p.verdict)})" for p in rnd.positions}
    first = rnd.positions[min(rnd.n_accepted, rnd.drafted - 1)].i     # open at the decisive one
    i = st.segmented_control(_("Drafted position"), list(names), format_func=names.get, default=first,
                             key=choice(f"pos{rnd.index}")) or first
    pos = rnd.positions[i - 1]
    fig = plots.greedy_figure(pos, label) if rnd.greedy else plots.pq_figure(pos, label)
    chart(fig, f"pq{rnd.index}")
    gap = plots.near_tie(pos.target)
    if rnd.greedy and gap is not None:
        st.info(_("Near-tie: the target's top two tokens differ by {gap:.1e}. A (k+1)-token "
                  "forward and a 1-token forward can differ in the last bits, so ties this "
                  "close may break differently from the target alone.").format(gap=gap))


def _verdict_sentence(rnd: Round) -> str:
    if rnd.greedy:
        if rnd.n_accepted == rnd.drafted:
            return _("Greedy mode: every draft equals the target's argmax, so all are accepted.")
        pos = rnd.positions[rnd.n_accepted]
        return _("Greedy mode: draft {i} ({token}) is not the target's argmax → rejected; drafts "
                 "after it are discarded.").format(i=pos.i, token=code(pos.text))
    if rnd.n_accepted == rnd.drafted:
        return _("Every draw u fell at or below min(1, p/q): all drafts accepted.")
    pos = rnd.positions[rnd.n_accepted]
    prob = plots.prob
    return _("Position {i} ({token}): u = {u} > min(1, p/q) = {ratio} (p = {p}, q = {q}) → "
             "rejected. The target likes this token less than the draft did, so it survives only "
             "with probability p/q.").format(i=pos.i, token=code(pos.text), u=prob(pos.u),
                                             ratio=prob(pos.ratio), p=prob(pos.p), q=prob(pos.q))


def step_accept(rnd: Round) -> None:
    st.subheader(_("3 · Accept / reject"))
    if not rnd.positions:
        return
    st.write(_verdict_sentence(rnd))
    if not rnd.greedy:
        chart(plots.ratio_figure(rnd), f"ratio{rnd.index}")


def step_final(rnd: Round, label: Callable[[int], str]) -> None:
    st.subheader(_("4 · Resample or bonus"))
    f = rnd.final
    how = {"correction": _("drawn from the residual norm(max(0, p − q)) — the mass the draft "
                           "under-covered — so the output still follows p exactly"),
           "bonus": _("a free bonus token drawn from p₍ₖ₊₁₎, the target's distribution after the "
                      "last accepted draft"),
           "target": _("sampled from the target's p (no draft this round)")}[f.kind]
    if rnd.greedy:
        how = _("the target's argmax at that position (greedy mode)")
    st.write(_("Final token {token} (p = {p}): {how}.").format(token=code(f.text), p=plots.prob(f.p),
                                                              how=how))
    if f.source is not None:
        chart(plots.source_figure(rnd, label), f"src{rnd.index}")


def step_rollback(rnd: Round, cache_kind: str) -> None:
    st.subheader(_("5 · Roll back the caches"))
    st.write(cache_story.rollback_words(rnd, cache_kind))
    target, draft = cache_story.target_lines(rnd), cache_story.draft_lines(rnd, cache_kind)
    why = {"target": " ".join(target), "draft": " ".join(draft)}
    if cache_kind in ("own", "features"):          # a drafter whose cache follows the text
        why["lag"] = _("The positions the target holds and the draft has not read yet.") + " " + draft[-1]
    chart(plots.cache_figure(rnd, why), f"cache{rnd.index}")
    with st.expander(_("Why each cache grew and shrank")):
        st.markdown("\n".join(f"- {line}" for line in target + draft + [cache_story.final_line(rnd)]))


def tree_steps(rnd: Round, label: Callable[[int], str], priced: Priced | None = None) -> None:
    """Steps 1-3 of a tree round: the tree, the one pass over it, the walk down."""
    from ui.figures.trees import mask_figure, tree_figure
    tree = rnd.tree
    st.subheader(_("1 · Draft a tree"))
    st.write(_("The drafter grew **{n}** nodes (budget {budget}, up to {width} children per node, "
               "depth ≤ {depth}), most promising first.").format(
        n=len(tree.nodes), budget=tree.budget, width=tree.width, depth=rnd.draft_limit))
    chart(tree_figure(tree, rnd.final, label), f"tree{rnd.index}")
    st.subheader(_("2 · Verify every node in one pass"))
    st.write(_("One target forward over {n} positions ({verify:.1f} ms; drafting took {draft:.1f} "
               "ms), with a mask so that each node sees only its own branch.").format(
        n=len(tree.nodes) + 1, verify=rnd.verify_ms, draft=rnd.draft_ms) + timed(rnd))
    if said := in_steps(rnd, priced):
        st.caption(said)
    chart(mask_figure(tree, label), f"mask{rnd.index}")
    st.subheader(_("3 · Walk down, one sibling at a time"))
    tried = sum(n.verdict != "untried" for n in tree.nodes)
    st.write(_("{tried} node(s) tried, **{n}** accepted along one branch ({rule} rule). The page "
               "*Many drafts at once* steps through each sibling.").format(
        tried=tried, n=rnd.n_accepted, rule=_(tree.rule)))
    if rnd.positions:
        st.dataframe(position_table(rnd), hide_index=True, placeholder="—", key=f"tbl{rnd.index}")


def render(rnd: Round, label: Callable[[int], str], cache_kind: str = "unknown", priced: Priced | None = None) -> None:
    """`cache_kind`: what the drafter keeps (ui/cache_story.py), for step 5's reasons; `priced`: this
    machine's profile, beside the round's own times (None: a replayed run, or no profile)."""
    if rnd.tree is not None:
        tree_steps(rnd, label, priced)
    else:
        step_draft(rnd)
        step_verify(rnd, label, priced)
        step_accept(rnd)
    step_final(rnd, label)
    step_rollback(rnd, cache_kind)
