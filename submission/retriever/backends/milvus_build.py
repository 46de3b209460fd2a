"""Build: copy stage 1 (BM25 weights, dense vectors) from the freshly written index files into Milvus.

Lexical channels are stored as sparse vectors of the exact per-(term, document) BM25 weights our own
tokenizer and bm25s computed (inner-product search, term by term), not through Milvus' BM25 function: term
matches and scores are then ours at any number of segments, and the fitted weights stay valid (see
docs/scaling.md for how the engine's own BM25 differs). Each collection is written under a temporary name
and renamed when whole; its final name carries a digest of the files it was made from, so a collection
with that name is complete and is reused by a rebuild, and a temporary one left by a killed build is
dropped and rewritten.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Settings
from ..errors import EngineError
from ..index.documents import Documents
from ..index.lexical import LexicalIndex
from ..index.store import ENGINE_DIR, sha256_file
from .milvus_common import BATCH, BUILDING, DENSE_PARTS, PARTS, TOPK, close, connect, redact

#: Seconds between progress lines while a collection is written.
PROGRESS_EVERY_S = 10.0


@dataclass(frozen=True)
class Spec:
    """One collection: its part, name, rows, and the dense channels (name -> dim) it carries."""

    part: str
    name: str
    rows: int
    dense: dict[str, int]


class MilvusWriter:
    """The build hook (index.build_index's `engine`): writes the collections, returns the manifest record."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __call__(self, tmp: Path, docs: Documents, channels: list[str], log: Callable[[str], None]) -> dict[str, Any]:
        lite = self.settings.milvus_uri is None
        if lite:
            _adopt_stale_engine(tmp, log)
            uri = str(tmp.resolve() / ENGINE_DIR)
        else:
            uri = str(self.settings.milvus_uri)
        dense = [c.partition(":")[2] for c in channels if c.startswith("dense:")]
        sizes = {"tables": len(docs.table_tokens), "columns": len(docs.column_tokens),
                 "groups": len(docs.group_tokens), "values": len(docs.table_tokens)}
        specs = [_spec(tmp, part, sizes[part], dense) for part in PARTS]
        client = connect(uri, self.settings.milvus_token)
        try:
            if lite:  # the folder is this index's own: nothing in it but our current collections is kept
                keep = {s.name for s in specs} | {s.name + BUILDING for s in specs}  # half-written: dropped below, said
                for name in client.list_collections():
                    if name not in keep:
                        client.drop_collection(name)
            for spec in specs:
                _write_collection(client, spec, tmp, sizes, log)
        except EngineError:
            raise
        except Exception as e:  # noqa: BLE001 - grpc and engine errors end the build in one line
            raise EngineError(f"writing to Milvus at {redact(uri)} failed ({type(e).__name__}: "
                              f"{' '.join(str(e).split())[:200]})") from None
        finally:
            close(client, uri)
        return {"kind": "milvus", "uri": None if lite else redact(uri), "topk": TOPK, "dense": dense,
                "collections": {s.part: {"name": s.name, "rows": s.rows, "dense": s.dense} for s in specs}}


def _adopt_stale_engine(tmp: Path, log: Callable[[str], None]) -> None:
    """Resume: move the engine folder of a build that was killed (a stale temp dir) into this one."""
    stem = tmp.name.rsplit(".building-", 1)[0]
    stale = sorted((p for p in tmp.parent.glob(f"{stem}.building-*") if p != tmp and (p / ENGINE_DIR).is_dir()),
                   key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    if stale and not (tmp / ENGINE_DIR).exists():
        os.replace(stale[0] / ENGINE_DIR, tmp / ENGINE_DIR)
        log(f"build: milvus: resuming from the engine folder of an interrupted build ({stale[0].name})")


def _spec(tmp: Path, part: str, rows: int, dense: list[str]) -> Spec:
    """A collection's name is a digest of the index files it is made from: same files, same collection."""
    h = hashlib.sha256(f"{part}:{rows}".encode())
    for p in sorted((tmp / f"bm25_{part}").rglob("*")):
        if p.is_file():
            h.update(p.name.encode() + bytes.fromhex(sha256_file(p)))
    dims = {}
    if part in DENSE_PARTS:
        for name in dense:
            vec = tmp / f"dense_{name}_{part}.npy"
            h.update(name.encode() + bytes.fromhex(sha256_file(vec)))
            done = tmp / f"dense_{name}_done.npy"
            if done.is_file():
                h.update(bytes.fromhex(sha256_file(done)))
            dims[name] = int(np.load(vec, mmap_mode="r").shape[1])
    return Spec(part, f"jtr_{part}_{h.hexdigest()[:16]}", rows, dims)


def _write_collection(client: Any, spec: Spec, tmp: Path, sizes: dict[str, int],
                      log: Callable[[str], None]) -> None:
    if client.has_collection(spec.name):
        log(f"build: milvus: {spec.name} ({spec.part}, {spec.rows} rows) is already complete; kept")
        return
    temp = spec.name + BUILDING
    if client.has_collection(temp):
        log(f"build: milvus: dropping {temp}, left incomplete by an interrupted build")
        client.drop_collection(temp)
    _create(client, temp, spec)
    t0 = last = time.monotonic()
    done = 0
    for rows in _rows(spec, tmp, sizes):
        client.insert(temp, rows)
        done += len(rows)
        if time.monotonic() - last >= PROGRESS_EVERY_S:
            last = time.monotonic()
            log(f"build: milvus: {spec.part} {done}/{spec.rows} rows ({last - t0:.0f}s)")
    client.flush(temp)
    client.rename_collection(temp, spec.name)
    log(f"build: milvus: {spec.name} written ({spec.part}, {done} rows, {time.monotonic() - t0:.1f}s)")


def _create(client: Any, name: str, spec: Spec) -> None:
    from pymilvus import DataType, MilvusClient

    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.INT64, is_primary=True)
    schema.add_field("bm25", DataType.SPARSE_FLOAT_VECTOR)
    params = client.prepare_index_params()
    params.add_index("bm25", index_type="SPARSE_INVERTED_INDEX", metric_type="IP")
    for ch, dim in spec.dense.items():
        schema.add_field(f"dense_{ch}", DataType.FLOAT_VECTOR, dim=dim)
        # FLAT: exact inner products, so the features see the in-process cosines (HNSW: docs/scaling.md).
        params.add_index(f"dense_{ch}", index_type="FLAT", metric_type="IP")
    client.create_collection(name, schema=schema, index_params=params)


def _rows(spec: Spec, tmp: Path, sizes: dict[str, int]) -> Iterator[list[dict[str, Any]]]:
    """Batches of rows: id = position in the index, the doc's BM25 weights, its vectors (zeros where a
    partial channel did not embed the row; search reads the index's row mask for those)."""
    n_docs = spec.rows
    lex = LexicalIndex.load(tmp / f"bm25_{spec.part}", n_docs)
    data, indices, indptr = (np.asarray(lex.model.scores[k]) for k in ("data", "indices", "indptr"))
    terms = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    order = np.lexsort((terms, indices))  # by document, then term
    doc_start = np.searchsorted(indices[order], np.arange(n_docs + 1))
    vecs = {ch: _full_rows(tmp, ch, spec.part, sizes, dim) for ch, dim in spec.dense.items()}
    for lo in range(0, n_docs, BATCH):
        batch = []
        for d in range(lo, min(n_docs, lo + BATCH)):
            sl = order[doc_start[d]:doc_start[d + 1]]
            weights = {int(t): float(s) for t, s in zip(terms[sl], data[sl], strict=True)}
            row: dict[str, Any] = {"id": d, "bm25": weights}
            for ch, m in vecs.items():
                row[f"dense_{ch}"] = m[d]
            batch.append(row)
        yield batch


def _full_rows(tmp: Path, ch: str, part: str, sizes: dict[str, int], dim: int) -> np.ndarray:
    """One float32 row per document; rows a partial channel did not embed are zeros."""
    got = np.load(tmp / f"dense_{ch}_{part}.npy").astype(np.float32)
    n = sizes[part]
    if got.shape[0] == n:
        return got
    done = np.load(tmp / f"dense_{ch}_done.npy")  # [tables, columns, groups] rows
    lo = sum(sizes[p] for p in DENSE_PARTS[:DENSE_PARTS.index(part)])
    out = np.zeros((n, dim), dtype=np.float32)
    out[done[lo:lo + n]] = got
    return out
