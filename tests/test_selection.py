"""The budgeted selector on hand-made probability tables: known optima, hedging, bridges, validity."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from retriever.query.selection import MAX_JOINS, N_TABLES, Candidate, JoinFacts, select

#: Relationship id -> its two tables; the hand-made catalogs below use these ids for joins.
RELS = {0: (0, 1), 1: (1, 2), 2: (10, 11), 3: (2, 3), 4: (3, 4), 5: (4, 5), 6: (5, 6), 7: (0, 6)}


def joins_among(tables: list[int], rels: dict[int, tuple[int, int]] = RELS) -> list[int]:
    inside = set(tables)
    return sorted(r for r, (a, b) in rels.items() if a in inside and b in inside)


def covered_mass(cands: list[Candidate], tables: set[int], joins: set[int]) -> float:
    return sum(c.prob for c in cands if tables.issuperset(c.tables) and joins.issuperset(c.joins))


def test_uncertain_database_hedges_across_groups() -> None:
    # Group A (tables 0-5) holds the best plan, group B (10, 11) the runner-up: five tables of A would
    # cover 0.55, the hedge {0, 1, 2} + {10, 11} covers 0.75.
    cands = [
        Candidate((0, 1, 2), (0, 1), 0.40),
        Candidate((10, 11), (2,), 0.35),
        Candidate((3,), (), 0.10),
        Candidate((4,), (), 0.05),
    ]
    sel = select(cands, fallback=[0, 1, 2, 3, 4, 5, 10, 11], joins_among=joins_among)
    assert set(sel.tables) == {0, 1, 2, 10, 11}
    assert set(sel.joins) == {0, 1, 2}
    assert abs(sel.expected - 0.75) < 1e-9


def test_certain_database_spends_the_budget_on_the_bridge() -> None:
    # Table 1 is a junction nobody names (last in the relevance order), but plan {0, 1, 2} needs it;
    # the leaves 3 and 4 are more relevant one by one and worth less together.
    cands = [
        Candidate((0, 1, 2), (0, 1), 0.55),
        Candidate((0,), (), 0.15),
        Candidate((3,), (), 0.12),
        Candidate((4,), (), 0.10),
        Candidate((5,), (), 0.08),
    ]
    sel = select(cands, fallback=[0, 2, 3, 4, 5, 1], joins_among=joins_among)
    assert {0, 1, 2} <= set(sel.tables)
    assert {0, 1} <= set(sel.joins)
    assert abs(sel.expected - (0.55 + 0.15 + 0.12 + 0.10)) < 1e-9


def test_a_plan_counts_only_with_its_joins() -> None:
    # Seven relationships among the five tables, only six may be returned: the plan's own joins stay in.
    rels = {r: (a, b) for r, (a, b) in enumerate(combinations(range(5), 2)) if r < 7}
    plan_joins = (6, 5)
    cands = [Candidate((0, 1, 2, 3, 4), plan_joins, 0.9)]
    sel = select(cands, fallback=list(range(5)), joins_among=lambda t: joins_among(t, rels))
    assert len(sel.joins) == MAX_JOINS and set(plan_joins) <= set(sel.joins)
    assert abs(sel.expected - 0.9) < 1e-9


#: Tables 0-3: four relationships from table 0 to the same column of table 1 (alternatives: `Match.Team_1`,
#: `Team_2`, `Toss_Winner`, `Match_Winner` -> `Team.Team_Id`), one from 2 to 0, two from 3 to two columns of
#: 1 (the parts of a composite key: `year`, `tmID`).
ALTERNATIVES = {0: (0, 1), 1: (0, 1), 2: (0, 1), 3: (0, 1), 4: (2, 0), 5: (3, 1), 6: (3, 1)}
TARGETS = [(0, 1, "team_id")] * 4 + [(2, 0, "match_id"), (3, 1, "year"), (3, 1, "tmid")]


def _facts(said: dict[int, int] | None = None) -> JoinFacts:
    return JoinFacts(TARGETS, lambda r: (said or {}).get(r, 0))


def _plans(p01: float, p012: float, p13: float) -> list[Candidate]:
    """Candidates over ALTERNATIVES: the plans of tables 0 and 1 hold all four alternatives."""
    return [Candidate((0, 1), (0, 1, 2, 3), p01), Candidate((0, 1, 2), (0, 1, 2, 3, 4), p012),
            Candidate((1, 3), (5, 6), p13), Candidate((4,), (), 0.1)]


def test_past_the_cap_alternatives_share_their_mass() -> None:
    # Every candidate holding tables 0 and 1 holds all four alternatives, so by mass alone they would take
    # four of the six slots and leave out a join a likelier plan needs.
    cands = _plans(0.49, 0.2, 0.21)
    fallback = [0, 1, 2, 3, 4]
    by_mass = select(cands, fallback, lambda t: joins_among(t, ALTERNATIVES))
    shared = select(cands, fallback, lambda t: joins_among(t, ALTERNATIVES), join_facts=_facts())
    assert set(by_mass.tables) == set(shared.tables) == {0, 1, 2, 3, 4}
    assert set(by_mass.joins) == {0, 1, 2, 3, 5, 6}
    # The composite key's two parts each carry their plan's whole mass, one alternative of four a quarter:
    # the plans of tables 0 and 1 are covered unless the question uses the fourth alternative.
    assert set(shared.joins) == {4, 5, 6, 0, 1, 2}
    assert abs(shared.expected - (0.21 + 0.1 + 0.75 * (0.49 + 0.2))) < 1e-9


def test_past_the_cap_the_alternative_the_question_says_comes_first() -> None:
    sel = select(_plans(0.5, 0.2, 0.2), [0, 1, 2, 3, 4], lambda t: joins_among(t, ALTERNATIVES),
                 join_facts=_facts({3: 1}))
    assert sel.joins[0] == 3 and set(sel.joins) == {3, 4, 5, 6, 0, 1}
    # The said one is 4 times as likely as each other: 4 / 7 of the plans' mass, and 1 / 7 for each of 0, 1.
    assert abs(sel.expected - (0.2 + 0.1 + 6 / 7 * (0.5 + 0.2))) < 1e-9


def test_under_the_cap_every_relationship_is_returned() -> None:
    cands = [Candidate((0, 1, 2), (0, 1, 2, 3, 4), 0.9)]
    sel = select(cands, [0, 1, 2], lambda t: joins_among(t, ALTERNATIVES), join_facts=_facts({3: 1}))
    assert set(sel.joins) == {0, 1, 2, 3, 4} and abs(sel.expected - 0.9) < 1e-9


def test_no_candidates_falls_back_to_the_given_order() -> None:
    sel = select([], fallback=[7, 3, 9, 1, 4, 8], joins_among=lambda t: [])
    assert sel.tables == (7, 3, 9, 1, 4) and sel.joins == () and sel.expected == 0.0


def test_ties_are_broken_deterministically() -> None:
    cands = [Candidate((t,), (), 0.1) for t in range(8, 0, -1)]
    first = select(cands, fallback=list(range(1, 9)), joins_among=lambda t: [])
    again = select(list(reversed(cands)), fallback=list(range(1, 9)), joins_among=lambda t: [])
    assert first == again and first.tables == (1, 2, 3, 4, 5)


@st.composite
def problems(draw: st.DrawFn, max_plans: int = 12) -> tuple[list[Candidate], list[int], dict[int, tuple[int, int]]]:
    n = draw(st.integers(1, 12))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                          max_size=14, unique_by=lambda p: frozenset(p)))
    rels = dict(enumerate(pairs))
    cands = []
    for _ in range(draw(st.integers(0, max_plans))):
        tables = tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=4))))
        joins = tuple(r for r, (a, b) in rels.items() if a in tables and b in tables)[:3]
        cands.append(Candidate(tables, joins, draw(st.floats(0.0, 1.0))))
    fallback = draw(st.permutations(list(range(n))))
    return cands, list(fallback), rels


@settings(max_examples=300, deadline=None, derandomize=True)
@given(problems())
def test_any_selection_is_a_valid_answer(
    problem: tuple[list[Candidate], list[int], dict[int, tuple[int, int]]],
) -> None:
    cands, fallback, rels = problem
    # With join facts too: every relationship an alternative of the others from its table, said or not.
    facts = JoinFacts([(a, b, "id") for _, (a, b) in sorted(rels.items())], lambda r: r % 2)
    plain = select(cands, fallback, lambda t: joins_among(t, rels))
    shared = select(cands, fallback, lambda t: joins_among(t, rels), join_facts=facts)
    for sel in (plain, shared):
        assert len(sel.tables) == min(N_TABLES, len(fallback)) == len(set(sel.tables))
        assert set(sel.tables) <= set(fallback)
        assert len(sel.joins) <= MAX_JOINS and len(set(sel.joins)) == len(sel.joins)
        assert set(sel.joins) <= set(joins_among(list(sel.tables), rels))
    assert abs(plain.expected - covered_mass(cands, set(plain.tables), set(plain.joins))) < 1e-9
    # Past the cap a plan may count in part (the alternatives it uses may be answered), never more than whole.
    inside = covered_mass(cands, set(shared.tables), {r for c in cands for r in c.joins})
    assert covered_mass(cands, set(shared.tables), set(shared.joins)) - 1e-9 <= shared.expected <= inside + 1e-9
    if len(joins_among(list(shared.tables), rels)) <= MAX_JOINS:
        assert shared == plain


@settings(max_examples=300, deadline=None, derandomize=True)
@given(problems(max_plans=4))
def test_few_plans_reach_the_brute_force_optimum(
    problem: tuple[list[Candidate], list[int], dict[int, tuple[int, int]]],
) -> None:
    """With at most 4 plans every union of plans is searched, so no 5-table set whose plans fit in 6 joins
    covers more probability."""
    cands, fallback, rels = problem
    sel = select(cands, fallback, lambda t: joins_among(t, rels))
    k = min(N_TABLES, len(fallback))
    best = 0.0
    for subset in combinations(sorted(fallback), k):
        inside = [c for c in cands if set(subset).issuperset(c.tables)]
        needed = {r for c in inside for r in c.joins}
        if len(needed) <= MAX_JOINS:
            best = max(best, sum(c.prob for c in inside))
    assert sel.expected >= best - 1e-9
