"""One run stepped from several threads, several runs sharing one model (issue 48's crash).

Streamlit ran a learner's clicks in overlapping threads, and two of them stepped one Decoder:
its caches were read while the other thread changed them, a pass was fed zero tokens, and the
process's heap was corrupted. A run's rounds are serialised (Decoder.step), and a pass of no
tokens is refused where it would start.
"""
import threading

import pytest

import specdec
from specdec.models.backend import fed


def settings(**kw):
    return specdec.Settings(**{"k": 4, "temperature": 0.0, "max_new_tokens": 40, **kw})


def test_one_run_stepped_from_four_threads_equals_the_run_stepped_alone(pair):
    alone = specdec.generate(pair, "def add(a, b):", settings())
    dec = specdec.Decoder(pair, "def add(a, b):", settings())
    errors, start = [], threading.Barrier(4)

    def click():
        start.wait()
        try:
            while dec.stop is None:
                try:
                    dec.step()
                except specdec.InputError:       # finished while this thread waited its turn
                    break
        except Exception as err:                 # pragma: no cover - what the test would report
            errors.append(err)

    threads = [threading.Thread(target=click) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    result = dec.result()
    assert result.token_ids == alone.token_ids
    assert [r.caches.target_after for r in result.rounds] == [r.caches.target_after for r in alone.rounds]


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_runs_of_one_shared_model_in_threads_each_equal_their_run_alone(pair, temperature):
    prompts = [f"x = {i} +" for i in range(6)]
    alone = {p: specdec.generate(pair, p, settings(temperature=temperature)).token_ids for p in prompts}
    got, errors = {}, []

    def run(p):
        try:
            got[p] = specdec.generate(pair, p, settings(temperature=temperature)).token_ids
        except Exception as err:                 # pragma: no cover
            errors.append(err)

    threads = [threading.Thread(target=run, args=(p,)) for p in prompts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and got == alone


def test_a_pass_of_no_tokens_is_refused_before_any_kernel_runs():
    with pytest.raises(RuntimeError, match="no tokens"):
        fed([])
    fed([0])                                    # token id 0 is a real token
