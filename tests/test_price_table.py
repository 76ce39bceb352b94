"""One table of the active draft's prices (issue 51): the profile's row (every prediction's),
then each measurement filed here, then the shipped ones, each with its badge; numbers by hand."""
from dataclasses import replace

from points import point

from specdec.bench import machine
from specdec.bench.points import Sweep
from specdec.models.kernels import cpu_model
from specdec.records.provenance import Clock, here
from specdec.settings import Settings
from ui.lessons import price_table, shipped, store

WIDTHS = {m: 1 + 0.25 * (m - 1) for m in range(1, 18)}              # v(5) = 2.0


def test_the_profile_first_then_this_machines_runs_then_the_shipped_ones(places):
    profile = machine.Profile("CPU here", "torch", 1, 10.0, WIDTHS, {"fam/draft": 0.25}, measured_at="today 09:00")
    other = Sweep((point(k=2, c=0.18, verify_cost=1.4), point(k=4, c=0.18, verify_cost=1.74)),
                  replace(here(), cpu="Other CPU", date="2026-12-01"))
    shipped.save("ksweep", {"pair": ["fam/target", "fam/draft"], "T": 0.7}, other)
    shipped.save("ksweep", {"pair": ["fam/target", "fam/other"], "T": 0.7}, other)         # another draft's
    prompts = store.PromptSet.of(["a"], False, 16, "speed")
    key_of = lambda p: store.key("fam/target", "fam/draft", Settings(k=4), 4, prompts, Clock.WALL)   # noqa: E731
    store.file([point(c=0.31, verify_cost=1.9)], key_of, "ksweep")                         # the learner's k sweep
    rows = price_table.rows(profile, "fam/target", "fam/draft", 4, 0.7)
    assert [(r.c, r.v) for r in rows] == [(0.25, 2.0), (0.31, 1.9), (0.18, 1.74)]         # its v(5), at k = 4
    assert price_table.rows(profile, "fam/target", "fam/draft", 2, 0.7)[1].v is None          # another k: no v(3) paid
    assert [r.whose.split("[")[0] for r in rows] == [":violet-badge", ":green-badge", ":orange-badge"]
    assert "Other CPU" in rows[2].whose and "(2026-12-01)" in rows[2].what and "today 09:00" in rows[0].what
    assert rows[1].what.startswith("When it is fast (its k sweep) at k = 4 (")          # the k its runs drafted
    lines = price_table.markdown(rows, 4).splitlines()
    assert len(lines) == 3 and all(line.startswith("- :") for line in lines)
    assert lines[0].endswith(": **c = 0.250, v(5) = 2.00**") and lines[1].endswith(": **c = 0.310, v(5) = 1.90**")
    assert lines[2].endswith("(2026-12-01): **c = 0.180, v(5) = 1.74**")
    assert price_table.rows(None, "fam/target", "fam/draft", 2, 0.7)[-1].v == 1.4      # no profile yet; k = 2's pass


def test_the_shipped_rows_are_the_ones_the_pages_show_at_the_sidebars_settings(places):
    """Review 45: the sidebar listed a k sweep at T = 0 shipped from another CPU (the newest file) where When it
    is fast showed T = 0.7's from this CPU model."""
    def sweep(c, cpu, date):
        return Sweep((point(k=4, c=c, verify_cost=2.0),), replace(here(), cpu=cpu, date=date))
    pair = ["fam/target", "fam/draft"]
    shipped.save("ksweep", {"pair": pair, "T": 0.7}, sweep(0.16, cpu_model(), "2026-12-05"))
    shipped.save("ksweep", {"pair": pair, "T": 0.0}, sweep(0.14, "Other CPU", "2026-12-06"))     # newer, T = 0
    assert [r.c for r in price_table.rows(None, "fam/target", "fam/draft", 4, 0.7)] == [0.16]
    assert [r.c for r in price_table.rows(None, "fam/target", "fam/draft", 4, 0.0)] == [0.14]
    assert price_table.rows(None, "fam/target", "fam/draft", 4, 1.0) == []                     # none at T = 1
    shipped.save("ksweep", {"pair": pair, "T": 0.7, "n": 32}, sweep(0.2, "Other CPU", "2026-12-07"))
    assert [r.c for r in price_table.rows(None, "fam/target", "fam/draft", 4, 0.7)] == [0.16]  # this CPU model's
