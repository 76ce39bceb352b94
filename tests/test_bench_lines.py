"""The benchmark tab's lines (ui/lessons/bench_lines.py): the plain way every speedup divides by, transformers'
and llama.cpp's columns, the whole-run prediction, transformers' drafting defaults, rows that ignore k."""
from dataclasses import replace


def test_the_bench_run_caption_says_how_far_the_whole_run_prediction_lands():
    from specdec.bench.record import Bench, Row, RowKind, Setting
    from ui.lessons.bench_lines import bench_run_caption

    def setting(k, measured, predicted):
        return Setting(k, 0.0, (Row(RowKind.AR.value, 10.0, speedup_vs_engine_ar=1.0),
                                Row(RowKind.SPEC.value, 9.0, speedup_vs_engine_ar=measured, predicted_run=predicted)))
    bench = Bench("t", "d", 2, 8, 1, 0.1, (setting(2, 0.68, 0.62), setting(4, 0.49, 0.45)))
    text = bench_run_caption(bench, 0.0)          # gaps 0.68 / 0.62 - 1 = 9.7 %, 0.49 / 0.45 - 1 = 8.9 %
    assert "the largest gap between measured and predicted is 10%, at k = 2: measured 0.68×, predicted 0.62×." in text
    assert bench_run_caption(replace(bench, settings=(setting(2, 0.68, None),)), 0.0) is None   # no prediction
    assert bench_run_caption(bench, 1.0) is None                        # no rows at that temperature


def test_the_bench_says_when_transformers_drafting_defaults_beat_every_constant_k():
    """Review 29: at T = 1 the engine with transformers' defaults ran 1.15×, above every constant k (1.06× at
    k = 1), and the page did not say so; review 31: its runs wrote 280 tokens against the plain runs' 203 (part
    of the lead is the text), and at T = 0, where it trailed (0.95× against 1.01×), nothing said why."""
    from specdec.bench.record import Bench, Row, Setting
    from specdec.records.provenance import here
    from ui.lessons.bench_lines import fastest_caption, longer_caption

    def setting(k, t, spec, library, tokens=208):
        return Setting(k, t, (Row("engine autoregressive", 67.0, tokens=208, speedup=1.0),
                              Row("engine speculative", 60.0, tokens=208, speedup=spec, acceptance_rate=0.5,
                                  mean_acceptance_length=1.5),
                              Row("engine speculative (library defaults)", 70.0, tokens=tokens, speedup=library,
                                  acceptance_rate=0.4, mean_acceptance_length=1.84 if t == 0 else 1.56)))
    bench = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16,
                  (setting(1, 0.0, 1.01, 0.95), setting(2, 0.0, 1.00, 0.95),
                   setting(1, 1.0, 1.06, 1.15, 280), setting(2, 1.0, 0.92, 1.15, 280)), provenance=here())
    # T = 0: (1.84 - 1) / 0.4 = 2.1 drafts a round against (1.5 - 1) / 0.5 = 1.0 at k = 1
    assert fastest_caption(bench, 0.0) == (
        "At T = 0 transformers' drafting defaults, run in this engine, ran 0.95×, below the best constant k (1.01× at "
        "k = 1): they drafted about 2.1 tokens a round and 40% were accepted, against 1.0 and 50% at k = 1, so each "
        "kept token paid for more drafting.")
    # within 3 % of the best constant k: no finding either way (review 36: "1.07×, below the best constant k (1.08×)")
    close = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (setting(1, 1.0, 1.08, 1.07),), provenance=here())
    assert fastest_caption(close, 1.0) == (
        "At T = 1 transformers' drafting defaults, run in this engine, ran 1.07×, about as fast as the best constant k "
        "(1.08× at k = 1): a gap within what repeats vary by.")
    lead = fastest_caption(bench, 1.0)
    assert lead.startswith("At T = 1 the fastest is the engine with transformers' drafting defaults, 1.15× (the best "
                           "constant k: 1.06× at k = 1)")
    assert lead.endswith("(1.56 tokens a round).")
    assert longer_caption(bench, 1.0).startswith("Its runs also wrote 280 tokens against the target alone's 208")
    same = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (setting(1, 1.0, 1.06, 1.15),), provenance=here())
    assert longer_caption(same, 1.0) is None and longer_caption(bench, 0.0) is None   # same length; trailing


def test_the_bench_table_says_which_transformers_its_column_is():
    from specdec.bench.record import Bench, Row, Setting
    from specdec.records.provenance import here
    from ui.lessons.bench_lines import llama_note, transformers_note
    rows = (Row("engine autoregressive", 67.3), Row("transformers generate", 38.9),
            Row("transformers generate (as a user loads it)", 15.6))
    bench = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (Setting(1, 0.0, rows),), provenance=here())
    assert transformers_note(bench) == ("transformers: `generate()` on the GGUF as a user loads it (float32 weights), "
                                        "15.6 tokens/s at T = 0; on this engine's own modules (the integer kernels) "
                                        "38.9; the engine's own loop with the target alone 67.3.")
    assert transformers_note(Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (Setting(1, 0.0, rows[:2]),),
                                   provenance=here())) is None
    # review 31: llama.cpp's columns unexplained, and which plain way the speedups divide by
    peers = rows + (Row("llama.cpp generate", 42.8), Row("llama.cpp prompt lookup (k)", 35.4))
    said = llama_note(Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (Setting(1, 0.0, peers),), provenance=here()))
    assert said == ("llama.cpp, on the same GGUF file: 42.8 tokens/s running the target alone; 35.4 with its prompt "
                    "lookup (drafts of k tokens copied from earlier in the text, no draft model). The fastest way to "
                    "run the target alone in this benchmark is engine, target alone (67.3 tokens/s): every speedup on "
                    "this tab divides by it."), said
    faster = (rows[0], rows[1], rows[2], Row("llama.cpp generate", 80.0))
    fastest = "The fastest way to run the target alone in this benchmark is llama.cpp generate (80.0 tokens/s)"
    assert fastest in llama_note(
        Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (Setting(1, 0.0, faster),), provenance=here()))
    assert llama_note(bench) is None                                                 # llama.cpp did not run


def test_the_bench_table_lists_a_row_that_ignores_k_once_a_temperature_without_a_k():
    """Review 31: "library defaults" listed at "k = 1" though it ignores k (and every plain row twice)."""
    import pandas as pd

    from specdec.bench.record import Bench, Row, Setting
    from specdec.records.provenance import here
    from ui.lessons.bench_lines import bench_table

    def setting(k):
        return Setting(k, 0.0, (Row("engine autoregressive", 67.3), Row("engine speculative", 68.0),
                                Row("engine speculative (library defaults)", 63.7)))
    table = bench_table(Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (setting(1), setting(2)), provenance=here()))
    ks = [(row, None if pd.isna(k) else k) for row, k in zip(table["row"], table["k"])]     # NA: no k
    assert str(table["k"].dtype) == "Int64"                      # whole numbers (review 32: "1.00", "2.00")
    assert ks == [("engine, target alone", None), ("engine speculative", 1),
                  ("engine speculative (library defaults)", None), ("engine speculative", 2)], ks


def test_the_bench_says_which_rows_it_did_not_run_and_why():
    """Review 32: the benchmark's intro names transformers' assisted generation; its table had no such row, unsaid."""
    from specdec.bench.record import Bench, Row, Setting
    from specdec.records.provenance import here
    from ui.fast_bench_view import skipped
    from ui.lessons.bench_words import named_at
    rows = (Row("engine autoregressive", 67.3),)
    bench = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (Setting(1, 0.0, rows),), provenance=here(),
                  skipped_rows=("transformers assisted (k, constant)",),
                  skipped_why="transformers cannot use this draft as an assistant: it reads the target's features")
    said = skipped(bench)
    assert said.startswith("Not in this benchmark: ") and said.endswith(
        "(transformers cannot use this draft as an assistant: it reads the target's features).")
    assert skipped(Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (Setting(1, 0.0, rows),), provenance=here())) \
        is None
    assert named_at("a (b)", 0.0, None) == "a (b, T = 0)" and named_at("a", 1.0, 2) == "a (T = 1, k = 2)"


def test_a_sampled_row_above_every_greedy_one_says_each_run_samples_its_own_text():
    """Review 37: T = 1, k = 1 at 1.08× above T = 0's best 0.96× though fewer drafts were accepted."""
    from specdec.bench.record import Bench, Row, Setting
    from specdec.records.provenance import here
    from ui.lessons.bench_lines import sampled_caption

    def setting(k, t, spec, tokens):
        return Setting(k, t, (Row("engine autoregressive", 67.0, tokens=203, speedup=1.0),
                              Row("engine speculative", 60.0, tokens=tokens, speedup=spec)))
    bench = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16,
                  (setting(1, 0.0, 0.96, 203), setting(2, 0.0, 0.94, 203), setting(1, 1.0, 1.08, 218),
                   setting(2, 1.0, 0.87, 219)), provenance=here())
    assert sampled_caption(bench) == (
        "At T = 1, k = 1 speculation ran 1.08×, above every k at T = 0 (at best 0.96×): at T > 0 each run samples its "
        "own text (there the speculative runs wrote 218 tokens, the target alone 203), so such a row holds the text "
        "drawn as well as the drafting; at T = 0 both write the same text.")
    below = Bench("fam/target", "fam/draft", 6, 48, 3, 0.16, (setting(1, 0.0, 0.96, 203), setting(1, 1.0, 0.90, 218)),
                  provenance=here())
    assert sampled_caption(below) is None                          # no sampled row above the greedy ones: nothing
