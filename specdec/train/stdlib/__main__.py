"""Reproduce the embedded model family: `python -m specdec.train.stdlib all`.

    python -m specdec.train.stdlib prepare            # corpus split + BPE tokenizer + token streams
    python -m specdec.train.stdlib model target       # one member (resumes from its checkpoint)
    python -m specdec.train.stdlib all                # prepare, then every member in order
    python -m specdec.train.stdlib evaluate           # measure the shipped family -> build/eval.json
    python -m specdec.train.stdlib card               # write assets/models/README.md
Never run by tests or CI (they use the shipped weights or tiny config-built models).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from specdec.files import atomic
from specdec.train.common import log
from specdec.train.stdlib.corpus import load_corpus
from specdec.train.stdlib.family import FAMILY, member
from specdec.train.stdlib.loop import train_member
from specdec.train.stdlib.tokenizer import encode_stream, save_stream, train_tokenizer

DATA = Path("build/corpus")
WORK = Path("build/train")
OUT = Path("assets/models/stdlib")
VOCAB = 4096


def prepare(data_dir: Path, vocab_size: int, root: Path | None = None) -> dict:
    corpus = load_corpus(root)
    log(f"corpus: {len(corpus.train)} train files, {len(corpus.held_out)} held-out files")
    tokenizer = train_tokenizer(corpus.train, vocab_size)
    tokenizer.save_pretrained(data_dir / "tokenizer")
    train, held = encode_stream(tokenizer, corpus.train), encode_stream(tokenizer, corpus.held_out)
    save_stream(data_dir / "train.npy", train)
    save_stream(data_dir / "held_out.npy", held)
    stats = {"train_files": len(corpus.train), "held_out_files": len(corpus.held_out),
             "train_tokens": int(len(train)), "held_out_tokens": int(len(held)),
             "train_bytes": sum(len(t.encode()) for t in corpus.train),
             "vocab_size": len(tokenizer), "held_out_paths": list(corpus.held_out_paths)}
    atomic.write_text(data_dir / "corpus.json", json.dumps(stats, indent=1) + "\n")
    log(f"tokens: {len(train):,} train, {len(held):,} held-out; vocab {len(tokenizer)}")
    return stats


def report(what: str) -> int:
    import numpy as np

    from specdec.train.stdlib.card import write_card
    from specdec.train.stdlib.evaluate import evaluate
    if what == "evaluate":
        names = [f"stdlib/{m.name}" for m in FAMILY]
        results = evaluate(names, np.load(DATA / "held_out.npy"), log=log)
        atomic.write_text(Path("build") / "eval.json", json.dumps(results, indent=1) + "\n")
        return 0
    train = {m.name: json.loads((OUT / m.name / "training.json").read_text()) for m in FAMILY
             if (OUT / m.name / "training.json").exists()}
    write_card(OUT.parent / "README.md", json.loads((DATA / "corpus.json").read_text()), train,
               json.loads((Path("build") / "eval.json").read_text()))
    log(f"wrote {OUT.parent / 'README.md'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdec.train.stdlib", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["prepare", "model", "all", "evaluate", "card"])
    ap.add_argument("name", nargs="?", help="family member for `model`")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = default)")
    ap.add_argument("--vocab", type=int, default=VOCAB)
    args = ap.parse_args(argv)
    if args.threads:
        import torch
        torch.set_num_threads(args.threads)
    if args.what in ("evaluate", "card"):
        return report(args.what)
    if args.what in ("prepare", "all"):
        prepare(DATA, args.vocab)
    names = [args.name] if args.what == "model" else [m.name for m in FAMILY]
    if args.what != "prepare":
        for name in names:
            train_member(member(name), DATA, OUT, WORK, log=log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
