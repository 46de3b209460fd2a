"""Scale benchmark (not a test): synthetic Spider-shaped catalogs at 1k, 10k, 100k tables.

For each size it generates, with a fixed seed, a pooled catalog that keeps Spider's shape -- groups of 2-26
tables with Spider's size histogram, each group a perturbed copy of a Spider database (its FK graph, its
table and column names, its sample values, with names swapped, decorated and re-cased and values recombined)
-- plus questions with known plans (1-4 tables, Spider dev's mix). It then runs the real entry scripts as
subprocesses and reports build time, build peak RSS, index size, startup (to the ready line), p50/p95
latency (one question at a time, as the verifier asks), search peak RSS (VmHWM) and plan coverage.

Vocabulary comes from /work/shared/data/spider/catalog.json (override with --spider); when that file is
absent a small built-in word list is used instead.

Usage: python scripts/scale_bench.py [--sizes 1000,10000,100000] [--local-sizes 1000,10000] [--questions 300]
       [--milvus-sizes 100000] [--milvus-local-sizes 10000]   (the same with stage 1 on Milvus, side by side)

Writes docs/scale.md (the table) and docs/scale.png (growth curves; needs matplotlib, a dev-only package:
without it the plot is skipped). Raw results go to WORK/results.json (default WORK: build/scale).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import os
import pstats
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPIDER = ROOT.parent / "shared" / "data" / "spider" / "catalog.json"
SUBMISSION = ROOT / "submission"
#: Targets at 100k tables on the reference 2-core machine.
TARGETS = {"p95_ms": 100.0, "startup_s": 5.0, "build_s": 600.0, "index_bytes": 2 * 2**30}
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
#: Tables per gold plan in Spider dev (1034 questions).
PLAN_SIZES = {1: 575, 2: 393, 3: 60, 4: 6}
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


BUILTIN_ENTITIES = [
    "student",
    "course",
    "teacher",
    "department",
    "employee",
    "customer",
    "order",
    "product",
    "supplier",
    "invoice",
    "payment",
    "account",
    "branch",
    "bank",
    "loan",
    "city",
    "country",
    "airport",
    "flight",
    "airline",
    "aircraft",
    "route",
    "station",
    "train",
    "ship",
    "port",
    "hotel",
    "room",
    "booking",
    "guest",
    "restaurant",
    "dish",
    "menu",
    "chef",
    "recipe",
    "book",
    "author",
    "publisher",
    "library",
    "member",
    "loan",
    "event",
    "venue",
    "ticket",
    "concert",
    "singer",
    "song",
    "album",
    "artist",
    "band",
    "genre",
    "movie",
    "actor",
    "director",
    "studio",
    "review",
    "user",
    "post",
    "comment",
    "tag",
    "photo",
    "school",
    "club",
    "sport",
    "team",
    "player",
    "coach",
    "match",
    "game",
    "stadium",
    "league",
    "season",
    "party",
    "election",
    "candidate",
    "voter",
    "region",
    "hospital",
    "doctor",
    "nurse",
    "patient",
    "appointment",
    "treatment",
    "drug",
    "company",
    "shop",
    "store",
    "warehouse",
    "shipment",
    "vehicle",
    "driver",
    "car",
    "manufacturer",
    "model",
    "museum",
    "exhibition",
    "painting",
    "visitor",
    "farm",
    "animal",
    "crop",
    "competition",
    "journal",
    "paper",
    "conference",
    "institution",
    "project",
    "grant",
    "building",
    "apartment",
    "tenant",
    "owner",
    "pet",
    "dog",
    "breed",
]
BUILTIN_ATTRS = [
    "name",
    "title",
    "code",
    "type",
    "status",
    "date",
    "year",
    "age",
    "price",
    "amount",
    "quantity",
    "rating",
    "score",
    "rank",
    "level",
    "city",
    "country",
    "address",
    "phone",
    "email",
    "description",
    "category",
    "capacity",
    "height",
    "weight",
    "salary",
    "budget",
    "duration",
    "start_date",
    "end_date",
    "location",
    "color",
    "size",
    "population",
    "area",
    "gender",
    "nationality",
    "language",
    "version",
    "total",
    "count",
]
NUMERIC_ATTRS = frozenset(
    [
        "year",
        "age",
        "price",
        "amount",
        "quantity",
        "rating",
        "score",
        "rank",
        "capacity",
        "height",
        "weight",
        "salary",
        "budget",
        "duration",
        "population",
        "area",
        "total",
        "count",
    ]
)
BUILTIN_VALUES = [
    "Smith",
    "Johnson",
    "Lee",
    "Brown",
    "Garcia",
    "Martin",
    "Paris",
    "London",
    "Tokyo",
    "Berlin",
    "Madrid",
    "Rome",
    "Boston",
    "Denver",
    "red",
    "green",
    "blue",
    "gold",
    "silver",
    "active",
    "closed",
    "pending",
    "Alice",
    "Bob",
    "Carol",
    "Dave",
    "Erin",
    "Frank",
    "Grace",
    "Heidi",
    "Ivan",
    "Judy",
    "Mallory",
    "Oscar",
    "Peggy",
    "Trent",
    "Victor",
    "Walter",
    "Europe",
    "Asia",
    "Africa",
    "Ocean",
    "Summit",
    "Valley",
    "River",
    "Lake",
    "Forest",
]


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


# --- measurements -----------------------------------------------------------------------------------------
def _commit(sub: Path) -> str:
    """The git commit of the code under test (and '+dirty' for uncommitted changes), or 'unknown'."""
    try:
        head = subprocess.run(
            ["git", "-C", str(sub), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(sub), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def vm_hwm_mb(pid: int) -> float:
    """Peak resident set (VmHWM) of a live process; search.sh execs python, so its pid is the python's."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def pct(values: Sequence[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float("nan")


def join_key(j: dict[str, str]) -> frozenset[tuple[str, str]]:
    return frozenset([(j["left_table"], j["left_column"]), (j["right_table"], j["right_column"])])


def env_for(mode: str, cache: Path) -> dict[str, str]:
    """Mode `lexical` or `local`, with `+milvus` for stage 1 on Milvus (Lite, inside the index, unless
    RETRIEVER_MILVUS_URI in this environment names a server: it and RETRIEVER_MILVUS_TOKEN pass through)."""
    keep = ("RETRIEVER_MILVUS_URI", "RETRIEVER_MILVUS_TOKEN")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JINA_", "RETRIEVER_")) or k in keep}
    env.update(RETRIEVER_CACHE_DIR=str(cache), RETRIEVER_LOCAL_MODEL="1" if mode.startswith("local") else "0")
    if mode.endswith("+milvus"):
        env["RETRIEVER_BACKEND"] = "milvus"
    return env


def run_build(
    sub: Path, catalog: Path, index: Path, env: dict[str, str], log: Path
) -> tuple[float, float, int]:
    """(seconds, peak RSS MB from wait4, exit code): one build.sh run."""
    t0 = time.monotonic()
    with open(log, "wb") as f:
        proc = subprocess.Popen(
            ["bash", str(sub / "build.sh"), "--corpus", str(catalog), "--index-dir", str(index)],
            stdout=f,
            stderr=f,
            env=env,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return time.monotonic() - t0, usage.ru_maxrss / 1024, proc.returncode


class Search:
    def __init__(self, sub: Path, index: Path, env: dict[str, str], log: Path) -> None:
        self.t0 = time.monotonic()
        self._log = open(log, "ab")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            ["bash", str(sub / "search.sh"), "--index-dir", str(index)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        ready = self.stdout.readline()
        self.startup_s = time.monotonic() - self.t0
        if b'"ready"' not in ready:
            raise RuntimeError(f"search.sh did not get ready: {ready[:200]!r}; see {log}")

    def ask(self, qid: str, question: str) -> tuple[bytes, float]:
        t0 = time.monotonic()
        self.stdin.write(json.dumps({"query_id": qid, "question": question}).encode() + b"\n")
        self.stdin.flush()
        raw = self.stdout.readline()
        return raw, time.monotonic() - t0

    def close(self) -> float:
        rss = vm_hwm_mb(self.proc.pid)
        self.stdin.close()
        self.proc.wait(30)
        self._log.close()
        return rss


def measure(n: int, mode: str, args: argparse.Namespace, vocab: Vocab) -> dict[str, Any]:
    work = args.work / f"{n}-{mode}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    t0 = time.monotonic()
    cat = CatalogGen(vocab, args.seed).catalog(n)
    qs, labels = questions(cat, args.questions, args.seed + 1)
    cpath = work / "catalog.json"
    cpath.write_text(json.dumps(cat, ensure_ascii=False), encoding="utf-8")
    gen_s = time.monotonic() - t0
    n_cols = sum(len(t["columns"]) for t in cat["tables"])
    n_groups = len({t["group"] for t in cat["tables"]})
    print(
        f"[{n} {mode}] generated {len(cat['tables'])} tables, {n_cols} columns, {n_groups} groups, "
        f"{len(cat['relationships'])} relationships, {len(qs)} questions in {gen_s:.1f}s",
        flush=True,
    )
    env = env_for(mode, work / "cache")
    index = work / "index"
    build_s, build_rss, rc = run_build(args.submission, cpath, index, env, work / "build.log")
    if rc != 0:
        raise RuntimeError(f"build failed ({rc}); see {work / 'build.log'}")
    idx_bytes = dir_bytes(index)
    print(
        f"[{n} {mode}] build {build_s:.1f}s, peak RSS {build_rss:.0f} MB, index {idx_bytes / 2**20:.1f} MiB",
        flush=True,
    )
    tables = {t["table_id"] for t in cat["tables"]}
    rels = {join_key(r) for r in cat["relationships"]}
    lab = {x["query_id"]: x for x in labels}
    sp = Search(args.submission, index, env, work / "search.log")
    startups = [sp.startup_s]
    sp.ask("warmup", "Which tables list the names of all items and their owners?")
    lat, hits, invalid = [], 0, 0
    by_size: dict[int, list[int]] = {}
    for q in qs:
        raw, dt = sp.ask(q["query_id"], q["question"])
        lat.append(dt)
        msg = json.loads(raw)
        ids, joins = msg.get("table_ids", []), msg.get("joins", [])
        ok = (
            len(set(ids)) == min(5, len(tables))
            and set(ids) <= tables
            and len(joins) <= 6
            and all(join_key(j) in rels for j in joins)
        )
        invalid += not ok
        keys = {join_key(j) for j in joins}
        plan = lab[q["query_id"]]["plans"][0]
        hit = int(ok and set(plan["tables"]) <= set(ids) and {join_key(j) for j in plan["joins"]} <= keys)
        hits += hit
        by_size.setdefault(len(plan["tables"]), []).append(hit)
    search_rss = sp.close()
    log_text = (work / "search.log").read_text(encoding="utf-8", errors="replace")
    # Questions the engine did not answer in full within its budget (stage 1 on Milvus only): local fallback.
    engine_fallbacks = log_text.count("engine budget spent") + log_text.count("engine call failed")
    for _ in range(args.restarts):
        sp2 = Search(args.submission, index, env, work / "search.log")
        startups.append(sp2.startup_s)
        sp2.close()
    res = {
        "tables": n,
        "mode": mode,
        "columns": n_cols,
        "groups": n_groups,
        "relationships": len(cat["relationships"]),
        "build_s": round(build_s, 2),
        "build_rss_mb": round(build_rss),
        "index_bytes": idx_bytes,
        "startup_s": round(max(startups), 3),
        "startup_runs_s": [round(s, 3) for s in startups],
        "p50_ms": round(1000 * pct(lat, 0.5), 1),
        "p95_ms": round(1000 * pct(lat, 0.95), 1),
        "max_ms": round(1000 * max(lat), 1),
        "search_rss_mb": round(search_rss),
        "questions": len(qs),
        "coverage": round(hits / len(qs), 4),
        "invalid": invalid,
        "engine_fallbacks": engine_fallbacks,
        "coverage_by_plan_tables": {str(k): round(sum(v) / len(v), 3) for k, v in sorted(by_size.items())},
        "vocab": vocab.source,
        "submission": str(args.submission),
        "commit": args.code or _commit(args.submission),
    }
    print(
        f"[{n} {mode}] startup {res['startup_s']}s, p50 {res['p50_ms']} ms, p95 {res['p95_ms']} ms, "
        f"search RSS {res['search_rss_mb']} MB, coverage {res['coverage']}, engine fallbacks {engine_fallbacks}",
        flush=True,
    )
    if args.profile:
        res["profile"] = profile(args.submission.parent, index, qs[: args.profile])
        print(res["profile"], flush=True)
    if not args.keep:
        shutil.rmtree(index, ignore_errors=True)
    return res


def profile(code_root: Path, index: Path, qs: list[dict[str, Any]]) -> str:
    """cProfile of startup (load + planner) and of the questions, in this process (lexical channels only)."""
    sys.path.insert(0, str(code_root))
    from retriever.index import load_index
    from retriever.planner import Planner, default_models

    out = io.StringIO()
    pr = cProfile.Profile()
    pr.enable()
    idx = load_index(index)
    planner = Planner(idx, default_models())
    pr.disable()
    pstats.Stats(pr, stream=out).sort_stats("cumulative").print_stats(18)
    pr = cProfile.Profile()
    pr.enable()
    for q in qs:
        planner.answer(q["question"], {})
    pr.disable()
    out.write(f"\n--- {len(qs)} questions ---\n")
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(18)
    return out.getvalue()


# --- reporting ------------------------------------------------------------------------------------------
METRICS = [
    ("build_s", "build (s)"),
    ("index_bytes", "index (bytes)"),
    ("startup_s", "startup (s)"),
    ("p50_ms", "p50 (ms)"),
    ("p95_ms", "p95 (ms)"),
    ("search_rss_mb", "search peak RSS (MB)"),
    ("build_rss_mb", "build peak RSS (MB)"),
]


def exponents(rows: list[dict[str, Any]]) -> Iterator[tuple[str, int, int, float]]:
    """Local growth exponent d log(metric) / d log(tables) between consecutive sizes of one mode."""
    for mode in sorted({r["mode"] for r in rows}):
        rs = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["tables"])
        for a, b in zip(rs, rs[1:], strict=False):
            for key, _ in METRICS:
                if a[key] > 0 and b[key] > 0:
                    yield (
                        key,
                        a["tables"],
                        b["tables"],
                        math.log(b[key] / a[key]) / math.log(b["tables"] / a["tables"]),
                    )


def markdown(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    lines = [
        "# Scale benchmark results",
        "",
        f"Generated by `scripts/scale_bench.py --sizes {args.sizes} --local-sizes {args.local_sizes} "
        f"--milvus-sizes '{args.milvus_sizes}' --milvus-local-sizes '{args.milvus_local_sizes}' "
        f"--questions {args.questions} --seed {args.seed}` on {os.cpu_count()} CPUs "
        f"({time.strftime('%Y-%m-%d')}). Vocabulary: {rows[0]['vocab'] if rows else '-'}; "
        f"code: {rows[0]['commit'] if rows else '-'}.",
        "Mode `lexical` = `RETRIEVER_LOCAL_MODEL=0` (BM25 + value channels only); `local` = with the offline "
        "MiniLM dense channel. No API key in either. Latency is per question, sent one at a time. "
        "`+milvus` = stage 1 on Milvus (`RETRIEVER_BACKEND=milvus`; Milvus Lite inside the index unless "
        "`RETRIEVER_MILVUS_URI` was set), the index size including the engine's folder.",
        "",
        "| tables | mode | columns | groups | build s | build RSS MB | index MiB | startup s | p50 ms "
        "| p95 ms | search RSS MB | coverage | engine fallbacks |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(rows, key=lambda r: (r["mode"], r["tables"])):
        lines.append(
            f"| {r['tables']:,} | {r['mode']} | {r['columns']:,} | {r['groups']:,} | {r['build_s']} | "
            f"{r['build_rss_mb']} | {r['index_bytes'] / 2**20:.1f} | {r['startup_s']} | {r['p50_ms']} | "
            f"{r['p95_ms']} | {r['search_rss_mb']} | {r['coverage']:.3f} | {r.get('engine_fallbacks', '-')} |"
        )
    lines += [
        "",
        "Growth exponents (1.0 = linear) between consecutive sizes:",
        "",
        "| metric | from | to | exponent |",
        "|---|---:|---:|---:|",
    ]
    for key, a, b, e in exponents(rows):
        flag = " **superlinear**" if e > 1.15 else ""
        lines.append(f"| {key} | {a:,} | {b:,} | {e:.2f}{flag} |")
    big = [r for r in rows if r["tables"] >= 100_000]
    if big:
        lines += ["", "Targets at 100k tables:", ""]
        for r in big:
            for key, lim in TARGETS.items():
                ok = r[key] <= lim
                lines.append(
                    f"- {r['mode']} {key}: {r[key]} (target <= {lim}) {'ok' if ok else '**MISSED**'}"
                )
    return "\n".join(lines) + "\n"


def plot(rows: list[dict[str, Any]], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scale: matplotlib not installed; skipping the plot (pip install matplotlib)", file=sys.stderr)
        return False
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    panels = [
        ("build_s", "build time (s)", TARGETS["build_s"]),
        ("index_bytes", "index size (MiB)", TARGETS["index_bytes"] / 2**20),
        ("startup_s", "startup (s)", TARGETS["startup_s"]),
        ("p50_ms", "p50 latency (ms)", None),
        ("p95_ms", "p95 latency (ms)", TARGETS["p95_ms"]),
        ("search_rss_mb", "search peak RSS (MB)", None),
    ]
    for ax, (key, title, target) in zip(axes.flat, panels, strict=True):
        for mode in sorted({r["mode"] for r in rows}):
            rs = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["tables"])
            xs = [r["tables"] for r in rs]
            ys = [r[key] / 2**20 if key == "index_bytes" else r[key] for r in rs]
            ax.plot(xs, ys, "o-", label=mode)
            if len(xs) >= 1 and ys[0] > 0:  # linear reference through the first point
                ax.plot([xs[0], 100_000], [ys[0], ys[0] * 100_000 / xs[0]], ":", color="grey", linewidth=0.8)
        if target is not None:
            ax.axhline(target, color="red", linestyle="--", linewidth=0.8, label="target @100k")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("tables")
        ax.legend(fontsize=7)
    fig.suptitle("Scale benchmark: growth with catalog size (dotted: linear from the smallest size)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sizes", default="1000,10000,100000", help="comma-separated table counts (lexical mode)"
    )
    ap.add_argument(
        "--local-sizes", default="1000,10000", help="sizes also run with the local dense model ('' = none)"
    )
    ap.add_argument("--milvus-sizes", default="", help="sizes also run lexical with stage 1 on Milvus ('' = none)")
    ap.add_argument("--milvus-local-sizes", default="", help="sizes also run with MiniLM and stage 1 on Milvus")
    ap.add_argument("--questions", type=int, default=300)
    ap.add_argument("--restarts", type=int, default=2, help="extra search.sh starts for the startup figure")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--spider", type=Path, default=SPIDER)
    ap.add_argument("--submission", type=Path, default=SUBMISSION, help="folder holding build.sh/search.sh")
    ap.add_argument("--code", help="label for the code under test in the report (default: its git commit)")
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "scale")
    ap.add_argument("--out-md", type=Path, default=ROOT / "docs" / "scale.md")
    ap.add_argument("--out-png", type=Path, default=ROOT / "docs" / "scale.png")
    ap.add_argument("--profile", type=int, default=0, help="also cProfile startup and N questions in-process")
    ap.add_argument("--keep", action="store_true", help="keep the built indexes under WORK")
    ap.add_argument(
        "--merge", action="store_true", help="merge with WORK/results.json (re-run some sizes only)"
    )
    args = ap.parse_args(argv)
    vocab = spider_vocab(args.spider) if args.spider.is_file() else builtin_vocab(args.seed)
    print(f"scale: vocabulary from {vocab.source}: {len(vocab.templates)} group templates", flush=True)
    args.work.mkdir(parents=True, exist_ok=True)
    results_path = args.work / "results.json"
    rows: list[dict[str, Any]] = []
    if args.merge and results_path.is_file():
        rows = json.loads(results_path.read_text())
    runs = [(int(s), "local") for s in args.local_sizes.split(",") if s.strip()]
    runs += [(int(s), "lexical") for s in args.sizes.split(",") if s.strip()]
    runs += [(int(s), "local+milvus") for s in args.milvus_local_sizes.split(",") if s.strip()]
    runs += [(int(s), "lexical+milvus") for s in args.milvus_sizes.split(",") if s.strip()]
    for n, mode in runs:
        res = measure(n, mode, args, vocab)
        rows = [r for r in rows if (r["tables"], r["mode"]) != (n, mode)] + [res]
        results_path.write_text(json.dumps(rows, indent=1) + "\n")
    md = markdown(rows, args)
    args.out_md.parent.mkdir(parents=True, exist_ok=True)
    args.out_md.write_text(md, encoding="utf-8")
    print(md)
    if plot(rows, args.out_png):
        print(f"scale: wrote {args.out_png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
