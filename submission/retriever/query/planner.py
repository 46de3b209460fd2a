"""Question -> group probabilities -> plan probabilities -> the 5 tables and joins to answer with."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..backends.stage1 import Stage1
from ..config import RRF_K
from ..index import registry
from ..index.links import implied_links, merged
from ..index.store import Index
from ..index.text import stem, words
from .adapter import Adapter, adapt
from .adapter import load as load_adapter
from .channels import Channels, Evidence, Layout
from .confidence import CONFIDENCE_FEATURES, confidence_features
from .features import (
    GROUP_FEATURES,
    IMPLIED,
    PLAN_FEATURES,
    ROUTE_FEATURES,
    GroupIndex,
    group_features,
    plan_features,
    route_features,
)
from .model import SoftmaxModel, softmax
from .plans import Plan, enumerate_plans, joins_among, plan_pool
from .reading import Reader
from .relevance import TABLE_FEATURES, TableShape, table_features
from .selection import N_TABLES, Candidate, JoinFacts, Selection, select

#: Ordinal words as the digits that number alternative columns ("the first team" says `Team_1`).
ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4"}
#: Groups whose plans compete for the answer, and the probability mass after which we stop adding groups.
MAX_GROUPS = 5
GROUP_MASS = 0.995


@dataclass(frozen=True)
class Options:
    """Per-run switches used by eval ablations; the server uses the defaults."""

    disabled_channels: frozenset[str] = frozenset()
    disabled_features: frozenset[str] = frozenset()
    rrf_k: int = RRF_K


@dataclass(frozen=True)
class Models:
    """The fitted models: group, table and plan choice with embedding channels live and without any, and the
    calibration of the answer's confidence (None: the raw expected coverage is shown). Without table models
    the fused rank orders a group's tables."""

    group: SoftmaxModel
    plan: SoftmaxModel
    group_lexical: SoftmaxModel
    plan_lexical: SoftmaxModel
    confidence: SoftmaxModel | None = None
    table: SoftmaxModel | None = None
    table_lexical: SoftmaxModel | None = None
    #: Reranks the competing groups by their plans (ROUTE_FEATURES), with embedding channels live; None: not.
    route: SoftmaxModel | None = None
    #: Maps the question's vector of one dense channel for the table features (query/adapter.py); None: not.
    adapter: Adapter | None = None

    @classmethod
    def uniform(cls) -> Models:
        g, p = SoftmaxModel.uniform(GROUP_FEATURES), SoftmaxModel.uniform(PLAN_FEATURES)
        return cls(g, p, g, p)


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
    #: Probability that the answer covers the question (calibrated when the weights carry a calibration).
    confidence: float = 0.0


def switches(channels: Sequence[str]) -> tuple[str, ...]:
    """Names `Options` can switch off for an index with these manifest channels: channels, then features."""
    chans = registry.channel_switches(channels)
    return (*chans, *GROUP_FEATURES, *dict.fromkeys(f for f in PLAN_FEATURES if f not in GROUP_FEATURES),
            *TABLE_FEATURES)


class Planner:
    """Holds the loaded index and fitted models; `answer` is pure given the query vectors."""

    def __init__(self, index: Index, models: Models, stage1: Stage1 | None = None) -> None:
        self.index = index
        self.fitted = models
        #: Stage 1 runs on `stage1` (backends/): the index's own arrays unless told otherwise.
        self.channels = Channels(index, stage1)
        self.groups = GroupIndex.from_table_group(index.table_group, len(index.groups))
        self.members = [
            sorted(int(t) for t in self.groups.perm[s:s + n])
            for s, n in zip(self.groups.start, self.groups.size, strict=True)
        ]
        #: Columns per group: how wide a database is, which the confidence reads.
        self.group_columns = np.bincount(index.table_group[index.column_table], minlength=len(index.groups))
        self.links = index.links
        #: The declared relationships plus the pairs column names imply: what plans and bridges walk along
        #: and table relevance reads; answers join by declared ones only.
        self.walk = merged(index.links, implied_links(index.catalog, index.links))
        #: What the channels read of a question; the query embedding shares it (runtime.query_embedders).
        self.read = Reader(index.people, index.casing)
        persons = index.persons if index.persons.size == len(index.catalog.tables) else None
        n_columns = np.diff(self.layout.col_start)
        temporal = index.temporal if index.temporal.size == len(index.catalog.tables) else None
        self.shape = TableShape.from_links(self.walk, n_columns, index.named, persons, temporal)
        #: Small tables others refer to, which hold a value the question gives more often than they are named.
        self.lookups = (n_columns <= 3) & (self.shape.degree > 0)
        pos = index.catalog.positions()
        rels = index.catalog.relationships
        self.join_targets = [(pos[r.left_table], pos[r.right_table], r.right_column.lower()) for r in rels]
        #: The words of each relationship's referring column: what says which of several alternatives a
        #: question means ("1" of `Team_1`, "toss" of `Toss_Winner`).
        self.join_words = [frozenset(stem(w) for w in words(r.left_column)) for r in rels]

    @property
    def layout(self) -> Layout:
        return self.channels.layout

    def evidence(self, question: str, query_vectors: Mapping[str, np.ndarray], opts: Options) -> Evidence:
        return self.channels.evidence(self.read(question),
                                      self.adapted(query_vectors), opts.rrf_k, opts.disabled_channels)

    def adapted(self, query_vectors: Mapping[str, np.ndarray]) -> Mapping[str, np.ndarray]:
        """The query vectors plus the adapter's map of its channel's question vector, when the index's model
        for that channel is the one the adapter was fitted on."""
        a = self.fitted.adapter
        if a is None or self.index.manifest.get("embedders", {}).get(a.channel) != a.model:
            return query_vectors
        ch = registry.dense(a.channel)
        q = query_vectors.get(str(ch.vector_key))
        if q is None or ch.adapted_key is None or np.size(q) != a.matrix.shape[0]:
            return query_vectors
        return {**query_vectors, ch.adapted_key: adapt(a.matrix, q)}

    def with_models(self, models: Models) -> Planner:
        """The same index with other fitted models (cross-validation folds); shares every index structure."""
        other = copy.copy(self)
        other.fitted = models
        return other

    def models(self, ev: Evidence) -> tuple[SoftmaxModel, SoftmaxModel]:
        """Models fitted with embedding channels when one is live for this question, else the lexical ones."""
        m = self.fitted
        embedded = registry.any_embedded(ev.scores)
        return (m.group, m.plan) if embedded else (m.group_lexical, m.plan_lexical)

    def table_model(self, ev: Evidence) -> SoftmaxModel | None:
        m = self.fitted
        return m.table if registry.any_embedded(ev.scores) else m.table_lexical

    def relevance(self, ev: Evidence, g: int, opts: Options | None = None) -> np.ndarray:
        """Log-odds of group g's tables (sorted) being in the plan, relative to its best table (so <= 0)."""
        members = self.members[g]
        model = self.table_model(ev)
        if model is None:
            fused = ev.fused[members]
            score = np.log(np.maximum(fused / max(float(fused.max()), 1e-9), 1e-6))
        else:
            off = opts.disabled_features if opts is not None else frozenset()
            score = model.logits(table_features(ev, members, self.shape), off)
        return (score - score.max()).astype(np.float64)

    def group_probs(self, ev: Evidence, opts: Options) -> np.ndarray:
        return self.models(ev)[0].probs(group_features(ev, self.groups), opts.disabled_features)

    def candidates(self, ev: Evidence, g: int, relevance: np.ndarray) -> list[Plan]:
        """The plans of group g worth scoring: what serving scores and what training fits on."""
        members = self.members[g]
        rel = dict(zip(members, relevance.tolist(), strict=True))
        idx = np.asarray(members)
        forced = idx[(ev.name_match[idx] >= 1.0) | (ev.phrase_hits[idx] > 0)].tolist()
        pool = plan_pool(members, rel, self.walk, forced)
        return enumerate_plans(g, pool, rel, self.walk, self.links)

    def plan_matrix(self, ev: Evidence, g: int, opts: Options | None = None) -> tuple[list[Plan], np.ndarray]:
        """Group g's candidate plans and their features: the one place serving and training get them."""
        relevance = self.relevance(ev, g, opts)
        plans = self.candidates(ev, g, relevance)
        return plans, plan_features(ev, plans, self.members[g], self.index.named, relevance, self.lookups,
                                    self.shape.temporal)

    def answer(self, question: str, query_vectors: Mapping[str, np.ndarray] | None = None,
               opts: Options | None = None) -> Answer:
        opts = opts or Options()
        return self.decide(self.evidence(question, query_vectors or {}, opts), opts)

    def competing(self, ev: Evidence, opts: Options) -> tuple[np.ndarray, list[tuple[int, list[Plan], np.ndarray]]]:
        """The group probabilities and the likeliest groups with their candidate plans and plan logits, until
        they hold GROUP_MASS (at most MAX_GROUPS): the groups whose plans compete for the answer."""
        gp = self.group_probs(ev, opts)
        out: list[tuple[int, list[Plan], np.ndarray]] = []
        mass = 0.0
        for g in np.lexsort((np.arange(gp.size), -gp))[:MAX_GROUPS]:
            plans, feats = self.plan_matrix(ev, int(g), opts)
            out.append((int(g), plans, self.models(ev)[1].logits(feats, opts.disabled_features)))
            mass += float(gp[g])
            if mass >= GROUP_MASS:
                break
        return gp, out

    def route_logits(self, ev: Evidence, plans: Sequence[Plan], lg: np.ndarray, opts: Options) -> np.ndarray:
        """A group's plan logits without the implied-link term: it rightly prefers declared joins inside a
        database, but between databases it counts whether one declares its keys, not what the question says."""
        x = np.fromiter((p.implied for p in plans), dtype=np.float64, count=len(plans))
        return lg - self.models(ev)[1].term(IMPLIED, x, opts.disabled_features)

    def route_inputs(self, ev: Evidence, gp: np.ndarray, competing: Sequence[tuple[int, list[Plan], np.ndarray]],
                     opts: Options) -> np.ndarray:
        """The competing groups' ROUTE_FEATURES: what serving deals the mass by and the route model fits on."""
        return route_features(gp[[g for g, _, _ in competing]],
                              [self.route_logits(ev, plans, lg, opts) for _, plans, lg in competing])

    def decide(self, ev: Evidence, opts: Options) -> Answer:
        """Groups, then plans, then the budgeted selection, from one question's evidence."""
        gp, competing = self.competing(ev, opts)
        route = self.fitted.route if registry.any_embedded(ev.scores) else None
        if route is not None and len(competing) > 1:
            # The competing groups' share of the probability is dealt again by how well their plans fit.
            gp, idx = gp.copy(), np.asarray([g for g, _, _ in competing])
            gp[idx] = route.probs(self.route_inputs(ev, gp, competing, opts)) * gp[idx].sum()
        order = np.lexsort((np.arange(gp.size), -gp))
        scored = [ScoredPlan(p, float(gp[g]), float(gp[g] * q)) for g, plans, lg in competing
                  for p, q in zip(plans, softmax(lg).tolist(), strict=True)]
        cands = [Candidate(s.plan.tables, s.plan.joins, s.prob) for s in scored]
        n = min(N_TABLES, self.layout.n_tables)
        fallback = [int(t) for t in np.lexsort((np.arange(ev.fused.size), -ev.fused))[: n + 5]]
        if len(fallback) < n:
            fallback = list(range(self.layout.n_tables))
        said = frozenset(ev.terms) | {ORDINALS[t] for t in ev.terms if t in ORDINALS}
        facts = JoinFacts(self.join_targets, lambda r: len(self.join_words[r] & said))
        sel = select(cands, fallback, self._joins_among, n_tables=n, join_facts=facts)
        conf = float(sel.expected)
        if self.fitted.confidence is not None:
            x = self.confidence_inputs(ev, sel.expected, int(order[0]) if gp.size else None,
                                       float(gp[order[0]]) if gp.size else 0.0)
            conf = float(self.fitted.confidence.probs(np.stack([np.zeros_like(x), x]))[1])
        cat = self.index.catalog
        return Answer(
            table_ids=[cat.tables[t].table_id for t in sel.tables],
            joins=[cat.relationships[r].as_dict() for r in sel.joins],
            selection=sel,
            plans=sorted(scored, key=lambda s: (-s.prob, s.plan.tables)),
            group_probs={self.index.groups[int(g)]: float(gp[g]) for g in order[:MAX_GROUPS]},
            evidence=ev, confidence=conf,
        )

    def confidence_inputs(self, ev: Evidence, expected: float, top_group: int | None, top_prob: float
                          ) -> np.ndarray:
        """What the confidence calibration reads for an answer whose likeliest group is `top_group`: serving
        and fitting (scripts/fit.py) both take it from here."""
        if top_group is None:
            return confidence_features(ev, expected, top_prob, 0, [])
        return confidence_features(ev, expected, top_prob, int(self.group_columns[top_group]), self.members[top_group])

    def _joins_among(self, tables: list[int]) -> list[int]:
        return list(joins_among(sorted(tables), self.links))


def default_models(path: Path | None = None) -> Models:
    """The shipped fitted weights (with and without embedding channels, and the confidence calibration);
    uniform if none are shipped."""
    from .model import WEIGHTS_PATH, read_weights

    path = path or WEIGHTS_PATH
    if not path.exists():
        return Models.uniform()
    data = read_weights(path)
    m = data["models"]
    names = {"group": GROUP_FEATURES, "plan": PLAN_FEATURES, "table": TABLE_FEATURES,
             "confidence": CONFIDENCE_FEATURES, "route": ROUTE_FEATURES}
    got = {k: SoftmaxModel.from_json(v, names[k.split("_")[0]]) for k, v in m.items()}  # type: ignore[arg-type]
    entry = data.get("adapter")
    return Models(got["group"], got["plan"], got.get("group_lexical", got["group"]),
                  got.get("plan_lexical", got["plan"]), got.get("confidence"), got.get("table"),
                  got.get("table_lexical", got.get("table")), got.get("route"),
                  load_adapter(entry, path.parent) if entry else None)
