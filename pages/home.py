"""Home: what speculative decoding is, and a one-click start."""
import streamlit as st

from ui import navigation, shell

shell.page()

EXAMPLE = "class Connection:\n    def __init__(self, host, port=None):\n"


def start() -> None:
    st.session_state.prompt = EXAMPLE
    st.session_state.pair_label = st.session_state.get("pair_label")
    st.session_state.start_now = True


st.title("Speculative Decoding Lab")
st.markdown("""
Large language models write one token per forward pass, and each pass is slow.
**Speculative decoding** lets a small **draft** model *q* guess the next *k* tokens cheaply;
the large **target** model *p* then checks all of them in **one** forward pass.

1. **Draft** — the draft samples d₁…dₖ from q.
2. **Verify** — one target pass gives p₁…pₖ₊₁.
3. **Accept / reject** — keep dᵢ while a uniform draw u ≤ min(1, p(dᵢ)/q(dᵢ)).
4. **Resample or bonus** — at the first rejection draw from the residual norm(max(0, p − q));
   if all k survive, draw a free bonus token from pₖ₊₁.
5. **Roll back** — crop both KV caches to what was accepted.

The output has **exactly** the target's distribution — the draft only changes the speed.
Here you can watch every number that decides each token, on real models that run on
this machine (a family trained on Python's standard library, shipped with the app).
""")
if st.button("▶ Start: step through the embedded pair on a Python prompt", type="primary",
             key="home_start", on_click=start):
    st.switch_page("pages/step_through.py")
st.caption("Pick another pair, k, temperature or drafter in the sidebar at any time.")
st.subheader("Lessons")
for info in navigation.PAGES:
    if info.blurb:
        st.page_link(info.path, label=f"{info.title} — {info.blurb}", icon=info.icon)
