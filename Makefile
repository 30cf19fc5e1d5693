# Two commands on a fresh machine: `make run` starts the service, `make test` runs the tests.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: run test bench lint format

$(BIN)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

run: $(BIN)/.installed
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
