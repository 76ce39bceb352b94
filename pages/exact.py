"""Why it is exact: the toy view, the real view, wrong rules side by side, and a rule composer."""
import pandas as pd
import streamlit as st
import torch

from ui import family, jobs, shell, sidebar, state
from ui.exact_greedy_view import greedy_check
from ui.exact_tree_view import tree_rules_check
from ui.figures.exact import law_figure, toy_figure
from ui.figures.rounds import COLORS, show
from ui.i18n import N_, _, choice
from ui.lessons import exact as ex
from ui.lessons.exact_fit import chi2_pvalue, gap_words, in_words
from ui.round_view import chart

shell.page(__file__)

PRESETS = {   # names shown through _()
    N_("Draft over-confident"): ([0.35, 0.30, 0.20, 0.10, 0.05], [0.70, 0.10, 0.10, 0.05, 0.05]),
    N_("Draft misses a token"): ([0.30, 0.30, 0.20, 0.20, 0.00], [0.40, 0.40, 0.00, 0.10, 0.10]),
    N_("Nearly the same"): ([0.40, 0.25, 0.15, 0.12, 0.08], [0.38, 0.27, 0.15, 0.10, 0.10]),
    N_("Disjoint (β = 0)"): ([0.50, 0.50, 0.00, 0.00, 0.00], [0.00, 0.00, 0.40, 0.30, 0.30]),
}
TOKENS = ["self", "cls", "x", "None", "args"]

st.title(_("Why the output stays exact"))
st.caption(_("The draft changes how fast tokens arrive, never which tokens you get. Touch the numbers."))


def toy_table() -> pd.DataFrame:
    preset = st.selectbox(_("Preset"), list(PRESETS), key=choice("toy_preset"), format_func=translated())
    p, q = PRESETS[preset]
    frame = pd.DataFrame({_("token"): TOKENS, _("p (target)"): p, _("q (draft)"): q})
    return st.data_editor(frame, key=f"toy_editor_{preset}", hide_index=True, num_rows="fixed",
                          disabled=[_("token")])


def translated():
    """A format_func for the presets, made while the page runs (in its language)."""
    names = {name: _(name) for name in PRESETS}
    return lambda name: names.get(name, name)


def normalised(values) -> torch.Tensor | None:
    t = torch.tensor([max(0.0, float(v or 0)) for v in values], dtype=torch.float64)
    return None if t.sum() <= 0 else t / t.sum()


def toy_view() -> None:
    st.header(_("1 · Toy view: one drafted position"))
    left, right = st.columns([1, 2])
    with left:
        edited = toy_table()
        st.caption(_("Edit p or q; each column is renormalised to sum to 1."))
    p, q = normalised(edited[_("p (target)")]), normalised(edited[_("q (draft)")])
    if p is None or q is None:
        st.warning(_("Each column needs some positive probability."))
        return
    parts = ex.decomposition(p, q)
    with right:
        chart(toy_figure(TOKENS, p.tolist(), q.tolist(), parts.accepted.tolist(),
                         parts.from_residual.tolist()), "toy-fig")
    st.markdown(_("""
- **Drafted and accepted** (green): q(x) · min(1, p(x)/q(x)) = **min(p(x), q(x))**. Summed: β = Σ min(p, q) = **{beta:.3f}** — the chance a draft survives.
- **Rejected** with probability 1 − β = **{rejected:.3f}**; then we sample the residual norm(max(0, p − q)): the mass where the draft *under*-covers p (orange).
- **Sum**: min(p, q) + (p − q)⁺ = p, token by token. Largest gap to p here: **{gap:.1e}**.""").format(
        beta=parts.beta, rejected=1 - parts.beta, gap=float((parts.total - p).abs().max())))
    st.caption(_("Notice: the green part is capped by q and the orange part fills exactly what is "
                 "missing up to p."))
    tv_col = _("distance to p (TV)")
    rows = [{_("rule"): _(text), tv_col: float((ex.output_law(r, p, q) - p).abs().sum()) / 2,
             _("After a rejection"): _(ex.FALLBACKS[ex.RULE_FALLBACK[r]])} for r, text in ex.RULES.items()]
    st.markdown(_("**The same p and q under each verification rule** — only the correct rule is "
                  "lossless:"))
    st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder="—", key="toy_rules",
                 column_config=rule_columns(tv_col))
    jobs.csv_button([{"token": t, "p": float(p[i]), "q": float(q[i]), "min(p,q)": float(parts.accepted[i]),
                      "(1-beta)*residual": float(parts.from_residual[i]), "sum": float(parts.total[i])}
                     for i, t in enumerate(TOKENS)], "toy-view", "toy_csv")


def rule_columns(tv_col: str) -> dict:
    """Widths in pixels for the rules table, every column whole in a 1400 px window (main column
    about 940 px): the longest rule is about 490 px of 14 px text (Korean 485), a fallback 250."""
    return {_("rule"): st.column_config.TextColumn(width=515),
            tv_col: st.column_config.NumberColumn(format="%.4f", width=125,
                                                  help=_("total variation between the rule's output and p, "
                                                         "exact: 0 means lossless")),
            _("After a rejection"): st.column_config.TextColumn(width=270)}


def top_tokens(p: torch.Tensor, q: torch.Tensor, n: int = 14) -> list[int]:
    ids = torch.topk(p, min(n, len(p))).indices.tolist()
    return ids + [t for t in torch.topk(q, min(4, len(q))).indices.tolist() if t not in ids]


def real_view(pair) -> None:
    st.write(_("The first emitted token depends only on p₁ and q₁, so we compute them once with the "
               "real models for your prompt and settings, then repeat draft → draw u → accept or "
               "resample N times. Switch the rule to see a mistake leave p."))
    c1, c2, c3 = st.columns([2, 1, 1])
    rules = {r: _(text) for r, text in ex.RULES.items()}
    rule = c1.radio(_("Verification rule"), list(ex.RULES), format_func=rules.get, key="exact_rule")
    n = c2.select_slider("N", [200, 500, 1000, 2000, 5000, 10000, 20000], value=2000, key="exact_n")
    go = c3.button(_("Repeat the first round"), type="primary", key="exact_go")
    if not go and "exact_result" not in st.session_state:
        return
    if go:
        st.session_state.exact_result = sample_real(pair, rule, n)
    show_real(pair, st.session_state.exact_result)


def sample_real(pair, rule: str, n: int) -> dict | None:
    settings = state.settings()
    if settings.sampling.greedy:
        st.warning(_("Temperature is 0 (greedy): there is nothing random to check. Raise it in the "
                     "sidebar."))
        return None
    ids = pair.tokenizer(st.session_state.prompt)["input_ids"]
    if not ids or len(ids) >= pair.context:
        st.warning(_("Write a prompt (shorter than the context window) on the Step-through page first."))
        return None
    p, q = ex.first_position(pair, ids, settings.sampling)
    g, bar, samples = torch.Generator().manual_seed(settings.generator_seed), st.progress(0.0, _("sampling…")), []
    for done in range(0, n, 1000):
        samples += ex.sample_rule(rule, p, q, min(1000, n - done), g).tolist()
        bar.progress(len(samples) / n, _("{done} / {n} rounds").format(done=len(samples), n=n))
    bar.empty()
    return {"rule": rule, "p": p, "q": q, "samples": samples}


def show_real(pair, result: dict | None) -> None:
    if result is None:
        return
    p, samples = result["p"], result["samples"]
    ids = top_tokens(p, result["q"])
    counts = torch.bincount(torch.tensor(samples), minlength=len(p)).double() / len(samples)
    names = [show(pair.tokenizer.decode([t])) for t in ids] + [_("(rest)")]
    rest = lambda v: [float(v[t]) for t in ids] + [max(0.0, 1 - float(v[ids].sum()))]  # noqa: E731
    color = COLORS.accepted if result["rule"] == "correct" else COLORS.rejected
    chart(law_figure(names, rest(p), rest(counts),
                     _("emitted ({rule})").format(rule=_(ex.RULES[result["rule"]]).split(":")[0]),
                     color), "real-fig")
    pvalue = chi2_pvalue(samples, {t: float(v) for t, v in enumerate(p.tolist()) if v > 0})
    st.markdown(_("**{n} rounds** with rule *{rule}* — chi-square goodness of fit against p: "
                  "{verdict}").format(n=len(samples), rule=_(ex.RULES[result["rule"]]),
                                      verdict=in_words(pvalue)))
    tv = float((ex.output_law(result["rule"], p, result["q"]) - p).abs().sum()) / 2
    jobs.csv_button([{"token": n, "p": a, "emitted": b} for n, a, b in zip(names, rest(p), rest(counts))],
                    "real-view", "real_csv")
    st.caption(gap_words(tv, result["rule"] == "correct", pvalue, len(samples)))


def composer() -> None:
    """Build a rule from an acceptance test and a fallback; see its exact law and a sample."""
    st.header(_("3 · Compose a rule"))
    st.caption(_("Pick how a draft is tested and what is emitted when it fails. Only one of the "
                 "sixteen combinations keeps p for every p and q."))
    c1, c2 = st.columns(2)
    tests, fallbacks = ({k: _(v) for k, v in d.items()} for d in (ex.TESTS, ex.FALLBACKS))
    test = c1.radio(_("Acceptance test"), list(ex.TESTS), format_func=tests.get, key="cmp_test")
    fallback = c2.radio(_("After a rejection"), list(ex.FALLBACKS), format_func=fallbacks.get,
                        key="cmp_fallback")
    preset = st.selectbox(_("p and q"), list(PRESETS), key=choice("cmp_preset"), format_func=translated())
    p, q = (torch.tensor(v, dtype=torch.float64) for v in PRESETS[preset])
    law = ex.composed_law(test, fallback, p, q)
    n = 20000
    drawn = ex.sample_composed(test, fallback, p, q, n, torch.Generator().manual_seed(0))
    freq = torch.bincount(drawn, minlength=len(p)).double() / n
    exact_tv, sampled_tv = float((law - p).abs().sum()) / 2, float((freq - p).abs().sum()) / 2
    st.markdown("\n".join(f"{i}. {line}" for i, line in enumerate(ex.branches(test, fallback, p, q), 1)))
    same_test_note(test, fallback)
    chart(law_figure(TOKENS, p.tolist(), freq.tolist(), _("emitted ({n} draws)").format(n=n),
                     COLORS.accepted if exact_tv < 1e-9 else COLORS.rejected), "cmp-fig")
    verdict = (_("lossless for these p and q") if exact_tv < 1e-9 else
               _("biased: the output is {tv:.3f} away from p in total variation").format(tv=exact_tv))
    st.write(_("Exact distance to p: **{tv:.4f}** ({verdict}); measured over {n} draws: {measured:.4f} "
               "(sampling noise alone gives about {noise:.3f}).").format(
        tv=exact_tv, verdict=verdict, n=n, measured=sampled_tv, noise=ex.noise_tv(p, n)))


def same_test_note(test: str, fallback: str) -> None:
    """Name section 1's rows with this acceptance test, and whether they fall back the same way."""
    lines = [(_("This is section 1's rule “{rule}”.") if same else
              _("Section 1's rule “{rule}” has the same test but, after a rejection, does this: {fallback}; "
                "so its distance to p differs.")).format(rule=_(ex.RULES[rule]),
                                                        fallback=_(ex.FALLBACKS[ex.RULE_FALLBACK[rule]]))
             for rule, same in ex.same_test_rules(test, fallback)]
    if lines:
        st.caption(" ".join(lines))


toy_view()
st.divider()
st.header(_("2 · Real view: repeat the first round N times"))
active = sidebar.active_pair()
pair = family.lab_pair(active)
if pair is not None:
    real_view(pair)
st.divider()
composer()
if active is not None:
    st.divider()
    greedy_check(active, state.settings())          # the sidebar's own pair: any drafter keeps greedy text
if pair is not None:
    st.divider()
    tree_rules_check(pair, state.settings())
