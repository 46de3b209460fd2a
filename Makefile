# Fresh-machine commands: `make run` (demo on the shipped catalog) and `make test`.
PY        ?= python3
VENV      := .venv
BIN       := $(VENV)/bin
PYTHON    := $(BIN)/python
DEMO      := tests/fixtures/spider_mini
SPIDER    ?= ../shared/data/spider
# DATA=demo points eval, bench, warm-cache and replay at the shipped demo catalog: no ../shared needed.
ifeq ($(DATA),demo)
CATALOG   := $(DEMO)/catalog.json
QUERIES   := $(DEMO)/queries.jsonl
LABELS    := $(DEMO)/labels.jsonl
INDEX     := build/demo-eval-index
endif
CATALOG   ?= $(SPIDER)/catalog.json
SPLIT     ?= dev
QUERIES   ?= $(SPIDER)/$(SPLIT)/queries.jsonl
LABELS    ?= $(SPIDER)/$(SPLIT)/labels.jsonl
INDEX     ?= build/index
FORMAT    ?= text

.PHONY: install run query test lint eval fit bench warm-cache replay bundle test-bundle test-robust bench-scale verify clean

$(VENV)/.installed: requirements.txt requirements-dev.txt submission/requirements.txt submission/requirements-nodeps.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements-dev.txt
	# Their declared dependencies (torch among them) are not needed: see the file.
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -r submission/requirements-nodeps.txt
	touch $@

install: $(VENV)/.installed

run: install
	bash submission/build.sh --corpus $(DEMO)/catalog.json --index-dir build/demo-index
	$(PYTHON) scripts/demo.py --index-dir build/demo-index --queries $(DEMO)/queries.jsonl --labels $(DEMO)/labels.jsonl

# One question against the demo index that `make run` built: make query Q="..." [FORMAT=ddl|json|text]
query: install
	@test -n "$(Q)" || { echo 'usage: make query Q="your question" [FORMAT=ddl|json|text]' >&2; exit 2; }
	@test -f build/demo-index/manifest.json || bash submission/build.sh --corpus $(DEMO)/catalog.json --index-dir build/demo-index
	@$(PYTHON) -m retriever query --index-dir build/demo-index --format $(FORMAT) "$(Q)"

test: install
	$(PYTHON) -m pytest -q

lint: install
	$(BIN)/ruff check scripts tests submission
	$(BIN)/mypy submission/retriever scripts

# Rebuilt when the catalog or the code that writes the index changes (a stale format is refused at load).
$(INDEX)/manifest.json: $(VENV)/.installed $(CATALOG) $(wildcard submission/retriever/*.py)
	bash submission/build.sh --corpus $(CATALOG) --index-dir $(INDEX)

eval: $(INDEX)/manifest.json
	$(PYTHON) -m retriever eval --index-dir $(INDEX) --queries $(QUERIES) --labels $(LABELS) $(EVAL_ARGS)

# Weights are fitted on Spider train only, never on dev.
fit: install
	bash submission/build.sh --corpus $(CATALOG) --index-dir build/fit-index
	$(PYTHON) scripts/fit.py --index-dir build/fit-index --queries $(SPIDER)/train/queries.jsonl --labels $(SPIDER)/train/labels.jsonl

verify: install
	$(PY) ../shared/bench/verify.py --submission submission --catalog $(CATALOG) --queries $(QUERIES) --labels $(LABELS)

bench: install
	$(PYTHON) scripts/bench.py --catalog $(CATALOG) --queries $(QUERIES)

warm-cache: install
	$(PYTHON) scripts/warm_cache.py --catalog $(CATALOG) --queries $(QUERIES)

replay: $(INDEX)/manifest.json
	$(PYTHON) -m retriever eval --offline --index-dir $(INDEX) --queries $(QUERIES) --labels $(LABELS)

bundle: install
	bash scripts/bundle.sh

test-bundle: bundle
	$(PYTHON) -m pytest -q -m bundle tests/test_bundle.py

test-robust: install
	$(PYTHON) -m pytest -q tests/test_fuzz.py tests/test_faults.py

bench-scale: install
	$(PYTHON) scripts/scale_bench.py

clean:
	rm -rf build submission/_vendor submission/BUNDLE.txt
