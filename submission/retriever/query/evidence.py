"""One question's evidence: what every live channel found, as plain arrays over terms, tables and groups."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Evidence:
    terms: list[str]
    idf: np.ndarray
    #: (terms, tables) term present in the table's schema document / in its sample values.
    schema_hit: np.ndarray
    value_hit: np.ndarray
    #: Fraction of the table name's tokens found in the question.
    name_match: np.ndarray
    #: Sample-value phrases of the table quoted in the question.
    phrase_hits: np.ndarray
    #: channel -> per-table score (higher is better).
    scores: dict[str, np.ndarray]
    #: RRF of the table channels.
    fused: np.ndarray
    group_bm25: np.ndarray
    phrases: list[str] = field(default_factory=list)
    #: Fraction of each group name's tokens found in the question.
    group_name_match: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    #: Per term: it comes from a name the question quotes or capitalises ("Cindy Stewart", "Twelfth Night"),
    #: a value the catalog may not hold, whose table has to be guessed from its shape.
    entity: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    #: dense channel -> cosine of the question with each group's document; best channel first (the
    #: planner's order), and the first one feeds the features.
    group_dense: dict[str, np.ndarray] = field(default_factory=dict)
    #: The first dense channel's (table, best column, group) scores as z-values: what the features read,
    #: computed once per question. None when no dense channel is live.
    dense_z: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: (terms, tables): the table's document holds a schema word the thesaurus relates to the term (or to
    #: an n-gram the term is part of) while the term itself is not in the table ("vocalists" -> `singer`).
    related_hit: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.bool_))
    #: Per table: best cosine of a name the question gives (a quoted or capitalised span, embedded alone) with
    #: one of its columns; empty when the question names nothing or no dense channel is live.
    entity_cos: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    #: (terms, tables): the term is part of a name the question gives that WordNet knows as an instance of a
    #: schema word the table holds ("Finland" -> `country`), where the term itself is not in the table.
    instance_hit: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.bool_))
    #: (terms, tables): for a content word of the question, embedded alone (lookups.content_words), its best
    #: cosine with the table's document or one of its columns, as z-values over the catalog; 0 for other terms.
    word_z: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    #: Per term: it comes from a person's name the question gives ("Jayne Collins"; index/people.py), which
    #: the tables that hold people are read for.
    person: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    #: (2, tables): the local model's question vector through the fitted adapter (query/adapter.py), its
    #: cosines with each table's document and best column as z-values over the catalog; empty without one.
    adapted_z: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    #: The question puts what it asks in time ("in 1980", "after June 2018"; lookups.dated).
    dated: bool = False

    def related(self) -> np.ndarray:
        """related_hit as (terms, tables); zeros for evidence made without it (hand-made, or channel off)."""
        rel = self.related_hit
        return rel if rel.shape == self.schema_hit.shape else np.zeros(self.schema_hit.shape, dtype=np.bool_)

    def instances(self) -> np.ndarray:
        """instance_hit as (terms, tables); zeros for evidence made without it."""
        hit = self.instance_hit
        return hit if hit.shape == self.schema_hit.shape else np.zeros(self.schema_hit.shape, dtype=np.bool_)

    def words(self) -> np.ndarray:
        """word_z as (terms, tables), its positive part (where a word points, not where it does not); zeros for
        evidence made without it."""
        z = self.word_z
        return z.clip(min=0.0) if z.shape == self.schema_hit.shape else np.zeros(self.schema_hit.shape, np.float32)

    def persons(self) -> np.ndarray:
        """`person` per term; all False for evidence made without it."""
        return self.person if self.person.shape == self.idf.shape else np.zeros(self.idf.shape, dtype=np.bool_)

    def adapted(self) -> np.ndarray | None:
        """adapted_z when it covers every table; None for evidence made without an adapter."""
        z = self.adapted_z
        return z if z.ndim == 2 and z.shape[0] == 2 and z.shape[1] == self.fused.size else None

    def term_weights(self) -> np.ndarray:
        """idf shares of the question's terms: the weights of every coverage feature."""
        return self.idf / self.idf.sum() if self.idf.size and self.idf.sum() > 0 else self.idf

    def names(self) -> np.ndarray:
        """`entity` per term; all False for evidence made without it. Terms of a name are values, whose
        related words ("Express" -> "train") mean nothing, and whose kind the instances give."""
        return self.entity if self.entity.shape == self.idf.shape else np.zeros(self.idf.shape, dtype=np.bool_)
