"""Candidate plans inside one group: connected table sets along the relationship graph (declared and implied
relationships), plus unjoined pairs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..index.links import Links, shortest_path

MAX_PLAN_TABLES = 5
#: Tables of a group considered for plans, by relevance; bridges on paths between them are added.
POOL_SIZE = 7
#: Top tables between which bridge paths are added.
BRIDGE_SEEDS = 4
MAX_BRIDGE_EDGES = 3
#: Most relevant tables whose pairs are plans even without a relationship (BIRD leaves many keys undeclared).
UNJOINED_SEEDS = 5
#: Bounds that keep one question's work small in a group of thousands of tables (a warehouse schema with
#: no database split): at most this many name- or value-matched tables join the pool, and enumeration stops
#: after this many plans (smallest first, so every 1- and 2-table plan of the pool comes before any cut).
MAX_FORCED = 6
MAX_PLANS = 2000

@dataclass(frozen=True)
class Plan:
    group: int
    #: Table positions, sorted.
    tables: tuple[int, ...]
    #: Catalog relationship indices among the plan's tables.
    joins: tuple[int, ...]
    connected: bool
    #: Connected only through pairs the column names imply (index/links.py), not by declared relationships.
    implied: bool = False


def plan_pool(members: Sequence[int], relevance: Mapping[int, float], links: Links,
              forced: Sequence[int] = ()) -> list[int]:
    """The group's most relevant tables plus the bridges that connect the best of them."""
    if len(members) <= POOL_SIZE:
        return sorted(members)
    ranked = sorted(members, key=lambda t: (-float(relevance[t]), t))
    inside = set(members)
    forced = sorted((t for t in set(forced) if t in inside), key=lambda t: (-float(relevance[t]), t))
    pool = list(dict.fromkeys(ranked[:POOL_SIZE] + forced[:MAX_FORCED]))
    for a, b in combinations(ranked[:BRIDGE_SEEDS], 2):
        path = shortest_path(links, a, b, inside)
        if path is not None and len(path) - 1 <= MAX_BRIDGE_EDGES:
            pool.extend(p for p in path if p not in pool)
    return sorted(pool)


def enumerate_plans(group: int, pool: Sequence[int], relevance: Mapping[int, float], links: Links,
                    declared: Links | None = None) -> list[Plan]:
    """All subsets of the pool up to MAX_PLAN_TABLES connected along `links`, and unjoined pairs of its top
    tables; with `declared` (the catalog's own relationships, where `links` adds implied pairs), a plan those
    do not connect is marked implied."""
    inside = set(pool)
    neighbours = {t: inside.intersection(links.get(t, ())) for t in inside}
    seen: set[tuple[int, ...]] = set()
    frontier: list[tuple[int, ...]] = [(t,) for t in sorted(pool)]
    seen.update(frontier)
    out: list[tuple[int, ...]] = list(frontier)
    while frontier and len(out) < MAX_PLANS:
        nxt = []
        for s in frontier:
            if len(s) >= MAX_PLAN_TABLES:
                continue
            nbrs = {n for t in s for n in neighbours[t]} - set(s)
            for n in sorted(nbrs):
                cand = tuple(sorted((*s, n)))
                if cand not in seen:
                    seen.add(cand)
                    nxt.append(cand)
        nxt = nxt[: MAX_PLANS - len(out)]
        out.extend(nxt)
        frontier = nxt
    declared = links if declared is None else declared
    # Only a pool with an implied pair inside can hold an implied plan: most declared schemas skip the walk.
    mixed = any(n in inside and n not in declared.get(t, {}) for t in inside for n in links.get(t, {}))
    plans = []
    for s in out:
        plans.append(Plan(group, s, joins_among(s, links), True, mixed and not _connected(s, declared)))
    top = sorted(pool, key=lambda t: (-float(relevance[t]), t))[:UNJOINED_SEEDS]
    for a, b in combinations(sorted(top), 2):
        if (a, b) not in seen:
            plans.append(Plan(group, (a, b), (), False))
    return plans


def _connected(tables: tuple[int, ...], links: Links) -> bool:
    inside = set(tables)
    seen = {tables[0]}
    stack = [tables[0]]
    while stack:
        for n in links.get(stack.pop(), {}):
            if n in inside and n not in seen:
                seen.add(n)
                stack.append(n)
    return len(seen) == len(inside)


def joins_among(tables: Sequence[int], links: Links) -> tuple[int, ...]:
    """The relationships whose two tables are both among `tables`, sorted."""
    rels: set[int] = set()
    for a, b in combinations(tables, 2):
        rels.update(links.get(a, {}).get(b, ()))
    return tuple(sorted(rels))
