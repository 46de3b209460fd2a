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
import json
import sys
from pathlib import Path
from typing import Any

from scale_report import markdown, plot
from scale_run import measure
from scale_vocab import SPIDER, builtin_vocab, spider_vocab

ROOT = Path(__file__).resolve().parent.parent
SUBMISSION = ROOT / "submission"


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
