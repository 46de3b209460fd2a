"""The question-side adapter: its fit, its file, and how the planner feeds it to the table features."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_CATALOG

from retriever.embedders.interface import HashEmbedder, normalize_rows
from retriever.index.build import build_index
from retriever.index.catalog import load_catalog
from retriever.index.store import load_index
from retriever.query.adapter import Adapter, adapt, fit_adapter, load, save
from retriever.query.channels import column_max, standardise
from retriever.query.planner import Models, Options, Planner
from retriever.query.relevance import table_features


def _databases(rng: np.random.Generator, n_db: int, dim: int, twist: np.ndarray
               ) -> list[tuple[np.ndarray, np.ndarray, list[list[int]]]]:
    """Databases of 6 tables whose questions point at their gold table only after `twist`: q @ twist ~ t."""
    out = []
    for _ in range(n_db):
        tables = normalize_rows(rng.normal(size=(6, dim)))
        gold = rng.integers(0, 6, size=12)
        q = tables[gold] @ np.linalg.inv(twist) + 0.3 * rng.normal(size=(12, dim))
        out.append((normalize_rows(q), tables, [[int(g)] for g in gold]))
    return out


def _gold_share(examples: list[tuple[np.ndarray, np.ndarray, list[list[int]]]], w: np.ndarray) -> float:
    hits = [int(np.argmax(tables @ adapt(w, q)) == g[0])
            for qs, tables, gold in examples for q, g in zip(qs, gold, strict=True)]
    return float(np.mean(hits))


def test_the_fitted_map_ranks_unseen_databases_gold_tables_higher() -> None:
    rng = np.random.default_rng(7)
    dim = 16
    twist = np.eye(dim) + 1.5 * rng.normal(size=(dim, dim)) / np.sqrt(dim)
    train, held = _databases(rng, 40, dim, twist), _databases(rng, 20, dim, twist)
    w = fit_adapter(train, l2=0.1)
    assert w.shape == (dim, dim) and w.dtype == np.float32
    assert _gold_share(held, w) > _gold_share(held, np.eye(dim)) + 0.3
    # The penalty holds the map to the identity.
    assert np.abs(fit_adapter(train, l2=100.0) - np.eye(dim)).max() < 0.01


def test_the_fit_is_deterministic() -> None:
    rng = np.random.default_rng(3)
    data = _databases(rng, 5, 8, np.eye(8))
    assert np.array_equal(fit_adapter(data), fit_adapter(data))


def test_saved_adapter_loads_back_and_a_changed_file_is_refused(tmp_path: Path) -> None:
    a = Adapter("local", "minilm-l6-v2", np.eye(4, dtype=np.float32) + 0.123456789)
    entry = save(a, tmp_path / "adapter.npy")
    got = load(entry, tmp_path)
    assert (got.channel, got.model) == ("local", "minilm-l6-v2")
    assert np.allclose(got.matrix, a.matrix, atol=1e-5)
    np.save(tmp_path / "adapter.npy", np.eye(4, dtype=np.float32))
    with pytest.raises(ValueError, match="digest"):
        load(entry, tmp_path)


def _planner(tmp_path: Path, model: str) -> tuple[Planner, HashEmbedder]:
    fake = HashEmbedder(dim=32, name="fake")
    build_index(load_catalog(MINI_CATALOG), tmp_path / "index", dense={"local": fake}, log=lambda _m: None)
    rng = np.random.default_rng(5)
    w = (np.eye(32) + 0.5 * rng.normal(size=(32, 32))).astype(np.float32)
    models = replace(Models.uniform(), adapter=Adapter("local", model, w))
    return Planner(load_index(tmp_path / "index"), models), fake


def test_the_adapted_cosines_reach_the_evidence(tmp_path: Path) -> None:
    planner, fake = _planner(tmp_path, "fake")
    question = "How many singers are older than 40?"
    q = fake.embed([question], "query")[0]
    ev = planner.evidence(question, {"local": q}, Options())
    a = planner.fitted.adapter
    assert a is not None
    t_vec, c_vec, _ = planner.index.dense["local"]
    want = adapt(a.matrix, q)
    got = ev.adapted()
    assert got is not None
    assert np.allclose(got[0], standardise(t_vec @ want), atol=1e-5)
    assert np.allclose(got[1], standardise(column_max(c_vec @ want, planner.layout)), atol=1e-5)
    # Without the embedding channel the adapter has nothing to map.
    lexical = planner.evidence(question, {"local": q}, Options(disabled_channels=frozenset({"dense:local"})))
    assert lexical.adapted() is None


def test_an_adapter_fitted_for_another_model_is_not_applied(tmp_path: Path) -> None:
    planner, fake = _planner(tmp_path, "minilm-l6-v2")
    question = "How many singers are older than 40?"
    vectors = {"local": fake.embed([question], "query")[0]}
    assert planner.adapted(vectors) == vectors
    assert planner.evidence(question, vectors, Options()).adapted() is None



def test_fit_attaches_what_serving_computes(tmp_path: Path) -> None:
    """fit.py adds the adapted cosines to cached evidence; serving gets them from the dense search."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from training.adapters import with_adapted

    planner, fake = _planner(tmp_path, "fake")
    a = planner.fitted.adapter
    assert a is not None
    plain = planner.with_models(Models.uniform())
    question = "List the names of the courses each student takes"
    q = fake.embed([question], "query")[0]
    trained = with_adapted(plain.evidence(question, {"local": q}, Options()), a.matrix, q, plain)
    served = planner.evidence(question, {"local": q}, Options())
    assert trained.adapted() is not None and served.adapted() is not None
    np.testing.assert_allclose(trained.adapted_z, served.adapted_z, atol=1e-5)
    members = planner.members[int(np.argmax(served.group_bm25))]
    np.testing.assert_allclose(table_features(trained, members, planner.shape),
                               table_features(served, members, planner.shape), atol=1e-5)


def test_the_adapter_learns_nothing_from_sets_the_folds_only_score(tmp_path: Path) -> None:
    """`fit.py --cv --eval-only NAME` (and the training-set ablations): the named set's questions give the
    adapter no examples, the other sets' all theirs."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from training.adapters import adapter_examples
    from training.sets import Question, TrainingSet

    planner, fake = _planner(tmp_path, "fake")
    group = 0
    tables = tuple(planner.members[group][:1])
    questions = ["How many singers are there?", "List every concert."]
    vectors = normalize_rows(fake.embed(questions, "query"))

    def one_set(name: str) -> TrainingSet:
        qs = [Question(name, f"{name}-{n}", q, "db", [], group, tables, None, None)  # type: ignore[arg-type]
              for n, q in enumerate(questions)]
        return TrainingSet(name, planner, qs, source="mini")

    written, copies = one_set("written"), one_set("copies")
    keep = {("mini", "db")}
    both = adapter_examples([written, copies], [vectors, vectors], keep)
    assert [len(qs) for qs, _, _ in both] == [2, 2]
    only = adapter_examples([written, copies], [vectors, vectors], keep, frozenset({"copies"}))
    assert len(only) == 1 and np.array_equal(only[0][0], vectors)
    assert adapter_examples([written, copies], [vectors, vectors], keep, frozenset({"written", "copies"})) == []
