"""Catalog import from live databases with SQLAlchemy's inspector (the optional `import` extra).

This module finds the sources and connects; catalog_read reads one database. SQLAlchemy and the drivers are
imported inside functions only, when an import runs, so `submission/` works without them. Read-only: SQLite
files are opened with `mode=ro`, PostgreSQL sessions are read-only transactions, and nothing is ever
committed. A password in a URL is replaced by *** in every message.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import CatalogError
from .catalog import parse_catalog
from .catalog_read import Database, read_database

SQLITE_MAGIC = b"SQLite format 3\x00"


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


def import_catalog(specs: Sequence[str], out: Path, sample_rows: int = 3, views: bool = True,
                   log: Callable[[str], None] = lambda _m: None) -> str:
    """Read every source, write the benchmark-format catalog to `out` (atomically), return a summary.

    Views are read as tables (analysts query them) unless `views` is False."""
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        raise CatalogError("catalog import needs SQLAlchemy, the optional 'import' extra: "
                           "pip install sqlalchemy 'psycopg[binary]'") from None
    tables: list[dict[str, Any]] = []
    rels: list[dict[str, str]] = []
    n_views = 0
    used: set[str] = set()
    sources = resolve(specs)
    for src in sources:
        db = _read_database(src, sample_rows, views, used, log)
        tables.extend(db.tables)
        rels.extend(db.relationships)
        n_views += db.views
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
    of_them = f" ({n_views} of them views)" if n_views else ""
    return (f"{len(sources)} database(s), {len(catalog.tables)} tables{of_them}, {len(catalog.relationships)} "
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


def _read_database(src: Source, sample_rows: int, views: bool, used: set[str],
                   log: Callable[[str], None]) -> Database:
    import sqlalchemy as sa

    def warn(what: str, e: BaseException | None) -> None:
        why = f": {scrub(str(getattr(e, 'orig', e)), src.secret)}" if e is not None else ""
        log(f"warning: database {src.label}, {what}{why}")

    engine = _engine(src)
    try:
        with read_only(engine) as conn:
            db = read_database(conn, src.database, used, sample_rows, views, warn)
            conn.rollback()  # nothing was written; end the read-only transaction explicitly
    except sa.exc.SQLAlchemyError as e:
        raise CatalogError(f"database {src.label}: {scrub(str(getattr(e, 'orig', e)), src.secret)}") from None
    finally:
        engine.dispose()
    log(f"{src.label}: {len(db.tables)} tables in {db.groups} group(s)")
    return db
