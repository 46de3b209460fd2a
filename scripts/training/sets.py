"""Training sets: a catalog's index, its questions with gold plans, and their evidence computed once (and
kept on disk between runs while the sources that make it are unchanged)."""

from __future__ import annotations

import hashlib
import json
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from retriever.answer.evaluation import read_jsonl
from retriever.config import Settings
from retriever.index import registry
from retriever.index.store import load_index
from retriever.query import relevance
from retriever.query.channels import Evidence
from retriever.query.features import group_features
from retriever.query.planner import Models, Options, Planner
from retriever.query.relevance import table_features
from retriever.runtime import query_embedders

#: The largest plan an answer of 5 tables can cover; bigger gold plans are left out of fitting.
MAX_TABLES = 5


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
    embed = query_embedders(settings, index, offline=False, read=planner.read)
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



#: The sources evidence depends on (a cached evidence file is reused while they are unchanged), and those the
#: weights were fitted with; both hold every module that reads the question's text (tests/test_fit.py).
_CHANNELS = ("query/channels.py", "query/evidence.py", "query/lookups.py", "index/registry.py")
_MATCHING = ("index/documents.py", "index/text.py", "query/fusion.py", "index/lexical.py", "index/thesaurus.py",
             "index/wordnet.py", "index/spelling.py", "index/abbreviations.py", "index/casing.py")
#: The modules that read the request around a question, the list each session's reading adds to.
_REQUEST = ("query/reading.py", "query/request.py", "query/markup.py", "query/sentences.py", "query/boundaries.py",
            "query/wording.py", "query/lines.py", "query/addressing.py")
EVIDENCE_SOURCES = (*_CHANNELS, *_MATCHING, "embedders/minilm.py", "embedders/onnx_graph.py", "runtime.py",
                    "backends/stage1.py", "index/people.py", "index/vocabulary.py", *_REQUEST)
CODE_SOURCES = (*_CHANNELS, "query/features.py", "query/confidence.py", "query/plans.py", "query/relevance.py",
                "query/planner.py", "query/model.py", "query/adapter.py", *_MATCHING, "index/links.py",
                "index/people.py", *_REQUEST)


def evidence_digest() -> str:
    """Evidence depends on these sources only: a cached evidence file is reused while they are unchanged."""
    return _digest(EVIDENCE_SOURCES)


def index_digest(index_dir: Path) -> str:
    """The index's files as its manifest lists them (name, size, sha256): evidence cached from an index built
    by other code (a build that failed and left the old one) is not reused."""
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    return hashlib.sha256(json.dumps(manifest.get("files"), sort_keys=True).encode()).hexdigest()[:16]


def code_digest() -> str:
    """Which code the weights were fitted with: a hash of the package sources that make features and plans."""
    return _digest(CODE_SOURCES)


def _digest(names: Sequence[str]) -> str:
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parents[2] / "submission" / "retriever"
    for name in names:
        h.update((pkg / name).read_bytes())
    return h.hexdigest()[:16]


#: (evidence, code) digests of the sources this process imported, taken at import: a source edited while a
#: long fit runs must not label evidence or weights made by the code it replaced.
RUNNING = (evidence_digest(), code_digest())
