"""Step through, after a run ends: one note beside its metrics says why the payoff box does not use the
run (it timed speculative decoding alone) and gives the run's own tokens/s, from its rounds."""
from apptest import app, rounds


def note(at) -> list[str]:
    return [c.value for c in at.info if "It timed speculative decoding alone" in c.value]


def test_a_finished_run_says_why_it_is_no_speedup(tiny_dirs):
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
    assert "the box below gives no speedup from it" in said[0] and "time the target alone too" in said[0]
