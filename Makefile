# Every target creates its own virtual environment: nothing relies on what is installed.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
DSTAMP := $(VENV)/.installed-demo
NSTAMP := $(VENV)/.installed-notebooks
ESTAMP := $(VENV)/.installed-explore

.PHONY: install install-test browser demo explore explore-screenshots notebooks notebooks-sync test bench lint typecheck reports clean

# The flagship experiments: `make reports` runs each (reusing its cache in runs/<name>:
# the cache key covers the seed and the versions of balance and NumPy, not edits to the
# code, so clear runs/ after changing a kernel) and writes its playtest report to
# reports/<name>/ (report.md, report.html and the PNG figures both reference).
FLAGSHIPS ?= $(basename $(notdir $(wildcard experiments/*.toml)))

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

$(DSTAMP): pyproject.toml | $(BIN)/python
	@echo "installing balance with its parquet and progress extras into $(VENV) (log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install --quiet -e '.[parquet,progress]' > $(VENV)/install.log 2>&1 \
		|| (cat $(VENV)/install.log; exit 1)
	@touch $@ $(STAMP)

$(NSTAMP): pyproject.toml | $(BIN)/python
	@echo "installing balance with its notebook extras into $(VENV) (log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install --quiet -e '.[notebooks]' > $(VENV)/install.log 2>&1 \
		|| (cat $(VENV)/install.log; exit 1)
	@touch $@ $(STAMP)

$(ESTAMP): pyproject.toml | $(BIN)/python
	@echo "installing balance with its explorer extras into $(VENV) (log: $(VENV)/install.log)"
	@$(BIN)/python -m pip install --quiet -e '.[explore]' > $(VENV)/install.log 2>&1 \
		|| (cat $(VENV)/install.log; exit 1)
	@touch $@ $(STAMP)

install: $(STAMP)

install-test: $(TSTAMP)

# A duel, an exact answer, a round robin, then the crt flagship experiment through the
# runner (which reuses its cache when run again) and its playtest report, whose first
# screen is the verdict: what a skill level is worth in combats survived.
demo: $(DSTAMP)
	$(BIN)/balance duel crt --a bruggish --b watchman --b watchman --b watchman -n 1000000 --seed 1
	$(BIN)/balance exact crt --a veteran --b expert --rule extraordinary=false
	$(BIN)/balance matchups crt --entrants novice,skilled,expert,veteran,superior,master -n 20000
	$(BIN)/balance sweep experiments/crt-skill-vs-experience.toml --resume
	$(BIN)/balance report runs/crt-skill-vs-experience
	@echo "tables, meta.json and plots: runs/crt-skill-vs-experience/"
	@echo "playtest report, its verdict first: runs/crt-skill-vs-experience/report/report.html"
	@echo "the explorer (change a stat or a rule, see the odds move): make explore"

# JupyterLab on notebooks/: each notebook is a plain-text .py (jupytext percent format)
# paired with its .ipynb; opening either and saving writes both.
# As root (CI, many containers) JupyterLab refuses to start without --allow-root.
notebooks: $(NSTAMP)
	$(BIN)/jupyter lab $$([ "$$(id -u)" = 0 ] && echo --allow-root) notebooks

# The explorer as a page on http://127.0.0.1:8866/ (after this, `.venv/bin/balance explore
# RULESET` works for any ruleset; Ctrl-C stops it).
explore: $(ESTAMP)
	$(BIN)/balance explore crt

# docs/images/explore-*.png, the screenshots docs/explore.md shows (needs chromium: make
# browser; and the test extras, for playwright).
explore-screenshots: $(TSTAMP) browser
	$(BIN)/python benchmarks/explore_screenshots.py docs/images

# After editing a notebook's .py outside Jupyter: bring its .ipynb up to date (the test
# suite fails on a drifted pair).
notebooks-sync: $(NSTAMP)
	$(BIN)/jupytext --sync notebooks/*.py

# The report test renders a page in headless Chromium: install Debian's package if missing.
browser:
	@command -v chromium > /dev/null 2>&1 || { echo "installing Debian's chromium for the report test"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
		> $(VENV)/apt.log 2>&1 || echo "could not install chromium (see $(VENV)/apt.log)"; }

# Lint and type checks first (seconds), then every test.
test: $(TSTAMP) browser
	$(BIN)/ruff check balance tests notebooks
	$(BIN)/mypy balance
	BALANCE_BROWSER_TESTS=required $(BIN)/python -m pytest -n 2 tests

reports: $(DSTAMP)
	@for name in $(FLAGSHIPS); do \
		$(BIN)/balance sweep experiments/$$name.toml --out runs/$$name --resume -q || exit 1; \
		$(BIN)/balance report runs/$$name --out reports/$$name || exit 1; \
	done

bench: $(STAMP)
	$(BIN)/balance bench

lint: $(TSTAMP)
	$(BIN)/ruff check balance tests notebooks

typecheck: $(TSTAMP)
	$(BIN)/mypy balance

clean:
	rm -rf $(VENV) build *.egg-info
