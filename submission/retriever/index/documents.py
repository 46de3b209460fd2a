"""What each table, column and group looks like to the lexical and dense channels."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .catalog import Catalog, Column, Table
from .text import schema_tokens, split_identifier, tokenize, value_key

#: Sample values longer than this are prose, not something a question quotes.
MAX_VALUE_CHARS = 60


@dataclass(frozen=True)
class Documents:
    table_tokens: list[list[str]]
    column_tokens: list[list[str]]
    #: Index of the table owning each column document.
    column_table: list[int]
    group_tokens: list[list[str]]
    value_tokens: list[list[str]]
    table_texts: list[str]
    column_texts: list[str]
    #: One text per group (in group_order): what the whole database is about, for routing.
    group_texts: list[str]
    #: Normalised sample value -> tables holding it (for exact phrase matches in the question).
    value_phrases: dict[str, list[int]]
    #: Each table's human name alone (the dense channels' quality probe asks for it).
    table_labels: list[str]


def column_values(table: Table, column: Column) -> list[str]:
    out = []
    for row in table.sample_rows:
        v = row.get(column.name)
        if v is None or isinstance(v, bool):
            continue
        s = str(v).strip()
        if s and len(s) <= MAX_VALUE_CHARS:
            out.append(s)
    return out


def _label(name: str, description: str) -> str:
    """The human form of an identifier: its description when it has one, else the split name."""
    d = description.strip()
    n = split_identifier(name).strip()
    return d if d and d.lower() != n.lower() else n


def table_text(t: Table) -> str:
    cols = ", ".join(_label(c.name, c.description) for c in t.columns)
    return f"{_label(t.name, t.description)}: {cols}"


def column_text(t: Table, c: Column) -> str:
    values = column_values(t, c)
    tail = f" (e.g. {', '.join(values[:3])})" if values and c.type.lower() not in ("number", "int", "real") else ""
    return f"{_label(c.name, c.description)} of {_label(t.name, t.description)}{tail}"


def build_documents(catalog: Catalog) -> Documents:
    table_tokens, column_tokens, column_table, value_tokens = [], [], [], []
    table_texts, column_texts = [], []
    phrases: dict[str, set[int]] = {}
    groups: dict[str, list[str]] = {}
    for ti, t in enumerate(catalog.tables):
        name_toks = schema_tokens(t.name) + schema_tokens(t.description)
        toks = name_toks * 2
        vals: list[str] = []
        for c in t.columns:
            ctoks = schema_tokens(c.name) + schema_tokens(c.description)
            toks += ctoks
            cvals = column_values(t, c)
            vals.extend(cvals)
            column_tokens.append(name_toks + ctoks * 2 + _flat(tokenize(v) for v in cvals))
            column_table.append(ti)
            column_texts.append(column_text(t, c))
            for v in cvals:
                key = value_key(v)
                if len(key) >= 3 and not key.replace(" ", "").isdigit():
                    phrases.setdefault(key, set()).add(ti)
        table_tokens.append(toks)
        value_tokens.append(_flat(tokenize(v) for v in vals))
        table_texts.append(table_text(t))
        groups.setdefault(t.group, tokenize(t.group)).extend(toks)
    order = group_order(catalog)
    group_tokens = [groups[g] for g in order]
    labels: dict[str, list[str]] = {}
    for t in catalog.tables:
        labels.setdefault(t.group, []).append(_label(t.name, t.description))
    group_texts = [f"{split_identifier(g)}: {', '.join(labels[g])}" for g in order]
    return Documents(table_tokens, column_tokens, column_table, group_tokens, value_tokens, table_texts,
                     column_texts, group_texts, {k: sorted(v) for k, v in sorted(phrases.items())},
                     [_label(t.name, t.description) for t in catalog.tables])


#: Column-name stems that mark a table holding names of things.
NAME_STEMS = frozenset({"name", "titl"})


def named_tables(catalog: Catalog) -> np.ndarray:
    """Per table: it has a name or title column, where a value the question quotes or capitalises would live."""
    return np.asarray([any(s in NAME_STEMS for c in t.columns for s in tokenize(c.name)) for t in catalog.tables],
                      dtype=np.bool_)


#: Where the build keeps `temporal_tables`.
TEMPORAL_TABLES_FILE = "temporal_tables.npy"
#: What says a column holds when something happened: its type ("date", "datetime", "timestamp", Spider's
#: "time"), a word of its name ("Year", "ship_date"), or how a run-together name ends ("birthdate",
#: "last_update"), less the words that only end like a date.
TEMPORAL_TYPE = re.compile(r"date|time|year")
TEMPORAL_STEMS = frozenset({"year", "yr", "date", "time", "day", "month", "timestamp", "datetim"})
TEMPORAL_END = re.compile(r"(date|year)s?$")
NOT_DATES = ("candidate", "mandate", "validate", "consolidate", "accommodate")


def temporal_tables(catalog: Catalog) -> np.ndarray:
    """Per table: a column says when something happened, where a year or month the question gives is read."""
    def when(c: Column) -> bool:
        low = c.name.lower()
        ends = bool(TEMPORAL_END.search(low)) and not low.rstrip("s").endswith(NOT_DATES)
        return (bool(TEMPORAL_TYPE.search(c.type.lower())) or ends
                or any(s in TEMPORAL_STEMS for s in tokenize(c.name)))
    return np.asarray([any(when(c) for c in t.columns) for t in catalog.tables], dtype=np.bool_)


def group_order(catalog: Catalog) -> list[str]:
    """Groups in first-appearance order: the row order of every group-level array."""
    seen: dict[str, None] = {}
    for t in catalog.tables:
        seen.setdefault(t.group, None)
    return list(seen)


def _flat(parts: Iterable[list[str]]) -> list[str]:
    return [tok for p in parts for tok in p]
