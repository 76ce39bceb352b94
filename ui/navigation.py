"""The app's pages, listed once: app.py's navigation, Home's lesson links and the browser
test all read `PAGES`. To add a page: write pages/<name>.py (starting with shell.page())
and add one `PageInfo` here.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    path: str              # the file under pages/
    title: str             # navigation label
    icon: str
    url_path: str          # deep link: /<url_path>; "" for the default page
    blurb: str = ""        # one line for Home's lesson list ("" = not listed)


PAGES = (
    PageInfo("pages/home.py", "Home", ":material/home:", ""),
    PageInfo("pages/tour.py", "Guided tour", ":material/tour:", "tour",
             "six short steps, each with something to try"),
    PageInfo("pages/step_through.py", "Step through", ":material/step:", "step_through",
             "every number of every round"),
    PageInfo("pages/exact.py", "Why it is exact", ":material/balance:", "exact",
             "the residual, and rules that break it"),
    PageInfo("pages/fast.py", "When it is fast", ":material/speed:", "fast",
             "α, k, c: theory against this machine"),
    PageInfo("pages/where.py", "Where it works", ":material/travel_explore:", "where",
             "acceptance by kind of text"),
    PageInfo("pages/drafters.py", "Drafters compared", ":material/compare_arrows:", "drafters",
             "model sizes, n-gram lookup, policies"),
    PageInfo("pages/trees.py", "Many drafts at once", ":material/account_tree:", "trees",
             "a tree of drafts, verified in one pass"),
    PageInfo("pages/you_draft.py", "You are the drafter", ":material/edit_note:", "you_draft",
             "type a guess; the target verifies it like a draft"),
)


def st_pages() -> list:
    """The st.Page objects for st.navigation (the first page is the default)."""
    import streamlit as st
    return [st.Page(p.path, title=p.title, icon=p.icon, default=i == 0,
                    **({"url_path": p.url_path} if p.url_path else {}))
            for i, p in enumerate(PAGES)]
