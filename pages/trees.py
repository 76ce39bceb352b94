"""Many drafts at once: a tree of drafts verified in one target pass, exactly."""
from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import specdec
from specdec.chat import user_turn
from specdec.drafters.registry import tree_for
from specdec.prompts import load_prompts, round_robin
from specdec.records.provenance import BUSY_LOAD
from specdec.settings import LENGTHS
from ui import family, session, shell, sidebar, state
from ui.exact_tree_view import tree_rules_check
from ui.figures.rounds import prob, show
from ui.figures.trees import mask_figure, sibling_figure, sibling_steps, tree_figure
from ui.i18n import _, choice
from ui.lessons import badges, store, trees
from ui.measured import local, measured
from ui.round_view import chart, in_code
from ui.safe import md

shell.page(__file__)
st.title(_("Many drafts at once"))
st.caption(_("A chain loses the whole round at its first wrong draft. A tree keeps alternatives: "
             "if the first candidate for a position is rejected, a sibling may still be accepted "
             "— and the target checks every node in the same single pass."))
RUN = "tree_run"


def tree_settings(pair) -> specdec.Settings:
    c1, c2, c3 = st.columns(3)
    width = c1.slider(_("Children per node (width)"), 1, 4, 2, key="tree_width")
    budget = c2.slider(_("Nodes per round (budget)"), 2, 16, 8, key="tree_budget")
    rule = c3.radio(_("Children are"), ["sampled", "top"], key="tree_children", horizontal=True,
                    format_func={"top": _("the draft's top-w"), "sampled": _("w draws from q")}.get,
                    disabled=pair.draft is None,
                    help=_("Top-w children are checked as point masses (accept x with probability "
                           "p(x)); drawn children with min(1, p/q) against the shrinking residual. "
                           "Draws are independent, so two siblings can hold the same token: once the "
                           "first is rejected the residual has no mass left on it, and the second is "
                           "rejected too."))
    drafter = tree_for(pair.draft is not None).name
    return replace(state.settings(), drafter=drafter, tree_width=width, tree_budget=budget,
                   tree_children=rule, policy="constant")


def decoder(pair, settings) -> specdec.Decoder:
    """This page's own run; a new one when the pair, prompt or settings change."""
    sig = (session.signature(), settings)
    run = st.session_state.get(RUN)
    if run is None or run[1] != sig:
        prompt = st.session_state.prompt
        prompt = user_turn(prompt) if session.uses_chat(pair) else prompt
        st.session_state[RUN] = (specdec.Decoder(pair, prompt, settings), sig)   # may raise InputError
    return st.session_state[RUN][0]


def round_story(rnd, label) -> str:
    """One sentence per round, from its record."""
    tree, n = rnd.tree, len(rnd.tree.nodes)
    tried = sum(node.verdict != "untried" for node in tree.nodes)
    final = f"`{in_code(label(rnd.final.token))}` ({_(rnd.final.kind)})"
    said = _("The drafter grew **{n}** nodes; one target pass read them all ({read} tokens with the "
             "root). Walking down, **{tried}** node(s) tried, **{kept}** accepted (depth {kept}); "
             "the round ends with {final}: **{emitted}** token(s) for one pass.").format(
        n=n, read=n + 1, tried=tried, kept=rnd.n_accepted, final=final, emitted=len(rnd.emitted))
    return said + (" " + trees.twins_note(n_twins) if (n_twins := trees.twins(tree)) else "")


def siblings(tree, label) -> None:
    st.subheader(_("Sibling by sibling"))
    nodes = [-1] + list(tree.path)
    names = {-1: _("root")} | {i: _("node {i} {token}").format(i=i, token=show(label(tree.nodes[i].token)))
                               for i in tree.path}
    node = st.selectbox(_("Verification at"), nodes, format_func=names.get, key=choice("tree_at"))
    steps = sibling_steps(tree, node, label)
    if len(steps) == 1:
        st.write(_("Nothing was tried here: this node has no drafted children, so the final token "
                   "is drawn from its own p (a bonus)."))
        return
    i = st.select_slider(_("Step"), list(range(len(steps))), format_func=lambda j: steps[j][0],
                         key=f"tree_step_{node}")
    title, dist, child = steps[i]
    chart(sibling_figure(tree, dist, child, label), "tree_sib")
    if child is not None:
        c = tree.nodes[child]
        u = "" if c.u is None else f", u = {prob(c.u)}"
        p_now = dist.prob(c.token)          # the chart's residual; the verification's own ratio kept its last digits
        st.write(_("Child `{token}`: p(x) now = {p}, acceptance probability {ratio}{u} → "
                   "**{verdict}**.").format(token=in_code(label(c.token)),
                                            p="~0" if p_now == 0 and (c.ratio or 0) > 0 else prob(p_now),
                                            ratio=prob(c.ratio), u=u, verdict=_(c.verdict))
                 + (_(" On rejection p loses this child's mass (what is left is renormalised), and "
                      "the next sibling is tried against it.") if c.verdict == "rejected" else ""))
    else:
        st.write(_("This is what the final token was drawn from."))


def one_round(pair, settings) -> None:
    st.header(_("One round, as a tree"))
    try:
        dec = decoder(pair, settings)
    except specdec.InputError as err:
        st.warning(md(err))
        return
    c1, c2 = st.columns(2)
    if c1.button(_("Draft and verify a round"), type="primary", key="tree_next",
                 disabled=dec.stop is not None):
        try:
            dec.step()
        except specdec.InputError as err:
            st.warning(md(err))
    if c2.button(_("Start over"), key="tree_reset"):
        st.session_state.pop(RUN, None)
        st.rerun()
    if not dec.history:
        st.write(_("Each click drafts a tree from the current text, verifies it in one target pass "
                   "and shows what was kept."))
        return
    rnd, label = dec.history[-1], lambda t: pair.tokenizer.decode([t])
    st.write(_("Output so far: `{text}`").format(text=in_code(pair.tokenizer.decode(dec.generated), 400)))
    if not rnd.tree.nodes:
        st.write(_("This round drafted nothing (no draft was possible), so the target wrote one token."))
        return
    st.markdown(round_story(rnd, label))
    c1, c2 = st.columns([3, 2])
    chart(tree_figure(rnd.tree, rnd.final, label), "tree_fig", c1)
    chart(mask_figure(rnd.tree, label), "tree_mask", c2)
    st.caption(_("On the right, the verifying pass's attention mask: each node sees the prefix, the root and its "
                 "own ancestors — never a sibling's branch — so its p is what a chain along its "
                 "branch would have got."))
    siblings(rnd.tree, label)


def prompts_for(pair) -> list:
    chat = session.uses_chat(pair)
    chosen = round_robin(load_prompts("chat" if chat else "text"), trees.PROMPTS)
    return [user_turn(p.prompt) if chat else p.prompt for p in chosen]


TWO_PLACES = st.column_config.NumberColumn(format="%.2f")      # tokens a pass: a ratio


def chain_or_tree(pair, settings) -> None:
    st.header(_("Chain or tree?"))
    base = replace(settings, max_new_tokens=LENGTHS.trees, seed=0, policy="constant")   # a chain of the budget
    key = store.measurement("trees", st.session_state.active_pair, base, ran=state.ran())
    table = measured("trees", key, lambda pr: trees.compare(pair, prompts_for(pair), base,
                                                            base.tree_budget, base.tree_width, 3, pr),
                    button=_("Measure chain against tree ({n} drafts each)").format(n=base.tree_budget),
                    intro=_("Runs {p} prompts ({tokens} new tokens) with the target alone, a chain of k = "
                            "{n} drafts and a tree of {n} nodes (the sidebar's tree budget, not its k) — each "
                            "reads at most {m} tokens a verifying pass, fewer where a round is cut short at "
                            "the end — three times, interleaved.").format(n=base.tree_budget, m=base.tree_budget + 1,
                                                                          tokens=base.max_new_tokens, p=trees.PROMPTS),
                    record=trees.ChainOrTree)
    if not table:
        return
    st.dataframe(pd.DataFrame([{
        _("drafting"): table.name(r), _("tokens read per pass"): r.verified_per_pass,
        _("tokens per target pass"): r.tokens_per_pass, _("draft forwards a round"): r.drafts_per_round,
        _("tokens/s (median)"): r.median_tps,
        _("tokens/s (min–max)"): f"{min(r.tokens_per_s):.1f}–{max(r.tokens_per_s):.1f}"} for r in table.rows]),
        hide_index=True, placeholder="—", key="trees_table", column_config={
            _("tokens read per pass"): TWO_PLACES, _("tokens per target pass"): TWO_PLACES,
            _("draft forwards a round"): st.column_config.NumberColumn(format="%.1f"),
            _("tokens/s (median)"): st.column_config.NumberColumn(format="%.1f")})
    depths(table)
    st.write(badges.of(None if local("trees", key, trees.ChainOrTree) else table.provenance.cpu or "?",
                       table.provenance.date)
             + " " + verdict(table.rows, table.budget))


def depths(table) -> None:
    """Acceptance at each depth of the drafts, one column a depth (a table of its own: every depth fits)."""
    drafted = [r for r in table.rows if r.by_depth]
    if not drafted:
        return
    st.caption(_("Of the rounds that drafted to each depth, the share that kept the draft there (depth 1: the first "
                 "draft):"))
    st.dataframe(pd.DataFrame([{_("drafting"): table.name(r), **{str(d + 1): a for d, a in enumerate(r.by_depth)}}
                               for r in drafted]), hide_index=True, placeholder="—", key="trees_depths",
                 column_config={str(d + 1): TWO_PLACES for d in range(max(len(r.by_depth) for r in drafted))})


def verdict(rows, budget: int) -> str:
    """What the measured rows show (computed, never fixed text)."""
    alone, chain, tree = rows
    gain = tree.tokens_per_pass / chain.tokens_per_pass
    spread = max(max(r.tokens_per_s) / min(r.tokens_per_s) for r in rows)
    text = _("Per target pass the tree emitted {tree:.2f} tokens, the chain {chain:.2f}: **{gain:.2f}×**. "
             "In wall-clock the tree ran at {tree_x:.2f}× the target alone and the chain at "
             "{chain_x:.2f}× (k = {k}, the tree budget: not the sidebar's k).").format(
                 k=budget, tree=tree.tokens_per_pass, chain=chain.tokens_per_pass, gain=gain,
                 tree_x=tree.median_tps / alone.median_tps, chain_x=chain.median_tps / alone.median_tps)
    if spread > 1.25:
        text += _(" The repeats differ by up to {spread:.2f}× (a busy machine): compare the "
                  "per-pass numbers, which do not depend on timing.").format(spread=spread)
    return text


def pass_price(pair) -> None:
    st.header(_("What a wide pass costs here"))
    key = store.measurement("pass_price", st.session_state.active_pair, ran=state.ran(), what="pass prices")
    prices = measured("pass_price", key,
                      lambda pr: trees.pass_prices(pair),
                      button=_("Time target passes of 1 to 32 tokens"),
                      intro=_("A tree pays off when reading many tokens in one pass costs about "
                              "as much as reading one — true on accelerators for small batches, "
                              "less so on a CPU. Time it on this machine."), on_disk=False)
    if not prices:
        return
    sizes = sorted(prices.widths)
    fig = go.Figure([go.Bar(x=[str(n) for n in sizes], y=[prices.price(n) for n in sizes],
                            name=_("this machine"), marker_color="#475569"),
                     go.Scatter(x=[str(n) for n in sizes], y=[1.0] * len(sizes), mode="lines",
                                name=_("a pass costing one step"), line=dict(dash="dash"))])
    fig.update_layout(height=280, xaxis=dict(title=_("tokens in one target pass"), type="category"),
                      yaxis_title=_("cost in one-token steps (v)"), margin=dict(t=10, b=10))
    chart(fig, "pass_price_fig")
    widest = sizes[-1]
    st.write(badges.here() + " " + _(
        "On this machine a {n}-token pass costs **{v:.2f}** one-token steps (v). A tree of N "
               "nodes buys its extra tokens per pass at v(N + 1); where v stays near 1 the tree's "
               "gain in tokens per pass becomes a gain in time.").format(n=widest, v=prices.price(widest)))
    load = prices.provenance.load
    st.caption(_("Each v: the median over five rounds that time every width in turn.") + (" " + _(
        "Other work shared the cores while they ran (load up to {load:.1f} per core): time them again when the "
        "machine is quiet.").format(load=load) if load is not None and load >= BUSY_LOAD else ""))


pair = sidebar.active_pair()
if pair is None:
    st.warning(_("No model pair is loaded: choose one in the sidebar."))
else:
    settings = tree_settings(pair)
    one_round(pair, settings)
    chain_or_tree(pair, settings)
    pass_price(pair)
    lab = family.lab_pair(pair, say=False)
    if lab is not None:
        tree_rules_check(lab, settings, instead_of=None if lab is pair else pair)
