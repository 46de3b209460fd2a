"""Learn the usage words (scripts/training/usage.py) from questions rewritten by hand in the users' words.

Usage: python scripts/usage_words.py --set CATALOG,QUERIES,REWRITTEN,LABELS [--set ...] --out usage_words.json
       [--min-databases 3] [--min-dice 0.2]

Each --set pairs a catalog's questions as written with the same questions rewritten (matched by query_id);
the labels give each question's database. `make usage-words` writes the shipped file from all four rewritten
sets of Spider and BIRD train, and one file per training set, which `make fit` and `make cv` build the other
set's index with, so that no question is fitted or scored with pairs learned from its own rewriting.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from training.usage import MIN_DATABASES, MIN_DICE, Rewrite, learn, rewrite, schema_vocabulary  # noqa: E402

from retriever.answer.evaluation import read_jsonl  # noqa: E402
from retriever.index.catalog import load_catalog  # noqa: E402


def rewrites(spec: str) -> list[Rewrite]:
    parts = spec.split(",")
    if len(parts) != 4:
        raise SystemExit(f"usage_words: --set {spec!r} is not CATALOG,QUERIES,REWRITTEN,LABELS")
    catalog, queries, rewritten, labels = parts
    vocabulary = schema_vocabulary(load_catalog(Path(catalog)))
    original = {str(q["query_id"]): str(q["question"]) for q in read_jsonl(Path(queries))}
    database = {str(lab["query_id"]): str(lab["db_id"]) for lab in read_jsonl(Path(labels))}
    out = []
    for q in read_jsonl(Path(rewritten)):
        qid = str(q["query_id"])
        if qid not in original or qid not in database:
            raise SystemExit(f"usage_words: {rewritten}: query_id {qid!r} is not in {queries} and {labels}")
        db = database[qid]
        out.append(rewrite(db, original[qid], str(q["question"]), vocabulary.get(db, set())))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", required=True, help="CATALOG,QUERIES,REWRITTEN,LABELS")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--min-databases", type=int, default=MIN_DATABASES)
    ap.add_argument("--min-dice", type=float, default=MIN_DICE)
    args = ap.parse_args()
    learned = [r for spec in args.set for r in rewrites(spec)]
    pairs = learn(learned, args.min_databases, args.min_dice)
    doc = {"learned_from": [Path(spec.split(",")[2]).name for spec in args.set], "rewrites": len(learned),
           "min_databases": args.min_databases, "min_dice": args.min_dice, "pairs": pairs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"usage_words: {sum(map(len, pairs.values()))} pairs, {len(pairs)} user words, from {len(learned)} "
          f"rewrites -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
