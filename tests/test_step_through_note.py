"""Step through, after a run ends: one note beside its metrics gives the run's own tokens/s, from its
rounds and its prefill (its rounds against the target alone's passes: test_step_through_prices.py)."""
from apptest import app, rounds


def note(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("This run: ")]


def test_a_finished_run_says_its_own_rate(tiny_dirs):
    at = app(tiny_dirs, temperature=0.0, k=2, max_new_tokens=6)
    at.button(key="btn_next").click().run()
    assert not at.exception and not note(at)                 # a run under way: nothing to say yet
    at.button(key="btn_end").click().run()
    assert not at.exception
    history = rounds(at)
    prefill = at.session_state["run"]["decoder"].prefill
    tokens = sum(len(r.emitted) for r in history)
    ms = prefill.target_ms + prefill.draft_ms + sum(r.draft_ms + r.verify_ms for r in history)
    said = note(at)
    assert len(said) == 1, said
    assert f"This run: {tokens} tokens in {ms:.0f} ms ({tokens / ms * 1e3:.1f} tokens/s, its prefill included)" \
        in said[0]
