"""Fit the group and plan models on Spider train and BIRD train, with database-grouped cross-validation.

Each training set is a (catalog index, questions, labels) triple; the same planner code that serves picks the
candidate plans and computes the features, so training and serving cannot drift. `--cv K` reports coverage on
held-out databases (folds grouped by database, never a database split across train and validation) and writes
the out-of-fold calibration data; without it, the models are fitted on everything and written to weights.json.

Usage: python scripts/fit.py --set spider=INDEX,QUERIES,LABELS --set bird=INDEX,QUERIES,LABELS [--cv 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retriever.answer.evaluation import covered, read_jsonl  # noqa: E402
from retriever.config import Settings  # noqa: E402
from retriever.index import registry  # noqa: E402
from retriever.index.store import load_index  # noqa: E402
from retriever.query import plans, relevance  # noqa: E402
from retriever.query.adapter import Adapter, adapt, fit_adapter  # noqa: E402
from retriever.query.adapter import save as save_adapter  # noqa: E402
from retriever.query.channels import Evidence, adapted_scores  # noqa: E402
from retriever.query.features import (  # noqa: E402
    CONFIDENCE_FEATURES,
    GROUP_FEATURES,
    PLAN_FEATURES,
    ROUTE_FEATURES,
    group_features,
    route_features,
)
from retriever.query.model import WEIGHTS_PATH, WEIGHTS_VERSION, SoftmaxModel, fit_softmax  # noqa: E402
from retriever.query.planner import Models, Options, Planner  # noqa: E402
from retriever.query.relevance import TABLE_FEATURES, table_features  # noqa: E402
from retriever.runtime import query_embedders  # noqa: E402

MODELS = ("group", "plan", "group_lexical", "plan_lexical")
#: Fitted first: their scores pick the candidate plans and feed the plan features.
TABLE_MODELS = ("table", "table_lexical")
#: The largest plan an answer of 5 tables can cover; bigger gold plans are left out of fitting.
MAX_TABLES = 5
SEED = 13
CALIBRATION_FOLDS = 5
#: The adapter's L2 penalty on its change to the identity map (query/adapter.py).
ADAPTER_L2 = 0.1


@dataclass
class Question:
    set_name: str
    query_id: str
    question: str
    db: str
    plans: list[dict[str, Any]]
    group: int
    tables: tuple[int, ...]
    #: Evidence with every channel live, and with the embedding channels off (the lexical models' input).
    ev: Evidence
    ev_lexical: Evidence


@dataclass
class TrainingSet:
    name: str
    planner: Planner
    questions: list[Question]
    #: The catalog's index folder: sets on one catalog (a set and its reworded copy) share database folds.
    source: str = ""
    #: Which questions of its file the set read: every Nth (a set's own `,N` or `--every`).
    every: int = 1
    #: Its questions are asked of a catalog without their databases (`--off-catalog`): scored on the folds,
    #: every answer a miss, never trained on (the calibration reads them where `--calibrate-on` names them).
    off_catalog: bool = False
    #: query id -> group and table model -> its training rows (features, gold position), made once and reused
    #: by every fold (plan rows depend on the fold's table model).
    rows: dict[str, dict[str, list[tuple[np.ndarray, int]]]] = field(default_factory=dict)

    def training_rows(self, q: Question) -> dict[str, list[tuple[np.ndarray, int]]]:
        if q.query_id not in self.rows:
            got: dict[str, list[tuple[np.ndarray, int]]] = {}
            members = self.planner.members[q.group]
            gold = [members.index(t) for t in q.tables]
            for suffix, ev in (("", q.ev), ("_lexical", q.ev_lexical)):
                got["group" + suffix] = [(group_features(ev, self.planner.groups), q.group)]
                feats = table_features(ev, members, self.planner.shape)
                got["table" + suffix] = relevance.training_rows(feats, gold)
            self.rows[q.query_id] = got
        return self.rows[q.query_id]

    def plan_rows(self, q: Question, planner: Planner) -> dict[str, list[tuple[np.ndarray, int]]]:
        """The gold plan among `planner`'s candidates (which depend on its table models), if it is there."""
        got: dict[str, list[tuple[np.ndarray, int]]] = {}
        for suffix, ev in (("", q.ev), ("_lexical", q.ev_lexical)):
            plans, feats = planner.plan_matrix(ev, q.group)
            gold = [i for i, p in enumerate(plans) if p.tables == q.tables]
            got["plan" + suffix] = [(feats, gold[0])] if gold else []
        return got


def usable(label: dict[str, Any], known: set[str]) -> bool:
    """Plans a 5-table answer can cover, on tables the catalog has (BIRD has empty and unresolved ones)."""
    plans = label.get("plans") or []
    if not plans or label.get("unresolved_tables"):
        return False
    return any(p["tables"] and len(p["tables"]) <= MAX_TABLES and set(p["tables"]) <= known for p in plans)


def lexical_options(planner: Planner, opts: Options) -> Options:
    """Options with every embedding channel of the planner's index switched off."""
    off = {c.switch for c in registry.index_channels(planner.index.channels) if c.embedded and c.switch}
    return replace(opts, disabled_channels=opts.disabled_channels | frozenset(off))


def load_set(spec: str, settings: Settings, opts: Options, every: int, cache: Path | None,
             off_catalog: bool = False) -> TrainingSet:
    name, _, paths = spec.partition("=")
    parts = paths.split(",")
    index_dir, queries_path, labels_path = (Path(p) for p in parts[:3])
    every = int(parts[3]) if len(parts) > 3 else every
    index = load_index(index_dir)
    planner = Planner(index, Models.uniform())
    embed = query_embedders(settings, index, offline=False)
    labels = {row["query_id"]: row for row in read_jsonl(labels_path)}
    pos = {t.table_id: i for i, t in enumerate(index.catalog.tables)}
    gpos = {g: i for i, g in enumerate(index.groups)}
    lex = lexical_options(planner, opts)
    out = []
    rows = read_jsonl(queries_path)[::every]
    # The questions and labels count by their content: a reworded set made anew under the same name is
    # other questions.
    files = hashlib.sha256(queries_path.read_bytes() + b"\0" + labels_path.read_bytes()).hexdigest()[:16]
    files += "|off-catalog" if off_catalog else ""  # (the other sets' keys as they were)
    key = hashlib.sha256(f"{spec}|{every}|{RUNNING[0]}|{index_digest(index_dir)}|{files}".encode()).hexdigest()[:16]
    if cache is not None and (cache / f"{name}-{key}.pkl").exists():
        with open(cache / f"{name}-{key}.pkl", "rb") as f:  # our own file, written below
            return TrainingSet(name, planner, pickle.load(f), str(index_dir), every, off_catalog)  # noqa: S301
    t0 = time.monotonic()
    for n, q in enumerate(rows):
        label = labels[q["query_id"]]
        tables: tuple[int, ...]
        if off_catalog:
            if any(t in pos for p in label.get("plans") or [] for t in p["tables"]):
                raise SystemExit(f"fit: --off-catalog set {name!r}: {q['query_id']} names tables of {index_dir}")
            db, group, tables = str(label["db_id"]), -1, ()
        elif usable(label, set(pos)):
            plan = next(p for p in label["plans"] if p["tables"] and set(p["tables"]) <= set(pos))
            tables = tuple(sorted(pos[t] for t in plan["tables"]))
            db = index.catalog.tables[tables[0]].group
            group = gpos[db]
        else:
            continue
        vectors = embed(q["question"])
        out.append(Question(name, q["query_id"], q["question"], db, label["plans"], group, tables,
                            planner.evidence(q["question"], vectors, opts),
                            planner.evidence(q["question"], vectors, lex)))
        if n % 2000 == 0:
            print(f"fit: {name} {n}/{len(rows)} questions ({time.monotonic() - t0:.0f}s)", file=sys.stderr, flush=True)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        with open(cache / f"{name}-{key}.pkl", "wb") as f:
            pickle.dump(out, f, protocol=pickle.HIGHEST_PROTOCOL)
    return TrainingSet(name, planner, out, str(index_dir), every, off_catalog)


@dataclass
class Fitted:
    models: Models
    #: The training rows of every model, and how many questions had their gold plan among the candidates.
    data: dict[str, list[tuple[np.ndarray, int]]]
    found: int
    total: int


def _features(name: str) -> tuple[str, ...]:
    return {"group": GROUP_FEATURES, "plan": PLAN_FEATURES, "table": TABLE_FEATURES}[name.split("_")[0]]


def fit_models(sets: Sequence[TrainingSet], keep: set[tuple[str, str]] | None = None,
               off: frozenset[str] = frozenset(), tables: bool = True, confidence: SoftmaxModel | None = None,
               route: SoftmaxModel | None = None) -> Fitted:
    """Table models first, then group and plan models on the candidates they pick; `keep` restricts training
    to (set, database) pairs (a CV fold), `off` lists features trained as zero, and without `tables` the
    fused rank orders a group's tables."""
    chosen = [(ts, q) for ts in sets for q in ts.questions if keep is None or (ts.source, q.db) in keep]
    data: dict[str, list[tuple[np.ndarray, int]]] = {k: [] for k in (*TABLE_MODELS, *MODELS)}
    for ts, q in chosen:
        for name, rows in ts.training_rows(q).items():
            data[name].extend(rows)
    got = {name: fit_softmax(zeroed(data[name], _features(name), off), _features(name)) for name in TABLE_MODELS}
    table, table_lexical = (got["table"], got["table_lexical"]) if tables else (None, None)
    first = replace(Models.uniform(), table=table, table_lexical=table_lexical)
    found = 0
    for ts, q in chosen:
        plan_rows = ts.plan_rows(q, ts.planner.with_models(first))
        found += int(bool(plan_rows["plan"]))
        for name, got_rows in plan_rows.items():
            data[name].extend(got_rows)
    got.update({name: fit_softmax(zeroed(data[name], _features(name), off), _features(name)) for name in MODELS})
    models = Models(got["group"], got["plan"], got["group_lexical"], got["plan_lexical"], confidence, table,
                    table_lexical, route)
    return Fitted(models, data, found, len(chosen))


def fit_confidence(outcomes: Sequence[Outcome]) -> SoftmaxModel:
    """Logistic calibration of P(answer covers the question), as a two-way softmax against a zero row."""
    return fit_softmax([(np.stack([np.zeros_like(o.x), o.x]), int(o.hit)) for o in outcomes], CONFIDENCE_FEATURES)


def calibrated(model: SoftmaxModel, x: np.ndarray) -> float:
    return float(model.probs(np.stack([np.zeros_like(x), x]))[1])


def deal(keys: set[tuple[str, str]], off: set[tuple[str, str]], k: int) -> dict[tuple[str, str], int]:
    """(catalog, database) keys dealt into k folds in a seeded order, the off-catalog ones apart: adding them
    leaves the other databases' folds as they were."""
    out: dict[tuple[str, str], int] = {}
    for group in (keys, off):
        ordered = sorted(group)
        for i, j in enumerate(np.random.default_rng(SEED).permutation(len(ordered))):
            out[ordered[j]] = i % k
    return out


def folds(sets: Sequence[TrainingSet], k: int) -> list[set[tuple[str, str]]]:
    """Databases dealt into k folds: a database's questions stay in one fold."""
    keys = {(ts.off_catalog, ts.source, q.db) for ts in sets for q in ts.questions}
    fold = deal({(s, d) for o, s, d in keys if not o}, {(s, d) for o, s, d in keys if o}, k)
    out: list[set[tuple[str, str]]] = [set() for _ in range(k)]
    for db, i in fold.items():
        out[i].add(db)
    return out


#: The miss kind of every answer to an off-catalog set's question.
OFF_CATALOG = "off catalog"


@dataclass
class Outcome:
    set_name: str
    query_id: str
    size: int
    hit: bool
    routed: bool
    expected: float
    kind: str
    source: str
    db: str
    #: CONFIDENCE_FEATURES of the answer (the calibration's input).
    x: np.ndarray


def question_vectors(ts: TrainingSet, settings: Settings) -> np.ndarray:
    """The local model's vector of every question of the set, as the channels embed it (disk-cached)."""
    embed = query_embedders(settings, ts.planner.index, offline=False)
    key = str(registry.dense("local").vector_key)
    return np.stack([np.asarray(embed(q.question)[key], dtype=np.float32).ravel() for q in ts.questions])


def adapter_examples(sets: Sequence[TrainingSet], vectors: Sequence[np.ndarray], keep: set[tuple[str, str]]
                     ) -> list[tuple[np.ndarray, np.ndarray, list[list[int]]]]:
    """Per training database: its questions' vectors, its tables' vectors, the gold rows."""
    out = []
    for ts, vec in zip(sets, vectors, strict=True):
        if ts.off_catalog:
            continue
        tables = ts.planner.index.dense["local"][0]
        by_db: dict[int, list[int]] = {}
        for i, q in enumerate(ts.questions):
            if (ts.source, q.db) in keep:
                by_db.setdefault(q.group, []).append(i)
        for g in sorted(by_db):
            members = ts.planner.members[g]
            rows = by_db[g]
            out.append((vec[rows], tables[members],
                        [[members.index(t) for t in ts.questions[i].tables] for i in rows]))
    return out


def with_adapted(ev: Evidence, w: np.ndarray, q: np.ndarray, planner: Planner) -> Evidence:
    """`ev` as serving with adapter `w` makes it (the rest of the evidence does not read the adapter)."""
    t_vec, c_vec, _ = planner.index.dense["local"]
    a = adapt(w, q)
    return replace(ev, adapted_z=adapted_scores(t_vec @ a, c_vec @ a, planner.layout))


def attach_adapters(sets: Sequence[TrainingSet], settings: Settings, k: int, full: bool) -> Adapter | None:
    """Each question's evidence gets the adapted cosines of an adapter fitted without its database fold (what
    a model fitted on them sees is what serving sees on an unseen database); with `full`, returns the adapter
    fitted on every question, the one that serves."""
    if not all("local" in ts.planner.index.dense for ts in sets):
        return None  # an index without the local model's vectors: no adapter to fit
    vectors = [question_vectors(ts, settings) for ts in sets]
    fold_dbs = folds(sets, k)
    everything = {db for f in fold_dbs for db in f}
    for i, held in enumerate(fold_dbs):
        w = fit_adapter(adapter_examples(sets, vectors, everything - held), ADAPTER_L2)
        for ts, vec in zip(sets, vectors, strict=True):
            for j, q in enumerate(ts.questions):
                if (ts.source, q.db) in held:
                    q.ev = with_adapted(q.ev, w, vec[j], ts.planner)
        print(f"fit: adapter {i + 1}/{k} fitted", file=sys.stderr, flush=True)
    if not full:
        return None
    model = sets[0].planner.index.manifest.get("embedders", {}).get("local", "")
    return Adapter("local", model, fit_adapter(adapter_examples(sets, vectors, everything), ADAPTER_L2))


def judge(ts: TrainingSet, planner: Planner, q: Question, opts: Options) -> Outcome:
    a = planner.decide(q.ev, opts)
    hit = not ts.off_catalog and covered(q.plans, a.table_ids, a.joins)
    routed = not ts.off_catalog and next(iter(a.group_probs), "") == q.db
    size = len(q.tables)
    kind = "hit"
    if ts.off_catalog:
        kind = OFF_CATALOG
    elif not hit:
        gold_ids = {planner.index.catalog.tables[t].table_id for t in q.tables}
        kind = "wrong database" if not routed else ("missing tables" if not gold_ids <= set(a.table_ids)
                                                      else "missing join")
    top_name, top = next(iter(a.group_probs.items()), ("", 0.0))
    top_group = planner.index.groups.index(top_name) if top_name else None
    return Outcome(ts.name, q.query_id, size, hit, routed, a.selection.expected, kind, ts.source, q.db,
                   planner.confidence_inputs(q.ev, a.selection.expected, top_group, top))


#: Retrained ablations (`--cv K --ablate PIECE`): what switching one new piece off costs on held-out folds.
ABLATIONS = ("entity_home", "five_tables", "bird_training", "reworded_training", "paraphrased_training",
             "table_relevance", "route", "adapter")


def ablate(sets: Sequence[TrainingSet], piece: str, opts: Options) -> tuple[Options, frozenset[str]]:
    """Switch `piece` off for a whole CV run: features zeroed in training and serving, candidates cut, or
    training sets left out (they are still evaluated). Returns the options and the sets not trained on."""
    off: set[str] = set()
    skip: set[str] = set()
    if piece == "table_relevance":  # cross_validate leaves the table models out
        off = {"tab_sum", "tab_min", "tab_out"}
        plans.UNJOINED_SEEDS = 4  # as many as the fused rank had
    elif piece == "entity_home":
        off = {"entity_home"}
    elif piece == "five_tables":
        off = {"size5"}
        plans.MAX_PLAN_TABLES = 4
    elif piece == "bird_training":
        skip = {ts.name for ts in sets if ts.name.startswith("bird")}
    elif piece == "reworded_training":
        skip = {ts.name for ts in sets if ts.name.endswith("_rw")}
    elif piece == "paraphrased_training":
        skip = {ts.name for ts in sets if ts.name.endswith("_para")}
    return replace(opts, disabled_features=opts.disabled_features | frozenset(off)), frozenset(skip)


def zeroed(rows: list[tuple[np.ndarray, int]], names: Sequence[str], off: frozenset[str]
           ) -> list[tuple[np.ndarray, int]]:
    """Training without a feature: its column is zero, so its weight fits to nothing."""
    cols = [i for i, n in enumerate(names) if n in off]
    return rows if not cols else [(_without(x, cols), y) for x, y in rows]


def _without(x: np.ndarray, cols: list[int]) -> np.ndarray:
    x = x.copy()
    x[:, cols] = 0.0
    return x


def route_row(planner: Planner, q: Question, opts: Options) -> tuple[np.ndarray, int] | None:
    """The competing groups' ROUTE_FEATURES and the gold group's place among them, where it is one of several."""
    gp, competing = planner.competing(q.ev, opts)
    groups = [g for g, _, _ in competing]
    if len(groups) < 2 or q.group not in groups:
        return None
    return route_features(gp[groups], [lg for _, _, lg in competing]), groups.index(q.group)


def cross_validate(sets: Sequence[TrainingSet], k: int, opts: Options, skip: frozenset[str] = frozenset(),
                   tables: bool = True, route: bool = True
                   ) -> tuple[list[Outcome], list[tuple[np.ndarray, int]]]:
    """Held-out outcomes per database fold, and the routing rows of every held-out question. The routing
    model reads the group and plan models' scores, so it is fitted on held-out rows only: each fold is judged
    with one fitted on the other folds' rows (its own models stay out of it)."""
    fold_dbs = folds(sets, k)
    fitted: list[Models] = []
    rows: list[list[tuple[np.ndarray, int]]] = []
    for i, held in enumerate(fold_dbs):
        train = {db for j, f in enumerate(fold_dbs) if j != i for db in f}
        models = fit_models([ts for ts in sets if ts.name not in skip], train, opts.disabled_features,
                            tables).models
        fitted.append(models)
        got = (route_row(ts.planner.with_models(models), q, opts) for ts in sets if ts.name not in skip
               for q in ts.questions if (ts.source, q.db) in held)
        rows.append([r for r in got if r is not None])
        print(f"fit: fold {i + 1}/{k} fitted", file=sys.stderr, flush=True)
    outcomes: list[Outcome] = []
    for i, held in enumerate(fold_dbs):
        models = fitted[i]
        if route:
            models = replace(models, route=fit_softmax([r for j, got in enumerate(rows) if j != i for r in got],
                                                       ROUTE_FEATURES))
        for ts in sets:
            planner = ts.planner.with_models(models)
            outcomes.extend(judge(ts, planner, q, opts) for q in ts.questions if (ts.source, q.db) in held)
        print(f"fit: fold {i + 1}/{k} done", file=sys.stderr, flush=True)
    return outcomes, [r for got in rows for r in got]


def calibration(outcomes: Sequence[Outcome], k: int, on: frozenset[str] | None = None
                ) -> tuple[list[float], list[str]]:
    """Held-out calibrated confidence per outcome (the calibration of each database fold is fitted on the
    others' out-of-fold outcomes of the sets `on`, all if None) and the 10-bin reliability table with its
    expected calibration error, for every set ("all": the sets about the catalog's own databases)."""
    on = on if on is not None else frozenset(o.set_name for o in outcomes)
    fold = deal({(o.source, o.db) for o in outcomes if o.kind != OFF_CATALOG},
                {(o.source, o.db) for o in outcomes if o.kind == OFF_CATALOG}, k)
    probs = [0.0] * len(outcomes)
    for i in range(k):
        model = fit_confidence([o for o in outcomes if fold[(o.source, o.db)] != i and o.set_name in on])
        for n, o in enumerate(outcomes):
            if fold[(o.source, o.db)] == i:
                probs[n] = calibrated(model, o.x)
    lines = []
    for name in sorted({o.set_name for o in outcomes}) + ["all"]:
        idx = [n for n, o in enumerate(outcomes) if o.set_name == name or (name == "all" and o.kind != OFF_CATALOG)]
        ece = 0.0
        lines.append(f"calibration {name} (10 bins: questions, mean predicted, observed):")
        for b in range(10):
            sel = [n for n in idx if b / 10 <= probs[n] < (b + 1) / 10 or (b == 9 and probs[n] >= 1.0)]
            if sel:
                p = float(np.mean([probs[n] for n in sel]))
                h = float(np.mean([outcomes[n].hit for n in sel]))
                ece += len(sel) / len(idx) * abs(p - h)
                lines.append(f"  {b / 10:.1f}-{(b + 1) / 10:.1f}: n={len(sel):5d} predicted={p:.3f} observed={h:.3f}")
        lines.append(f"  ECE {ece:.4f}")
    return probs, lines


def report(outcomes: Sequence[Outcome]) -> list[str]:
    lines = []
    for name in sorted({o.set_name for o in outcomes}):
        mine = [o for o in outcomes if o.set_name == name]
        if all(o.kind == OFF_CATALOG for o in mine):
            lines.append(f"{name}: {len(mine)} questions asked of a catalog without their databases (all misses)")
            continue
        hits = sum(o.hit for o in mine)
        lines.append(f"{name}: coverage {hits / len(mine):.4f} ({hits}/{len(mine)}), "
                     f"routing {np.mean([o.routed for o in mine]):.4f}")
        for size in sorted({o.size for o in mine}):
            s = [o for o in mine if o.size == size]
            lines.append(f"  plan tables {size}: {np.mean([o.hit for o in s]):.4f} ({sum(o.hit for o in s)}/{len(s)})")
        kinds = {kd: sum(o.kind == kd for o in mine) for kd in ("wrong database", "missing tables", "missing join")}
        lines.append("  misses: " + ", ".join(f"{kd} {n}" for kd, n in kinds.items()))
    return lines


def evidence_digest() -> str:
    """Evidence depends on these sources only: a cached evidence file is reused while they are unchanged."""
    return _digest(("query/channels.py", "query/evidence.py", "query/lookups.py", "index/registry.py",
                    "index/documents.py", "index/text.py", "query/fusion.py", "index/lexical.py", "index/thesaurus.py",
                    "index/wordnet.py", "index/spelling.py", "embedders/minilm.py", "embedders/onnx_graph.py",
                    "runtime.py", "backends/stage1.py", "index/people.py", "index/vocabulary.py"))


def index_digest(index_dir: Path) -> str:
    """The index's files as its manifest lists them (name, size, sha256): evidence cached from an index built
    by other code (a build that failed and left the old one) is not reused."""
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    return hashlib.sha256(json.dumps(manifest.get("files"), sort_keys=True).encode()).hexdigest()[:16]


def code_digest() -> str:
    """Which code the weights were fitted with: a hash of the package sources that make features and plans."""
    return _digest(("query/channels.py", "query/evidence.py", "query/lookups.py", "index/registry.py",
                    "query/features.py", "query/plans.py", "query/relevance.py", "query/planner.py", "query/model.py",
                    "query/adapter.py",
                    "index/documents.py", "index/text.py", "query/fusion.py", "index/lexical.py", "index/thesaurus.py",
                    "index/wordnet.py", "index/spelling.py", "index/links.py", "index/people.py"))


def _digest(names: Sequence[str]) -> str:
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parent.parent / "submission" / "retriever"
    for name in names:
        h.update((pkg / name).read_bytes())
    return h.hexdigest()[:16]


#: (evidence, code) digests of the sources this process imported, taken at import: a source edited while a
#: long fit runs must not label evidence or weights made by the code it replaced.
RUNNING = (evidence_digest(), code_digest())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--set", action="append", required=True, help="NAME=INDEX_DIR,QUERIES,LABELS[,EVERY]")
    ap.add_argument("--cv", type=int, default=0, help="report K-fold database-grouped CV instead of fitting")
    ap.add_argument("--every", type=int, default=1, help="every Nth question of each set (quick experiments)")
    ap.add_argument("--evidence-cache", type=Path, help="keep each set's computed evidence here between runs")
    ap.add_argument("--ablate", choices=ABLATIONS, help="with --cv: retrain and evaluate with this piece off")
    ap.add_argument("--outcomes", type=Path, help="with --cv: write each held-out outcome here as JSONL")
    ap.add_argument("--eval-only", action="append", default=[], metavar="NAME",
                    help="with --cv: score this set on the held-out folds without training on it")
    ap.add_argument("--off-catalog", action="append", default=[], metavar="NAME",
                    help="this set's questions are about databases its catalog lacks (another catalog's): never "
                         "trained on, every answer a miss, for the confidence calibration to learn what they look like")
    ap.add_argument("--calibrate-on", action="append", metavar="NAME",
                    help="fit the confidence calibration on these sets' held-out answers only (default: all)")
    ap.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    args = ap.parse_args(argv)
    settings = Settings.from_env(os.environ)
    opts = Options(rrf_k=settings.rrf_k)
    names = {spec.partition("=")[0] for spec in args.set}
    for flag, given in (("--eval-only", args.eval_only), ("--calibrate-on", args.calibrate_on or []),
                        ("--off-catalog", args.off_catalog)):
        if set(given) - names:
            raise SystemExit(f"fit: {flag} names no --set: {', '.join(sorted(set(given) - names))}")
    calibrate_on = frozenset(args.calibrate_on or names)
    sets = [load_set(s, settings, opts, args.every, args.evidence_cache, s.partition("=")[0] in args.off_catalog)
            for s in args.set]
    off = frozenset(args.off_catalog)
    adapter = None
    if args.ablate != "adapter":
        adapter = attach_adapters(sets, settings, args.cv or CALIBRATION_FOLDS, full=not args.cv)
    if args.cv:
        cv_opts, skip = ablate(sets, args.ablate, opts) if args.ablate else (opts, frozenset())
        skip |= frozenset(args.eval_only) | off
        outcomes, _ = cross_validate(sets, args.cv, cv_opts, skip, tables=args.ablate != "table_relevance",
                                     route=args.ablate != "route")
        print("\n".join(report(outcomes)))
        probs, lines = calibration(outcomes, args.cv, calibrate_on)
        print("\n".join(lines))
        if args.outcomes:
            with open(args.outcomes, "w", encoding="utf-8") as f:
                for o, p in zip(outcomes, probs, strict=True):
                    f.write(json.dumps({**o.__dict__, "x": o.x.round(6).tolist(), "confidence": round(p, 6)}) + "\n")
        return 0
    # The confidence calibration and the routing model need held-out answers: a 5-fold pass first, then the
    # full fit.
    outcomes, route_rows = cross_validate(sets, CALIBRATION_FOLDS, opts, off)
    conf = fit_confidence([o for o in outcomes if o.set_name in calibrate_on])
    route = fit_softmax(route_rows, ROUTE_FEATURES)
    got = fit_models([ts for ts in sets if not ts.off_catalog], confidence=conf, route=route)
    print(f"fit: gold plan among candidates for {got.found}/{got.total} questions", file=sys.stderr)
    fitted = {name: getattr(got.models, name) for name in (*TABLE_MODELS, *MODELS)}
    for name, m in fitted.items():
        acc = np.mean([int(np.argmax(m.logits(x)) == y) for x, y in got.data[name]])
        print(f"fit: {name} model train top-1 accuracy {acc:.4f}", file=sys.stderr)
    out = {"version": WEIGHTS_VERSION, "fitted_on": {ts.name: len(ts.questions) for ts in sets if not ts.off_catalog},
           **({"calibrated_off_catalog": {ts.name: len(ts.questions) for ts in sets if ts.off_catalog}} if off else {}),
           "every": {ts.name: ts.every for ts in sets}, "code": RUNNING[1], "channels": sets[0].planner.index.channels,
           "models": {**{k: m.to_json() for k, m in fitted.items()}, "confidence": conf.to_json(),
                      "route": route.to_json()}}
    if adapter is not None:
        out["adapter"] = save_adapter(adapter, args.out.with_name("adapter.npy"))
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"fit: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
