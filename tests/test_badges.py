"""Whose number is this (issue 51): a shipped figure's badge says whether its CPU is this machine's
model, another machine's, or this CPU's family with its model not recorded."""
from specdec.models import kernels
from ui.lessons import badges


def test_a_shipped_badge_names_the_machine_by_what_its_record_says(monkeypatch):
    monkeypatch.setattr(kernels, "cpu_model", lambda: "Intel Xeon (family 6, model 167)")
    assert badges.shipped("Intel Xeon (family 6, model 167)").startswith(":blue-badge[")       # this model
    assert badges.shipped("AMD EPYC (family 25, model 1)").startswith(":orange-badge[")       # another machine
    family_only = badges.shipped("Intel Xeon")                                                 # model not recorded
    assert family_only.startswith(":gray-badge[") and "model not recorded" in family_only
    assert badges.shipped("Intel Xeon", short=True) == ":gray-badge[Intel Xeon]"
    assert badges.of(None) == badges.here()


def test_a_cpus_name_is_shown_without_its_trademark_marks(monkeypatch):
    from ui.lessons.bench_words import tidy
    monkeypatch.setattr(kernels, "cpu_model", lambda: "AMD EPYC (family 25, model 17)")       # another machine
    assert tidy("Intel(R) Xeon(R) Processor (family 6, model 167)") == "Intel Xeon (family 6, model 167)"
    assert tidy("AMD EPYC 9R14 96-Core Processor") == "AMD EPYC 9R14 96-Core"
    assert tidy("Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz") == "Intel Core i7-8650U CPU @ 1.90GHz"
    assert badges.shipped("Intel(R) Xeon(R) Processor (family 6, model 167)") == \
        ":orange-badge[Intel Xeon (family 6, model 167)]"


def test_a_badge_carries_no_icon_name_and_its_kind_is_read_off_colour_and_words(monkeypatch):
    """No Material icon (screen readers and copied text gave its name as words); the legend tells the
    grey badges apart by their words: a prediction's from a CPU recorded by its family."""
    monkeypatch.setattr(kernels, "cpu_model", lambda: "Intel Xeon (family 6, model 167)")
    every = [badges.here(), badges.profile(), badges.predicted(), badges.elsewhere(), badges.published(),
             badges.shipped("Intel Xeon (family 6, model 167)"), badges.shipped("Intel Xeon"),
             badges.shipped("AMD EPYC (family 25, model 1)")]
    assert not any("material" in b for b in every)
    assert badges.kinds_in(" ".join(every[2:3] + every[6:7])) == {"predicted", "family"}
    assert badges.kinds_in(" ".join(every)) == {"here", "profile", "predicted", "elsewhere", "published", "like",
                                                "family", "another"}
