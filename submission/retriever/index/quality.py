"""How good a dense channel is on this catalog, measured at build: which one the features should read.

A catalog cannot tell which model is better from their cosines, but it can ask each model a question whose
answer it knows: a table's own name as the query, its full document as the target. A real model finds the
table near the top; one that serves noise does not. The mean reciprocal rank orders the live channels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: Tables probed per channel (a seeded sample on big catalogs keeps the extra embedding work small).
PROBE_TABLES = 256
SEED = 13


def probe_sample(n_tables: int, k: int = PROBE_TABLES) -> list[int]:
    """Positions of the tables whose names are asked, the same for every channel of a build."""
    if n_tables <= k:
        return list(range(n_tables))
    return sorted(int(i) for i in np.random.default_rng(SEED).choice(n_tables, size=k, replace=False))


def self_retrieval(queries: np.ndarray, tables: np.ndarray, targets: Sequence[int]) -> float:
    """Mean reciprocal rank of each query's own table among all tables (rows L2-normalised)."""
    if not len(targets):
        return 0.0
    sims = queries.astype(np.float32) @ tables.astype(np.float32).T
    own = sims[np.arange(len(targets)), np.asarray(targets)]
    ranks = 1 + (sims > own[:, None]).sum(axis=1)
    return float(np.mean(1.0 / ranks))


def preference(quality: Mapping[str, float], channels: Sequence[str]) -> list[str]:
    """Dense channels best first: higher probe score, then the API model before the local one on a tie
    (ties to 3 decimals: the same vectors served under two names must not flip on rounding noise)."""
    return sorted(channels, key=lambda n: (-round(quality.get(n, 0.0), 3), n == "local", n))
