"""The channel registry: every evidence channel and each name it goes by, in one table.

A channel is named in four places: the manifest (`dense:local`, `multi:colbert`), the query vectors
(`local`, `multi:colbert`), the evidence scores (`dense_tables:local`, `dense_columns:local`,
`late:colbert`) and the switches eval and fit turn off (`dense:local`, `late:colbert`). The build, the
loader, the query-time embedders, the features, the fit and the explain output all read them from here, so
those spellings cannot drift apart. Adding a channel is one entry here and one scorer in query/channels.py.
The manifest strings are on disk (index FORMAT_VERSION): keep them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Family:
    """How the channels of one kind spell their names; `{}` stands for the embedder's name."""

    kind: str
    scores: str
    manifest: str
    switch: str
    vector_key: str | None
    evidence_keys: tuple[str, ...]
    names_key: str | None = None
    words_key: str | None = None
    adapted_key: str | None = None


@dataclass(frozen=True)
class Channel:
    """One channel: its kind, its own name (the embedder's for dense and late ones) and its spellings."""

    kind: str
    name: str
    #: What it scores, for people: the documents its scores are over.
    scores: str
    #: In manifest["channels"] (None: always live, not recorded).
    manifest: str | None
    #: In Options.disabled_channels (None: cannot be switched off).
    switch: str | None
    #: Key of its question vector in the query vectors (None: lexical, no vector).
    vector_key: str | None
    #: Keys of its per-table scores in Evidence.scores, each one a fused ranking.
    evidence_keys: tuple[str, ...]
    #: Key of the vectors of the names the question gives, each embedded alone (None: the channel has none).
    names_key: str | None = None
    #: Key of the vectors of the question's content words, each embedded alone (lookups.content_words).
    words_key: str | None = None
    #: Key of the question vector through the fitted adapter (query/adapter.py), when the weights carry one.
    adapted_key: str | None = None

    @property
    def embedded(self) -> bool:
        """Fed by an embedding model: its evidence selects the models fitted with embeddings."""
        return self.vector_key is not None


#: The channels every index has (a build records those with a manifest name).
LEXICAL = (
    Channel("lexical", "bm25_tables", "table documents (BM25)", "bm25_tables", "bm25_tables", None, ("bm25_tables",)),
    Channel("lexical", "bm25_columns", "column documents, best per table (BM25)", "bm25_columns", "bm25_columns",
            None, ("bm25_columns",)),
    Channel("lexical", "bm25_groups", "group documents (BM25)", "bm25_groups", None, None, ()),
    Channel("lexical", "values", "sample values (BM25)", "values", "values", None, ("values",)),
    Channel("lexical", "phrases", "question n-grams equal to a sample value", None, "phrases", None, ()),
    Channel("lexical", "related", "schema words WordNet relates to question words no table holds (features only)",
            None, "related", None, ()),
    Channel("lexical", "instances", "schema words naming what a name of the question is (WordNet; features only)",
            None, "instances", None, ()),
    Channel("lexical", "compounds", "two question words a schema name runs together ('care plan', `careplans`)",
            None, "compounds", None, ()),
    Channel("lexical", "derived", "schema nouns a question's verbs and adjectives are made from ('acted', `actor`; "
            "WordNet; features only)", None, "derived", None, ()),
    Channel("lexical", "spelling", "a misspelt question word read as the schema word one edit away ('salaray')",
            None, "spelling", None, ()),
    Channel("lexical", "people", "a person's name in the question (census names) for the tables of people "
            "(features only)", None, "people", None, ()),
)

#: The embedding channels, one family per kind of model: dense cosines and late interaction (MaxSim).
FAMILIES = (
    Family("dense", "cosine with table, column and group documents", "dense:{}", "dense:{}", "{}",
           ("dense_tables:{}", "dense_columns:{}"), "names:{}", "words:{}", "adapted:{}"),
    Family("multi", "MaxSim over table documents' token vectors", "multi:{}", "late:{}", "multi:{}", ("late:{}",)),
)
_FAMILY = {f.kind: f for f in FAMILIES}


def embedding(kind: str, name: str) -> Channel:
    """The channel of embedder `name` in family `kind` ("dense" or "multi")."""
    f = _FAMILY[kind]
    return Channel(kind, name, f.scores, f.manifest.format(name), f.switch.format(name),
                   None if f.vector_key is None else f.vector_key.format(name),
                   tuple(k.format(name) for k in f.evidence_keys),
                   None if f.names_key is None else f.names_key.format(name),
                   None if f.words_key is None else f.words_key.format(name),
                   None if f.adapted_key is None else f.adapted_key.format(name))


def dense(name: str) -> Channel:
    return embedding("dense", name)


def multi(name: str) -> Channel:
    return embedding("multi", name)


def _unformat(pattern: str, text: str) -> str | None:
    """The name that `pattern.format(name)` turns into `text`, or None."""
    head, _, tail = pattern.partition("{}")
    if len(text) > len(head) + len(tail) and text.startswith(head) and text.endswith(tail):
        return text[len(head):len(text) - len(tail)]
    return None


def from_manifest(entry: str) -> Channel:
    """The channel a manifest["channels"] entry names; ValueError for one this code does not know."""
    for c in LEXICAL:
        if c.manifest == entry:
            return c
    for f in FAMILIES:
        name = _unformat(f.manifest, entry)
        if name is not None:
            return embedding(f.kind, name)
    raise ValueError(f"unknown channel {entry!r} in the manifest")


@lru_cache(maxsize=1024)
def from_evidence_key(key: str) -> Channel | None:
    """The channel whose scores are stored under Evidence.scores[key], or None (remembered: every question's
    features ask it for the same few keys)."""
    for c in LEXICAL:
        if key in c.evidence_keys:
            return c
    for f in FAMILIES:
        for pattern in f.evidence_keys:
            name = _unformat(pattern, key)
            if name is not None:
                return embedding(f.kind, name)
    return None


def index_channels(manifest_channels: Iterable[str]) -> list[Channel]:
    """Every channel of an index: the always-live ones, then those its manifest records, in its order."""
    recorded = [from_manifest(e) for e in manifest_channels]
    return [c for c in LEXICAL if c.manifest is None] + recorded


def channel_switches(manifest_channels: Iterable[str]) -> list[str]:
    """Switch names of an index's channels: the lexical ones first, then the embedding ones in manifest order."""
    chans = index_channels(manifest_channels)
    lexical = [c.switch for c in LEXICAL if c.switch is not None]
    return lexical + [c.switch for c in chans if c.embedded and c.switch is not None]


def evidence_legend() -> str:
    """What the evidence keys an answer's ranks are listed under stand for (the explain output's legend)."""
    lexical = ", ".join(k for c in LEXICAL for k in c.evidence_keys)
    families = "; ".join(f"{', '.join(k.format('<model>') for k in f.evidence_keys)} ({f.scores})" for f in FAMILIES)
    return f"{lexical} (BM25); {families}"


def any_embedded(evidence_keys: Iterable[str]) -> bool:
    """Whether any of these evidence scores comes from an embedding channel."""
    return any((c := from_evidence_key(k)) is not None and c.embedded for k in evidence_keys)
