# Every target bootstraps .venv itself: a fresh clone needs only python3 and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint typecheck unit demo bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,bench]'
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench fuzz
	$(BIN)/ruff format --check src

typecheck: $(STAMP)
	$(BIN)/mypy --strict src

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

demo: $(STAMP)
	$(BIN)/a2a-progress demo

bench: $(STAMP)
	$(BIN)/python bench/run.py

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[fuzz]'
	$(BIN)/python fuzz/fuzz_decode.py -max_total_time=$${FUZZ_SECONDS:-60} fuzz/corpus

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
