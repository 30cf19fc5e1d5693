# Two commands on a fresh machine: `make run` starts the service, `make test` runs the tests.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --quiet --disable-pip-version-check

.PHONY: run test test-fast check bench format

# Two stamps, so that running the service installs only what it runs (requirements.txt, about a
# sixth of the size of the developer tools); the tests, benchmarks and formatter add
# requirements-dev.txt to the same virtualenv.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/.installed-run: requirements.txt | $(BIN)/python
	$(PIP) -r requirements.txt
	touch $@

$(BIN)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(PIP) -r requirements-dev.txt
	touch $@

# The local quick start: on 127.0.0.1 only (the default bind), catalogs in var/ (SQLite), and no
# access control, which the service grants only when OME_RANKER_AUTH=none is set explicitly (and
# refuses beside a token file, or on an address other machines reach): with
# OME_RANKER_TOKENS_FILE set, the tokens apply.
run: $(BIN)/.installed-run
	OME_RANKER_AUTH=$${OME_RANKER_AUTH:-$$(if [ -n "$$OME_RANKER_TOKENS_FILE" ]; then echo token; else echo none; fi)} \
		$(BIN)/gunicorn --config config/gunicorn.conf.py 'app:create_app()'

# Style, types (mypy, strict on app/selection) and the import contracts (lint-imports): the
# configuration of each is in pyproject.toml.
check: $(BIN)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Everything: CI runs this. On two workers (pytest-xdist; coverage is combined across them): the
# suite's slow groups start servers on ports of their own and wait for events, not clocks, so
# they share a machine; serially the suite took twice as long on two cores.
test: check
	$(BIN)/pytest -n 2 --cov --cov-report=term:skip-covered

# A developer's loop, on every core: the suite without the slow groups (browser, gunicorn,
# hostile, Redis Cluster, kubectl, contract, scale; see the markers in pyproject.toml), property
# tests at a few dozen examples each (the dev profile; .ci/run asks for CI's full counts).
test-fast: $(BIN)/.installed-dev
	$(BIN)/pytest -m "not slow" -n auto

bench: $(BIN)/.installed-dev
	$(BIN)/python -m bench

format: $(BIN)/.installed-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
