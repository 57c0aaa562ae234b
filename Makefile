# Every target creates its own virtual environment: nothing relies on what is installed.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
DSTAMP := $(VENV)/.installed-demo

.PHONY: install install-test demo test bench lint typecheck reports clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP)

$(DSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[parquet,progress]'
	touch $@ $(STAMP)

install: $(STAMP)

install-test: $(TSTAMP)

# A duel, an exact answer, then the crt flagship experiment through the runner (which
# reuses its cache when run again).
demo: $(DSTAMP)
	$(BIN)/balance duel crt --a bruggish --b watchman --b watchman --b watchman -n 1000000 --seed 1
	$(BIN)/balance exact crt --a strength=8,agility=8,toughness=10 --b strength=8,agility=8,toughness=10
	$(BIN)/balance sweep experiments/crt-skill-vs-experience.toml --resume
	@echo "tables, meta.json and plots: runs/crt-skill-vs-experience/"

test: $(TSTAMP)
	$(BIN)/python -m pytest -n 2 tests

bench: $(STAMP)
	$(BIN)/balance bench

lint: $(TSTAMP)
	$(BIN)/ruff check balance tests

typecheck: $(TSTAMP)
	$(BIN)/mypy balance

clean:
	rm -rf $(VENV) build *.egg-info
