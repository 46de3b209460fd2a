"""Candidate plans: connected subsets of up to five tables along relationships, plus unjoined top pairs."""

from __future__ import annotations

import numpy as np

from retriever.index.links import Links, links_from, shortest_path
from retriever.query.plans import MAX_PLAN_TABLES, UNJOINED_SEEDS, enumerate_plans


def _links(edges: list[tuple[int, int]]) -> Links:
    return links_from((a, b, i) for i, (a, b) in enumerate(edges))


def test_plans_reach_five_tables_along_relationships_only() -> None:
    # A chain 0-1-2-3-4 by relationships; 5 has no relationship (a foreign key the catalog does not declare).
    links = _links([(0, 1), (1, 2), (2, 3), (3, 4)])
    relevance = np.asarray([6, 5, 4, 3, 2, 1], dtype=np.float32)
    plans = {p.tables: p for p in enumerate_plans(0, list(range(6)), relevance, links)}
    assert MAX_PLAN_TABLES == 5
    five = plans[(0, 1, 2, 3, 4)]
    assert five.connected and five.joins == (0, 1, 2, 3)
    assert plans[(3, 4)].joins == (3,)
    assert all(len(t) <= 5 for t in plans)
    # 5 joins no plan along relationships and is not among the top UNJOINED_SEEDS (5) tables, so it forms no
    # unjoined pair: it stands alone. The top five pair up wherever no relationship joins them.
    assert UNJOINED_SEEDS == 5
    assert [t for t in plans if 5 in t] == [(5,)]
    unjoined = {t for t, p in plans.items() if not p.connected}
    assert unjoined == {(0, 2), (0, 3), (0, 4), (1, 3), (1, 4), (2, 4)}
    assert all(plans[t].joins == () for t in unjoined)


def test_shortest_path_keeps_inside_and_breaks_ties_by_link_order() -> None:
    # A square 0-1-3, 0-2-3: two shortest paths; the neighbour whose relationship comes first wins.
    square = [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert shortest_path(_links(square), 0, 3, {0, 1, 2, 3}) == [0, 1, 3]
    assert shortest_path(_links(square[::-1]), 0, 3, {0, 1, 2, 3}) == [0, 2, 3]
    # Only through tables of the group: without 1 the path goes by 2; without 1 and 2 there is none.
    assert shortest_path(_links(square), 0, 3, {0, 2, 3}) == [0, 2, 3]
    assert shortest_path(_links(square), 0, 3, {0, 3}) is None
    assert shortest_path(_links(square + [(3, 4), (4, 5)]), 5, 0, set(range(6))) == [5, 4, 3, 1, 0]
    assert shortest_path(_links([(0, 0)]), 0, 0, {0}) == [0]
