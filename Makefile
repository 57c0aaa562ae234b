# Every target creates its own virtual environment: nothing relies on what is installed.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test

.PHONY: install install-test demo test bench lint typecheck reports clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip > /dev/null 2>&1 || true

# pip's output goes to a log, shown only if the install fails
$(STAMP): pyproject.toml | $(BIN)/python
	@echo "installing balance into $(VENV) (log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install --quiet -e . > $(VENV)/install.log 2>&1 \
		|| (cat $(VENV)/install.log; exit 1)
	@touch $@

$(TSTAMP): pyproject.toml | $(BIN)/python
	@echo "installing balance with its test extras into $(VENV) (log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install --quiet -e '.[dev]' > $(VENV)/install.log 2>&1 \
		|| (cat $(VENV)/install.log; exit 1)
	@touch $@ $(STAMP)

install: $(STAMP)

install-test: $(TSTAMP)

demo: $(STAMP)
	$(BIN)/balance duel crt --a bruggish --b watchman --b watchman --b watchman -n 1000000 --seed 1
	$(BIN)/balance exact crt --a veteran --b expert --rule extraordinary=false
	$(BIN)/balance matchups crt --presets novice,skilled,expert,veteran,superior,master -n 20000

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
