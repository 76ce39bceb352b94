"""Figure builders and the token strip, from a fixed hand-made round."""
from dataclasses import replace

from specdec.trace.run import Caches, Dist, Final, Position, Round
from ui.figures import rounds as plots
from ui.strip import strip_html

TEXT = {0: "a", 1: "b", 2: "c", 3: "d"}
P1, Q1 = Dist((0.1, 0.6, 0.2, 0.1)), Dist((0.5, 0.3, 0.1, 0.1))
P2, Q2 = Dist((0.7, 0.1, 0.1, 0.1)), Dist((0.1, 0.1, 0.1, 0.7))
RESIDUAL = Dist((0.0, 0.6, 0.2, 0.2))


def fixed_round() -> Round:
    """Draft 'a' accepted (u=0.1 ≤ 0.2), draft 'd' rejected (u=0.9 > 1/7), then 'b' corrected."""
    positions = (Position(1, 0, "a", 0.5, 0.1, 0.2, 0.1, "accepted", 0.7, P1, Q1),
                 Position(2, 3, "d", 0.7, 0.1, 1 / 7, 0.9, "rejected", 0.4, P2, Q2),
                 Position(3, 2, "c", 0.4, 0.2, 0.5, None, "discarded", 0.5, P2, Q2))
    final = Final(1, "b", "correction", 0.1, RESIDUAL)
    return Round(0, 5, 3, False, positions, 1, final, (0, 1), Caches(4, 8, 6, 4, 7, 6), 3, 1, 3.0, 9.0)


def test_pq_figure_shows_p_q_overlap_and_beta():
    pos = fixed_round().positions[0]
    fig = plots.pq_figure(pos, TEXT.get)
    names = [t.name for t in fig.data]
    assert names == ["q (draft)", "p (target)", "min(p, q)"]
    by_name = {t.name: t for t in fig.data}
    x = list(by_name["p (target)"].x)
    assert x[0] == "b"                                  # ordered by p
    assert "a ◀" in x                                   # the drafted token is highlighted
    i = x.index("a ◀")
    assert by_name["min(p, q)"].y[i] == 0.1 and by_name["q (draft)"].y[i] == 0.5
    assert by_name["q (draft)"].marker.color == plots.COLORS.draft
    assert any("β = Σ min(p, q) = 0.700" in a.text for a in fig.layout.annotations)


def test_ratio_figure_colours_by_verdict_and_plots_u():
    fig = plots.ratio_figure(fixed_round())
    bars, dots = fig.data
    assert list(bars.marker.color) == [plots.COLORS.of(v) for v in ("accepted", "rejected", "discarded")]
    assert list(dots.y) == [0.1, 0.9]                   # the discarded position had no draw
    assert list(bars.y) == [0.2, 1 / 7, None]          # the discarded one was never tested: no bar (review 53)


def test_the_drawn_token_is_on_the_chart_even_when_unlikely():
    """A bonus drawn from far down p_(k+1) still gets its own bar."""
    wide = Dist(tuple([0.02] * 50))
    rnd = replace(fixed_round(), n_accepted=3, emitted=(0, 3, 2, 49),
                  final=Final(49, "z", "bonus", 0.02, wide))
    fig = plots.source_figure(rnd, lambda t: TEXT.get(t, f"t{t}"))
    assert "t49 ◀" in list(fig.data[-1].x)


def test_probabilities_keep_their_significant_digits():
    assert [plots.prob(x) for x in (0.41234, 1.2e-4, 0.0, None, 0.001)] == \
        ["0.412", "1.2e-04", "0", "—", "0.001"]


def test_source_figure_shows_the_residual_and_the_token():
    fig = plots.source_figure(fixed_round(), TEXT.get)
    residual = fig.data[-1]
    assert residual.name.startswith("residual") and residual.marker.color == plots.COLORS.correction
    assert "b ◀" in list(residual.x)
    assert "“b”" in fig.layout.title.text


def test_metric_figures():
    rnd = fixed_round()
    bonus = replace(rnd, index=1, n_accepted=3, emitted=(0, 3, 2, 1),
                    final=replace(rnd.final, kind="bonus"))
    tl = plots.timeline_figure([rnd, bonus], selected=0)
    assert [t.name for t in tl.data] == ["accepted draft", "correction (residual)", "bonus (pₖ₊₁)"]
    assert [list(t.y) for t in tl.data] == [[1, 3], [1, 0], [0, 1]]    # emitted: 2 and 4 tokens
    assert tl.data[2].marker.color == plots.COLORS.bonus            # every colour has an entry
    cache = plots.cache_figure(rnd, {"target": "T why", "draft": "D why", "lag": "lag why"})
    cropped = [t for t in cache.data if t.name == "cropped"]
    assert [(list(t.base), list(t.x)) for t in cropped] == [([6], [2]), ([6], [1])]  # target 8→6, draft 7→6
    assert [t.hovertext[0] for t in cropped] == ["T why", "D why"]
    # the draft two positions behind the kept text (57 kept, 59 in the text, it had held 60): 57–58 it had held are
    # cropped and read again next round, 59 cropped; no span drawn as two states (review 43), none unsaid (review 49:
    # a feature draft's cropped guesses drawn as only "read next round")
    behind = replace(rnd, caches=replace(rnd.caches, target_after=59, target_peak=62, draft_after=57, draft_peak=60))
    spans = {(t.name, t.y[0]): (t.base[0], t.x[0]) for t in plots.cache_figure(behind, {"lag": "l"}).data}
    assert spans[("cropped", "draft")] == (59, 1) and spans[("cropped, read again next round", "draft")] == (57, 2)
    assert spans[("in the text, read by the draft next round", "draft")] == (59, 0) and spans[("kept", "draft")] \
        == (0, 57)
    # it had held only 57: 58 it never read (a correction, a bonus token) is read for the first time
    short = replace(behind, caches=replace(behind.caches, draft_peak=58))
    spans = {(t.name, t.y[0]): (t.base[0], t.x[0]) for t in plots.cache_figure(short, {"lag": "l"}).data}
    assert spans[("cropped, read again next round", "draft")] == (57, 1)
    assert spans[("in the text, read by the draft next round", "draft")] == (58, 1)
    assert list(plots.histogram_figure((3, 1, 0)).data[0].y) == [3, 1, 0]
    assert plots.histogram_figure((3, 1, 0)).layout.yaxis.dtick == 1              # counts: whole ticks
    assert plots.histogram_figure((40, 1, 0)).layout.yaxis.dtick == 7             # about six of them
    assert plots.near_tie(Dist((0.50, 0.4995, 0.0005))) is not None
    assert plots.near_tie(Dist((0.50, 0.495, 0.005))) is None      # 5e-3 apart: not a near-tie
    assert plots.near_tie(P1) is None


def test_strip_marks_every_kind():
    html = strip_html(["<p>"], [fixed_round()], selected=0)
    assert 'class="t prompt"' in html and "&lt;p&gt;" in html       # escaped prompt token
    assert html.count('class="t accepted sel"') == 1
    assert 'class="t rejected sel"' in html and 'class="t discarded sel"' in html
    assert 'class="t correction sel"' in html and "u=0.900" in html


def test_only_kept_tokens_break_the_line():
    rnd = fixed_round()
    newline = replace(rnd.positions[1], text="\n")
    rnd = replace(rnd, positions=(rnd.positions[0], newline, rnd.positions[2]),
                  final=Final(1, "x\n", "correction", 0.1, RESIDUAL))
    html = strip_html([], [rnd], selected=None)
    assert ('<span class="t rejected" data-id="3" title="round 1, draft 2: q=0.700 p=0.100 u=0.900 '
            '→ rejected">↵</span>') in html
    assert ">x↵\n</span>" in html                        # the kept correction does break the line
    assert html.count("\n") == html.split('<div class="strip">')[0].count("\n") + 1
    assert plots.show("axis label " * 3) == "axis␣label␣axis…"          # 16 characters at most
    assert plots.show(" x") == "␣x"


def test_greedy_final_token_is_shown_as_the_argmax_not_a_residual():
    rnd = fixed_round()
    greedy = replace(rnd, greedy=True, final=Final(1, "b", "correction", 0.6, P1))
    fig = plots.source_figure(greedy, TEXT.get)
    assert len(fig.data) == 1 and "residual" not in fig.data[0].name
    assert list(fig.data[0].x)[0] == "b ◀"                  # the argmax of P1, first
    assert fig.data[0].marker.color[0] == plots.COLORS.correction
    assert "argmax (replaces rejected draft 2)" in fig.layout.title.text


def test_folded_strip_and_output_show_only_emitted_tokens():
    folded = strip_html(["<p>"], [fixed_round()], selected=None, fold=True)
    assert "t rejected" not in folded and "t discarded" not in folded
    assert 'data-id="0"' in folded and 'data-id="1"' in folded       # accepted 'a', correction 'b'
    from ui.strip import output_html
    out = output_html([fixed_round()], TEXT.get)
    assert ">ab</div>" in out
    # with the tokenizer's decode the text is written whole: here each id a byte of UTF-8, special ones (≥ 256) left
    # out as skip_special_tokens does (review 45: "… 3<|im_end|>")
    assert ">ab</div>" in output_html([fixed_round()], TEXT.get, lambda ids: bytes(i + 97 for i in ids).decode())
    cut = output_html([fixed_round()], TEXT.get, lambda ids: "ab" + "🤖".encode()[:2].decode(errors="replace"))
    assert ">ab</div>" in cut                                 # a last character cut in its bytes is left out


def test_a_character_split_over_tokens_shows_whole_on_the_token_that_completes_it():
    """Review 45: the prompt "ꙮ 🤖" showed as "����" token by token; the ids here are UTF-8 bytes."""
    from ui.strip import PART, prompt_texts
    ids = list("a🤖ꙮ".encode())                                       # 1 + 4 + 3 bytes
    decode = lambda part: bytes(part).decode("utf-8", errors="replace")   # noqa: E731
    assert prompt_texts(ids, lambda t: decode([t]), decode) == ["a", PART, PART, PART, "🤖", PART, PART, "ꙮ"]
    assert prompt_texts(ids, lambda t: decode([t]))[1] == "\ufffd"       # token by token: the old strip
    assert prompt_texts(ids[:3], lambda t: decode([t]), decode)[-1] == "\ufffd"   # cut short: what is there
    bad = prompt_texts([0xFF] * 6, lambda t: decode([t]), decode)           # bytes of no character: 4 at most wait
    assert bad == [PART, PART, PART, "\ufffd" * 4, PART, "\ufffd" * 2]


def test_the_strip_legend_names_every_kind_the_timeline_chart_can_show():
    """Every final-token kind the chart's legend can show (correction, bonus, a target token of
    an autoregressive round) is in the token strip's legend too, in the strip's own colour class."""
    from ui.strip import legend_html
    legend = legend_html()
    for kind, words in (("correction", "correction (residual)"), ("bonus", "bonus (pₖ₊₁)"),
                        ("target", "target token (no draft)")):
        assert f'<span class="t {kind}" title="{words}">{words}</span>' in legend


def test_the_timeline_legend_speaks_korean():
    """The chart's final-token legend goes through the catalog (it was fixed English text)."""
    from specdec import wording
    from ui.i18n import catalog
    wording.use(catalog("ko").gettext)
    try:
        names = {trace.name for trace in plots.timeline_figure([fixed_round()]).data}
    finally:
        wording.use(lambda text: text)
    assert "교정 (잔여 분포)" in names


def test_a_tree_node_shows_its_word_and_a_code_span_keeps_its_backticks_out():
    from ui.figures.trees import node_text
    from ui.round_view import in_code
    assert node_text(" python") == "python"             # the space most tokens begin with is left out
    assert node_text(" `") == "`" and node_text(" ```") == "```"
    assert node_text("  ") == "␣␣" and node_text(" \n") == "\\n"      # a token of spaces alone stays visible
    assert in_code(" `x`") == "␣ˋxˋ"                   # a backtick would end the span


def test_a_greedy_rounds_table_asks_whether_each_draft_is_the_argmax_not_min_p_over_q(pair):
    """Review 42: in greedy mode "min(1, p/q)" read 0 beside p(d) / q(d) = 0.10: the rule is d = argmax p, no draw."""
    import specdec
    from ui.round_view import position_table
    run = specdec.generate(pair, "abc", k=3, temperature=0.0, max_new_tokens=12)
    rows = [row for rnd in run.rounds for row in position_table(rnd)]
    assert rows and all("min(1, p/q)" not in row and "u" not in row for row in rows)
    said = {row["verdict"]: set() for row in rows}
    for row in rows:
        said[row["verdict"]].add(row["d = argmax p?"])
    assert said.get("accepted", {"yes"}) == {"yes"} and said.get("rejected", {"no"}) == {"no"}
    assert said.get("discarded", {None}) == {None} and {"accepted", "rejected"} & set(said)
    sampled = specdec.generate(pair, "abc", k=3, temperature=1.0, max_new_tokens=12)
    assert all("min(1, p/q)" in row for rnd in sampled.rounds for row in position_table(rnd))
    rows = [row for rnd in sampled.rounds for row in position_table(rnd)]      # a discarded draft: no p, no test
    assert all((row["p(d)"], row["min(1, p/q)"]) == (None, None) for row in rows if row["verdict"] == "discarded")
    assert all(row["min(1, p/q)"] is not None for row in rows if row["verdict"] != "discarded")


def test_the_strip_draws_a_character_split_over_generated_tokens_on_the_token_that_completes_it():
    """Review 46's emoji prompt: drafts and kept tokens read "Ben���G" token by token; the ids here are UTF-8
    bytes, the kept tokens one text and each round's thrown-away drafts another."""
    from specdec.trace.run import Caches, Final, Position, Round
    from ui.strip import FINAL, PART, drawn_texts

    def rnd(index, drafts, accepted, final, kind):
        verdicts = ["accepted"] * accepted + ["rejected"] * (len(drafts) > accepted)
        positions = tuple(Position(i + 1, t, bytes([t]).decode(errors="replace"), 0.5, 0.5, 1.0, None, v, 0.5,
                                   None, None) for i, (t, v) in enumerate(zip(drafts, verdicts)))
        return Round(index, 10, len(drafts), True, positions, accepted, Final(final, "?", kind, 0.3, None),
                     tuple(drafts[:accepted]) + (final,), Caches(0, 0, 0, 0, 0, 0), len(drafts), 1, 1.0, 10.0)
    rounds = [rnd(0, [0x61, 0xF0, 0x9F], 3, 0xA4, "bonus"), rnd(1, [0x96, 0x62], 1, 0x63, "correction")]
    decode = lambda ids: bytes(ids).decode("utf-8", errors="replace")        # noqa: E731
    assert drawn_texts(rounds, decode) == {(0, 1): "a", (0, 2): PART, (0, 3): PART, (0, FINAL): PART,
                                           (1, 1): "🤖", (1, FINAL): "c", (1, 2): "b"}
    drawn = strip_html([], rounds, None, decode=decode)
    assert "🤖" in drawn and "\ufffd" not in drawn and "\ufffd" in strip_html([], rounds, None)


def test_a_chart_leaves_out_tokens_no_distribution_gives_mass():
    """Review 54: at top-p 0.5 the charts padded the candidates with tokens at 0 ("<issue_closed>")."""
    cut = Dist((0.7, 0.3) + (0.0,) * 20)
    draft = Dist((0.5, 0.0, 0.5) + (0.0,) * 19)
    assert plots.top_ids([cut, draft]) == [0, 1, 2]
