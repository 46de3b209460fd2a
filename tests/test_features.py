"""Feature values on hand-made evidence: standardised dense scores and the confidence inputs."""

from __future__ import annotations

import numpy as np
import pytest

from retriever.query.channels import Evidence, standardise
from retriever.query.features import CONFIDENCE_FEATURES, confidence_features, dense_channel


def _evidence(schema_hit: list[list[bool]], idf: list[float], dense: dict[str, list[float]]) -> Evidence:
    n = len(schema_hit[0]) if schema_hit else 3
    hit = np.asarray(schema_hit, dtype=bool).reshape(len(idf), n)
    scores = {"bm25_tables": np.zeros(n, dtype=np.float32)}
    group_dense = {}
    for name, s in dense.items():
        scores[f"dense_tables:{name}"] = np.asarray(s, dtype=np.float32)
        scores[f"dense_columns:{name}"] = np.asarray(s, dtype=np.float32)
        group_dense[name] = np.asarray([max(s)], dtype=np.float32)
    return Evidence([f"t{i}" for i in range(len(idf))], np.asarray(idf, dtype=np.float32), hit,
                    np.zeros_like(hit), np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32), scores,
                    np.ones(n, dtype=np.float32), np.zeros(1, dtype=np.float32), group_dense=group_dense)


def test_standardise_is_the_z_value_and_model_scale_free() -> None:
    x = np.asarray([0.2, 0.4, 0.6], dtype=np.float32)
    np.testing.assert_allclose(standardise(x), [-1.2247449, 0.0, 1.2247449], rtol=1e-5)
    # Another model's cosines with another scale and offset, same order: the same features.
    np.testing.assert_allclose(standardise(3 * x - 1), standardise(x), rtol=1e-5)
    assert standardise(np.asarray([0.5], dtype=np.float32)).tolist() == [0.0]


def test_the_first_dense_channel_in_the_planners_order_feeds_the_features() -> None:
    ev = _evidence([[True, False, False]], [1.0], {"jina": [0.1, 0.2, 0.3], "local": [0.3, 0.2, 0.1]})
    assert dense_channel(ev) == "jina"
    assert dense_channel(_evidence([[True, False, False]], [1.0], {})) is None


def test_confidence_features_by_hand() -> None:
    # Terms of idf 3 and 1: table 0 holds the first, table 1 the second; nothing holds both.
    ev = _evidence([[True, False, False], [False, True, False]], [3.0, 1.0], {"local": [0.5, 0.7, 0.1]})
    x = confidence_features(ev, expected=0.5, group_top=0.8)
    got = dict(zip(CONFIDENCE_FEATURES, x.tolist(), strict=True))
    assert got["bias"] == 1.0
    assert got["expected"] == pytest.approx(0.0)
    assert got["group_top"] == pytest.approx(np.log(4.0))
    assert got["matched"] == pytest.approx(1.0)
    assert got["cov_best"] == pytest.approx(0.75)
    assert got["dense_best"] == pytest.approx(0.7)


def test_a_question_that_matches_nothing_has_no_lexical_evidence() -> None:
    ev = _evidence([[False, False, False]], [2.0], {})
    got = dict(zip(CONFIDENCE_FEATURES, confidence_features(ev, 0.9, 0.9).tolist(), strict=True))
    assert got["matched"] == 0.0 and got["cov_best"] == 0.0 and got["dense_best"] == 0.0


def test_entity_terms_come_from_quoted_or_capitalised_words_past_the_first() -> None:
    from retriever.index.text import tokenize
    from retriever.query.channels import entity_terms

    def named(q: str) -> list[str]:
        terms = list(dict.fromkeys(tokenize(q)))
        return [t for t, e in zip(terms, entity_terms(q, terms), strict=True) if e]

    assert named("How many orders did Cindy Stewart place?") == ["cindi", "stewart"]
    assert named('Which play contains "the walls of Florence"?') == ["wall", "florenc"]
    assert named("What is the price of 'floor lamp'?") == ["floor", "lamp"]
    assert named("Singers older than 30?") == []
