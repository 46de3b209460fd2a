"""Stage 1 (candidate evidence) behind one seam: the in-process arrays of today, or a search engine.

The planner asks a backend for exactly what `channels.gather` consumes: per lexical collection a term scorer
(`term_scores`, `idf`, as `LexicalIndex` has them), per dense channel the cosines of the question with every
table, column and group, and per late-interaction channel a MaxSim score per table. Everything after that
(features, fitted models, plans, selection) is the same code whichever backend answered, so the fitted
weights do not change. The backend is chosen at build, recorded in the manifest, and search follows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..config import Settings
from ..index.store import Index

#: The manifest's record for an index whose stage 1 runs in the search process.
IN_PROCESS: dict[str, Any] = {"kind": "in-process"}


class TermScorer(Protocol):
    """What gather() reads from a lexical collection (LexicalIndex is one)."""

    def term_scores(self, terms: Sequence[str], aliases: Mapping[str, Sequence[str]] | None = None) -> np.ndarray:
        ...

    def idf(self, terms: Sequence[str]) -> np.ndarray: ...


class QuestionStage(Protocol):
    """One question's channel evidence (an engine's per-question deadline lives here)."""

    @property
    def lexical(self) -> Mapping[str, TermScorer]: ...

    def dense(self, name: str, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Table, column and group cosines of one vector, or of each row of a matrix (a leading axis then)."""
        ...

    def late(self, name: str, q: np.ndarray) -> np.ndarray: ...


class Stage1(Protocol):
    """A backend: `for_question` starts one question."""

    def for_question(self) -> QuestionStage: ...


class InProcess:
    """Stage 1 over the arrays the index loaded: exact, and the default."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def for_question(self) -> InProcess:
        return self

    @property
    def lexical(self) -> Mapping[str, TermScorer]:
        return self.index.lexical

    def dense(self, name: str, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cosine of the question with every table, column and group document (rows L2-normalised).

        `q` may also hold several vectors as rows (the question, then the names and words it gives, each
        embedded alone), and each score array then gets a leading axis, one row per vector.
        """
        mats = self.index.dense[name]
        qs = np.atleast_2d(np.asarray(q, dtype=mats[0].dtype))
        done = self.index.dense_done.get(name, (None, None, None))
        t, c, g = (np.stack([fill_missing(s.astype(np.float32), d) for s in _products(m, qs)])
                   for m, d in zip(mats, done, strict=True))
        return (t, c, g) if np.ndim(q) > 1 else (t[0], c[0], g[0])

    def late(self, name: str, q: np.ndarray) -> np.ndarray:
        """Late interaction: sum over question tokens of the best-matching token of each table (MaxSim)."""
        vecs, offsets = self.index.multi[name]
        return maxsim(vecs, offsets, q, np.arange(len(offsets) - 1))


#: Rows times vectors from which the vectors after the question's own are scored in one matrix product: BLAS's
#: matrix-matrix kernel packs the matrix first, which costs more than it saves for a few vectors on a small
#: matrix (5,288 columns: 0.41 against 0.24 ms for two vectors) and far less than reading a big one once per
#: vector (48,000 columns and 10 vectors: 14 against 56 ms).
BATCH_WORK = 50_000


def _products(m: np.ndarray, qs: np.ndarray) -> list[np.ndarray]:
    """m @ x for each row x of qs. The first (the question's vector) always alone, so it gets the numbers it
    gets without names or words; the rest in one product where the work is big enough."""
    rest = qs[1:]
    if len(rest) < 2 or m.shape[0] * len(rest) < BATCH_WORK:
        return [m @ x for x in qs]
    return [m @ qs[0], *(m @ rest.T).T]


def maxsim(vecs: np.ndarray, offsets: np.ndarray, q: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """MaxSim of the question's token vectors against the listed tables' token vectors (in that order)."""
    qm = np.asarray(q, dtype=np.float32).reshape(-1, vecs.shape[1]).T.astype(vecs.dtype)
    if tables.size == len(offsets) - 1:  # all tables: one product
        sim = (vecs @ qm).astype(np.float32)
        return np.asarray(np.maximum.reduceat(sim, offsets[:-1], axis=0).sum(axis=1), dtype=np.float32)
    rows = [np.arange(offsets[t], offsets[t + 1]) for t in tables]
    if not rows:
        return np.zeros(0, dtype=np.float32)
    sim = (vecs[np.concatenate(rows)] @ qm).astype(np.float32)
    starts = np.cumsum([0] + [len(r) for r in rows[:-1]])
    return np.asarray(np.maximum.reduceat(sim, starts, axis=0).sum(axis=1), dtype=np.float32)


def fill_missing(scores: np.ndarray, done: np.ndarray | None) -> np.ndarray:
    """Scores of a partial channel's embedded rows -> scores of all rows, the others at this question's median.

    The median is neither for nor against a row the build did not reach: a zero cosine would rank it last,
    and it must not lose to one the build happened to reach. With no row embedded every score is the same
    0, which the conditional-logit models ignore (a shift common to all alternatives).
    """
    if done is None:
        return scores
    out = np.full(done.size, np.median(scores) if scores.size else 0.0, dtype=np.float32)
    out[done] = scores
    return out


def backend_record(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's backend entry; an index from before the seam existed is in-process."""
    rec = manifest.get("backend", IN_PROCESS)
    return dict(rec) if isinstance(rec, Mapping) else dict(IN_PROCESS)


def open_stage1(index: Index, index_dir: Path, settings: Settings,
                log: Callable[[str], None]) -> Stage1:
    """The backend the index was built for; an engine that cannot serve raises EngineError here, at start."""
    rec = backend_record(index.manifest)
    if rec.get("kind") == "milvus":
        from .milvus_search import MilvusStage1

        return MilvusStage1.connect(index, index_dir, rec, settings, log)
    return InProcess(index)


def engine_writer(settings: Settings) -> Callable[..., dict[str, Any]] | None:
    """The build hook that writes stage 1 into an engine, or None for the in-process backend."""
    if settings.backend != "milvus":
        return None
    from .milvus_build import MilvusWriter

    return MilvusWriter(settings)
