"""How Milvus' own BM25 function differs from our bm25s weights (why the backend stores our weights instead).

Builds the catalog's lexical documents, writes each collection twice into a throwaway Milvus Lite folder --
once as text through Milvus' BM25 function (our stemmed tokens joined by spaces, standard analyzer, k1=1.2,
b=0.75 like ours) -- and asks every distinct question term of a query file term by term. Prints, per
collection, whether the engine finds the same documents per term and how its scores compare with bm25s'
(ratio spread, rank agreement of the top 10). Not part of any build or test.

Usage: python scripts/milvus_bm25_probe.py --catalog CATALOG.json --queries QUERIES.jsonl [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retriever.index.catalog import load_catalog  # noqa: E402
from retriever.index.documents import build_documents  # noqa: E402
from retriever.index.lexical import LexicalIndex  # noqa: E402
from retriever.index.text import tokenize  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--catalog", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--work", type=Path)
    args = ap.parse_args(argv)
    from pymilvus import DataType, Function, FunctionType, MilvusClient

    docs = build_documents(load_catalog(args.catalog))
    terms = sorted({t for line in args.queries.read_text().splitlines() if line.strip()
                    for t in tokenize(json.loads(line).get("question", ""))})
    work = args.work or Path(tempfile.mkdtemp(prefix="bm25probe-"))
    uri = str(work / "probe.db")
    client = MilvusClient(uri)
    parts = {"tables": docs.table_tokens, "columns": docs.column_tokens, "groups": docs.group_tokens,
             "values": docs.value_tokens}
    for part, toks in parts.items():
        ours = LexicalIndex.build(toks)
        schema = MilvusClient.create_schema(auto_id=False)
        schema.add_field("id", DataType.INT64, is_primary=True)
        schema.add_field("text", DataType.VARCHAR, max_length=65535, enable_analyzer=True,
                         analyzer_params={"tokenizer": "standard"})
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(Function(name="bm25", function_type=FunctionType.BM25, input_field_names=["text"],
                                     output_field_names=["sparse"]))
        params = client.prepare_index_params()
        params.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                         params={"bm25_k1": 1.2, "bm25_b": 0.75})
        client.create_collection(part, schema=schema, index_params=params)
        rows = [{"id": i, "text": " ".join(t) if t else "x00empty"} for i, t in enumerate(toks)]
        for lo in range(0, len(rows), 2000):
            client.insert(part, rows[lo:lo + 2000])
        client.flush(part)
        asked = [t for t in terms if t in ours.vocab]
        local = ours.term_scores(asked)
        hits = client.search(part, data=asked, anns_field="sparse", limit=min(16384, len(toks)),
                             output_fields=["id"], search_params={"metric_type": "BM25"})
        same_docs, ratios, top_agree = 0, [], []
        for i, row in enumerate(hits):
            ids = np.asarray([h["id"] for h in row], dtype=np.int64)
            got = np.abs(np.asarray([h["distance"] for h in row], dtype=np.float64))
            want = np.flatnonzero(local[i])
            same_docs += set(ids.tolist()) == set(want.tolist())
            if ids.size:
                ratios.extend((got / local[i, ids]).tolist())
                k = min(10, ids.size)
                ours_top = set(np.argsort(-local[i], kind="stable")[:k].tolist())
                top_agree.append(len(ours_top & set(ids[:k].tolist())) / k)
        r = np.asarray(ratios)
        print(f"{part}: {len(toks)} docs, {len(asked)} terms; same documents per term {same_docs}/{len(asked)}; "
              f"score ratio engine/ours median {np.median(r):.4f}, 1st-99th pct {np.percentile(r, 1):.4f}-"
              f"{np.percentile(r, 99):.4f}; top-10 agreement {np.mean(top_agree):.4f}")
    client.close()
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
