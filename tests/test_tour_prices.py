"""Tour step 3 at this machine's values: its sliders start at the α̂ measured here and the profile's c,
and it draws the same sliders with this machine's pass prices beside Leviathan et al.'s formula."""
import json

from test_payoff import WIDTHS
from test_payoff_pages import file_k3, hand_profile

from ui.lessons import badges

from apptest import app


def test_the_tours_balance_step_starts_at_this_machines_values(tiny_dirs, monkeypatch, tmp_path):
    """Tour step 3: the α and c sliders start at the α̂ measured here at the sidebar's settings and the
    profile's c (not fixed numbers), and the step names the profile's price of a 5-token pass."""
    target, draft, threads = hand_profile(tiny_dirs, monkeypatch, tmp_path)
    file_k3(target, draft, threads, alpha=0.63)
    at = app(tiny_dirs, page="pages/tour.py", k=3, temperature=0.0, tour_step=2)
    assert not at.exception
    assert (at.slider(key="tour_alpha").value, at.slider(key="tour_c").value) == (0.63, 0.25)
    assert any(c.value.startswith("The sliders start at this machine's values for the active pair: α̂ = 0.63 ("
                                  "measured here at these settings), c = 0.25") for c in at.caption)
    said = [m.value for m in at.markdown if m.value.startswith(("With this machine's passes", "Best k for these"))]
    from specdec.trace.theory import speedup_with_verify  # the same α and c with this machine's passes
    best, k = max((speedup_with_verify(0.63, m - 1, 0.25, WIDTHS[m]), m - 1) for m in range(2, 14))
    assert said[0].startswith(f"With this machine's passes (dotted) the best k for these sliders is **{k}**, for an "
                              f"expected **{best:.2f}×**"), said          # this machine's first (review 37)
    assert f"(v({k + 1}) = {WIDTHS[k + 1]:.2f})" in said[0] and len(said) == 1, said
    from specdec.trace.theory import best_k, expected_speedup  # the formula's pick: small print (review 42)
    free = best_k(0.63, 0.25, 12)
    assert any(c.value.startswith(f"The formula alone, with checking free (solid line), would pick k = {free} for "
                                  f"{expected_speedup(0.63, free, 0.25):.2f}×") for c in at.caption)
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)              # both curves drawn
    assert [t["name"] for t in chart["data"]] == ["the formula: checking costs one step", "with this machine's passes"]
    assert not any("Whole runs at k" in m.value for m in at.markdown)                 # none at that k yet
    # whole runs measured at the priced k: set beside the sliders' rounds-only figure (review 43: 1.16× beside a
    # measured 1.03×, nothing between them)
    from specdec.records.provenance import Clock
    from specdec.settings import Settings
    from ui.lessons import result_cache, store
    figure = store.Figure(speedup=0.97, speedup_min=0.95, speedup_max=0.99, clock=Clock.WALL, repeats=3,
                          mean_acceptance_length=1.6, alpha=0.63)
    key = store.key(target, draft, Settings(k=k, temperature=0.0), k, store.PromptSet.of(["a"], False, 16, "speed"),
                    Clock.WALL, store.Ran(threads=threads))
    result_cache.save(store.KIND, store._as_dict(key), store.Filed(figure, "ksweep", 2.0))
    at.run()
    # in the text right under the headline, and below the expected figure where it is (review 48)
    texts = [m.value for m in at.markdown]
    head = next(i for i, t in enumerate(texts) if "the best k for these sliders is" in t)
    said = texts[head + 1]
    assert said.startswith(f"Whole runs at k = {k} (the sidebar's T = 0) measured **0.97×** {badges.here()}: "
                           "they also pay for reading the prompt") and "come in below the expected figure" in said, said
