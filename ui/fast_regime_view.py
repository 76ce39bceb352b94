"""When it is fast, section 5: the machine's limits — this machine's roofline beside its measured
pass prices, and the same calculator for other machines and model sizes."""
from __future__ import annotations

import streamlit as st

from specdec.bench import machine
from ui import family, fast_elsewhere_view
from ui.figures import fast_regime as figures
from ui.i18n import _
from ui.lessons import badges, fast_regime
from ui.lessons.bench_words import kernel_line
from ui.round_view import chart
from ui.safe import md


def render(pair) -> None:
    st.header(_("5 · Why it pays here or not: the machine's limits"))
    profile = machine.of(pair)
    if profile is None:
        measure_button(pair)
    else:
        here(profile, pair)
    with st.expander(_("Reading against computing: why a pass costs more as it checks more tokens")):
        st.write(_("A target pass must read every weight once, however many tokens it checks, and it "
                   "must compute about two operations per weight for each token. Reading costs the same "
                   "for 1 token or 9; computing grows with them. In the roofline's picture, while reading is the "
                   "slower of the two, a pass of k + 1 tokens costs about one step and speculation pays; once "
                   "computing dominates, the pass costs more steps and eats the gain. A real kernel can fall short "
                   "of the picture: the passes measured above are this machine's own."))   # review 46: v(2) = 1.17
    elsewhere(profile)


def measure_button(pair) -> None:
    st.info(_("This machine has not been measured yet with this backend ({backend}). The lab measures it "
              "in the background after it starts, or now with the button below.").format(backend=pair.passes.name))
    if st.button(_("Measure this machine (about 20 s)"), key="regime_measure"):
        measure_now(pair)


def measure_now(pair, where=st) -> None:
    """This machine's prices measured now for the pair's target and every draft of its family (its
    profile, replacing the one kept), with a progress bar; then the page again."""
    bar = where.progress(0.0)
    machine.save(machine.measure(pair, family.profile_drafts(pair),
                                 lambda done, total, text: bar.progress(done / total, text)))
    st.rerun()


def here(profile: machine.Profile, pair=None) -> None:
    if not machine.bounded(profile):
        unbounded(profile, pair)
        return
    h = fast_regime.here(profile)
    st.write(badges.profile() + " " + _("From about **{ridge:.1f} tokens** a pass is limited by computing, by the "
                                        "roofline; measured here, a pass of 5 tokens cost **{v5:.2f}** steps (a step "
                                        "took {step:.1f} ms).").format(ridge=h.ridge, v5=h.measured[5],
                                                                       step=profile.step_ms))
    st.markdown("\n".join("- " + line for line in (
        _("Memory: a step of the target on {backend} reads **{mb:.0f} MB** of weights; at **{gbs:.1f} GB/s** that "
          "alone takes {read:.1f} ms.").format(backend=profile.backend, mb=profile.weight_mb,
                                               gbs=profile.bandwidth_gbs, read=h.read_ms),
        _("Compute: {gflop:.2f} GFLOP a token; at **{rate:.0f} GFLOP/s** that takes {compute:.1f} ms.").format(
            gflop=2 * profile.params_m / 1e3, rate=profile.gflops, compute=h.compute_ms),
        _("So by the roofline a pass of 5 tokens takes at least {roof5_ms:.1f} ms, {roof5:.2f} of a measured step; "
          "measured, it took {v5:.2f} steps: real kernels run below the roofline, a one-token step too.").format(
            roof5_ms=h.roof[5] * profile.step_ms, roof5=h.roof[5], v5=h.measured[5]))))
    if (early := fast_regime.grows_early(h, profile.step_ms)) is not None:
        st.caption(early)
    if profile.arithmetic:
        st.caption(_("The compute rate is that of the arithmetic this target runs, timed here: {arithmetic}.")
                   .format(arithmetic=md(kernel_line(profile.arithmetic))))
    chart(figures.price_figure(h.measured, h.roof), "fast-regime-price")
    st.caption(_("The measured prices sit above the roofline: it is a lower bound (real kernels reach "
                 "neither the memory rate nor the compute rate), but both rise as soon as a pass has a "
                 "few tokens. Draft cost ratios measured with them: {costs}.").format(
        costs=", ".join(f"{md(name)} c = {c:.3f}" for name, c in profile.c.items()) or "—"))


def unbounded(profile: machine.Profile, pair) -> None:
    """A profile whose rates put the roofline above a pass it measured (a bound cannot lie above what ran):
    its rates were timed too low, so no bound is drawn from them; its measured prices stand, and a button
    times them all again."""
    st.write(badges.profile() + " " + _("Measured here, a pass of 5 tokens cost **{v5:.2f}** steps (a step took "
                                        "{step:.1f} ms).").format(v5=profile.v[5], step=profile.step_ms))
    m = max(profile.v, key=lambda m: machine.bound_ms(profile, m) / profile.v[m])     # the widest miss
    st.warning(_("The memory and compute rates timed with these prices ({gbs:.1f} GB/s, {rate:.0f} GFLOP/s) would "
                 "make a pass of {m} tokens take at least {bound:.1f} ms, more than the {ran:.1f} ms it took: a "
                 "lower bound cannot lie above what ran, so they were timed too low (the machine was busy). No "
                 "roofline is drawn from them.").format(gbs=profile.bandwidth_gbs, rate=profile.gflops, m=m,
                                                       bound=machine.bound_ms(profile, m),
                                                       ran=profile.v[m] * profile.step_ms))
    if pair is not None and st.button(_("Measure these prices again (about 40 s)"), key="regime_again",
                                      icon=":material/speed:"):
        measure_now(pair)


def elsewhere(profile: machine.Profile | None) -> None:
    fast_elsewhere_view.render(profile)
    on_a_gpu(fast_regime.shipped_alpha()[0])


def on_a_gpu(alpha: float) -> None:
    """The pass prices measured on a GPU (scripts/gpu_pass_cost.py), beside the roofline's, with the
    draft's price measured there too (never this CPU's c)."""
    measured = fast_regime.gpu_measured()
    if measured is None:
        st.caption(_("No GPU measurement comes with this copy of the lab yet; once one does, this section "
                     "shows the default pair's passes of 1 to 9 tokens measured on a GPU beside the "
                     "roofline's prediction."))
        return
    c = measured.c.get("draft", min(measured.c.values()))
    rows = fast_regime.gpu_beside_roofline(measured, alpha, c)
    best = max(rows, key=lambda r: r.speedup_measured)
    st.write(_("Measured on a GPU ({device}, {dtype}, {date}): a pass of 5 tokens cost **{v5:.2f}** steps "
               "where the roofline for the datacenter GPU predicts {roof5:.2f}. At those measured prices, "
               "with the same α = {alpha:.2f} and the draft's c = {c:.3f} measured there too, speculation "
               "would reach **{best:.2f}×** at k = {k}.").format(
        device=md(measured.device), dtype=measured.dtype, date=measured.provenance.date, v5=rows[3].v_measured,
        roof5=rows[3].v, alpha=alpha, c=c, best=best.speedup_measured, k=best.k))
    chart(figures.gpu_figure(rows), "fast-regime-gpu")
