"""Questions wrapped the way users type them to a SQL assistant, to measure what the wrapping costs.

Each question gets one wrapping of the list, in turn (question i the wrapping i mod n), so every wrapping is
asked about as often: {"prefix", "suffix", "lower_first"} put around it ("Write a SQL query to answer this
question: ...", "In the database, how many ...", "... Thanks!"). `scripts/wrappings/design.json` holds the
wrappings `query/request.py` was written against; `heldout.json` ones written after its first rules (and
read to widen them); `independent_a.json` to `independent_v.json` ones written by helper agents that never
saw it (the first two were read to write its sentence pass, after measuring them; the others were measured
before anyone read them, and no rule has been written from `independent_v.json`, whose text was only glimpsed in
a review's diff).

Usage: python scripts/wrap.py --wrappings W --queries Q --out OUT
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retriever.answer.evaluation import read_jsonl  # noqa: E402


def wrap(question: str, wrapping: dict[str, object]) -> str:
    q = question.strip()
    if wrapping.get("lower_first") and q:
        q = q[0].lower() + q[1:]
    return f"{wrapping.get('prefix', '')}{q}{wrapping.get('suffix', '')}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wrappings", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    wrappings = json.loads(args.wrappings.read_text(encoding="utf-8"))
    if not isinstance(wrappings, list) or not wrappings:
        print(f"wrap: {args.wrappings} holds no list of wrappings", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for i, q in enumerate(read_jsonl(args.queries)):
            f.write(json.dumps({**q, "question": wrap(q["question"], wrappings[i % len(wrappings)])}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
