"""Every word a learner reads goes through the catalog: no `st.<call>` in app.py, pages/ or ui/
shows a plain English literal that _() does not mark (so the Korean page cannot miss it)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# Streamlit calls whose text arguments a learner reads (label, body, help, placeholder, ...).
SHOWN = {"title", "header", "subheader", "caption", "write", "markdown", "info", "warning", "error",
         "success", "button", "download_button", "toggle", "radio", "selectbox", "multiselect",
         "slider", "select_slider", "number_input", "text_input", "text_area", "metric",
         "expander", "file_uploader", "segmented_control", "page_link", "progress",
         "form_submit_button"}
KEYWORDS = {"label", "help", "placeholder", "body", "value_label"}


def literal_texts(node) -> list[str]:
    """Plain string literals (and f-string pieces) directly in an argument, not inside _()."""
    import ast
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant)]
    if isinstance(node, ast.BinOp):
        return literal_texts(node.left) + literal_texts(node.right)
    if isinstance(node, ast.IfExp):
        return literal_texts(node.body) + literal_texts(node.orelse)
    return []


def unmarked_texts() -> list[str]:
    """`st.<shown>(...)` arguments in app.py, pages/ and ui/ that are words but not marked."""
    import ast
    import re
    found = []
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in SHOWN):
                continue
            args = node.args[:1] + [k.value for k in node.keywords if k.arg in KEYWORDS]
            for arg in args:
                for text in literal_texts(arg):
                    bilingual = re.search(r"[가-힣]", text)       # already in both languages
                    path_arg = text.endswith(".py")              # st.page_link's page
                    if re.search(r"[A-Za-z]{3,}", text) and not (text.startswith(":material/")
                                                                  or bilingual or path_arg):
                        found.append(f"{path.name}:{node.lineno}: {text[:60]!r}")
    return found


def test_no_user_visible_literal_is_left_unmarked():
    assert unmarked_texts() == []
