"""The confidence calibration: fitted on held-out answers, and its 10-bin reliability tables."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from retriever.query.confidence import CONFIDENCE_FEATURES
from retriever.query.model import SoftmaxModel, fit_softmax

from .folds import OFF_CATALOG, Outcome, deal

CALIBRATION_FOLDS = 5


def fit_confidence(outcomes: Sequence[Outcome]) -> SoftmaxModel:
    """Logistic calibration of P(answer covers the question), as a two-way softmax against a zero row."""
    return fit_softmax([(np.stack([np.zeros_like(o.x), o.x]), int(o.hit)) for o in outcomes], CONFIDENCE_FEATURES)


def calibrated(model: SoftmaxModel, x: np.ndarray) -> float:
    return float(model.probs(np.stack([np.zeros_like(x), x]))[1])



def calibration(outcomes: Sequence[Outcome], k: int, on: frozenset[str] | None = None
                ) -> tuple[list[float], list[str]]:
    """Held-out calibrated confidence per outcome (the calibration of each database fold is fitted on the
    others' out-of-fold outcomes of the sets `on`, all if None) and the 10-bin reliability table with its
    expected calibration error, for every set ("all": the sets about the catalog's own databases)."""
    on = on if on is not None else frozenset(o.set_name for o in outcomes)
    fold = deal({(o.source, o.db) for o in outcomes if o.kind != OFF_CATALOG},
                {(o.source, o.db) for o in outcomes if o.kind == OFF_CATALOG}, k)
    probs = [0.0] * len(outcomes)
    for i in range(k):
        model = fit_confidence([o for o in outcomes if fold[(o.source, o.db)] != i and o.set_name in on])
        for n, o in enumerate(outcomes):
            if fold[(o.source, o.db)] == i:
                probs[n] = calibrated(model, o.x)
    lines = []
    for name in sorted({o.set_name for o in outcomes}) + ["all"]:
        idx = [n for n, o in enumerate(outcomes) if o.set_name == name or (name == "all" and o.kind != OFF_CATALOG)]
        ece = 0.0
        lines.append(f"calibration {name} (10 bins: questions, mean predicted, observed):")
        for b in range(10):
            sel = [n for n in idx if b / 10 <= probs[n] < (b + 1) / 10 or (b == 9 and probs[n] >= 1.0)]
            if sel:
                p = float(np.mean([probs[n] for n in sel]))
                h = float(np.mean([outcomes[n].hit for n in sel]))
                ece += len(sel) / len(idx) * abs(p - h)
                lines.append(f"  {b / 10:.1f}-{(b + 1) / 10:.1f}: n={len(sel):5d} predicted={p:.3f} observed={h:.3f}")
        lines.append(f"  ECE {ece:.4f}")
    return probs, lines


def report(outcomes: Sequence[Outcome]) -> list[str]:
    lines = []
    for name in sorted({o.set_name for o in outcomes}):
        mine = [o for o in outcomes if o.set_name == name]
        if all(o.kind == OFF_CATALOG for o in mine):
            lines.append(f"{name}: {len(mine)} questions asked of a catalog without their databases (all misses)")
            continue
        hits = sum(o.hit for o in mine)
        lines.append(f"{name}: coverage {hits / len(mine):.4f} ({hits}/{len(mine)}), "
                     f"routing {np.mean([o.routed for o in mine]):.4f}")
        for size in sorted({o.size for o in mine}):
            s = [o for o in mine if o.size == size]
            lines.append(f"  plan tables {size}: {np.mean([o.hit for o in s]):.4f} ({sum(o.hit for o in s)}/{len(s)})")
        kinds = {kd: sum(o.kind == kd for o in mine) for kd in ("wrong database", "missing tables", "missing join")}
        lines.append("  misses: " + ", ".join(f"{kd} {n}" for kd, n in kinds.items()))
    return lines

