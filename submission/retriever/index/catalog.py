"""Catalog loader: the benchmark format, its obvious variants, and Spider's own tables.json."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import CatalogError


class Column(NamedTuple):
    """A tuple, not a dataclass: a 100k-table catalog holds half a million, built at every startup."""

    name: str
    type: str = ""
    description: str = ""


@dataclass(frozen=True)
class Table:
    table_id: str
    group: str
    name: str
    description: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    sample_rows: tuple[Mapping[str, Any], ...] = field(default=(), hash=False, compare=False)


@dataclass(frozen=True)
class Relationship:
    left_table: str
    left_column: str
    right_table: str
    right_column: str

    def as_dict(self) -> dict[str, str]:
        return {
            "left_table": self.left_table,
            "left_column": self.left_column,
            "right_table": self.right_table,
            "right_column": self.right_column,
        }

    def key(self) -> frozenset[tuple[str, str]]:
        """Direction-free identity, as the verifier compares joins."""
        return frozenset(((self.left_table, self.left_column), (self.right_table, self.right_column)))


@dataclass(frozen=True)
class Catalog:
    tables: tuple[Table, ...]
    relationships: tuple[Relationship, ...]
    warnings: tuple[str, ...] = ()
    checksum: str = ""

    def positions(self) -> dict[str, int]:
        """Table id -> its position in `tables`: how relationships, which name tables, index the arrays."""
        return {t.table_id: i for i, t in enumerate(self.tables)}


def to_compact(catalog: Catalog) -> dict[str, Any]:
    """What the index keeps of the catalog: rows of fields, no sample rows or column descriptions (those
    live on in the documents), so that loading it at startup is cheap even at 100k tables."""
    return {
        "tables": [[t.table_id, t.group, t.name, t.description, [c.name for c in t.columns], list(t.primary_key)]
                   for t in catalog.tables],
        "relationships": [[r.left_table, r.left_column, r.right_table, r.right_column]
                          for r in catalog.relationships],
    }


def from_compact(data: Mapping[str, Any], checksum: str = "") -> Catalog:
    """Inverse of :func:`to_compact`; trusts its input, which the build validated and the manifest digests."""
    tables = tuple(Table(tid, group, name, desc, tuple(Column(c) for c in cols), tuple(pk))
                   for tid, group, name, desc, cols, pk in data["tables"])
    return Catalog(tables, tuple(Relationship(*r) for r in data["relationships"]), (), checksum)


def load_catalog(path: Path) -> Catalog:
    """Read a catalog file; raises CatalogError with one line naming the problem."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise CatalogError(f"cannot read catalog {str(path)!r}: {e.strerror or e}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CatalogError(f"catalog {str(path)!r} is not valid UTF-8 JSON: {e}") from None
    return parse_catalog(data, checksum=hashlib.sha256(raw).hexdigest())


def parse_catalog(data: Any, checksum: str = "") -> Catalog:
    """Normalise any accepted layout into a Catalog."""
    if isinstance(data, list) and data and all(isinstance(d, dict) and "table_names_original" in d for d in data):
        return _from_spider(data, checksum)
    if isinstance(data, dict) and "table_names_original" in data:
        return _from_spider([data], checksum)
    if isinstance(data, list):
        data = {"tables": data}
    if not isinstance(data, dict):
        raise CatalogError(f"catalog must be a JSON object or list, got {type(data).__name__}")
    raw_tables = _first(data, ("tables", "table", "schemas"))
    if isinstance(raw_tables, dict):
        raw_tables = [dict(v, table_id=v.get("table_id", v.get("id", k))) for k, v in raw_tables.items()
                      if isinstance(v, dict)]
    if not isinstance(raw_tables, list) or not raw_tables:
        raise CatalogError("catalog has no tables (expected a non-empty 'tables' list or object)")
    tables = [_table(t, i) for i, t in enumerate(raw_tables)]
    rels = _first(data, ("relationships", "foreign_keys", "joins", "relations")) or []
    if not isinstance(rels, list):
        raise CatalogError(f"catalog relationships must be a list, got {type(rels).__name__}")
    return _assemble(tables, [_relationship(r) for r in rels], checksum)


def _first(d: Mapping[str, Any], keys: Sequence[str], default: Any = None) -> Any:
    for k in keys:
        if k in d and d[k] is not None:
            return d[k]
    return default


def _text(v: Any) -> str:
    return "" if v is None else v if isinstance(v, str) else str(v)


def _table(t: Any, i: int) -> Table:
    if not isinstance(t, dict):
        raise CatalogError(f"table #{i} is a {type(t).__name__}, not an object")
    tid = _first(t, ("table_id", "id", "table", "full_name"))
    name = _first(t, ("name", "table_name", "title"))
    if tid is None and name is None:
        raise CatalogError(f"table #{i} has no table_id")
    tid = _text(tid if tid is not None else name)
    if not tid:
        raise CatalogError(f"table #{i} has an empty table_id")
    group = _first(t, ("group", "database", "db_id", "db", "schema", "dataset"))
    if group is None:
        group = tid.rsplit(".", 1)[0] if "." in tid else "default"
    name = _text(name) if name is not None else tid.rsplit(".", 1)[-1]
    cols_raw = _first(t, ("columns", "fields", "column_names"), [])
    if isinstance(cols_raw, dict):
        cols_raw = [dict(v, name=k) if isinstance(v, dict) else {"name": k, "type": v} for k, v in cols_raw.items()]
    columns = []
    for c in cols_raw if isinstance(cols_raw, list) else []:
        if isinstance(c, str):
            columns.append(Column(c))
        elif isinstance(c, dict) and _first(c, ("name", "column_name", "column")) is not None:
            columns.append(Column(
                _text(_first(c, ("name", "column_name", "column"))),
                _text(_first(c, ("type", "data_type", "dtype"), "")),
                _text(_first(c, ("description", "comment", "desc"), "")),
            ))
    pk = _first(t, ("primary_key", "primary_keys", "pk"), [])
    pk = [pk] if isinstance(pk, str) else pk if isinstance(pk, list) else []
    rows_raw = _first(t, ("sample_rows", "rows", "samples", "examples"), [])
    rows: list[Mapping[str, Any]] = []
    for r in rows_raw if isinstance(rows_raw, list) else []:
        if isinstance(r, dict):
            rows.append(r)
        elif isinstance(r, list):
            rows.append({c.name: v for c, v in zip(columns, r, strict=False)})
    return Table(tid, _text(group), name, _text(_first(t, ("description", "comment", "desc"), "")),
                 tuple(columns), tuple(_text(p) for p in pk), tuple(rows))


def _relationship(r: Any) -> Relationship | str:
    """A Relationship, or a warning string when the entry is unusable."""
    if not isinstance(r, dict):
        return f"relationship {r!r:.80} is not an object"
    lt = _first(r, ("left_table", "from_table", "source_table", "table", "fk_table"))
    lc = _first(r, ("left_column", "from_column", "source_column", "column", "fk_column"))
    rt = _first(r, ("right_table", "to_table", "target_table", "ref_table", "referenced_table", "pk_table"))
    rc = _first(r, ("right_column", "to_column", "target_column", "ref_column", "referenced_column", "pk_column"))
    if None in (lt, lc, rt, rc):
        return f"relationship {json.dumps(r)[:80]} lacks left/right table or column"
    return Relationship(_text(lt), _text(lc), _text(rt), _text(rc))


def _assemble(tables: list[Table], rels: list[Relationship | str], checksum: str) -> Catalog:
    seen: set[str] = set()
    for t in tables:
        if t.table_id in seen:
            raise CatalogError(f"duplicate table id {t.table_id!r}")
        seen.add(t.table_id)
    cols = {t.table_id: {c.name.lower() for c in t.columns} for t in tables}
    warnings: list[str] = []
    kept: list[Relationship] = []
    keys: set[frozenset[tuple[str, str]]] = set()
    for r in rels:
        if isinstance(r, str):
            warnings.append(r)
            continue
        missing = [t for t in (r.left_table, r.right_table) if t not in cols]
        if missing:
            warnings.append(f"relationship to unknown table {missing[0]!r} skipped")
            continue
        if r.left_column.lower() not in cols[r.left_table] or r.right_column.lower() not in cols[r.right_table]:
            warnings.append(f"relationship {r.left_table}.{r.left_column} -> {r.right_table}.{r.right_column} "
                            "names an unknown column; skipped")
            continue
        if r.key() in keys:
            continue
        keys.add(r.key())
        kept.append(r)
    return Catalog(tuple(tables), tuple(kept), tuple(warnings), checksum)


def _from_spider(dbs: list[dict[str, Any]], checksum: str) -> Catalog:
    """Spider's tables.json: parallel lists per database; column 0 is '*'."""
    tables: list[Table] = []
    rels: list[Relationship | str] = []
    for db in dbs:
        db_id = _text(db.get("db_id", "db"))
        names = db.get("table_names_original") or []
        nl_names = db.get("table_names") or names
        cols_orig = db.get("column_names_original") or []
        cols_nl = db.get("column_names") or cols_orig
        types = db.get("column_types") or []
        per_table: list[list[Column]] = [[] for _ in names]
        where: dict[int, tuple[int, str]] = {}
        for ci, entry in enumerate(cols_orig):
            ti, cname = entry[0], entry[1]
            if ti < 0 or ti >= len(names):
                continue
            desc = cols_nl[ci][1] if ci < len(cols_nl) else cname
            per_table[ti].append(Column(cname, _text(types[ci] if ci < len(types) else ""), _text(desc)))
            where[ci] = (ti, cname)
        pks: list[list[str]] = [[] for _ in names]
        for pk in db.get("primary_keys") or []:
            for ci in pk if isinstance(pk, list) else [pk]:
                if ci in where:
                    pks[where[ci][0]].append(where[ci][1])
        for ti, name in enumerate(names):
            tables.append(Table(f"{db_id}.{name}", db_id, name, _text(nl_names[ti]), tuple(per_table[ti]),
                                tuple(pks[ti])))
        for a, b in db.get("foreign_keys") or []:
            if a in where and b in where:
                (ta, ca), (tb, cb) = where[a], where[b]
                rels.append(Relationship(f"{db_id}.{names[ta]}", ca, f"{db_id}.{names[tb]}", cb))
            else:
                rels.append(f"foreign key {a}->{b} in {db_id} names an unknown column; skipped")
    if not tables:
        raise CatalogError("catalog has no tables")
    return _assemble(tables, rels, checksum)
