"""Catalog import from live databases with SQLAlchemy's inspector (the optional `import` extra).

SQLAlchemy and the drivers are imported here only, and only when an import runs, so `submission/` works
without them. Read-only: SQLite files are opened with `mode=ro`, PostgreSQL sessions are read-only
transactions, and nothing is ever committed. A password in a URL is replaced by *** in every message.
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import CatalogError
from .catalog import parse_catalog

SQLITE_MAGIC = b"SQLite format 3\x00"
#: Sample values longer than this are cut; a catalog is for retrieval, not for copying data.
MAX_VALUE_CHARS = 100
_SYSTEM_SCHEMAS = ("information_schema", "pg_catalog", "pg_toast")


@dataclass(frozen=True)
class Source:
    """One database to read: what to call it in messages and groups, and how to connect."""

    label: str
    database: str
    url: str = field(repr=False)
    #: The URL's password, scrubbed from every message; never written anywhere.
    secret: str = field(default="", repr=False)
    sqlite_path: Path | None = None


def sqlite_files(folder: Path) -> list[Path]:
    """SQLite files under `folder` (any depth, by their header, not their suffix), sorted."""
    out = []
    for p in sorted(folder.rglob("*")):
        try:
            if p.is_file() and p.open("rb").read(16) == SQLITE_MAGIC:
                out.append(p)
        except OSError:
            continue
    return out


def resolve(specs: Sequence[str]) -> list[Source]:
    """Turn each --from value into sources; a wrong one is a CatalogError naming it (password hidden)."""
    out: list[Source] = []
    for spec in specs:
        if "://" in spec:
            out.append(_url_source(spec))
            continue
        path = Path(spec)
        if path.is_dir():
            files = sqlite_files(path)
            if not files:
                raise CatalogError(f"--from {spec!r}: no SQLite files in this folder")
            out.extend(_sqlite_source(f) for f in files)
        elif path.is_file():
            with path.open("rb") as f:
                if f.read(16) != SQLITE_MAGIC:
                    raise CatalogError(f"--from {spec!r}: not a SQLite file (use a SQLAlchemy URL for others)")
            out.append(_sqlite_source(path))
        else:
            raise CatalogError(f"--from {spec!r}: no such file or folder, and not a URL")
    return out


def _sqlite_source(path: Path) -> Source:
    return Source(str(path), path.stem, "sqlite://", sqlite_path=path.resolve())


def _url_source(spec: str) -> Source:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(spec)
    except ArgumentError:
        raise CatalogError("--from: not a valid SQLAlchemy URL (scheme://user@host/database)") from None
    secret = url.password or ""
    if url.drivername == "postgresql":  # SQLAlchemy's default driver is psycopg2; the extra installs psycopg 3
        try:
            import psycopg2  # type: ignore[import-untyped]  # noqa: F401
        except ImportError:
            url = url.set(drivername="postgresql+psycopg")
    label = url.render_as_string(hide_password=True)
    if url.get_backend_name() == "sqlite" and url.database:
        return _sqlite_source(Path(url.database))
    return Source(label, url.database or url.host or "db", url.render_as_string(hide_password=False), secret)


def scrub(text: str, secret: str) -> str:
    """One line of a driver's message, with the password (raw and URL-quoted) replaced."""
    line = (text.strip().splitlines() or [""])[0]
    for s in {secret, quote(secret, safe="")} - {""}:
        line = line.replace(s, "***")
    return line


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


def import_catalog(specs: Sequence[str], out: Path, sample_rows: int = 3,
                   log: Callable[[str], None] = lambda _m: None) -> str:
    """Read every source, write the benchmark-format catalog to `out` (atomically), return a summary."""
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        raise CatalogError("catalog import needs SQLAlchemy, the optional 'import' extra: "
                           "pip install sqlalchemy 'psycopg[binary]'") from None
    tables: list[dict[str, Any]] = []
    rels: list[dict[str, str]] = []
    used: set[str] = set()
    sources = resolve(specs)
    for src in sources:
        t, r = _read_database(src, sample_rows, used, log)
        tables.extend(t)
        rels.extend(r)
    if not tables:
        raise CatalogError("no tables found in " + ", ".join(s.label for s in sources))
    data = {"tables": tables, "relationships": rels}
    catalog = parse_catalog(data)  # what build.sh will accept, checked before anything is written
    for w in catalog.warnings:
        log(f"warning: {w}")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    return (f"{len(sources)} database(s), {len(catalog.tables)} tables, {len(catalog.relationships)} "
            f"relationships, {len(catalog.warnings)} warning(s)")


def _engine(src: Source) -> Any:
    import sqlalchemy as sa

    if src.sqlite_path is not None:
        uri = f"file:{quote(str(src.sqlite_path))}?mode=ro"
        return sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True))
    try:
        return sa.create_engine(src.url)
    except Exception as e:  # noqa: BLE001 - unknown dialect, missing driver: one line naming the database
        raise CatalogError(f"database {src.label}: {type(e).__name__}: {scrub(str(e), src.secret)}") from None


@contextmanager
def read_only(engine: Any) -> Iterator[Any]:
    """A connection whose transactions cannot write (PostgreSQL: READ ONLY; SQLite: opened mode=ro)."""
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn.execution_options(postgresql_readonly=True)
        yield conn


def _read_database(src: Source, sample_rows: int, used: set[str],
                   log: Callable[[str], None]) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    import sqlalchemy as sa

    engine = _engine(src)
    try:
        with read_only(engine) as conn:
            insp = sa.inspect(conn)
            schemas = _schemas(insp, conn)
            groups = _group_names(src.database, schemas, used)
            tables: list[dict[str, Any]] = []
            rels: list[dict[str, str]] = []
            for schema, names in schemas.items():
                for name in names:
                    where = f"database {src.label}, table {name!r}"
                    try:
                        t, r = _read_table(insp, schema, name, groups)
                    except sa.exc.SQLAlchemyError as e:
                        conn.rollback()
                        log(f"warning: {where} skipped: {scrub(str(getattr(e, 'orig', e)), src.secret)}")
                        continue
                    t["sample_rows"] = _samples(conn, schema, t, sample_rows, where, src.secret, log)
                    tables.append(t)
                    rels.extend(r)
            conn.rollback()  # nothing was written; end the read-only transaction explicitly
    except sa.exc.SQLAlchemyError as e:
        raise CatalogError(f"database {src.label}: {scrub(str(getattr(e, 'orig', e)), src.secret)}") from None
    finally:
        engine.dispose()
    log(f"{src.label}: {len(tables)} tables in {len(groups)} group(s)")
    return tables, rels


def _schemas(insp: Any, conn: Any) -> dict[str | None, list[str]]:
    """Schema -> its table names; the default schema only, except where a server has several."""
    if conn.dialect.name != "postgresql":
        return {None: sorted(insp.get_table_names())}
    out: dict[str | None, list[str]] = {}
    for s in sorted(insp.get_schema_names()):
        if s not in _SYSTEM_SCHEMAS and not s.startswith("pg_"):
            names = sorted(insp.get_table_names(schema=s))
            if names:
                out[s] = names
    return out


def _group_names(database: str, schemas: Iterable[str | None], used: set[str]) -> dict[str | None, str]:
    """One group per database, or per schema where it has several with tables; unique across sources."""
    schemas = list(schemas)
    out = {}
    for s in schemas:
        base = database if len(schemas) == 1 or s is None else f"{database}.{s}"
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}_{n}"
        used.add(name)
        out[s] = name
    return out


def _type_text(t: Any) -> str:
    try:
        return str(t)
    except Exception:  # noqa: BLE001 - a type SQLAlchemy cannot compile is still worth its class name
        return type(t).__name__


def _read_table(insp: Any, schema: str | None, name: str,
                groups: dict[str | None, str]) -> tuple[dict[str, Any], list[dict[str, str]]]:
    group = groups[schema]
    tid = f"{group}.{name}"
    cols = insp.get_columns(name, schema=schema)
    pk = list(insp.get_pk_constraint(name, schema=schema).get("constrained_columns") or [])
    try:
        comment = insp.get_table_comment(name, schema=schema).get("text") or ""
    except NotImplementedError:  # SQLite has no comments
        comment = ""
    rels = []
    for fk in insp.get_foreign_keys(name, schema=schema):
        # PostgreSQL reports the default schema (public) as None; SQLite's only schema is None.
        ref_schema = fk.get("referred_schema") or (insp.default_schema_name if schema is not None else None)
        ref_group = groups.get(ref_schema, str(ref_schema))
        ref_cols = fk.get("referred_columns") or insp.get_pk_constraint(
            fk["referred_table"], schema=ref_schema).get("constrained_columns") or []
        for left, right in zip(fk.get("constrained_columns") or [], ref_cols, strict=False):
            rels.append({"left_table": tid, "left_column": left,
                         "right_table": f"{ref_group}.{fk['referred_table']}", "right_column": right})
    table = {"table_id": tid, "group": group, "name": name, "description": comment,
             "columns": [{"name": c["name"], "type": _type_text(c["type"]), "description": c.get("comment") or ""}
                         for c in cols],
             "primary_key": pk}
    return table, rels


def _samples(conn: Any, schema: str | None, table: dict[str, Any], n: int, where: str, secret: str,
             log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Up to n rows, in primary-key order when there is one; a failure costs the rows, not the table."""
    import sqlalchemy as sa

    names = [c["name"] for c in table["columns"]]
    if n <= 0 or not names:
        return []
    t = sa.table(table["name"], *(sa.column(c) for c in names), schema=schema)
    stmt = sa.select(t).limit(n)
    if table["primary_key"]:
        stmt = stmt.order_by(*(t.c[c] for c in table["primary_key"] if c in t.c))
    try:
        rows = conn.execute(stmt).fetchall()
    except sa.exc.SQLAlchemyError as e:
        conn.rollback()
        log(f"warning: {where}: no sample rows ({scrub(str(getattr(e, 'orig', e)), secret)})")
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
