"""Demo for `make run`: answer each question of a JSONL file and show why each table was chosen.

Usage: python scripts/demo.py --index-dir DIR --queries queries.jsonl [--labels labels.jsonl] [--limit N]

For every question: the question, the 5 tables with a one-line reason each, the joins, and (with --labels)
whether the gold plan is covered the way the verifier scores it; a coverage line at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retriever.answer.evaluation import covered, read_jsonl  # noqa: E402
from retriever.answer.explain import legend, reasons  # noqa: E402
from retriever.api import Retriever, SearchResult  # noqa: E402
from retriever.config import Settings  # noqa: E402
from retriever.errors import RetrieverError  # noqa: E402


def join_text(j: dict[str, str]) -> str:
    return f"{j['left_table']}.{j['left_column']} = {j['right_table']}.{j['right_column']}"


def gold_text(label: dict[str, Any]) -> str:
    plan = label["plans"][0]
    tables = ", ".join(plan["tables"])
    joins = "; ".join(join_text(j) for j in plan["joins"])
    return f"[{tables}]" + (f" joined by {joins}" if joins else "")


def render(qid: str, question: str, res: SearchResult, label: dict[str, Any] | None) -> tuple[str, bool]:
    """The block printed for one question, and whether its gold plan is covered (False without a label)."""
    why = reasons(res.retriever.planner, res.answer)
    width = max(len(t) for t in res.table_ids)
    lines = [f"[{qid}] {question}"]
    if res.low_evidence:
        lines.append(f"  WARNING: {res.evidence.warning()}")
    lines.append(f"  confidence {res.confidence:.3f}; tables most relevant first, p = share of the answer")
    for i, t in enumerate(res.tables, 1):
        lines.append(f"  {i}. {t.table_id:<{width}}  p={t.probability:.3f}  {why.get(t.table_id, '')}")
    if res.joins:
        lines.append("  joins: " + join_text(res.joins[0]))
        lines.extend("         " + join_text(j) for j in res.joins[1:])
    else:
        lines.append("  joins: (none)")
    hit = False
    if label is not None:
        hit = covered(label["plans"], res.table_ids, res.joins)
        lines.append(f"  gold:  {'covered' if hit else 'MISSED '} {gold_text(label)}")
    return "\n".join(lines), hit


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index-dir", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--labels", type=Path)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args(argv)
    try:
        retriever = Retriever.open(args.index_dir, Settings.from_env(os.environ))
        queries = read_jsonl(args.queries)
        labels = {row["query_id"]: row for row in read_jsonl(args.labels)} if args.labels else None
    except (RetrieverError, OSError, ValueError) as e:
        print(f"demo: error: {e}", file=sys.stderr)
        return 1
    if args.limit:
        queries = queries[: args.limit]
    index = retriever.index
    print(f"index: {len(index.catalog.tables)} tables in {len(index.groups)} groups, "
          f"{len(index.catalog.relationships)} relationships; channels: {', '.join(index.channels)}\n")
    print(legend() + "\n")
    hits = scored = 0
    for q in queries:
        qid, question = str(q.get("query_id", "")), str(q.get("question") or "")
        label = labels.get(qid) if labels is not None else None
        block, hit = render(qid, question, retriever.search(question), label)
        print(block + "\n")
        if label is not None:
            scored += 1
            hits += int(hit)
    if labels is None:
        print(f"answered {len(queries)} questions (no labels given, coverage not scored)")
    else:
        rate = hits / scored if scored else 0.0
        print(f"coverage {hits}/{scored} = {rate:.3f} (gold plan fully inside the 5 tables and joins)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `demo.py ... | head`: the reader left, nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
