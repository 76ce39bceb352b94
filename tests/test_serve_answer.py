"""`make run`'s first start measures the answer box's default setting on this machine (review 55: a fresh server
answered with 0.74× shipped from a machine of its CPU model, then 0.78× once the learner pressed “Measure it here”):
filed under the key the box reads, once."""
import torch

from specdec import defaults
from specdec.models.backend import BACKEND_AUTO
from specdec.models.precision import PRECISION_AUTO
from specdec.settings import Settings

from tiny import tiny_pair


def test_the_first_start_files_the_box_figure_for_the_default_setting_once(monkeypatch, tmp_path):
    from ui import loaders
    from ui.catalog import CHOICES
    from ui.lessons import result_cache, store
    from ui.lessons import speed_prompts as speed
    from ui.server import serve
    from ui.state import DEFAULTS, SIDEBAR
    monkeypatch.setattr(result_cache, "RESULTS_DIR", tmp_path)
    monkeypatch.setattr(defaults, "REPEATS", 1)                      # the path, not the statistics
    real = speed.speed_prompts
    monkeypatch.setattr(speed, "speed_prompts", lambda chat, n=8: real(chat, 2))
    pair = tiny_pair()
    monkeypatch.setattr(loaders, "cached", lambda target, draft: pair)
    runs = []
    from specdec.bench import sweeps
    sweep = sweeps.k_sweep
    monkeypatch.setattr(sweeps, "k_sweep", lambda *a, **kw: runs.append(a[2]) or sweep(*a, **kw))
    first, settings = CHOICES[0], Settings(**{name: DEFAULTS[name] for name in SIDEBAR})
    ran = store.Ran(PRECISION_AUTO, BACKEND_AUTO, torch.get_num_threads())       # as the sidebar's defaults key it
    assert not store.filed_here(first.target, (first.draft,), settings, ran)
    serve._measure_answer()
    found = store.filed_here(first.target, (first.draft,), settings, ran)
    assert runs == [[settings.k]] and len(found) == 1 and found[0][1].source == "box", found
    key, filed = found[0]
    assert key.prompts == speed.speed_set(False)                    # the tiny tokenizer has no chat template
    assert filed.figure.repeats == 1 and filed.figure.speedup > 0
    serve._measure_answer()                                          # filed: not measured again
    assert runs == [[settings.k]]
