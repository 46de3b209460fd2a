"""A local stand-in for the Jina API on 127.0.0.1: documented shapes, deterministic vectors, failure modes.

Why: retries, budgets and response validation must be tested without the network or a real key.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

#: The only key the fake accepts; distinctive so leak checks cannot match by accident.
API_KEY = "jina_FAKE_SECRET_KEY_7f3a9c0d5e1b"
FAILURE_KINDS = ("status", "delay", "malformed", "wrong_dim", "short", "nan")
QUERY_TOKEN_CAP = 32


def vector(text: str, dim: int, salt: str = "dense") -> np.ndarray:
    """Deterministic unit vector for a text (seeded from its sha256)."""
    seed = int.from_bytes(hashlib.sha256(f"{salt}\x00{text}".encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim)
    return v / np.linalg.norm(v)


def tokens(text: str, input_type: str) -> list[str]:
    """What the fake treats as tokens: whitespace words, queries capped at 32."""
    words = text.split() or [text]
    return words[:QUERY_TOKEN_CAP] if input_type == "query" else words


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it was not JSON


@dataclass
class Failure:
    kind: str
    times: int | None  # None: forever
    status: int
    retry_after: str | None
    delay_s: float
    message: str


class FakeJina:
    """Context manager: `with FakeJina() as fake: fake.base_url ...`; `fake.requests` records every call."""

    def __init__(self, api_key: str = API_KEY, dense: Callable[[list[str]], np.ndarray] | None = None,
                 multi: bool = True) -> None:
        """`dense` computes the embeddings' vectors instead of the per-text noise (a real model served as
        Jina); `multi=False` answers the multi-vector endpoint with 404 (no late-interaction channel)."""
        self.api_key = api_key
        self.dense = dense
        self.multi = multi
        self.requests: list[Recorded] = []
        self.base_url = ""
        self._failure: Failure | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def fail(
        self,
        kind: str,
        *,
        times: int | None = None,
        status: int = 500,
        retry_after: str | None = None,
        delay_s: float = 30.0,
        message: str = "simulated failure",
    ) -> None:
        """Misbehave on the next `times` requests (all of them when None), then answer normally."""
        if kind not in FAILURE_KINDS:
            raise ValueError(kind)
        with self._lock:
            self._failure = Failure(kind, times, status, retry_after, delay_s, message)

    def inputs(self) -> list[list[str]]:
        """The `input` list of every recorded request, in order."""
        return [r.body["input"] for r in self.requests if isinstance(r.body, dict)]

    def __enter__(self) -> FakeJina:
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()  # wakes handlers stuck in a delay
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def _take_failure(self) -> Failure | None:
        with self._lock:
            f = self._failure
            if f is None or f.times == 0:
                return None
            if f.times is not None:
                f.times -= 1
            return f

    def respond(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, str], bytes]:
        """Status, extra headers and body for one request."""
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(Recorded(path, headers, body))
        if headers.get("Authorization") != f"Bearer {self.api_key}":
            return _json(401, {"detail": "AUTH_INVALID_API_KEY: invalid or missing API key"})
        if path not in ("/v1/embeddings", "/v1/multi-vector") or (path == "/v1/multi-vector" and not self.multi):
            return _json(404, {"detail": "Not Found"})
        if not isinstance(body, dict) or not isinstance(body.get("input"), list):
            return _json(422, {"error": {"message": "body must be JSON with an 'input' list"}})
        f = self._take_failure()
        if f is not None and f.kind == "status":
            extra = {"Retry-After": f.retry_after} if f.retry_after is not None else {}
            payload = {"error": {"message": f.message}} if f.status == 422 else {"detail": f.message}
            status, _, out = _json(f.status, payload)
            return status, extra, out
        if f is not None and f.kind == "delay" and self._stop.wait(f.delay_s):
            return _json(503, {"detail": "shutting down"})
        if f is not None and f.kind == "malformed":
            return 200, {}, b'{"model": "x", "data": [{"index": 0, "embedding": [0.1, '
        data = self._data(path, body, f.kind if f is not None else "")
        return _json(200, {"model": body.get("model"), "data": data, "usage": {"total_tokens": 1}})

    def _data(self, path: str, body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
        dim = int(body.get("dimensions") or (1024 if path == "/v1/embeddings" else 128))
        dim = dim - 1 if kind == "wrong_dim" else dim
        out: list[dict[str, Any]] = []
        served = self.dense(list(body["input"])) if self.dense is not None and path == "/v1/embeddings" else None
        for i, text in enumerate(body["input"]):
            if path == "/v1/embeddings":
                v = served[i] if served is not None else vector(text, dim)
                item: dict[str, Any] = {"index": i, "embedding": [float(x) for x in v]}
            else:
                toks = tokens(text, str(body.get("input_type")))
                item = {"index": i, "embeddings": [vector(t, dim, "multi").tolist() for t in toks]}
            out.append(item)
        if kind == "nan" and out:
            key = "embedding" if path == "/v1/embeddings" else "embeddings"
            first = out[0][key]
            (first[0] if key == "embeddings" else first)[0] = float("nan")
        if kind == "short":
            out = out[:-1]
        return out[::-1]  # reversed on purpose: clients must order by `index`


def _json(status: int, payload: Any) -> tuple[int, dict[str, str], bytes]:
    return status, {}, json.dumps(payload).encode("utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that gave up (timeouts) leave broken pipes behind; they are expected here."""


def _handler_for(fake: FakeJina) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, extra, out = fake.respond(self.path, dict(self.headers.items()), raw)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(out)
            except OSError:
                pass  # the client went away

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature from the base
            """Silent: test output stays clean."""

    return Handler
