"""Tables name their columns for people: every key a page shows gets a readable header."""
import pandas as pd

from specdec.bench.record import Bench, Row, Setting
from specdec.bench.runner import flat_rows
from ui.tables import HEADERS, headed


def test_known_keys_get_readable_names_and_others_stay():
    frame = headed(pd.DataFrame([{"tokens_per_round": 1.5, "speedup_min": 0.9, "my prompt": 1}]))
    assert list(frame.columns) == ["mean acceptance length", "speedup min", "my prompt"]


def test_every_column_of_the_benchmark_table_has_a_header():
    result = Bench("t", "d", 1, 8, 1, 0.1, (Setting(4, 0.0, (Row("engine speculative", 9.0, speedup=1.1),),
                                                   verify_cost=1.4),))
    assert set(flat_rows(result)[0]) <= set(HEADERS)


def test_no_header_is_a_raw_key():
    assert not [h for h in HEADERS.values() if "_" in h]


def test_every_header_in_words_has_a_korean_name():
    from ui.i18n import catalog
    korean = catalog("ko")
    words = {h for h in HEADERS.values() if len(h) > 2}           # not k, c, v, α̂
    assert not [h for h in words if korean.gettext(h) == h]


def test_float_columns_get_two_decimals_and_c_three_by_their_shown_header():
    from ui.tables import number_formats
    frame = pd.DataFrame([{"k": 2, "c": 0.0467, "speedup_min": 1.2278, "my prompt": "x", "alpha": 0.49},
                          {"k": 4, "c": 0.05, "speedup_min": None, "my prompt": None, "alpha": None}])
    formats = {header: config["type_config"]["format"] for header, config in number_formats(frame).items()}
    assert formats == {"c": "%.3f", "speedup min": "%.2f", "α̂": "%.2f"}      # k (int) and text untouched
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
