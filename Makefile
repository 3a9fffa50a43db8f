# tute-arbiter: the two commands a fresh machine needs are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install install-test install-bench run test lint pytest bench spec clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps re-run pip only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.installed-test $(VENV)/.installed

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

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
