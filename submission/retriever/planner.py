"""Question -> group probabilities -> plan probabilities -> the 5 tables and joins to answer with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np

from .channels import Evidence, Layout, fill_missing, gather
from .features import GROUP_FEATURES, PLAN_FEATURES, GroupIndex, group_features, plan_features
from .index import Index
from .model import SoftmaxModel
from .plans import Plan, enumerate_plans, plan_pool
from .selection import Candidate, Selection, select

#: Groups whose plans compete for the answer, and the probability mass after which we stop adding groups.
MAX_GROUPS = 5
GROUP_MASS = 0.995


@dataclass(frozen=True)
class Options:
    """Per-run switches used by eval ablations; the server uses the defaults."""

    disabled_channels: frozenset[str] = frozenset()
    disabled_features: frozenset[str] = frozenset()
    rrf_k: int = 60


@dataclass(frozen=True)
class ScoredPlan:
    plan: Plan
    group_prob: float
    prob: float


@dataclass(frozen=True)
class Answer:
    table_ids: list[str]
    joins: list[dict[str, str]]
    selection: Selection
    plans: list[ScoredPlan] = field(default_factory=list)
    group_probs: dict[str, float] = field(default_factory=dict)
    evidence: Evidence | None = None


def switches(channels: Sequence[str]) -> tuple[str, ...]:
    """Names `Options` can switch off for an index with these channels: channels, then features."""
    chans = ["bm25_tables", "bm25_columns", "values", "phrases"]
    for ch in channels:
        kind, _, name = ch.partition(":")
        if kind == "dense":
            chans.append(f"dense:{name}")  # whole channels: the features read its table and column scores
        elif kind == "multi":
            chans.append(f"late:{name}")
    return (*chans, *GROUP_FEATURES, *dict.fromkeys(f for f in PLAN_FEATURES if f not in GROUP_FEATURES))


class Planner:
    """Holds the loaded index and fitted models; `answer` is pure given the query vectors."""

    def __init__(self, index: Index, group_model: SoftmaxModel, plan_model: SoftmaxModel,
                 lexical_models: tuple[SoftmaxModel, SoftmaxModel] | None = None) -> None:
        self.index = index
        self.group_model = group_model
        self.plan_model = plan_model
        #: Fitted with no embedding channel: used for questions where none is live (no model, API down).
        self.lexical_models = lexical_models or (group_model, plan_model)
        cat = index.catalog
        col_counts = np.bincount(index.column_table, minlength=len(cat.tables))
        names, name_len = _stem_index(index.table_stems)
        group_names, group_name_len = _stem_index(index.group_stems)
        self.layout = Layout(
            n_tables=len(cat.tables),
            col_start=np.concatenate([[0], np.cumsum(col_counts)]).astype(np.int64),
            table_group=index.table_group,
            n_groups=len(index.groups),
            name_index=names,
            name_len=name_len,
            group_name_index=group_names,
            group_name_len=group_name_len,
        )
        self.groups = GroupIndex.from_table_group(index.table_group, len(index.groups))
        self.members = [
            sorted(int(t) for t in self.groups.perm[s:s + n])
            for s, n in zip(self.groups.start, self.groups.size, strict=True)
        ]

    def dense_scores(self, query_vectors: Mapping[str, np.ndarray]) -> dict[str, tuple[np.ndarray, ...]]:
        """Cosine of the question with every table, column and group document, per dense channel."""
        out = {}
        for name, q in query_vectors.items():
            if name in self.index.dense:
                mats = self.index.dense[name]
                qv = np.asarray(q, dtype=mats[0].dtype).reshape(-1)
                done = self.index.dense_done.get(name, (None, None, None))
                out[name] = tuple(fill_missing((m @ qv).astype(np.float32), d) for m, d in zip(mats, done, strict=True))
        return out

    def late_scores(self, query_vectors: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Late interaction: sum over question tokens of the best-matching token of each table (MaxSim)."""
        out = {}
        for key, q in query_vectors.items():
            kind, _, name = key.partition(":")
            if kind != "multi" or name not in self.index.multi:
                continue
            vecs, offsets = self.index.multi[name]
            qm = np.asarray(q, dtype=np.float32).reshape(-1, vecs.shape[1])
            sim = (vecs @ qm.T.astype(vecs.dtype)).astype(np.float32)
            out[f"late:{name}"] = np.maximum.reduceat(sim, offsets[:-1], axis=0).sum(axis=1)
        return out

    def evidence(self, question: str, query_vectors: Mapping[str, np.ndarray], opts: Options) -> Evidence:
        dense = {k: v for k, v in self.dense_scores(query_vectors).items()
                 if f"dense:{k}" not in opts.disabled_channels}
        late = {k: v for k, v in self.late_scores(query_vectors).items() if k not in opts.disabled_channels}
        return gather(question, self.layout, self.index.lexical, self.index.value_phrases, dense, opts.rrf_k,
                      disabled=opts.disabled_channels, table_channels=late)

    def models(self, ev: Evidence) -> tuple[SoftmaxModel, SoftmaxModel]:
        embedded = any(k.startswith(("dense_", "late:")) for k in ev.scores)
        return (self.group_model, self.plan_model) if embedded else self.lexical_models

    def group_probs(self, ev: Evidence, opts: Options) -> np.ndarray:
        return self.models(ev)[0].probs(group_features(ev, self.groups), opts.disabled_features)

    def group_plans(self, ev: Evidence, g: int, opts: Options) -> tuple[list[Plan], np.ndarray]:
        members = self.members[g]
        forced = [t for t in members if ev.name_match[t] >= 1.0 or ev.phrase_hits[t] > 0]
        pool = plan_pool(members, ev.fused, self.index.graph, forced)
        plans = enumerate_plans(g, pool, ev.fused, self.index.graph)
        probs = self.models(ev)[1].probs(plan_features(ev, plans, members), opts.disabled_features)
        return plans, probs

    def answer(self, question: str, query_vectors: Mapping[str, np.ndarray] | None = None,
               opts: Options | None = None) -> Answer:
        opts = opts or Options()
        ev = self.evidence(question, query_vectors or {}, opts)
        gp = self.group_probs(ev, opts)
        order = np.lexsort((np.arange(gp.size), -gp))
        scored: list[ScoredPlan] = []
        mass = 0.0
        for g in order[:MAX_GROUPS]:
            plans, probs = self.group_plans(ev, int(g), opts)
            scored.extend(ScoredPlan(p, float(gp[g]), float(gp[g] * q)) for p, q in zip(plans, probs, strict=True))
            mass += float(gp[g])
            if mass >= GROUP_MASS:
                break
        cands = [Candidate(s.plan.tables, s.plan.joins, s.prob) for s in scored]
        n = min(5, self.layout.n_tables)
        fallback = [int(t) for t in np.lexsort((np.arange(ev.fused.size), -ev.fused))[: n + 5]]
        if len(fallback) < n:
            fallback = list(range(self.layout.n_tables))
        sel = select(cands, fallback, self._joins_among, n_tables=n)
        cat = self.index.catalog
        return Answer(
            table_ids=[cat.tables[t].table_id for t in sel.tables],
            joins=[cat.relationships[r].as_dict() for r in sel.joins],
            selection=sel,
            plans=sorted(scored, key=lambda s: (-s.prob, s.plan.tables)),
            group_probs={self.index.groups[int(g)]: float(gp[g]) for g in order[:MAX_GROUPS]},
            evidence=ev,
        )

    def _joins_among(self, tables: list[int]) -> list[int]:
        g = self.index.graph
        out: set[int] = set()
        for a, b in combinations(sorted(tables), 2):
            data = g.get_edge_data(a, b)
            if data:
                out.update(d["rel"] for d in data.values())
        return sorted(out)


def _stem_index(stem_sets: Sequence[Sequence[str]]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Stem -> positions holding it, and the number of stems per position."""
    index: dict[str, list[int]] = {}
    for i, stems in enumerate(stem_sets):
        for s in stems:
            index.setdefault(s, []).append(i)
    lengths = np.asarray([len(s) for s in stem_sets], dtype=np.float32)
    return {k: np.asarray(v, dtype=np.int64) for k, v in index.items()}, lengths


def default_models(path: Path | None = None) -> tuple[SoftmaxModel, SoftmaxModel, tuple[SoftmaxModel, SoftmaxModel]]:
    """The shipped fitted weights (with and without embedding channels); uniform if none are shipped."""
    from .model import WEIGHTS_PATH, load_models

    path = path or WEIGHTS_PATH
    if not path.exists():
        g, p = SoftmaxModel.uniform(GROUP_FEATURES), SoftmaxModel.uniform(PLAN_FEATURES)
        return g, p, (g, p)
    m = load_models(path)
    names = {"group": GROUP_FEATURES, "plan": PLAN_FEATURES}
    got = {k: SoftmaxModel.from_json(v, names[k.split("_")[0]]) for k, v in m.items()}  # type: ignore[arg-type]
    return got["group"], got["plan"], (got.get("group_lexical", got["group"]), got.get("plan_lexical", got["plan"]))
