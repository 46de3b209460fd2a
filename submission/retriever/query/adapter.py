"""A question-side adapter for the local model: a linear map fitted on training questions so that a question's
vector lands nearer the tables its plan needs, inside its database.

MiniLM's cosine says what a question is about; which of a database's tables a question needs (the junction
table, the one holding the counted thing) is a habit of how questions are written about schemas, which the
training sets teach. The map is fitted on the choice among a database's own tables only (never across
databases: what told training databases apart says nothing about unseen ones).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

#: Softmax temperature on cosines, and Adam's settings; zero start (the identity map), no randomness.
TEMPERATURE = 20.0
STEPS = 100
LEARNING_RATE = 0.01


def fit_adapter(examples: Sequence[tuple[np.ndarray, np.ndarray, Sequence[Sequence[int]]]], l2: float = 0.1
                ) -> np.ndarray:
    """(dim, dim) map W = I + D (question row vector times W). Each example is one database: its questions'
    vectors (n, dim), its table vectors (m, dim) and per question the gold tables' rows; D is fitted by
    full-batch Adam on the mean log-likelihood of the gold tables among their database's, with `l2` on D."""
    q = np.vstack([e[0] for e in examples]).astype(np.float32)
    dim = q.shape[1]
    spans, start = [], 0
    for vecs, tables, gold in examples:
        y = np.zeros((len(vecs), len(tables)), dtype=np.float32)
        for r, g in enumerate(gold):
            y[r, list(g)] = 1.0 / len(g)
        spans.append((slice(start, start + len(vecs)), np.asarray(tables, dtype=np.float32), y))
        start += len(vecs)
    d = np.zeros((dim, dim), dtype=np.float32)
    m1, m2 = np.zeros_like(d), np.zeros_like(d)
    du = np.zeros_like(q)
    for it in range(1, STEPS + 1):
        z = q @ (np.eye(dim, dtype=np.float32) + d)
        nz = np.linalg.norm(z, axis=1, keepdims=True)
        u = z / nz
        for rows, tables, y in spans:
            logits = TEMPERATURE * (u[rows] @ tables.T)
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            du[rows] = (TEMPERATURE * (p - y)) @ tables
        grad = q.T @ ((du - (du * u).sum(axis=1, keepdims=True) * u) / nz) / len(q) + l2 * d
        m1 = 0.9 * m1 + 0.1 * grad
        m2 = 0.999 * m2 + 0.001 * grad * grad
        d -= LEARNING_RATE * (m1 / (1 - 0.9**it)) / (np.sqrt(m2 / (1 - 0.999**it)) + 1e-8)
    return np.eye(dim, dtype=np.float32) + d


def adapt(w: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The question vector through the map, L2-normalised (a row a dense search takes like any other)."""
    z = np.asarray(q, dtype=np.float32).reshape(1, -1) @ w
    return (z / max(float(np.linalg.norm(z)), 1e-12)).ravel().astype(np.float32)


class Adapter(NamedTuple):
    """A fitted map and the dense channel (and model) whose question vectors it was fitted on."""

    channel: str
    model: str
    matrix: np.ndarray


def save(adapter: Adapter, path: Path) -> dict[str, str]:
    """Write the matrix rounded to 5 decimals (float noise below that rarely reaches the file); returns the
    entry the weights file records for it, with the digest load checks."""
    np.save(path, np.round(adapter.matrix, 5).astype(np.float32), allow_pickle=False)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"channel": adapter.channel, "model": adapter.model, "file": path.name, "sha256": digest}


def load(entry: dict[str, str], folder: Path) -> Adapter:
    """The adapter a weights file names, checked against its recorded digest."""
    path = folder / entry["file"]
    if hashlib.sha256(path.read_bytes()).hexdigest() != entry["sha256"]:
        raise ValueError(f"adapter file {str(path)!r} does not match the weights' digest; run make fit")
    matrix = np.load(path, allow_pickle=False)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"adapter file {str(path)!r} holds a {matrix.shape} array, not a square map")
    return Adapter(entry["channel"], entry["model"], matrix.astype(np.float32))
