"""An undocumented, abbreviated copy of a catalog: the schema-side robustness proxy.

Real warehouses name things `cust_nm`, `ord_qty`, `dept_cd` and document none of it; Spider and BIRD mostly
spell their words out, or explain them in descriptions. This writes a copy of a catalog whose table and
column names are abbreviated as such schemas are (a short list of the conventional abbreviations, else,
by a seeded draw per database and word, the first letters, the consonants, or the word kept), with every
description replaced by the abbreviated name (no documentation), and the labels rewritten to the new
table ids and column names, so that the same questions score the same plans. Database names are kept.
A measuring tool, never part of the retriever.

With `--run-together P`, a share P of the names of two words or more (a seeded draw per database and name)
is written as one lower-case word (`cust_id` -> `custid`, `first_nm` -> `firstnm`), as legacy schemas do;
the identifier splitting cannot take those apart.

Usage: python scripts/abbreviate.py --catalog C --labels L --out-catalog C2 --out-labels L2 [--seed 7]
       [--run-together P]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retriever.index.abbreviations import consonants  # noqa: E402
from retriever.index.text import split_identifier  # noqa: E402

#: The conventional abbreviations of database columns (as style guides and legacy schemas write them).
CONVENTIONAL = {
    "number": "num", "quantity": "qty", "amount": "amt", "address": "addr", "description": "desc",
    "department": "dept", "employee": "emp", "customer": "cust", "date": "dt", "name": "nm", "code": "cd",
    "count": "cnt", "total": "tot", "average": "avg", "maximum": "max", "minimum": "min", "year": "yr",
    "month": "mon", "phone": "ph", "telephone": "tel", "position": "pos", "student": "stu", "professor": "prof",
    "product": "prod", "category": "cat", "location": "loc", "information": "info", "organization": "org",
    "percentage": "pct", "percent": "pct", "reference": "ref", "transaction": "txn", "account": "acct",
    "balance": "bal", "status": "stat", "first": "fst", "last": "lst", "identifier": "id", "order": "ord",
    "company": "co", "country": "ctry", "region": "rgn", "manager": "mgr", "salary": "sal", "document": "doc",
    "payment": "pmt", "message": "msg", "source": "src", "destination": "dest", "temperature": "temp",
}


def _draw(seed: int, *parts: str) -> float:
    h = hashlib.sha256("\x00".join((str(seed), *parts)).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def abbreviate_word(word: str, db: str, seed: int) -> str:
    low = word.lower()
    if not low.isalpha() or len(low) <= 3:
        return low
    if low in CONVENTIONAL:
        return CONVENTIONAL[low]
    r = _draw(seed, db, low)
    if r < 0.35 and len(low) >= 6:
        return low[:4]
    if r < 0.7 and len(consonants(low)) >= 3:
        return consonants(low)
    return low


def abbreviate_name(name: str, db: str, seed: int, run_together: float = 0.0) -> str:
    parts = [p for p in re.split(r"[\s\-]+", split_identifier(name)) if p]
    glue = "" if len(parts) > 1 and _draw(seed, db, "run-together", name) < run_together else "_"
    out = glue.join(abbreviate_word(p, db, seed) for p in parts) or name
    return out.lower() if not glue else out


def _unique(names: list[str], new: list[str]) -> list[str]:
    """New names, each clash (two old names made one) resolved by keeping the old name."""
    seen: dict[str, int] = {}
    for n in new:
        seen[n.lower()] = seen.get(n.lower(), 0) + 1
    return [n if seen[n.lower()] == 1 else old for old, n in zip(names, new, strict=True)]


def abbreviate_catalog(catalog: dict, seed: int,
                       run_together: float = 0.0) -> tuple[dict, dict[str, str], dict[tuple[str, str], str]]:
    """(new catalog, old table id -> new, (old table id, old column) -> new column)."""
    by_db: dict[str, list[dict]] = {}
    for t in catalog["tables"]:
        by_db.setdefault(t["group"], []).append(t)
    table_map: dict[str, str] = {}
    col_map: dict[tuple[str, str], str] = {}
    tables = []
    for db, ts in sorted(by_db.items()):
        new_names = _unique([t["name"] for t in ts], [abbreviate_name(t["name"], db, seed, run_together) for t in ts])
        for t, tname in zip(ts, new_names, strict=True):
            tid = f"{db}.{tname}"
            table_map[t["table_id"]] = tid
            olds = [c["name"] for c in t["columns"]]
            news = _unique(olds, [abbreviate_name(c, db, seed, run_together) for c in olds])
            cmap = dict(zip(olds, news, strict=True))
            col_map.update({(t["table_id"], o): n for o, n in cmap.items()})
            tables.append({
                **t, "table_id": tid, "name": tname, "description": tname.replace("_", " "),
                "columns": [{**c, "name": cmap[c["name"]], "description": cmap[c["name"]].replace("_", " ")}
                            for c in t["columns"]],
                "primary_key": [cmap.get(k, k) for k in t.get("primary_key", [])],
                "sample_rows": [{cmap.get(k, k): v for k, v in row.items()} for row in t.get("sample_rows", [])],
            })
    rels = [_join(r, table_map, col_map) for r in catalog.get("relationships", [])]
    return {**catalog, "tables": tables, "relationships": rels}, table_map, col_map


def _join(j: dict, table_map: dict[str, str], col_map: dict[tuple[str, str], str]) -> dict:
    lt, rt = j["left_table"], j["right_table"]
    return {**j, "left_table": table_map[lt], "left_column": col_map.get((lt, j["left_column"]), j["left_column"]),
            "right_table": table_map[rt], "right_column": col_map.get((rt, j["right_column"]), j["right_column"])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--catalog", type=Path, required=True)
    ap.add_argument("--labels", type=Path, required=True)
    ap.add_argument("--out-catalog", type=Path, required=True)
    ap.add_argument("--out-labels", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--run-together", type=float, default=0.0, metavar="P",
                    help="share of the names of several words written as one lower-case word (0 to 1)")
    a = ap.parse_args(argv)
    if not 0.0 <= a.run_together <= 1.0:
        ap.error(f"--run-together {a.run_together} is not a share between 0 and 1")
    catalog = json.loads(a.catalog.read_text())
    new, table_map, col_map = abbreviate_catalog(catalog, a.seed, a.run_together)
    a.out_catalog.parent.mkdir(parents=True, exist_ok=True)
    a.out_catalog.write_text(json.dumps(new))
    changed = sum(1 for t in catalog["tables"] for c in t["columns"]
                  if col_map[(t["table_id"], c["name"])].lower() != c["name"].lower())
    with a.labels.open() as src, a.out_labels.open("w") as out:
        for line in src:
            lab = json.loads(line)
            lab["plans"] = [{"tables": [table_map.get(t, t) for t in p["tables"]],
                             "joins": [_join(j, table_map, col_map) for j in p["joins"]]} for p in lab["plans"]]
            out.write(json.dumps(lab) + "\n")
    renamed = sum(k.split(".", 1)[1].lower() != v.split(".", 1)[1].lower() for k, v in table_map.items())
    print(f"{len(table_map)} tables ({renamed} renamed), {len(col_map)} columns ({changed} renamed)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
