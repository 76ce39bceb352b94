"""한국어 / English: the catalogs are complete for every marked text, and the app follows the
language chosen in the URL or the sidebar."""
import pytest
from catalogs import ROOT, in_korean, marked_texts
from streamlit.testing.v1 import AppTest

from specdec.drafters.policies import POLICIES
from specdec.drafters.registry import DRAFTERS


def test_every_marked_text_has_a_korean_translation(korean):
    marked = marked_texts()
    assert len(marked) > 30
    missing = sorted(t for t in marked if not korean.get(t) or not korean.get(t).string)
    fuzzy = sorted(t for t in marked if korean.get(t) and korean.get(t).fuzzy)
    assert not missing and not fuzzy, (missing, fuzzy)


def test_the_engines_drafter_and_policy_names_are_in_the_catalog(korean):
    for text in [d.label for d in DRAFTERS.values()] + [p.help for p in POLICIES.values()]:
        assert korean.get(text) and korean.get(text).string, text


def test_placeholders_survive_translation(korean):
    import re
    for message in korean:
        if message.id:
            names = r"{(\w+)[^}]*}"
            assert set(re.findall(names, message.id)) == set(re.findall(names, message.string)), message.id


def app_in(lang: str | None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    if lang:
        at.query_params["lang"] = lang
    return at.run()


def test_the_url_chooses_korean(korean):
    at = app_in("ko")
    assert not at.exception
    assert at.sidebar.slider(key="k").label == "k (초안 길이)"
    assert at.sidebar.selectbox(key="policy").label == "초안 길이 정책"


def test_english_by_default_and_the_switch_changes_language_and_url(korean):
    at = app_in(None)
    assert not at.exception and at.sidebar.slider(key="k").label == "k (draft length)"
    at.sidebar.radio(key="lang_switch").set_value("한국어").run()
    assert at.sidebar.slider(key="k").label == "k (초안 길이)"
    assert at.query_params["lang"] in ("ko", ["ko"])         # a shareable link
    at.sidebar.radio(key="lang_switch").set_value("English").run()
    assert at.sidebar.slider(key="k").label == "k (draft length)"


def test_the_tour_speaks_korean_at_every_step(korean):
    at = app_in("ko")
    at.switch_page("pages/tour.py").run()
    headers = []
    for step in range(8):
        assert not at.exception, step
        headers.append(at.header[0].value)
        if step < 7:
            at.button(key="tour_next").click().run()
    assert headers[0] == "1 · 먼저 초안, 그다음 검증" and headers[4] == "5 · 여러 요청을 한꺼번에"
    assert headers[6] == "7 · 검색과 에이전트 속의 같은 패턴" and headers[-1] == "8 · 정리"
    assert at.button(key="tour_back").label == "이전"


def test_step_through_runs_a_round_in_korean(korean):
    at = app_in("ko")
    at.switch_page("pages/step_through.py").run()
    at.button(key="btn_next").click().run()
    assert not at.exception
    assert at.button(key="btn_next").label == "다음 라운드"
    assert any(h.value == "라운드 1" for h in at.header)
    assert any(h.value == "1 · 초안" for h in at.subheader)
    assert any(m.label == "수용률" for m in at.metric)
    assert any(e.label.startswith("라운드 1 전: 타깃이 프롬프트를 읽습니다") for e in at.expander)   # the prefill
    assert any(m.label == "프리필" for m in at.metric)


def test_korean_example_prompts_have_korean_labels_and_say_why_the_text_is_english(korean):
    """Issue 28: the kinds and labels are Korean, the prompts stay English, and the page says why."""
    at = app_in("ko")
    at.switch_page("pages/step_through.py").run()
    example = at.selectbox(key="example")
    assert "코드 · 윤년 판별" in example.options and "번역 · 독일어: 고마워요" in example.options
    assert any("SmolLM2는 주로 영어 텍스트로 학습되어" in c.value for c in at.caption)
    example.set_value("code · is leap year").run()
    assert not at.exception
    assert at.text_area(key="prompt").value.startswith("Python: a function is_leap(year)")   # English


def test_the_exactness_page_and_its_charts_speak_korean(korean):
    """Page texts, the engine's rule names and the chart titles (specdec/wording.py) follow
    the session's language; numbers stay numbers."""
    at = app_in("ko")
    at.switch_page("pages/exact.py").run()
    assert not at.exception
    assert at.title[0].value == "출력이 정확히 유지되는 이유"
    assert at.radio(key="cmp_test").label == "수용 검사"
    text = " ".join(m.value for m in at.markdown)
    assert "p까지의 정확한 거리: **0.0000**" in text
    import json
    charts = [json.dumps(json.loads(c.proto.spec), ensure_ascii=False) for c in at.get("plotly_chart")]
    assert any("출력 토큰의 분포" in spec for spec in charts)


def test_specdec_texts_stay_english_outside_the_app():
    from ui.lessons.exact_fit import in_words
    assert in_words(0.5).startswith("p-value 0.50")


def test_the_trees_page_runs_a_round_in_korean(korean):
    at = app_in("ko")
    at.switch_page("pages/trees.py").run()
    at.button(key="tree_next").click().run()        # the prefill fed the feature draft: it drafts
    assert not at.exception
    assert at.title[0].value == "여러 초안을 한 번에"
    assert any("초안 방식이 노드" in m.value for m in at.markdown)


@pytest.mark.parametrize("page", ["pages/fast.py", "pages/where.py", "pages/drafters.py",
                                  "pages/you_draft.py", "pages/home.py", "pages/server.py"])
def test_every_other_page_renders_in_korean(korean, page):
    import re
    at = app_in("ko")
    at.switch_page(page).run()
    assert not at.exception
    assert all(not t.value.isascii() for t in at.title)         # the title is Korean
    # a speedup is 1.23배 everywhere a learner reads it: texts, table cells (the published figures,
    # the bench's "× plain") and charts
    mixed = [m.group(0) for t in shown_texts(at.main) for m in re.finditer(r".{0,40}\d×", t)]
    assert not mixed, mixed[:3]


def shown_texts(node) -> list[str]:
    """Every text of a page's column: element values and labels, table headings and cells, chart specs."""
    from streamlit.testing.v1 import element_tree as et
    found = []
    for kid in getattr(node, "children", {}).values():
        if isinstance(kid, et.Dataframe):
            found += [str(c) for c in kid.value.columns] + [str(v) for v in kid.value.to_numpy().ravel()]
        elif isinstance(kid, et.Block):
            found += shown_texts(kid)
        else:
            found += [v for v in (getattr(kid, "value", None), getattr(kid, "label", None)) if isinstance(v, str)]
            found += [kid.proto.spec] if getattr(kid, "type", "") == "plotly_chart" else []
    return found


def test_the_glossary_puts_both_languages_side_by_side(korean):
    at = app_in("ko")
    table = next(t.value for t in at.table if "한국어" in t.value.columns)
    row = table[table["English"] == "acceptance rate"].iloc[0]
    assert row["한국어"] == "수용률" and row["뜻"].startswith("수용된 초안 / 작성된 초안 토큰")
    alpha = table[table["English"] == "α̂ (mean β)"].iloc[0]         # one word per acceptance figure
    assert alpha["한국어"] == "α̂ (평균 β)" and "수용률보다 높습니다" in alpha["뜻"]


def test_engine_errors_are_worded_in_korean(korean):
    """An engine error carries its template and parameters; the app words it in Korean."""
    at = app_in("ko")
    at.switch_page("pages/step_through.py").run()
    at.text_area(key="prompt").set_value("").run()
    at.button(key="btn_next").click().run()
    assert not at.exception
    assert any("메시지 1" in w.value and "내용이 없습니다" in w.value for w in at.warning)   # a chat


def test_an_error_is_english_outside_the_app_and_keeps_its_parameters():
    import specdec
    with pytest.raises(specdec.InputError) as info:
        specdec.Settings(k=0)
    err = info.value
    assert str(err) == "k (draft length) must be between 1 and 64, got 0"
    assert err.worded(lambda t: {"k (draft length) must be between 1 and {high}, got {value}":
                                 "k는 1~{high}, 입력값 {value}"}.get(t, t)) == "k는 1~64, 입력값 0"


def test_a_load_error_is_worded_in_korean_with_its_fix(korean, tmp_path):
    from specdec.models.load import load_model
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"\x00" * 16)
    with pytest.raises(Exception) as info:
        load_model(str(tmp_path))
    worded = info.value.worded(korean_text)
    assert "손상" in worded or "불러오지 못했습니다" in worded, worded


def korean_text(text: str) -> str:
    from ui.i18n import catalog
    return catalog("ko").gettext(text)


def test_bench_rows_and_the_kernel_line_are_worded_in_korean(korean):
    from specdec.bench.runner import BACKEND_ROWS, ROWS
    from ui.lessons.bench_words import BENCH_ROWS, bench_row, drafter_name, kernel_line
    assert set(BENCH_ROWS) == set(ROWS) | set(BACKEND_ROWS)           # every row the bench writes
    assert in_korean(korean, bench_row, "engine speculative (library defaults)") == \
        "엔진 추측 디코딩 (라이브러리 기본값)"
    shipped = ("int4 weights in groups of 32 (the GGUF's Q4_1 blocks), LM head in bfloat16 "
               "(the fastest step timed on Intel(R) Xeon(R) Processor)")
    assert kernel_line(shipped) == shipped                            # English outside the app
    assert in_korean(korean, kernel_line, shipped) == ("32개씩 묶은 int4 가중치(GGUF의 Q4_1 블록 그대로), LM 헤드는 "
                                                      "bfloat16 (Intel(R) Xeon(R) Processor에서 잰 가장 빠른 스텝)")
    ours = "the GGUF's own Q4_1 layers and Q8_0 head × 16-bit activations, integer sums (avx2 kernel) (chosen)"
    assert in_korean(korean, kernel_line, ours).startswith(
        "GGUF 자신의 Q4_1 층과 Q8_0 LM 헤드 × 16비트 활성값, 정수 합 (avx2 커널)")
    here = ("the GGUF's own Q4_1 layers and Q8_0 head × 16-bit activations, integer sums (AVX2 kernel) "
            "(the fastest step timed on AMD EPYC (family 25, model 1))")     # a CPU name with brackets of its own
    assert in_korean(korean, kernel_line, here) == ("GGUF 자신의 Q4_1 층과 Q8_0 LM 헤드 × 16비트 활성값, 정수 합 "
                                                   "(AVX2 커널) (AMD EPYC (family 25, model 1)에서 잰 가장 빠른 스텝)")
    assert in_korean(korean, drafter_name, "early exit @ 4") == "조기 종료 (앞 4층)"
    assert in_korean(korean, drafter_name, "draft-2l · heuristic") == "draft-2l · 휴리스틱"


def test_the_upload_widget_is_reworded_for_its_key_only():
    from ui.upload import css
    style = css("fast_bench_file", "올리기", "파일당 최대 200MB • JSON")
    import re
    rules = re.findall(r"([^{}]+)\{", style.removeprefix("<style>"))
    selectors = [s.strip() for rule in rules for s in rule.split(",")]
    assert len(selectors) == 4
    assert all(s.startswith(".st-key-fast_bench_file [data-testid=stFileUploaderDropzone] ") for s in selectors)
    assert 'content:"올리기"' in style and 'content:"파일당 최대 200MB • JSON"' in style
    assert "{display:none}" in style and "{font-size:0}" not in style   # a shrunk text is still English text
    assert 'content:"a\\"b"' in css("k", 'a"b', "x")                 # a quote cannot end the rule


def test_the_fast_pages_bench_charts_and_uploader_speak_korean(korean):
    import json
    at = app_in("ko")
    at.switch_page("pages/fast.py").run()
    assert not at.exception
    charts = " ".join(json.dumps(json.loads(c.proto.spec), ensure_ascii=False) for c in at.get("plotly_chart"))
    for word in ("정리 3.8의 상한", "잰 검증 비용에서의 상한", "엔진 추측 디코딩 (라이브러리 기본값)"):
        assert word in charts, word
    for word in ("Theorem 3.8 bound", "library defaults"):
        assert word not in charts, word
    # the shipped bench's target: intdot on torch, its kernel line in Korean
    assert any("타깃 계산 방식은 GGUF 자신의" in c.value and "16비트 활성값" in c.value for c in at.caption)
    assert any('content:"올리기"' in h.proto.body for h in at.get("html"))


def test_short_choices_fit_their_boxes_in_both_languages(korean):
    """Issue 51's cut-off boxes: the sidebar's target backend and precision, the calculator's
    machine (one of five columns) and Beyond tokens' five metrics show whole at 1400 px. A box
    shows its choice in 14 px text: in Chromium the sidebar's holds 226 px, a fifth of the main
    column 139 px, a metric's label about 170 px; at about 6.5 px an average English character
    (a Hangul syllable two) that is 32, 20 and 24 units. Details go to the box's help."""
    from test_density import units

    from specdec.bench import roofline
    from ui.i18n import catalog
    from ui.sidebar import BACKENDS, PRECISIONS
    machines = [m.name for m in (*roofline.PUBLISHED, roofline.here(1.0, 1.0))]
    metrics = ["recall of the pool", "MRR@10", "nDCG@10", "same top answer", "cost per query"]
    for say in (lambda s: s, catalog("ko").gettext):
        for names, room in (([*BACKENDS.values(), *PRECISIONS.values()], 32), (machines, 20), (metrics, 24)):
            over = [(say(n), units(say(n))) for n in names if units(say(n)) > room]
            assert not over, (room, over)
    assert "H100" in catalog("ko").gettext(roofline.PUBLISHED[1].name)


def test_a_checkout_without_compiled_catalogs_still_speaks_korean(tmp_path, monkeypatch):
    """Started without `make` (no .mo, or one older than its .po): the .po is compiled in memory."""
    import os
    import shutil

    from ui import i18n
    po = tmp_path / "ko" / "LC_MESSAGES" / "messages.po"
    po.parent.mkdir(parents=True)
    shutil.copy(i18n.LOCALES / "ko" / "LC_MESSAGES" / "messages.po", po)
    monkeypatch.setattr(i18n, "LOCALES", tmp_path)
    i18n.catalog.cache_clear()
    try:
        assert i18n.catalog("ko").gettext("measured here") == "여기서 측정"
        (po.with_suffix(".mo")).write_bytes(b"")              # a stale, broken build beside a newer .po
        os.utime(po.with_suffix(".mo"), (1, 1))
        i18n.catalog.cache_clear()
        assert i18n.catalog("ko").gettext("measured here") == "여기서 측정"
    finally:
        i18n.catalog.cache_clear()
