"""JinaEmbedder / JinaMultiVector against the local fake: shapes, batching, retries, budgets, no key leaks."""

from __future__ import annotations

import logging
import socket
import traceback
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from fakejina import API_KEY, FakeJina, tokens, vector

from retriever.config import Settings
from retriever.embedders import jina
from retriever.embedders.jina import JinaEmbedder, JinaMultiVector
from retriever.errors import ConfigError, EmbeddingError

DIM = 32


@pytest.fixture
def fake() -> Iterator[FakeJina]:
    with FakeJina() as f:
        yield f


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Records the client's back-off waits instead of sleeping."""
    waits: list[float] = []
    monkeypatch.setattr(jina, "_sleep", waits.append)
    return waits


def settings(fake: FakeJina, **kw: Any) -> Settings:
    base = {"jina_api_key": API_KEY, "jina_api_base": fake.base_url, "jina_dense_dimensions": DIM}
    return replace(Settings(), **{**base, **kw})


def test_dense_sends_documented_request_and_orders_by_index(fake: FakeJina) -> None:
    emb = JinaEmbedder(settings(fake), budget_s=5)
    out = emb.embed(["alpha", "beta gamma", "delta"], "document")
    assert out.shape == (3, DIM) and out.dtype == np.float32
    for row, text in zip(out, ["alpha", "beta gamma", "delta"], strict=True):
        assert np.allclose(row, vector(text, DIM), atol=1e-6)
    (req,) = fake.requests
    assert req.path == "/v1/embeddings"
    assert req.body == {
        "model": "jina-embeddings-v3",
        "input": ["alpha", "beta gamma", "delta"],
        "task": "retrieval.passage",
        "dimensions": DIM,
        "normalized": True,
        "embedding_type": "float",
    }
    assert req.headers["Authorization"] == f"Bearer {API_KEY}"
    assert req.headers["Content-Type"] == "application/json"
    assert req.headers["Accept"] == "application/json"
    emb.embed(["q"], "query")
    assert fake.requests[-1].body["task"] == "retrieval.query"
    assert emb.dim == DIM and "jina-embeddings-v3" in emb.name


def test_multi_vector_one_normalised_row_per_token(fake: FakeJina) -> None:
    emb = JinaMultiVector(settings(fake), budget_s=5)
    long_query = " ".join(f"w{i}" for i in range(40))
    out = emb.embed_multi(["red green blue", long_query], "query")
    assert [m.shape for m in out] == [(3, 128), (32, 128)]
    assert np.allclose(np.linalg.norm(out[0], axis=1), 1.0, atol=1e-5)
    assert np.allclose(out[0][1], vector("green", 128, "multi"), atol=1e-6)
    body = fake.requests[-1].body
    assert (body["model"], body["input_type"], body["dimensions"]) == ("jina-colbert-v2", "query", 128)
    assert body["embedding_type"] == "float"
    docs = emb.embed_multi([long_query], "document")
    assert docs[0].shape == (len(tokens(long_query, "document")), 128)


def test_batches_and_deduplicates(fake: FakeJina) -> None:
    emb = JinaEmbedder(settings(fake, jina_batch_size=2), budget_s=5)
    texts = ["a", "b", "a", "c", "d", "e", "b"]
    out = emb.embed(texts, "document")
    assert fake.inputs() == [["a", "b"], ["c", "d"], ["e"]]
    assert out.shape == (7, DIM)
    assert np.array_equal(out[0], out[2]) and np.array_equal(out[1], out[6])


def test_empty_input_makes_no_request(fake: FakeJina) -> None:
    assert JinaEmbedder(settings(fake), budget_s=5).embed([], "query").shape == (0, DIM)
    assert JinaMultiVector(settings(fake), budget_s=5).embed_multi([], "query") == []
    assert fake.requests == []


@pytest.mark.parametrize(
    "kw", [{"jina_dense_model": "text-embedding-3-large"}, {"jina_multi_model": "jina-colbert-v1-en"}]
)
def test_models_outside_allowlist_are_refused_before_any_request(fake: FakeJina, kw: dict[str, str]) -> None:
    cls = JinaEmbedder if "jina_dense_model" in kw else JinaMultiVector
    with pytest.raises(ConfigError, match="not allowed"):
        cls(settings(fake, **kw), budget_s=5)
    assert fake.requests == []


def test_missing_key_is_a_config_error(fake: FakeJina) -> None:
    with pytest.raises(ConfigError, match="JINA_API_KEY"):
        JinaEmbedder(settings(fake, jina_api_key=None), budget_s=5)


def test_wrong_key_is_401_without_retry(fake: FakeJina, sleeps: list[float]) -> None:
    emb = JinaEmbedder(settings(fake, jina_api_key="jina_wrong_key_000"), budget_s=5)
    with pytest.raises(EmbeddingError, match="401.*AUTH_INVALID_API_KEY") as exc:
        emb.embed(["x"], "query")
    assert "jina_wrong_key_000" not in str(exc.value)
    assert len(fake.requests) == 1 and sleeps == []


@pytest.mark.parametrize("status", [400, 401, 402, 403, 422])
def test_client_errors_are_not_retried(fake: FakeJina, sleeps: list[float], status: int) -> None:
    fake.fail("status", status=status, message="AUTHZ_INSUFFICIENT_BALANCE or similar")
    with pytest.raises(EmbeddingError, match=f"HTTP {status}: AUTHZ_INSUFFICIENT_BALANCE"):
        JinaEmbedder(settings(fake), budget_s=5).embed(["x"], "query")
    assert len(fake.requests) == 1 and sleeps == []


def test_429_honours_retry_after_then_succeeds(fake: FakeJina, sleeps: list[float]) -> None:
    fake.fail("status", status=429, times=2, retry_after="1.5")
    out = JinaEmbedder(settings(fake), budget_s=10).embed(["x"], "query")
    assert out.shape == (1, DIM)
    assert len(fake.requests) == 3 and sleeps == [1.5, 1.5]


def test_retry_after_beyond_budget_gives_up_at_once(fake: FakeJina, sleeps: list[float]) -> None:
    fake.fail("status", status=429, retry_after="60")
    with pytest.raises(EmbeddingError, match="429.*exceed"):
        JinaEmbedder(settings(fake), budget_s=3).embed(["x"], "query")
    assert len(fake.requests) == 1 and sleeps == []


def test_5xx_retries_with_exponential_backoff(fake: FakeJina, sleeps: list[float]) -> None:
    fake.fail("status", status=500, times=2)
    out = JinaMultiVector(settings(fake), budget_s=10, backoff_s=0.1).embed_multi(["x y"], "document")
    assert out[0].shape == (2, 128)
    assert len(fake.requests) == 3 and sleeps == pytest.approx([0.1, 0.2])


def test_retries_are_bounded(fake: FakeJina, sleeps: list[float]) -> None:
    fake.fail("status", status=503)
    with pytest.raises(EmbeddingError, match="503.*gave up after 3 attempt"):
        JinaEmbedder(settings(fake, jina_max_retries=2), budget_s=60).embed(["x"], "query")
    assert len(fake.requests) == 3 and len(sleeps) == 2


def test_delay_beyond_budget_raises_instead_of_hanging(fake: FakeJina) -> None:
    fake.fail("delay", delay_s=30)  # the fake would answer correctly after 30 s
    with pytest.raises(EmbeddingError, match="timed out"):
        JinaEmbedder(settings(fake, jina_timeout_s=2.5), budget_s=0.3).embed(["x"], "query")
    assert len(fake.requests) >= 1


def test_a_timed_out_request_is_retried(fake: FakeJina, sleeps: list[float]) -> None:
    fake.fail("delay", times=1, delay_s=30)
    out = JinaEmbedder(settings(fake, jina_timeout_s=1.0), budget_s=30).embed(["x"], "query")
    # The first request times out and is retried; on a loaded machine a retry may time out too, so the test
    # asks for at least one retry and one back-off per retry, not an exact count.
    assert out.shape == (1, DIM) and len(fake.requests) >= 2 and len(sleeps) == len(fake.requests) - 1


def test_connection_errors_are_retried_then_reported(sleeps: list[float]) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    dead = replace(Settings(), jina_api_key=API_KEY, jina_api_base=base, jina_max_retries=2)
    with pytest.raises(EmbeddingError, match="connection failed"):
        JinaEmbedder(dead, budget_s=30).embed(["x"], "query")
    assert len(sleeps) == 2


@pytest.mark.parametrize(
    ("mode", "match"),
    [
        ("malformed", "not valid JSON"),
        ("wrong_dim", "dimensional"),
        ("short", "results for"),
        ("nan", "non-finite"),
    ],
)
@pytest.mark.parametrize("multi", [False, True])
def test_bad_responses_are_errors_not_garbage(
    fake: FakeJina, sleeps: list[float], mode: str, match: str, multi: bool
) -> None:
    fake.fail(mode)
    with pytest.raises(EmbeddingError, match=match):
        if multi:
            JinaMultiVector(settings(fake), budget_s=5).embed_multi(["a b", "c"], "document")
        else:
            JinaEmbedder(settings(fake), budget_s=5).embed(["a", "b"], "document")
    assert len(fake.requests) == 1


def test_key_never_leaks(
    fake: FakeJina, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    emb = JinaEmbedder(settings(fake, jina_timeout_s=0.2, jina_max_retries=1), budget_s=5, backoff_s=0.01)
    errors: list[BaseException] = []
    scenarios: list[tuple[str, dict[str, Any]]] = [
        ("status", {"status": 401, "message": f"key {API_KEY} is invalid"}),  # a server echoing the key
        ("status", {"status": 500, "message": f"boom for {API_KEY}"}),
        ("delay", {"delay_s": 30}),
        ("malformed", {}),
    ]
    for kind, kw in scenarios:
        fake.fail(kind, **kw)
        with pytest.raises(EmbeddingError) as exc:
            emb.embed(["x"], "query")
        errors.append(exc.value)
    closed = replace(settings(fake), jina_api_base="http://127.0.0.1:9", jina_max_retries=0)
    with pytest.raises(EmbeddingError) as exc:
        JinaEmbedder(closed, budget_s=2).embed(["x"], "query")
    errors.append(exc.value)
    assert "<redacted>" in str(errors[0])
    for err in errors:
        text = str(err) + repr(err) + "".join(traceback.format_exception(err))
        assert API_KEY not in text
    out, err_out = capsys.readouterr()
    assert API_KEY not in caplog.text + out + err_out
    assert any("retrying" in r.getMessage() for r in caplog.records)
    assert API_KEY not in repr(emb) + str(emb) + repr(settings(fake))
