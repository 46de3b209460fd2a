"""The channels stage on the 3-table catalog: every channel's scores and the fused ranking, by hand.

The fake dense model maps each document text to a fixed 2-d vector and the fake late-interaction model
each table text to fixed token vectors (values exact in float16), so cosines and MaxSim sums are plain
arithmetic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from three_tables import three_tables

from retriever.backends.stage1 import fill_missing
from retriever.embedders.interface import Kind
from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog
from retriever.index.store import load_index
from retriever.index.text import name_spans
from retriever.query.channels import Channels, Layout, column_max, standardise
from retriever.query.lookups import (
    MAX_WORDS,
    compounds,
    content_words,
    dated,
    embedded_words,
    entity_terms,
    match_phrases,
)

DENSE = {
    "customer: id, name": [1.0, 0.0],
    "orders: id, customer id, amount": [0.5, 0.5],
    "animal: id, species": [0.0, 1.0],
    "name of customer (e.g. Ada Lovelace)": [1.0, 0.0],
    "species of animal (e.g. Red Panda)": [0.0, 1.0],
    "shop: customer, orders": [0.75, 0.25],
    "zoo: animal": [0.0, 1.0],
}
OTHER = [0.25, 0.25]  # every other text (the remaining columns, the probe's table names)
TOKENS = {
    "customer: id, name": [[1.0, 0.0], [0.0, 1.0]],
    "orders: id, customer id, amount": [[0.5, 0.5]],
    "animal: id, species": [[0.0, 1.0]],
}


class FakeDense:
    name, dim = "fake-dense", 2

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        return np.asarray([DENSE.get(t, OTHER) for t in texts], dtype=np.float32).reshape(-1, 2)


class FakeTokens:
    name, dim = "fake-tokens", 2

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]:
        return [np.asarray(TOKENS[t], dtype=np.float32) for t in texts]


@pytest.fixture(scope="module")
def channels(tmp_path_factory: pytest.TempPathFactory) -> Channels:
    index_dir = tmp_path_factory.mktemp("three") / "index"
    build_index(three_tables(), index_dir, dense={"fake": FakeDense()}, multi={"tok": FakeTokens()},
                log=lambda _m: None)
    return Channels(load_index(index_dir))


QV = {"fake": np.asarray([1.0, 0.0]), "multi:tok": np.asarray([[1.0, 0.0], [0.5, 0.5]])}
QUESTION = "Which customer ordered the Red Panda?"


def test_layout_is_derived_once_from_the_index(channels: Channels) -> None:
    lay = channels.layout
    assert lay.n_tables == 3 and lay.n_groups == 2
    assert lay.col_start.tolist() == [0, 2, 5, 7]
    assert lay.table_group.tolist() == [0, 0, 1]
    assert {k: v.tolist() for k, v in lay.name_index.items()} == {"custom": [0], "order": [1], "anim": [2]}
    assert lay.name_len.tolist() == [1.0, 1.0, 1.0]
    assert {k: v.tolist() for k, v in lay.group_name_index.items()} == {"shop": [0], "zoo": [1]}


def test_dense_scores_are_cosines_with_tables_columns_and_groups(channels: Channels) -> None:
    t, c, g = channels.dense_scores(QV)["fake"]
    assert t.tolist() == [1.0, 0.5, 0.0]
    assert c.tolist() == [0.25, 1.0, 0.25, 0.25, 0.25, 0.25, 0.0]
    assert g.tolist() == [0.75, 0.0]
    assert channels.dense_scores({}) == {}  # no vector for the channel: no scores


def test_late_scores_are_maxsim_sums(channels: Channels) -> None:
    # customer: max(1, 0) + max(.5, .5) = 1.5; orders: .5 + .5; animal: 0 + .5
    assert channels.late_scores(QV)["tok"].tolist() == [1.5, 1.0, 0.5]


def test_evidence_holds_every_channel_under_its_registry_key(channels: Channels) -> None:
    ev = channels.evidence(QUESTION, QV, rrf_k=60)
    assert ev.terms == ["custom", "order", "red", "panda"]
    assert sorted(ev.scores) == ["bm25_columns", "bm25_tables", "dense_columns:fake", "dense_tables:fake",
                                 "late:tok", "values"]
    assert ev.scores["dense_tables:fake"].tolist() == [1.0, 0.5, 0.0]
    assert ev.scores["dense_columns:fake"].tolist() == [1.0, 0.25, 0.25]  # best column per table
    assert ev.scores["late:tok"].tolist() == [1.5, 1.0, 0.5]
    assert ev.schema_hit.tolist() == [[True, True, False], [False, True, False], [False] * 3, [False] * 3]
    assert ev.value_hit.tolist() == [[False] * 3, [False] * 3, [False, False, True], [False, False, True]]
    assert ev.name_match.tolist() == [1.0, 1.0, 0.0]
    assert ev.group_name_match.tolist() == [0.0, 0.0]
    assert ev.phrases == ["red panda"] and ev.phrase_hits.tolist() == [0.0, 0.0, 1.0]
    assert ev.entity.tolist() == [False, False, True, True]
    assert list(ev.group_dense) == ["fake"] and ev.group_dense["fake"].tolist() == [0.75, 0.0]
    assert ev.dense_z is not None
    np.testing.assert_allclose(ev.dense_z[0], [1.2247449, 0.0, -1.2247449], rtol=1e-6)
    assert not ev.dated and channels.evidence(QUESTION + " placed in 2019", QV, rrf_k=60).dated


def test_query_words_no_document_holds_are_no_terms(channels: Channels) -> None:
    # "many", "different" and "total" ask how to compute: no table holds them, so they would only count as
    # the question's unexplained share. "order" and "amount" are query words too, but the schema's here.
    ev = channels.evidence("How many different customers? Sort by the total amount of each order.", QV, rrf_k=60)
    assert ev.terms == ["custom", "amount", "order"]


def test_a_verb_counts_as_related_to_the_noun_made_from_it(channels: Channels) -> None:
    # As if WordNet made "customer" from "bought": the tables holding the noun (customer, and orders by its
    # customer_id) hold the verb as a related word, which table relevance reads; the switch turns it off.
    derived = Channels(dataclasses.replace(channels.index, derived={"bought": ["custom"]}))
    ev = derived.evidence("Who bought the Red Panda?", QV, rrf_k=60)
    row = ev.terms.index("bought")
    assert ev.related()[row].tolist() == [True, True, False]
    off = derived.evidence("Who bought the Red Panda?", QV, rrf_k=60, disabled=frozenset({"derived"}))
    assert not off.related()[row].any()
    assert not channels.evidence("Who bought the Red Panda?", QV, rrf_k=60).related()[row].any()


def test_fused_ranks_by_hand_and_switches_by_registry_name(channels: Channels) -> None:
    off = frozenset({"bm25_columns", "values", "phrases"})
    ev = channels.evidence(QUESTION, QV, rrf_k=60, disabled=off)
    assert sorted(ev.scores) == ["bm25_tables", "dense_columns:fake", "dense_tables:fake", "late:tok"]
    # Ranks: bm25_tables orders 1, customer 2 (animal unscored); dense tables customer 1, orders 2 (animal's
    # 0 is no rank); dense columns customer 1, then the 0.25 tie by position: orders 2, animal 3; late 1, 2, 3.
    want = [1 / 62 + 3 / 61, 1 / 61 + 3 / 62, 2 / 63]
    np.testing.assert_allclose(ev.fused, want, rtol=1e-6)
    flat = channels.evidence(QUESTION, QV, rrf_k=1, disabled=off)
    np.testing.assert_allclose(flat.fused, [1 / 3 + 3 / 2, 1 / 2 + 3 / 3, 2 / 4], rtol=1e-6)
    # The whole dense channel and the late one go by their switches.
    ev = channels.evidence(QUESTION, QV, rrf_k=60, disabled=off | {"dense:fake", "late:tok"})
    assert sorted(ev.scores) == ["bm25_tables"] and ev.dense_z is None and ev.group_dense == {}


def test_column_max_per_table_and_zero_for_tables_without_columns() -> None:
    lay = Layout(3, np.asarray([0, 2, 2, 3]), np.zeros(3, dtype=np.int64), 1, {}, np.ones(3), {}, np.ones(1))
    assert column_max(np.asarray([0.1, 0.4, 0.3], dtype=np.float32), lay).tolist() == pytest.approx([0.4, 0.0, 0.3])


def test_fill_missing_puts_unreached_rows_at_the_median() -> None:
    got = fill_missing(np.asarray([0.5, 0.1], dtype=np.float32), np.asarray([True, False, True]))
    assert got.tolist() == pytest.approx([0.5, 0.3, 0.1])
    same = np.asarray([0.2], dtype=np.float32)
    assert fill_missing(same, None) is same


def test_phrases_are_longest_first_and_skip_short_single_words() -> None:
    phrases = {"red panda": [2], "red": [0], "of": [1], "panda": [2]}
    assert match_phrases("a red panda of note", phrases) == {"red panda": [2], "red": [0], "panda": [2]}


def test_entity_terms_come_from_quotes_and_capitals_after_the_first_word() -> None:
    assert entity_terms('Which "ada" owns Red things', ["ada", "own", "red", "thing"]).tolist() == [
        True, False, True, False]
    # A capital opening a second sentence is an order, not a name.
    assert entity_terms("List movies by Lynch. State the title.", ["list", "movi", "lynch", "state", "titl"]
                        ).tolist() == [False, False, True, False, False]


def test_name_spans_are_quotes_and_capitalised_runs_past_a_sentences_first_word() -> None:
    assert name_spans("How many matches did team Mumbai Indians win in 2008?") == ["Mumbai Indians"]
    assert name_spans("How many customers ordered Stephen King's first book?") == ["Stephen King"]
    assert name_spans('Which shops sell "red tea"? List them by Owner.') == ["red tea", "Owner"]
    assert name_spans("Which role won at least two awards?") == []
    assert name_spans("") == []


def test_names_embedded_alone_score_each_table_by_its_best_column(channels: Channels) -> None:
    # "Red Panda" as its own vector [0, 1]: the species column (cosine 1) is animal's; customer's name
    # column is orthogonal to it.
    qv = {**QV, "names:fake": np.asarray([[0.0, 1.0]])}
    ev = channels.evidence(QUESTION, qv, rrf_k=60)
    np.testing.assert_allclose(ev.entity_cos, [0.25, 0.25, 1.0])
    # Two names: the best of either per column.
    two = channels.evidence(QUESTION, {**QV, "names:fake": np.asarray([[0.0, 1.0], [1.0, 0.0]])}, rrf_k=60)
    np.testing.assert_allclose(two.entity_cos, [1.0, 0.25, 1.0])
    # No name vectors, or the dense channel switched off: nothing to read.
    assert channels.evidence(QUESTION, QV, rrf_k=60).entity_cos.size == 0
    off = channels.evidence(QUESTION, qv, rrf_k=60, disabled=frozenset({"dense:fake"}))
    assert off.entity_cos.size == 0


def test_two_question_words_a_schema_name_runs_together_are_its_term(tmp_path: Path) -> None:
    catalog = parse_catalog({"tables": [
        {"table_id": "h.patients", "group": "h", "name": "patients", "columns": [{"name": "lastname"}]},
        {"table_id": "h.careplans", "group": "h", "name": "careplans", "columns": [{"name": "description"}]}]})
    build_index(catalog, tmp_path / "idx", log=lambda _m: None)
    channels = Channels(load_index(tmp_path / "idx"))
    question = "Which patients have a care plan? Give their last name."
    ev = channels.evidence(question, {}, 60)
    assert "careplan" in ev.terms and "lastnam" in ev.terms
    assert "patienthav" not in ev.terms, "a joined pair no schema name holds is no term"
    care = ev.terms.index("careplan")
    assert ev.schema_hit[care].tolist() == [False, True]
    assert ev.name_match.tolist() == [1.0, 1.0]
    off = channels.evidence(question, {}, 60, frozenset({"compounds", "abbreviations"}))
    assert "careplan" not in off.terms and off.name_match.tolist() == [1.0, 0.0]
    # Without the pair, "care" and "plan" are each a piece of `careplans` (index/abbreviations.py).
    pieces = channels.evidence(question, {}, 60, frozenset({"compounds"}))
    assert "careplan" not in pieces.terms and pieces.name_match.tolist() == [1.0, 1.0]
    assert compounds("the patient care plan") == ["patientcar", "careplan"]
    assert compounds("the patient's care plan") == ["careplan"], "no pair across a possessive's 's'"


def test_the_query_side_uses_the_local_model_it_is_handed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Retriever.open loads the local model beside the index and hands it over: query_embedders then uses
    that one and loads none itself."""
    from retriever import runtime
    from retriever.config import Settings

    build_index(three_tables(), tmp_path / "index", dense={"local": FakeDense()}, log=lambda _m: None)

    def no_loading(_settings: Settings) -> None:
        raise AssertionError("query_embedders loaded a model of its own")

    monkeypatch.setattr(runtime, "local_embedder", no_loading)
    handed: list[str] = []

    def hand_over() -> FakeDense:
        handed.append("local")
        return FakeDense()

    embed = runtime.query_embedders(Settings(cache_dir=tmp_path / "cache"), load_index(tmp_path / "index"),
                                    local=hand_over)
    got = embed("customer: id, name")
    assert handed == ["local"] and sorted(got) == ["local", "words:local"]
    np.testing.assert_array_equal(got["local"], [1.0, 0.0])
    # The content words "customer" and "name", each embedded alone, in the order the channels read them.
    np.testing.assert_array_equal(got["words:local"], [OTHER, OTHER])


def test_content_words_are_the_questions_words_minus_stop_query_words_names_and_numbers() -> None:
    assert content_words("How many musicians performed at the stadium in 2014? Name the Red Panda.") == [
        "musicians", "performed", "stadium", "name"]
    # One word per stem, as first written; identifiers are split as documents split them.
    assert content_words("singers and their singer_id, sorted by singer_age") == ["singers", "age"]
    assert content_words("singers sorted by SingerAge") == ["singers"], "a capitalised word is a name"
    assert content_words("List the names of the different ones.") == ["names"]
    assert len(content_words(" ".join(f"word{c}x" for c in "abcdefghijklmnop").replace("word", "wor"))) == MAX_WORDS


def test_content_words_embedded_alone_score_tables_as_z_values_of_their_best_document(channels: Channels) -> None:
    # QUESTION's one content word is "customer" ("ordered" is a query word, "Red Panda" a name); its vector gets
    # its best cosine with each table's document or one of its columns, standardised over the catalog.
    assert embedded_words(QUESTION, channels.index.spelling) == ["customer"]
    words = np.asarray([[0.0, 1.0]])
    ev = channels.evidence(QUESTION, {**QV, "words:fake": words}, rrf_k=60)
    t, c, _ = channels.stage1.for_question().dense("fake", words)
    want = standardise(np.maximum(t[0], column_max(c[0], channels.layout)))
    np.testing.assert_allclose(ev.word_z[ev.terms.index("custom")], want, rtol=1e-5)
    assert want.max() > 0 and not np.allclose(want, 0.0)
    others = [i for i, term in enumerate(ev.terms) if term != "custom"]
    assert others and not ev.word_z[others].any()
    assert (ev.words() >= 0).all() and ev.words().max() == pytest.approx(ev.word_z.max())
    # Vectors for another word list (a count that does not match), none, or the channel off: nothing to read.
    for qv, off in (({**QV, "words:fake": np.vstack([words, words])}, frozenset()), (QV, frozenset()),
                    ({**QV, "words:fake": words}, frozenset({"dense:fake"}))):
        ev = channels.evidence(QUESTION, qv, rrf_k=60, disabled=off)
        assert ev.word_z.size == 0 and not ev.words().any()


def test_a_question_is_dated_by_a_year_or_month_its_own_words_put_in_time() -> None:
    for q in ("How many cars were produced in 1980?", "Which nations were founded after 1950?",
              "Orders shipped on November 3, 2012", "Games played between 2010 and 2015",
              "How many online orders were shipped during the month of June 2018?",
              "list the emails of the clients whose complaint date received is 7/3/2014",
              "Which players joined in the 2013 season?", "Sales in May 2016"):
        assert dated(q), q
    # Numbers that are no year, a year no word of the question leads to (a name, a model, a stamp pasted
    # around the question), and "May"/"March" alone.
    for q in ("Stations with capacity between 5000 and 10000", "Products with a price above 2000",
              "Who published the game Pro Evolution Soccer 2012?", "Annual Report 2023 - Page 14 What country?",
              "Thursday, 14 November 2024 15:00 Show all documents", "2024-06-02T13:44:09Z INFO how many likes?",
              "Voice memo (Recorder, 02/05/2024 17:32) how many teachers?", "in 1492 or 19800 cars",
              "Who may march?", ""):
        assert not dated(q), q

