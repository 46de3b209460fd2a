"""Vocabulary for the synthetic catalogs: Spider's databases as group templates, or a built-in word list."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPIDER = ROOT.parent / "shared" / "data" / "spider" / "catalog.json"
#: Spider's group-size histogram (tables per database -> databases), from catalog.json.
SPIDER_GROUP_SIZES = {
    2: 31,
    3: 67,
    4: 33,
    5: 13,
    6: 10,
    7: 18,
    8: 6,
    9: 4,
    10: 2,
    11: 6,
    12: 3,
    13: 3,
    14: 2,
    15: 3,
    16: 3,
    18: 1,
    26: 1,
}
AFFIXES = (
    "info",
    "details",
    "record",
    "log",
    "history",
    "list",
    "data",
    "master",
    "v2",
    "archive",
    "registry",
    "entry",
    "map",
    "link",
    "stats",
)



# --- vocabulary -----------------------------------------------------------------------------------------
@dataclass
class TTable:
    name: str
    description: str
    columns: list[tuple[str, str, str]]  # name, type, description
    pk: list[str]
    rows: list[dict[str, Any]]


@dataclass
class Template:
    db: str
    tables: list[TTable]
    fks: list[tuple[int, str, int, str]]


@dataclass
class Vocab:
    source: str
    templates: list[Template]
    table_names: list[tuple[str, str]]
    columns_by_type: dict[str, list[tuple[str, str, str]]]
    values_by_column: dict[str, list[Any]]
    text_values: list[str]
    words: list[str]
    fk_columns: set[tuple[int, str]] = field(default_factory=set)


def spider_vocab(path: Path) -> Vocab:
    data = json.loads(path.read_text(encoding="utf-8"))
    by_group: dict[str, list[dict[str, Any]]] = {}
    for t in data["tables"]:
        by_group.setdefault(t["group"], []).append(t)
    pos = {t["table_id"]: (t["group"], i) for g in by_group.values() for i, t in enumerate(g)}
    fks: dict[str, list[tuple[int, str, int, str]]] = {g: [] for g in by_group}
    for r in data["relationships"]:
        (ga, a), (gb, b) = pos[r["left_table"]], pos[r["right_table"]]
        if ga == gb and a != b:
            fks[ga].append((a, r["left_column"], b, r["right_column"]))
    templates = []
    names: dict[tuple[str, str], None] = {}
    cols: dict[str, dict[tuple[str, str, str], None]] = {}
    values: dict[str, list[Any]] = {}
    texts: list[str] = []
    for g, tabs in by_group.items():
        tt = []
        for t in tabs:
            columns = [(c["name"], c.get("type") or "text", c.get("description") or "") for c in t["columns"]]
            tt.append(
                TTable(
                    t["name"],
                    t.get("description") or "",
                    columns,
                    list(t.get("primary_key") or []),
                    [dict(r) for r in t.get("sample_rows") or []],
                )
            )
            names[(t["name"], t.get("description") or "")] = None
            for c in columns:
                cols.setdefault(c[1], {})[c] = None
            for r in t.get("sample_rows") or []:
                for k, v in r.items():
                    if v is None or isinstance(v, bool):
                        continue
                    values.setdefault(k.lower(), []).append(v)
                    if isinstance(v, str) and 2 < len(v) <= 40:
                        texts.append(v)
        templates.append(Template(g, tt, fks[g]))
    words = sorted({w for n, d in names for w in re.findall(r"[a-z]{3,}", f"{n} {d}".lower())})
    return Vocab(
        f"spider ({path})",
        templates,
        list(names),
        {k: list(v) for k, v in cols.items()},
        values,
        texts,
        words,
    )


BUILTIN_ENTITIES = """
    student course teacher department employee customer order product supplier invoice payment account branch
    bank loan city country airport flight airline aircraft route station train ship port hotel room booking
    guest restaurant dish menu chef recipe book author publisher library member loan event venue ticket concert
    singer song album artist band genre movie actor director studio review user post comment tag photo school
    club sport team player coach match game stadium league season party election candidate voter region hospital
    doctor nurse patient appointment treatment drug company shop store warehouse shipment vehicle driver car
    manufacturer model museum exhibition painting visitor farm animal crop competition journal paper conference
    institution project grant building apartment tenant owner pet dog breed
""".split()
BUILTIN_ATTRS = """
    name title code type status date year age price amount quantity rating score rank level city country address
    phone email description category capacity height weight salary budget duration start_date end_date location
    color size population area gender nationality language version total count
""".split()
NUMERIC_ATTRS = frozenset(
    """
    year age price amount quantity rating score rank capacity height weight salary budget duration
    population area total count
    """.split()
)
BUILTIN_VALUES = """
    Smith Johnson Lee Brown Garcia Martin Paris London Tokyo Berlin Madrid Rome Boston Denver red green blue
    gold silver active closed pending Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Oscar Peggy
    Trent Victor Walter Europe Asia Africa Ocean Summit Valley River Lake Forest
""".split()


def builtin_vocab(seed: int) -> Vocab:
    """Spider-shaped templates from a small word list, for machines without the Spider catalog."""
    rng = random.Random(seed)
    sizes = [s for s, n in SPIDER_GROUP_SIZES.items() for _ in range(n)]
    templates = []
    for k in range(200):
        ents = rng.sample(BUILTIN_ENTITIES, rng.choice(sizes))
        tables = []
        for e in ents:
            attrs = rng.sample(BUILTIN_ATTRS, rng.randint(2, 7))
            cols = [(f"{e}_id", "number", f"{e} id")]
            cols += [(a, "number" if a in NUMERIC_ATTRS else "text", a.replace("_", " ")) for a in attrs]
            rows = [
                {
                    c[0]: (rng.randint(1, 2000) if c[1] == "number" else rng.choice(BUILTIN_VALUES))
                    for c in cols
                }
                for _ in range(rng.choice([0, 3, 3, 3]))
            ]
            tables.append(TTable(e, e, cols, [f"{e}_id"], rows))
        fks = []
        for i in range(1, len(tables)):
            j = rng.randrange(i)
            ref = f"{ents[j]}_id"
            tables[i].columns.append((ref, "number", ref.replace("_", " ")))
            fks.append((i, ref, j, ref))
        templates.append(Template(f"db{k}_{ents[0]}", tables, fks))
    by_type: dict[str, list[tuple[str, str, str]]] = {}
    for t in templates:
        for tt in t.tables:
            for c in tt.columns:
                by_type.setdefault(c[1], []).append(c)
    return Vocab(
        "built-in word list",
        templates,
        [(e, e) for e in BUILTIN_ENTITIES],
        by_type,
        {a: list(BUILTIN_VALUES) for a in BUILTIN_ATTRS},
        list(BUILTIN_VALUES),
        sorted(set(BUILTIN_ENTITIES + BUILTIN_ATTRS)),
    )


