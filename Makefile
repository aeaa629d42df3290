# Jarvis: `make run` starts a local Home Assistant with Jarvis; `make test` runs the suite.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
DEPS_STAMP := $(VENV)/.deps-installed
MODEL_0_5B := .cache/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
MODEL_1_5B := .cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

.PHONY: all venv models models-all test test-fast lint run chat say bench bench-voice bench-voice-loop clean

all: test

$(DEPS_STAMP): requirements_test.txt requirements_voice.txt requirements_run.txt scripts/find_python.sh scripts/system_deps.sh
	scripts/system_deps.sh
	@test -x $(PY) || "$$(scripts/find_python.sh)" -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# HA 2026.2.3 declares Python >=3.13.2; 3.13.0 works (docs/DEVELOPMENT.md).
	$(PY) -m pip install -q --ignore-requires-python -r requirements_test.txt -r requirements_voice.txt -r requirements_run.txt
	@touch $@

venv: $(DEPS_STAMP)

$(MODEL_0_5B): | $(DEPS_STAMP)
	$(PY) -m scripts.models fetch qwen2.5-coder-0.5b

$(MODEL_1_5B): | $(DEPS_STAMP)
	$(PY) -m scripts.models fetch qwen2.5-coder-1.5b

models: $(MODEL_0_5B)

models-all: $(MODEL_0_5B) $(MODEL_1_5B)

# The browser test's npm packages (playwright-core, pinned by the lockfile);
# Debian's chromium comes from scripts/system_deps.sh.
BROWSER_DEPS := tests/browser/node_modules/.package-lock.json
$(BROWSER_DEPS): tests/browser/package.json tests/browser/package-lock.json
	cd tests/browser && npm ci --no-audit --no-fund

.PHONY: browser-deps
browser-deps: $(DEPS_STAMP) $(BROWSER_DEPS)

lint: venv
	$(VENV)/bin/ruff check custom_components wyoming_services scripts tests bench
	$(VENV)/bin/ruff format --check custom_components/jarvis
	$(VENV)/bin/mypy --strict custom_components/jarvis

test: venv models browser-deps lint
	$(PY) -m pytest

# Unit tests only: no real model.
test-fast: venv
	$(PY) -m pytest -m "not real_model"

run: venv models
	$(PY) -m scripts.run

chat: venv
	$(PY) -m scripts.chat

# make say TEXT="turn on the kitchen lights" (or WAV=command.wav); needs `make run`.
say: venv
	$(PY) -m scripts.say $${WAV:+--wav "$$WAV"} $${TEXT:+--text "$$TEXT"}

bench: venv models-all
	$(PY) -m bench.scenarios
	$(PY) -m bench.generated --models 0.5b,1.5b --size 200 --json .cache/bench-generated-200.json

bench-voice: venv
	$(PY) -m bench.voice

# End-to-end voice latency through the pipeline; needs `make run`.
bench-voice-loop: venv
	$(PY) -m bench.voice_loop

clean:
	rm -rf $(VENV) .cache .ha_config .pytest_cache .mypy_cache .ruff_cache tests/browser/node_modules
