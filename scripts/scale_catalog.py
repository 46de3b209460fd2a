"""Synthetic Spider-shaped catalogs: perturbed copies of the template databases, and questions with known plans."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from scale_vocab import AFFIXES, Template, TTable, Vocab

#: Tables per gold plan in Spider dev (1034 questions).
PLAN_SIZES = {1: 575, 2: 393, 3: 60, 4: 6}


# --- catalog generator ------------------------------------------------------------------------------------
def split_words(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").lower()


def camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[_\s]+", name) if p)


class CatalogGen:
    """Seeded: the same (vocab, seed, n_tables) always gives the same catalog and questions."""

    def __init__(self, vocab: Vocab, seed: int) -> None:
        self.v = vocab
        self.r = random.Random(seed)
        weights = Counter(min(26, max(2, len(t.tables))) for t in vocab.templates)
        self.by_size: dict[int, list[Template]] = {}
        for t in vocab.templates:
            if len(t.tables) >= 2:
                self.by_size.setdefault(len(t.tables), []).append(t)
        self.sizes = sorted(self.by_size)
        self.size_weights = [weights[s] for s in self.sizes]

    def _value(self, col: str, ctype: str, old: Any) -> Any:
        r = self.r
        if isinstance(old, (int, float)) and not isinstance(old, bool):
            return type(old)(old * r.uniform(0.5, 1.5)) if r.random() < 0.7 else old
        pool = self.v.values_by_column.get(col.lower())
        if ctype in ("number", "time", "boolean"):
            return r.choice(pool) if pool else r.randint(1, 5000)
        if old is None or r.random() < 0.5:
            old = r.choice(pool) if pool and r.random() < 0.7 else r.choice(self.v.text_values)
        if isinstance(old, str) and " " in old and r.random() < 0.5:  # recombine two values' words
            other = r.choice(self.v.text_values).split()
            old = " ".join(old.split()[:-1] + other[-1:])
        return old

    def _table_name(self, t: TTable, taken: set[str]) -> tuple[str, str]:
        r = self.r
        x = r.random()
        if x < 0.45:
            name, desc = t.name, t.description
        elif x < 0.65:
            name, desc = r.choice(self.v.table_names)
        elif x < 0.85:
            aff = r.choice(AFFIXES if r.random() < 0.6 else self.v.words)
            name, desc = (
                (f"{t.name}_{aff}", f"{t.description or split_words(t.name)} {aff}")
                if r.random() < 0.7
                else (f"{aff}_{t.name}", f"{aff} {t.description or split_words(t.name)}")
            )
        else:
            name, desc = camel(t.name), t.description
        base, k = name, 2
        while name.lower() in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name.lower())
        return name, desc

    def group(self, tpl: Template, gname: str) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
        r = self.r
        keep = {(ti, c) for ti, c, _, _ in tpl.fks} | {(tj, c) for _, _, tj, c in tpl.fks}
        taken: set[str] = set()
        tables: list[dict[str, Any]] = []
        names: list[str] = []
        for ti, t in enumerate(tpl.tables):
            name, desc = self._table_name(t, taken)
            names.append(name)
            cols: list[tuple[str, str, str, str]] = []  # new name, type, description, template name
            used: set[str] = set()
            for c in t.columns:
                fixed = (ti, c[0]) in keep or c[0] in t.pk
                x = r.random()
                if not fixed and x < 0.1 and len(t.columns) > 2:
                    continue
                new = c
                if not fixed and x < 0.3 and self.v.columns_by_type.get(c[1]):
                    new = r.choice(self.v.columns_by_type[c[1]])
                if new[0].lower() in used:
                    new = c
                if new[0].lower() in used:
                    continue
                used.add(new[0].lower())
                cols.append((new[0], new[1], new[2], c[0]))
            if r.random() < 0.15:
                ctype = r.choice(sorted(self.v.columns_by_type))
                extra = r.choice(self.v.columns_by_type[ctype])
                if extra[0].lower() not in used:
                    used.add(extra[0].lower())
                    cols.append((extra[0], extra[1], extra[2], ""))
            rows = [
                {n: self._value(n, ct, row.get(old) if old == n else None) for n, ct, _, old in cols}
                for row in t.rows
            ]
            tables.append(
                {
                    "table_id": f"{gname}.{name}",
                    "group": gname,
                    "name": name,
                    "description": desc,
                    "columns": [{"name": n, "type": ct, "description": d} for n, ct, d, _ in cols],
                    "primary_key": [p for p in t.pk if p in used or p.lower() in used],
                    "sample_rows": rows,
                }
            )
        rels = [
            {
                "left_table": f"{gname}.{names[a]}",
                "left_column": ca,
                "right_table": f"{gname}.{names[b]}",
                "right_column": cb,
            }
            for a, ca, b, cb in tpl.fks
        ]
        return tables, rels

    def catalog(self, n_tables: int) -> dict[str, Any]:
        tables: list[dict[str, Any]] = []
        rels: list[dict[str, str]] = []
        gid = 0
        while len(tables) < n_tables:
            left = n_tables - len(tables)
            sizes = [s for s in self.sizes if s <= left] or [min(self.sizes)]
            size = self.r.choices(sizes, weights=[self.size_weights[self.sizes.index(s)] for s in sizes])[0]
            tpl = self.r.choice(self.by_size[size])
            gid += 1
            word = self.r.choice(self.v.words)
            t, rl = self.group(tpl, f"{tpl.db}_{word}_{gid}")
            tables.extend(t)
            rels.extend(rl)
        tables = tables[:n_tables]  # the last group may be cut short: keep only its relationships inside
        kept = {t["table_id"] for t in tables}
        return {
            "tables": tables,
            "relationships": [x for x in rels if x["left_table"] in kept and x["right_table"] in kept],
        }


# --- questions with known plans ---------------------------------------------------------------------------
def _label(t: dict[str, Any]) -> str:
    d = (t.get("description") or "").strip()
    return d.lower() if d else split_words(t["name"])


def _col(t: dict[str, Any], r: random.Random, numeric: bool | None = None) -> str:
    cols = [c for c in t["columns"] if numeric is None or (c["type"] == "number") == numeric]
    cols = cols or t["columns"]
    if not cols:
        return "details"
    c = r.choice(cols)
    return (c.get("description") or split_words(c["name"])).lower()


def _value(t: dict[str, Any], r: random.Random) -> str | None:
    vals = [v for row in t["sample_rows"] for v in row.values() if isinstance(v, str) and 2 < len(v) <= 40]
    return r.choice(vals) if vals else None


def questions(cat: dict[str, Any], n: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """n questions over random groups with plans of 1-4 joined tables (Spider dev's mix of sizes)."""
    r = random.Random(seed)
    by_id = {t["table_id"]: t for t in cat["tables"]}
    groups: dict[str, list[str]] = {}
    for t in cat["tables"]:
        groups.setdefault(t["group"], []).append(t["table_id"])
    adj: dict[str, list[dict[str, str]]] = {}
    for rel in cat["relationships"]:
        if rel["left_table"] != rel["right_table"]:
            adj.setdefault(rel["left_table"], []).append(rel)
            adj.setdefault(rel["right_table"], []).append(rel)
    gnames = sorted(groups)
    queries, labels = [], []
    sizes, weights = list(PLAN_SIZES), list(PLAN_SIZES.values())
    for i in range(n):
        g = r.choice(gnames)
        want = r.choices(sizes, weights=weights)[0]
        linked = [t for t in groups[g] if adj.get(t)]
        start = r.choice(linked if want > 1 and linked else groups[g])
        plan, joins = [start], []
        while len(plan) < want:
            edges = [
                e
                for t in plan
                for e in adj.get(t, [])
                if (e["left_table"] in plan) != (e["right_table"] in plan)
            ]
            if not edges:
                break
            e = r.choice(edges)
            plan.append(e["right_table"] if e["left_table"] in plan else e["left_table"])
            joins.append(e)
        ts = [by_id[t] for t in plan]
        labs = [_label(t) for t in ts]
        val = _value(ts[0], r) if r.random() < 0.5 else None
        if len(ts) == 1:
            q = r.choice(
                [
                    f"How many {labs[0]} are there?",
                    f"List the {_col(ts[0], r)} and {_col(ts[0], r)} of all {labs[0]}.",
                    f"What is the average {_col(ts[0], r, True)} of {labs[0]}?",
                    f"Show the {_col(ts[0], r)} of every {labs[0]} sorted by {_col(ts[0], r)}.",
                ]
            )
            if val:
                q = f"Which {labs[0]} has {_col(ts[0], r, False)} {val}? Give its {_col(ts[0], r)}."
        elif len(ts) == 2:
            q = r.choice(
                [
                    f"Show the {_col(ts[0], r)} of each {labs[0]} and the {_col(ts[1], r)} of its {labs[1]}.",
                    f"For each {labs[1]}, how many {labs[0]} are there?",
                    f"What are the {_col(ts[0], r)} of {labs[0]} whose {labs[1]} {_col(ts[1], r)} "
                    "is the largest?",
                ]
            )
            if val:
                q = (
                    f"List the {_col(ts[1], r)} of {labs[1]} for the {labs[0]} with "
                    f"{_col(ts[0], r, False)} {val}."
                )
        else:
            parts = ", ".join(
                f"the {_col(t, r)} of their {lab}" for t, lab in zip(ts[1:], labs[1:], strict=True)
            )
            q = f"List the {_col(ts[0], r)} of {labs[0]} together with {parts}."
            if val:
                q += f" Only {val}."
        qid = f"scale-{i:05d}"
        queries.append({"query_id": qid, "question": q})
        labels.append({"query_id": qid, "plans": [{"tables": plan, "joins": joins}]})
    return queries, labels


