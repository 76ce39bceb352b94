"""Server-side time of a widget change on every page (AppTest): what a learner waits for
after moving a slider or flipping a toggle. A benchmark, not a test.

    .venv/bin/python scripts/bench_widgets.py [--repeats 3] [--pages step_through fast]

For each page (on the default pair, after one warm-up run) every slider, select box,
radio, toggle and number box in the page body is set to another value and the script run
that follows is timed; the table prints the median and max over the repeats, slowest first.
Measure it on an idle machine: the issue's bar is < 1 s for every widget.
"""
import argparse
import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
KINDS = ("slider", "select_slider", "selectbox", "radio", "toggle", "checkbox", "number_input")
SKIP = {"pair_label", "lang_switch", "upload", "example"}        # loads, languages, files


def other_value(widget):
    """A different legal value for the widget (None when it has no other)."""
    kind = type(widget).__name__.lower()
    if kind in ("toggle", "checkbox"):
        return not widget.value
    if kind in ("selectbox", "radio", "selectslider"):     # labels that are their own values
        shown = str(widget.format_func(widget.value)) if widget.value is not None else None
        options = [o for o in widget.options if o != shown and _shows_as(widget, o) == o]
        return options[-1] if options else None
    if kind == "slider":
        lo, hi = widget.min, widget.max
        return hi if widget.value != hi else lo
    if kind == "numberinput":
        step = widget.step or 1
        return widget.value + step if widget.max is None or widget.value + step <= widget.max else widget.value - step
    return None


def _shows_as(widget, option):
    try:
        return str(widget.format_func(option))
    except Exception:                       # a format function over values that are not labels
        return None


def widgets(at: AppTest):
    for kind in KINDS:
        for w in getattr(at, kind, []):
            if w.key not in SKIP and not w.disabled:
                yield kind, w.key


SETUP = {"step_through": ("btn_next",) * 4}          # buttons pressed before timing


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    for key in SETUP.get(page, ()):
        if not at.button(key=key).disabled:
            at.button(key=key).click().run()
    return at


def time_widget(at: AppTest, kind: str, key: str, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        w = next((w for w in getattr(at, kind) if w.key == key), None)
        value = None if w is None else other_value(w)
        if value is None:                   # gone (e.g. a reset run) or nothing else to pick
            break
        w.set_value(value)
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        if at.exception:
            raise SystemExit(f"{key}: {at.exception}")
    return times


def time_page(page: str, repeats: int) -> list[tuple[str, float, float]]:
    """Each widget on a freshly opened page (so one change does not hide the next widget)."""
    rows = []
    for kind, key in list(widgets(open_page(page))):
        times = time_widget(open_page(page), kind, key, repeats)
        if times:
            rows.append((f"{page}: {kind} {key}", statistics.median(times), max(times)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pages", nargs="*", default=[p.stem for p in sorted((ROOT / "pages").glob("*.py"))])
    args = ap.parse_args()
    rows = [row for page in args.pages for row in time_page(page, args.repeats)]
    rows.sort(key=lambda r: -r[1])
    for name, med, worst in rows:
        print(f"{med * 1e3:7.0f} ms median {worst * 1e3:7.0f} ms max  {name}")
    print(f"{sum(r[1] >= 1 for r in rows)} of {len(rows)} widgets take >= 1 s (median)")


if __name__ == "__main__":
    main()
