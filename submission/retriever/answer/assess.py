"""How much an answer can be trusted: table relevance, confidence and whether the question had any evidence.

Pure functions of a planner `Answer`; the API, the CLI and the server read them from here only, so the
confidence number can later become the calibrated one without touching its callers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..index import registry
from ..query.channels import Evidence
from ..query.planner import Answer

#: Best question-to-table/column cosine of the local MiniLM channel under which dense evidence counts as
#: weak. On the demo catalog real questions score 0.48-0.81, unrelated sentences 0.04-0.25.
DENSE_FLOOR = 0.35


@dataclass(frozen=True)
class EvidenceSummary:
    """What in the question points at the catalog at all."""

    #: Question terms (stemmed) found in some table's schema or sample values, in question order.
    matched_terms: tuple[str, ...]
    unmatched_terms: tuple[str, ...]
    #: Best cosine of the question with any table or column document, per dense channel.
    best_dense: dict[str, float]
    #: True when no term, value phrase or name matches and every dense channel is below DENSE_FLOOR.
    low: bool

    def warning(self) -> str:
        """One line for people; empty when the evidence is not low."""
        if not self.low:
            return ""
        dense = ", ".join(f"{k} {v:.2f}" for k, v in sorted(self.best_dense.items()))
        return ("low evidence: no question term matches a table, column or sample value"
                + (f" and the best dense similarity is weak ({dense} < {DENSE_FLOOR})" if dense else "")
                + "; the tables below are a guess, not an answer")


def confidence(answer: Answer) -> float:
    """The one number callers show as confidence: the probability that the answer covers the question, as the
    shipped calibration maps the selection's expected coverage and the evidence (see query/features.py)."""
    return float(answer.confidence)


def table_probabilities(answer: Answer) -> dict[int, float]:
    """Chosen table -> summed probability of the candidate plans that use it (its share of the answer)."""
    probs = dict.fromkeys(answer.selection.tables, 0.0)
    for s in answer.plans:
        for t in s.plan.tables:
            if t in probs:
                probs[t] += s.prob
    return probs


def by_relevance(answer: Answer) -> list[tuple[int, float]]:
    """Chosen tables, most probable first; ties keep the selection's order."""
    probs = table_probabilities(answer)
    order = {t: i for i, t in enumerate(answer.selection.tables)}
    return sorted(probs.items(), key=lambda kv: (-round(kv[1], 12), order[kv[0]]))


def summarize_evidence(ev: Evidence | None) -> EvidenceSummary:
    if ev is None:
        return EvidenceSummary((), (), {}, True)
    hit: np.ndarray = np.zeros(len(ev.terms), dtype=bool)
    if ev.terms:
        hit = np.asarray(ev.schema_hit.any(axis=1) | ev.value_hit.any(axis=1))
    matched = tuple(t for t, h in zip(ev.terms, hit, strict=True) if h)
    unmatched = tuple(t for t, h in zip(ev.terms, hit, strict=True) if not h)
    best: dict[str, float] = {}
    for key, scores in ev.scores.items():
        ch = registry.from_evidence_key(key)
        if ch is not None and ch.kind == "dense" and scores.size:
            best[ch.name] = max(best.get(ch.name, -1.0), float(scores.max()))
    names = bool(ev.name_match.size and ev.name_match.max() > 0) or bool(
        ev.group_name_match.size and ev.group_name_match.max() > 0)
    lexical = bool(matched) or bool(ev.phrases) or names
    low = not lexical and all(v < DENSE_FLOOR for v in best.values())
    return EvidenceSummary(matched, unmatched, best, low)
