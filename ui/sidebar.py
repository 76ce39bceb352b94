"""The sidebar shared by every page: model pair, sampling settings, drafter, policy."""
from __future__ import annotations

import streamlit as st

import specdec
from specdec.bench import machine
from specdec.drafters.policies import POLICIES, PRICED
from specdec.drafters.registry import DRAFTERS, chain_for
from specdec.models import precision
from specdec.models.backend import BACKEND_AUTO, Backend
from specdec.models.names import DEFAULT_TARGET
from specdec.models.precision import PRECISION_AUTO, Precision
from specdec.settings import options
from specdec.wording import N_
from ui import catalog, fast_regime_view, i18n, loaders, payoff_view, state
from ui.i18n import _
from ui.lessons import badges, pair_card
from ui.lessons.price_table import markdown as price_markdown
from ui.lessons.price_table import rows as price_table_rows


def shown_as(names: dict[str, str]):
    """A format_func from a mapping made while the page runs (in the session's language);
    options not in it are shown as they are."""
    return lambda option: names.get(option, option)


def _requested() -> tuple[str, str | None] | None:
    choice = catalog.by_label(st.session_state.pair_label)
    if choice is not None:
        return choice.target, choice.draft
    target, draft = st.session_state.custom_target.strip(), st.session_state.custom_draft.strip()
    return (target, draft) if target and draft else None


def _pair_widgets() -> None:
    names = {c.label: _(c.short) for c in catalog.CHOICES} | {catalog.CUSTOM: _(catalog.CUSTOM)}
    st.selectbox(_("Model pair (target ← draft)"), catalog.labels(), key=i18n.choice("pair_label"),
                 format_func=shown_as(names),
                 help=_("The embedded models work offline; hub pairs need a connection or a "
                        "local Hugging Face cache."))
    choice = catalog.by_label(st.session_state.pair_label)
    if choice is not None:           # the full names, which the narrow box cannot show
        kind = f" ({_(choice.draft_kind)})" if choice.draft_kind else ""
        st.caption(_("Target **{target}**, draft **{draft}**{kind} · {where}").format(
            target=choice.target, draft=choice.draft or _("none (n-gram lookup or early exit)"), kind=kind,
            where=_("embedded, offline") if choice.embedded else _("from the hub, needs a connection")))
    if st.session_state.pair_label == catalog.CUSTOM:
        st.text_input(_("Target: hub id or local directory"), key="custom_target",
                      placeholder=_("e.g. openai-community/gpt2-medium"))
        st.text_input(_("Draft: hub id or local directory"), key="custom_draft",
                      placeholder=_("e.g. distilbert/distilgpt2"))
    if catalog.hosted():
        st.caption(_("Hosted mode: only the listed models can be loaded."))
    _precision_widget()
    _backend_widget()


BACKENDS = {BACKEND_AUTO: N_("auto (torch)"),
            "torch": N_("torch (the target's own modules)"),
            "onnx": N_("ONNX Runtime (int4 build)")}


def _backend_widget() -> None:
    st.selectbox(_("Target backend"), list(BACKENDS), key=i18n.choice("backend"),
                 format_func=shown_as({k: _(v) for k, v in BACKENDS.items()}),
                 help=_("What runs the target's passes. Auto is torch: the target's own modules with the "
                        "kernels chosen on this computer, every pass on one path. ONNX Runtime runs a 4-bit "
                        "build re-quantised from the weights: a different model (decoding stays exact for "
                        "it), offered for comparison. Tree drafters and batches always verify on torch."))


PRECISIONS = {PRECISION_AUTO: N_("auto (fastest step here)"),
              "float32": N_("float32 (the GGUF's weights)"),
              "bfloat16": N_("bfloat16 weights"), "int4": N_("int4 (groups of 32)"),
              "intdot": N_("intdot (integer sums)")}


def _precision_widget() -> None:
    st.selectbox(_("Target precision"), list(PRECISIONS), key=i18n.choice("precision"),
                 format_func=shown_as({k: _(v) for k, v in PRECISIONS.items()}),
                 help=_("What the target's linear layers multiply in: float32 keeps the GGUF's weights as they "
                        "are, int4 packs them 4 bits each in groups of 32, intdot sums integers over the GGUF's "
                        "own blocks. Auto times every one on this computer when the model loads and keeps the "
                        "fastest one-token step. Each precision is its own target, and decoding stays exact for "
                        "it: every draft is checked against the target as it runs."))


def precision_caption(pair: specdec.Pair) -> None:
    """At the foot of the sidebar: how the loaded target multiplies (the timed or chosen precision)
    and which backend runs its passes (with the timings that chose it)."""
    from specdec.models import kernels
    from ui.lessons.bench_words import kernel_choice, kernel_line
    if pair.passes.name == Backend.ONNX:
        st.caption(_("The target runs on ONNX Runtime: a 4-bit build of its weights (a re-quantised "
                     "model, not the GGUF's own 4-bit blocks).") + _agreement())
        return
    st.caption(_("The target multiplies in: {how}.").format(how=kernel_line(kernels.describe(pair.target)))
               + _fidelity(pair), help=kernel_choice() if precision.of(pair.target) == Precision.INTDOT else None)


def machine_notes(pair: specdec.Pair) -> None:
    """At the foot of the sidebar, on every page, folded: this machine's prices (its title gives the
    two that matter most) and how the target multiplies."""
    found = machine.of(pair)
    c = found.c.get(pair.draft_name) if found and pair.draft_name else None
    title = (_("This machine's prices") if found is None else
             _("This machine: a target step {step:.1f} ms").format(step=found.step_ms) if c is None else
             _("This machine: a target step takes {step:.1f} ms, a draft step {c:.3f} of it (c)").format(
                 step=found.step_ms, c=c))
    if (said := payoff_view.sidebar_verdict(pair, state.settings())) is not None:
        st.sidebar.caption(said)
    payoff_view.card_button(pair, state.settings())
    with st.sidebar.expander(title, icon=":material/memory:"):
        profile_caption(pair)
        price_table(pair, found)
        if found is not None and st.button(_("Measure these prices again (about 40 s)"), key="profile_again",
                                           help=_(AGAIN)):
            fast_regime_view.measure_now(pair)
        precision_caption(pair)
        st.caption(_("Badges beside a figure say whose it is:") + " " + pair_card.legend())


AGAIN = N_("Every prediction prices at this machine's profile. The machine's load moves a draft step's cost: "
           "when the measurements below paid other prices, measure the profile again and every prediction follows.")


def price_table(pair: specdec.Pair, found) -> None:
    """Every c (and v) of this draft the pages show, whose each is (ui/lessons/price_table.py)."""
    if not pair.draft_name:
        return
    k, t = state.settings().k, state.settings().temperature
    found_rows = price_table_rows(found, pair.target_name, pair.draft_name, k, t)
    if len(found_rows) > 1:
        st.markdown(price_markdown(found_rows, k))
        st.caption(_("Every prediction uses the first line. Each measurement paid its own prices as it ran: "
                     "timings move with the machine and its load."))


def profile_caption(pair: specdec.Pair) -> None:
    """This machine's prices, the one set of them that every prediction here is computed from (the
    profile, specdec/bench/machine.py)."""
    found = machine.of(pair)
    if found is None:
        st.caption(_("This machine's prices for this target are not measured yet: the lab measures them "
                     "in the background after it starts (about 30 s), or on When it is fast, section 5."))
        return
    c = found.c.get(pair.draft_name) if pair.draft_name else None
    widths = [m for m in (2, 3, 5) if m in found.v]
    st.caption(_("This machine's prices, behind every prediction here (measured {when}, load {load:.1f} per "
                 "core):").format(when=found.measured_at, load=found.load) + "\n\n" + "\n".join(
        ["- " + _("a target step **{step:.1f} ms**").format(step=found.step_ms),
         "- " + _("a pass of {m} tokens: {v} steps").format(m=" / ".join(map(str, widths)),
                                                           v=" / ".join(f"{found.v[m]:.2f}" for m in widths))]
        + ([] if c is None else ["- " + _("a draft step: c = {c:.3f} of a target step").format(c=c)])))


def _agreement() -> str:
    """" Its top token agrees with the GGUF's …" from the shipped measurement (bench/agreement.py)."""
    from specdec.bench.agreement import shipped
    found = shipped()
    if not found:
        return ""
    return " " + _("Its most likely next token is the GGUF target's at {share} of positions ({chats} "
                   "held-out chats, measured on {cpu}).").format(share=f"{100 * found.agreement:.0f} %",
                                                                chats=found.chats, cpu=found.provenance.cpu)


def _fidelity(pair: specdec.Pair) -> str:
    """" Against transformers' float32 …" from the shipped measurement of this precision
    (bench/fidelity.py), for the embedded real target only."""
    from specdec.bench.fidelity import shipped
    from specdec.models import precision
    found = shipped(precision.of(pair.target)) if pair.target_name == DEFAULT_TARGET else None
    if not found:
        return ""
    badge = badges.shipped(found.provenance.cpu, short=True, date=found.provenance.date)    # whose the check is
    return "\n\n" + badge + " " + _("Against transformers' float32 load of the same GGUF: the same greedy text in "
                                     "{same} of {chats} held-out chats ({tokens} tokens each), the same top token at "
                                     "{share} of positions.").format(
        same=found.identical_chats, chats=found.chats, tokens=found.tokens, share=f"{100 * found.top1_agreement:.1f} %")


def _cpu() -> str:
    from specdec.models.kernels import cpu_model
    return cpu_model()


def _choices_shown(name: str) -> dict[str, str]:
    """How the sidebar names each choice, in the session's language."""
    if name == "drafter":
        return {n: _(d.label) for n, d in DRAFTERS.items()}
    return {n: _(n) for n in options()[name][1].choices()}


def _choice_help(name: str, opt) -> str | None:
    if name == "policy":
        return " ".join(f"{n}: {_(p.help)}." for n, p in POLICIES.items())
    return None


def _widget(name: str, opt) -> None:
    """One setting's widget, as Settings describes it (label, kind, span, choices)."""
    label = _(opt.label)
    if opt.widget == "slider":
        low, high, step = opt.span
        st.slider(label, low, high, step=step, key=name)
    elif opt.widget == "number":
        low, high, step = opt.span
        st.number_input(label, min_value=low, max_value=high, step=step, key=name, help=_(
            "A whole number from {low} to {high:,}; the same seed and settings give the same run.").format(
            low=low, high=high))
    else:
        show = st.radio if opt.widget == "radio" else st.selectbox
        show(label, list(opt.choices()), key=i18n.choice(name), format_func=shown_as(_choices_shown(name)),
             help=_choice_help(name, opt))


def _sampling_widgets() -> None:
    for name in state.SIDEBAR:
        opt = options()[name][1]
        if opt.shown_when is None or st.session_state[opt.shown_when[0]] == opt.shown_when[1]:
            _widget(name, opt)
        if name == "drafter":
            _switched_note()
        _set_by_button_note(name)


def _set_by_button_note(name: str) -> None:
    """One line under a setting a lesson's button changed, while the change holds."""
    was = state.set_by_button_was(name)
    if was is None:
        return
    shown = was if options()[name][1].widget in ("slider", "number") else shown_as(_choices_shown(name))(was)
    st.caption(_("A button on a lesson page set this (it was {was}); every page reads it now, and this control "
                 "sets it back.").format(was=shown))


SWITCHED = "_drafter_switched"     # (pair label, the drafter chosen instead) while it holds


def _fit_drafter() -> None:
    """A listed pair whose draft the chosen drafter cannot run gets one that can, before the
    widgets draw: a pair with no draft model (Gemma 3 270M, SmolLM2 alone) the first drafter that
    needs none (n-gram lookup); a draft of another tokenizer the one that bridges vocabularies."""
    choice = catalog.by_label(st.session_state.pair_label)
    kind = DRAFTERS.get(st.session_state.drafter)
    if choice is None or kind is None or not kind.needs_draft_model:
        return
    if choice.draft is None:
        st.session_state.drafter = chain_for(has_draft=False).name
    elif choice.across and not kind.bridges_vocab:
        st.session_state.drafter = next(d.name for d in DRAFTERS.values() if d.bridges_vocab)
    else:
        return
    st.session_state[SWITCHED] = (choice.label, st.session_state.drafter)


def _switched_note() -> None:
    """One line under the drafter, while the switch `_fit_drafter` made still holds."""
    label, drafter = st.session_state.get(SWITCHED) or (None, None)
    if label != st.session_state.pair_label or drafter != st.session_state.drafter:
        return
    choice = catalog.by_label(label)
    why = (_("This pair has no draft model, so the drafter is now {drafter}.") if choice.draft is None else
           _("This draft has another tokenizer than the target, so the drafter is now {drafter}."))
    st.caption(why.format(drafter=_(DRAFTERS[drafter].label)))


def render() -> None:
    state.init()
    i18n.switch()
    _fit_drafter()
    with st.sidebar:
        _pair_widgets()
        _sampling_widgets()
    state.remember()


def active_pair() -> specdec.Pair | None:
    """The pair to use: the requested one if it loads, else the last one that did."""
    requested, active = _requested(), st.session_state.get("active_pair")
    if requested is not None and requested != active:
        try:
            loaders.load(*requested)
            st.session_state.active_pair = active = requested
        except specdec.LoadError as err:
            kept = _(" Still using {target} ← {draft}.").format(
                target=active[0], draft=active[1] or _("no draft model")) if active else ""
            st.sidebar.error(_("Could not load that pair: {why}.").format(why=loaders.describe(err))
                             + kept)
    if active is None:
        return None
    try:
        pair = loaders.load(*active)
        machine_notes(pair)
        return with_prices(pair, state.settings())
    except specdec.LoadError as err:
        st.error(_("Could not load the models: {why}.").format(why=loaders.describe(err)))
        return None


def with_prices(pair: specdec.Pair, settings, say: bool = True) -> specdec.Pair:
    """The pair with this machine's measured prices when the "priced" policy will read them; says
    so in the sidebar when none are measured yet (the policy then keeps k constant)."""
    if settings.policy != PRICED:
        return pair
    priced = machine.priced(pair, settings.drafter)
    if priced.prices is None and say:
        st.sidebar.caption(_("The priced policy has no prices of this machine for this drafter yet, so k "
                             "stays at {k}: When it is fast measures them.").format(k=settings.k))
    return priced
