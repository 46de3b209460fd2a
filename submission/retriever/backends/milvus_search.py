"""Search: stage-1 evidence from Milvus, shaped exactly as the in-process arrays the planner reads.

Per question: one sparse search per lexical collection (every question term at once, one query vector per
term, so each term's hits and weights come back separately), one dense search per dense channel and part.
Hits fill arrays over all rows; rows not returned score 0 (lexical: the term is absent) or the lowest
returned cosine (dense, only past TOPK rows). A question has an engine budget: a call that fails or would
pass it is answered locally from the index's own files (one stderr line), so the answer is never late.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Settings
from ..errors import EngineError
from ..index.lexical import LexicalIndex
from ..index.store import Index
from .milvus_common import DENSE_PARTS, PARTS, close, connect, lite_uri, redact
from .stage1 import InProcess, TermScorer, fill_missing, maxsim


class MilvusStage1:
    """The connected engine plus the index's local files (term vocabulary, idf, fallback)."""

    def __init__(self, index: Index, client: Any, uri: str, record: Mapping[str, Any], budget_s: float,
                 log: Callable[[str], None]) -> None:
        self.index = index
        self.client = client
        self.uri = uri
        self.collections = {p: str(record["collections"][p]["name"]) for p in PARTS}
        self.rows = {p: int(record["collections"][p]["rows"]) for p in PARTS}
        self.topk = int(record.get("topk", 16384))
        self.budget_s = budget_s
        self.log = log
        self.local = InProcess(index)

    @classmethod
    def connect(cls, index: Index, index_dir: Path, record: Mapping[str, Any], settings: Settings,
                log: Callable[[str], None]) -> MilvusStage1:
        """Reach the engine and check it holds the index's collections, whole; else EngineError (one line)."""
        uri = settings.milvus_uri or record.get("uri") or lite_uri(index_dir)
        client = connect(uri, settings.milvus_token)
        try:
            for part in PARTS:
                meta = record["collections"][part]
                name = meta["name"]
                if not client.has_collection(name):
                    raise EngineError(f"Milvus at {redact(uri)} has no collection {name} ({part}); rebuild the index")
                client.load_collection(name)
                rows = int(client.get_collection_stats(name).get("row_count", -1))
                if rows != int(meta["rows"]):
                    raise EngineError(f"Milvus collection {name} holds {rows} rows, the index {meta['rows']}; "
                                      "rebuild the index")
        except EngineError:
            close(client, uri)
            raise
        except Exception as e:  # noqa: BLE001 - any engine failure at start is one line, before ready
            close(client, uri)
            raise EngineError(f"Milvus at {redact(uri)} cannot serve ({type(e).__name__}: "
                              f"{' '.join(str(e).split())[:200]})") from None
        log(f"search: stage 1 on Milvus at {redact(uri)} ({', '.join(f'{p} {n}' for p, n in cls._rows(record))})")
        return cls(index, client, uri, record, settings.engine_budget_s, log)

    @staticmethod
    def _rows(record: Mapping[str, Any]) -> list[tuple[str, int]]:
        return [(p, int(record["collections"][p]["rows"])) for p in PARTS]

    def for_question(self) -> _Question:
        return _Question(self, time.monotonic() + self.budget_s)

    def close(self) -> None:
        close(self.client, self.uri)


class _Question:
    """One question's view: the engine until its budget is spent or a call fails, then local files."""

    def __init__(self, engine: MilvusStage1, deadline: float) -> None:
        self.engine = engine
        self.deadline = deadline
        self.failed = False
        #: Tables the engine returned for a dense tables search: late interaction re-ranks these.
        self.candidates: np.ndarray | None = None
        self._lexical = {p: _EngineTerms(self, p, engine.index.lexical[p]) for p in PARTS}

    @property
    def lexical(self) -> Mapping[str, TermScorer]:
        return self._lexical

    def search(self, part: str, field: str, data: list[Any]) -> list[list[dict[str, Any]]] | None:
        """Hits per query vector, or None (after one stderr line) when the engine cannot answer in time."""
        left = self.deadline - time.monotonic()
        if self.failed or left <= 0.05:
            if not self.failed:
                self.engine.log("search: engine budget spent; the rest of this question is answered locally")
            self.failed = True
            return None
        eng = self.engine
        try:
            return list(eng.client.search(eng.collections[part], data=data, anns_field=field,
                                          limit=min(eng.topk, eng.rows[part]), output_fields=["id"],
                                          search_params={"metric_type": "IP"}, timeout=left))
        except Exception as e:  # noqa: BLE001 - timeouts, grpc and engine errors: answer from local files
            self.failed = True
            eng.log(f"search: engine call failed ({type(e).__name__}: {' '.join(str(e).split())[:160]}); "
                    "this question is answered from the local index")
            return None

    def dense(self, name: str, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        qs = np.atleast_2d(np.asarray(q, dtype=np.float32))
        done = self.engine.index.dense_done.get(name, (None, None, None))
        out = []
        for part, mask in zip(DENSE_PARTS, done, strict=True):
            hits = self.search(part, f"dense_{name}", [v.tolist() for v in qs])
            if hits is None:
                return self.engine.local.dense(name, q)
            n = self.engine.rows[part]
            rows = []
            for i, hit in enumerate(hits):
                ids, sims = _unpack(hit)
                full = np.full(n, sims.min() if sims.size and ids.size < n else 0.0, dtype=np.float32)
                full[ids] = sims
                if part == "tables" and i == 0:  # the question's own candidates, not a name's
                    self.candidates = ids
                # A partial channel: only the rows its build embedded count, the rest get their median (as local).
                rows.append(fill_missing(full[mask], mask) if mask is not None else full)
            out.append(rows[0] if np.ndim(q) == 1 else np.stack(rows))
        return out[0], out[1], out[2]

    def late(self, name: str, q: np.ndarray) -> np.ndarray:
        """MaxSim over the engine's dense table candidates (Milvus Lite has no multi-vector search), the other
        tables at the lowest candidate score; all tables when no dense search ran."""
        vecs, offsets = self.engine.index.multi[name]
        n = len(offsets) - 1
        if self.candidates is None or self.candidates.size >= n:
            return self.engine.local.late(name, q)
        cand = np.sort(self.candidates)
        got = maxsim(vecs, offsets, q, cand)
        out = np.full(n, got.min() if got.size else 0.0, dtype=np.float32)
        out[cand] = got
        return out


class _EngineTerms:
    """A lexical collection as gather() reads it: term scores from the engine, idf from the local vocabulary."""

    def __init__(self, question: _Question, part: str, local: LexicalIndex) -> None:
        self.question = question
        self.part = part
        self.local = local

    def term_scores(self, terms: Sequence[str], aliases: Mapping[str, Sequence[str]] | None = None) -> np.ndarray:
        """As `LexicalIndex.term_scores`: an alias's postings score at its term's idf (one engine call for all)."""
        out = np.zeros((len(terms), self.local.n_docs), dtype=np.float32)
        wanted = self.local.postings(terms, aliases)
        if not wanted:
            return out
        hits = self.question.search(self.part, "bm25", [{j: 1.0} for _, j, _ in wanted])
        if hits is None:
            return self.local.term_scores(terms, aliases)
        for (i, _, r), row in zip(wanted, hits, strict=True):
            ids, scores = _unpack(row)
            out[i, ids] = np.maximum(out[i, ids], scores * r)
        return out

    def idf(self, terms: Sequence[str]) -> np.ndarray:
        return self.local.idf(terms)


def _unpack(hits: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    ids = np.fromiter((int(h["id"]) for h in hits), dtype=np.int64, count=len(hits))
    scores = np.fromiter((float(h["distance"]) for h in hits), dtype=np.float32, count=len(hits))
    return ids, scores
