"""The index on disk: its format, and loading it read-only with the manifest checked first."""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import BadIndexError
from . import registry
from .casing import CASING_FILE, Casing
from .catalog import Catalog, from_compact
from .documents import TEMPORAL_TABLES_FILE, group_order
from .lexical import LexicalIndex
from .links import Links, relationship_links
from .people import PEOPLE_FILE, PERSON_TABLES_FILE, People
from .spelling import SPELLING_FILE, Spelling
from .thesaurus import DERIVED_FILE, INSTANCE_FILE, RELATED_FILE
from .vocabulary import VOCABULARY_FILE

FORMAT_VERSION = 10
#: Column types, descriptions and sample values for prompt output; read on demand, not at startup.
DETAILS_FILE = "schema_details.json"
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
    #: The catalog's relationships between table positions.
    links: Links
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
    #: Question stem n-gram -> schema stems it stands for (index/thesaurus.py); empty without WordNet.
    related: dict[str, list[str]] = field(default_factory=dict)
    #: Name stem n-gram -> schema stems of what it is an instance of (thesaurus.instance_words).
    instances: dict[str, list[str]] = field(default_factory=dict)
    #: Question stem -> schema stems of the nouns its verb or adjective is made from (thesaurus.derived_words).
    derived: dict[str, list[str]] = field(default_factory=dict)
    #: Schema stems a misspelt question word may stand for, and the real words next to them (index/spelling.py).
    spelling: Spelling = field(default_factory=Spelling)
    #: Census names that tell a person in a question, and the tables that hold people (index/people.py).
    people: People = field(default_factory=People)
    persons: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    #: Catalog word -> its row in each dense channel's word vectors (index/vocabulary.py).
    vocabulary: dict[str, int] = field(default_factory=dict)
    #: channel name -> vectors of the vocabulary's first words, embedded alone (a prefix: a build whose
    #: budget ran out embedded fewer); a question's other content words are embedded when it is asked.
    dense_words: dict[str, np.ndarray] = field(default_factory=dict)
    #: Tables with a column saying when (documents.temporal_tables).
    temporal: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    #: The capitals a question typed without any would have had (index/casing.py).
    casing: Casing = field(default_factory=Casing)

    @property
    def channels(self) -> list[str]:
        return list(self.manifest.get("channels", []))


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


def bounds(sizes: Mapping[str, int]) -> list[tuple[int, int]]:
    """(start, end) of each part in the concatenated [tables, columns, groups] rows."""
    ends = np.cumsum(list(sizes.values())).tolist()
    return list(zip([0, *ends[:-1]], ends, strict=True))


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def engine_owned(root: Path, p: Path) -> bool:
    return p.relative_to(root).parts[0] == ENGINE_DIR


def recorded_channels(index_dir: Path) -> list[str]:
    """The channels an index's manifest records, unchecked ([] if it cannot be read): a peek, for what may
    start loading beside load_index, which validates the manifest and raises on a bad one."""
    try:
        channels = json.loads((Path(index_dir) / "manifest.json").read_text(encoding="utf-8")).get("channels")
    except (OSError, ValueError, AttributeError):
        return []
    return [c for c in channels if isinstance(c, str)] if isinstance(channels, list) else []


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
               if p.is_file() and not p.name.startswith(".") and not engine_owned(index_dir, p)} - {"manifest.json"}
    if set(files) != present:
        odd = sorted(set(files) ^ present)[:3]
        raise BadIndexError(f"index manifest {str(path)!r} does not list exactly the index files "
                            f"(differs on {odd}); rebuild it")
    for rel, meta in files.items():
        p = Path(index_dir) / rel
        if not p.is_file() or p.stat().st_size != meta.get("bytes"):
            raise BadIndexError(f"index file {rel!r} is missing or has the wrong size; rebuild the index")
        if verify_digests and sha256_file(p) != meta.get("sha256"):
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
        related = json.loads((index_dir / RELATED_FILE).read_text(encoding="utf-8"))
        instances = json.loads((index_dir / INSTANCE_FILE).read_text(encoding="utf-8"))
        derived_path = index_dir / DERIVED_FILE  # an index built before it derives nothing
        derived = (json.loads(derived_path.read_text(encoding="utf-8")) if derived_path.is_file() else {})
        people_path = index_dir / PEOPLE_FILE  # an index built before it names no person
        people = (People.from_json(json.loads(people_path.read_text(encoding="utf-8")))
                  if people_path.is_file() else People())
        spelling_path = index_dir / SPELLING_FILE  # an index built before it corrects nothing
        spelling = (Spelling.from_json(json.loads(spelling_path.read_text(encoding="utf-8")))
                    if spelling_path.is_file() else Spelling())
        # The people's dictionary is the index's one lexicon: what is a word, and so no shorthand.
        spelling = spelling.with_known((word for lex in lexical.values() for word in lex.vocab), people.words)
        casing_path = index_dir / CASING_FILE  # an index built before it restores no capitals
        casing = (Casing.from_json(json.loads(casing_path.read_text(encoding="utf-8")))
                  if casing_path.is_file() else Casing())
        persons = (np.load(index_dir / PERSON_TABLES_FILE, allow_pickle=False)
                   if (index_dir / PERSON_TABLES_FILE).is_file() else np.zeros(len(catalog.tables), dtype=np.bool_))
        temporal = (np.load(index_dir / TEMPORAL_TABLES_FILE, allow_pickle=False)  # none before it was built
                    if (index_dir / TEMPORAL_TABLES_FILE).is_file() else np.zeros(len(catalog.tables), dtype=np.bool_))
        vocab_path = index_dir / VOCABULARY_FILE  # an index built before it, or without dense channels, has none
        vocabulary = ({w: i for i, w in enumerate(json.loads(vocab_path.read_text(encoding="utf-8")))}
                      if vocab_path.is_file() else {})
        dense, dense_done, multi, dense_words = {}, {}, {}, {}
        for ch in map(registry.from_manifest, manifest["channels"]):
            name = ch.name
            if ch.kind == "dense":
                t, c, g = (_for_blas(np.load(index_dir / f"dense_{name}_{part}.npy", allow_pickle=False))
                           for part in ("tables", "columns", "groups"))
                dense[name] = (t, c, g)
                done = _done_mask(index_dir, manifest, f"dense_{name}_done.npy")
                if done is not None:
                    dense_done[name] = _split_done(str(ch.manifest), done, counts, (t, c, g))
                if f"dense_{name}_words.npy" in manifest["files"]:
                    dense_words[name] = _for_blas(np.load(index_dir / f"dense_{name}_words.npy", allow_pickle=False))
                    if len(dense_words[name]) > len(vocabulary) or dense_words[name].shape[1:] != t.shape[1:]:
                        raise ValueError(f"dense_{name}_words.npy does not match the vocabulary or the channel")
            elif ch.kind == "multi":
                multi[name] = (_for_blas(np.load(index_dir / f"multi_{name}_vectors.npy", allow_pickle=False)),
                               np.load(index_dir / f"multi_{name}_offsets.npy", allow_pickle=False))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BadIndexError(f"index in {str(index_dir)!r} is corrupt ({type(e).__name__}: {e}); rebuild it") from None
    groups = group_order(catalog)
    gpos = {g: i for i, g in enumerate(groups)}
    table_group = np.asarray([gpos[t.group] for t in catalog.tables], dtype=np.int32)
    if len(column_table) != counts["columns"] or len(groups) != counts["groups"]:
        raise BadIndexError(f"index in {str(index_dir)!r} disagrees with its manifest counts; rebuild it")
    if (len(table_stems) != len(catalog.tables) or len(group_stems) != len(groups) or len(named) != len(table_stems)
            or len(persons) != len(table_stems) or len(temporal) != len(table_stems)):
        raise BadIndexError(f"index in {str(index_dir)!r} has name stems that do not match its catalog; rebuild it")
    return Index(catalog, manifest, lexical, column_table, table_group, groups, value_phrases,
                 relationship_links(catalog), table_stems, group_stems, dense, multi, named, dense_done, related,
                 instances, derived, spelling, people, persons, vocabulary, dense_words, temporal, casing)


def _split_done(ch: str, done: np.ndarray, counts: Mapping[str, int],
                vecs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A partial dense channel's mask per part, checked against the rows its vectors hold."""
    sizes = {p: counts[p] for p in ("tables", "columns", "groups")}
    dt, dc, dg = (done[lo:hi] for lo, hi in bounds(sizes))
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
