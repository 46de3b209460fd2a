"""Fit the group and plan models on labelled questions (Spider train only) and write retriever/weights.json.

Usage: python scripts/fit.py --index-dir DIR --queries train/queries.jsonl --labels train/labels.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retriever.config import Settings  # noqa: E402
from retriever.evaluation import read_jsonl  # noqa: E402
from retriever.features import GROUP_FEATURES, PLAN_FEATURES, group_features, plan_features  # noqa: E402
from retriever.index import load_index  # noqa: E402
from retriever.model import WEIGHTS_PATH, WEIGHTS_VERSION, SoftmaxModel, fit_softmax  # noqa: E402
from retriever.planner import Options, Planner  # noqa: E402
from retriever.plans import enumerate_plans, plan_pool  # noqa: E402
from retriever.runtime import query_embedders  # noqa: E402

MODELS = ("group", "plan", "group_lexical", "plan_lexical")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--index-dir", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--labels", required=True, type=Path)
    ap.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    args = ap.parse_args(argv)
    settings = Settings.from_env(os.environ)
    index = load_index(args.index_dir)
    planner = Planner(index, SoftmaxModel.uniform(GROUP_FEATURES), SoftmaxModel.uniform(PLAN_FEATURES))
    embed = query_embedders(settings, index, offline=False)
    labels = {row["query_id"]: row for row in read_jsonl(args.labels)}
    queries = read_jsonl(args.queries)
    pos = {t.table_id: i for i, t in enumerate(index.catalog.tables)}
    gpos = {g: i for i, g in enumerate(index.groups)}
    samples: dict[str, list[tuple[np.ndarray, int]]] = {k: [] for k in MODELS}
    recall = 0
    opts = Options(rrf_k=settings.rrf_k)
    lexical_opts = Options(rrf_k=settings.rrf_k,
                           disabled_channels=frozenset(c for c in index.channels if c.startswith(("dense:", "multi:")))
                           | frozenset(f"late:{c.split(':', 1)[1]}" for c in index.channels if c.startswith("multi:")))
    for n, q in enumerate(queries):
        plan = labels[q["query_id"]]["plans"][0]
        gold_tables = tuple(sorted(pos[t] for t in plan["tables"]))
        g = gpos[index.catalog.tables[gold_tables[0]].group]
        vectors = embed(q["question"])
        for suffix, o in (("", opts), ("_lexical", lexical_opts)):
            ev = planner.evidence(q["question"], vectors, o)
            samples["group" + suffix].append((group_features(ev, planner.groups), g))
            members = planner.members[g]
            forced = [t for t in members if ev.name_match[t] >= 1.0 or ev.phrase_hits[t] > 0]
            plans = enumerate_plans(g, plan_pool(members, ev.fused, index.graph, forced), ev.fused, index.graph)
            gold = [i for i, p in enumerate(plans) if p.tables == gold_tables]
            if gold:
                recall += int(suffix == "")
                samples["plan" + suffix].append((plan_features(ev, plans, members), gold[0]))
        if n % 500 == 0:
            print(f"fit: {n}/{len(queries)} questions", file=sys.stderr, flush=True)
    print(f"fit: gold plan among candidates for {recall}/{len(queries)} questions", file=sys.stderr)
    models = {}
    for name in MODELS:
        m = fit_softmax(samples[name], GROUP_FEATURES if name.startswith("group") else PLAN_FEATURES)
        acc = np.mean([int(np.argmax(m.logits(x)) == y) for x, y in samples[name]])
        print(f"fit: {name} model train top-1 accuracy {acc:.4f}", file=sys.stderr)
        models[name] = m.to_json()
    data = {"version": WEIGHTS_VERSION, "fitted_on": str(args.queries.name), "channels": index.channels,
            "models": models}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"fit: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
