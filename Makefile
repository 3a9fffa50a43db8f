# tute-arbiter: the two commands a fresh machine needs are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

LOCK   := requirements.lock

.PHONY: install install-test install-bench run test lint pytest bench spec lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps re-run pip only when pyproject.toml or the lock changes. The runtime dependencies come
# from the lock, hashes checked, exactly as in the container image; the extras go on top (and
# tests/test_hygiene.py fails if they moved a locked version).
$(VENV)/.installed: pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

install-bench: $(VENV)/.installed-bench

run: install
	$(BIN)/arbiter serve --host $(HOST) --port $(PORT)

lint: install-test
	$(BIN)/ruff check arbiter tests benchmarks
	$(BIN)/ruff format --check arbiter
	$(BIN)/mypy arbiter

pytest: install-test
	$(BIN)/pytest -q

test: lint pytest

bench: install-bench
	$(BIN)/python benchmarks/bench_engine.py

# Regenerate the committed OpenAPI contract from the code (a test fails when they differ).
spec: install
	$(BIN)/python -m arbiter.api.spec > api_spec/openapi.yaml

# Re-resolve the runtime dependencies of pyproject.toml to exact versions with their hashes
# (run after changing them; commit the result).
lock: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lock]'
	$(BIN)/uv pip compile pyproject.toml --quiet --universal --python-version 3.11 \
		--generate-hashes --output-file $(LOCK)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
