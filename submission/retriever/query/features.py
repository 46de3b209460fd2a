"""Features for the two fitted choices: which group a question is about, and which plan inside it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from .channels import Evidence, standardise
from .plans import Plan

GROUP_FEATURES = (
    "cov_schema", "cov_all", "cov_name", "cov_rank", "bm25_group", "bm25_rank", "fused_max", "fused_top2",
    "fused_rank", "dense_table_max", "dense_column_max", "dense_top2", "dense_rank", "dense_group",
    "dense_group_rank", "name_max", "group_name", "phrase_any", "log_size", "cov_table", "dcol_top2",
    "cov_distinct", "dense_group_unmatched", "dense_table_unmatched", "cov_related", "entity_dense",
    "cov_instance", "dense_words", "words_fill", "related_elsewhere",
)
PLAN_FEATURES = (
    "size1", "size2", "size3", "size4", "size5", "unjoined", "n_joins", "cov_all", "cov_schema",
    "name_sum", "name_out", "rel_sum", "rel_min", "rel_out", "n_bridge", "phrase_in", "phrase_out", "dense_min",
    "dense_out", "dcol_min", "dcol_out", "entity_home", "cov_related", "tab_sum", "tab_min",
    "tab_out", "cov_instance", "words_in", "implied", "lookup_in", "dated_in",
)
#: The plan feature for plans joined by implied links (column names, no declared key), which routing leaves
#: out (Planner.route_logits).
IMPLIED = "implied"

#: What reranks the groups whose plans compete (query/planner.py): the group model's log-probability, and how
#: well the group's plans explain the question by the plan model (the log-sum-exp of its plan logits, less the
#: best group's, floored at PLAN_FIT_FLOOR), and the log of how many candidate plans it has (the log-sum-exp
#: mixes how many plans with how good they are; apart, the fit weighs each). The group features see tables one
#: at a time; the plans see them together, joined.
ROUTE_FEATURES = ("group_logit", "plan_fit", "plan_best", "plan_count")
PLAN_FIT_FLOOR = -5.0
#: A term at most this many other databases hold still counts for a database that holds a relative of it
#: (`related_elsewhere`); a term more hold is their domain's own word.
ELSEWHERE_MAX = 2


def route_features(group_probs: np.ndarray, plan_logits: Sequence[np.ndarray]) -> np.ndarray:
    """(groups, ROUTE_FEATURES) for the competing groups, from their probabilities and plan logits."""
    fit = np.asarray([float(lg.max() + np.log(np.exp(lg - lg.max()).sum())) for lg in plan_logits])
    best = np.asarray([float(lg.max()) for lg in plan_logits])
    return np.stack([np.log(np.maximum(group_probs, 1e-12)),
                     np.maximum(fit - fit.max(), PLAN_FIT_FLOOR),
                     np.maximum(best - best.max(), PLAN_FIT_FLOOR),
                     np.log(np.asarray([float(lg.size) for lg in plan_logits]))], axis=1).astype(np.float64)


@dataclass(frozen=True)
class GroupIndex:
    """Each table's group, and the tables sorted by group (for reductions that need a group's tables in a row)."""

    perm: np.ndarray
    start: np.ndarray
    size: np.ndarray
    group: np.ndarray

    @classmethod
    def from_table_group(cls, table_group: np.ndarray, n_groups: int) -> GroupIndex:
        group = np.asarray(table_group, dtype=np.int64)
        perm = np.argsort(group, kind="stable")
        size = np.bincount(group, minlength=n_groups)
        start = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
        return cls(perm, start, size, group)

    def reduce_max(self, x: np.ndarray) -> np.ndarray:
        """Max over each group's tables along the last axis (groups are never empty). Row by row with
        `maximum.at`: at 100k tables a reduceat over a permuted (terms, tables) copy took 1.5 ms a row."""
        x = x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float32)
        rows = x.reshape(-1, x.shape[-1])
        out = np.full((rows.shape[0], self.size.size), -np.inf, dtype=x.dtype)
        for row, got in zip(rows, out, strict=True):
            np.maximum.at(got, self.group, row)
        return out.reshape(*x.shape[:-1], self.size.size)

    def any_hit(self, hits: np.ndarray) -> np.ndarray:
        """reduce_max of a (rows, tables) 0/1 matrix, as float32, from its few hits alone."""
        out = np.zeros((hits.shape[0], self.size.size), dtype=np.float32)
        r, t = np.nonzero(hits)
        out[r, self.group[t]] = 1.0
        return out


def dense_channel(ev: Evidence) -> str | None:
    """The dense channel that feeds the features: the first live one, as the planner orders them (best
    first by the build's quality probe). Other channels still count through the fused ranks."""
    return next(iter(ev.group_dense), None)


def weigh(w: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """w @ hits for the small products of term weights with 0/1 hit matrices. OpenBLAS's AVX-512 float32
    kernels raise a spurious 'invalid value' flag now and then (2 of 1,034 dev questions in the table
    features on a Xeon with AVX-512; the values were finite and the same when recomputed), which numpy
    would print on the search process's stderr. The inputs are finite by construction."""
    with np.errstate(invalid="ignore"):
        return w @ hits


def _inv_rank(x: np.ndarray) -> np.ndarray:
    """1/rank (ties share the best rank): a nonlinear view the softmax cannot build from raw scores."""
    if not x.size:
        return x
    order = np.sort(x)[::-1]
    r = np.searchsorted(-order, -x, side="left") + 1
    return (1.0 / r).astype(np.float32)


def _top2_mean(x: np.ndarray, gi: GroupIndex) -> np.ndarray:
    """Sum of each group's two best values (one for single-table groups), vectorised for big catalogs."""
    xs = x[gi.perm].astype(np.float32)
    m1 = np.maximum.reduceat(xs, gi.start)
    is_max = xs == np.repeat(m1, gi.size)
    n_max = np.add.reduceat(is_max.astype(np.int32), gi.start)
    rest = np.maximum.reduceat(np.where(is_max, -np.inf, xs), gi.start)
    m2 = np.where(n_max >= 2, m1, np.where(gi.size >= 2, rest, 0.0))
    return (m1 + m2).astype(np.float32)


def group_features(ev: Evidence, gi: GroupIndex) -> np.ndarray:
    """(groups, GROUP_FEATURES) matrix."""
    w = ev.term_weights()
    hit_all = ev.schema_hit | ev.value_hit
    name_hit = ev.schema_hit & (ev.name_match > 0)[None, :]
    # Whether some table of the group holds each term: in its schema, at all, in its name, through a related
    # word, as a name's kind; one reduction for the five.
    k = w.size
    by_group = gi.any_hit(np.concatenate([ev.schema_hit, hit_all, name_hit, ev.related(), ev.instances()]))
    #: (terms, groups): the term is in some table of the group.
    held = by_group[k:2 * k]
    cov_schema = weigh(w, by_group[:k]) if k else np.zeros(gi.size.size)
    cov_all = weigh(w, held) if k else np.zeros(gi.size.size)
    fused = ev.fused / max(float(ev.fused.max()), 1e-9)
    fmax = gi.reduce_max(fused)
    bm = ev.group_bm25 / max(float(ev.group_bm25.max()), 1e-9)
    cov_name = weigh(w, by_group[2 * k:3 * k]) if k else np.zeros(gi.size.size)
    dense = ev.dense_z
    if dense is None:
        dt = dc = d2 = drank = dg = dgrank = dc2 = np.zeros_like(fmax)
    else:
        dt, dc = gi.reduce_max(dense[0]), gi.reduce_max(dense[1])
        d2, drank = _top2_mean(dense[0], gi) / 2, _inv_rank(dt)
        dg = dense[2]
        dgrank = _inv_rank(dg)
        dc2 = _top2_mean(dense[1], gi) / 2
    per_table = weigh(w, hit_all.astype(np.float32)) if w.size else np.zeros(ev.fused.size, dtype=np.float32)
    # Routing evidence: terms few databases hold weigh more than terms every database has ('name', 'year'),
    # whatever their spread over tables; and how much of the question no database explains lets the dense
    # scores count for more when the question does not use the schema's words.
    n_held = held.sum(axis=1)
    gidf = np.log1p(gi.size.size / np.maximum(n_held, 1.0)) * (n_held > 0)
    distinct = weigh(gidf / gidf.sum(), held) if gidf.sum() > 0 else np.zeros(gi.size.size, dtype=np.float32)
    unmatched = 1.0 - float(cov_all.max()) if cov_all.size else 1.0
    # Terms no database holds that the group holds through a related word: the user's word for its schema's
    # word. Only those: a word some database does hold ("singer") is the schema's own, and its relatives
    # elsewhere ("artist") are other things.
    foreign = (w * ((n_held == 0) & ~ev.names())).astype(np.float32)
    related = weigh(foreign, by_group[3 * k:4 * k]) if k else np.zeros(gi.size.size)
    # The same for any term the group lacks that at most ELSEWHERE_MAX other databases hold: a user's
    # "vocalists" may be another database's schema word and still mean this one's `singer`.
    rare = (w * (~ev.names() & (n_held <= ELSEWHERE_MAX))).astype(np.float32)
    elsewhere = weigh(rare, by_group[3 * k:4 * k] * (held == 0)) if k else np.zeros(gi.size.size)
    # Names the question gives, embedded alone, against the columns: which database would hold them.
    entity = gi.reduce_max(standardise(ev.entity_cos)) if ev.entity_cos.size else np.zeros(gi.size.size)
    # Names WordNet knows the kind of ("Finland" is a country): the group holds a column for that kind.
    named = (w * ev.names()).astype(np.float32)
    instance = weigh(named, by_group[4 * k:]) if k else np.zeros(gi.size.size)
    # The question's content words, each embedded alone: how well the group's best table for each answers it,
    # and the same for the words the group does not hold (the user's word for its schema's).
    wz = ev.words()
    words = fill = np.zeros(gi.size.size, dtype=np.float32)
    if k and wz.any():
        wg = gi.reduce_max(wz)
        words, fill = weigh(w, wg), weigh(w, wg * (held == 0))
    cols = [cov_schema, cov_all, cov_name, _inv_rank(cov_all), bm, _inv_rank(bm), fmax, _top2_mean(fused, gi),
            _inv_rank(fmax), dt, dc, d2, drank, dg, dgrank, gi.reduce_max(ev.name_match), ev.group_name_match,
            (gi.reduce_max(ev.phrase_hits) > 0).astype(np.float32), np.log(gi.size.astype(np.float32)),
            gi.reduce_max(per_table), dc2, distinct, dg * unmatched, dt * unmatched, related, entity,
            instance, words, fill, elsewhere]
    return np.stack(cols, axis=1).astype(np.float32)


def plan_features(ev: Evidence, plans: Sequence[Plan], group_members: Sequence[int], named: np.ndarray,
                  relevance: np.ndarray, lookups: np.ndarray | None = None, temporal: np.ndarray | None = None
                  ) -> np.ndarray:
    """(plans, PLAN_FEATURES) matrix for plans of one group whose tables are `group_members`; `named` marks
    the tables with a name or title column (where a quoted or capitalised value of the question would live);
    `relevance` is the table score of the sorted members, as log-odds below the group's best table; `temporal`
    marks the tables with a column saying when (index/documents.py, temporal_tables)."""
    members = np.asarray(sorted(group_members), dtype=np.int64)
    sizes = np.fromiter((len(p.tables) for p in plans), dtype=np.int64, count=len(plans))
    flat = np.fromiter(chain.from_iterable(p.tables for p in plans), dtype=np.int64, count=int(sizes.sum()))
    mask = np.zeros((len(plans), members.size), dtype=np.bool_)
    mask[np.repeat(np.arange(len(plans)), sizes), np.searchsorted(members, flat)] = True
    # Products here are integer or elementwise on purpose: these matrices are tiny, and float32 BLAS
    # kernels raised spurious 'invalid value' flags on them now and then.
    maski = mask.astype(np.int32)
    w = ev.term_weights()
    hit_all = (ev.schema_hit | ev.value_hit)[:, members]
    schema = ev.schema_hit[:, members]
    w64 = w.astype(np.float64)
    direct = (maski @ hit_all.T.astype(np.int32)) > 0
    cov_all = direct @ w64 if w.size else np.zeros(len(plans))
    cov_schema = ((maski @ schema.T.astype(np.int32)) > 0) @ w64 if w.size else np.zeros(len(plans))
    # Related words count for the terms the group does not hold at all (see group_features).
    rel = ev.related()[:, members] & (~hit_all.any(axis=1) & ~ev.names())[:, None]
    cov_rel = ((maski @ rel.T.astype(np.int32)) > 0) @ w64 if w.size else np.zeros(len(plans))
    inst = ev.instances()[:, members].T.astype(np.int32)
    cov_inst = ((maski @ inst) > 0) @ (w64 * ev.names()) if w.size else np.zeros(len(plans))
    name = ev.name_match[members]
    rel = ev.fused[members] / max(float(ev.fused[members].max()), 1e-9)
    phrase = ev.phrase_hits[members]
    matched = (hit_all.sum(axis=0) > 0) | (name > 0) | (phrase > 0)
    dense = ev.dense_z
    dm = np.zeros(members.size, dtype=np.float32) if dense is None else dense[0][members]
    dc = np.zeros(members.size, dtype=np.float32) if dense is None else dense[1][members]
    size = sizes
    # A named thing the group's schema and values do not explain: some table of the plan should hold names.
    unexplained = bool((ev.entity & ~hit_all.any(axis=1)).any()) if ev.entity.size else False
    home = (mask & named[members][None, :]).any(axis=1) & unexplained
    # Best outside the plan and worst inside it, each for several per-table scores in one masked reduction.
    best_out = _masked_max(np.stack([name, rel, phrase, dm, dc, relevance]), ~mask)
    name_out, rel_out, phrase_out, dm_out, dc_out = best_out[:5].clip(min=0.0)
    rel_min, dm_min, dc_min, tab_min = _masked_min(np.stack([rel, dm, dc, relevance]), mask)
    tab_out = np.where(np.isfinite(best_out[5]), best_out[5], -20.0).clip(min=-20.0)  # a floor if none is out
    wz = ev.words()[:, members]
    words_in = (w64 @ _masked_max(wz, mask).clip(min=0.0) if w.size and wz.any()
                else np.zeros(len(plans)))
    # What no table of the group holds is often a value ("strategy games", "comedy films") of a lookup table:
    # a small table others refer to, which no word of the question names.
    lookup_in = np.zeros(len(plans))
    if lookups is not None and w.size:
        held = (hit_all | ev.related()[:, members] | ev.instances()[:, members]).any(axis=1)
        unnamed = lookups[members] & ~hit_all.any(axis=0)
        lookup_in = (mask & unnamed[None, :]).any(axis=1) * float(w64[~held].sum())
    # A year or month the question gives is read from a column saying when: does the plan hold one?
    dated_in = np.zeros(len(plans))
    if temporal is not None and ev.dated:
        dated_in = (mask & temporal[members][None, :]).any(axis=1).astype(np.float64)
    feats = [
        size == 1, size == 2, size == 3, size == 4, size >= 5,
        np.fromiter((not p.connected for p in plans), dtype=np.float32, count=len(plans)),
        np.fromiter((len(p.joins) for p in plans), dtype=np.float32, count=len(plans)),
        cov_all, cov_schema, (mask * name).sum(axis=1), name_out, (mask * rel).sum(axis=1),
        rel_min, rel_out, (mask & ~matched).sum(axis=1), (mask & (phrase > 0)).sum(axis=1),
        phrase_out, dm_min, dm_out, dc_min, dc_out, home, cov_rel, (mask * relevance).sum(axis=1), tab_min,
        tab_out, cov_inst, words_in,
        np.fromiter((p.implied for p in plans), dtype=np.float32, count=len(plans)),
        lookup_in, dated_in,
    ]
    return np.stack([np.asarray(f, dtype=np.float32) for f in feats], axis=1)


def _masked_max(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(scores, plans): the best of each row of x (scores, tables) over each plan's masked tables; -inf if none."""
    return np.where(mask[None, :, :], x[:, None, :], -np.inf).max(axis=2, initial=-np.inf)


def _masked_min(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(scores, plans): the worst of each row of x over each plan's masked tables; 0 if none."""
    m = np.where(mask[None, :, :], x[:, None, :], np.inf).min(axis=2, initial=np.inf)
    return np.where(np.isfinite(m), m, 0.0)
