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

ROOT = Path(__file__).resolve().parent.parent


def peak_rss_mb(pid: int) -> float:
    """VmHWM of a live process: its peak resident set so far."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


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
    proc = subprocess.Popen(["bash", str(args.submission / "search.sh"), "--index-dir", str(index)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env)
    assert proc.stdin is not None and proc.stdout is not None
    ready = proc.stdout.readline()
    startup_s = time.monotonic() - t0
    if b'"ready"' not in ready:
        print(f"search.sh did not get ready: {ready!r}", file=sys.stderr)
        return 1
    latencies = []
    for q in questions:
        t1 = time.monotonic()
        proc.stdin.write((json.dumps({"query_id": q["query_id"], "question": q["question"]}) + "\n").encode())
        proc.stdin.flush()
        proc.stdout.readline()
        latencies.append(1000 * (time.monotonic() - t1))
    search_rss = peak_rss_mb(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=10)
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
