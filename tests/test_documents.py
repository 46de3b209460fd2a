"""Documents of the 3-table catalog, written out by hand: what BM25 and the embedders are given."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from three_tables import three_tables, three_tables_json

from retriever.index.build import build_index
from retriever.index.catalog import Catalog, Column, Table, parse_catalog
from retriever.index.documents import (
    TEMPORAL_TABLES_FILE,
    build_documents,
    column_text,
    group_order,
    named_tables,
    table_text,
    temporal_tables,
)
from retriever.index.store import load_index


def test_table_documents_weigh_the_name_twice_then_the_columns() -> None:
    docs = build_documents(three_tables())
    assert docs.table_tokens == [
        ["custom", "custom", "id", "name"],
        ["order", "order", "id", "custom", "id", "amount"],
        ["anim", "anim", "id", "speci"],
    ]
    assert docs.table_texts == ["customer: id, name", "orders: id, customer id, amount", "animal: id, species"]
    assert docs.table_labels == ["customer", "orders", "animal"]


def test_column_documents_carry_their_table_name_and_sample_values() -> None:
    docs = build_documents(three_tables())
    assert docs.column_table == [0, 0, 1, 1, 1, 2, 2]
    assert docs.column_tokens[1] == ["custom", "name", "name", "ada", "lovelac"]
    assert docs.column_tokens[3] == ["order", "custom", "id", "custom", "id", "1"]
    # Sample values are shown for text columns only: a number says nothing a question would quote.
    assert docs.column_texts[0] == "id of customer"
    assert docs.column_texts[1] == "name of customer (e.g. Ada Lovelace)"
    assert docs.column_texts[6] == "species of animal (e.g. Red Panda)"


def test_group_documents_are_the_group_name_and_its_tables() -> None:
    cat = three_tables()
    docs = build_documents(cat)
    assert group_order(cat) == ["shop", "zoo"]
    assert docs.group_tokens == [
        ["shop", "custom", "custom", "id", "name", "order", "order", "id", "custom", "id", "amount"],
        ["zoo", "anim", "anim", "id", "speci"],
    ]
    assert docs.group_texts == ["shop: customer, orders", "zoo: animal"]


def test_values_and_phrases_leave_out_bare_numbers() -> None:
    docs = build_documents(three_tables())
    assert docs.value_tokens == [["1", "ada", "lovelac"], ["7", "1", "30"], ["1", "red", "panda"]]
    assert docs.value_phrases == {"ada lovelace": [0], "red panda": [2]}


def test_named_tables_have_a_name_or_title_column() -> None:
    assert named_tables(three_tables()).tolist() == [True, False, False]


def test_texts_prefer_a_description_that_says_more_than_the_name() -> None:
    t = three_tables().tables[0]
    described = replace(t, description="people who buy")
    assert table_text(described) == "people who buy: id, name"
    assert column_text(described, t.columns[0]) == "id of people who buy"


def test_a_table_named_by_a_command_word_keeps_it_and_prefixes_of_one_letter_go() -> None:
    from retriever.index.catalog import parse_catalog

    cat = parse_catalog({"tables": [
        {"table_id": "m.lists", "group": "m", "name": "lists",
         "columns": [{"name": "list_id"}, {"name": "s_name"}, {"name": "show_time"}]},
    ]})
    docs = build_documents(cat)
    assert docs.table_tokens == [["list", "list", "list", "id", "name", "show", "time"]]
    assert docs.column_tokens[1] == ["list", "name", "name"]


def test_tables_with_a_column_saying_when_are_found_by_its_type_words_and_endings() -> None:
    def table(name: str, *columns: Column) -> Table:
        return Table(f"db.{name}", "db", name, name, columns)
    catalog = Catalog((table("orders", Column("id"), Column("OrderDate")), table("people", Column("birthdate")),
                       table("cars", Column("Year"), Column("weight")), table("teams", Column("name")),
                       table("races", Column("lap_time")), table("film", Column("last_update")),
                       table("votes", Column("candidate")), table("logs", Column("seen", "TIMESTAMP")),
                       table("stock", Column("amount", "number"))), ())
    assert temporal_tables(catalog).tolist() == [True, True, True, False, True, True, False, True, False]


def test_the_build_keeps_which_tables_say_when_and_an_index_built_before_it_reads_none(tmp_path: Path) -> None:
    data = three_tables_json()
    data["tables"][1]["columns"].append({"name": "placed", "type": "datetime", "description": ""})
    build_index(parse_catalog(data), tmp_path / "index", dense={}, log=lambda _m: None)
    assert load_index(tmp_path / "index").temporal.tolist() == [False, True, False]
    # An index built before the file existed: its manifest does not list it.
    (tmp_path / "index" / TEMPORAL_TABLES_FILE).unlink()
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text(encoding="utf-8"))
    del manifest["files"][TEMPORAL_TABLES_FILE]
    (tmp_path / "index" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert load_index(tmp_path / "index").temporal.tolist() == [False, False, False]
