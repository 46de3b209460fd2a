"""Jina API embedders (dense and multi-vector) that always finish within a time budget.

Why: the API is the slowest, least reliable part of a question. Every call ends -- with vectors or with
EmbeddingError -- inside its budget, so callers can fall back to the other channels in time, and no
message, repr or log line ever carries the API key.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
import requests
import urllib3
from urllib3.util import Timeout

from ..config import ALLOWED_DENSE_MODELS, ALLOWED_MULTI_MODELS, Settings
from ..errors import ConfigError, EmbeddingError
from .interface import Kind, normalize_rows

log = logging.getLogger(__name__)

_TASKS: dict[str, str] = {"query": "retrieval.query", "document": "retrieval.passage"}
_BACKOFF_CAP_S = 8.0
_T = TypeVar("_T")

#: Indirection so tests can observe the waits without sleeping.
_sleep: Callable[[float], None] = time.sleep


class _JinaClient:
    """Shared plumbing: one deadline per call, batching, bounded retries, key-free error messages."""

    def __init__(
        self,
        settings: Settings,
        budget_s: float,
        *,
        session: requests.Session | None = None,
        backoff_s: float = 0.25,
    ) -> None:
        model, allowed, self.dim = self._pick(settings)
        if model not in allowed:
            raise ConfigError(f"Jina model {model!r} is not allowed; use one of {', '.join(allowed)}")
        if not settings.jina_api_key:
            raise ConfigError("JINA_API_KEY is not set")
        if not settings.jina_api_base.startswith(("http://", "https://")):
            raise ConfigError(f"JINA_API_BASE={settings.jina_api_base!r} must start with http:// or https://")
        if not budget_s > 0:
            raise ConfigError(f"API time budget must be positive, got {budget_s}")
        self._model = model
        self._key = settings.jina_api_key
        self._base = settings.jina_api_base.rstrip("/")
        self._timeout_s = settings.jina_timeout_s
        self._batch = max(1, settings.jina_batch_size)
        self._retries = max(0, settings.jina_max_retries)
        self._budget_s = budget_s
        self._backoff_s = backoff_s
        self._session = session if session is not None else requests.Session()
        self.name = f"jina/{model}/{self.dim}"

    def _pick(self, settings: Settings) -> tuple[str, tuple[str, ...], int]:
        raise NotImplementedError

    def __repr__(self) -> str:  # never the key
        return f"{type(self).__name__}(name={self.name!r}, base={self._base!r}, budget_s={self._budget_s})"

    def close(self) -> None:
        self._session.close()

    def _body(self, chunk: list[str], **extra: object) -> dict[str, object]:
        """A request body: what both endpoints take, plus the endpoint's own fields."""
        return {"model": self._model, "input": chunk, "dimensions": self.dim, "embedding_type": "float", **extra}

    def _run_batches(self, texts: Sequence[str], call: Callable[[list[str], float], list[_T]]) -> list[_T]:
        """De-duplicate, send in batches under one shared deadline, and map results back to input order."""
        deadline = time.monotonic() + self._budget_s
        unique = list(dict.fromkeys(texts))
        got: dict[str, _T] = {}
        for start in range(0, len(unique), self._batch):
            chunk = unique[start : start + self._batch]
            got.update(zip(chunk, call(chunk, deadline), strict=True))
        return [got[t] for t in texts]

    def _post(self, path: str, body: dict[str, Any], deadline: float) -> Any:
        """POST with retries on 408/429/5xx/network errors; returns the parsed JSON of a 200 response."""
        problem = f"Jina {path}: time budget of {self._budget_s:g}s exhausted"
        attempts, made = self._retries + 1, 0
        for attempt in range(attempts):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            made += 1
            status, doc, retry_after, problem = self._send(path, body, remaining, deadline)
            if status == 200:
                return doc
            if status is not None and status != 408 and status != 429 and status < 500:
                raise EmbeddingError(problem)
            if attempt + 1 == attempts:
                break
            backoff = min(_BACKOFF_CAP_S, self._backoff_s * 2**attempt)
            wait = retry_after if retry_after is not None else backoff
            if wait >= deadline - time.monotonic():
                raise EmbeddingError(
                    f"{problem}; retry in {wait:g}s would exceed the {self._budget_s:g}s budget"
                )
            log.warning("%s; retrying in %.2fs (attempt %d of %d)", problem, wait, attempt + 2, attempts)
            _sleep(wait)
        raise EmbeddingError(f"{problem} (gave up after {made} attempt(s), budget {self._budget_s:g}s)")

    def _send(
        self, path: str, body: dict[str, Any], remaining: float, deadline: float
    ) -> tuple[int | None, Any, float | None, str]:
        """One request: (status or None on network failure, JSON if 200, Retry-After, problem text)."""
        headers = {
            "Authorization": f"Bearer {self._key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        # requests passes a urllib3 Timeout through unchanged; `total` caps connect + first byte together.
        timeout = Timeout(total=min(self._timeout_s, remaining))
        failure = ""
        try:
            resp = self._session.post(
                self._base + path,
                data=json.dumps(body),
                headers=headers,
                timeout=timeout,  # type: ignore[arg-type]
                stream=True,
            )
            try:
                chunks = []
                for chunk in resp.iter_content(65536):
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise requests.Timeout("deadline passed while reading the body")
                raw = b"".join(chunks)
            finally:
                resp.close()
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
            # Our own text only: requests' exceptions hold the prepared request, headers included.
            timed_out = isinstance(exc, (requests.Timeout, TimeoutError)) or "timed out" in str(exc)
            failure = "timed out" if timed_out else f"connection failed ({type(exc).__name__})"
        if failure:  # raised outside the except block so no exception context is chained
            return None, None, None, f"Jina {path}: request {failure}"
        status = resp.status_code
        if status != 200:
            problem = f"Jina {path}: HTTP {status}: {_server_message(raw, self._key)}"
            return status, None, _retry_after(resp.headers.get("Retry-After")), problem
        try:
            return 200, json.loads(raw), None, ""
        except ValueError:
            raise EmbeddingError(f"Jina {path}: response is not valid JSON") from None

    def _items(self, doc: Any, n: int, path: str) -> list[dict[str, Any]]:
        """The `data` list checked for size and put in `index` order."""
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise EmbeddingError(f"Jina {path}: response has no usable 'data' list")
        if len(data) != n:
            raise EmbeddingError(f"Jina {path}: got {len(data)} results for {n} inputs")
        indices = [d.get("index") for d in data]
        if all(i is None for i in indices):
            return data
        if sorted(i for i in indices if isinstance(i, int)) != list(range(n)):
            raise EmbeddingError(f"Jina {path}: result indices are not a permutation of 0..{n - 1}")
        return sorted(data, key=lambda d: int(d["index"]))


class JinaEmbedder(_JinaClient):
    """Dense embeddings from POST /v1/embeddings (model, dims and retries from Settings)."""

    def _pick(self, settings: Settings) -> tuple[str, tuple[str, ...], int]:
        return settings.jina_dense_model, ALLOWED_DENSE_MODELS, settings.jina_dense_dimensions

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        task = _TASKS[kind]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)

        def call(chunk: list[str], deadline: float) -> list[np.ndarray]:
            body = self._body(chunk, task=task, normalized=True)
            path = "/v1/embeddings"
            items = self._items(self._post(path, body, deadline), len(chunk), path)
            return list(_checked([d.get("embedding") for d in items], self.dim, path, "embedding"))

        rows: list[np.ndarray] = self._run_batches(texts, call)
        return np.stack(rows)


class JinaMultiVector(_JinaClient):
    """Late-interaction token vectors from POST /v1/multi-vector (jina-colbert-v2)."""

    def _pick(self, settings: Settings) -> tuple[str, tuple[str, ...], int]:
        return settings.jina_multi_model, ALLOWED_MULTI_MODELS, settings.jina_multi_dimensions

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]:
        if kind not in _TASKS:
            raise KeyError(kind)
        if not texts:
            return []

        def call(chunk: list[str], deadline: float) -> list[np.ndarray]:
            body = self._body(chunk, input_type=kind)
            path = "/v1/multi-vector"
            items = self._items(self._post(path, body, deadline), len(chunk), path)
            return [_checked(d.get("embeddings"), self.dim, path, "embeddings") for d in items]

        return self._run_batches(texts, call)


def _checked(rows: Any, dim: int, path: str, field: str) -> np.ndarray:
    """A non-empty (n, dim) matrix of finite, non-zero numbers, rows normalised; anything else is an error."""
    try:
        m = np.asarray(rows)
    except (ValueError, TypeError):
        m = np.zeros((0,))
    if m.ndim != 2 or m.dtype.kind not in "iuf" or m.shape[0] == 0 or m.shape[1] != dim:
        raise EmbeddingError(f"Jina {path}: '{field}' is not a list of {dim}-dimensional float vectors")
    m32 = m.astype(np.float32)
    if not np.isfinite(m32).all():
        raise EmbeddingError(f"Jina {path}: '{field}' contains non-finite values")
    if not (np.linalg.norm(m32, axis=1) > 0).all():
        raise EmbeddingError(f"Jina {path}: '{field}' contains a zero vector")
    return normalize_rows(m32)


def _server_message(raw: bytes, key: str) -> str:
    """The server's error text ({"detail": ...} or {"error": {"message": ...}}), key redacted, shortened."""
    text = raw.decode("utf-8", "replace")
    try:
        doc = json.loads(raw)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        err, detail = doc.get("error"), doc.get("detail")
        if isinstance(err, dict) and err.get("message"):
            text = str(err["message"])
        elif detail is not None:
            text = detail if isinstance(detail, str) else json.dumps(detail)
        elif doc.get("message"):
            text = str(doc["message"])
    text = " ".join(text.replace(key, "<redacted>").split())
    return (text[:300] + "...") if len(text) > 300 else (text or "no message")


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (delta or HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        secs = float(value)
    except ValueError:
        try:
            secs = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError):
            return None
    return max(0.0, secs) if math.isfinite(secs) else None
