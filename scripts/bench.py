"""Speed and memory benchmark of the two entry scripts (not a test): build time, startup, latency, peak RSS.

Usage: python scripts/bench.py --catalog catalog.json --queries queries.jsonl [--limit N] [--warm]

By default the embedding cache is a new empty folder, so the build embeds everything and every question
is embedded when it arrives, as on a fresh machine; --warm uses the configured cache instead.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from search_driver import SearchProcess, pct

ROOT = Path(__file__).resolve().parent.parent
#: Hang guard for one wait on search.sh.
GUARD_S = 600.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--catalog", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--submission", type=Path, default=ROOT / "submission")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--warm", action="store_true", help="use the configured embedding cache (default: empty)")
    args = ap.parse_args(argv)
    questions = [json.loads(line) for line in args.queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = questions[: args.limit] if args.limit else questions
    work = Path(tempfile.mkdtemp(prefix="bench-"))
    index = work / "index"
    env = dict(os.environ) if args.warm else {**os.environ, "RETRIEVER_CACHE_DIR": str(work / "cache")}
    t0 = time.monotonic()
    subprocess.run(["bash", str(args.submission / "build.sh"), "--corpus", str(args.catalog), "--index-dir",
                    str(index)], check=True, stderr=subprocess.DEVNULL, env=env)
    build_s = time.monotonic() - t0
    build_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    t0 = time.monotonic()
    sp = SearchProcess(args.submission / "search.sh", index, env, stderr=subprocess.DEVNULL)
    try:
        startup_s = sp.wait_ready(GUARD_S)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    latencies = []
    for q in questions:
        _, dt = sp.ask(q["query_id"], q["question"], GUARD_S)
        latencies.append(1000 * dt)
    search_rss = sp.peak_rss_mb()
    sp.close(10)
    index_mb = sum(p.stat().st_size for p in index.rglob("*") if p.is_file()) / 2**20
    rows = [
        ("build", f"{build_s:.2f} s"), ("build peak RSS", f"{build_rss:.0f} MB"), ("index size", f"{index_mb:.1f} MB"),
        ("startup (to ready)", f"{startup_s:.3f} s"), ("questions", str(len(latencies))),
        ("latency p50", f"{pct(latencies, 0.5):.1f} ms"), ("latency p95", f"{pct(latencies, 0.95):.1f} ms"),
        ("latency max", f"{max(latencies):.1f} ms"), ("search peak RSS", f"{search_rss:.0f} MB"),
        ("embedding cache", "warm (configured)" if args.warm else "empty at start"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"| {'measure'.ljust(width)} | value |\n|{'-' * (width + 2)}|-------|")
    for k, v in rows:
        print(f"| {k.ljust(width)} | {v} |")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
