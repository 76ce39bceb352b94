"""Does it pay here? on the pages (issue 51, deliverable 2): Home, Step through, When it is fast and
Drafters compared state one figure for the same pair and settings, the box measures its own
settings, and a constant policy is told what the priced one would predict (AppTest, tiny models,
a profile and figures written by hand)."""
import json
import re

import torch
from test_payoff import WIDTHS

from specdec.bench import machine
from specdec.records.provenance import Clock
from ui.lessons import badges

from apptest import app, working


def headline_figure(at) -> str:
    """The figure the page's "Does it pay here?" states (its first bold number)."""
    found = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert len(found) == 1, found
    return re.search(r"\*\*([0-9.]+)×\*\*", found[0]).group(1)


def test_four_pages_state_one_figure_for_the_same_settings(tiny_dirs, monkeypatch, tmp_path):
    from specdec.models.kernels import cpu_model
    from specdec.settings import Settings
    from ui.lessons import result_cache, store
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    target, draft = str(tiny_dirs / "target"), str(tiny_dirs / "draft")
    threads = torch.get_num_threads()
    profile = machine.Profile(cpu_model(), "torch", threads, 5.0, WIDTHS, {draft: 0.25},
                               9.0, 50.0, 80.0, 135.0, target=target)
    machine.STORE.write_text(json.dumps({profile.key(): json.loads(json.dumps(machine.asdict(profile)))}))
    settings = Settings(k=3, temperature=0.0, policy="priced")           # Home's race: greedy, k by prices
    ran = store.Ran(threads=threads)
    fig = store.Figure(speedup=0.87, speedup_min=0.81, speedup_max=0.93, clock=Clock.WALL, repeats=3,
                       mean_acceptance_length=2.2, alpha=0.6)
    older = store.Figure(speedup=1.5, speedup_min=1.4, speedup_max=1.6, clock=Clock.WALL, repeats=3)
    for figure, name, at in ((older, "speed", 1.0), (fig, "drafters/all", 2.0)):       # the newest is stated
        k = store.key(target, draft, settings, 3, store.PromptSet.of(["a"], False, 16, name), Clock.WALL, ran)
        result_cache.save(store.KIND, store._as_dict(k), store.Filed(figure, "drafters", at))
    state = {"k": 3, "temperature": 0.0, "policy": "priced", "max_new_tokens": 4}
    shown = {}
    for page in ("pages/home.py", "pages/step_through.py", "pages/fast.py", "pages/drafters.py"):
        at = app(tiny_dirs, page=page, **state)
        shown[page] = headline_figure(at)
        why = " ".join(c.value for c in at.caption if c.value.startswith("Why: a round"))
        # priced at α = 0.6 up to k = 3: k = 1 keeps 1.6 tokens for 0.25 + 1.2 = 1.45 steps (1.10 a step),
        # k = 2 1.96 for 1.9 (1.03), k = 3 2.176 for 2.35 (0.93): one draft, 0.91 steps a token
        assert ("**1.45 steps** (1 step: the target alone making one token) and keeps **1.60 tokens**: "
                "**0.91 steps a token**") in why, page
        detail = working(at)
        assert "A round: 1 draft at 0.250 (c) and a check of 2 tokens at 1.20 (v): 1.45 steps." in detail, page
        assert "At 0.91 steps a token, the rounds alone run faster" in detail, page
        assert "α̂ = 0.60 as Drafters compared measured it here: computed" in detail, page
        line = next(c.value for c in at.caption if c.value.startswith(
            f"For T = 0, k by this machine's prices, up to 3, drafter: draft model ({tiny_dirs / 'draft'})"))
        assert line.endswith("× 48 tokens (When it is fast)") or page == "pages/home.py", line   # its prompts
        if page == "pages/fast.py":      # theory starts at this machine: α̂ 0.6 (the figure), c 0.25, ε (1.8 − 1) / 4
            assert (at.slider(key="fast_alpha").value, at.slider(key="fast_c").value,
                    at.slider(key="fast_eps").value) == (0.6, 0.25, 0.2)
        prices = [c.value for c in at.sidebar.caption if c.value.startswith("This machine's prices, behind")]
        assert len(prices) == 1 and ("- a target step **5.0 ms**\n- a pass of 2 / 3 / 5 tokens: 1.20 / 1.40 / 1.80 "
                                     "steps\n- a draft step: c = 0.250 of a target step") in prices[0], prices
        source = working(at)
        assert "The newest of 2 measurements here at these settings (each on its own prompts), which ranged " \
               "0.87–1.50×." in source, page
        assert sidebar_figure(at) == shown[page], page          # the sidebar's line: the box's figure (review 32)
    assert set(shown.values()) == {"0.87"}, shown
    assert sidebar_figure(app(tiny_dirs, page="pages/where.py", **state)) == "0.87"     # a page without the box


def sidebar_figure(at) -> str:
    """The figure of the sidebar's one line at its settings, on every page."""
    found = [c.value for c in at.sidebar.caption if c.value.startswith("**At these settings:**")]
    assert len(found) == 1, found
    return re.search(r"\*\*([0-9.]+)×\*\*", found[0]).group(1)


def hand_profile(tiny_dirs, monkeypatch, tmp_path) -> tuple[str, str, int]:
    """Nothing kept here but a profile of this machine written by hand (c = 0.25, WIDTHS): the tiny
    pair's target, draft and the torch threads its key holds."""
    from specdec.models.kernels import cpu_model
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    target, draft = str(tiny_dirs / "target"), str(tiny_dirs / "draft")
    threads = torch.get_num_threads()
    machine.save(machine.Profile(cpu_model(), "torch", threads, 5.0, WIDTHS, {draft: 0.25}, 9.0, 50.0, 80.0, 135.0,
                                 target=target))
    return target, draft, threads


def file_k3(target: str, draft: str, threads: int, alpha: float = 0.6) -> None:
    """A k sweep's figure filed here at k = 3, T = 0: 0.90× (0.85–0.95), 2.176 tokens a round (α 0.6 at k = 3)."""
    from specdec.settings import Settings
    from ui.lessons import result_cache, store
    fig = store.Figure(speedup=0.9, speedup_min=0.85, speedup_max=0.95, clock=Clock.WALL, repeats=3,
                       mean_acceptance_length=2.176, alpha=alpha)
    k = store.key(target, draft, Settings(k=3, temperature=0.0), 3, store.PromptSet.of(["a"], False, 16, "speed"),
                  Clock.WALL, store.Ran(threads=threads))
    result_cache.save(store.KIND, store._as_dict(k), store.Filed(fig, "ksweep", 1.0))


def test_a_constant_policy_is_told_what_the_priced_one_would_predict(tiny_dirs, monkeypatch, tmp_path):
    """The box at k = 3 with the constant policy: the same α priced by this machine's prices picks
    one draft (see the four-pages test: 1.6 tokens for 1.45 steps, 1.10×), more than k = 3's
    2.176 tokens for 2.35 steps (0.93×), so the box says so."""
    from specdec.settings import Settings
    from ui.lessons import result_cache, store
    target, draft, threads = hand_profile(tiny_dirs, monkeypatch, tmp_path)
    file_k3(target, draft, threads)
    at = app(tiny_dirs, page="pages/fast.py", k=3, temperature=0.0, max_new_tokens=4)
    box = next(m.value for m in at.markdown if m.value.startswith("**Does it pay here?**"))
    assert box.endswith(f" At k = 1, the k this machine's prices pick: Yes, **1.10×** {badges.predicted()}."), box
    assert "here it picks k = 1. Predicted **1.10×** with α̂ = 0.60 (the newest measurement at these settings: it " \
           "moves when you measure)." in working(at)
    at.button(key="payoff_priced").click().run()                     # one click: the sidebar's policy
    assert at.session_state["policy"] == "priced" and not at.exception
    box = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert "prices pick:" not in box[0] and "**1.10×**" in box[0], box  # the prediction it offered, now the box's
    # a constant k = 1 measured here: the offer prices its tokens a round (1.7 for 0.25 + v(2) 1.2 steps),
    # the figure section 2 and the pair card give k = 1, not eq. (1)'s 1.6
    one = store.key(target, draft, Settings(k=1, temperature=0.0), 1, store.PromptSet.of(["a"], False, 16, "speed"),
                    Clock.WALL, store.Ran(threads=threads))
    result_cache.save(store.KIND, store._as_dict(one), store.Filed(
        store.Figure(speedup=1.05, speedup_min=1.0, speedup_max=1.1, clock=Clock.WALL, repeats=3,
                     mean_acceptance_length=1.7, alpha=0.6), "ksweep", 2.0))
    at = app(tiny_dirs, page="pages/fast.py", k=3, temperature=0.0, max_new_tokens=4, policy="constant")
    box = next(m.value for m in at.markdown if m.value.startswith("**Does it pay here?**"))
    short = next(m.value for m in at.markdown if m.value.startswith("**In short**"))
    assert short.startswith("**In short**, at T = 0 on this machine: no k pays clearly; the nearest, k = 1, the k "
                            "this machine's prices pick: 1.05× (one run of 3 repeats)."), short
    assert box.endswith("(0.85–0.95×; one run, 3 repeats on 1 prompts).") and "prices pick" not in box, box  # once
    runs = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "Every run at T = 0" in c.proto.spec)
    assert sorted(x for trace in runs["data"] for x in trace["x"]) == [0.9, 1.05]      # k = 3's run and k = 1's
    assert f"Predicted **{1.7 / 1.45:.2f}×** with the tokens a round a constant k = 1 kept (measured here)" \
        in working(at)
    assert short not in working(at)                         # the speed lesson shows every k in the open
    at = app(tiny_dirs, page="pages/step_through.py", k=3, temperature=0.0, max_new_tokens=4, policy="constant")
    assert short in working(at) and box in [m.value for m in at.markdown], working(at)   # elsewhere: behind it
    assert not any(e.label.startswith("How these") for e in at.expander if short in [m.value for m in e.markdown]
                   and e.proto.expanded), "the expander opens closed"
    # the priced policy picks k = 1: that k measured here is its answer (review 21: "not measured yet" beside it)
    at = app(tiny_dirs, page="pages/fast.py", k=3, temperature=0.0, max_new_tokens=4, policy="priced")
    box = next(m.value for m in at.markdown if m.value.startswith("**Does it pay here?**"))
    assert headline_figure(at) == "1.05" and box.endswith("Measured at a constant k = 1, the k these prices pick."), box


def test_a_figure_filed_without_its_alpha_takes_the_typical_one(tiny_dirs, monkeypatch, tmp_path):
    """Drafters compared files figures without α̂: the answer (and When it is fast's sliders) then
    read the typical run's α̂ rather than none, so the theory starts at this machine's values."""
    from types import SimpleNamespace

    from specdec.models.kernels import cpu_model
    from specdec.settings import Settings
    from ui import typical
    from ui.lessons import result_cache, store
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    monkeypatch.setattr(typical, "typical", lambda *a, **kw: SimpleNamespace(
        alpha=0.45, mean_acceptance_length=1.8, speedup=0.9, measured="Some CPU", prompts=8))
    target, draft = str(tiny_dirs / "target"), str(tiny_dirs / "draft")
    threads = torch.get_num_threads()
    profile = machine.Profile(cpu_model(), "torch", threads, 5.0, WIDTHS, {draft: 0.25},
                               9.0, 50.0, 80.0, 135.0, target=target)
    machine.STORE.write_text(json.dumps({profile.key(): json.loads(json.dumps(machine.asdict(profile)))}))
    settings = Settings(k=3, temperature=0.0)
    fig = store.Figure(speedup=0.8, speedup_min=0.7, speedup_max=0.9, clock=Clock.WALL, repeats=3,
                       mean_acceptance_length=2.0)                              # no α̂, as Drafters compared
    k = store.key(target, draft, settings, 3, store.PromptSet.of(["a"], False, 16, "drafters/all"), Clock.WALL,
                  store.Ran(threads=threads))
    result_cache.save(store.KIND, store._as_dict(k), store.Filed(fig, "drafters", 1.0))
    at = app(tiny_dirs, page="pages/fast.py", k=3, temperature=0.0, max_new_tokens=4)
    assert not at.exception
    assert at.slider(key="fast_alpha").value == 0.45 and headline_figure(at) == "0.80"


def test_the_setting_the_prices_pick_is_measured_here_with_one_click(tiny_dirs, monkeypatch, tmp_path):
    """The box at a constant k = 3 offers k = 1 (the priced pick, as above) and a button that measures a
    constant k = 1 here: after one click the offer states that run's figure, measured here, the button
    is gone, and the box still answers for k = 3."""
    target, draft, threads = hand_profile(tiny_dirs, monkeypatch, tmp_path)
    file_k3(target, draft, threads)
    from ui import jobs
    labels, run_job = [], jobs.run_job
    monkeypatch.setattr(jobs, "run_job", lambda label, *a, **kw: labels.append(label) or run_job(label, *a, **kw))
    at = app(tiny_dirs, page="pages/fast.py", k=3, temperature=0.0, max_new_tokens=4)
    assert at.button(key="payoff_measure_k").label == "Measure k = 1 here (about a minute)"
    at.button(key="payoff_measure_k").click().run()
    assert not at.exception
    assert labels == ["Measuring k = 1 here"]            # review 56: it ran as "Measuring these settings here"
    said = " ".join(c.value for c in at.markdown if c.value.startswith(("**In short**", "**Does it pay here?**")))
    best = "k = 1, the k this machine's prices pick: " in said and "**In short**" in said   # In short: k = 1 first
    assert best or " At k = 1, the k this machine's prices pick: " in said and said.endswith(f"{badges.here()}."), \
        said                                                            # else the verdict's, measured here
    assert "payoff_measure_k" not in [b.key for b in at.button]
    assert headline_figure(at) == "0.90"                              # the box's own k = 3, as filed
    side = next(c.value for c in at.sidebar.caption if c.value.startswith("**At these settings:**"))
    assert " · at k = 1: " in side and "(one run of 3 repeats)" in side, side   # weighed as In short does


def test_the_box_measures_its_own_settings_and_every_page_then_states_that_figure(tiny_dirs, monkeypatch, tmp_path):
    """Nothing measured at these settings: the box offers one run of them here. After it, the box
    states the run's figure with the measured-here badge, Drafters compared states the same, and
    the sidebar's price table lists the run's c under the profile's."""
    from specdec.models.kernels import cpu_model
    from ui.lessons import result_cache
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path / "kept")
    monkeypatch.setattr(machine, "STORE", tmp_path / "machine.json")
    target, draft = str(tiny_dirs / "target"), str(tiny_dirs / "draft")
    profile = machine.Profile(cpu_model(), "torch", torch.get_num_threads(), 5.0, WIDTHS, {draft: 0.25},
                              target=target)
    machine.STORE.write_text(json.dumps({profile.key(): json.loads(json.dumps(machine.asdict(profile)))}))
    state = {"k": 2, "temperature": 0.0, "max_new_tokens": 4}
    at = app(tiny_dirs, page="pages/step_through.py", **state)
    box = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert "not measured here yet" in box[0].lower() and "payoff_measure" in [b.key for b in at.button]
    at.button(key="payoff_measure").click().run()
    assert not at.exception
    box = [m for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert ":green-badge[measured here]" in box[0].value, box[0].value
    assert "by the “Does it pay here?” box on 8 prompts" in working(at)
    assert at.button(key="payoff_measure").label == "Measure again"           # measured: again on request
    why = [c for c in at.caption if c.value.startswith("Why: these runs paid **")]
    # the why beside a measurement is what its runs paid (review 44); the prediction beside it prices at the profile,
    # as every prediction does, in the working, which names the prices the runs paid
    assert why and "prices a round at this machine's profile, as every prediction here: c = 0.250 and v(3) = 1.40" \
        in working(at), why
    assert "c and v: this machine's profile, as every prediction here. The measured runs paid c = " in working(at)
    figure = headline_figure(at)
    table = [m.value for m in at.sidebar.markdown if m.value.startswith("- :violet-badge[")]
    assert len(table) == 1 and ": **c = 0.250, v(3) = 1.40**" in table[0]
    assert "the “Does it pay here?” box at k = 2 (" in table[0]
    assert headline_figure(app(tiny_dirs, page="pages/drafters.py", **state)) == figure
    from specdec.settings import Settings
    from ui import loaders, payoff_view  # under another section's predictions: the box's figure
    line = payoff_view.measured_line(loaders.cached(target, draft), Settings(k=2, temperature=0.0, max_new_tokens=4))
    assert line.startswith(":green-badge[") and f"The answer box above: **{figure}×** (" in line, line
    assert "code and structured prompts" in line and "(When it is fast)" in line, line   # the box's prompts, named
    beside = payoff_view.measured_line(loaders.cached(target, draft), Settings(k=2, temperature=0.0, max_new_tokens=4),
                                       "In this table, draft at k = 2: **0.50×** on 24 prompts")
    assert beside.endswith("In this table, draft at k = 2: **0.50×** on 24 prompts: other text, another "
                           "figure."), beside
    assert payoff_view.measured_line(loaders.cached(target, draft), Settings(k=3, temperature=0.0)) is None


def test_a_draft_sizes_figure_names_no_pass_price_it_never_measured(tiny_dirs, monkeypatch, tmp_path):
    """The draft sizes' points price no pass (their v is 1 by construction): a box answered by one names the c
    its runs paid, never "v = 1.00" as a price they paid."""
    from specdec.settings import Settings
    from ui.lessons import result_cache, store
    target, draft, threads = hand_profile(tiny_dirs, monkeypatch, tmp_path)
    fig = store.Figure(speedup=0.9, speedup_min=0.85, speedup_max=0.95, clock=Clock.WALL, repeats=3,
                       mean_acceptance_length=1.9, c=0.3, verify_cost=1.0)
    key = store.key(target, draft, Settings(k=2, temperature=0.0), 2, store.PromptSet.of(["a"], False, 16, "speed"),
                    Clock.WALL, store.Ran(threads=threads))
    result_cache.save(store.KIND, store._as_dict(key), store.Filed(fig, "tradeoff", 1.0))
    at = app(tiny_dirs, page="pages/step_through.py", k=2, temperature=0.0, max_new_tokens=4)
    said = working(at)
    assert "The measured runs paid c = 0.300 as they ran" in said, said
    assert "v = 1.00" not in said


def test_the_benchmark_at_the_sidebars_settings_is_set_beside_the_boxs_figure(tiny_dirs, monkeypatch, tmp_path):
    """When it is fast's last tab: where the benchmark ran the pair at the sidebar's k and T, its figure stands
    beside the box's, one setting on two texts (review 35); at a k it did not run, no such line."""
    from specdec.bench.runner import ROWS
    from ui.lessons import fast
    target, draft, threads = hand_profile(tiny_dirs, monkeypatch, tmp_path)
    file_k3(target, draft, threads)                                          # the box: 0.90× at k = 3, T = 0
    rows = [{"row": name, "tokens_per_s": 100.0, "speedup": 0.8 if name == "engine speculative" else 1.0}
            for name in ROWS]
    bench = {"schema": 3, "record": "Bench", "target": target, "draft": draft, "prompts": 3, "max_new_tokens": 8,
             "repeats": 1, "c": 0.2, "settings": [{"temperature": 0.0, "k": 3, "verify_cost": 1.3, "rows": rows,
                                                   "baseline": "engine autoregressive"}]}
    (tmp_path / "bench.json").write_text(json.dumps(bench))
    monkeypatch.setattr(fast, "BENCH_FILE", tmp_path / "bench.json")
    at = app(tiny_dirs, page="pages/fast.py", k=3, temperature=0.0, max_new_tokens=4)
    assert not at.exception
    line = [c.value for c in at.caption if "In this benchmark, k = 3, T = 0: **0.80×**" in c.value]
    assert len(line) == 1 and "The answer box above: **0.90×**" in line[0], line
    assert line[0].endswith("on 3 held-out chats × 8 tokens: other text, another figure."), line
    at = app(tiny_dirs, page="pages/fast.py", k=2, temperature=0.0, max_new_tokens=4)
    assert not any("In this benchmark" in c.value for c in at.caption)       # it ran no k = 2
