#!/usr/bin/env bash
# Continue smollm2/draft on the target's answers to the chat-kind instructions (issue 27, item 6;
# specdec/train/smollm2/kind_instructions.py), on one core, every step resumable: run it again and each
# step skips or resumes what is done. Logs: build/logs/<step>.log.
#
#   nohup nice -n 10 bash scripts/train_kinds.sh > build/logs/train_kinds.log 2>&1 &
#
# Steps:
#   tokens   committed token shards (assets/training/smollm2/gen) -> build/smollm2/gen (a new machine)
#   selfgen  the target's answers to the kinds set, shards 200 .. GEN_UPTO-1 (--shards 64 always:
#            the instruction order depends on it), tokens copied to assets/ for committing
#   relabel  RELABEL_SHARDS shards of offline text (reference docs, stdlib), top-K teacher-forced
#   features the target's features for the kinds shards, then shards 0-1 (held out), BASE_SHARDS
#            of the earlier answers and RELABEL_FEAT relabel shards
#   base     the committed draft measured on the held-out chat set (once)
#   train    feature_draft from the committed export (or build/ checkpoint) up to STEPS
#   eval     the checkpoint exported to build/smollm2/kinds_export/draft and measured like base
# Replacing assets/models/smollm2/draft is left to a person (see the end of this file).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
GEN_UPTO=${GEN_UPTO:-224}          # kinds shards 200 .. GEN_UPTO-1 (at most 264)
RELABEL_SHARDS=${RELABEL_SHARDS:-20}
RELABEL_FEAT=${RELABEL_FEAT:-6}    # of which this many get features (offline text, 1/4 of each batch)
BASE_SHARDS=${BASE_SHARDS:-2 8 14 20 26 32 38 44}   # earlier answer shards mixed in (all: $(seq 2 50))
STEPS=${STEPS:-2800}               # feature_draft's schedule length (the committed draft is at 2600)
EVAL_PROMPTS=${EVAL_PROMPTS:-16}
EVAL_TOKENS=${EVAL_TOKENS:-48}
ONLY=${ONLY:-tokens selfgen relabel features base train eval}
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p build/logs build/smollm2/gen build/smollm2/gen_kinds
say() { echo "$(date +%H:%M:%S) [train_kinds] $*"; }
want() { [[ " $ONLY " == *" $1 "* ]]; }

if want tokens; then
    cp -n assets/training/smollm2/gen/shard_*.tokens.npz build/smollm2/gen/
    say "tokens: $(ls build/smollm2/gen/*.tokens.npz | wc -l) token shards in build/smollm2/gen"
fi

if want selfgen; then
    say "selfgen: kinds shards 200..$((GEN_UPTO - 1))"
    nice -n 10 $PY -m specdec.train.smollm2.selfgen --set kinds --first 200 --shards 64 --upto "$GEN_UPTO" \
        --batch 64 --dtype float32 --threads 1 >> build/logs/selfgen.log 2>&1
    for f in build/smollm2/gen/shard_02[0-9][0-9].tokens.npz; do
        [ -e "$f" ] && cp -n "$f" assets/training/smollm2/gen/
    done
    say "selfgen: $(ls assets/training/smollm2/gen/shard_02*.tokens.npz | wc -l) kinds shards committed-ready"
fi

if want relabel; then
    say "relabel: $RELABEL_SHARDS shards"
    nice -n 10 $PY -m specdec.train.smollm2.relabel --shards "$RELABEL_SHARDS" --threads 1 >> build/logs/relabel.log 2>&1
fi

if want features; then
    # The target's features cost ~280 positions/s on one thread (one float32 pass per sequence),
    # so all of shards 0-50 (547k positions) and the relabel shards would take most of an hour.
    # Order: the kinds shards, then held-out shards 0-1 (the agreement check), then BASE_SHARDS of
    # the earlier answers and RELABEL_FEAT relabel shards, so that training mixes old data in.
    # Links in per-step folders keep the feature files' names (gen_XXXX.npz, relabel_XXXX.npz).
    mkdir -p build/smollm2/gen_base build/smollm2/relabel_base
    for f in build/smollm2/gen/shard_02[0-9][0-9].tokens.npz; do
        [ -e "$f" ] && ln -sf "$(realpath "$f")" build/smollm2/gen_kinds/
    done
    for i in 0 1 $BASE_SHARDS; do
        ln -sf "$(realpath build/smollm2/gen/shard_$(printf %04d "$i").tokens.npz)" build/smollm2/gen_base/
    done
    for i in $(seq 0 $((RELABEL_FEAT - 1))); do
        f=build/smollm2/relabel/shard_$(printf %04d "$i").tokens.npz
        [ -e "$f" ] && ln -sf "$(realpath "$f")" build/smollm2/relabel_base/
    done
    say "features: kinds shards, then shards 0 1 $BASE_SHARDS and $RELABEL_FEAT relabel shards"
    nice -n 10 $PY - >> build/logs/features.log 2>&1 <<'EOF2'
import torch
from pathlib import Path
from specdec.train.smollm2 import features
torch.set_num_threads(1)
features.SOURCES = {"gen": Path("build/smollm2/gen_kinds")}
features.run(features.OUT, 10_000)
features.SOURCES = {"gen": Path("build/smollm2/gen_base"), "relabel": Path("build/smollm2/relabel_base")}
features.run(features.OUT, 10_000)
EOF2
    say "features: $(ls build/smollm2/feat/*.npz | wc -l) files"
fi

eval_draft() {   # $1: draft (name or folder), $2: result file
    nice -n 10 $PY -m specdec.train.smollm2.evaluate --prompts "$EVAL_PROMPTS" --tokens "$EVAL_TOKENS" \
        --drafts "$1" --exits "" >> build/logs/eval.log 2>&1
    cp build/smollm2_eval.json "$2"
    $PY - "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
print(f"{sys.argv[1]}: {r['draft']} greedy agreement {r['greedy_agreement']:.4f}, T=0 acceptance "
      f"{r['T0']['acceptance_rate']:.3f}, len {r['T0']['mean_acceptance_length']:.2f}, speedup "
      f"{r['T0']['speedup']:.2f}x; by kind " + ", ".join(f"{k} {v:.3f}" for k, v in r["agreement_by_kind"].items()))
EOF
}

if want base && [ ! -f build/smollm2/eval_base.json ]; then
    say "base: the committed draft on $EVAL_PROMPTS chat prompts x $EVAL_TOKENS tokens"
    eval_draft smollm2/draft build/smollm2/eval_base.json
fi

if want train; then
    say "train: feature_draft to step $STEPS"
    nice -n 10 $PY -m specdec.train.smollm2.feature_draft --threads 1 --steps "$STEPS" >> build/logs/train.log 2>&1
fi

if want eval; then
    step=$($PY -c "import torch; print(torch.load('build/smollm2/train/feature-draft/ckpt.pt', weights_only=False)['step'])")
    out=build/smollm2/eval_kinds_step$step.json
    if [ ! -f "$out" ]; then
        say "eval: checkpoint at step $step"
        nice -n 10 $PY - >> build/logs/eval.log 2>&1 <<EOF
import torch
from dataclasses import replace
from pathlib import Path
from specdec.train.smollm2 import feature_draft as smol_feature
torch.set_num_threads(1)
smol_feature.OUT = Path("build/smollm2/kinds_export")
smol_feature.export(replace(smol_feature.SPEC, steps=$STEPS))
EOF
        eval_draft build/smollm2/kinds_export/draft "$out"
    fi
    say "eval: before $(cat build/smollm2/eval_base.json | $PY -c 'import json,sys; print(round(json.load(sys.stdin)["rows"][0]["greedy_agreement"], 4))'), after $(cat "$out" | $PY -c 'import json,sys; print(round(json.load(sys.stdin)["rows"][0]["greedy_agreement"], 4))')"
fi
# If "after" beats "before": .venv/bin/python -m specdec.train.smollm2.feature_draft --export --steps $STEPS
# (writes assets/models/smollm2/draft from the checkpoint), then commit it with both numbers.
say done
