"""When it is fast keeps one section a tab (issue 51, fewer words): the box above them, each
section's header inside its own tab, in the order the tabs name them."""
from apptest import app


def test_each_section_sits_in_its_own_tab_in_order(tiny_dirs):
    at = app(tiny_dirs, page="pages/fast.py", max_new_tokens=4)
    labels = [t.label for t in at.tabs]
    assert labels == ["1 · Theory", "2 · The k sweep", "3 · Draft size", "4 · Temperature",
                      "5 · The machine's limits", "6 · The benchmark"]
    for n, tab in enumerate(at.tabs, start=1):
        headers = [h.value for h in tab.header]
        assert headers and headers[0].startswith(f"{n} · "), (n, headers)
    everywhere = [h.value for h in at.main.header]
    assert all(sum(h.startswith(f"{n} · ") for h in everywhere) == 1 for n in range(1, 7))   # nowhere else
    box = [m.value for m in at.markdown if m.value.startswith("**Does it pay here?**")]
    assert len(box) == 1                                   # above the tabs, once
