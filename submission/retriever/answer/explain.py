"""Human-readable evidence: why each table and join is in an answer."""

from __future__ import annotations

from ..index import registry
from ..query.fusion import ranks
from ..query.planner import Answer, Planner
from .assess import EvidenceSummary

#: A content word, embedded alone, counts as pointing at a table from this z-value over the catalog's tables
#: (about the top thousandth of a normal spread).
WORD_Z_SHOWN = 3.0


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
    rel = ev.related()
    related = [term for i, term in enumerate(ev.terms) if rel[i, t]]
    if related:
        parts.append("related words for " + ",".join(related))
    inst, names = ev.instances(), ev.names()
    kinds = [term for i, term in enumerate(ev.terms) if inst[i, t] and names[i]]
    if kinds:
        parts.append("a column for the kind of " + ",".join(kinds))
    wz = ev.words()
    alike = [term for i, term in enumerate(ev.terms)
             if wz[i, t] >= WORD_Z_SHOWN and not (ev.schema_hit[i, t] or ev.value_hit[i, t])]
    if alike:
        parts.append("words like its own for " + ",".join(alike))
    person = [term for term, p in zip(ev.terms, ev.persons().tolist(), strict=True) if p]
    if person and planner.shape.persons[t] > 0:
        parts.append("holds people, for " + ",".join(person))
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
    g = int(planner.index.table_group[t])
    members = planner.members[g]
    if len(members) > 1:
        rel = planner.relevance(ev, g)
        order = sorted(range(len(members)), key=lambda i: (-rel[i], members[i]))
        parts.append(f"relevance {order.index(members.index(t)) + 1} of {len(members)} in its database")
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


#: Every term the text output prints, in the order it appears; also in the README.
LEGEND = (
    ("confidence", "the probability that the answer holds every table and join the question needs, "
                   "calibrated on held-out databases from the plans' probability mass inside the answer, the "
                   "top database's probability and how much of the question the catalog matches"),
    ("low evidence", "no question term matches a table, column or sample value and dense similarity is "
                     "weak: the answer is a guess"),
    ("read as", "the question as the channels read it, where that is not as given: the request around it cut "
                "(\"Write a SQL query for: ...\") and, in a question typed without capitals, its names' capitals"),
    ("groups / group G p=", "databases (or schemas) with their probability of holding the question's tables, "
                            "by their tables and then by how well their best plans fit"),
    ("question terms", "the question's words after stop-word removal and Snowball stemming "
                       "(aircrafts -> aircraft, companies -> compani)"),
    ("p=", "on a table: summed probability of the candidate plans that use it, its share of the answer; "
           "tables are listed by it"),
    ("plan of N p=", "a candidate plan (N tables with their joins) that the table serves, and its probability"),
    ("hedge/fill", "the table serves no plan inside the answer: it fills a free slot or hedges on a "
                   "less likely database"),
    ("terms / values", "question terms found in the table's schema text / only in its sample values"),
    ("related words for", "question terms this table does not hold whose WordNet relatives, or the nouns they "
                          "are made from, are words of this table (vocalists -> singer, acted -> actor)"),
    ("a column for the kind of", "names in the question that WordNet knows as things of a kind this table has "
                                 "a word for (Finland -> country)"),
    ("words like its own for", "question words this table does not hold whose embedding, alone, is among the "
                               "closest to the table or one of its columns (musicians -> singer)"),
    ("holds people, for", "the question names a person (a census first name, then a last name) and the table holds "
                          "people's names (a first, last or full name column, or a kind of person with a name)"),
    ("quoted value", "a question phrase equal to one of the table's sample values"),
    ("name match", "share of the table name's words that occur in the question"),
    ("relevance K of N", "the table's place among its database's N tables by the fitted table relevance, "
                         "which picks the tables plans are made of"),
    ("ranks", f"the table's rank in each evidence channel: {registry.evidence_legend()}"),
    ("plan mass", "on a join: summed probability of the plans inside the answer that need it"),
    ("(unjoined)", "a plan of tables that neither a catalog relationship nor their column names connect"),
    ("(implied)", "a plan its column names connect where the catalog declares no relationship (film_category.film_id "
                  "-> film): the answer joins by declared relationships only"),
)


def legend() -> str:
    return "legend:\n" + "\n".join(f"  {k}: {v}" for k, v in LEGEND)


def explain(planner: Planner, answer: Answer, ranked: list[tuple[int, float]], evidence: EvidenceSummary,
            confidence: float, read_as: str | None = None) -> str:
    """Multi-line explanation: tables by relevance with plans and evidence, joins with plan mass, legend.
    `read_as` is the text the channels read where it is not the question as given (query/reading.py)."""
    cat = planner.index.catalog
    lines = []
    warning = evidence.warning()
    if warning:
        lines.append(f"WARNING: {warning}")
    lines.append(f"confidence {confidence:.3f}")
    if read_as is not None:
        lines.append(f"read as: {read_as}")
    lines.append("groups: " + ", ".join(f"{g} {p:.3f}" for g, p in answer.group_probs.items()))
    if answer.evidence is not None:
        lines.append(f"question terms: {' '.join(answer.evidence.terms) or '(none)'}"
                     + (f" (no match: {' '.join(evidence.unmatched_terms)})" if evidence.unmatched_terms else ""))
    lines.append("tables (most relevant first):")
    for i, (t, p) in enumerate(ranked, 1):
        lines.append(f"  {i}. {cat.tables[t].table_id}  p={p:.3f}")
        plans = _plans_with(answer, t, limit=3)
        lines.append(f"     serves: {', '.join(plans) if plans else 'no candidate plan (hedge/fill)'}")
        for e in _table_evidence(planner, answer, t):
            lines.append(f"     {e}")
    lines.append("joins:")
    chosen = set(answer.selection.tables)
    for r in answer.selection.joins:
        rel = cat.relationships[r]
        mass = sum(s.prob for s in answer.plans if r in s.plan.joins and set(s.plan.tables) <= chosen)
        lines.append(f"  {rel.left_table}.{rel.left_column} = {rel.right_table}.{rel.right_column}"
                     f"  (plan mass {mass:.3f})")
    if not answer.selection.joins:
        lines.append("  (none)")
    lines.append("top plans:")
    for s in answer.plans[:5]:
        names = ", ".join(cat.tables[t].table_id for t in s.plan.tables)
        tag = " (unjoined)" if not s.plan.connected else " (implied)" if s.plan.implied else ""
        lines.append(f"  p={s.prob:.3f} [{names}]{tag}")
    return "\n".join(lines) + "\n\n" + legend()
