"""Fit the group and plan models on Spider train and BIRD train, with database-grouped cross-validation.

Each training set is a (catalog index, questions, labels) triple; the same planner code that serves picks the
candidate plans and computes the features, so training and serving cannot drift. `--cv K` reports coverage on
held-out databases (folds grouped by database, never a database split across train and validation) and writes
the out-of-fold calibration data; without it, the models are fitted on everything and written to weights.json.

Usage: python scripts/fit.py --set spider=INDEX,QUERIES,LABELS --set bird=INDEX,QUERIES,LABELS [--cv 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from training.adapters import attach_adapters  # noqa: E402
from training.calibration import CALIBRATION_FOLDS, calibration, fit_confidence, report  # noqa: E402
from training.folds import cross_validate  # noqa: E402
from training.models import ABLATIONS, MODELS, TABLE_MODELS, ablate, fit_models  # noqa: E402
from training.sets import RUNNING, Question, load_set  # noqa: E402, F401 (Question: evidence pickled by __main__)

from retriever.config import Settings  # noqa: E402
from retriever.query.adapter import save as save_adapter  # noqa: E402
from retriever.query.features import ROUTE_FEATURES  # noqa: E402
from retriever.query.model import WEIGHTS_PATH, WEIGHTS_VERSION, fit_softmax  # noqa: E402
from retriever.query.planner import Options  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--set", action="append", required=True, help="NAME=INDEX_DIR,QUERIES,LABELS[,EVERY]")
    ap.add_argument("--cv", type=int, default=0, help="report K-fold database-grouped CV instead of fitting")
    ap.add_argument("--every", type=int, default=1, help="every Nth question of each set (quick experiments)")
    ap.add_argument("--evidence-cache", type=Path, help="keep each set's computed evidence here between runs")
    ap.add_argument("--ablate", choices=ABLATIONS, help="with --cv: retrain and evaluate with this piece off")
    ap.add_argument("--outcomes", type=Path, help="with --cv: write each held-out outcome here as JSONL")
    ap.add_argument("--eval-only", action="append", default=[], metavar="NAME",
                    help="with --cv: score this set on the held-out folds without training on it")
    ap.add_argument("--off-catalog", action="append", default=[], metavar="NAME",
                    help="this set's questions are about databases its catalog lacks (another catalog's): scored "
                         "on the folds, every answer a miss, never trained on")
    ap.add_argument("--calibrate-on", action="append", metavar="NAME",
                    help="fit the confidence calibration on these sets' held-out answers only (default: all)")
    ap.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    args = ap.parse_args(argv)
    settings = Settings.from_env(os.environ)
    opts = Options(rrf_k=settings.rrf_k)
    names = {spec.partition("=")[0] for spec in args.set}
    for flag, given in (("--eval-only", args.eval_only), ("--calibrate-on", args.calibrate_on or []),
                        ("--off-catalog", args.off_catalog)):
        if set(given) - names:
            raise SystemExit(f"fit: {flag} names no --set: {', '.join(sorted(set(given) - names))}")
    calibrate_on = frozenset(args.calibrate_on or names)
    sets = [load_set(s, settings, opts, args.every, args.evidence_cache, s.partition("=")[0] in args.off_catalog)
            for s in args.set]
    off = frozenset(args.off_catalog)
    # Sets the folds score but never train on: none of the models learns from them, the adapter included.
    cv_opts, skip = ablate(sets, args.ablate, opts) if args.cv and args.ablate else (opts, frozenset())
    skip |= (frozenset(args.eval_only) if args.cv else frozenset()) | off
    adapter = None
    if args.ablate != "adapter":
        adapter = attach_adapters(sets, settings, args.cv or CALIBRATION_FOLDS, full=not args.cv, skip=skip)
    if args.cv:
        outcomes, _ = cross_validate(sets, args.cv, cv_opts, skip, tables=args.ablate != "table_relevance",
                                     route=args.ablate != "route")
        print("\n".join(report(outcomes)))
        probs, lines = calibration(outcomes, args.cv, calibrate_on)
        print("\n".join(lines))
        if args.outcomes:
            with open(args.outcomes, "w", encoding="utf-8") as f:
                for o, p in zip(outcomes, probs, strict=True):
                    f.write(json.dumps({**o.__dict__, "x": o.x.round(6).tolist(), "confidence": round(p, 6)}) + "\n")
        return 0
    # The confidence calibration and the routing model need held-out answers: a 5-fold pass first, then the
    # full fit.
    outcomes, route_rows = cross_validate(sets, CALIBRATION_FOLDS, opts, off)
    conf = fit_confidence([o for o in outcomes if o.set_name in calibrate_on])
    route = fit_softmax(route_rows, ROUTE_FEATURES)
    got = fit_models([ts for ts in sets if not ts.off_catalog], confidence=conf, route=route)
    print(f"fit: gold plan among candidates for {got.found}/{got.total} questions", file=sys.stderr)
    fitted = {name: getattr(got.models, name) for name in (*TABLE_MODELS, *MODELS)}
    for name, m in fitted.items():
        acc = np.mean([int(np.argmax(m.logits(x)) == y) for x, y in got.data[name]])
        print(f"fit: {name} model train top-1 accuracy {acc:.4f}", file=sys.stderr)
    out = {"version": WEIGHTS_VERSION, "fitted_on": {ts.name: len(ts.questions) for ts in sets if not ts.off_catalog},
           **({"calibrated_off_catalog": {ts.name: len(ts.questions) for ts in sets if ts.off_catalog}} if off else {}),
           "every": {ts.name: ts.every for ts in sets}, "code": RUNNING[1], "channels": sets[0].planner.index.channels,
           "models": {**{k: m.to_json() for k, m in fitted.items()}, "confidence": conf.to_json(),
                      "route": route.to_json()}}
    if adapter is not None:
        out["adapter"] = save_adapter(adapter, args.out.with_name("adapter.npy"))
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"fit: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
