"""Persisted index: build into a temp dir and rename, load read-only with the manifest checked first."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import bm25s
import networkx as nx
import numpy as np

from . import __version__
from .catalog import Catalog, from_compact, to_compact
from .documents import Documents, build_documents, group_order, named_tables
from .embedding import Embedder, MultiVectorEmbedder
from .errors import BadIndexError, EmbeddingError
from .lexical import LexicalIndex
from .partial import Budgets, Coverage, Stepped, priority_order, run_within
from .quality import probe_sample, self_retrieval
from .text import tokenize

FORMAT_VERSION = 8
#: No time budget on any channel (tests and in-process builds; the entry point passes the configured ones).
UNBOUNDED = Budgets()
#: Column types, descriptions and sample values for prompt output; read on demand, not at startup.
DETAILS_FILE = "schema_details.json"
DETAIL_VALUES = 3
DETAIL_VALUE_CHARS = 40
LEXICAL = ("tables", "columns", "groups", "values")
#: A search engine's own data folder inside the index (Milvus Lite): the engine writes to it while it serves
#: (locks, logs), so it is left out of the file digests; the manifest's `backend` names its collections.
ENGINE_DIR = "engine.db"


@dataclass
class Index:
    """Everything a query needs, loaded once at startup."""

    catalog: Catalog
    manifest: dict[str, Any]
    lexical: dict[str, LexicalIndex]
    column_table: np.ndarray
    table_group: np.ndarray
    groups: list[str]
    value_phrases: dict[str, list[int]]
    graph: nx.MultiGraph
    #: Stems of each table's name and description, and of each group's name (for name-match features).
    table_stems: list[list[str]]
    group_stems: list[list[str]]
    #: channel name -> (table, column, group vectors), rows L2-normalised.
    dense: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: channel name -> (token vectors, per-table offsets) for late interaction.
    multi: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: Tables with a name or title column: table shape the planner needs, derived once at build.
    named: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    #: Partial dense channels only: which (table, column, group) rows the build embedded; their vectors above
    #: hold those rows only.
    dense_done: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def channels(self) -> list[str]:
        return list(self.manifest.get("channels", []))


def name_stems(catalog: Catalog) -> dict[str, list[list[str]]]:
    """Stems of table names (with descriptions) and group names, computed once at build, not per startup."""
    return {
        "tables": [sorted(set(tokenize(t.name)) | set(tokenize(t.description))) for t in catalog.tables],
        "groups": [sorted(set(tokenize(g))) for g in group_order(catalog)],
    }


def relationship_graph(catalog: Catalog) -> nx.MultiGraph:
    """Tables as nodes (by position), one edge per relationship carrying its catalog index."""
    pos = {t.table_id: i for i, t in enumerate(catalog.tables)}
    g: nx.MultiGraph = nx.MultiGraph()
    g.add_nodes_from(range(len(catalog.tables)))
    # Explicit edge keys: networkx's own key search costs more than the rest of startup at 100k tables.
    g.add_edges_from((pos[r.left_table], pos[r.right_table], ri, {"rel": ri})
                     for ri, r in enumerate(catalog.relationships) if r.left_table != r.right_table)
    return g


def build_index(
    catalog: Catalog,
    index_dir: Path,
    dense: Mapping[str, Embedder] | None = None,
    multi: Mapping[str, MultiVectorEmbedder] | None = None,
    log: Callable[[str], None] = lambda m: print(m, file=sys.stderr, flush=True),
    budgets: Budgets = UNBOUNDED,
    engine: Callable[[Path, Documents, list[str], Callable[[str], None]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Write the whole index to a sibling temp dir, then swap it into place.

    Each embedding channel gets its time budget from `budgets`. A dense channel cut in its columns is kept
    with a `dense_<name>_done.npy` row mask; one cut in its tables or groups is left out (see
    partial.WHOLE_PARTS). The manifest's `coverage` says per channel how much was embedded and why.
    `engine` (backends/) copies stage 1 into a search engine once the local files exist; its record goes
    into the manifest's `backend`, which search follows.
    """
    t0 = time.monotonic()
    index_dir = Path(index_dir)
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = _new_build_dir(index_dir)
    try:
        docs = build_documents(catalog)
        log(f"build: {len(catalog.tables)} tables, {len(docs.column_tokens)} columns, "
            f"{len(docs.group_tokens)} groups, {len(catalog.relationships)} relationships")
        _write_json(tmp / "catalog.json", to_compact(catalog))
        _write_json(tmp / "name_stems.json", name_stems(catalog))
        _write_lexical(tmp, docs)
        np.save(tmp / "column_table.npy", np.asarray(docs.column_table, dtype=np.int32))
        _write_json(tmp / "value_phrases.json", docs.value_phrases)
        np.save(tmp / "named_tables.npy", named_tables(catalog))
        _write_json(tmp / DETAILS_FILE, schema_details(catalog))
        log(f"build: lexical indexes written ({time.monotonic() - t0:.1f}s)")
        channels = ["bm25_tables", "bm25_columns", "bm25_groups", "values"]
        quality: dict[str, float] = {}
        covs = (_write_dense(tmp, docs, dense or {}, budgets, log, quality)
                + _write_multi(tmp, docs, multi or {}, budgets, log))
        channels += [c.channel for c in covs if c.usable]
        backend = engine(tmp, docs, channels, log) if engine else {"kind": "in-process"}
        manifest = {
            "format": FORMAT_VERSION,
            "retriever_version": __version__,
            "bm25s_version": bm25s.__version__,
            "numpy_version": np.__version__,
            "catalog_sha256": catalog.checksum,
            "counts": {"tables": len(catalog.tables), "columns": len(docs.column_tokens),
                       "groups": len(docs.group_tokens), "relationships": len(catalog.relationships),
                       "warnings": len(catalog.warnings)},
            "channels": channels,
            "dense_quality": quality,
            "coverage": {c.channel: c.as_json() for c in covs},
            "backend": backend,
            "embedders": {**{n: e.name for n, e in (dense or {}).items()},
                          **{n: e.name for n, e in (multi or {}).items()}},
            "files": _file_digests(tmp),
            "build_seconds": round(time.monotonic() - t0, 2),
        }
        _write_json(tmp / "manifest.json", manifest)
        _swap_into_place(tmp, index_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def _new_build_dir(index_dir: Path) -> Path:
    """A fresh sibling dir with the umask's mode (mkdtemp's 0700 would hide the index from other users)."""
    while True:
        tmp = index_dir.parent / f".{index_dir.name}.building-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            tmp.mkdir(mode=0o777)
            return tmp
        except FileExistsError:
            continue


def schema_details(catalog: Catalog) -> list[list[Any]]:
    """Per table: column types, column descriptions and a few short sample values per column.

    Kept out of the compact catalog, which every startup loads; only prompt output (DDL) reads it.
    """
    out = []
    for t in catalog.tables:
        samples: list[list[str]] = [[] for _ in t.columns]
        for row in t.sample_rows:
            for i, c in enumerate(t.columns):
                v = row.get(c.name)
                text = "" if v is None or isinstance(v, (dict, list)) else str(v)[:DETAIL_VALUE_CHARS]
                if text and text not in samples[i] and len(samples[i]) < DETAIL_VALUES:
                    samples[i].append(text)
        out.append([[c.type for c in t.columns], [c.description for c in t.columns], samples])
    return out


def load_schema_details(index_dir: Path, n_tables: int) -> list[list[Any]] | None:
    """What :func:`schema_details` wrote, or None for an index built before it existed."""
    path = Path(index_dir) / DETAILS_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise BadIndexError(f"index file {str(path)!r} is unreadable ({e}); rebuild the index") from None
    if not isinstance(data, list) or len(data) != n_tables:
        raise BadIndexError(f"index file {str(path)!r} does not match the catalog; rebuild the index")
    return data


def _write_dense(tmp: Path, docs: Documents, dense: Mapping[str, Embedder], budgets: Budgets,
                 log: Callable[[str], None], quality: dict[str, float]) -> list[Coverage]:
    """Each dense channel's vectors (as far as its budget goes) and, into `quality`, its probe score."""
    texts = docs.table_texts + docs.column_texts + docs.group_texts
    order = priority_order(len(docs.table_texts), docs.column_table, len(docs.group_texts))
    sizes = {"tables": len(docs.table_texts), "columns": len(docs.column_texts), "groups": len(docs.group_texts)}
    out = []
    for name, emb in dense.items():
        log(f"build: embedding {len(texts)} texts with {emb.name}")
        step: Stepped[np.ndarray] = run_within(f"dense:{name}", texts, order, partial(emb.embed, kind="document"),
                                               budgets.seconds.get(name), budgets, log)
        done = step.done
        cov = Coverage(f"dense:{name}", _parts(done, sizes), step.seconds, step.reason)
        out.append(cov)
        _log_coverage(cov, emb, log)
        if not cov.usable:
            continue
        # Only embedded rows are stored (a 9%-embedded 100k catalog would otherwise carry 460 MB of zeros).
        for part, (lo, hi) in zip(sizes, _bounds(sizes), strict=True):
            got = [r for r in step.rows[lo:hi] if r is not None]
            vecs = np.stack(got) if got else np.zeros((0, emb.dim))
            np.save(tmp / f"dense_{name}_{part}.npy", vecs.astype(np.float16))
        if cov.status == "partial":
            np.save(tmp / f"dense_{name}_done.npy", done)
        tables = np.stack([r for r in step.rows[:sizes["tables"]] if r is not None])  # usable: all of them
        probe = probe_sample(sizes["tables"])
        try:  # an unmeasured channel ranks last among the dense channels, it is not dropped
            asked = emb.embed([docs.table_labels[i] for i in probe], "query")
            quality[name] = round(self_retrieval(asked, tables, probe), 4)
        except EmbeddingError as e:
            log(f"build: channel dense:{name} not probed: {e}")
    return out


def _write_multi(tmp: Path, docs: Documents, multi: Mapping[str, MultiVectorEmbedder], budgets: Budgets,
                 log: Callable[[str], None]) -> list[Coverage]:
    texts = docs.table_texts
    out = []
    for name, memb in multi.items():
        step = run_within(f"multi:{name}", texts, np.arange(len(texts)), partial(memb.embed_multi, kind="document"),
                          budgets.seconds.get(name), budgets, log)
        done = step.done
        cov = Coverage(f"multi:{name}", _parts(done, {"tables": len(texts)}), step.seconds, step.reason)
        out.append(cov)
        _log_coverage(cov, memb, log)
        if not cov.usable:  # only tables here: a partial late-interaction channel is never kept
            continue
        blank = np.zeros((1, memb.dim), dtype=np.float32)  # a table with no tokens scores 0
        mats = [m if m is not None and m.shape[0] else blank for m in step.rows]
        offsets = np.cumsum([0] + [m.shape[0] for m in mats]).astype(np.int64)
        np.save(tmp / f"multi_{name}_vectors.npy", np.concatenate(mats).astype(np.float16))
        np.save(tmp / f"multi_{name}_offsets.npy", offsets)
    return out


def _bounds(sizes: Mapping[str, int]) -> list[tuple[int, int]]:
    """(start, end) of each part in the concatenated [tables, columns, groups] rows."""
    ends = np.cumsum(list(sizes.values())).tolist()
    return list(zip([0, *ends[:-1]], ends, strict=True))


def _parts(done: np.ndarray, sizes: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    return {p: (int(done[lo:hi].sum()), n) for (p, n), (lo, hi) in zip(sizes.items(), _bounds(sizes), strict=True)}


def _log_coverage(cov: Coverage, emb: Embedder | MultiVectorEmbedder, log: Callable[[str], None]) -> None:
    if cov.status == "absent":
        log(f"build: channel {cov.channel} left out: {cov.reason}")
    else:
        log(f"build: {cov.describe()}; cache hits {getattr(emb, 'hits', 0)}, misses {getattr(emb, 'misses', 0)}")


def _write_lexical(tmp: Path, docs: Documents) -> None:
    for name, toks in zip(LEXICAL, (docs.table_tokens, docs.column_tokens, docs.group_tokens, docs.value_tokens),
                          strict=True):
        LexicalIndex.build(toks).save(tmp / f"bm25_{name}")


def _write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _file_digests(root: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not _engine_owned(root, p):
            out[p.relative_to(root).as_posix()] = {"bytes": p.stat().st_size, "sha256": _sha256(p)}
    return out


def _engine_owned(root: Path, p: Path) -> bool:
    return p.relative_to(root).parts[0] == ENGINE_DIR


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _swap_into_place(tmp: Path, index_dir: Path) -> None:
    """Rename is atomic; an old index is moved aside first and removed after the swap."""
    old = None
    if index_dir.exists():
        old = index_dir.with_name(f".{index_dir.name}.old-{os.getpid()}")
        os.replace(index_dir, old)
    os.replace(tmp, index_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    for stale in index_dir.parent.glob(f".{index_dir.name}.building-*"):
        shutil.rmtree(stale, ignore_errors=True)


def read_manifest(index_dir: Path, verify_digests: bool = True) -> dict[str, Any]:
    path = Path(index_dir) / "manifest.json"
    if not Path(index_dir).is_dir():
        raise BadIndexError(f"index dir {str(index_dir)!r} does not exist; run build.sh first")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise BadIndexError(f"index manifest {str(path)!r} is missing or unreadable ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_VERSION:
        got = manifest.get("format") if isinstance(manifest, dict) else None
        raise BadIndexError(f"index in {str(index_dir)!r} has format {got!r}, this retriever reads "
                            f"{FORMAT_VERSION}; rebuild it")
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise BadIndexError(f"index manifest {str(path)!r} has no file list; rebuild it")
    # Every file the loader may read is covered, and no listed path leads outside the index dir.
    present = {p.relative_to(index_dir).as_posix() for p in Path(index_dir).rglob("*")
               if p.is_file() and not p.name.startswith(".") and not _engine_owned(index_dir, p)} - {"manifest.json"}
    if set(files) != present:
        odd = sorted(set(files) ^ present)[:3]
        raise BadIndexError(f"index manifest {str(path)!r} does not list exactly the index files "
                            f"(differs on {odd}); rebuild it")
    for rel, meta in files.items():
        p = Path(index_dir) / rel
        if not p.is_file() or p.stat().st_size != meta.get("bytes"):
            raise BadIndexError(f"index file {rel!r} is missing or has the wrong size; rebuild the index")
        if verify_digests and _sha256(p) != meta.get("sha256"):
            raise BadIndexError(f"index file {rel!r} does not match its checksum; rebuild the index")
    return manifest


#: Above this many bytes as float32 a vector matrix stays float16 in memory (slower products, half the RAM).
FLOAT32_LIMIT_BYTES = 1 << 30


def _for_blas(m: np.ndarray) -> np.ndarray:
    """float16 on disk halves the index; float32 in memory lets BLAS do the products (about 10x faster)."""
    return m.astype(np.float32) if m.dtype == np.float16 and m.size * 4 <= FLOAT32_LIMIT_BYTES else m


def load_index(index_dir: Path) -> Index:
    """Load and validate; every failure is one BadIndexError naming the problem."""
    # Startup allocates millions of small objects that all live on: cyclic GC passes over them would cost
    # more than the load itself at 100k tables (1.5 s of 4), and there is nothing for them to free.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_index(Path(index_dir))
    finally:
        if was_enabled:
            gc.enable()


def _load_index(index_dir: Path) -> Index:
    manifest = read_manifest(index_dir)
    try:
        catalog = from_compact(json.loads((index_dir / "catalog.json").read_text(encoding="utf-8")),
                               checksum=manifest.get("catalog_sha256", ""))
        stems = json.loads((index_dir / "name_stems.json").read_text(encoding="utf-8"))
        table_stems, group_stems = stems["tables"], stems["groups"]
        counts = manifest["counts"]
        n_docs = {"tables": counts["tables"], "columns": counts["columns"], "groups": counts["groups"],
                  "values": counts["tables"]}
        lexical = {n: LexicalIndex.load(index_dir / f"bm25_{n}", n_docs[n]) for n in LEXICAL}
        column_table = np.load(index_dir / "column_table.npy", allow_pickle=False)
        value_phrases = json.loads((index_dir / "value_phrases.json").read_text(encoding="utf-8"))
        named = np.load(index_dir / "named_tables.npy", allow_pickle=False)
        dense, dense_done, multi = {}, {}, {}
        for ch in manifest["channels"]:
            kind, _, name = ch.partition(":")
            if kind == "dense":
                t, c, g = (_for_blas(np.load(index_dir / f"dense_{name}_{part}.npy", allow_pickle=False))
                           for part in ("tables", "columns", "groups"))
                dense[name] = (t, c, g)
                done = _done_mask(index_dir, manifest, f"dense_{name}_done.npy")
                if done is not None:
                    dense_done[name] = _split_done(ch, done, counts, (t, c, g))
            elif kind == "multi":
                multi[name] = (_for_blas(np.load(index_dir / f"multi_{name}_vectors.npy", allow_pickle=False)),
                               np.load(index_dir / f"multi_{name}_offsets.npy", allow_pickle=False))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BadIndexError(f"index in {str(index_dir)!r} is corrupt ({type(e).__name__}: {e}); rebuild it") from None
    groups = group_order(catalog)
    gpos = {g: i for i, g in enumerate(groups)}
    table_group = np.asarray([gpos[t.group] for t in catalog.tables], dtype=np.int32)
    if len(column_table) != counts["columns"] or len(groups) != counts["groups"]:
        raise BadIndexError(f"index in {str(index_dir)!r} disagrees with its manifest counts; rebuild it")
    if len(table_stems) != len(catalog.tables) or len(group_stems) != len(groups) or len(named) != len(table_stems):
        raise BadIndexError(f"index in {str(index_dir)!r} has name stems that do not match its catalog; rebuild it")
    return Index(catalog, manifest, lexical, column_table, table_group, groups, value_phrases,
                 relationship_graph(catalog), table_stems, group_stems, dense, multi, named, dense_done)


def _split_done(ch: str, done: np.ndarray, counts: Mapping[str, int],
                vecs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A partial dense channel's mask per part, checked against the rows its vectors hold."""
    sizes = {p: counts[p] for p in ("tables", "columns", "groups")}
    dt, dc, dg = (done[lo:hi] for lo, hi in _bounds(sizes))
    if done.size != sum(sizes.values()) or [int(d.sum()) for d in (dt, dc, dg)] != [len(v) for v in vecs]:
        raise ValueError(f"{ch} mask does not match its vectors or the catalog")
    return dt, dc, dg


def _done_mask(index_dir: Path, manifest: Mapping[str, Any], rel: str) -> np.ndarray | None:
    """A partial channel's row mask (None for a complete channel: it has no mask file)."""
    if rel not in manifest["files"]:
        return None
    done = np.load(index_dir / rel, allow_pickle=False)
    if done.dtype != np.bool_ or done.ndim != 1:
        raise ValueError(f"{rel} is not a boolean row mask")
    return done
