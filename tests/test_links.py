"""Implied links: pairs of tables that column names relate where the catalog declares no relationship."""

from __future__ import annotations

from typing import Any

import numpy as np

from retriever.index.catalog import parse_catalog
from retriever.index.links import MAX_SHARED_KEY, implied_links, merged, relationship_links
from retriever.query.plans import enumerate_plans


def _table(group: str, name: str, columns: list[str], pk: list[str]) -> dict[str, Any]:
    return {"table_id": f"{group}.{name}", "group": group, "name": name,
            "columns": [{"name": c, "type": "text"} for c in columns], "primary_key": pk}


def _pairs(tables: list[dict[str, Any]], relationships: list[dict[str, str]] | None = None
           ) -> set[tuple[str, str]]:
    cat = parse_catalog({"tables": tables, "relationships": relationships or []})
    implied = implied_links(cat, relationship_links(cat))
    assert all(rels == () for nbrs in implied.values() for rels in nbrs.values())
    ids = [t.table_id.split(".")[1] for t in cat.tables]
    return {(ids[a], ids[b]) for a, nbrs in implied.items() for b in nbrs if a < b}


def test_a_column_named_as_another_tables_key_or_as_the_table_links_them() -> None:
    # A film schema with no foreign keys declared (as in a third of BIRD's databases).
    tables = [
        _table("rent", "film", ["film_id", "title", "language_id"], ["film_id"]),
        _table("rent", "category", ["category_id", "name"], ["category_id"]),
        _table("rent", "film_category", ["film_id", "category_id"], ["film_id", "category_id"]),
        _table("rent", "language", ["language_id", "name"], ["language_id"]),
        # Named as the table itself with a key word, and named as the table alone (mondial's city.Province).
        _table("rent", "customers", ["customerNumber", "city"], ["customerNumber"]),
        _table("rent", "payments", ["customerNumber", "amount", "province"], ["checkNumber"]),
        _table("rent", "province", ["Name", "Capital"], ["Name"]),
        # The same key name in another database says nothing about this one.
        _table("other", "film", ["film_id"], ["film_id"]),
    ]
    assert _pairs(tables) == {("film", "film_category"), ("category", "film_category"), ("film", "language"),
                              ("customers", "payments"), ("payments", "province")}


def test_generic_keys_declared_pairs_and_widely_shared_keys_imply_nothing() -> None:
    # Every table's own "id" relates none of them; a declared pair is not implied again.
    tables = [_table("g", n, ["id", "name", "owner_id"], ["id"]) for n in ("pets", "toys", "owner")]
    declared = [{"left_table": "g.pets", "left_column": "owner_id", "right_table": "g.owner",
                 "right_column": "id"}]
    assert _pairs(tables, declared) == {("toys", "owner")}
    # A key that is the single primary key of more than MAX_SHARED_KEY tables points at none of them.
    shared = [_table("h", f"t{i}", ["row_key", "v"], ["row_key"]) for i in range(MAX_SHARED_KEY + 1)]
    assert _pairs(shared + [_table("h", "log", ["row_key"], [])]) == set()
    few = [_table("h", f"t{i}", ["row_key", "v"], ["row_key"]) for i in range(2)]
    assert _pairs(few) == {("t0", "t1")}


def test_a_key_several_tables_list_first_points_at_the_table_it_is_named_after() -> None:
    # Catalogs list a composite key by its first column: section's "course_id" is course's key, not its own.
    tables = [
        _table("u", "course", ["course_id", "title"], ["course_id"]),
        _table("u", "section", ["course_id", "sec_id", "year"], ["course_id"]),
        _table("u", "prereq", ["course_id", "prereq_id"], ["course_id"]),
    ]
    assert _pairs(tables) == {("course", "section"), ("course", "prereq")}


def test_a_short_table_prefix_is_not_part_of_the_key_name() -> None:
    # TPC-H names every column after its table: l_orderkey is o_orderkey, l_partkey is p_partkey.
    tables = [
        _table("tpch", "orders", ["o_orderkey", "o_custkey"], ["o_orderkey"]),
        _table("tpch", "lineitem", ["l_orderkey", "l_partkey", "l_linenumber"], ["l_orderkey", "l_linenumber"]),
        _table("tpch", "part", ["p_partkey", "p_name"], ["p_partkey"]),
    ]
    assert _pairs(tables) == {("orders", "lineitem"), ("lineitem", "part")}


def test_plans_walk_implied_pairs_and_join_by_declared_ones_only() -> None:
    # 0-1 declared; 1-2 and 2-3 implied: a plan of 0, 1, 2 is connected but only through an implied pair.
    declared = {0: {1: (0,)}, 1: {0: (0,)}}
    walk = merged(declared, {1: {2: ()}, 2: {1: (), 3: ()}, 3: {2: ()}})
    assert list(walk[1]) == [0, 2]  # declared neighbours first
    plans = {p.tables: p for p in enumerate_plans(0, [0, 1, 2, 3], np.ones(4), walk, declared)}
    assert plans[(0, 1)].connected and not plans[(0, 1)].implied and plans[(0, 1)].joins == (0,)
    three = plans[(0, 1, 2)]
    assert three.connected and three.implied and three.joins == (0,)
    assert plans[(1, 2, 3)].implied and plans[(1, 2, 3)].joins == ()
    assert not plans[(0,)].implied
    # Without implied pairs nothing is marked.
    assert not any(p.implied for p in enumerate_plans(0, [0, 1, 2, 3], np.ones(4), declared, declared))
