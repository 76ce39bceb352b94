"""When it is fast, section 5, the calculator "Where would it pay?": a round priced on the chosen
machine by its roofline (ui/lessons/fast_elsewhere.py), beside published speedups (ui/lessons/fast_published.py)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from specdec.bench import roofline
from specdec.bench.machine import Profile
from specdec.records.provenance import Provenance
from specdec.wording import times
from ui.figures import fast_regime as figures
from ui.i18n import _, choice
from ui.lessons import badges, fast_elsewhere, fast_published
from ui.round_view import chart
from ui.safe import md


def render(profile: Profile | None) -> None:
    st.subheader(_("Where would it pay? The same calculator for other machines"))
    alphas, where = fast_elsewhere.measured_alphas()
    if not alphas:
        st.info(_("The default pair's measured acceptance is not shipped with this copy, so the calculator "
                  "has nothing to price."))
        return
    machine, target, draft, temperature, floor = choose(profile, alphas)
    try:
        context = fast_elsewhere.CONTEXT
        roof = fast_elsewhere.calculate(machine, target, draft, alphas[temperature], context=context)
        calc = fast_elsewhere.calculate(machine, target, draft, alphas[temperature], floor_us=floor, context=context)
    except ValueError:
        st.warning(_("Choose a draft smaller than the target: a draft as big as the target saves nothing."))
        return
    headline(calc, roof, machine, target, draft, temperature)
    if profile is not None and machine.source == roofline.here(0.0, 0.0).source:
        ceiling(profile, machine)
    chart(figures.calculator_figure(roof.rows, calc.rows if floor else None, floor), "fast-regime-calc")
    anchors()
    method(machine, calc, temperature, where)


def choose(profile: Profile | None, alphas: dict[float, float]):
    """The machine (this one only once profiled), the target, the draft and the temperature whose
    acceptance is used."""
    here = [roofline.here(profile.bandwidth_gbs, profile.gflops)] if profile else []
    machines = [*here, *roofline.PUBLISHED]
    cols = st.columns([1.4, 1, 1, 1, 1, 1])        # the machine names are the longest
    chosen = cols[0].selectbox(_("Machine"), range(len(machines)), index=len(machines) - 1,
                               key=choice("regime_machine"), format_func=lambda i: _(machines[i].name),
                               help="\n".join(f"- {_(m.name)}: {_(m.source)}" for m in machines))
    size = cols[1].selectbox(_("Target size"), [m.params for m in roofline.MODELS], index=2, key=choice("regime_size"),
                             format_func=lambda p: next(m.name for m in roofline.MODELS if m.params == p))
    small = cols[2].selectbox(_("Draft size"), range(len(fast_elsewhere.DRAFTS)), index=1, key=choice("regime_draft"),
                              format_func=lambda i: fast_elsewhere.DRAFTS[i].name)
    fmt = cols[3].selectbox(_("Weights (both models)"), list(fast_elsewhere.FORMATS), key=choice("regime_format"))
    temps = sorted(alphas)
    temperature = cols[4].selectbox(_("α measured at T ="), temps, key=choice("regime_temperature"),
                                    format_func=lambda t: f"{t:g}")
    floor = cols[5].selectbox(_("Layer floor"), fast_elsewhere.FLOORS_US, index=2, key=choice("regime_floor"),
                              format_func=lambda us: _("none") if not us else f"{us} µs",
                              help=_("The shortest time a layer can take however little it reads: its kernels "
                                     "must still be launched (about ten a layer on a GPU). An assumption to "
                                     "choose, not a measurement; none: the roofline alone."))
    draft = fast_elsewhere.DRAFTS[small]
    return (machines[chosen], fast_elsewhere.model(size, fmt), fast_elsewhere.model(draft.params, fmt, draft.name),
            temperature, floor)


def headline(calc: fast_elsewhere.Calculation, roof: fast_elsewhere.Calculation, machine: roofline.Machine,
             target: roofline.Model, draft, temperature: float) -> None:
    """The range speculation would reach (the layer floor's figure to the roofline's) on the machine and
    models chosen, named in the sentence (review 21: the figure read as this machine's), then where it comes from."""
    best, top = calc.best, roof.best
    where = _("{machine} (target {target}, draft {draft})").format(machine=_(machine.name), target=target.name,
                                                                         draft=draft.name)
    if calc.floor_us and abs(best.speedup - top.speedup) >= 0.005:
        st.markdown(badges.elsewhere() + " " + _("On {where}, speculation would reach **{low}–{high}**: {high} at "
                                                 "k = {k_top} by the roofline alone, {low_x} at k = {k} if every "
                                                 "layer takes at least {floor:g} µs.").format(
            where=where, low=f"{best.speedup:.2f}", high=times(top.speedup), low_x=times(best.speedup), k_top=top.k,
            k=best.k, floor=calc.floor_us))
    else:
        st.markdown(badges.elsewhere() + " " + _("On {where}, speculation would reach **{best}**, at k = {k}.").format(
            where=where, best=times(best.speedup), k=best.k))
    st.caption(_("There a target step takes at least {step:.2f} ms and a {draft} draft step {draft_ms:.3f} ms: "
                 "c = {c:.3f}; a pass of {m} tokens costs {v:.2f} steps. α = {alpha:.2f}: the default pair's "
                 "acceptance on section 4's code and structured prompts at T = {t:g}, **an assumption** for "
                 "these models: a larger pair may agree more or less often.").format(
        step=calc.step_ms, draft=draft.name, draft_ms=calc.draft_ms, c=calc.c, m=best.k + 1, v=best.v,
        alpha=calc.alpha, t=temperature))


def ceiling(profile: Profile, machine: roofline.Machine) -> None:
    """Where the calculator prices this machine: its roofline against the passes it measured (review 22:
    "1.71×" for an 8B target here read as a forecast, while section 5 shows passes far above the roofline)."""
    if not profile.params_m or 5 not in profile.v:
        return
    bound = roofline.v(machine, roofline.Model("", profile.params_m / 1e3, profile.weight_mb / profile.params_m), 5)
    if profile.v[5] <= 1.02 * bound:
        return
    st.caption(_("This machine's own passes cost more than its roofline: a pass of 5 tokens of its target cost "
                 "**{v5:.2f}** steps here, where the roofline prices {roof:.2f}. Read its figure as a ceiling; the "
                 "answer box “Does it pay here?” measures this machine.").format(v5=profile.v[5], roof=bound))


def _number(value: float | None) -> str:
    """A published figure to two decimals, or "—" where none was published (not "None")."""
    return "—" if value is None else f"{value:.2f}"


def anchors() -> None:
    """Published speedups, labelled as such, with what one of their rounds cost where computable."""
    cited = {_(a.setting).partition(": ")[0]: _(a.setting).partition(": ")[2] for a in fast_published.ANCHORS}
    rows = [{_("method"): _(a.method), _("published speedup"): _("{x}×").format(x=_(a.speedup)),   # 1.49배 in Korean
             _("tokens a round (L)"): _number(a.tokens), _("a round in target steps"): _number(a.round_steps),
             _("source"): _(a.setting).partition(": ")[0]}
            for a in fast_published.ANCHORS]
    st.caption(badges.published() + " " + _("For comparison (none measured here):"))
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",       # 905 px: the 928 px column at 1400 px
                 column_config={_("method"): st.column_config.TextColumn(width=190),
                                _("published speedup"): st.column_config.TextColumn(width=115),
                                _("tokens a round (L)"): st.column_config.TextColumn(width=130),
                                _("a round in target steps"): st.column_config.TextColumn(width=160),
                                _("source"): st.column_config.TextColumn(width=310)})
    st.caption("\n".join(f"- {source}: {setting}" for source, setting in cited.items() if setting))


def method(machine: roofline.Machine, calc: fast_elsewhere.Calculation, temperature: float, where: Provenance) -> None:
    with st.expander(_("How the calculator prices a round")):
        st.write(_("Every price comes from the chosen machine's roofline, not from this CPU's measurements: a "
                   "step of M tokens takes the longer of reading the weights and the request's KV cache of {ctx} "
                   "tokens (bytes / memory rate) and computing them (2 × parameters × M / compute rate); c is the "
                   "draft's step over the target's, v(M) the target's M-token pass over its one-token step. "
                   "Computing overtakes reading there from {ridge:.0f} tokens a pass."
                   ).format(ridge=calc.ridge, ctx=f"{fast_elsewhere.CONTEXT:,}"))
        st.write(_("Machine figures: {source}. α = {alpha:.2f}: the default pair's acceptance at T = {t:g}, "
                   "measured on {cpu} ({date}); acceptance depends on the models and the text, not on the "
                   "machine, so it is carried over as if the larger pair agreed as often.").format(
            source=_(machine.source), alpha=calc.alpha, t=temperature, cpu=md(where.cpu or "?"),
            date=where.date or "?"))
        steps = [a.round_steps for a in fast_published.ANCHORS if a.round_steps is not None]
        best = calc.best
        st.write(_("The layer floor: a layer's kernels take a few µs each however little they read, so a layer "
                   "takes at least about ten of them. A large target's layers take far longer than that; a small "
                   "draft's do not, and its step is its layers × the floor. Layers: SmolLM2-135M 30, vicuna-68m 2, "
                   "Llama 3.2 1B 16, Llama 3.1 8B 32, 70B 80 — which is why drafts that pay on GPUs are shallow. "
                   "The published rows show what real engines paid: their rounds cost {lo:.2f}–{hi:.2f} target "
                   "steps, where this calculator prices a round at k = {k} at {price:.2f}.").format(
            lo=min(steps), hi=max(steps), k=best.k, price=best.k * calc.c + best.v))
