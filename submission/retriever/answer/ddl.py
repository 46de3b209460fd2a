"""Prompt-ready output: CREATE TABLE statements for an answer's tables, most relevant first.

What a person pastes into a text-to-SQL prompt: columns with types, keys, the chosen joins as FOREIGN KEY
clauses, descriptions and a few sample values as comments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..index.catalog import Catalog

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Words a bare identifier may not be in common SQL dialects; such names are quoted.
_RESERVED = frozenset("""all and as asc by case check column constraint create cross default desc distinct
drop else end except foreign from full group having in index inner insert intersect into is join key left
like limit not null offset on or order outer primary references right select set table then to union
unique update user using values when where with""".split())
#: Sample values shown per column.
SAMPLES_SHOWN = 3


def quote_ident(name: str) -> str:
    """Bare when safe, else double-quoted with embedded quotes doubled (standard SQL). A name with a capital
    is quoted: PostgreSQL folds a bare `Orders` to `orders`, which is another table; SQLite matches either."""
    if _PLAIN.match(name) and name == name.lower() and name not in _RESERVED:
        return name
    return '"' + name.replace('"', '""') + '"'


def quote_table(name: str) -> str:
    """A table's name as SQL: the importer names a table outside the default schema `schema.table`, which
    stays qualified (each part quoted as it needs) where both parts are plain words; else one identifier."""
    parts = name.split(".")
    if len(parts) == 2 and all(_PLAIN.match(p) for p in parts):
        return ".".join(quote_ident(p) for p in parts)
    return quote_ident(name)


def _comment(text: str) -> str:
    """One line, safe inside a -- comment."""
    return " ".join(str(text).split())


def _sample(v: str) -> str:
    try:
        float(v)
        return v
    except ValueError:
        return "'" + v.replace("'", "''") + "'"


def _is_name_echo(description: str, column: str) -> bool:
    """Spider-style descriptions that only respell the column name add nothing to a prompt."""
    return _comment(description).lower() == " ".join(column.replace("_", " ").split()).lower()


def render_ddl(
    catalog: Catalog,
    details: Sequence[Sequence[Any]] | None,
    tables: Sequence[int],
    joins: Sequence[int],
    probs: Mapping[int, float],
    question: str,
    warning: str = "",
) -> str:
    """DDL for `tables` (catalog positions, in the order given) with the relationships `joins` as keys."""
    lines = [f"-- Tables for: {_comment(question)}",
             "-- most relevant first; p = share of the answer's probability carried by plans using the table"]
    if warning:
        lines.append(f"-- WARNING: {_comment(warning)}")
    if details is None:
        lines.append("-- (index built without column details: types and sample values unknown; rebuild it)")
    pos = catalog.positions()
    for t in tables:
        table = catalog.tables[t]
        types, descs, samples = details[t] if details is not None else ([], [], [])
        lines.append("")
        lines.append(f"-- {_comment(table.table_id)} (database {_comment(table.group)}, p={probs.get(t, 0.0):.3f})")
        if table.description and not _is_name_echo(table.description, table.name):
            lines.append(f"-- {_comment(table.description)}")
        items: list[tuple[str, str]] = []
        for i, col in enumerate(table.columns):
            ctype = types[i] if i < len(types) else ""
            notes = []
            if i < len(descs) and descs[i] and not _is_name_echo(descs[i], col.name):
                notes.append(_comment(descs[i]))
            if i < len(samples) and samples[i]:
                notes.append("e.g. " + ", ".join(_sample(v) for v in samples[i][:SAMPLES_SHOWN]))
            items.append((f"{quote_ident(col.name)} {ctype}".rstrip(), _comment("; ".join(notes))))
        if table.primary_key:
            items.append((f"PRIMARY KEY ({', '.join(quote_ident(c) for c in table.primary_key)})", ""))
        for r in joins:
            rel = catalog.relationships[r]
            if rel.left_table != table.table_id:
                continue
            other = catalog.tables[pos[rel.right_table]]
            ref = other.name if other.group == table.group else other.table_id
            items.append((f"FOREIGN KEY ({quote_ident(rel.left_column)}) REFERENCES {quote_table(ref)} "
                          f"({quote_ident(rel.right_column)})", "chosen join"))
        lines.append(f"CREATE TABLE {quote_table(table.name)} (")
        for i, (text, note) in enumerate(items):
            sep = "," if i < len(items) - 1 else ""
            lines.append(f"  {text}{sep}" + (f"  -- {note}" if note else ""))
        lines.append(");")
    return "\n".join(lines) + "\n"
