"""The catalog's relationships as plain adjacency dicts, built once at load.

Plan enumeration reads them thousands of times a question and bridge paths walk them; a graph library's
import (a quarter of a second at startup) and its per-question subgraph views cost more than the walks.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping

from .catalog import Catalog

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
    pos = {t.table_id: i for i, t in enumerate(catalog.tables)}
    return links_from((pos[r.left_table], pos[r.right_table], i) for i, r in enumerate(catalog.relationships))


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
