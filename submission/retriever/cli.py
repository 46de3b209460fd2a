"""Entry points: build, serve, query (explain), eval. Settings are read here, once."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import NoReturn

from .answer.evaluation import Report, read_jsonl, replay
from .api import FORMATS, Retriever
from .backends.stage1 import engine_writer
from .config import Settings
from .errors import ConfigError, RetrieverError
from .index.build import build_index
from .index.catalog import load_catalog
from .index.partial import coverage_lines
from .index.thesaurus import read_usage
from .query.planner import Options, switches
from .runtime import build_budgets, build_embedders


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage line and exit code 2, as the scripts promise
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="retriever", description="Join-aware table retriever")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    b = sub.add_parser("build", help="build the index for a catalog")
    b.add_argument("--corpus", required=True, type=Path)
    b.add_argument("--index-dir", required=True, type=Path)
    s = sub.add_parser("serve", help="answer JSONL requests on stdin")
    s.add_argument("--index-dir", required=True, type=Path)
    q = sub.add_parser("query", help="answer one question and explain every table and join")
    q.add_argument("--index-dir", required=True, type=Path)
    q.add_argument("--format", choices=FORMATS, default="text",
                   help="text: tables by relevance with evidence and a legend; json: one object; "
                        "ddl: CREATE TABLE statements for a text-to-SQL prompt")
    q.add_argument("question")
    c = sub.add_parser("catalog", help="write a catalog from live databases (needs the 'import' extra)")
    c.add_argument("--from", dest="sources", action="append", required=True, metavar="URL_OR_PATH",
                   help="a SQLite file, a folder of SQLite files, or a SQLAlchemy URL; repeatable")
    c.add_argument("--out", required=True, type=Path)
    c.add_argument("--sample-rows", type=int, default=3, help="sample rows per table (default 3)")
    c.add_argument("--no-views", dest="views", action="store_false",
                   help="leave views and materialized views out (by default each is read as a table)")
    e = sub.add_parser("eval", help="replay labelled questions in-process")
    e.add_argument("--index-dir", required=True, type=Path)
    e.add_argument("--queries", required=True, type=Path)
    e.add_argument("--labels", required=True, type=Path)
    e.add_argument("--offline", action="store_true", help="API channels answer only from the disk cache")
    e.add_argument("--disable", default="", help="comma-separated channels/features to switch off "
                   "(a wrong name lists the valid ones)")
    e.add_argument("--ablate", action="store_true",
                   help="also switch off each channel and feature in turn; print a markdown table")
    e.add_argument("--misses", type=Path, help="also write the misses here as JSONL")
    e.add_argument("--quiet", action="store_true", help="print only the summary, not every miss")
    e.add_argument("--limit", type=int)
    e.add_argument("--every", type=int, default=1, help="only every N-th question (1st, N+1-th, ...): a quick sample")
    e.add_argument("--weights", type=Path, help="fitted weights to use instead of the shipped ones")
    return ap


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # report against the subcommand, so the usage line shown is the one that applies
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices[args.cmd].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        settings = Settings.from_env(os.environ)
        if args.cmd == "build":
            return _build(args, settings)
        if args.cmd == "serve":
            return _serve(args, settings)
        if args.cmd == "query":
            return _query(args, settings)
        if args.cmd == "catalog":
            return _catalog(args)
        return _eval(args, settings)
    except RetrieverError as e:
        print(f"retriever {args.cmd}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _build(args: argparse.Namespace, settings: Settings) -> int:
    t0 = time.monotonic()
    catalog = load_catalog(args.corpus)
    for w in catalog.warnings[:5]:
        print(f"build: warning: {w}", file=sys.stderr)
    if catalog.warnings:
        print(f"build: {len(catalog.warnings)} catalog warning(s) in all", file=sys.stderr)
    dense, multi = build_embedders(settings)
    usage = read_usage(settings.usage_words) if settings.usage_words is not None else None
    manifest = build_index(catalog, args.index_dir, dense, multi, budgets=build_budgets(settings),
                           engine=engine_writer(settings), usage=usage)
    print(f"build: done in {time.monotonic() - t0:.1f}s -> {args.index_dir} "
          f"(channels: {', '.join(manifest['channels'])})", file=sys.stderr)
    for line in coverage_lines(manifest):
        print(f"build: {line}", file=sys.stderr)
    return 0


def _retriever(args: argparse.Namespace, settings: Settings, offline: bool = False) -> Retriever:
    return Retriever.open(args.index_dir, settings, getattr(args, "weights", None), offline=offline)


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from .server import serve

    retriever = _retriever(args, settings)
    gc.freeze()  # the index lives as long as the process: keep later GC passes off its objects
    print(f"search: ready with channels {', '.join(retriever.index.channels)}", file=sys.stderr, flush=True)
    return serve(retriever, sys.stdin.buffer, sys.stdout.buffer)


def _query(args: argparse.Namespace, settings: Settings) -> int:
    print(_retriever(args, settings).search(args.question).render(args.format))
    return 0


def _catalog(args: argparse.Namespace) -> int:
    from .index.catalog_import import import_catalog

    if args.sample_rows < 0:
        raise ConfigError(f"--sample-rows {args.sample_rows} must be 0 or more")
    summary = import_catalog(args.sources, args.out, args.sample_rows, views=args.views,
                             log=lambda m: print(f"catalog: {m}", file=sys.stderr, flush=True))
    print(f"catalog: {summary} -> {args.out}", file=sys.stderr)
    return 0


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    retriever = _retriever(args, settings, offline=args.offline)
    planner = retriever.planner
    disabled = frozenset(x.strip() for x in args.disable.split(",") if x.strip())
    valid = switches(planner.index.channels)
    if disabled - set(valid):
        raise ConfigError(f"--disable: unknown {', '.join(sorted(disabled - set(valid)))}; "
                          f"valid: {', '.join(valid)}")
    labels = {row["query_id"]: row for row in read_jsonl(args.labels)}
    if args.every < 1:
        raise ConfigError(f"--every {args.every} must be at least 1")
    queries = read_jsonl(args.queries)[:: args.every][: args.limit or None]
    groups = {t.table_id: t.group for t in planner.index.catalog.tables}
    vectors = {}
    live: set[str] = set()
    t0 = time.monotonic()
    for q in queries:  # embedded once, reused by every ablation pass
        vectors[q["question"]] = retriever.embed(q["question"])
        live.update(vectors[q["question"]])

    def run(off: frozenset[str]) -> Report:
        opts = Options(disabled_channels=off, disabled_features=off, rrf_k=settings.rrf_k)

        def answer(question: str) -> tuple[list[str], list[dict[str, str]], float, str]:
            a = retriever.search(question, vectors=vectors[question], options=opts)
            return list(a.table_ids), list(a.joins), a.confidence, next(iter(a.answer.group_probs), "")

        return replay(queries, labels, answer, groups.__getitem__)

    rep = run(disabled)
    if not args.quiet:
        print("\n".join(rep.miss_lines()) + "\n")
    print(f"channels in index: {', '.join(planner.index.channels)}")
    for line in coverage_lines(planner.index.manifest):
        print(f"channel coverage: {line}")
    print(f"query-time embedding channels live: {', '.join(sorted(live)) or 'none'}"
          + (f"; disabled: {', '.join(sorted(disabled))}" if disabled else ""))
    print("\n".join(rep.lines()))
    if args.ablate:
        print("\n| switched off | coverage | change | routing |\n|---|---:|---:|---:|")
        print(f"| (nothing) | {rep.coverage:.4f} | | {rep.routing:.4f} |")
        for name in valid:
            if name not in disabled:
                r = run(disabled | {name})
                print(f"| {name} | {r.coverage:.4f} | {r.coverage - rep.coverage:+.4f} | {r.routing:.4f} |",
                      flush=True)
    print(f"eval: {len(queries)} questions in {time.monotonic() - t0:.1f}s")
    if args.misses:
        with open(args.misses, "w", encoding="utf-8") as f:
            for m in rep.misses:
                f.write(json.dumps(m) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
