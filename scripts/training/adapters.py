"""The question adapter (query/adapter.py) in training: each question's evidence gets the adapted cosines of
an adapter fitted without its database fold."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from retriever.config import Settings
from retriever.index import registry
from retriever.query.adapter import Adapter, adapt, fit_adapter
from retriever.query.channels import Evidence, adapted_scores
from retriever.query.planner import Planner
from retriever.runtime import query_embedders

from .folds import folds
from .sets import TrainingSet

#: The adapter's L2 penalty on its change to the identity map (query/adapter.py).
ADAPTER_L2 = 0.1


def question_vectors(ts: TrainingSet, settings: Settings) -> np.ndarray:
    """The local model's vector of every question of the set, as the channels embed it (disk-cached)."""
    embed = query_embedders(settings, ts.planner.index, offline=False, read=ts.planner.read)
    key = str(registry.dense("local").vector_key)
    return np.stack([np.asarray(embed(q.question)[key], dtype=np.float32).ravel() for q in ts.questions])


def adapter_examples(sets: Sequence[TrainingSet], vectors: Sequence[np.ndarray], keep: set[tuple[str, str]],
                     skip: frozenset[str] = frozenset()) -> list[tuple[np.ndarray, np.ndarray, list[list[int]]]]:
    """Per training database: its questions' vectors, its tables' vectors, the gold rows (none from the sets
    `skip` names, which are scored only, nor from off-catalog ones)."""
    out = []
    for ts, vec in zip(sets, vectors, strict=True):
        if ts.off_catalog or ts.name in skip:
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


def attach_adapters(sets: Sequence[TrainingSet], settings: Settings, k: int, full: bool,
                    skip: frozenset[str] = frozenset()) -> Adapter | None:
    """Each question's evidence gets the adapted cosines of an adapter fitted without its database fold (what
    a model fitted on them sees is what serving sees on an unseen database), and without the sets `skip`
    names (scored, never trained on); with `full`, returns the adapter fitted on every question, the one that
    serves."""
    if not all("local" in ts.planner.index.dense for ts in sets):
        return None  # an index without the local model's vectors: no adapter to fit
    vectors = [question_vectors(ts, settings) for ts in sets]
    fold_dbs = folds(sets, k)
    everything = {db for f in fold_dbs for db in f}
    for i, held in enumerate(fold_dbs):
        w = fit_adapter(adapter_examples(sets, vectors, everything - held, skip), ADAPTER_L2)
        for ts, vec in zip(sets, vectors, strict=True):
            for j, q in enumerate(ts.questions):
                if (ts.source, q.db) in held:
                    q.ev = with_adapted(q.ev, w, vec[j], ts.planner)
        print(f"fit: adapter {i + 1}/{k} fitted", file=sys.stderr, flush=True)
    if not full:
        return None
    model = sets[0].planner.index.manifest.get("embedders", {}).get("local", "")
    return Adapter("local", model, fit_adapter(adapter_examples(sets, vectors, everything, skip), ADAPTER_L2))

