"""Training uses the serving code: the same candidate plans and features, and weights that load and serve."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_DIR, ROOT

from retriever.config import Settings
from retriever.index.store import load_index
from retriever.query.planner import Options, Planner, default_models

sys.path.insert(0, str(ROOT / "scripts"))
import fit  # noqa: E402


@pytest.fixture(scope="module")
def mini_set(mini_index_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> fit.TrainingSet:
    settings = Settings(local_model=False, cache_dir=tmp_path_factory.mktemp("cache"))
    spec = f"mini={mini_index_dir},{MINI_DIR / 'queries.jsonl'},{MINI_DIR / 'labels.jsonl'}"
    return fit.load_set(spec, settings, Options(), 1, None)


def test_training_rows_are_what_serving_scores(mini_set: fit.TrainingSet) -> None:
    data, found, total = fit.samples([mini_set])
    assert total == len(mini_set.questions) == 15
    assert found == len(data["plan"]) >= 12
    rows = iter(data["plan"])
    for q in mini_set.questions:
        served, _ = mini_set.planner.group_plans(q.ev, q.group, Options())
        gold = [i for i, p in enumerate(served) if p.tables == q.tables]
        if not gold:
            continue
        feats, label = next(rows)
        _, serving_feats = mini_set.planner.plan_matrix(q.ev, q.group)
        assert label == gold[0]
        np.testing.assert_array_equal(feats, serving_feats)


def test_fitted_weights_load_and_give_a_confidence(mini_index_dir: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETRIEVER_LOCAL_MODEL", "0")
    monkeypatch.setenv("RETRIEVER_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "weights.json"
    spec = f"mini={mini_index_dir},{MINI_DIR / 'queries.jsonl'},{MINI_DIR / 'labels.jsonl'}"
    assert fit.main(["--set", spec, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["fitted_on"] == {"mini": 15} and data["code"] == fit.code_digest()
    planner = Planner(load_index(mini_index_dir), default_models(out))
    assert planner.fitted.confidence is not None
    ans = planner.answer("How many singers are there?")
    assert 0.0 < ans.confidence < 1.0

