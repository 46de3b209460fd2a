"""Measuring one catalog size: generate, build.sh, then search.sh one question at a time (and a profile)."""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from scale_catalog import CatalogGen, questions
from scale_vocab import Vocab
from search_driver import SearchProcess, pct


# --- measurements -----------------------------------------------------------------------------------------
def _git(sub: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(sub), *args], capture_output=True, text=True, check=True).stdout.strip()


def _commit(sub: Path) -> str:
    """The git commit of the code under test (and '+dirty' for uncommitted changes), or 'unknown'."""
    try:
        head = _git(sub, "rev-parse", "--short", "HEAD")
        return head + ("+dirty" if _git(sub, "status", "--porcelain", "--untracked-files=no") else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


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


#: Hang guard for one wait on search.sh (startup at 100k tables takes seconds, not minutes).
GUARD_S = 600.0


def stop(sp: SearchProcess) -> float:
    """Close a search.sh; its peak RSS in MB, read before it exits."""
    rss = sp.peak_rss_mb()
    sp.close(30)
    return rss


def answer(sp: SearchProcess, qid: str, question: str) -> tuple[bytes, float]:
    raw, dt = sp.ask(qid, question, GUARD_S)
    if raw is None:
        raise RuntimeError(f"search.sh exited (rc={sp.proc.wait()}) at question {qid}")
    return raw, dt


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
    sp = SearchProcess(args.submission / "search.sh", index, env, stderr=work / "search.log")
    startups = [sp.wait_ready(GUARD_S)]
    answer(sp, "warmup", "Which tables list the names of all items and their owners?")
    lat, hits, invalid = [], 0, 0
    by_size: dict[int, list[int]] = {}
    for q in qs:
        raw, dt = answer(sp, q["query_id"], q["question"])
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
    search_rss = stop(sp)
    log_text = (work / "search.log").read_text(encoding="utf-8", errors="replace")
    # Questions the engine did not answer in full within its budget (stage 1 on Milvus only): local fallback.
    engine_fallbacks = log_text.count("engine budget spent") + log_text.count("engine call failed")
    for _ in range(args.restarts):
        sp2 = SearchProcess(args.submission / "search.sh", index, env, stderr=work / "search.log")
        startups.append(sp2.wait_ready(GUARD_S))
        stop(sp2)
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
    from retriever.index.store import load_index
    from retriever.query.planner import Planner, default_models

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


