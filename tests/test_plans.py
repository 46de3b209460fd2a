"""Candidate plans: implicit links for undeclared foreign keys, plans of up to five tables."""

from __future__ import annotations

import networkx as nx
import numpy as np

from retriever.plans import MAX_LINK_FANOUT, MAX_PLAN_TABLES, enumerate_plans, implicit_links, key_like


def _graph(n: int, edges: list[tuple[int, int]]) -> nx.MultiGraph:
    g: nx.MultiGraph = nx.MultiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((a, b, i, {"rel": i}) for i, (a, b) in enumerate(edges))
    return g


def test_key_like_names() -> None:
    for name in ("customer_id", "CustomerID", "country_code", "isbn_no", "zip_key", "OrderNumber"):
        assert key_like(name), name
    for name in ("name", "title", "id", "price", "notes"):
        assert not key_like(name), name


def test_implicit_links_join_tables_that_share_a_key_column_without_a_relationship() -> None:
    tables = [
        ("shop", ["customer_id", "name"], ["customer_id"]),        # 0 customers
        ("shop", ["order_id", "customer_id", "total"], ["order_id"]),  # 1 orders: FK not declared
        ("shop", ["order_id", "product_id"], []),                  # 2 order lines: FK to orders declared
        ("zoo", ["customer_id"], []),                              # 3 another database: never linked
        ("shop", ["name"], []),                                    # 4 shares only a descriptive column
    ]
    graph = _graph(5, [(2, 1)])
    assert implicit_links(tables, graph) == [(0, 1)]


def test_a_column_every_table_has_links_nothing() -> None:
    n = MAX_LINK_FANOUT + 1
    tables = [("g", ["row_id", f"c{i}"], []) for i in range(n)]
    assert implicit_links(tables, _graph(n, [])) == []


def test_plans_reach_five_tables_and_count_the_links_they_need() -> None:
    # A chain 0-1-2-3-4 by relationships, and 5 linked to 4 only by a shared key column.
    graph = _graph(6, [(0, 1), (1, 2), (2, 3), (3, 4)])
    links = nx.Graph([(4, 5)])
    relevance = np.asarray([6, 5, 4, 3, 2, 1], dtype=np.float32)
    plans = {p.tables: p for p in enumerate_plans(0, list(range(6)), relevance, graph, links)}
    assert MAX_PLAN_TABLES == 5
    five = plans[(0, 1, 2, 3, 4)]
    assert five.connected and five.links == 0 and five.joins == (0, 1, 2, 3)
    linked = plans[(4, 5)]
    assert not linked.connected and linked.links == 1 and linked.joins == ()
    assert plans[(3, 4, 5)].links == 1 and plans[(3, 4, 5)].joins == (3,)
    assert all(len(t) <= 5 for t in plans)
    # Without the links, 5 only pairs with top tables as an unjoined plan.
    bare = {p.tables for p in enumerate_plans(0, list(range(6)), relevance, graph)}
    assert (3, 4, 5) not in bare
