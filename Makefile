# The two commands of the README: `make run` (the main job on the embedded model) and `make test`.
# Each does its own set-up first (idempotent: scripts/setup.sh).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test test-quick lint bench

setup:
	@scripts/setup.sh

run: setup
	$(BIN)/tomflywheel flywheel --config configs/default.yaml

test: setup
	@scripts/setup-test-tools.sh
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/python -m pytest

# The quick local loop: everything but the tests that need the vLLM server.
test-quick: setup
	$(BIN)/python -m pytest -m "not vllm"

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

bench: setup
	$(BIN)/python bench/llm_throughput.py
	$(BIN)/python bench/eval_throughput.py
	$(BIN)/python bench/world.py
	$(BIN)/python bench/filter_dedup.py
