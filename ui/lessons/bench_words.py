"""Names that measurements write as data (bench rows, drafter variants, the target's kernel
line), shown in the page's language. The data keep their English names: they are keys in
result files and in the figure store; only what a page shows goes through here."""
from __future__ import annotations

import re

from specdec.drafters.base import DRAFTERS
from specdec.wording import N_, _

# specdec/bench/runner.ROWS and its backend rows (a test checks that none is missing)
BENCH_ROWS = (N_("engine autoregressive"), N_("engine speculative"), N_("transformers generate"),
              N_("transformers assisted (k, constant)"), N_("transformers assisted (library defaults)"),
              N_("engine speculative (library defaults)"), N_("transformers generate (as a user loads it)"),
              N_("llama.cpp generate"), N_("llama.cpp prompt lookup (k)"),
              N_("engine autoregressive (torch)"), N_("engine speculative (torch)"),
              N_("onnxruntime-genai generate"))


def bench_row(name: str) -> str:
    """A bench row's name in the page's language (a name from a newer file stays as it is)."""
    return _(name) if name in BENCH_ROWS else name


# ui/lessons/drafters.variants' labels that are words (draft model names stay as they are)
POLICY_NAMES = (N_("heuristic"), N_("confidence"))
READS_NAMES = (N_("early exit @ {value}"),)   # a drafter that reads a setting of its own, named with its value


def drafter_name(label: str) -> str:
    """A compared drafter's name ('n-gram lookup', 'early exit @ 4': DrafterKind.compared_as),
    or 'draft-2l · heuristic', in the page's language."""
    for kind in DRAFTERS.values():
        name = kind.short or kind.label
        if kind.reads is None and label == name:
            return _(name)
        value = re.fullmatch(re.escape(name) + r" @ (\S+)", label) if kind.reads else None
        if value:
            return _(f"{name} @ {{value}}").format(value=value.group(1))     # e.g. READS_NAMES
    draft, dot, policy = label.rpartition(" · ")
    return f"{draft} · {_(policy)}" if dot and policy in POLICY_NAMES else label


# specdec/models/{kernels,precision}.describe's lines, as templates: a stored line (a bench file
# written in English) is matched against them, the most specific first, and worded again
KERNEL_LINES = (N_("float32 (torch's plain linear)"), N_("bfloat16 weights"),
                N_("int4 weights in groups of {group} ({source}), LM head in bfloat16"),
                N_("the GGUF's Q4_1 blocks"), N_("rounded from float weights"),
                N_("the GGUF's own Q4_1 layers and Q8_0 head × 16-bit activations, integer sums ({isa} kernel)"),
                N_("Q4_1 layers and Q8_0 head rounded from float weights × 16-bit activations, integer sums "
                   "({isa} kernel)"),
                N_("16-bit integer multiply-adds ({isa} kernel)"),
                N_("float32 multiply-adds (torch's matrix multiply)"),
                N_("the fastest step timed on {cpu}"), N_("chosen"), N_("{precision} ({how})"))
VERBATIM = {"cpu", "group", "isa"}      # parts that are names or numbers


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)        # text, name, text, name, ..., text
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+)" for i, p in enumerate(parts)))


def kernel_line(line: str) -> str:
    """The target's kernel line in the page's language; a line no template matches stays English."""
    for template in KERNEL_LINES:
        match = _pattern(template).fullmatch(line)
        if match:
            parts = match.groupdict()
            return _(template).format(**{k: v if k in VERBATIM else kernel_line(v) for k, v in parts.items()})
    return line


def named_at(name: str, t: float, k: int) -> str:
    """A row's name with its T and k, in one pair of brackets: "a (b)" -> "a (b, T = 0, k = 2)"."""
    settings = f"T = {t:g}, k = {k}"
    return f"{name[:-1]}, {settings})" if name.endswith(")") else f"{name} ({settings})"
