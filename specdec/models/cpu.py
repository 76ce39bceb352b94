"""The CPU a measurement ran on, by name: the key of every store of timings (kernels, the
machine's profile, the integer kernel's choice) and the label beside every speed figure."""
from __future__ import annotations

import platform
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name; where a virtual machine hides the model number ("AMD EPYC"), its
    family and model are added, so that two generations behind one name are not one machine."""
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/cpuinfo").read_text().splitlines()[:30]
                      if ":" in line)
    except OSError:
        fields = {}
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    name = fields.get("model name")
    if not name:
        return platform.processor() or platform.machine()
    if any(ch.isdigit() for ch in name) or "cpu family" not in fields:
        return name
    return f"{name} (family {fields['cpu family']}, model {fields.get('model', '?')})"
