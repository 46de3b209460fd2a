"""BM25 term by term on a 3-document corpus, against the Lucene formulas worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from retriever.index.lexical import LexicalIndex

# Documents ["a", "b"], ["b"] and an empty one (indexed as one sentinel token): N = 3, average length 4/3.
# With k1 = 1.2, b = 0.75 a single occurrence in a document of length dl scores
#   idf * 1 / (1 + 1.2 * (0.25 + 0.75 * dl / (4/3)))      idf = ln(1 + (N - df + 0.5) / (df + 0.5))
IDF_A = math.log(1 + 2.5 / 1.5)  # df 1: ln(8/3)
IDF_B = math.log(1 + 1.5 / 2.5)  # df 2: ln(1.6)
IDF_UNKNOWN = math.log(1 + 3.5 / 0.5)  # df 0: ln(8), the rarest possible
NORM_2 = 1 + 1.2 * (0.25 + 0.75 * 2 / (4 / 3))  # 2.65
NORM_1 = 1 + 1.2 * (0.25 + 0.75 * 1 / (4 / 3))  # 1.975


@pytest.fixture(scope="module")
def index() -> LexicalIndex:
    return LexicalIndex.build([["a", "b"], ["b"], []])


def test_term_scores_are_per_term_bm25_rows(index: LexicalIndex) -> None:
    got = index.term_scores(["a", "b", "never"])
    want = [[IDF_A / NORM_2, 0.0, 0.0], [IDF_B / NORM_2, IDF_B / NORM_1, 0.0], [0.0, 0.0, 0.0]]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.dtype == np.float32 and got.shape == (3, 3)


def test_idf_is_the_indexs_own_and_unknown_terms_are_rarest(index: LexicalIndex) -> None:
    np.testing.assert_allclose(index.idf(["a", "b", "never"]), [IDF_A, IDF_B, IDF_UNKNOWN], rtol=1e-6)


def test_the_empty_document_keeps_its_row(index: LexicalIndex) -> None:
    assert index.n_docs == 3
    assert index.term_scores(["\x00empty"])[0, 2] > 0  # the sentinel is the only thing it holds


def test_save_and_load_give_the_same_scores(index: LexicalIndex, tmp_path: Path) -> None:
    index.save(tmp_path / "bm25")
    again = LexicalIndex.load(tmp_path / "bm25", 3)
    np.testing.assert_array_equal(again.term_scores(["a", "b"]), index.term_scores(["a", "b"]))
    np.testing.assert_array_equal(again.idf(["a", "b", "x"]), index.idf(["a", "b", "x"]))


def test_an_empty_corpus_still_indexes() -> None:
    ix = LexicalIndex.build([])
    assert ix.term_scores(["a"]).shape == (1, 0)


def test_token_ids_follow_sorted_order_so_builds_are_byte_identical() -> None:
    """bm25s numbers a vocabulary it builds as a set (an order that changes with the hash seed); ours is sorted."""
    idx = LexicalIndex.build([["zebra", "apple"], ["mango"], []])
    assert [t for t, _ in sorted(idx.vocab.items(), key=lambda kv: kv[1])][:4] == ["\x00empty", "apple", "mango",
                                                                                      "zebra"]
    np.testing.assert_array_equal(idx.term_scores(["apple", "mango"]).nonzero()[1], [0, 1])
