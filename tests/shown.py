"""The shipped files a page shows: per key, the one measured on this machine's CPU model where a machine
of it shipped one beside the first, else the first (ui/lessons/shipped.load and all_of choose so)."""
import json

from specdec.models import kernels
from ui.lessons import shipped


def shown_files(kind: str) -> list[dict]:
    """The chosen files of `kind` as JSON ({"key", "value", and "cpu" where shipped beside the first})."""
    here = kernels.cpu_model()                        # read at call time: stand_in_cpu may stand in another
    files = [json.loads(p.read_text()) for p in sorted(shipped.SHIPPED_DIR.glob(f"{kind}-*.json"))]
    mine = {json.dumps(f["key"], sort_keys=True) for f in files if f.get("cpu") == here}
    return [f for f in files if f.get("cpu") == here
            or (not f.get("cpu") and json.dumps(f["key"], sort_keys=True) not in mine)]


def stand_in_cpu(monkeypatch, name: str) -> None:
    """Make the lab read `name` as this machine's CPU model everywhere it asks (the modules that imported
    cpu_model, and kernels, whose name page scripts import when they run): a test then takes the branch of
    a machine like the one that shipped a result, or of another one, whatever CPU runs it."""
    import sys

    from specdec.models import cpu, kernels

    def stand_in() -> str:
        return name
    stand_in.stands_in = True                        # a later call may stand in another
    real = cpu.cpu_model
    for module in [kernels, *(m for n, m in list(sys.modules.items()) if n.startswith(("ui.", "specdec.")))]:
        found = getattr(module, "cpu_model", None)
        if found is real or getattr(found, "stands_in", False):
            monkeypatch.setattr(module, "cpu_model", stand_in)
