# Two commands on a fresh machine: `make run` starts the service, `make test` runs the tests.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: run test bench lint format

$(BIN)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# The local quick start: on 127.0.0.1 only (the default bind), catalogs in var/ (SQLite), and no
# access control, which the service grants only when OME_RANKER_AUTH=none is set explicitly (and
# refuses beside a token file, or on an address other machines reach): with
# OME_RANKER_TOKENS_FILE set, the tokens apply.
run: $(BIN)/.installed
	OME_RANKER_AUTH=$${OME_RANKER_AUTH:-$$(if [ -n "$$OME_RANKER_TOKENS_FILE" ]; then echo token; else echo none; fi)} \
		$(BIN)/gunicorn --config config/gunicorn.conf.py 'app:create_app()'

test: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest --cov --cov-report=term:skip-covered

bench: $(BIN)/.installed
	$(BIN)/python -m bench

format: $(BIN)/.installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
