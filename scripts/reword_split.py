"""Reworded questions split by whether a swapped-in word is another database's schema word.

scripts/reword.py avoids the words of the question's own database, not those of the other databases in the
catalog: "conductors" -> "directors" is `imdb.director`'s word, and the reworded question is then about
`imdb` as much as about `orchestra`; no retriever can tell which the user meant. This splits the reworded
questions into those whose new words no table or column name (or description) of the catalog holds, and
those that collide with one, and scores each part as written and reworded.

Usage: python scripts/reword_split.py --index-dir I --catalog C --original Q --reworded R --labels L
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reword import database_stems  # noqa: E402

from retriever import Retriever  # noqa: E402
from retriever.answer.evaluation import covered, read_jsonl  # noqa: E402
from retriever.index.catalog import Catalog, load_catalog  # noqa: E402
from retriever.index.text import tokenize  # noqa: E402


def schema_stems(catalog: Catalog) -> frozenset[str]:
    """Every database's schema words (reword.database_stems), together."""
    return frozenset().union(*database_stems(catalog).values())


def collides(original: str, reworded: str, schema: Iterable[str]) -> bool:
    """Whether a stem the rewording brought in is a schema stem somewhere in the catalog."""
    return bool((set(tokenize(reworded)) - set(tokenize(original))) & set(schema))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("--index-dir", "--catalog", "--original", "--reworded", "--labels"):
        ap.add_argument(name, required=True, type=Path)
    args = ap.parse_args()
    schema = schema_stems(load_catalog(args.catalog))
    original = {r["query_id"]: r["question"] for r in read_jsonl(args.original)}
    labels = {r["query_id"]: r["plans"] for r in read_jsonl(args.labels)}
    retriever = Retriever.open(args.index_dir)
    counts: dict[str, list[int]] = {"clean": [0, 0, 0], "collides": [0, 0, 0]}
    for row in read_jsonl(args.reworded):
        qid, question = row["query_id"], row["question"]
        part = counts["collides" if collides(original[qid], question, schema) else "clean"]
        part[0] += 1
        for i, text in ((1, original[qid]), (2, question)):
            answer = retriever.search(text)
            part[i] += int(covered(labels[qid], answer.table_ids, answer.joins))
    for name, (n, written, reworded) in counts.items():
        if n:
            print(f"{name}: {n} questions, as written {written / n:.4f}, reworded {reworded / n:.4f}, "
                  f"gap {100 * (written - reworded) / n:.1f} points")


if __name__ == "__main__":
    main()
