"""One round, as five numbered steps with captions (the engine's step comments)."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from specdec import plots
from specdec.trace import Round

PLOT_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2},
               "modeBarButtons": [["toImage", "resetScale2d"]]}   # small: clear of the titles


def chart(fig, key: str) -> None:
    st.plotly_chart(fig, key=key, config=PLOT_CONFIG)


def code(text: str) -> str:
    """A token as inline code, safe from markdown."""
    return "`" + plots.show(text).replace("`", "ˋ") + "`"


def position_table(rnd: Round) -> list[dict]:
    prob = plots.prob
    return [{"i": p.i, "token": plots.show(p.text), "q(d)": prob(p.q), "p(d)": prob(p.p),
             "min(1, p/q)": prob(p.ratio), "u": prob(p.u), "verdict": p.verdict}
            for p in rnd.positions]


def step_draft(rnd: Round) -> None:
    st.subheader("1 · Draft")
    if not rnd.positions:
        st.write("No draft this round (nothing to look up, or no room left): the target "
                 "samples one token on its own.")
        return
    how = ("its own argmax (greedy mode, T = 0)" if rnd.greedy else
           "sampled from its own distribution q with the same temperature / top-p as the target")
    st.write(f"The drafter proposed **{rnd.drafted}** token(s) (limit this round: {rnd.draft_limit}), each {how}.")
    st.dataframe(position_table(rnd), hide_index=True, key=f"tbl{rnd.index}")


def step_verify(rnd: Round, label: Callable[[int], str]) -> None:
    st.subheader("2 · Verify")
    st.write(f"One target forward over {rnd.drafted + 1} position(s) gave p₁…p₍ₖ₊₁₎ at once "
             f"({rnd.verify_ms:.1f} ms; drafting took {rnd.draft_ms:.1f} ms).")
    if not rnd.positions or rnd.positions[0].target is None:
        return
    names = {p.i: f"{p.i}: {plots.show(p.text)} ({p.verdict})" for p in rnd.positions}
    first = rnd.positions[min(rnd.n_accepted, rnd.drafted - 1)].i     # open at the decisive one
    i = st.segmented_control("Drafted position", list(names), format_func=names.get, default=first,
                             key=f"pos{rnd.index}") or first
    pos = rnd.positions[i - 1]
    fig = plots.greedy_figure(pos, label) if rnd.greedy else plots.pq_figure(pos, label)
    chart(fig, f"pq{rnd.index}")
    gap = plots.near_tie(pos.target)
    if rnd.greedy and gap is not None:
        st.info(f"Near-tie: the target's top two tokens differ by {gap:.1e}. A (k+1)-token "
                "forward and a 1-token forward can differ in the last bits, so ties this "
                "close may break differently from plain decoding.")


def _verdict_sentence(rnd: Round) -> str:
    if rnd.greedy:
        if rnd.n_accepted == rnd.drafted:
            return "Greedy mode: every draft equals the target's argmax, so all are accepted."
        pos = rnd.positions[rnd.n_accepted]
        return (f"Greedy mode: draft {pos.i} ({code(pos.text)}) is not the target's argmax "
                f"→ rejected; drafts after it are discarded.")
    if rnd.n_accepted == rnd.drafted:
        return "Every draw u fell at or below min(1, p/q): all drafts accepted."
    pos = rnd.positions[rnd.n_accepted]
    prob = plots.prob
    return (f"Position {pos.i} ({code(pos.text)}): u = {prob(pos.u)} > min(1, p/q) = "
            f"{prob(pos.ratio)} (p = {prob(pos.p)}, q = {prob(pos.q)}) → rejected. The target likes this "
            "token less than the draft did, so it survives only with probability p/q.")


def step_accept(rnd: Round) -> None:
    st.subheader("3 · Accept / reject")
    if not rnd.positions:
        return
    st.write(_verdict_sentence(rnd))
    if not rnd.greedy:
        chart(plots.ratio_figure(rnd), f"ratio{rnd.index}")


def step_final(rnd: Round, label: Callable[[int], str]) -> None:
    st.subheader("4 · Resample or bonus")
    f = rnd.final
    how = {"correction": "drawn from the residual norm(max(0, p − q)) — the mass the draft "
                         "under-covered — so the output still follows p exactly",
           "bonus": "a free bonus token drawn from p₍ₖ₊₁₎, the target's distribution after the "
                    "last accepted draft",
           "target": "sampled from the target's p (no draft this round)"}[f.kind]
    if rnd.greedy:
        how = "the target's argmax at that position (greedy mode)"
    st.write(f"Final token {code(f.text)} (p = {plots.prob(f.p)}): {how}.")
    if f.source is not None:
        chart(plots.source_figure(rnd, label), f"src{rnd.index}")


def step_rollback(rnd: Round) -> None:
    st.subheader("5 · Roll back the caches")
    c = rnd.caches
    st.write(f"Target cache: {c.target_before} → {c.target_peak} after verifying → kept "
             f"**{c.target_after}**, cropped **{c.target_cropped}**. Draft cache: {c.draft_before} → "
             f"{c.draft_peak} → kept **{c.draft_after}**, cropped **{c.draft_cropped}**. "
             "The final token is not in either cache yet: it is fed at the start of the next round"
             + (" together with the last draft, which the draft model has not seen." if
                rnd.n_accepted == rnd.drafted and rnd.drafted else "."))
    chart(plots.cache_figure(rnd), f"cache{rnd.index}")


def tree_steps(rnd: Round, label: Callable[[int], str]) -> None:
    """Steps 1-3 of a tree round: the tree, the one pass over it, the walk down."""
    from specdec.tree_plots import mask_figure, tree_figure
    tree = rnd.tree
    st.subheader("1 · Draft a tree")
    st.write(f"The drafter grew **{len(tree.nodes)}** nodes (budget {tree.budget}, up to "
             f"{tree.width} children per node, depth ≤ {rnd.draft_limit}), most promising first.")
    chart(tree_figure(tree, rnd.final, label), f"tree{rnd.index}")
    st.subheader("2 · Verify every node in one pass")
    st.write(f"One target forward over {len(tree.nodes) + 1} positions ({rnd.verify_ms:.1f} ms; "
             f"drafting took {rnd.draft_ms:.1f} ms), with a mask so that each node sees only its "
             "own branch.")
    chart(mask_figure(tree, label), f"mask{rnd.index}")
    st.subheader("3 · Walk down, one sibling at a time")
    tried = sum(n.verdict != "untried" for n in tree.nodes)
    st.write(f"{tried} node(s) tried, **{rnd.n_accepted}** accepted along one branch "
             f"({tree.rule} rule). The page *Many drafts at once* steps through each sibling.")
    if rnd.positions:
        st.dataframe(position_table(rnd), hide_index=True, key=f"tbl{rnd.index}")


def render(rnd: Round, label: Callable[[int], str]) -> None:
    if rnd.tree is not None:
        tree_steps(rnd, label)
        step_final(rnd, label)
        step_rollback(rnd)
        return
    step_draft(rnd)
    step_verify(rnd, label)
    step_accept(rnd)
    step_final(rnd, label)
    step_rollback(rnd)
