"""Content-addressed embedding cache on diskcache that degrades to memory instead of failing.

Why: the API costs time and money, so a rebuild or a replayed question must not pay twice; and a broken
cache must never break retrieval, so every disk problem falls back to an in-memory dict. Entries are raw
float32 bytes behind a small header (never pickles), and anything unreadable is simply a miss.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import math
import os
import queue
import sqlite3
import struct
import threading
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import diskcache
import numpy as np

from ..errors import EmbeddingError
from .interface import Embedder, Kind, MultiVectorEmbedder

log = logging.getLogger(__name__)

#: Recorded by diskcache; with eviction_policy "none" nothing is ever evicted.
DEFAULT_SIZE_LIMIT = 16 * 2**30
_MAGIC = b"RVEC1"
_DTYPE = np.dtype("<f4")
_DISK_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)


def normalize_text(text: str) -> str:
    """NFC with whitespace collapsed and stripped, so trivially different spellings share one entry."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def cache_key(model: str, kind: str, dim: int, text: str, *, multi: bool = False) -> str:
    """sha256 hex of (layout, model, kind, dimensions, normalised text); plain str keys pickle identically."""
    parts = ["multi" if multi else "dense", model, kind, dim, normalize_text(text)]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()


def encode_array(a: np.ndarray) -> bytes:
    """Header (magic, dtype, ndim, shape) followed by little-endian float32 data."""
    a = np.ascontiguousarray(a, dtype=_DTYPE)
    dtype = _DTYPE.str.encode("ascii")
    head = _MAGIC + struct.pack("<B", len(dtype)) + dtype + struct.pack(f"<B{a.ndim}I", a.ndim, *a.shape)
    return head + a.tobytes()


def decode_array(data: object, ndim: int, dim: int) -> np.ndarray | None:
    """The stored array if it is well-formed, float32, `ndim`-dimensional with last axis `dim`; else None."""
    if not isinstance(data, bytes) or not data.startswith(_MAGIC):
        return None
    try:
        off = len(_MAGIC)
        (n,) = struct.unpack_from("<B", data, off)
        dtype = data[off + 1 : off + 1 + n]
        off += 1 + n
        (nd,) = struct.unpack_from("<B", data, off)
        shape = struct.unpack_from(f"<{nd}I", data, off + 1)
        off += 1 + 4 * nd
    except struct.error:
        return None
    if dtype != _DTYPE.str.encode("ascii") or nd != ndim or shape[-1] != dim or 0 in shape:
        return None
    if len(data) - off != _DTYPE.itemsize * math.prod(shape):
        return None
    a = np.frombuffer(data, dtype=_DTYPE, offset=off).reshape(shape).astype(np.float32)
    return a if np.isfinite(a).all() else None


class _BytesDisk(diskcache.Disk):
    """Refuses to unpickle anything found on disk: a pickled value is treated as a miss."""

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == diskcache.core.MODE_PICKLE:
            return None
        return super().fetch(mode, filename, value, read)


class EmbeddingCache:
    """Vectors keyed by cache_key(); `.persistent` is False when only the in-memory dict is in use.

    With `write_behind` a thread writes new entries to disk while the caller goes on: a serving process
    answers before its SQLite write (whose WAL checkpoints now and then take tens of ms) and the entry is
    readable from memory meanwhile. Pending writes are drained at close or interpreter exit.
    """

    def __init__(self, directory: Path | None, *, size_limit: int = DEFAULT_SIZE_LIMIT,
                 write_behind: bool = False) -> None:
        self.directory = directory
        self._memory: dict[str, bytes] = {}
        self._disk: diskcache.Cache | None = None
        self._pending: queue.Queue[tuple[str, bytes] | None] | None = None
        self._writer: threading.Thread | None = None
        if directory is not None:
            try:
                directory.mkdir(parents=True, exist_ok=True)
                if not os.access(directory, os.W_OK | os.X_OK):
                    raise PermissionError("cache directory is not writable")
                self._disk = diskcache.Cache(
                    str(directory), eviction_policy="none", size_limit=size_limit, disk=_BytesDisk, timeout=10
                )
            except (*_DISK_ERRORS, ValueError) as exc:
                log.warning("embedding cache %s unusable (%s); keeping vectors in memory", directory, exc)
        self.persistent = self._disk is not None
        if write_behind and self._disk is not None:
            self._pending = queue.Queue()
            self._writer = threading.Thread(target=self._drain, name="embedding-cache-writer", daemon=True)
            self._writer.start()
            atexit.register(self.close)

    def get(self, model: str, kind: str, dim: int, text: str) -> np.ndarray | None:
        return decode_array(self.get_raw(cache_key(model, kind, dim, text)), 1, dim)

    def put(self, model: str, kind: str, dim: int, text: str, vector: np.ndarray) -> None:
        _require(vector, 1, dim)
        self.put_raw(cache_key(model, kind, dim, text), encode_array(vector))

    def get_multi(self, model: str, kind: str, dim: int, text: str) -> np.ndarray | None:
        return decode_array(self.get_raw(cache_key(model, kind, dim, text, multi=True)), 2, dim)

    def put_multi(self, model: str, kind: str, dim: int, text: str, matrix: np.ndarray) -> None:
        _require(matrix, 2, dim)
        self.put_raw(cache_key(model, kind, dim, text, multi=True), encode_array(matrix))

    def get_raw(self, key: str) -> object:
        """Stored bytes (or whatever is there) for a key; None when absent or unreadable."""
        if key in self._memory:
            return self._memory[key]
        if self._disk is None:
            return None
        try:
            return self._disk.get(key)
        except _DISK_ERRORS:
            return None

    def put_raw(self, key: str, data: bytes) -> None:
        """Write bytes; a failing disk (read-only, full) switches this cache to memory for good."""
        if self._pending is not None and self.persistent:
            self._memory[key] = data  # readable until the writer has it on disk
            self._pending.put((key, data))
        elif not self._write(key, data):
            self._memory[key] = data

    def _write(self, key: str, data: bytes) -> bool:
        if self._disk is None or not self.persistent:
            return False
        try:
            self._disk.set(key, data)
            return True
        except _DISK_ERRORS as exc:
            log.warning("embedding cache write failed (%s); keeping new vectors in memory", exc)
            self.persistent = False
            return False

    def _drain(self) -> None:
        assert self._pending is not None
        while (item := self._pending.get()) is not None:
            try:
                if self._write(*item):
                    self._memory.pop(item[0], None)
            except Exception as exc:  # noqa: BLE001 - the entry stays in memory; the writer must live on
                log.warning("embedding cache writer: %s", exc)

    def close(self) -> None:
        if self._writer is not None and self._pending is not None:
            self._pending.put(None)
            self._writer.join()
            self._writer = None
        if self._disk is not None:
            with contextlib.suppress(*_DISK_ERRORS):
                self._disk.close()
            self._disk = None

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _require(a: np.ndarray, ndim: int, dim: int) -> None:
    if a.ndim != ndim or a.shape[-1] != dim or a.shape[0] == 0 or not np.isfinite(a).all():
        raise ValueError(f"refusing to cache an array of shape {a.shape} (want {ndim}-d, last axis {dim})")


class _Counted:
    """Shared lookup/compute/store logic; counts unique (normalised) texts per call."""

    def __init__(self, name: str, dim: int, cache: EmbeddingCache, offline: bool) -> None:
        self.name, self.dim, self.cache, self.offline = name, dim, cache, offline
        self.hits = 0
        self.misses = 0

    def _through(
        self,
        texts: Sequence[str],
        lookup: Callable[[str], np.ndarray | None],
        compute: Callable[[list[str]], list[np.ndarray]],
        store: Callable[[str, np.ndarray], None],
    ) -> list[np.ndarray]:
        norms = [normalize_text(t) for t in texts]
        got: dict[str, np.ndarray] = {}
        todo: dict[str, str] = {}  # normalised -> first raw spelling, in input order
        for norm, raw in zip(norms, texts, strict=True):
            if norm in got or norm in todo:
                continue
            hit = lookup(raw)
            if hit is None:
                todo[norm] = raw
            else:
                got[norm] = hit
        self.hits += len(got)
        self.misses += len(todo)
        if todo:
            if self.offline:
                raise EmbeddingError(f"{len(todo)} text(s) not in cache for {self.name} (offline replay)")
            fresh = compute(list(todo.values()))  # validated in full before anything is written
            for raw, vec in zip(todo.values(), fresh, strict=True):
                store(raw, vec)
            got.update(zip(todo, fresh, strict=True))
        return [got[n] for n in norms]


class CachedEmbedder(_Counted):
    """An Embedder that asks `inner` only for texts the cache lacks, in one call."""

    def __init__(self, inner: Embedder, cache: EmbeddingCache, *, offline: bool = False) -> None:
        super().__init__(inner.name, inner.dim, cache, offline)
        self.inner = inner

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)

        def compute(todo: list[str]) -> list[np.ndarray]:
            m = np.asarray(self.inner.embed(todo, kind), dtype=np.float32)
            if m.shape != (len(todo), self.dim) or not np.isfinite(m).all():
                raise EmbeddingError(f"{self.name} returned shape {m.shape} for {len(todo)} texts")
            return list(m)

        rows = self._through(
            texts,
            lambda t: self.cache.get(self.name, kind, self.dim, t),
            compute,
            lambda t, v: self.cache.put(self.name, kind, self.dim, t, v),
        )
        return np.stack(rows)


class CachedMultiVector(_Counted):
    """A MultiVectorEmbedder that asks `inner` only for texts the cache lacks, in one call."""

    def __init__(self, inner: MultiVectorEmbedder, cache: EmbeddingCache, *, offline: bool = False) -> None:
        super().__init__(inner.name, inner.dim, cache, offline)
        self.inner = inner

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]:
        if not texts:
            return []

        def compute(todo: list[str]) -> list[np.ndarray]:
            out = [np.asarray(m, dtype=np.float32) for m in self.inner.embed_multi(todo, kind)]
            dim = self.dim
            ok = len(out) == len(todo) and all(
                m.ndim == 2 and m.shape[0] > 0 and m.shape[1] == dim and np.isfinite(m).all() for m in out
            )
            if not ok:
                raise EmbeddingError(f"{self.name} returned malformed token matrices for {len(todo)} texts")
            return out

        return self._through(
            texts,
            lambda t: self.cache.get_multi(self.name, kind, self.dim, t),
            compute,
            lambda t, m: self.cache.put_multi(self.name, kind, self.dim, t, m),
        )
