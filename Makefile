# tute-arbiter: the two commands a fresh machine needs are `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

LOCK   := requirements.lock
CC     ?= cc
# setuptools says "Editable installation" (a BuildBackendWarning) at every `pip install -e`: for
# a user it is noise, so pip runs with that one warning ignored.
PIP    := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip

# The compiled engine: mypyc compiles these modules next to their sources when a C compiler is
# present (ARBITER_PURE=1 keeps the pure build). Make rebuilds it whenever one of them changed;
# arbiter/_build.py also refuses, at import, a build older than its sources.
COMPILED_SOURCES := $(wildcard arbiter/engine/*.py) arbiter/report.py arbiter/i18n.py \
                    arbiter/archive/summary.py \
                    arbiter/_build.py setup.py
COMPILED_STAMP   := arbiter/_native.json
# Everything the compile printed; when it fails, its last lines go to standard error.
COMPILE_LOG      := $(VENV)/compile.log

.PHONY: install install-test install-bench compile run test test-quick lint pytest test-js test-pure bench spec lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Stamps re-run pip only when pyproject.toml or the lock changes. The runtime dependencies come
# from the lock, hashes checked, exactly as in the container image; the extras go on top (and
# tests/test_hygiene.py fails if they moved a locked version).
$(VENV)/.installed: pyproject.toml $(LOCK) | $(BIN)/python
	$(PIP) install --quiet --require-hashes -r $(LOCK)
	$(PIP) install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PIP) install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-compile: $(VENV)/.installed
	$(PIP) install --quiet -e '.[compile]'
	touch $@

# A compile that fails (the `compile` extra cannot be installed, mypy's type check, the C
# compiler) does not keep a user from the service: its last lines go to standard error with
# the cure, and the pure build runs (make tries the compile again next time). With
# ARBITER_REQUIRE_COMPILED=1 (.ci/run) a failed compile, or no C compiler, is an error.
$(COMPILED_STAMP): $(COMPILED_SOURCES) | $(VENV)/.installed
	@if [ -n "$(ARBITER_PURE)" ] && [ "$(ARBITER_PURE)" != 0 ]; then \
		echo "arbiter: ARBITER_PURE is set: the engine runs as pure Python"; \
	elif ! command -v $(CC) >/dev/null 2>&1; then \
		echo "arbiter: no C compiler ($(CC)): the engine runs as pure Python" >&2; \
		if [ "$(ARBITER_REQUIRE_COMPILED)" = 1 ]; then \
			echo "arbiter: ARBITER_REQUIRE_COMPILED=1: the compiled engine is required" >&2; \
			exit 1; \
		fi; \
	elif echo "arbiter: compiling the engine with mypyc" && \
		$(MAKE) --no-print-directory $(VENV)/.installed-compile >$(COMPILE_LOG) 2>&1 && \
		ARBITER_COMPILE=1 $(BIN)/python setup.py --quiet build_ext --inplace \
			>>$(COMPILE_LOG) 2>&1; then \
		rm -rf build; \
	else \
		echo "arbiter: the engine could not be compiled; the end of $(COMPILE_LOG):" >&2; \
		tail -n 30 $(COMPILE_LOG) | sed 's/^/    /' >&2; \
		echo "arbiter: to get the compiled engine (about three times faster), cure what it" \
			"says (a C compiler and Python's headers: Debian's build-essential and" \
			"python3-dev; the \`compile\` extra of pyproject.toml), then run \`make compile\`" >&2; \
		if [ "$(ARBITER_REQUIRE_COMPILED)" = 1 ]; then \
			echo "arbiter: ARBITER_REQUIRE_COMPILED=1: the compiled engine is required" >&2; \
			exit 1; \
		fi; \
		echo "arbiter: WARNING: the engine runs as pure Python (ARBITER_PURE=1 skips the" \
			"compile and this warning)" >&2; \
	fi

compile: $(COMPILED_STAMP)

$(VENV)/.installed-bench: $(VENV)/.installed-test
	$(PIP) install --quiet -e '.[test,bench]'
	touch $@

# `make install EXTRAS=dask` (or archive, or dask,archive): the optional extras of pyproject.toml
# on top, into the same editable install.
EXTRAS ?=
install: $(VENV)/.installed $(COMPILED_STAMP)
	@if [ -n "$(EXTRAS)" ]; then $(PIP) install --quiet -e '.[$(EXTRAS)]'; fi

install-test: $(VENV)/.installed-test $(COMPILED_STAMP)

install-bench: $(VENV)/.installed-bench $(COMPILED_STAMP)

run: install
	$(BIN)/arbiter serve --host $(HOST) --port $(PORT)

# The pages' JavaScript is checked with node: eslint and prettier (lint) and node's test runner
# (test-js), their exact versions in package-lock.json, installed by `npm ci` into node_modules/
# (the pages themselves load nothing of it).
NODE_MODULES := node_modules/.installed
JS := arbiter/web/static/*.js tests/js/*.js eslint.config.js

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

lint: install-test $(NODE_MODULES)
	$(BIN)/ruff check arbiter tests benchmarks devtools
	$(BIN)/ruff format --check arbiter devtools
	$(BIN)/mypy arbiter devtools
	node_modules/.bin/eslint $(JS)
	node_modules/.bin/prettier --check --log-level=warn $(JS)

pytest: install-test
	$(BIN)/pytest -q

# The quick local loop: every test not marked `slow` (live servers, the browser, clusters,
# commands run as processes: see the marker in pyproject.toml), no lint; `make test` runs all.
# Spread over the machine's CPUs (pytest-xdist): every test starts what it needs on free ports.
test-quick: install-test
	$(BIN)/pytest -q -m "not slow" -n auto

# The pure modules of the pages (tests/js/: each asks the app in process, tests/js/app.py).
test-js: install-test $(NODE_MODULES)
	ARBITER_PYTHON=$(BIN)/python node --test tests/js/*.test.js

# The engine, property and API tests on the pure build (CI runs them after the whole suite).
test-pure: install-test
	ARBITER_PURE=1 $(BIN)/pytest -q tests/test_cards.py tests/test_rulesets.py \
		tests/test_setup.py tests/test_obligations.py tests/test_declarations.py \
		tests/test_scoring.py tests/test_illegal.py tests/test_examples.py tests/test_messages.py \
		tests/test_properties.py tests/test_positions.py tests/test_tokens.py \
		tests/test_service.py tests/test_api.py tests/test_build.py tests/test_position_value.py \
		tests/test_code_reader.py tests/test_frozen_corpus.py

test: lint pytest test-js

bench: install-bench
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_overhead.py

# Regenerate the committed OpenAPI contract from the code (a test fails when they differ).
spec: install
	$(BIN)/python -m arbiter.api.spec > api_spec/openapi.yaml

# Re-resolve the runtime dependencies of pyproject.toml to exact versions with their hashes
# (run after changing them; commit the result).
lock: $(BIN)/python
	$(PIP) install --quiet -e '.[lock]'
	$(BIN)/uv pip compile pyproject.toml --quiet --universal --python-version 3.11 \
		--generate-hashes --output-file $(LOCK)

clean:
	rm -rf $(VENV) node_modules .pytest_cache .mypy_cache .ruff_cache .hypothesis build $(COMPILED_STAMP)
	find arbiter -name '*.so' -delete
