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


# rows shown by another name than the data's: the baseline is "the target alone" on every page (review 56)
SHOWN_AS = {"engine autoregressive": N_("engine, target alone"),
            "engine autoregressive (torch)": N_("engine, target alone (torch)")}


def bench_row(name: str) -> str:
    """A bench row's name in the page's language (a name from a newer file stays as it is)."""
    return _(SHOWN_AS.get(name, name)) if name in BENCH_ROWS else name


# ui/lessons/drafters.variants' labels that are words (draft model names stay as they are)
POLICY_NAMES = (N_("heuristic"), N_("confidence"))
# a drafter that reads a setting of its own, named with its value (what the value is, said)
READS_NAMES = {"early exit": N_("early exit (first {value} layers)")}


def drafter_name(label: str) -> str:
    """A compared drafter's name ('n-gram lookup', 'early exit @ 4': DrafterKind.compared_as),
    or 'draft-2l · heuristic', in the page's language."""
    for kind in DRAFTERS.values():
        name = kind.short or kind.label
        if kind.reads is None and label == name:
            return _(name)
        value = re.fullmatch(re.escape(name) + r" @ (\S+)", label) if kind.reads else None
        if value:
            return _(READS_NAMES.get(name, f"{name} @ {{value}}")).format(value=value.group(1))
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


def _splits(parts: list[str], line: str):
    """Every way `line` fills the template `parts` (text, name, text, name, ..., text): dicts of
    name -> value, trying each place a value could end (a CPU name has brackets of its own)."""
    if not line.startswith(parts[0]):
        return
    rest = line[len(parts[0]):]
    if len(parts) == 1:
        if rest == "":
            yield {}
        return
    name, after = parts[1], parts[2]
    ends = [len(rest)] if len(parts) == 3 and after == "" else \
        [i for i in range(1, len(rest) + 1) if rest.startswith(after, i)]
    for end in ends:
        for found in _splits(parts[2:], rest[end:]):
            yield {name: rest[:end], **found}


def _worded(line: str) -> str | None:
    """The line through the first template it fills with parts that are worded too (None: none)."""
    for template in KERNEL_LINES:
        for parts in _splits(re.split(r"\{(\w+)\}", template), line):
            worded = {k: v if k in VERBATIM else _worded(v) for k, v in parts.items()}
            if None not in worded.values():
                return _(template).format(**worded)
    return None


def kernel_line(line: str) -> str:
    """The target's kernel line in the page's language; a line no template matches stays English."""
    return _worded(line) or line


def kernel_choice() -> str | None:
    """Why a shipped result may name AVX2 and this machine AVX-512 VNNI on the same CPU model: the
    kernel is timed once per CPU and the faster kept (the bits are the same); None where no VNNI ran."""
    from specdec.models import intdot
    ratio = intdot.vnni_over_avx2()
    if ratio is None:
        return None
    return _("Where the CPU has AVX-512 VNNI, the lab times it against AVX2 once per CPU model (kept in "
             "build/intdot/vnni.json) and keeps the faster; both give the same bits. Here VNNI ran at {ratio:.2f}× "
             "AVX2's speed, so every process runs {kept}. A result measured on another machine, or before that "
             "rule, may name the other kernel: its speeds are that kernel's, its outputs the same.").format(
        ratio=ratio, kept=intdot.kernel())


def named_at(name: str, t: float, k: int | None) -> str:
    """A row's name with its T and k (None: a row that ignores k), in one pair of brackets: "a (b)" -> "a (b, T =
    0, k = 2)"."""
    settings = f"T = {t:g}" + ("" if k is None else f", k = {k}")
    return f"{name[:-1]}, {settings})" if name.endswith(")") else f"{name} ({settings})"


def machine_name(recorded: str) -> str:
    """Where a shipped result ran, as a page says it: on a CPU of this machine's model, "a machine
    like this one (the same CPU model, ...)" — neither "this machine" (it is not this one) nor
    "not this machine's" as if it were another kind; elsewhere the CPU (cpu_name)."""
    from specdec.models.kernels import cpu_model
    if recorded == cpu_model():
        return _("a machine like this one (the same CPU model, {cpu})").format(cpu=recorded)
    return cpu_name(recorded)


def machine_short(recorded: str) -> str:
    """machine_name for a chart's legend: "a machine like this one" on this machine's CPU model
    (the legend's neighbours name this machine's CPU)."""
    from specdec.models.kernels import cpu_model
    return _("a machine like this one") if recorded == cpu_model() else cpu_name(recorded)


def cpu_name(recorded: str) -> str:
    """Another measurement's CPU as a page names it: where its record names this machine's CPU
    only by its family ("AMD EPYC" on an "AMD EPYC (family 25, model 1)"), it says the model was
    not recorded, so the learner does not read "not this machine" beside this machine's name."""
    from specdec.models.kernels import cpu_model
    here = cpu_model()
    if recorded != here and here.startswith(recorded + " "):
        return _("{cpu} (model not recorded: perhaps another one)").format(cpu=tidy(recorded))
    return tidy(recorded)


def tidy(cpu: str) -> str:
    """A CPU's name without its trademark marks and the word "Processor" ("Intel(R) Xeon(R) Processor (family 6,
    model 167)" -> "Intel Xeon (family 6, model 167)"): the same machine, in a badge that fits the sidebar."""
    name = re.sub(r"\((?:R|TM)\)|\bProcessor\b", "", cpu)
    return re.sub(r"\s+", " ", name).strip()
