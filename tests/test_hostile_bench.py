"""Hostile input to the bench (issue 31): its options are one message before any work, its
results are never lost, and its files and every figure's labels are shown as text."""
import json

import pytest

from specdec.cli.main import main


@pytest.mark.parametrize("args, words", [
    (["--out", "."], "is a folder"),
    (["--limit", "0"], "--limit must be at least 1"),
    (["--limit", "-1"], "--limit must be at least 1"),
    (["--k", ""], "none left empty"),
    (["--k", "1,,2"], "none left empty"),
    (["--temperature", ","], "none left empty"),
    (["--threads", "100000"], "--threads must be between 1 and"),
    (["--threads", "0"], "--threads must be between 1 and"),
    (["--target", " "], "--target is empty"),
    (["--draft", "stdlib/draft-1l"], "would have no effect"),
    (["--prompts", "EMPTY"], "holds no prompts"),
    (["--prompts", "BROKEN.json"], "is not a prompt file"),
    (["--prompts", "BINARY"], "is not UTF-8 text"),
])
def test_cli_bench_bad_input_is_one_message_before_any_work(capsys, tmp_path, args, words):
    """Issue 31: each is one line and exit 2, before a model loads (no lost bench)."""
    files = {"EMPTY": b"\n  \n", "BROKEN.json": b'{"prompts": 3}', "BINARY": b"\xff\xfe\x00"}
    for name, raw in files.items():
        (tmp_path / name).write_bytes(raw)
    args = [str(tmp_path / a) if a in files else a for a in args]
    base = ["bench", "--target", "stdlib/target", "--drafter", "ngram", "--k", "2", "--temperature", "0",
            "--max-new-tokens", "3", "--repeats", "1", "--limit", "1"]
    assert main(base + args) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_bench_that_cannot_write_its_file_keeps_the_old_one_and_its_results(capsys, tmp_path, monkeypatch):
    """The disk fills after the up-front probe: the old file is left byte for byte, one line says
    so, and the results are on stderr as JSON as well as in the table."""
    from specdec.files import atomic
    out = tmp_path / "bench.json"
    old = json.dumps({"old": "results", "pad": "x" * 20_000}).encode()
    out.write_bytes(old)
    real = atomic.write_bytes

    def full_disk(path, data):
        if str(path) == str(out):                                      # the probe passes; the file does not
            with atomic.replacing(path) as tmp, open(tmp, "wb") as fh:
                fh.write(data[:4096])
                raise OSError(28, "No space left on device")
        return real(path, data)
    monkeypatch.setattr(atomic, "write_bytes", full_disk)
    code = main(["bench", "--target", "stdlib/target", "--drafter", "ngram", "--k", "2", "--temperature", "0",
                 "--max-new-tokens", "3", "--repeats", "1", "--limit", "1", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1 and "engine speculative" in captured.out                 # the table is there
    assert "could not write" in captured.err and "it is unchanged" in captured.err
    assert "Traceback" not in captured.err
    assert out.read_bytes() == old and [p.name for p in tmp_path.iterdir()] == ["bench.json"]
    results = json.loads(captured.err.split("follow as JSON on stderr\n", 1)[1])   # after the one line
    assert results["settings"][0]["k"] == 2


def test_an_out_file_that_cannot_hold_a_bench_is_refused_before_it_runs(capsys, tmp_path):
    """A size limit below a bench's JSON (the shell's `ulimit -f`): the probe write fails first,
    in a child process, before any model loads; the old file stays as it was."""
    import subprocess
    import sys
    out = tmp_path / "bench.json"
    out.write_bytes(b"old results")
    limit = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
             "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)); from specdec.cli.main import main; "
             "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", limit, "bench", "--target", "stdlib/target", "--drafter",
                           "ngram", "--k", "2", "--max-new-tokens", "3", "--limit", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "cannot be written" in done.stderr and "Traceback" not in done.stderr
    assert out.read_bytes() == b"old results" and [p.name for p in tmp_path.iterdir()] == ["bench.json"]


def test_out_on_a_device_is_one_message(capsys):
    assert main(["bench", "--target", "stdlib/target", "--out", "/dev/full"]) == 2
    assert "is not a regular file" in capsys.readouterr().err


def test_token_text_and_file_names_are_plain_text_in_every_figure():
    """Issue 31: Plotly renders <b>, <br> and <a href> in labels; every figure goes through
    plain_figure, which escapes trace names, categories, texts, hovers, titles and ticks."""
    import plotly.graph_objects as go

    from ui.safe import plain_figure
    evil = '<b>bold</b><br><a href="http://host/x">x</a>'
    fig = go.Figure([go.Bar(x=[evil, "ok"], y=[1, 2], name=evil, text=[evil, None], hovertext=evil,
                            hovertemplate="%{x}<br>%{y}<extra></extra>")])
    fig.update_layout(title=evil, xaxis=dict(ticktext=[evil], tickvals=[0]))
    fig.add_annotation(text=evil)
    out = plain_figure(fig)
    trace = out.data[0]
    shown = [trace.x[0], trace.name, trace.text[0], trace.hovertext, out.layout.title.text,
             out.layout.xaxis.ticktext[0], out.layout.annotations[0].text]
    assert all("<" not in s and "&lt;b&gt;bold&lt;/b&gt;" in s for s in shown), shown
    assert trace.x[1] == "ok" and trace.hovertemplate == "%{x}<br>%{y}<extra></extra>"   # the app's own


def _bench(**changes) -> bytes:
    row = {"row": "engine autoregressive", "tokens_per_s": 10.0, "seconds": [1.0]}
    spec = {**row, "row": "engine speculative"}
    setting = {"k": 2, "temperature": 0.0, "verify_cost": 1.2, "rows": [row, spec]}
    data = {"schema": 3, "record": "Bench", "target": "t", "draft": "d", "prompts": 2, "max_new_tokens": 8,
            "repeats": 1, "c": 0.1, "settings": [setting], "provenance": {}}
    for key, value in changes.items():
        if key == "rows":
            setting["rows"] = value
        elif key in ("threads", "cpu"):
            data["provenance"][key] = value
        else:
            data[key] = value
    return json.dumps(data).encode()


@pytest.mark.parametrize("changes", [
    {"drafter": "a-drafter-nobody-made"}, {"drafter": ["model"]}, {"exit_layer": "**4**"},
    {"library_drafting": {"x": 1}}, {"rows": [{"row": "engine speculative", "tokens_per_s": 1.0}]},
    {"rows": [{"row": ["engine autoregressive"]}]}, {"threads": "two"}, {"cpu": "x" * 5000},
    {"schema": 2}, {"record": "KSweep"}])
def test_a_bench_file_outside_its_schema_is_one_clear_message(changes):
    from ui.lessons.fast import read_bench
    assert read_bench(_bench())[1] is None                           # the valid file reads
    result, error = read_bench(_bench(**changes))
    assert result is None and "not the JSON of `python -m specdec bench --json`" in error


def test_the_fast_page_shows_a_bench_files_texts_as_text(tiny_dirs, tmp_path, monkeypatch):
    from ui.lessons import fast

    from apptest import app
    evil = "![x](http://host/leak.png) **bold** [link](http://host)"
    path = tmp_path / "bench.json"
    path.write_bytes(_bench(target=evil, draft=None, drafter="early-exit", exit_layer=3,
                            library_drafting=evil, cpu=evil))
    monkeypatch.setattr(fast, "BENCH_FILE", path)
    at = app(tiny_dirs, page="pages/fast.py", k=2)
    shown = " ".join(c.value for c in at.caption)
    assert "\\!\\[x\\]\\(http\\://host/leak\\.png\\)" in shown and "](http" not in shown
    assert "early exit after layer 3" in shown
