"""The one embedder interface every backend implements, plus a deterministic fake for tests."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np

Kind = Literal["query", "document"]


class Embedder(Protocol):
    """Single-vector embedder; rows are L2-normalised float32."""

    #: Identifies model and settings; part of every cache key and of the manifest.
    name: str
    dim: int

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray: ...


class MultiVectorEmbedder(Protocol):
    """Late-interaction embedder: one (tokens, dim) float32 matrix per text, rows normalised."""

    name: str
    dim: int

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]: ...


def normalize_rows(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.maximum(norms, 1e-12)


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder: a real, cheap stand-in for tests and fallbacks."""

    def __init__(self, dim: int = 64, name: str = "hash-64") -> None:
        self.dim = dim
        self.name = name

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for word in text.lower().split():
            h = hashlib.sha256(word.encode("utf-8")).digest()
            v[int.from_bytes(h[:4], "little") % self.dim] += 1.0 if h[4] & 1 else -1.0
        if not v.any():
            v[0] = 1.0
        return v

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalize_rows(np.stack([self._vector(t) for t in texts]))

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]:
        out = []
        for t in texts:
            words = t.lower().split()[:32] or [""]
            out.append(normalize_rows(np.stack([self._vector(w) for w in words])))
        return out
