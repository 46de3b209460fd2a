"""How many wrapped questions lose the question itself: the request reader keeps under 60% of its words.

Coverage says how many wrapped questions are still answered, not why one is not: a core that kept the whole
question with some debris left around it and one that lost the question (a forum reply's "Re: Please name
..." read as a field, leaving "did anyone figure it out?") miss alike, and the first kind is noise while the
second is a bug no ranking makes up for. This counts the second kind per list, with no labels, reading the
questions as `scripts/wrap.py` wraps them and as the search reads them (with the index's dictionary). It
reads no wrapping's text out, so a list kept unread stays unread.

Usage: python scripts/wrap_check.py --index-dir DIR --queries Q --wrappings W [W ...]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from wrap import wrap  # noqa: E402  (the same wrapping as the coverage runs)

from retriever.answer.evaluation import read_jsonl  # noqa: E402
from retriever.index.store import load_index  # noqa: E402
from retriever.query.request import core  # noqa: E402

#: The share of a question's words its core must keep to count as kept.
KEPT = 0.6
_WORD = re.compile(r"[^\W_]+")


def lost(question: str, kept: str) -> bool:
    """Whether `kept` (a wrapped question's core) holds under KEPT of the question's words."""
    words = set(_WORD.findall(question.lower()))
    return bool(words) and len(words & set(_WORD.findall(kept.lower()))) < KEPT * len(words)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index-dir", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--wrappings", required=True, type=Path, nargs="+")
    args = ap.parse_args(argv)
    lexicon = load_index(args.index_dir).people.words
    questions = [str(q["question"]) for q in read_jsonl(args.queries)]
    for path in args.wrappings:
        wrappings = json.loads(path.read_text(encoding="utf-8"))
        count = sum(lost(q, core(wrap(q, wrappings[i % len(wrappings)]), lexicon)) for i, q in enumerate(questions))
        print(f"wrap_check: {path.stem}: {count} of {len(questions)} questions lost to the wrapping")
    return 0


if __name__ == "__main__":
    sys.exit(main())
