# Referee — two commands: `make run` serves the API, `make test` runs the whole suite.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test install install-dev migrate lint typecheck bench bench-console screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

install-dev: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'

migrate: install
	$(BIN)/referee migrate

## Serve the API on the embedded SQLite database (docs at http://127.0.0.1:8000/docs)
run: migrate
	$(BIN)/referee serve --host $(HOST) --port $(PORT)

## Install everything, lint and type-check, and run the whole suite
## (SQLite and a throwaway PostgreSQL 15)
test: install-dev
	$(BIN)/ruff check app tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: install-dev
	$(BIN)/ruff check app tests bench
	$(BIN)/mypy

bench: install-dev
	$(BIN)/python bench/run.py

## The console in headless Chromium: board images to docs/images/, in-browser timings
screenshots: install-dev
	$(BIN)/python bench/console.py screenshots

bench-console: install-dev
	$(BIN)/python bench/console.py perf

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
