"""The models fitted on training sets (table models first, then group and plan models on the candidates the
table models pick) and the retrained ablations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from retriever.query import plans
from retriever.query.features import GROUP_FEATURES, PLAN_FEATURES
from retriever.query.model import SoftmaxModel, fit_softmax
from retriever.query.planner import Models, Options
from retriever.query.relevance import TABLE_FEATURES

from .sets import TrainingSet

MODELS = ("group", "plan", "group_lexical", "plan_lexical")
#: Fitted first: their scores pick the candidate plans and feed the plan features.
TABLE_MODELS = ("table", "table_lexical")


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

