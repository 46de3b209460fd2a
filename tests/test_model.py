"""The conditional-logit model by hand: logits, probabilities, knock-outs, the weights file, the fit."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from retriever.query.model import WEIGHTS_VERSION, SoftmaxModel, fit_softmax, read_weights

# Two features, standardised with mean (1, 0) and scale (2, 1), weights (1, -1).
MODEL = SoftmaxModel(("f", "g"), np.asarray([1.0, -1.0]), np.asarray([1.0, 0.0]), np.asarray([2.0, 1.0]))
X = np.asarray([[3.0, 0.0], [1.0, 1.0], [1.0, 0.0]])  # z = (1, 0), (0, 1), (0, 0) -> logits 1, -1, 0


def test_logits_standardise_then_weigh() -> None:
    np.testing.assert_allclose(MODEL.logits(X), [1.0, -1.0, 0.0])


def test_probs_are_the_softmax_of_the_logits() -> None:
    e = [math.e, 1 / math.e, 1.0]
    np.testing.assert_allclose(MODEL.probs(X), [v / sum(e) for v in e], rtol=1e-12)
    # Shifting every logit (a huge common feature) changes nothing and does not overflow.
    big = SoftmaxModel(("f", "g"), np.asarray([1.0, 1e6]), MODEL.mean, MODEL.scale)
    x = np.asarray([[3.0, 5.0], [1.0, 5.0]])  # logits 1 + 5e6 and 5e6
    np.testing.assert_allclose(big.probs(x), [math.e / (1 + math.e), 1 / (1 + math.e)])


def test_a_disabled_feature_has_weight_zero() -> None:
    np.testing.assert_allclose(MODEL.logits(X, frozenset({"g"})), [1.0, 0.0, 0.0])
    assert MODEL.probs(X, frozenset({"f", "g"})).tolist() == pytest.approx([1 / 3] * 3)


def test_uniform_model_gives_equal_probabilities() -> None:
    assert SoftmaxModel.uniform(("f", "g")).probs(X).tolist() == pytest.approx([1 / 3] * 3)


def test_json_round_trip_and_a_feature_list_mismatch() -> None:
    again = SoftmaxModel.from_json(MODEL.to_json(), ("f", "g"))
    np.testing.assert_array_equal(again.weights, MODEL.weights)
    np.testing.assert_array_equal(again.mean, MODEL.mean)
    np.testing.assert_array_equal(again.scale, MODEL.scale)
    with pytest.raises(ValueError, match="run make fit"):
        SoftmaxModel.from_json(MODEL.to_json(), ("g", "f"))


def test_read_weights_checks_the_version(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"version": WEIGHTS_VERSION, "models": {"group": MODEL.to_json()}}))
    assert read_weights(path)["models"] == {"group": MODEL.to_json()}
    path.write_text(json.dumps({"version": WEIGHTS_VERSION + 1, "models": {}}))
    with pytest.raises(ValueError, match="version"):
        read_weights(path)


def test_fit_learns_the_sign_and_the_standardisation() -> None:
    # Each question: three candidates, the gold one has the largest first feature; the second is noise.
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(60):
        x = rng.normal(size=(3, 2))
        samples.append((x, int(np.argmax(x[:, 0]))))
    m = fit_softmax(samples, ("signal", "noise"))
    allx = np.concatenate([x for x, _ in samples])
    np.testing.assert_allclose(m.mean, allx.mean(axis=0))
    np.testing.assert_allclose(m.scale, allx.std(axis=0))
    assert m.weights[0] > 3.0 and abs(m.weights[1]) < 1.0
    assert np.mean([np.argmax(m.probs(x)) == g for x, g in samples]) == 1.0
