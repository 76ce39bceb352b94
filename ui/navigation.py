"""The app's pages, listed once: app.py's navigation, Home's lesson links and the browser
test all read `PAGES`. To add a page: write pages/<name>.py (starting with shell.page(__file__))
and add one `PageInfo` here.
"""
from __future__ import annotations

from dataclasses import dataclass

from ui.i18n import N_, _


@dataclass(frozen=True)
class PageInfo:
    path: str              # the file under pages/
    title: str             # navigation label
    icon: str
    url_path: str          # deep link: /<url_path>; "" for the default page
    blurb: str = ""        # one line for Home's lesson list ("" = not listed)


PAGES = (
    PageInfo("pages/home.py", N_("Home"), ":material/home:", ""),
    PageInfo("pages/tour.py", N_("Guided tour"), ":material/tour:", "tour",
             N_("eight short steps, each with something to try")),
    PageInfo("pages/step_through.py", N_("Step through"), ":material/step:", "step_through",
             N_("every number of every round")),
    PageInfo("pages/exact.py", N_("Why it is exact"), ":material/balance:", "exact",
             N_("the residual, and rules that break it")),
    PageInfo("pages/fast.py", N_("When it is fast"), ":material/speed:", "fast",
             N_("α, k, c: theory against this machine")),
    PageInfo("pages/where.py", N_("Where it works"), ":material/travel_explore:", "where",
             N_("acceptance by kind of text")),
    PageInfo("pages/server.py", N_("In a server"), ":material/dns:", "server",
             N_("many requests at once: where the gain disappears")),
    PageInfo("pages/beyond.py", N_("Beyond tokens"), ":material/manage_search:", "beyond",
             N_("the same pattern in search and in an agent's choice of tool")),
    PageInfo("pages/drafters.py", N_("Drafters compared"), ":material/compare_arrows:", "drafters",
             N_("model sizes, n-gram lookup, policies")),
    PageInfo("pages/trees.py", N_("Many drafts at once"), ":material/account_tree:", "trees",
             N_("a tree of drafts, verified in one pass")),
    PageInfo("pages/you_draft.py", N_("You are the drafter"), ":material/edit_note:", "you_draft",
             N_("type a guess; the target verifies it like a draft")),
    PageInfo("pages/cross_vocab.py", N_("Across vocabularies"), ":material/translate:", "cross_vocab",
             N_("a draft with another tokenizer, verified exactly")),
)


def st_pages() -> list:
    """The st.Page objects for st.navigation (the first page is the default)."""
    import streamlit as st
    return [st.Page(p.path, title=_(p.title), icon=p.icon, default=i == 0,
                    **({"url_path": p.url_path} if p.url_path else {}))
            for i, p in enumerate(PAGES)]
