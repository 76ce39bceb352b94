"""Plotly figures of one tree round: the tree, its attention mask, a node's siblings tried
one by one (p shrinking after each rejection). Pure functions of the trace."""
from __future__ import annotations

import plotly.graph_objects as go

from specdec.rules.draft_tree import DraftTree, tree_mask
from specdec.trace.run import Dist, Final, Tree
from specdec.wording import _
from ui.figures.rounds import COLORS, TOP, Label, prob, show

VERDICT_COLORS = {"accepted": COLORS.accepted, "rejected": COLORS.rejected,
                  "untried": COLORS.discarded}


def layout_rows(tree: Tree) -> dict[int, float]:
    """A y coordinate per node (-1 = root): leaves one row apart in depth-first order,
    a parent at the mean of its children."""
    rows: dict[int, float] = {}
    kids = {i: [j for j, n in enumerate(tree.nodes) if n.parent == i] for i in [-1, *range(len(tree.nodes))]}

    def place(i: int) -> float:
        if not kids[i]:
            rows[i] = float(len([r for r in rows if not kids[r]]))
        else:
            rows[i] = sum(place(j) for j in kids[i]) / len(kids[i])
        return rows[i]

    place(-1)
    return rows


MONO = dict(family="monospace", size=13)       # a backtick or a quote is its own width, not a speck


def node_text(text: str, limit: int = 10) -> str:
    """A node's label: a token's word without the space most tokens begin with; a token of spaces
    alone keeps them visible (␣), and newlines show as \\n (the hover has the exact token)."""
    word = text.lstrip(" ")
    return show(word if word else text, limit)


def tree_figure(tree: Tree, final: Final, label: Label) -> go.Figure:
    """Nodes by depth (x) coloured by verdict, edges, the accepted path thick, the final token."""
    rows, path = layout_rows(tree), set(tree.path)
    fig = go.Figure()
    for i, n in enumerate(tree.nodes):
        on_path = i in path
        fig.add_trace(go.Scatter(x=[tree.depth(n.parent), tree.depth(i)], y=[rows[n.parent], rows[i]],
                                 mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color=COLORS.accepted if on_path else "#cbd5e1",
                                           width=4 if on_path else 1.5)))
    for verdict, colour in VERDICT_COLORS.items():
        ids = [i for i, n in enumerate(tree.nodes) if n.verdict == verdict]
        fig.add_trace(go.Scatter(
            x=[tree.depth(i) for i in ids], y=[rows[i] for i in ids], mode="markers+text",
            name=_(verdict), text=[f"{i}:{node_text(label(tree.nodes[i].token), 8)}" for i in ids],   # as the mask
            textposition="top center", textfont=MONO, marker=dict(size=18, color=colour),
            hovertext=[_hover(tree, i, label) for i in ids], hoverinfo="text"))
    last = tree.path[-1] if tree.path else -1
    fig.add_trace(go.Scatter(
        x=[tree.depth(last) + 1], y=[rows[last]], mode="markers+text",
        name=_("final ({kind})").format(kind=_(final.kind)),
        text=[node_text(final.text)], textposition="top center", textfont=MONO,
        marker=dict(size=18, symbol="diamond", color=COLORS.of(final.kind, COLORS.bonus))))
    fig.add_trace(go.Scatter(x=[0], y=[rows[-1]], mode="markers+text", name=_("root (last token)"),
                             text=[_("root")], textposition="top center",
                             marker=dict(size=16, color=COLORS.prompt)))
    fig.update_layout(height=120 + 40 * max(1, len([r for r in rows.values()])) // 2,
                      xaxis=dict(title=_("depth"), dtick=1),        # room above the top node for its label
                      yaxis=dict(visible=False, range=[min(rows.values()) - 0.5, max(rows.values()) + 0.8]),
                      margin=dict(l=10, r=10, t=30, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))      # above: clear of "depth"
    return fig


def _hover(tree: Tree, i: int, label: Label) -> str:
    n = tree.nodes[i]
    tried = _("not tried") if n.ratio is None else f"ratio {prob(n.ratio)}, u {prob(n.u)}"
    return _("node {i} {token}: q {q}, p {p}, {tried}, {verdict}").format(
        i=i, token=show(label(n.token)), q=prob(n.q), p=prob(n.p), tried=tried, verdict=_(n.verdict))


def mask_figure(tree: Tree, label: Label) -> go.Figure:
    """The verifying pass's attention mask: rows and columns are [root, node 0, node 1, ...];
    a filled cell means the row's token attends to the column's (the prefix, always seen,
    is one column)."""
    draft = DraftTree(tuple(n.token for n in tree.nodes), tuple(n.parent for n in tree.nodes))
    mask = tree_mask(1, 1, draft).int().tolist()               # (1 + N, 2 + N)
    names = [_("prefix"), _("root")] + [f"{i}:{node_text(label(n.token), 8)}" for i, n in enumerate(tree.nodes)]
    fig = go.Figure(go.Heatmap(z=mask, x=names, y=names[1:], showscale=False, xgap=1, ygap=1,
                               colorscale=[[0, "#f1f5f9"], [1, COLORS.target]],
                               hovertemplate=_("%{y} sees %{x}: %{z}") + "<extra></extra>"))
    fig.update_layout(height=160 + 22 * len(tree.nodes), yaxis=dict(autorange="reversed", tickfont=MONO),
                      xaxis=dict(tickangle=-45, tickfont=MONO), margin=dict(l=10, r=10, t=10, b=10))
    return fig


def sibling_steps(tree: Tree, node: int, label: Label) -> list[tuple[str, Dist | None, int | None]]:
    """(title, p at this step, the child tried next) for node's children, in order: p before
    the first try, then what was left after each rejection; a child named as the tree's hover and the
    selector name it, by node number and token (review 35: "child 0" read as the first drawn)."""
    p = tree.root_target if node < 0 else tree.nodes[node].target
    kids = [j for j, n in enumerate(tree.nodes) if n.parent == node and n.verdict != "untried"]
    steps = []
    for j in kids:
        n = tree.nodes[j]
        steps.append((_("try node {j} {token} ({verdict})").format(j=j, token=show(label(n.token)),
                                                                     verdict=_(n.verdict)), p, j))
        if n.verdict == "rejected":
            p = n.left
    steps.append((_("what is left (all rejected)") if kids and tree.nodes[kids[-1]].verdict == "rejected"
                  else _("after the walk"), p, None))
    return steps


def sibling_figure(tree: Tree, dist: Dist, tried: int | None, label: Label) -> go.Figure:
    """p at one step of a node's verification: the top tokens, the tried child highlighted."""
    top = dist.top(TOP)
    if tried is not None and tree.nodes[tried].token not in [t for t, _ in top]:
        top.append((tree.nodes[tried].token, dist.prob(tree.nodes[tried].token)))
    token = tree.nodes[tried].token if tried is not None else None
    colours = [COLORS.draft if t == token else COLORS.target for t, _ in top]
    fig = go.Figure(go.Bar(x=[show(label(t)) for t, _ in top], y=[v for _, v in top],
                           marker_color=colours, name=_("p now"),
                           hovertemplate="%{x}: %{y:.3g}<extra></extra>"))
    fig.update_layout(height=280, yaxis=dict(title=_("probability"), rangemode="tozero"),   # named: review 39
                      title=dict(text=_("The target's p at this step (purple: the child tried; slate: the rest)"),
                                 x=0, xanchor="left", font=dict(size=13)),
                      margin=dict(l=10, r=10, t=34, b=10), showlegend=False)
    return fig
