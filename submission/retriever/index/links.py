"""The catalog's relationships as plain adjacency dicts, built once at load.

Plan enumeration reads them thousands of times a question and bridge paths walk them; a graph library's
import (a quarter of a second at startup) and its per-question subgraph views cost more than the walks.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from functools import lru_cache

from .catalog import Catalog, Table
from .text import stem, words

#: Each table's neighbours, in the order their first relationship comes in the catalog, and per neighbour the
#: sorted relationship indices between the two.
Links = Mapping[int, Mapping[int, tuple[int, ...]]]


def links_from(edges: Iterable[tuple[int, int, int]]) -> dict[int, dict[int, tuple[int, ...]]]:
    """(table, table, relationship index) triples as Links; a self-reference joins no two tables."""
    found: dict[int, dict[int, list[int]]] = {}
    for a, b, rel in edges:
        if a != b:
            found.setdefault(a, {}).setdefault(b, []).append(rel)
            found.setdefault(b, {}).setdefault(a, []).append(rel)
    return {t: {n: tuple(sorted(set(rels))) for n, rels in nbrs.items()} for t, nbrs in found.items()}


def relationship_links(catalog: Catalog) -> dict[int, dict[int, tuple[int, ...]]]:
    """Links between table positions, from the catalog's relationships in their order."""
    pos = catalog.positions()
    return links_from((pos[r.left_table], pos[r.right_table], i) for i, r in enumerate(catalog.relationships))


#: Column names too common to say which table a column points at ("id" is every table's own key).
GENERIC_KEYS = frozenset({("id",), ("name",), ("code",), ("key",), ("no",), ("number",), ("num",), ("type",)})
#: Words a column naming another table ends with: customer_id, customerNumber, productCode.
KEY_SUFFIXES = ("id", "key", "code", "no", "number", "num")
#: A key name that is the primary key of more tables than this in one group says nothing about which.
MAX_SHARED_KEY = 4


@lru_cache(maxsize=1 << 16)
def _name_key(name: str) -> tuple[str, ...]:
    """A column or table name's stems, without a short table prefix (TPC-H's `l_orderkey`, `o_orderkey`)."""
    ws = words(name)
    if len(ws) > 1 and len(ws[0]) <= 2 and ws[0].isalpha():
        ws = ws[1:]
    return tuple(stem(w) for w in ws)


def implied_links(catalog: Catalog, declared: Links) -> dict[int, dict[int, tuple[int, ...]]]:
    """Pairs of tables of one group that their column names relate where the catalog declares nothing: a
    column named as another table's single-column primary key (film_category.film_id -> film), or named as the
    table itself, alone or with a key word (city.Province -> province, orders.customerNumber -> customers).
    Real catalogs leave foreign keys out (a third of BIRD's databases declare none); the planner walks these
    pairs to make candidate plans, and they carry no relationship, so they never become joins of an answer."""
    by_group: dict[str, list[int]] = {}
    for i, t in enumerate(catalog.tables):
        by_group.setdefault(t.group, []).append(i)
    pairs: list[tuple[int, int, int]] = []
    for members in by_group.values():
        targets: dict[tuple[str, ...], list[int]] = {}
        for b in members:
            table = catalog.tables[b]
            if len(table.primary_key) == 1:
                targets.setdefault(_name_key(table.primary_key[0]), []).append(b)
        for pk, owners in list(targets.items()):
            # Tables sharing a key name (catalogs list a composite key by its first column): the one the key
            # is named after (course_id -> course, not section) if there is one.
            own = [b for b in owners if _name_key(catalog.tables[b].name) == pk[:-1]] if len(owners) > 1 else owners
            targets[pk] = own or owners
            if len(targets[pk]) > MAX_SHARED_KEY or pk in GENERIC_KEYS:
                del targets[pk]
        for b in members:
            name = _name_key(catalog.tables[b].name)
            if name and name not in GENERIC_KEYS:
                for key in (name, *((*name, s) for s in KEY_SUFFIXES)):
                    targets.setdefault(key, []).append(b)
        for a in members:
            pairs.extend((a, b, -1) for b in _pointed_at(catalog.tables[a], targets) if b != a
                         and b not in declared.get(a, {}))
    found = links_from(pairs)
    return {t: dict.fromkeys(nbrs, ()) for t, nbrs in found.items()}


def _pointed_at(table: Table, targets: Mapping[tuple[str, ...], list[int]]) -> list[int]:
    return sorted({b for c in table.columns for b in targets.get(_name_key(c.name), ())})


def merged(declared: Links, implied: Links) -> dict[int, dict[int, tuple[int, ...]]]:
    """Both kinds of pairs as one walk graph: declared neighbours first, in their order, then implied ones."""
    out = {t: dict(nbrs) for t, nbrs in declared.items()}
    for t, nbrs in implied.items():
        row = out.setdefault(t, {})
        for n in nbrs:
            row.setdefault(n, ())
    return out


def shortest_path(links: Links, source: int, target: int, inside: Container[int]) -> list[int] | None:
    """A shortest path of tables from source to target through tables of `inside`, or None.

    Breadth-first from both ends, growing the smaller fringe and taking neighbours in link order, so that of
    several shortest paths it finds the one networkx's `shortest_path` finds (what the weights were fitted on).
    """
    if source == target:
        return [source]
    pred: dict[int, int | None] = {source: None}
    succ: dict[int, int | None] = {target: None}
    forward, reverse = [source], [target]
    meet = None
    while forward and reverse and meet is None:
        grow_forward = len(forward) <= len(reverse)
        level, seen, other = (forward, pred, succ) if grow_forward else (reverse, succ, pred)
        fringe: list[int] = []
        for v in level:
            for w in links.get(v, {}):
                if w not in inside:
                    continue
                if w not in seen:
                    fringe.append(w)
                    seen[w] = v
                if w in other:
                    meet = w
                    break
            if meet is not None:
                break
        if grow_forward:
            forward = fringe
        else:
            reverse = fringe
    if meet is None:
        return None
    path: list[int] = []
    node: int | None = meet
    while node is not None:
        path.append(node)
        node = pred[node]
    path.reverse()
    node = succ[path[-1]]
    while node is not None:
        path.append(node)
        node = succ[node]
    return path
