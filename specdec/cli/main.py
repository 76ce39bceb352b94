"""`python -m specdec run|bench ...`: one run marked up with its metrics, or the benchmark table."""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

from specdec.bench.record import Bench
from specdec.chat import has_template, user_turn
from specdec.cli.terminal import LEGEND_COLOUR, LEGEND_PLAIN, marked_text, metrics_table, visible
from specdec.defaults import BENCH
from specdec.drafters.policies import POLICIES, PRICED
from specdec.drafters.registry import DRAFTERS
from specdec.engine.decoder import generate
from specdec.errors import InputError
from specdec.files import atomic
from specdec.models.backend import BACKEND_AUTO, BACKENDS
from specdec.models.load import PRECISION_CHOICES
from specdec.models.names import DEFAULT_DRAFT, DEFAULT_TARGET, TARGETS
from specdec.models.pair import load_pair
from specdec.models.precision import PRECISION_AUTO
from specdec.settings import LENGTHS, THREADS, Mode, Settings, options

MAX_THREADS = 256       # more torch threads than any machine here has cores: a typo, not a wish


def add_threads(p) -> None:
    p.add_argument("--threads", type=int, default=THREADS,
                   help=f"torch threads (default {THREADS}: batch-1 decoding of small models gains nothing "
                        "from more, and collapses when the cores are busy)")


def add_precision(p) -> None:
    p.add_argument("--precision", default=PRECISION_AUTO, choices=list(PRECISION_CHOICES),
                   help="what the target's linear layers multiply in: auto (default) times float32, "
                        "bfloat16 and int4 on this CPU and keeps the fastest one-token step; float32 "
                        "is the GGUF dequantised exactly; int4 uses a Q4_1 GGUF's own 4-bit blocks")


def add_backend(p) -> None:
    p.add_argument("--backend", default=BACKEND_AUTO, choices=list(BACKENDS),
                   help="what runs the target's chain passes: auto (default) times torch and ONNX Runtime "
                        "on this CPU for the embedded GGUF target and keeps the faster; torch is the "
                        "target's own modules; onnx is ONNX Runtime on an int4 build of the target (a "
                        "re-quantised model, built once under build/onnx/)")


# `run`'s settings: every field of Settings that has a flag (its Option says), in declared order
RUN_SETTINGS = tuple(name for name, (_default, opt) in options().items() if opt.flag)


def choice_help(name: str) -> str:
    """What each choice means, for the settings whose choices are registries."""
    if name == "drafter":
        return "; ".join(f"{n}: {d.label}" for n, d in DRAFTERS.items())
    if name == "policy":
        return "; ".join(f"{n}: {p.help}" for n, p in POLICIES.items())
    return ""


def add_setting(p, name: str, **override) -> None:
    """--name, with the default, help and choices that Settings declares for it."""
    default, opt = options()[name]
    kw = {"default": default, "help": "; ".join(t for t in (opt.help, choice_help(name)) if t)}
    if opt.choices:
        kw["choices"] = list(opt.choices())
    elif isinstance(default, bool):
        kw["action"] = argparse.BooleanOptionalAction        # --name / --no-name
    else:
        kw["type"] = type(default)
    p.add_argument("--" + name.replace("_", "-"), **{**kw, **override})


TARGET_HELP = f"an embedded target ({', '.join(TARGETS)}), a local dir, a .gguf file or a hub id"


def add_run_parser(sub) -> None:
    p = sub.add_parser("run", help="generate once and show every round's outcome")
    p.add_argument("--prompt", required=True)
    p.add_argument("--chat", action="store_true",
                   help="send the prompt as a user message through the model's chat template")
    p.add_argument("--target", default=DEFAULT_TARGET, help=TARGET_HELP)
    p.add_argument("--draft", default=None, help=f"embedded name, local dir or hub id (default {DEFAULT_DRAFT}, "
                                                  "for drafters that need a draft model)")
    for name in RUN_SETTINGS:
        add_setting(p, name)
    p.add_argument("--json", action="store_true", help="print the whole run trace as JSON")
    add_precision(p)
    add_backend(p)
    add_threads(p)
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto")


def draft_of(args, needs_draft: bool) -> str | None:
    """--draft (or the default draft) when the drafter uses one; a --draft that would be
    ignored is one message instead (the same for run and bench)."""
    if not needs_draft and args.draft is not None:
        why = "autoregressive mode drafts nothing" if getattr(args, "mode", "") == Mode.AUTOREGRESSIVE else \
            f"--drafter {args.drafter} drafts without a draft model"
        raise InputError(f"{why}, so --draft {args.draft} would have no effect: drop --draft")
    return (args.draft or DEFAULT_DRAFT) if needs_draft else None


NAME_CHARS = 1024       # a hub id is under 100 characters, a path under the system's 4,096


def check_names(args) -> None:
    for flag in ("target", "draft"):
        value = getattr(args, flag, None)
        if value is not None and not value.strip():
            raise InputError(f"--{flag} is empty: give an embedded name (e.g. {DEFAULT_TARGET}), a folder or a hub id")
        if value is not None and len(value) > NAME_CHARS:
            raise InputError(f"--{flag} is {len(value):,} characters long: a model name, folder or hub id is "
                             f"at most {NAME_CHARS:,}")


def check_out(out: str | None) -> None:
    """Before a long bench: --out must be a regular file we can write whole (its folder is made
    if missing): a probe file of PROBE_BYTES is written beside it and removed, so a read-only
    folder, a full disk or a quota is found now, not after the bench."""
    if out is None:
        return
    path = Path(out)
    if path.is_dir():
        raise InputError(f"--out {out} is a folder: give a file name, e.g. {path / 'bench.json'}")
    if path.exists() and not path.is_file():
        raise InputError(f"--out {out} is not a regular file (a device, a pipe or a socket): give a file name")
    probe = path.with_name(f".{path.name}.probe-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(probe, b" " * PROBE_BYTES)
    except OSError as err:
        raise InputError(f"--out {out} cannot be written ({err.strerror or err}): choose another file") from None
    finally:
        with contextlib.suppress(OSError):          # a parent that is a file: nothing was made
            probe.unlink(missing_ok=True)


PROBE_BYTES = 64 * 1024        # about what a bench's JSON takes


def priced_pair(pair, settings: Settings):
    """The pair with this machine's prices for the priced policy; without a profile of this machine,
    one line on stderr says k stays constant (the app measures the profile: When it is fast)."""
    from specdec.bench import machine
    priced = machine.priced(pair, settings.drafter)
    if priced.prices is None:
        print(f"no prices of this machine for drafter {settings.drafter} yet (build/machine.json): "
              f"k stays at {settings.k}; `make run` measures them at its first start", file=sys.stderr)
    return priced


def cmd_run(args) -> int:
    settings = Settings(**{name: getattr(args, name) for name in RUN_SETTINGS})
    # (validated before loading)
    if args.mode == Mode.AUTOREGRESSIVE and args.drafter != options()["drafter"][0]:     # --drafter given
        raise InputError(f"autoregressive mode drafts nothing, so --drafter {args.drafter} would "
                         "have no effect: drop one of the two")
    if not args.prompt:
        raise InputError("the prompt is empty: pass --prompt with some text, e.g. 'def parse('")
    needs_draft = DRAFTERS[args.drafter].needs_draft_model and args.mode == Mode.SPECULATIVE
    pair = load_pair(args.target, draft_of(args, needs_draft), precision=args.precision, backend=args.backend)
    if settings.policy == PRICED:
        pair = priced_pair(pair, settings)
    t0 = time.perf_counter()
    run = generate(pair, user_turn(args.prompt) if args.chat else args.prompt, settings)
    seconds = time.perf_counter() - t0
    if args.json:
        print(run.to_json())
        return 0
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    print(marked_text(run, colour))
    print()
    print(LEGEND_COLOUR if colour else LEGEND_PLAIN)
    print(metrics_table(run, seconds))
    return 0


BENCH_DRAFTERS = tuple(n for n, d in DRAFTERS.items() if d.hf_assistant)   # the drafters transformers also has
MAX_BATCH = 64


def add_bench_parser(sub) -> None:
    p = sub.add_parser("bench", help="speculative vs autoregressive vs transformers, one table")
    p.add_argument("--target", default=DEFAULT_TARGET, help=TARGET_HELP)
    p.add_argument("--draft", default=None, help=f"default {DEFAULT_DRAFT}, for the model drafter")
    p.add_argument("--prompts", default=None, help="a kind of the bundled set, or a file")
    p.add_argument("--limit", type=int, default=BENCH.limit, help="at most this many prompts")
    p.add_argument("--k", default=",".join(map(str, BENCH.k)), help="comma-separated draft lengths")
    p.add_argument("--temperature", default=",".join(f"{t:g}" for t in BENCH.temperatures),
                   help="comma-separated temperatures")
    p.add_argument("--max-new-tokens", type=int, default=LENGTHS.bench)
    p.add_argument("--repeats", type=int, default=BENCH.repeats)
    p.add_argument("--trees", default="", help="comma-separated tree budgets: adds a row per "
                                               "budget and k (a tree of that many nodes, depth <= k)")
    p.add_argument("--batch", default="", help="comma-separated batch sizes: adds rows per size and "
                                               "(k, T): B requests at once, autoregressive vs speculative")
    add_setting(p, "drafter", choices=BENCH_DRAFTERS,
                help="what drafts in the speculative rows; the assisted rows run transformers' "
                     "counterpart (assistant model, prompt lookup, early exit)")
    add_setting(p, "exit_layer")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")
    p.add_argument("--out", default=None, help="also save the JSON here (the 'When it is fast' "
                                               "page reads build/bench.json)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when transformers, as a user loads the model, decodes more than 5%% "
                        "faster than the engine's own autoregressive row")
    add_precision(p)
    add_backend(p)
    add_threads(p)


def _numbers(text: str, kind, name: str, optional: bool = False) -> list:
    """Comma-separated numbers; an empty item (or, unless optional, an empty list) is an error."""
    items = text.split(",") if text.strip() else []
    if (not items and not optional) or any(not x.strip() for x in items):
        raise InputError(f"--{name} takes comma-separated numbers with none left empty, got {text!r}")
    try:
        return [kind(x) for x in items]
    except ValueError:
        raise InputError(f"--{name} takes comma-separated numbers, got {text!r}") from None


def cmd_bench(args) -> int:
    from specdec.bench.runner import bench
    from specdec.cli.terminal import stderr_progress, table
    from specdec.prompts import select
    ks, temps = _numbers(args.k, int, "k"), _numbers(args.temperature, float, "temperature")
    for k in ks:
        for t in temps:
            Settings(k=k, temperature=t, max_new_tokens=args.max_new_tokens)   # validate early
    if args.repeats < 1:
        raise InputError("--repeats must be at least 1")
    check_out(args.out)
    trees = _numbers(args.trees, int, "trees", optional=True)
    sizes = _numbers(args.batch, int, "batch", optional=True)
    if any(not 1 <= b <= MAX_BATCH for b in sizes):
        raise InputError(f"--batch sizes must be between 1 and {MAX_BATCH}, got {args.batch!r}")
    for b in trees:
        Settings(tree_budget=b)                                                  # validate
    drafting = Settings(drafter=args.drafter, exit_layer=args.exit_layer)        # validates
    select(args.prompts, args.limit)                  # a bad --prompts or --limit: before loading
    pair = load_pair(args.target, draft_of(args, DRAFTERS[args.drafter].needs_draft_model),
                     precision=args.precision, backend=args.backend)
    chat = has_template(pair.tokenizer)         # an instruct model gets the chat prompts as chats
    prompts = select(args.prompts, args.limit, "chat" if chat else "text")
    prompts = [user_turn(p) for p in prompts] if chat else prompts
    result = bench(pair, prompts, ks, temps, args.max_new_tokens, args.repeats, stderr_progress,
                   tuple(trees), drafting)
    if sizes:
        from specdec.bench.batching import batch_bench
        result = replace(result, batch=tuple(batch_bench(
            pair, prompts, sizes, replace(drafting, k=k, temperature=t, max_new_tokens=args.max_new_tokens),
            args.repeats, stderr_progress) for k in ks for t in temps))
    print(result.to_json() if args.json else visible(table(result)))   # shown first
    if args.out and not save(result, args.out):
        return 1
    slower = [s for s in result.settings if s.engine_slower_than_user_load]
    if args.strict and slower:
        print(f"strict: transformers as a user loads {result.target} beat the engine's autoregressive "
              f"row by more than 5% in {len(slower)} of {len(result.settings)} settings", file=sys.stderr)
        return 1
    return 0


def save(result: Bench, out: str) -> bool:
    """Write the JSON whole or not at all (specdec/atomic.py): on a failure the old file is left
    as it was, one line says so, and the JSON goes to stderr so a long run's results are kept."""
    text = result.to_json(indent=1) + "\n"
    try:
        atomic.write_text(out, text)
        return True
    except OSError as err:
        print(f"error: could not write {out} ({err.strerror or err}); it is unchanged, and the results "
              "follow as JSON on stderr", file=sys.stderr)
        print(text, file=sys.stderr)
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specdec",
                                     description="Exact speculative decoding, every decision recorded.")
    sub = parser.add_subparsers(dest="command", required=True)
    add_run_parser(sub)
    add_bench_parser(sub)
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):       # a terminal that cannot show a character: an escape
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    try:
        if not 1 <= args.threads <= MAX_THREADS:
            raise InputError(f"--threads must be between 1 and {MAX_THREADS}, got {args.threads}")
        check_names(args)
        import torch
        torch.set_num_threads(args.threads)
        code = {"run": cmd_run, "bench": cmd_bench}[args.command](args)
        sys.stdout.flush()              # a write error (a full disk) is found here, not at exit
        return code
    except InputError as err:
        print(f"error: {visible(str(err))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:             # output piped into `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:              # the output itself cannot be written (a full disk, /dev/full)
        if err.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG):
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"error: could not write the output ({err.strerror})", file=sys.stderr)
        return 1
