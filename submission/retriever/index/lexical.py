"""BM25 channels over token lists (bm25s), queried term by term so evidence stays explainable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import bm25s
import numpy as np
from bm25s.scoring import _select_idf_scorer  # the idf bm25s scores with; no public name for it


class LexicalIndex:
    """One bm25s index; `term_scores` returns a (terms, docs) matrix whose rows sum to the BM25 score."""

    def __init__(self, model: bm25s.BM25, n_docs: int) -> None:
        self.model = model
        self.n_docs = n_docs
        self.vocab: dict[str, int] = dict(model.vocab_dict or {})

    @classmethod
    def build(cls, docs: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> LexicalIndex:
        # An empty document would break bm25s' vocabulary; a sentinel token keeps row numbering intact.
        safe = [list(d) if d else ["\x00empty"] for d in docs] or [["\x00empty"]]  # nor an empty corpus
        # Token ids in sorted order: bm25s numbers a vocabulary built as a set, so the index files of two
        # builds of one catalog differed (the same scores under other ids).
        vocab = {token: i for i, token in enumerate(sorted({t for d in safe for t in d}))}
        model = bm25s.BM25(k1=k1, b=b, method="lucene")
        model.index(bm25s.tokenization.Tokenized(ids=[[vocab[t] for t in d] for d in safe], vocab=vocab),
                    show_progress=False)
        return cls(model, len(docs))

    def save(self, directory: Path) -> None:
        self.model.save(str(directory), show_progress=False)

    @classmethod
    def load(cls, directory: Path, n_docs: int) -> LexicalIndex:
        model = bm25s.BM25.load(str(directory), mmap=False, show_progress=False)
        return cls(model, n_docs)

    def term_scores(self, terms: Sequence[str], aliases: Mapping[str, Sequence[str]] | None = None) -> np.ndarray:
        """Per-term BM25 contributions; unknown terms give a zero row (see `postings` for the aliases)."""
        out = np.zeros((len(terms), self.n_docs), dtype=np.float32)
        data, indices, indptr = (self.model.scores[k] for k in ("data", "indices", "indptr"))
        for i, j, ratio in self.postings(terms, aliases):
            lo, hi = indptr[j], indptr[j + 1]
            docs = indices[lo:hi]  # sparse: a catalog of 100k tables has half a million column documents
            out[i, docs] = np.maximum(out[i, docs], data[lo:hi] * ratio)
        return out

    def postings(self, terms: Sequence[str],
                 aliases: Mapping[str, Sequence[str]] | None = None) -> list[tuple[int, int, float]]:
        """(term row, vocabulary id, weight) of every posting list a term's score reads, the row's score being
        the maximum over its lists. A document holding one of a term's `aliases` (an abbreviation or run-together
        form of its word) scores as if it held the term: the alias's term frequency at the term's idf, so a
        rare alias weighs no more than the word it stands for, which counts once. One place for the local index
        and a search engine's (which fetches the same lists)."""
        out: list[tuple[int, int, float]] = []
        for i, term in enumerate(terms):
            if (j := self.vocab.get(term)) is not None:
                out.append((i, j, 1.0))
            alias = (aliases or {}).get(term)
            if alias:
                ratio = self.idf([term]) / self.idf(alias)
                out += [(i, self.vocab[a], float(r)) for a, r in zip(alias, ratio, strict=True) if a in self.vocab]
        return out

    def idf(self, terms: Sequence[str]) -> np.ndarray:
        """The index's own idf (bm25s' formula for its method, Lucene here) from its document frequencies;
        unknown terms get the rarest idf."""
        idf_of = _select_idf_scorer(self.model.method)
        n = float(self.n_docs)
        csc_indptr = self.model.scores["indptr"]
        out = np.empty(len(terms), dtype=np.float32)
        for i, term in enumerate(terms):
            j = self.vocab.get(term)
            df = float(csc_indptr[j + 1] - csc_indptr[j]) if j is not None else 0.0
            out[i] = idf_of(df, n)
        return out
