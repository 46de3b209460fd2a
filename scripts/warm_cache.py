"""Prefetch every embedding a build and a set of questions need into the disk cache.

After this, `make replay` (or `retriever eval --offline`) reproduces the same answers with no network.
Usage: python scripts/warm_cache.py --catalog catalog.json --queries queries.jsonl
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retriever.answer.evaluation import read_jsonl  # noqa: E402
from retriever.config import Settings  # noqa: E402
from retriever.errors import RetrieverError  # noqa: E402
from retriever.index.catalog import load_catalog  # noqa: E402
from retriever.index.documents import build_documents  # noqa: E402
from retriever.index.partial import CHUNK  # noqa: E402
from retriever.query.request import core  # noqa: E402
from retriever.runtime import build_embedders  # noqa: E402


def _chunks(texts: list[str]) -> list[list[str]]:
    return [texts[i : i + CHUNK] for i in range(0, len(texts), CHUNK)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--catalog", required=True, type=Path)
    ap.add_argument("--queries", type=Path)
    args = ap.parse_args(argv)
    try:
        settings = Settings.from_env(os.environ)
        docs = build_documents(load_catalog(args.catalog))
        # As the server embeds them: without a request's wrapping (query/request.py).
        questions = [core(q["question"]) for q in read_jsonl(args.queries)] if args.queries else []
        dense, multi = build_embedders(settings)
        dense = {n: e for n, e in dense.items() if hasattr(e, "hits")}  # the local model is never cached
        if not settings.jina_api_key:
            print("warm-cache: JINA_API_KEY is not set; nothing to cache (the local model never is)", file=sys.stderr)
        t0 = time.monotonic()
        texts = docs.table_texts + docs.column_texts
        for name, emb in dense.items():
            for chunk in _chunks(texts):  # a build embedder's API budget is per chunk (runtime.API_CHUNK_BUDGET_S)
                emb.embed(chunk, "document")
            for chunk in _chunks(questions):
                emb.embed(chunk, "query")
            print(f"warm-cache: {name}: {len(texts)} documents + {len(questions)} questions "
                  f"(hits {getattr(emb, 'hits', '?')}, misses {getattr(emb, 'misses', '?')})", file=sys.stderr)
        for name, memb in multi.items():
            for chunk in _chunks(docs.table_texts):
                memb.embed_multi(chunk, "document")
            for chunk in _chunks(questions):
                memb.embed_multi(chunk, "query")
            print(f"warm-cache: {name}: {len(docs.table_texts)} documents + {len(questions)} questions "
                  f"(hits {getattr(memb, 'hits', '?')}, misses {getattr(memb, 'misses', '?')})", file=sys.stderr)
        print(f"warm-cache: done in {time.monotonic() - t0:.1f}s into {settings.cache_dir}", file=sys.stderr)
    except RetrieverError as e:
        print(f"warm-cache: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
