"""Candidate plans: connected subsets of up to five tables along relationships, plus unjoined top pairs."""

from __future__ import annotations

import networkx as nx
import numpy as np

from retriever.query.plans import MAX_PLAN_TABLES, UNJOINED_SEEDS, enumerate_plans, links_of


def _graph(n: int, edges: list[tuple[int, int]]) -> nx.MultiGraph:
    g: nx.MultiGraph = nx.MultiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((a, b, i, {"rel": i}) for i, (a, b) in enumerate(edges))
    return g


def test_plans_reach_five_tables_along_relationships_only() -> None:
    # A chain 0-1-2-3-4 by relationships; 5 has no relationship (a foreign key the catalog does not declare).
    graph = _graph(6, [(0, 1), (1, 2), (2, 3), (3, 4)])
    relevance = np.asarray([6, 5, 4, 3, 2, 1], dtype=np.float32)
    plans = {p.tables: p for p in enumerate_plans(0, list(range(6)), relevance, links_of(graph))}
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
