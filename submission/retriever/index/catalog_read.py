"""Reading one database through SQLAlchemy's inspector: its schemas, their groups, tables, views, sample rows.

Everything is reflected before anything is named, because which schemas share a group (and so every table
id) depends on the foreign keys between them. This module never sees a URL or a password: the connection
is catalog_import's, and a failure here goes to the caller's `warn`, which names the database and scrubs.
SQLAlchemy is imported inside functions only (it is the optional `import` extra).
"""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

#: Sample values longer than this are cut; a catalog is for retrieval, not for copying data.
MAX_VALUE_CHARS = 100
_SYSTEM_SCHEMAS = ("information_schema", "pg_catalog", "pg_toast")

#: warn(what, error): something named in `what` was left out; `error` (if any) says why.
Warn = Callable[[str, BaseException | None], None]
#: A foreign key as (referred schema, referred table, its (column, referred column) pairs).
ForeignKey = tuple[str | None, str, tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class Relation:
    """A table or view as reflected, before its group, and so its id, is known."""

    schema: str | None
    name: str
    is_view: bool
    #: The SQL name a user writes: schema-qualified outside the default schema.
    sql_name: str
    description: str
    columns: tuple[dict[str, str], ...]
    primary_key: tuple[str, ...]
    foreign_keys: tuple[ForeignKey, ...]


@dataclass(frozen=True)
class Database:
    """One database in the benchmark format, with what the summary line counts."""

    tables: list[dict[str, Any]]
    relationships: list[dict[str, str]]
    views: int
    groups: int


def sample_value(v: Any) -> tuple[bool, Any]:
    """(keep, JSON value): binary values are left out, long text is cut, odd types become text."""
    if isinstance(v, (bytes, bytearray, memoryview)):
        return False, None
    if v is None or isinstance(v, (bool, int)):
        return True, v
    if isinstance(v, float):
        return True, v if v == v and abs(v) != float("inf") else str(v)
    if isinstance(v, (datetime.date, datetime.time)):
        text = v.isoformat()
    elif isinstance(v, (decimal.Decimal, uuid.UUID, str)):
        text = str(v)
    else:
        text = json.dumps(v, ensure_ascii=False, default=str)
    return True, text[:MAX_VALUE_CHARS]


def read_database(conn: Any, database: str, used: set[str], sample_rows: int, views: bool,
                  warn: Warn) -> Database:
    """Reflect every table (and view, if `views`), group the schemas, then write the tables out."""
    import sqlalchemy as sa

    insp = sa.inspect(conn)
    found: list[Relation] = []
    for schema, names in _schemas(insp, conn, views).items():
        for name, is_view in names:
            kind = "view" if is_view else "table"
            try:
                found.append(_reflect(insp, schema, name, is_view))
            except sa.exc.SQLAlchemyError as e:
                conn.rollback()
                warn(f"{kind} {_sql_name(insp, schema, name)!r} skipped", e)
    prefixes = _group_names(database, sorted({r.schema for r in found}, key=_order),
                            [(r.schema, fk[0]) for r in found for fk in r.foreign_keys], used)
    tables: list[dict[str, Any]] = []
    rels: list[dict[str, str]] = []
    kept: dict[str, Relation] = {}
    for r in found:  # by name in each schema, a table before a view of its name
        group, prefix = prefixes[r.schema]
        tid = f"{prefix}.{r.name}"
        if tid in kept:  # SQL forbids a view named as a table of its schema; guarded all the same
            warn(f"view {r.sql_name!r} skipped: a table has its id {tid!r}", None)
            continue
        kept[tid] = r
        tables.append({"table_id": tid, "group": group, "name": r.sql_name, "description": r.description,
                       "columns": list(r.columns), "primary_key": list(r.primary_key),
                       "sample_rows": _samples(conn, r, sample_rows, warn)})
        for ref_schema, ref_table, pairs in r.foreign_keys:
            ref = f"{_prefix(prefixes, database, ref_schema)}.{ref_table}"
            rels.extend({"left_table": tid, "left_column": left, "right_table": ref, "right_column": right}
                        for left, right in pairs)
    return Database(tables, rels, sum(r.is_view for r in kept.values()), len({g for g, _ in prefixes.values()}))


def _prefix(prefixes: dict[str | None, tuple[str, str]], database: str, schema: str | None) -> str:
    """The id prefix of a schema's tables; one not read (a system schema) gets a name that a warning shows."""
    return prefixes[schema][1] if schema in prefixes else f"{database}.{schema}"


def _order(schema: str | None) -> str:
    return schema or ""


def _schemas(insp: Any, conn: Any, views: bool) -> dict[str | None, list[tuple[str, bool]]]:
    """Schema -> its (name, is view) pairs, sorted; the default schema only, except on PostgreSQL."""
    schemas: list[str | None] = [None]
    if conn.dialect.name == "postgresql":
        schemas = [s for s in sorted(insp.get_schema_names()) if s not in _SYSTEM_SCHEMAS and not s.startswith("pg_")]
    out: dict[str | None, list[tuple[str, bool]]] = {}
    for s in schemas:
        names = [(n, False) for n in insp.get_table_names(schema=s)]
        names += [(n, True) for n in insp.get_view_names(schema=s) + _materialized(insp, s)] if views else []
        if names:
            out[s] = sorted(names)
    return out


def _materialized(insp: Any, schema: str | None) -> list[str]:
    """Materialized views are views to an analyst (PostgreSQL, Oracle); a dialect without them has none."""
    try:
        return list(insp.get_materialized_view_names(schema=schema))
    except NotImplementedError:
        return []


def _group_names(database: str, schemas: list[str | None], links: Iterable[tuple[str | None, str | None]],
                 used: set[str]) -> dict[str | None, tuple[str, str]]:
    """Schema -> (group, table id prefix). Schemas joined by foreign keys, either way and transitively, share a
    group, for a group is what a plan stays inside: `db` when it holds all the schemas, else `db.s1+s2`
    (one schema: `db.s`). A group of several schemas puts the schema in its ids (`group.schema.table`).
    Group names are unique across sources (`used`), with `_2`, `_3`... where one is taken."""
    parent = {s: s for s in schemas}

    def root(s: str | None) -> str | None:
        while parent[s] != s:
            s = parent[s]
        return s

    for a, b in links:
        if a in parent and b in parent:
            ra, rb = sorted((root(a), root(b)), key=_order)
            parent[rb] = ra
    parts: dict[str | None, list[str | None]] = {}
    for s in schemas:
        parts.setdefault(root(s), []).append(s)
    out = {}
    for members in parts.values():  # in the order of their first schema, as `schemas` is sorted
        base = database if len(parts) == 1 else f"{database}.{'+'.join(_order(s) for s in members)}"
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}_{n}"
        used.add(name)
        for s in members:
            out[s] = (name, f"{name}.{s}" if len(members) > 1 else name)
    return out


def _sql_name(insp: Any, schema: str | None, name: str) -> str:
    return name if schema is None or schema == insp.default_schema_name else f"{schema}.{name}"


def _type_text(t: Any) -> str:
    import sqlalchemy as sa

    if isinstance(t, sa.types.NullType):  # no declared type (SQLite, a view's computed column): say nothing
        return ""
    try:
        return str(t)
    except Exception:  # noqa: BLE001 - a type SQLAlchemy cannot compile is still worth its class name
        return type(t).__name__


def _reflect(insp: Any, schema: str | None, name: str, is_view: bool) -> Relation:
    """A view has no keys; its comment, like a table's, is its description."""
    cols = tuple({"name": c["name"], "type": _type_text(c["type"]), "description": c.get("comment") or ""}
                 for c in insp.get_columns(name, schema=schema))
    try:
        comment = insp.get_table_comment(name, schema=schema).get("text") or ""
    except NotImplementedError:  # SQLite has no comments
        comment = ""
    sql_name = _sql_name(insp, schema, name)
    if is_view:
        return Relation(schema, name, True, sql_name, comment, cols, (), ())
    pk = tuple(insp.get_pk_constraint(name, schema=schema).get("constrained_columns") or ())
    return Relation(schema, name, False, sql_name, comment, cols, pk, tuple(_foreign_keys(insp, schema, name)))


def _foreign_keys(insp: Any, schema: str | None, name: str) -> Iterator[ForeignKey]:
    for fk in insp.get_foreign_keys(name, schema=schema):
        # PostgreSQL reports the default schema (public) as None; SQLite's only schema is None.
        ref_schema = fk.get("referred_schema") or (insp.default_schema_name if schema is not None else None)
        ref_cols = fk.get("referred_columns") or insp.get_pk_constraint(
            fk["referred_table"], schema=ref_schema).get("constrained_columns") or []
        yield ref_schema, fk["referred_table"], tuple(zip(fk.get("constrained_columns") or [], ref_cols,
                                                          strict=False))


def _samples(conn: Any, r: Relation, n: int, warn: Warn) -> list[dict[str, Any]]:
    """Up to n rows, in primary-key order when there is one (a view has none); a failure costs the rows only."""
    import sqlalchemy as sa

    names = [c["name"] for c in r.columns]
    if n <= 0 or not names:
        return []
    t = sa.table(r.name, *(sa.column(c) for c in names), schema=r.schema)
    stmt = sa.select(t).limit(n)
    if r.primary_key:
        stmt = stmt.order_by(*(t.c[c] for c in r.primary_key if c in t.c))
    try:
        rows = conn.execute(stmt).fetchall()
    except sa.exc.SQLAlchemyError as e:
        conn.rollback()
        warn(f"{'view' if r.is_view else 'table'} {r.sql_name!r}: no sample rows", e)
        return []
    out = []
    for row in rows:
        kept = {}
        for name, v in zip(names, row, strict=True):
            keep, value = sample_value(v)
            if keep:
                kept[name] = value
        out.append(kept)
    return out
