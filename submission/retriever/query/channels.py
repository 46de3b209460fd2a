"""The channels stage: per-question evidence from every live channel, as plain arrays over tables and groups.

Lexical channels score with the index's BM25 structures, dense channels by cosine with the stored vectors,
late-interaction channels by MaxSim over stored token vectors; `Channels.evidence` runs them all and fuses
their table rankings. Channel names come from index/registry.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..backends.stage1 import InProcess, QuestionStage, Stage1
from ..index import registry
from ..index.people import People
from ..index.quality import preference
from ..index.spelling import Spelling
from ..index.store import Index
from ..index.text import drop_commands, stem, tokenize, words
from .evidence import Evidence
from .fusion import rrf
from .lookups import (
    QUERY_STEMS,
    abbreviated,
    compounds,
    corrections,
    dated,
    embedded_words,
    entity_terms,
    match_phrases,
    name_hits,
    person_terms,
    related_hits,
)


@dataclass(frozen=True)
class Layout:
    """Static index shapes the channels need: column and group boundaries."""

    n_tables: int
    #: column_table sorted: columns of table i are col_start[i]:col_start[i+1].
    col_start: np.ndarray
    table_group: np.ndarray
    n_groups: int
    #: Stem -> tables whose own name or description holds it; name_len counts those stems per table.
    name_index: Mapping[str, np.ndarray]
    name_len: np.ndarray
    #: The same for group (database) names.
    group_name_index: Mapping[str, np.ndarray]
    group_name_len: np.ndarray

    @classmethod
    def from_index(cls, index: Index) -> Layout:
        """Derived once per loaded index (at startup), never per question."""
        col_counts = np.bincount(index.column_table, minlength=len(index.catalog.tables))
        names, name_len = _stem_index(index.table_stems)
        group_names, group_name_len = _stem_index(index.group_stems)
        return cls(
            n_tables=len(index.catalog.tables),
            col_start=np.concatenate([[0], np.cumsum(col_counts)]).astype(np.int64),
            table_group=index.table_group,
            n_groups=len(index.groups),
            name_index=names,
            name_len=name_len,
            group_name_index=group_names,
            group_name_len=group_name_len,
        )


class DenseFound(NamedTuple):
    """One dense channel's finds: (table, column, group) cosines; per column the best cosine of a name the
    question gives; per content word its best table or column cosine; the adapted vector's cosines."""

    scores: tuple[np.ndarray, ...]
    name_columns: np.ndarray | None = None
    word_tables: np.ndarray | None = None
    adapted: tuple[np.ndarray, np.ndarray] | None = None


def _stem_index(stem_sets: Sequence[Sequence[str]]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Stem -> positions holding it, and the number of stems per position."""
    index: dict[str, list[int]] = {}
    for i, stems in enumerate(stem_sets):
        for s in stems:
            index.setdefault(s, []).append(i)
    lengths = np.asarray([len(s) for s in stem_sets], dtype=np.float32)
    return {k: np.asarray(v, dtype=np.int64) for k, v in index.items()}, lengths


def standardise(x: np.ndarray) -> np.ndarray:
    """Scores as z-values over the catalog for this question: what a model's cosines mean differs by model
    (and by question), their order against the rest of the catalog does not."""
    if x.size < 2:
        return np.zeros_like(x, dtype=np.float32)
    sd = float(x.std())
    return ((x - float(x.mean())) / max(sd, 1e-6)).astype(np.float32)


def _rows(x: np.ndarray | None) -> np.ndarray:
    """Vectors as a (rows, dim) matrix; none as zero rows."""
    return np.zeros((0, 1), dtype=np.float32) if x is None or len(x) == 0 else np.atleast_2d(x)


def column_max(col_scores: np.ndarray, layout: Layout) -> np.ndarray:
    """Best column score per table; tables without columns get 0."""
    out = np.zeros(layout.n_tables, dtype=np.float32)
    has = layout.col_start[1:] > layout.col_start[:-1]
    if col_scores.size and has.any():
        out[has] = np.maximum.reduceat(col_scores, layout.col_start[:-1][has])
    return out


def adapted_scores(table_cos: np.ndarray, column_cos: np.ndarray, layout: Layout) -> np.ndarray:
    """Evidence.adapted_z from the adapted question vector's cosines with every table and column document."""
    return np.stack([standardise(table_cos), standardise(column_max(column_cos, layout))])


def gather(
    question: str,
    layout: Layout,
    lexical: Mapping[str, object],
    phrases: Mapping[str, Sequence[int]],
    dense_scores: Mapping[str, tuple[np.ndarray, ...]],
    rrf_k: int,
    disabled: frozenset[str] = frozenset(),
    table_channels: Mapping[str, np.ndarray] | None = None,
    related: Mapping[str, Sequence[str]] | None = None,
    name_columns: np.ndarray | None = None,
    instances: Mapping[str, Sequence[str]] | None = None,
    spelling: Spelling | None = None,
    word_tables: Mapping[str, np.ndarray] | None = None,
    people: People | None = None,
    derived: Mapping[str, Sequence[str]] | None = None,
    adapted: tuple[np.ndarray, np.ndarray] | None = None,
) -> Evidence:
    """Run the lexical channels and combine them with precomputed dense scores (table, column, group)."""
    # The words a request is made with ("List ...", "and show ...") are no terms; elsewhere they are.
    asked = drop_commands(question)
    stems = tokenize(asked)
    # A misspelt schema word counts as that word, and so does one that shortens it (`cust` for "customers").
    fixes = {} if spelling is None or "spelling" in disabled else corrections(question, spelling)
    aliases = {} if spelling is None or "abbreviations" in disabled else abbreviated(asked, spelling)
    stems = [fixes.get(s, s) for s in stems]
    lt, lc, lg, lv = (lexical[n] for n in ("tables", "columns", "groups", "values"))
    # Two question words a table or column name runs together count as that name's one term too.
    joined = [] if "compounds" in disabled else compounds(asked)
    terms = list(dict.fromkeys(stems + joined))
    tab = lt.term_scores(terms, aliases)  # type: ignore[attr-defined]
    col = lc.term_scores(terms, aliases)  # type: ignore[attr-defined]
    val = lv.term_scores(terms)  # type: ignore[attr-defined]
    # What no table or column holds is no term where it is a joined pair, nor where it is a query word that
    # no value holds either ("many", "different"): it would only count as the question's unexplained share.
    schema = (tab > 0).any(axis=1) | (col > 0).any(axis=1)
    anywhere = (schema | (val > 0).any(axis=1)).tolist()
    plain = set(stems)
    keep = np.asarray([(t in plain and (a or t not in QUERY_STEMS)) or (t not in plain and h)
                       for t, a, h in zip(terms, anywhere, schema.tolist(), strict=True)], dtype=np.bool_)
    if not keep.all():
        terms = [t for t, k in zip(terms, keep.tolist(), strict=True) if k]
        tab, col, val = tab[keep], col[keep], val[keep]
        kept = set(terms)
        stems, joined = [s for s in stems if s in kept], [j for j in joined if j in kept]
    grp = lg.term_scores(terms, aliases)  # type: ignore[attr-defined]
    idf = lt.idf(terms)  # type: ignore[attr-defined]
    scores: dict[str, np.ndarray] = {
        "bm25_tables": tab.sum(axis=0),
        "bm25_columns": column_max(col.sum(axis=0), layout),
        "values": val.sum(axis=0),
    }
    direct = (tab > 0) | (val > 0)
    # WordNet's relatives of schema words, and the verbs and adjectives schema nouns are made from ("acted" to
    # `actor`, "financial" to `finance`): for table relevance, and for routing where no table holds the word.
    maps = [m for m, switch in ((related, "related"), (derived, "derived")) if m and switch not in disabled]
    rel = related_hits(stems, terms, maps, lt, direct)
    entity = entity_terms(question, terms)
    inst = np.zeros(tab.shape, dtype=np.bool_)
    if instances and "instances" not in disabled and entity.any():
        named = {t for t, e in zip(terms, entity.tolist(), strict=True) if e}
        inst = related_hits(stems, terms, [instances], lt, direct, only=named, longest=True)
    group_dense: dict[str, np.ndarray] = {}
    for name, (t_s, c_s, g_s) in dense_scores.items():
        t_key, c_key = registry.dense(name).evidence_keys
        scores[t_key] = t_s
        scores[c_key] = column_max(c_s, layout)
        group_dense[name] = g_s
    scores.update(table_channels or {})
    scores = {k: v for k, v in scores.items() if k not in disabled}
    found = {} if "phrases" in disabled else match_phrases(question, phrases)
    phrase_hits = np.zeros(layout.n_tables, dtype=np.float32)
    for tables in found.values():
        phrase_hits[np.asarray(tables, dtype=np.int64)] += 1.0
    shortened = {a for alias in aliases.values() for a in alias}
    qstems = {fixes.get(s, s) for s in (stem(w) for w in words(asked))} | set(joined) | shortened
    name_match = name_hits(qstems, layout.name_index, layout.name_len)
    group_name_match = name_hits(qstems, layout.group_name_index, layout.group_name_len)
    fused = rrf([scores[k] for k in sorted(scores)] + [phrase_hits], rrf_k)
    if "values" in disabled:
        val[:] = 0
    dense_z = None
    if (first := next(iter(group_dense), None)) is not None:
        t_key, c_key = registry.dense(first).evidence_keys
        dense_z = (standardise(scores[t_key]), standardise(scores[c_key]), standardise(group_dense[first]))
    entity_cos = column_max(name_columns, layout) if name_columns is not None else np.zeros(0, dtype=np.float32)
    word_z = np.zeros((0, 0), dtype=np.float32)
    if word_tables:
        row = {t: i for i, t in enumerate(terms)}
        word_z = np.zeros(tab.shape, dtype=np.float32)
        for word, cos in word_tables.items():  # words of the respelt question: their stems are the terms'
            i = row.get(stem(word))
            if i is not None:
                word_z[i] = standardise(cos)
    person = person_terms(question, terms, None if "people" in disabled else people)
    adapted_z = np.zeros((0, 0), dtype=np.float32) if adapted is None else adapted_scores(*adapted, layout)
    return Evidence(terms, idf, tab > 0, val > 0, name_match, phrase_hits, scores, fused,
                    grp.sum(axis=0), sorted(found), group_name_match, entity, group_dense, dense_z, rel,
                    entity_cos, inst, word_z, person, adapted_z, dated(question))


class Channels:
    """The channels of one loaded index: what scores a question against it, given its query vectors.

    The scores come from a stage-1 backend (backends/): the index's own arrays by default, or a search
    engine; either way `gather` sees the same arrays, so the fitted models do not depend on the backend.
    """

    def __init__(self, index: Index, stage1: Stage1 | None = None) -> None:
        self.index = index
        self.stage1: Stage1 = stage1 or InProcess(index)
        self.layout = Layout.from_index(index)
        #: Dense channels best first by the build's quality probe: the first live one feeds the features.
        self.dense_order = preference(index.manifest.get("dense_quality", {}), sorted(index.dense))

    def dense_scores(self, query_vectors: Mapping[str, np.ndarray],
                     stage: QuestionStage | None = None) -> dict[str, tuple[np.ndarray, ...]]:
        """Cosine of the question with every table, column and group document, per dense channel."""
        return {k: v.scores for k, v in self._dense(query_vectors, stage or self.stage1.for_question()).items()}

    def _dense(self, query_vectors: Mapping[str, np.ndarray], stage: QuestionStage, n_words: int = 0
               ) -> dict[str, DenseFound]:
        """Per dense channel what its question vectors found, from one pass over each matrix."""
        out: dict[str, DenseFound] = {}
        for name in self.dense_order:
            ch = registry.dense(name)
            q = query_vectors.get(str(ch.vector_key))
            if q is None:
                continue
            names = _rows(query_vectors.get(str(ch.names_key)) if ch.names_key is not None else None)
            words = _rows(query_vectors.get(str(ch.words_key)) if ch.words_key is not None else None)
            adapted = _rows(query_vectors.get(str(ch.adapted_key)) if ch.adapted_key is not None else None)[:1]
            if n_words == 0 or len(words) != n_words:  # vectors made for another word list mean nothing here
                words = words[:0]
            if len(names) == 0 and len(words) == 0 and len(adapted) == 0:
                out[name] = DenseFound(stage.dense(name, q))
                continue
            parts = [np.reshape(q, (1, -1))] + [m for m in (names, words, adapted) if len(m)]
            t, c, g = stage.dense(name, np.vstack(parts))
            k, e = 1 + len(names), 1 + len(names) + len(words)
            name_cols = c[1:k].max(axis=0) if len(names) else None
            word_tables = (np.stack([np.maximum(t[i], column_max(c[i], self.layout)) for i in range(k, e)])
                           if len(words) else None)
            out[name] = DenseFound((t[0], c[0], g[0]), name_cols, word_tables,
                                   (t[e], c[e]) if len(adapted) else None)
        return out

    def late_scores(self, query_vectors: Mapping[str, np.ndarray],
                    stage: QuestionStage | None = None) -> dict[str, np.ndarray]:
        """Late interaction per channel (MaxSim): each question token's best match in a table, summed."""
        stage = stage or self.stage1.for_question()
        out = {}
        for name in self.index.multi:
            q = query_vectors.get(str(registry.multi(name).vector_key))
            if q is not None:
                out[name] = stage.late(name, q)
        return out

    def evidence(self, question: str, query_vectors: Mapping[str, np.ndarray], rrf_k: int,
                 disabled: frozenset[str] = frozenset()) -> Evidence:
        """Every live channel's evidence for one question; channels whose switch is in `disabled` are left out."""
        stage = self.stage1.for_question()
        content = embedded_words(question, self.index.spelling)
        both = {k: v for k, v in self._dense(query_vectors, stage, len(content)).items()
                if registry.dense(k).switch not in disabled}
        dense = {k: v.scores for k, v in both.items()}
        late = {ch.evidence_keys[0]: v for ch, v in
                ((registry.multi(k), v) for k, v in self.late_scores(query_vectors, stage).items())
                if ch.switch not in disabled}
        # Names and content words count by the channel that feeds the features (the first live one).
        first = next(iter(both.values()), None)
        name_columns, word_tables = (first.name_columns, first.word_tables) if first is not None else (None, None)
        # The adapter is fitted for one model's vectors: whichever channel got an adapted vector feeds it.
        adapted = next((v.adapted for v in both.values() if v.adapted is not None), None)
        return gather(question, self.layout, stage.lexical, self.index.value_phrases, dense, rrf_k,
                      disabled=disabled, table_channels=late, related=self.index.related,
                      instances=self.index.instances, name_columns=name_columns, spelling=self.index.spelling,
                      word_tables=None if word_tables is None else dict(zip(content, word_tables, strict=True)),
                      people=self.index.people, derived=self.index.derived, adapted=adapted)
