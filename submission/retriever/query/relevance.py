"""Table relevance inside one group: a fitted score of how likely each table is part of the question's plan.

The fused rank of the channels orders tables over the whole catalog; inside a database what matters is which
tables the question needs: the one that alone holds a word of the question, a hub the others join through.
The score picks the pool that plans are enumerated from and feeds the plan features.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..index.links import Links
from .channels import Evidence
from .features import weigh

#: Named apart from the group and plan features (and the channel switches) so each can be switched off alone.
TABLE_FEATURES = (
    "t_fused", "t_fused_rank", "t_name", "t_phrase", "t_cov", "t_cov_alone", "t_cov_share", "t_bm25_table",
    "t_bm25_column", "t_values", "t_dense_table", "t_dense_column", "t_dense_table_gap", "t_dense_column_gap",
    "t_degree", "t_log_columns", "t_named", "t_related", "t_next_to_top", "t_entity_gap", "t_entity_best",
    "t_instance", "t_words", "t_person", "t_adapt_table", "t_adapt_column", "t_adapt_table_gap",
    "t_adapt_column_gap", "t_dated",
)


@dataclass(frozen=True)
class TableShape:
    """Per-table facts of the catalog the score reads: joins inside its group, width, a name column."""

    degree: np.ndarray
    log_columns: np.ndarray
    named: np.ndarray
    #: Tables each table is related to (itself excluded).
    neighbours: tuple[frozenset[int], ...]
    #: Tables that hold people (index/people.py).
    persons: np.ndarray
    #: Tables with a column saying when (index/documents.py, temporal_tables), as booleans: the plan features
    #: mask with it.
    temporal: np.ndarray

    @classmethod
    def from_links(cls, links: Links, n_columns: np.ndarray, named: np.ndarray,
                   persons: np.ndarray | None = None, temporal: np.ndarray | None = None) -> TableShape:
        """`links` as the index holds them; `n_columns`, `named`, `persons` and `temporal` are per table,
        in catalog order."""
        near = tuple(frozenset(links.get(t, {})) for t in range(n_columns.size))
        degree = np.asarray([len(n) for n in near], dtype=np.float32)
        people = np.zeros(n_columns.size, np.float32) if persons is None else persons.astype(np.float32)
        when = np.zeros(n_columns.size, np.bool_) if temporal is None else temporal.astype(np.bool_)
        return cls(np.log1p(degree), np.log(np.maximum(n_columns, 1)).astype(np.float32), named.astype(np.float32),
                   near, people, when)



def _scaled(x: np.ndarray) -> np.ndarray:
    return x / max(float(x.max()), 1e-9) if x.size else x


def table_features(ev: Evidence, members: Sequence[int], shape: TableShape) -> np.ndarray:
    """(members, TABLE_FEATURES) for the tables of one group, `members` sorted."""
    m = np.asarray(members, dtype=np.int64)
    w = ev.term_weights()
    hit = (ev.schema_hit | ev.value_hit)[:, m].astype(np.float32)
    held_by = hit.sum(axis=1)
    zeros = np.zeros(m.size, dtype=np.float32)
    cov = weigh(w, hit) if w.size else zeros
    # A term only this table of the group holds makes it needed; a term all hold says little about any.
    alone = weigh(w * (held_by == 1), hit) if w.size else zeros
    share = weigh(w / np.maximum(held_by, 1.0), hit) if w.size else zeros
    fused = ev.fused[m]
    order = np.lexsort((m, -fused))
    rank = np.empty(m.size, dtype=np.float32)
    rank[order] = np.arange(1, m.size + 1)
    dt = dc = dtg = dcg = zeros
    if ev.dense_z is not None:
        dt, dc = ev.dense_z[0][m], ev.dense_z[1][m]
        dtg, dcg = dt - dt.max(), dc - dc.max()
    related = weigh(w, ev.related()[:, m].astype(np.float32)) if w.size else zeros
    instance = weigh(w * ev.names(), ev.instances()[:, m].astype(np.float32)) if w.size else zeros
    # Plans are mostly joined: the tables related to the group's best-ranked one come with it.
    top = int(m[order[0]])
    next_to_top = np.asarray([int(t) in shape.neighbours[top] for t in m], dtype=np.float32)
    eg = eb = zeros
    if ev.entity_cos.size:
        ec = ev.entity_cos[m]
        eg = ec - ec.max()
        eb = (np.arange(m.size) == int(np.argmax(ec))).astype(np.float32)
    words = weigh(w, ev.words()[:, m]) if w.size else zeros
    at = ac = atg = acg = zeros
    adapted = ev.adapted()
    if adapted is not None:
        at, ac = adapted[0][m], adapted[1][m]
        atg, acg = at - at.max(), ac - ac.max()
    cols = [
        _scaled(fused), 1.0 / rank, ev.name_match[m], (ev.phrase_hits[m] > 0), cov, alone, share,
        _scaled(ev.scores["bm25_tables"][m]) if "bm25_tables" in ev.scores else zeros,
        _scaled(ev.scores["bm25_columns"][m]) if "bm25_columns" in ev.scores else zeros,
        _scaled(ev.scores["values"][m]) if "values" in ev.scores else zeros,
        dt, dc, dtg, dcg, shape.degree[m], shape.log_columns[m], shape.named[m], related, next_to_top, eg, eb,
        instance, words, shape.persons[m] * float(ev.persons().any()), at, ac, atg, acg,
        shape.temporal[m] * float(ev.dated),
    ]
    return np.stack([np.asarray(c, dtype=np.float32) for c in cols], axis=1)


def training_rows(feats: np.ndarray, gold: Sequence[int]) -> list[tuple[np.ndarray, int]]:
    """Conditional-logit rows: each gold table against every table of the group outside the plan."""
    gold_set = set(gold)
    others = [i for i in range(feats.shape[0]) if i not in gold_set]
    if not others:
        return []
    return [(feats[[g, *others]], 0) for g in sorted(gold_set)]
