"""Database-grouped folds: which databases each fold holds out, how a held-out question is judged, and the
cross-validation that fits every fold's models and routing."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from retriever.answer.evaluation import covered
from retriever.query.features import ROUTE_FEATURES
from retriever.query.model import fit_softmax
from retriever.query.planner import Models, Options, Planner

from .models import fit_models
from .sets import Question, TrainingSet

SEED = 13


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
    #: The answer's likeliest database (where a wrong-database miss went).
    picked: str
    #: CONFIDENCE_FEATURES of the answer (the calibration's input).
    x: np.ndarray



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
    return Outcome(ts.name, q.query_id, size, hit, routed, a.selection.expected, kind, ts.source, q.db, top_name,
                   planner.confidence_inputs(q.ev, a.selection.expected, top_group, top))



def route_row(planner: Planner, q: Question, opts: Options) -> tuple[np.ndarray, int] | None:
    """The competing groups' ROUTE_FEATURES and the gold group's place among them, where it is one of several."""
    gp, competing = planner.competing(q.ev, opts)
    groups = [g for g, _, _ in competing]
    if len(groups) < 2 or q.group not in groups:
        return None
    return planner.route_inputs(q.ev, gp, competing, opts), groups.index(q.group)


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

