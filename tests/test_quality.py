"""The dense channels' quality probe and the order it gives: which channel feeds the features."""

from __future__ import annotations

import numpy as np

from retriever.index.quality import PROBE_TABLES, preference, probe_sample, self_retrieval


def test_self_retrieval_is_the_mean_reciprocal_rank_of_each_own_table() -> None:
    tables = np.eye(3, dtype=np.float32)
    # Query 0 finds table 0 first; query 1 prefers table 2 over its own table 1 (rank 2).
    queries = np.asarray([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]], dtype=np.float32)
    assert self_retrieval(queries, tables, [0, 1]) == (1.0 + 0.5) / 2


def test_noise_scores_below_a_model_that_finds_the_tables() -> None:
    rng = np.random.default_rng(0)
    tables = rng.normal(size=(200, 16)).astype(np.float32)
    tables /= np.linalg.norm(tables, axis=1, keepdims=True)
    good = tables + 0.05 * rng.normal(size=tables.shape).astype(np.float32)
    noise = rng.normal(size=tables.shape).astype(np.float32)
    targets = list(range(200))
    assert self_retrieval(good, tables, targets) > 0.9
    assert self_retrieval(noise, tables, targets) < 0.1


def test_preference_orders_by_quality_then_api_before_local_on_ties() -> None:
    assert preference({"local": 0.8, "jina": 0.2}, ["jina", "local"]) == ["local", "jina"]
    assert preference({"local": 0.5, "jina": 0.9}, ["jina", "local"]) == ["jina", "local"]
    # The same vectors under two names: equal to 3 decimals, the API model goes first.
    assert preference({"local": 0.70001, "jina": 0.69999}, ["local", "jina"]) == ["jina", "local"]
    # An unprobed channel (an old index) ranks last.
    assert preference({"local": 0.4}, ["jina", "local"]) == ["local", "jina"]


def test_probe_sample_is_seeded_and_bounded() -> None:
    assert probe_sample(5) == [0, 1, 2, 3, 4]
    big = probe_sample(10_000)
    assert len(big) == PROBE_TABLES == len(set(big))
    assert big == probe_sample(10_000) == sorted(big)
