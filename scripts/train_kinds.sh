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
#   features the target's features for the kinds shards first, then shards 0-50, then relabel
#   base     the committed draft measured on the held-out chat set (once)
#   train    smol_feature from the committed export (or build/ checkpoint) up to STEPS
#   eval     the checkpoint exported to build/smollm2/kinds_export/draft and measured like base
# Replacing assets/models/smollm2/draft is left to a person (see the end of this file).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
GEN_UPTO=${GEN_UPTO:-224}          # kinds shards 200 .. GEN_UPTO-1 (at most 264)
RELABEL_SHARDS=${RELABEL_SHARDS:-20}
STEPS=${STEPS:-2800}               # smol_feature's schedule length (the committed draft is at 2600)
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
    # kinds shards first (gen_kinds holds links to them, so their features are gen_02XX.npz)
    for f in build/smollm2/gen/shard_02[0-9][0-9].tokens.npz; do
        [ -e "$f" ] && ln -sf "$(realpath "$f")" build/smollm2/gen_kinds/
    done
    say "features: kinds shards, then shards 0-50 and relabel"
    nice -n 10 $PY - >> build/logs/features.log 2>&1 <<'EOF'
import torch
from pathlib import Path
from specdec.train.smollm2 import features
torch.set_num_threads(1)
features.SOURCES = {"gen": Path("build/smollm2/gen_kinds")}
features.run(features.OUT, 10_000)
features.SOURCES = {"gen": Path("build/smollm2/gen"), "relabel": Path("build/smollm2/relabel")}
features.run(features.OUT, 10_000)
EOF
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
    say "train: smol_feature to step $STEPS"
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
