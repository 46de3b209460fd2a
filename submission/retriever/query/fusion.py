"""Reciprocal rank fusion: scale-free, so channels with incomparable scores combine safely."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..config import RRF_K

#: Ranks past this contribute under 1/(k+depth) and are dropped to keep fusion O(n) on big catalogs.
DEPTH = 300


def ranks(scores: np.ndarray, depth: int = DEPTH) -> np.ndarray:
    """1-based rank of each positive-scored item within the top `depth`; 0 elsewhere. Ties by position."""
    out = np.zeros(scores.shape[0], dtype=np.int32)
    positive = np.flatnonzero(scores > 0)
    if positive.size == 0:
        return out
    if positive.size > depth:
        vals = scores[positive]
        cut = -np.partition(-vals, depth - 1)[depth - 1]
        above = positive[vals > cut]
        tied = positive[vals == cut][: depth - above.size]  # ties at the cut: earliest positions win
        positive = np.concatenate([above, tied])
    order = positive[np.lexsort((positive, -scores[positive]))]
    out[order] = np.arange(1, order.size + 1, dtype=np.int32)
    return out


def rrf(channels: Sequence[np.ndarray], k: int = RRF_K, depth: int = DEPTH) -> np.ndarray:
    """Sum of 1/(k + rank) over channels where the item is ranked."""
    if not channels:
        raise ValueError("rrf needs at least one channel")
    total = np.zeros(channels[0].shape[0], dtype=np.float64)
    for s in channels:
        r = ranks(s, depth)
        hit = r > 0
        total[hit] += 1.0 / (k + r[hit])
    return total.astype(np.float32)
