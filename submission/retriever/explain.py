"""Human-readable evidence: why each table and join is in an answer."""

from __future__ import annotations

import numpy as np

from .fusion import ranks
from .planner import Answer, Planner


def _table_evidence(planner: Planner, answer: Answer, t: int) -> list[str]:
    ev = answer.evidence
    if ev is None:
        return []
    parts = []
    terms = [term for i, term in enumerate(ev.terms) if ev.schema_hit[i, t]]
    vals = [term for i, term in enumerate(ev.terms) if ev.value_hit[i, t] and not ev.schema_hit[i, t]]
    if terms:
        parts.append("terms " + ",".join(terms))
    if vals:
        parts.append("values " + ",".join(vals))
    phrases = [p for p in ev.phrases if t in planner.index.value_phrases.get(p, [])]
    if phrases:
        parts.append("quoted value " + "; ".join(repr(p) for p in phrases))
    if ev.name_match[t] > 0:
        parts.append(f"name match {ev.name_match[t]:.0%}")
    chan = []
    for name in sorted(ev.scores):
        r = int(ranks(ev.scores[name])[t])
        if r:
            chan.append(f"{name}#{r}")
    if chan:
        parts.append("ranks " + " ".join(chan))
    return parts


def _plans_with(answer: Answer, t: int, limit: int = 2) -> list[str]:
    out = []
    for s in answer.plans:
        if t in s.plan.tables and set(s.plan.tables) <= set(answer.selection.tables):
            out.append(f"plan of {len(s.plan.tables)} p={s.prob:.3f}")
            if len(out) == limit:
                break
    return out


def reasons(planner: Planner, answer: Answer) -> dict[str, str]:
    """table_id -> one line: group probability, plans served, strongest evidence."""
    cat = planner.index.catalog
    out = {}
    for t in answer.selection.tables:
        table = cat.tables[t]
        gp = answer.group_probs.get(table.group, 0.0)
        plans = _plans_with(answer, t, limit=1)
        ev = _table_evidence(planner, answer, t)[:2]
        role = plans[0] if plans else "hedge/fill"
        out[table.table_id] = f"group {table.group} p={gp:.2f}; {role}" + (f"; {'; '.join(ev)}" if ev else "")
    return out


def explain(planner: Planner, answer: Answer) -> str:
    """Multi-line explanation: answer, per-table plans and evidence, per-join plan mass."""
    cat = planner.index.catalog
    lines = [f"expected coverage {answer.selection.expected:.3f}"]
    lines.append("groups: " + ", ".join(f"{g} {p:.3f}" for g, p in answer.group_probs.items()))
    if answer.evidence is not None:
        lines.append(f"question terms: {' '.join(answer.evidence.terms) or '(none)'}")
    lines.append("tables:")
    for t in answer.selection.tables:
        table = cat.tables[t]
        lines.append(f"  {table.table_id}")
        plans = _plans_with(answer, t, limit=3)
        lines.append(f"    serves: {', '.join(plans) if plans else 'no candidate plan (hedge/fill)'}")
        for e in _table_evidence(planner, answer, t):
            lines.append(f"    {e}")
    lines.append("joins:")
    chosen = set(answer.selection.tables)
    for r in answer.selection.joins:
        rel = cat.relationships[r]
        mass = sum(s.prob for s in answer.plans if r in s.plan.joins and set(s.plan.tables) <= chosen)
        lines.append(f"  {rel.left_table}.{rel.left_column} = {rel.right_table}.{rel.right_column}"
                     f"  (plan mass {mass:.3f})")
    lines.append("top plans:")
    for s in answer.plans[:5]:
        names = ", ".join(cat.tables[t].table_id for t in s.plan.tables)
        tag = "" if s.plan.connected else " (unjoined)"
        lines.append(f"  p={s.prob:.3f} [{names}]{tag}")
    return "\n".join(lines) + "\n" + "answer: " + str(np.asarray(answer.table_ids).tolist())
