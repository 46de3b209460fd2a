"""What the confidence calibration reads of an answer: how sure the models are, how much of the question the
catalog holds, and how the question is worded."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..index import registry
from .channels import Evidence
from .features import dense_channel, weigh

#: What the confidence calibration reads: the model's own expected coverage and top group probability (as
#: logits), how much of the question the catalog matches at all, the best raw dense similarity, and how wide
#: the top database is (log of its columns, alone and times the expected coverage's logit): the same margins
#: are worth less where a plan has hundreds of columns to get wrong than in a database of twenty. Then what
#: tells a user's wording from the schema's at the same margins: the share of the question that is schema
#: words anywhere and in the top database, the share found only through related words, and how many terms
#: it has (a paraphrase is longer and matches less directly: calibrated on the questions as written alone,
#: these cut the paraphrased copies' over-confidence by a fifth; docs/generalization.md).
CONFIDENCE_FEATURES = ("bias", "expected", "group_top", "matched", "cov_best", "dense_best", "width",
                       "width_expected", "schema_share", "top_schema", "related_only", "log_terms")


def _logit(p: float) -> float:
    q = min(max(p, 1e-4), 1 - 1e-4)
    return float(np.log(q / (1 - q)))


def confidence_features(ev: Evidence, expected: float, group_top: float, top_columns: int,
                        top_tables: Sequence[int]) -> np.ndarray:
    """CONFIDENCE_FEATURES of one answer; `top_columns` counts the top database's columns, `top_tables` are its
    tables. A question with no evidence (nonsense words) matches no term and has a weak best similarity,
    whatever the softmax makes of it."""
    w = ev.term_weights()
    if not w.size or not ev.schema_hit.size:
        w = np.zeros(0, dtype=np.float32)
    schema = ev.schema_hit.astype(np.float32)
    hit_all = (ev.schema_hit | ev.value_hit).astype(np.float32)
    matched = float(weigh(w, hit_all.max(axis=1))) if w.size else 0.0
    cov_best = float(weigh(w, hit_all).max()) if w.size else 0.0
    name = dense_channel(ev)
    dense = float(ev.scores[registry.dense(name).evidence_keys[0]].max()) if name is not None and ev.fused.size else 0.0
    width = float(np.log1p(top_columns))
    top = list(top_tables)
    schema_share = float(weigh(w, schema.max(axis=1))) if w.size else 0.0
    top_schema = float(weigh(w, schema[:, top].max(axis=1))) if w.size and top else 0.0
    only_related = (ev.related().any(axis=1) & ~hit_all.any(axis=1)).astype(np.float32)
    related_only = float(weigh(w, only_related)) if w.size else 0.0
    return np.asarray([1.0, _logit(expected), _logit(group_top), matched, cov_best, dense, width,
                       width * _logit(expected), schema_share, top_schema, related_only,
                       float(np.log1p(ev.idf.size))], dtype=np.float64)
