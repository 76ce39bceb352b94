"""Write assets/models/README.md (the model card) from training and evaluation results."""
from __future__ import annotations

from pathlib import Path

from specdec.files import atomic
from specdec.train.stdlib.evaluate import CONT_LEN, N_PROMPTS, PROMPT_LEN
from specdec.train.stdlib.family import FAMILY, SEQ_LEN

WHY = """\
**Why these shapes.** At batch size 1 on this 2-core CPU a forward pass costs roughly per
*layer*, not per parameter (measured with transformers here: 12 layers × 192 wide ≈ 8.8 ms
per token; 1 × 128 ≈ 1.1 ms; 2 × 128 ≈ 1.4 ms; 4 × 192 ≈ 3 ms). So the target is deep
and narrow (12 × 192, ~6M parameters: it trains about as fast as a shallow wide model of
the same size and is clearly stronger), and the drafts are shallow, which makes the cost
ratio c small enough for real wall-clock speedups. Three plain drafts of clearly different
depth show "too weak vs too big"; the distilled draft has the 2-layer shape but learned
from the target's next-token distributions (soft cross-entropy = forward KL), which is what
raises acceptance: β = Σ min(p, q) grows as q approaches p."""


def _fmt(x, spec=".3f"):
    return "—" if x is None else format(x, spec)


def model_table(train: dict, ev: dict) -> str:
    rows = ["| model | layers × width | parameters | tokens seen | train time here | held-out loss (nats) "
            "| c (step ms / target step ms) |",
            "|---|---|---|---|---|---|---|"]
    for m in FAMILY:
        t, e = train.get(m.name, {}), ev.get(f"stdlib/{m.name}", {})
        rows.append(f"| `stdlib/{m.name}` | {m.layers} × {m.width} | {t.get('params', 0):,} | "
                    f"{t.get('tokens', 0):,} | {t.get('train_seconds', 0) / 60:.0f} min | "
                    f"{_fmt(e.get('held_out_loss'))} | {_fmt(e.get('c'), '.3f')} "
                    f"({_fmt(e.get('step_ms'), '.2f')} ms) |")
    return "\n".join(rows)


def schedules() -> str:
    """One line per member trained in more than one phase (warm restarts)."""
    lines = []
    for m in FAMILY:
        if m.restart:
            lines.append(f"- `stdlib/{m.name}`: {m.tokens / 1e6:g}M tokens at peak learning rate {m.lr:g}, "
                         f"then a warm restart (warm-up, cosine decay) for {m.restart[0] / 1e6:g}M tokens "
                         f"at {m.restart[1]:g}, continuing from the first phase's checkpoint.")
    return "\n".join(lines)


def draft_table(ev: dict) -> str:
    rows = ["| draft | greedy agreement | acceptance rate T=0 | mean acc. length T=0 | acceptance rate T=1 "
            "| mean acc. length T=1 |",
            "|---|---|---|---|---|---|"]
    for name, e in ev.items():
        if "agreement" in e:
            rows.append(f"| `{name}` | {100 * e['agreement']:.1f} % | {_fmt(e['T0']['acceptance_rate'])} | "
                        f"{_fmt(e['T0']['mean_acceptance_length'], '.2f')} | {_fmt(e['T1']['acceptance_rate'])} | "
                        f"{_fmt(e['T1']['mean_acceptance_length'], '.2f')} |")
    return "\n".join(rows)


def samples(ev: dict) -> str:
    out = []
    for name, e in ev.items():
        out.append(f"**`{name}`**\n")
        for prompt, text in e["samples"].items():
            out.append("```python\n" + prompt + text + "\n```")
    return "\n".join(out)


def write_card(path: Path, corpus: dict, train: dict, ev: dict) -> None:
    """The model card (assets/models/README.md), section by section."""
    atomic.write_text(path, "".join((corpus_section(corpus), WHY + "\n\n", models_section(train, ev),
                                     drafts_section(ev), samples_section(ev), REPRODUCE)))


def corpus_section(corpus: dict) -> str:
    """The family, its corpus and its tokenizer."""
    return f"""# The embedded model family: `stdlib/*`

Small Llama-style causal LMs trained on this project's machine on the Python standard
library, so the app works offline with a draft/target pair that behaves like a real one.
Load any of them with `AutoModelForCausalLM.from_pretrained(dir)` /
`AutoTokenizer.from_pretrained(dir)`; weights are stored as float16 safetensors and the
engine runs them in float32.

## Corpus and tokenizer
- Every `.py` file of the running interpreter's standard library (CPython 3.11, test suite,
  docstrings and `pydoc_data/topics.py` included) minus generated tables (`encodings/`,
  `html/entities.py`, `stringprep.py`, Unicode data tests, files that are > 25 % digits).
- Split by file with a fixed hash (SHA-1 of the relative path, 5 % held out):
  {corpus['train_files']} train files ({corpus['train_tokens']:,} tokens),
  {corpus['held_out_files']} held-out files ({corpus['held_out_tokens']:,} tokens).
- Byte-level BPE (Hugging Face `tokenizers`), {corpus['vocab_size']} tokens, `<|endoftext|>` = id 0
  separates documents and is prepended to every encoded text.
- Context window 1024 positions (RoPE), trained on {SEQ_LEN}-token windows; AdamW, cosine
  schedule, batch 8 × {SEQ_LEN} tokens, seed 1234.

"""


def models_section(train: dict, ev: dict) -> str:
    return f"""## Models
{model_table(train, ev)}

Learning rates: plain drafts 3e-3 (1-2 layers) and 2e-3 (4 layers), the distilled draft 3e-3.
{schedules()}
The target's first phase alone left it under-trained: at equal tokens a 4-layer draft trained
at 2e-3 reached a lower loss, so the target continued at a higher peak rather than the drafts
being held back.

"""


def drafts_section(ev: dict) -> str:
    return f"""## Drafts against the target (held-out prompts, k = 4)
Greedy agreement: share of positions where the draft's argmax equals the target's token along
the target's greedy continuations ({CONT_LEN} tokens after {N_PROMPTS} held-out prompts of {PROMPT_LEN} tokens).
Acceptance: this engine's speculative decoding on the same prompts ({CONT_LEN} new tokens, seeds 0…{N_PROMPTS - 1}).

{draft_table(ev)}

"""


def samples_section(ev: dict) -> str:
    return f"""## Sample continuations (greedy, T = 0)
{samples(ev)}

"""


REPRODUCE = """## Reproduce
```bash
.venv/bin/python -m specdec.train.stdlib all        # corpus, tokenizer, then every model (hours on 2 cores)
.venv/bin/python -m specdec.train.stdlib evaluate   # measurements above -> build/eval.json
.venv/bin/python -m specdec.train.stdlib card       # this file
```
"""
