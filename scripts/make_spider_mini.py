"""Cut tests/fixtures/spider_mini from the pooled Spider catalog and its train split (deterministic).

Usage: python scripts/make_spider_mini.py [--spider ../shared/data/spider] [--out tests/fixtures/spider_mini]

Rules:
  * databases: the fixed list DATABASES below, all Spider *train* databases (the script refuses a database
    that has dev questions); their tables and every relationship among them are copied verbatim, in the
    order of the source catalog.
  * questions: walking the databases cyclically, one question per step, taking the lowest query id of that
    database whose single plan has the wanted number of tables, is connected (joins = tables - 1) and has
    no unexpressible join, until QUOTA questions of each plan size are chosen. Query and label lines are
    copied byte for byte, in query id order.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: college_3 has 8 tables and three junction tables; Student, aircraft and people each occur in two databases.
DATABASES = (
    "college_3",
    "dorm_1",
    "debate",
    "company_employee",
    "flight_1",
    "pilot_record",
    "store_product",
    "wine_1",
)
#: Questions per plan size (tables in the plan).
QUOTA = {1: 5, 2: 5, 3: 5}


def read_lines(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(raw line, parsed object) for every non-blank line of a JSONL file."""
    with open(path, encoding="utf-8") as f:
        lines = [line if line.endswith("\n") else line + "\n" for line in f if line.strip()]
    return [(line, json.loads(line)) for line in lines]


def cut_catalog(catalog: dict[str, Any], dbs: tuple[str, ...]) -> dict[str, Any]:
    """The tables of `dbs` and the relationships whose two ends are among them, verbatim."""
    tables = [t for t in catalog["tables"] if t["group"] in dbs]
    missing = sorted(set(dbs) - {t["group"] for t in tables})
    if missing:
        raise SystemExit(f"make_spider_mini: databases not in the catalog: {', '.join(missing)}")
    ids = {t["table_id"] for t in tables}
    rels = [r for r in catalog["relationships"] if r["left_table"] in ids and r["right_table"] in ids]
    return {"tables": tables, "relationships": rels}


def pick_questions(labels: list[dict[str, Any]], dbs: tuple[str, ...], quota: dict[int, int]) -> list[str]:
    """Query ids chosen by the cyclic rule in the module docstring."""
    by_key: dict[tuple[str, int], list[str]] = {}
    for lab in sorted(labels, key=lambda x: x["query_id"]):
        plan = lab["plans"][0]
        n = len(plan["tables"])
        if len(lab["plans"]) != 1 or lab.get("unexpressible_join") or len(plan["joins"]) != n - 1:
            continue
        by_key.setdefault((lab["db_id"], n), []).append(lab["query_id"])
    chosen: list[str] = []
    cursor = 0
    for size in sorted(quota):
        need = quota[size]
        tried = 0
        while need and tried < len(dbs):
            db = dbs[cursor % len(dbs)]
            cursor += 1
            pool = [q for q in by_key.get((db, size), []) if q not in chosen]
            if pool:
                chosen.append(pool[0])
                need -= 1
                tried = 0
            else:
                tried += 1
        if need:
            raise SystemExit(f"make_spider_mini: only {quota[size] - need} questions with {size} tables")
    return sorted(chosen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spider", type=Path, default=ROOT.parent / "shared" / "data" / "spider")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "spider_mini")
    args = ap.parse_args(argv)
    catalog = json.loads((args.spider / "catalog.json").read_text(encoding="utf-8"))
    queries = read_lines(args.spider / "train" / "queries.jsonl")
    labels = read_lines(args.spider / "train" / "labels.jsonl")
    dev_dbs = {obj["db_id"] for _, obj in read_lines(args.spider / "dev" / "labels.jsonl")}
    train_dbs = {obj["db_id"] for _, obj in labels}
    bad = [d for d in DATABASES if d in dev_dbs or d not in train_dbs]
    if bad:
        raise SystemExit(f"make_spider_mini: not train-only databases: {', '.join(bad)}")

    mini = cut_catalog(catalog, DATABASES)
    chosen = set(pick_questions([obj for _, obj in labels], DATABASES, QUOTA))
    ids = {t["table_id"] for t in mini["tables"]}
    for _, lab in labels:
        if lab["query_id"] in chosen:
            assert set(lab["plans"][0]["tables"]) <= ids, lab["query_id"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "catalog.json").write_text(json.dumps(mini, indent=1, ensure_ascii=False) + "\n",
                                           encoding="utf-8")
    with open(args.out / "queries.jsonl", "w", encoding="utf-8") as f:
        f.writelines(raw for raw, obj in queries if obj["query_id"] in chosen)
    with open(args.out / "labels.jsonl", "w", encoding="utf-8") as f:
        f.writelines(raw for raw, obj in labels if obj["query_id"] in chosen)
    print(f"make_spider_mini: {len(mini['tables'])} tables, {len(mini['relationships'])} relationships, "
          f"{len(chosen)} questions -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
