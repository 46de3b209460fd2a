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

.PHONY: install install-milvus run query test lint eval fit fit-data usage-words cv reworded paraphrased wrapped abbreviated fake-api bench warm-cache replay bundle test-bundle test-robust bench-scale bench-scale-1m verify clean

$(VENV)/.installed: requirements.txt requirements-dev.txt submission/requirements.txt submission/requirements-nodeps.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements-dev.txt
	# Their declared dependencies (torch among them) are not needed: see the file.
	$(BIN)/pip install -q --disable-pip-version-check --no-deps -r submission/requirements-nodeps.txt
	touch $@

install: $(VENV)/.installed

# The optional `milvus` extra (pyproject.toml) for RETRIEVER_BACKEND=milvus and its tests; never in submission/.
install-milvus: install
	$(PYTHON) -c "import tomllib; print('\\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['milvus']))" \
	  | xargs $(BIN)/pip install -q --disable-pip-version-check

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
$(INDEX)/manifest.json: $(VENV)/.installed $(CATALOG) $(wildcard submission/retriever/*.py submission/retriever/*/*.py)
	bash submission/build.sh --corpus $(CATALOG) --index-dir $(INDEX)

eval: $(INDEX)/manifest.json
	$(PYTHON) -m retriever eval --index-dir $(INDEX) --queries $(QUERIES) --labels $(LABELS) $(EVAL_ARGS)

# Weights are fitted on every 2nd question of Spider train, BIRD train and the reworded copies of both, and on the
# hand-rewritten copies (PARA_SETS), never on dev; `make cv` reports database-grouped 5-fold cross-validation on
# every 4th question of the same four sets (TRAIN_SETS) and every 2nd hand-rewritten one: the same mix at half the density, so it trains as the shipped fit does (the share of reworded questions moves
# both styles' coverage; twice the questions at one mix do not), and scores the reworded copies too. Also the
# calibration table and, with ABLATE=piece, a retrained ablation. Evidence is kept in build/evcache between runs.
BIRD      ?= ../shared/data/bird-train
TRAIN_SETS = --set spider=build/spider,$(SPIDER)/train/queries.jsonl,$(SPIDER)/train/labels.jsonl \
             --set bird=build/bird,$(BIRD)/train/queries.jsonl,$(BIRD)/train/labels.jsonl \
             --set spider_rw=build/spider,build/spider_train_rw.jsonl,$(SPIDER)/train/labels.jsonl \
             --set bird_rw=build/bird,build/bird_reworded_all.jsonl,$(BIRD)/train/labels.jsonl
# The hand-rewritten copies (scripts/paraphrases/) are already every 4th / 5th question, so they are read at
# twice the others' density ($(1): all of them for the fit, every 2nd for the folds), keeping their share.
PARA_SETS  = --set spider_para=build/spider,scripts/paraphrases/spider_train_synonyms.jsonl,$(SPIDER)/train/labels.jsonl,$(1) \
             --set bird_para=build/bird,scripts/paraphrases/bird_train_synonyms.jsonl,$(BIRD)/train/labels.jsonl,$(1)
# A second hand-written set in the users' words (scripts/paraphrases/*_b.jsonl, other questions), all of it
# scored on the folds and never trained on: trained on beside the first (twice the share) it gained 19 held-out
# paraphrased questions and lost 35 as-written and reworded ones; at the same share (half of each) it moved
# nothing (docs/generalization.md, *A second set in the users' words*).
PARA_EVAL  = --set spider_b_para=build/spider,scripts/paraphrases/spider_train_synonyms_b.jsonl,$(SPIDER)/train/labels.jsonl,1 \
             --set bird_b_para=build/bird,scripts/paraphrases/bird_train_synonyms_b.jsonl,$(BIRD)/train/labels.jsonl,1 \
             --eval-only spider_b_para --eval-only bird_b_para
# The confidence is calibrated on the questions as their authors wrote them: the copies teach the models the
# users' words, but their answers, calibrated with the rest, made Spider dev's confidence too low (ECE 0.058).
CALIBRATE  = --calibrate-on spider --calibrate-on bird
# The folds also score questions about databases the catalog lacks (each train set's every 48th question asked
# of the other's catalog): every answer a miss, so their table is what confidence such a question gets. Never
# trained or calibrated on (calibrated on, they lowered it for all questions alike: docs/generalization.md).
OFF_SETS   = --set spider_off=build/bird,$(SPIDER)/train/queries.jsonl,$(SPIDER)/train/labels.jsonl,48 \
             --set bird_off=build/spider,$(BIRD)/train/queries.jsonl,$(BIRD)/train/labels.jsonl,48 \
             --off-catalog spider_off --off-catalog bird_off
FIT_SETS   = --every 2 $(TRAIN_SETS) $(call PARA_SETS,1) $(CALIBRATE)
CV_SETS    = --every 4 $(TRAIN_SETS) $(call PARA_SETS,2) $(PARA_EVAL) $(OFF_SETS) $(CALIBRATE)

# The usage words (scripts/usage_words.py): the users' words for schema words, learned from the hand-rewritten
# copies. `make usage-words` writes the shipped file from both sets; the fit and the folds build each set's index
# with the pairs learned from the other set alone, so no question is fitted or scored with pairs its own
# rewriting taught (a served question meets pairs learned without its database too).
usage_set  = --set $(1)/catalog.json,$(2)/queries.jsonl,scripts/paraphrases/$(3)_train_synonyms.jsonl,$(2)/labels.jsonl \
             --set $(1)/catalog.json,$(2)/queries.jsonl,scripts/paraphrases/$(3)_train_synonyms_b.jsonl,$(2)/labels.jsonl
USAGE_SPIDER = $(call usage_set,$(SPIDER),$(SPIDER)/train,spider)
USAGE_BIRD   = $(call usage_set,$(BIRD),$(BIRD)/train,bird)

usage-words: install
	$(PYTHON) scripts/usage_words.py $(USAGE_SPIDER) $(USAGE_BIRD) --out submission/retriever/index/usage_words.json

fit-data: install
	$(PYTHON) scripts/usage_words.py $(USAGE_SPIDER) --out build/usage_spider.json
	$(PYTHON) scripts/usage_words.py $(USAGE_BIRD) --out build/usage_bird.json
	RETRIEVER_USAGE_WORDS=build/usage_bird.json bash submission/build.sh --corpus $(SPIDER)/catalog.json \
	  --index-dir build/spider
	RETRIEVER_USAGE_WORDS=build/usage_spider.json bash submission/build.sh --corpus $(BIRD)/catalog.json \
	  --index-dir build/bird
	$(PYTHON) scripts/reword.py --catalog $(SPIDER)/catalog.json --queries $(SPIDER)/train/queries.jsonl \
	  --labels $(SPIDER)/train/labels.jsonl --out build/spider_train_rw.jsonl
	$(PYTHON) scripts/reword.py --catalog $(BIRD)/catalog.json --queries $(BIRD)/train/queries.jsonl \
	  --labels $(BIRD)/train/labels.jsonl --out build/bird_reworded_all.jsonl

fit: fit-data
	$(PYTHON) scripts/fit.py --evidence-cache build/evcache $(FIT_SETS)

cv: fit-data
	$(PYTHON) scripts/fit.py --evidence-cache build/evcache --cv 5 $(CV_SETS) $(if $(ABLATE),--ablate $(ABLATE))

# Robustness to rewording: Spider dev with schema words swapped for WordNet synonyms, and the same questions
# as written (both scored with the shipped weights on the dev catalog's index); then swapped for MiniLM
# neighbours instead, a resource the retriever's thesaurus does not read (REWORD_SOURCES=wordnet: the first only).
# REWORD_SOURCES=typos: every schema word of the gold plan misspelt once instead (the spelling's proxy);
# checked: WordNet swaps MiniLM reads as close to the word (meaning kept); columns: the words naming only
# gold columns dropped (the column left implicit); lower, upper, title: the whole question typed in lower case,
# in capitals or in title case; stressed: one schema word in capitals; careless: the names after the first
# typed in lower case (index/casing.py's proxies); shorthand: the words with a conventional abbreviation typed
# as it ("emps", "qty"; index/spelling.py's proxy). Each is also split by whether a swapped-in word is another
# database's schema word (scripts/reword_split.py).
REWORD_SOURCES ?= wordnet embedding typos checked columns lower upper title stressed careless shorthand
# $(1)'s questions as written (into $(2)), both scored, then split by collisions (scripts/reword_split.py).
score_pair = $(PYTHON) -c "import json,sys; ids={json.loads(l)['query_id'] for l in open('$(1)')}; \
	    [sys.stdout.write(l) for l in open('$(QUERIES)') if json.loads(l)['query_id'] in ids]" > $(2) && \
	  $(PYTHON) -m retriever eval --quiet --index-dir $(INDEX) --queries $(2) --labels $(LABELS) && \
	  $(PYTHON) -m retriever eval --quiet --index-dir $(INDEX) --queries $(1) --labels $(LABELS) && \
	  $(PYTHON) scripts/reword_split.py --index-dir $(INDEX) --catalog $(CATALOG) --original $(2) --reworded $(1) \
	    --labels $(LABELS)
reworded: $(INDEX)/manifest.json
	@for src in $(REWORD_SOURCES); do \
	  echo "== schema words swapped by $$src"; \
	  $(PYTHON) scripts/reword.py --source $$src --catalog $(CATALOG) --queries $(QUERIES) --labels $(LABELS) \
	    --out build/reworded-$$src.jsonl && \
	  $(call score_pair,build/reworded-$$src.jsonl,build/reworded-$$src-orig.jsonl) || exit 1; \
	done

# Spider dev in the users' words: every 3rd question rewritten by hand (scripts/paraphrases/README.md), scored
# beside the same questions as written and split like the proxies above (PARAPHRASE_STYLES=synonyms: the first only).
PARAPHRASE_STYLES ?= synonyms implicit
paraphrased: $(INDEX)/manifest.json
	@for style in $(PARAPHRASE_STYLES); do \
	  echo "== Spider dev in the users' words ($$style)"; \
	  $(call score_pair,scripts/paraphrases/spider_dev_$$style.jsonl,build/paraphrased-orig.jsonl) || exit 1; \
	done

# Spider dev wrapped the way users type to a SQL assistant ("Write a SQL query to answer this question: ...",
# scripts/wrap.py), scored beside the same questions as written: the wrappings query/request.py was written
# against (design), ones written after it and then read to widen it (heldout), two lists written by others
# who never saw it, read after measuring to write its sentence pass (independent_a, independent_b), and twenty
# written by others who never saw it, measured before they were read (independent_c to _v; _v read for no rule).
WRAPPINGS ?= design heldout independent_a independent_b independent_c independent_d independent_e independent_f independent_g independent_h independent_i independent_j independent_k independent_l independent_m independent_n independent_o independent_p independent_q independent_r independent_s independent_t independent_u independent_v
wrapped: $(INDEX)/manifest.json
	@$(PYTHON) -m retriever eval --quiet --index-dir $(INDEX) --queries $(QUERIES) --labels $(LABELS)
	@for w in $(WRAPPINGS); do \
	  echo "== Spider dev wrapped ($$w)"; \
	  $(PYTHON) scripts/wrap.py --wrappings scripts/wrappings/$$w.json --queries $(QUERIES) \
	    --out build/wrapped-$$w.jsonl && \
	  $(PYTHON) -m retriever eval --quiet --index-dir $(INDEX) --queries build/wrapped-$$w.jsonl \
	    --labels $(LABELS) || exit 1; \
	done
	@$(PYTHON) scripts/wrap_check.py --index-dir $(INDEX) --queries $(QUERIES) \
	  --wrappings $(foreach w,$(WRAPPINGS),scripts/wrappings/$(w).json)

# Robustness to the schema's writing: the catalog abbreviated and undocumented (`cust_nm`, scripts/abbreviate.py),
# indexed, and the same questions scored on it against the catalog as written ($(INDEX)).
# ABBREVIATE_ARGS="--run-together 0.5": half the names of several words also written as one (`custid`).
abbreviated: $(INDEX)/manifest.json
	$(PYTHON) scripts/abbreviate.py --catalog $(CATALOG) --labels $(LABELS) $(ABBREVIATE_ARGS) \
	  --out-catalog build/abbreviated/catalog.json --out-labels build/abbreviated/labels.jsonl
	$(PYTHON) -m retriever build --corpus build/abbreviated/catalog.json --index-dir build/abbreviated/index
	$(PYTHON) -m retriever eval --quiet --index-dir $(INDEX) --queries $(QUERIES) --labels $(LABELS)
	$(PYTHON) -m retriever eval --quiet --index-dir build/abbreviated/index --queries $(QUERIES) \
	  --labels build/abbreviated/labels.jsonl

# Item 5 of issue 10: a local fake Jina serving the local model's own vectors, then serving noise.
fake-api: install
	$(PYTHON) scripts/fake_api_runs.py --serve local --catalog $(CATALOG) --queries $(QUERIES) --labels $(LABELS)
	$(PYTHON) scripts/fake_api_runs.py --serve noise --catalog $(CATALOG) --queries $(QUERIES) --labels $(LABELS)

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

# In-process at 1k/10k/100k (MiniLM at 1k/10k), and stage 1 on Milvus Lite side by side at 10k/100k (MiniLM
# at 10k); RETRIEVER_MILVUS_URI/RETRIEVER_MILVUS_TOKEN in the environment point the Milvus runs at a server.
bench-scale: install-milvus
	$(PYTHON) scripts/scale_bench.py --milvus-sizes 10000,100000 --milvus-local-sizes 10000

# 1M tables, lexical, both backends (the MiniLM build cannot embed 1M tables inside the build limit).
bench-scale-1m: install-milvus
	$(PYTHON) scripts/scale_bench.py --sizes 1000000 --local-sizes '' --milvus-sizes 1000000 --questions 200 \
	  --work build/scale-1m --out-md docs/scale_1m.md --out-png docs/scale_1m.png

clean:
	rm -rf build submission/_vendor submission/BUNDLE.txt
