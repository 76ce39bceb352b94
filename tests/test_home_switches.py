"""Home's race has two switches of its own (greedy, k by this machine's prices): where they set
another T or k than the sidebar's, one line says which settings the race uses and that the
sidebar's hold on every other page (issue 51's review: "Home silently overrides the sidebar")."""
from apptest import app


def test_the_race_says_when_its_switches_override_the_sidebar(tiny_dirs):
    at = app(tiny_dirs, page="pages/home.py", temperature=0.7, k=4, policy="constant")
    assert not any(c.value.startswith("The switches set") for c in at.caption)   # by default the sidebar's (review 45)
    at.toggle(key="race_greedy").set_value(True).run()
    at.toggle(key="race_priced").set_value(True).run()
    said = [c.value for c in at.caption if c.value.startswith("The switches set this race's own settings")]
    assert said == ["The switches set this race's own settings (T = 0, k by this machine's prices, up to 4); the "
                    "sidebar's (T = 0.7, k = 4) hold on every other page."], said
    at.toggle(key="race_greedy").set_value(False).run()
    at.toggle(key="race_priced").set_value(False).run()                   # now the race is the sidebar's again
    assert not at.exception
    assert not any(c.value.startswith("The switches set") for c in at.caption)


def test_the_race_switch_follows_the_sidebar_policy(tiny_dirs):
    """Review 59: the box's "Draft k by this machine's prices" set the sidebar's policy while Home's switch of that
    name still read off; now it reads on and cannot be switched off, and the race is the sidebar's."""
    at = app(tiny_dirs, page="pages/home.py", temperature=0.7, k=4, policy="priced")
    switch = at.toggle(key="race_priced_by_sidebar")
    assert switch.value is True and switch.disabled
    assert not any(c.value.startswith("The switches set") for c in at.caption)      # the race is the sidebar's
    assert not [t for t in at.toggle if t.key == "race_priced"]
