"""Replay labelled questions in-process and score them exactly as the verifier does."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JoinKey = frozenset[tuple[str, str]]


def join_key(j: Mapping[str, str]) -> JoinKey:
    return frozenset(((j["left_table"], j["left_column"]), (j["right_table"], j["right_column"])))


def covered(plans: Sequence[Mapping[str, Any]], table_ids: Iterable[str], joins: Iterable[Mapping[str, str]]) -> bool:
    """Complete-plan coverage: every table and join of at least one plan is in the answer."""
    ids = set(table_ids)
    keys = {join_key(j) for j in joins}
    return any(set(p["tables"]) <= ids and {join_key(j) for j in p["joins"]} <= keys for p in plans)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@dataclass
class Report:
    questions: int = 0
    hits: int = 0
    routed: int = 0
    by_size: dict[int, list[int]] = field(default_factory=dict)
    misses: list[dict[str, Any]] = field(default_factory=list)
    #: (predicted expected coverage, hit) per question, for the reliability table.
    calibration: list[tuple[float, int]] = field(default_factory=list)

    @property
    def coverage(self) -> float:
        return self.hits / self.questions if self.questions else 0.0

    @property
    def routing(self) -> float:
        return self.routed / max(self.questions, 1)

    def add(self, size: int, hit: bool, routed: bool, expected: float, miss: dict[str, Any] | None) -> None:
        self.questions += 1
        self.hits += int(hit)
        self.routed += int(routed)
        n_h = self.by_size.setdefault(size, [0, 0])
        n_h[0] += 1
        n_h[1] += int(hit)
        self.calibration.append((expected, int(hit)))
        if not hit and miss is not None:
            self.misses.append(miss)

    def reliability(self, bins: int = 10) -> list[tuple[str, int, float, float]]:
        """(bin, questions, mean predicted, observed coverage) rows."""
        rows = []
        for b in range(bins):
            lo, hi = b / bins, (b + 1) / bins
            sel = [(p, h) for p, h in self.calibration if lo <= p < hi or (b == bins - 1 and p >= hi)]
            if sel:
                rows.append((f"{lo:.1f}-{hi:.1f}", len(sel), sum(p for p, _ in sel) / len(sel),
                             sum(h for _, h in sel) / len(sel)))
        return rows

    def miss_lines(self) -> list[str]:
        """Each miss: the question, its acceptable plans and the answer, readable in a terminal."""
        def join(j: Mapping[str, str]) -> str:
            return f"{j['left_table']}.{j['left_column']}={j['right_table']}.{j['right_column']}"

        out = [f"misses ({len(self.misses)}):"]
        for m in self.misses:
            out.append(f"[{m['query_id']}] {m['question']}")
            for p in m["gold"]:
                joins = f" joined by {', '.join(join(j) for j in p['joins'])}" if p["joins"] else ""
                out.append(f"  gold:   {', '.join(p['tables'])}{joins}")
            out.append(f"  answer: {', '.join(m['table_ids'])}")
            if m["joins"]:
                out.append(f"          joins {', '.join(join(j) for j in m['joins'])}")
        return out

    def lines(self) -> list[str]:
        out = [f"coverage {self.coverage:.4f} ({self.hits}/{self.questions})",
               f"routing accuracy {self.routing:.4f}"]
        for size in sorted(self.by_size):
            n, h = self.by_size[size]
            out.append(f"  plan tables {size}: {h / n:.4f} ({h}/{n})")
        out.append("reliability (confidence vs observed coverage):")
        rows = self.reliability()
        for name, n, p, o in rows:
            out.append(f"  {name}: n={n:4d} predicted={p:.3f} observed={o:.3f}")
        ece = sum(n * abs(p - o) for _, n, p, o in rows) / max(self.questions, 1)
        out.append(f"  expected calibration error {ece:.4f}")
        return out


def replay(
    queries: Sequence[Mapping[str, Any]],
    labels: Mapping[str, Mapping[str, Any]],
    answer: Callable[[str], tuple[list[str], list[dict[str, str]], float, str]],
    group_of: Callable[[str], str],
) -> Report:
    """Answer each question and score it; `answer` returns (table_ids, joins, expected coverage, top group)."""
    rep = Report()
    for q in queries:
        label = labels[q["query_id"]]
        ids, joins, expected, top_group = answer(q["question"])
        hit = covered(label["plans"], ids, joins)
        # A plan may name no table (BIRD has 47 whose tables did not resolve): covered, but not routed.
        gold_table = next((t for p in label["plans"] for t in p["tables"]), None)
        routed = gold_table is not None and top_group == group_of(gold_table)
        size = max(len(p["tables"]) for p in label["plans"])
        miss = {"query_id": q["query_id"], "question": q["question"], "gold": label["plans"],
                "table_ids": ids, "joins": joins}
        rep.add(size, hit, routed, expected, miss)
    return rep
