"""Budgeted selection: the 5 tables and <= 6 joins that contain the most plan probability."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

N_TABLES = 5
MAX_JOINS = 6
#: Unions of up to MAX_COMBINE of the TOP_PLANS most probable plans are scored exactly.
TOP_PLANS = 16
MAX_COMBINE = 4
#: How much likelier an alternative relationship is meant for each word of its column the question says.
SAID_WEIGHT = 3.0


@dataclass(frozen=True)
class Candidate:
    tables: tuple[int, ...]
    joins: tuple[int, ...]
    prob: float


@dataclass(frozen=True)
class JoinFacts:
    """What tells the relationships among the chosen tables apart when more than MAX_JOINS join them."""

    #: Per relationship: (referring table, referred table, referred column). Relationships from one table to
    #: the same column are alternatives (`Match.Team_1`, `Match.Team_2` -> `Team.Team_Id`); to different
    #: columns, parts of one composite key (`year`, `tmID`), which a plan uses together.
    target: Sequence[tuple[int, int, str]]
    #: Per relationship: how many words of its referring column the question says ("team 1" says `Team_1`).
    said: Callable[[int], int]


@dataclass(frozen=True)
class Selection:
    tables: tuple[int, ...]
    joins: tuple[int, ...]
    #: Summed probability of the candidate plans fully inside the answer (past the join cap, each times the
    #: chance that the alternatives it uses are among the answer's: JoinFacts).
    expected: float


def select(
    candidates: Sequence[Candidate],
    fallback: Sequence[int],
    joins_among: Callable[[list[int]], list[int]],
    n_tables: int = N_TABLES,
    max_joins: int = MAX_JOINS,
    join_facts: JoinFacts | None = None,
) -> Selection:
    """Exact search over unions of the top plans, then fill by marginal gain, then by `fallback` order.

    `joins_among` lists the catalog relationships whose two tables are both in a given table list.
    """
    cands = sorted(candidates, key=lambda c: (-c.prob, len(c.tables), c.tables))
    top = [c for c in cands[:TOP_PLANS] if len(c.tables) <= n_tables]
    local = sorted({t for c in top for t in c.tables})[:64]
    bit = {t: 1 << i for i, t in enumerate(local)}
    covered_plans = [c for c in cands if all(t in bit for t in c.tables)]
    masks = np.asarray([sum(bit[t] for t in c.tables) for c in covered_plans], dtype=np.uint64)
    probs = np.asarray([c.prob for c in covered_plans], dtype=np.float64)
    top_masks = np.asarray([sum(bit[t] for t in c.tables) for c in top if all(t in bit for t in c.tables)],
                           dtype=np.uint64)
    # Unions of up to MAX_COMBINE top plans that fit, grown one plan at a time: a union that is too big stays
    # too big, so pruning early loses none, and distinct unions are hundreds where combinations are thousands.
    # As uint64 arrays (one bit per local table): the set comprehension over Python ints took 1.2 of select's
    # 2.2 ms at the 95th percentile.
    unions = np.zeros(1, dtype=np.uint64)
    for _ in range(MAX_COMBINE):
        grown = (unions[:, None] | top_masks[None, :]).ravel()
        unions = np.unique(np.concatenate([unions, grown[np.bitwise_count(grown) <= n_tables]]))
    width = np.bitwise_count(unions)
    order = np.lexsort((unions, width))  # fewest tables first, then by mask: ties go to the first
    unions, width = unions[order], width[order]
    best = 0
    if masks.size:
        gains = ((masks[None, :] & ~unions[:, None]) == 0).astype(np.float64) @ probs
        best = int(np.argmax(gains - 1e-12 * width))
    chosen = [t for t in local if int(unions[best]) & bit[t]]
    chosen = _fill(chosen, cands, fallback, n_tables)
    among = joins_among(chosen)
    cset = set(chosen)
    inside = [c for c in cands if cset.issuperset(c.tables)]
    share = _shares(among, join_facts) if join_facts is not None and len(among) > max_joins else None
    joins = _pick_joins(inside, among, max_joins, share)
    jset = set(joins)
    targets = join_facts.target if join_facts is not None else ()
    expected = sum(c.prob * _used_inside(c.joins, jset, share, targets) for c in inside)
    return Selection(tuple(chosen), tuple(joins), float(expected))


def _fill(chosen: list[int], cands: Sequence[Candidate], fallback: Sequence[int], n: int) -> list[int]:
    """Add tables one at a time: first those completing plans, then those carrying most plan mass."""
    chosen = list(chosen)
    while len(chosen) < n:
        cset = set(chosen)
        gain: dict[int, float] = {}
        mass: dict[int, float] = {}
        for c in cands:
            missing = [t for t in c.tables if t not in cset]
            if len(missing) == 1:
                gain[missing[0]] = gain.get(missing[0], 0.0) + c.prob
            for t in missing:
                mass[t] = mass.get(t, 0.0) + c.prob / len(missing)
        pick = None
        if gain:
            pick = min(gain, key=lambda t: (-gain[t], t))
        elif mass:
            pick = min(mass, key=lambda t: (-mass[t], t))
        else:
            pick = next((t for t in fallback if t not in cset), None)
        if pick is None:
            break
        chosen.append(pick)
    return chosen


def _shares(among: list[int], facts: JoinFacts) -> dict[int, float]:
    """Per relationship, the chance a plan holding its two tables uses it rather than one of its alternatives:
    a candidate plan holds every relationship among its tables, a question mostly uses one of each set of
    alternatives, the one whose column it says if any."""
    said = {r: facts.said(r) for r in among}
    alternatives: dict[tuple[int, int, str], list[int]] = {}
    for r in among:
        alternatives.setdefault(facts.target[r], []).append(r)
    share: dict[int, float] = {}
    for rs in alternatives.values():
        low = min(said[r] for r in rs)
        raw = {r: 1.0 + SAID_WEIGHT * (said[r] - low) for r in rs}
        total = sum(raw.values())
        share.update((r, v / total) for r, v in raw.items())
    return share


def _used_inside(joins: Sequence[int], jset: set[int], share: dict[int, float] | None,
                 targets: Sequence[tuple[int, int, str]]) -> float:
    """The chance that the joins a plan uses are all answered: without shares, whether all its joins are; with
    them, for each set of alternatives it holds, the share of those answered."""
    if share is None:
        return float(jset.issuperset(joins))
    held: dict[tuple[int, int, str], float] = {}
    for r in joins:
        key = targets[r]
        held[key] = held.get(key, 0.0) + (share[r] if r in jset else 0.0)
    return float(np.prod(list(held.values()))) if held else 1.0


def _pick_joins(inside: Sequence[Candidate], among: list[int], max_joins: int,
                share: dict[int, float] | None) -> list[int]:
    """Every relationship among the chosen tables, most plan mass first (`inside`: the plans inside them),
    capped at max_joins; past the cap, by the mass of the plans that use it (`share`)."""
    weight = dict.fromkeys(among, 0.0)
    for c in inside:
        for r in c.joins:
            if r in weight:
                weight[r] += c.prob
    if share is None:
        return sorted(among, key=lambda r: (-weight[r], r))[:max_joins]
    return sorted(among, key=lambda r: (-weight[r] * share[r], -share[r], r))[:max_joins]
