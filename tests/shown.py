"""The shipped files a page shows: per key, the one measured on this machine's CPU model where a machine
of it shipped one beside the first, else the first (ui/lessons/shipped.load and all_of choose so)."""
import json

from specdec.models.kernels import cpu_model
from ui.lessons import shipped


def shown_files(kind: str) -> list[dict]:
    """The chosen files of `kind` as JSON ({"key", "value", and "cpu" where shipped beside the first})."""
    files = [json.loads(p.read_text()) for p in sorted(shipped.SHIPPED_DIR.glob(f"{kind}-*.json"))]
    mine = {json.dumps(f["key"], sort_keys=True) for f in files if f.get("cpu") == cpu_model()}
    return [f for f in files if f.get("cpu") == cpu_model()
            or (not f.get("cpu") and json.dumps(f["key"], sort_keys=True) not in mine)]
