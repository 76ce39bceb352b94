"""Tables name their columns for people: every quantity a page shows gets one readable header."""
import pandas as pd

from specdec.bench.record import Bench, Row, Setting
from specdec.records.vocabulary import QUANTITIES
from ui.lessons.bench_lines import bench_table
from ui.tables import HEADERS, frame, headed


def test_known_keys_get_readable_names_and_others_stay():
    table = headed(pd.DataFrame([{"mean_acceptance_length": 1.5, "speedup_min": 0.9, "my prompt": 1}]))
    assert list(table.columns) == ["tokens a round (L)", "speedup min", "my prompt"]


def test_one_quantity_one_header():
    """Every header names one quantity of the vocabulary, and no two quantities share a header
    except the two names of a target pass per token (the bench's row and the batch sweep's)."""
    assert set(HEADERS) - set(QUANTITIES) <= {"label", "group", "rounds", "prompts", "per_position", "histogram"}
    shown = [h for name, h in HEADERS.items() if name != "forwards_per_token"]
    assert len(shown) == len(set(shown))


def test_every_column_of_the_benchmark_table_has_a_header():
    result = Bench("t", "d", 1, 8, 1, 0.1, (Setting(4, 0.0, (Row("engine speculative", 9.0, speedup=1.1),),
                                                   verify_cost=1.4),))
    assert set(bench_table(result).columns) <= set(HEADERS)


def test_a_table_of_records_leaves_out_what_no_row_has():
    from specdec.bench.points import TempPoint
    points = [TempPoint(temperature=t, alpha=0.5, acceptance_rate=0.4, mean_acceptance_length=1.2) for t in (0, 1)]
    assert list(frame(points, drop=("alpha",)).columns) == ["temperature", "acceptance_rate", "mean_acceptance_length"]


def test_no_header_is_a_raw_key():
    assert not [h for h in HEADERS.values() if "_" in h]


def test_every_header_in_words_has_a_korean_name():
    from ui.i18n import catalog
    korean = catalog("ko")
    words = {h for h in HEADERS.values() if len(h) > 2}           # not k, c, v, α̂
    assert not [h for h in words if korean.gettext(h) == h]


def test_float_columns_get_two_decimals_and_c_three_by_their_shown_header():
    from ui.tables import number_formats
    frame = pd.DataFrame([{"k": 2, "c": 0.0467, "speedup_min": 1.2278, "my prompt": "x", "alpha": 0.49,
                           "acceptance_rate": 0.17},
                          {"k": 4, "c": 0.05, "speedup_min": None, "my prompt": None, "alpha": None,
                           "acceptance_rate": 0.27}])
    formats = {header: config["type_config"]["format"] for header, config in number_formats(frame).items()}
    # k (int) and text untouched; an acceptance rate in percent, as the charts and sentences give it (review 28)
    assert formats == {"c": "%.3f", "speedup min": "%.2f", "α̂": "%.2f", "acceptance rate": "%.0f%%"}
    assert set(formats) <= set(headed(frame).columns)


def test_a_gap_in_a_table_is_a_dash_not_none():
    from streamlit.testing.v1 import AppTest

    def page():
        import pandas as pd

        from ui.tables import show
        show(pd.DataFrame([{"row": "plain", "acceptance_rate": None}, {"row": "spec", "acceptance_rate": 0.4}]), "t")
    at = AppTest.from_function(page).run()
    assert not at.exception
    shown = at.dataframe[0]
    assert shown.proto.placeholder == "—" and shown.value["acceptance rate"].isna().tolist() == [True, False]
    assert shown.value["acceptance rate"].iloc[1] == 40.0                  # shown as "40%" by its format
