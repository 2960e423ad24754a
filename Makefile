# Referee — two commands: `make run` serves the API, `make test` runs the whole suite.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
# where `make run` listens: REFEREE_HOST / REFEREE_PORT from the environment, overridden by
# `make run HOST=... PORT=...`; `referee serve` reads REFEREE_PUBLIC_URL itself
HOST   ?= $(or $(REFEREE_HOST),127.0.0.1)
PORT   ?= $(or $(REFEREE_PORT),8000)

.PHONY: run test test-long mutate install install-dev migrate lint typecheck bench bench-console screenshots clean reliability record-rulings

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

## Both compile the zoc search with mypyc where gcc and the Python headers are (app/native_build.py:
## one line and the pure-Python rules otherwise; docs/OPERATIONS.md, "Compiled rules core")
install: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[native]'
	$(BIN)/python -m app.native_build

install-dev: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/python -m app.native_build

migrate: install
	$(BIN)/referee migrate

## Serve the API on the embedded SQLite database (docs at http://127.0.0.1:8000/docs)
run: migrate
	$(BIN)/referee serve --host $(HOST) --port $(PORT)

## Install everything, lint and type-check, and run the whole suite
## (SQLite and a throwaway PostgreSQL 15), then the zoc rules tests once more on the
## pure-Python search (REFEREE_PURE_RULES=1: the reference the compiled one is checked against)
test: install-dev
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto
	REFEREE_PURE_RULES=1 $(BIN)/python -m pytest -q -n auto -p no:randomly tests/rules/zoc

## The property tests with 20 times more examples and a random seed, and every rule case
## replayed over HTTP on PostgreSQL too (docs/TESTING.md)
test-long: install-dev
	HYPOTHESIS_PROFILE=long nice -n 10 $(BIN)/python -m pytest -q -p no:randomly \
		tests/rules/test_geometry.py tests/rules/zoc/test_zoc_ruleset.py \
		tests/rules/objective_zones/test_oz_properties.py tests/rules/terrain/test_terrain_properties.py
	REFEREE_REPLAY_ALL=1 nice -n 10 $(BIN)/python -m pytest -q -n auto tests/api/test_rule_cases_api.py

## Mutation testing of app/rules, one part per ruleset (PART=zoc|zoi|objective_zones|terrain|
## battlefield|core runs one part; MUTATE_SAMPLE=400 judges a fixed sample); docs/TESTING.md
mutate: install-dev
	nice -n 15 $(BIN)/python bench/mutate.py $(PART)

lint: install-dev
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/mypy

## Benchmarks (ratios to same-run baselines, docs/PERFORMANCE.md); HTTP ones need `wrk`
bench: install-dev
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	nice -n 5 $(BIN)/python bench/run.py --quick

## The console in headless Chromium: board images to docs/images/, in-browser timings
screenshots: install-dev
	$(BIN)/python bench/console.py screenshots

bench-console: install-dev
	$(BIN)/python bench/console.py perf

## The reliability suite in its long form (docs/OPERATIONS.md): conflicting writers, SIGKILL
## mid-burst, hostile corpus, slow clients, leakage crawl, stream load -- SQLite and PostgreSQL
reliability: install-dev
	REFEREE_RELIABILITY=long $(BIN)/python -m pytest -q tests/reliability tests/match/test_leakage.py
	$(BIN)/python -m tests.reliability.stream_load --streams 1000

## After a deliberate change of rulings and a ruleset version bump: re-record their fingerprints
record-rulings: install-dev
	$(BIN)/python -m tests.reliability.rulings --record

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache build app/compiled
