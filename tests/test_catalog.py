"""Catalog loader: accepted layouts, Spider's tables.json, errors, relationship hygiene, byte-exact ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from retriever.errors import CatalogError
from retriever.index.catalog import Catalog, Column, Relationship, load_catalog, parse_catalog


def to_json(cat: Catalog) -> dict[str, Any]:
    """The catalog in the normalised benchmark format (the product never writes it; parsing is checked by it)."""
    return {
        "tables": [
            {
                "table_id": t.table_id,
                "group": t.group,
                "name": t.name,
                "description": t.description,
                "columns": [{"name": c.name, "type": c.type, "description": c.description} for c in t.columns],
                "primary_key": list(t.primary_key),
                "sample_rows": [dict(r) for r in t.sample_rows],
            }
            for t in cat.tables
        ],
        "relationships": [r.as_dict() for r in cat.relationships],
    }

def _rel(lt: str, lc: str, rt: str, rc: str) -> dict[str, str]:
    return {"left_table": lt, "left_column": lc, "right_table": rt, "right_column": rc}


def _two_tables(**extra: Any) -> dict[str, Any]:
    """Two tables a.x(id, y_id) and a.y(id) plus whatever keys `extra` adds."""
    return {"tables": [{"table_id": "a.x", "columns": ["id", "y_id"]},
                       {"table_id": "a.y", "columns": ["id"]}], **extra}


# --- layouts -------------------------------------------------------------------------------------------


def test_benchmark_format_round_trips() -> None:
    data = {
        "tables": [
            {"table_id": "db.t", "group": "db", "name": "t", "description": "things",
             "columns": [{"name": "id", "type": "number", "description": "thing id"}],
             "primary_key": ["id"], "sample_rows": [{"id": 1}]},
            {"table_id": "db.u", "group": "db", "name": "u", "description": "",
             "columns": [{"name": "t_id", "type": "number", "description": ""}],
             "primary_key": [], "sample_rows": []},
        ],
        "relationships": [_rel("db.u", "t_id", "db.t", "id")],
    }
    cat = parse_catalog(data)
    assert to_json(cat) == data
    assert parse_catalog(to_json(cat)) == cat
    assert cat.warnings == ()


def test_tables_as_list_and_as_dict_keyed_by_id() -> None:
    as_list = parse_catalog({"tables": [{"table_id": "g.a", "columns": ["c"]}, {"table_id": "g.b"}]})
    as_dict = parse_catalog({"tables": {"g.a": {"columns": ["c"]}, "g.b": {}}})
    assert [t.table_id for t in as_list.tables] == ["g.a", "g.b"]
    assert [t.table_id for t in as_dict.tables] == ["g.a", "g.b"]
    assert as_dict.tables[0].columns == (Column("c"),)
    assert as_dict.tables[0].name == "a" and as_dict.tables[0].group == "g"


def test_bare_list_of_tables() -> None:
    cat = parse_catalog([{"table_id": "g.a"}, {"table_id": "g.b"}])
    assert [t.table_id for t in cat.tables] == ["g.a", "g.b"]
    assert cat.relationships == ()


def test_id_and_table_id_keys() -> None:
    cat = parse_catalog({"tables": [{"id": "s.one"}, {"table_id": "s.two"}]})
    assert [t.table_id for t in cat.tables] == ["s.one", "s.two"]


@pytest.mark.parametrize("key", ["group", "database", "db_id", "schema"])
def test_group_keys(key: str) -> None:
    cat = parse_catalog({"tables": [{"table_id": "x.t", key: "G1"}]})
    assert cat.tables[0].group == "G1"


def test_group_defaults_to_id_prefix_then_default() -> None:
    cat = parse_catalog({"tables": [{"table_id": "hr.staff.people"}, {"table_id": "plain"}]})
    assert [t.group for t in cat.tables] == ["hr.staff", "default"]
    assert [t.name for t in cat.tables] == ["people", "plain"]


def test_columns_as_strings_or_objects_and_description_or_comment() -> None:
    cat = parse_catalog({"tables": [
        {"table_id": "g.a", "description": "table a",
         "columns": ["plain", {"name": "typed", "type": "number", "description": "a number"},
                     {"name": "commented", "comment": "from comment"}]},
        {"table_id": "g.b", "comment": "table b via comment", "columns": []},
    ]})
    a, b = cat.tables
    assert a.columns == (Column("plain"), Column("typed", "number", "a number"),
                         Column("commented", "", "from comment"))
    assert a.description == "table a"
    assert b.description == "table b via comment"


@pytest.mark.parametrize("key", ["relationships", "foreign_keys", "joins"])
def test_relationship_keys(key: str) -> None:
    cat = parse_catalog(_two_tables(**{key: [_rel("a.x", "y_id", "a.y", "id")]}))
    assert cat.relationships == (Relationship("a.x", "y_id", "a.y", "id"),)


def test_spider_tables_json_layout() -> None:
    spider = [{
        "db_id": "pets_1",
        "table_names_original": ["Student", "Has_Pet", "Pets"],
        "table_names": ["student", "has pet", "pets"],
        "column_names_original": [[-1, "*"], [0, "StuID"], [0, "LName"], [1, "StuID"], [1, "PetID"],
                                  [2, "PetID"], [2, "PetType"]],
        "column_names": [[-1, "*"], [0, "student id"], [0, "last name"], [1, "student id"], [1, "pet id"],
                         [2, "pet id"], [2, "pet type"]],
        "column_types": ["text", "number", "text", "number", "number", "number", "text"],
        "primary_keys": [1, 5],
        "foreign_keys": [[3, 1], [4, 5]],
    }]
    cat = parse_catalog(spider)
    assert [t.table_id for t in cat.tables] == ["pets_1.Student", "pets_1.Has_Pet", "pets_1.Pets"]
    assert {t.group for t in cat.tables} == {"pets_1"}
    student = cat.tables[0]
    assert student.description == "student"
    assert student.columns == (Column("StuID", "number", "student id"), Column("LName", "text", "last name"))
    assert student.primary_key == ("StuID",)
    assert cat.tables[1].primary_key == ()
    assert cat.relationships == (Relationship("pets_1.Has_Pet", "StuID", "pets_1.Student", "StuID"),
                                 Relationship("pets_1.Has_Pet", "PetID", "pets_1.Pets", "PetID"))
    # A single database object (not a list) is accepted too.
    assert parse_catalog(spider[0]).relationships == cat.relationships


def test_load_catalog_reads_a_file_and_records_checksum(tmp_path: Path) -> None:
    path = tmp_path / "cat.json"
    data = _two_tables(relationships=[_rel("a.x", "y_id", "a.y", "id")])
    path.write_text(json.dumps(data), encoding="utf-8")
    cat = load_catalog(path)
    assert len(cat.tables) == 2 and len(cat.relationships) == 1
    assert len(cat.checksum) == 64


# --- errors --------------------------------------------------------------------------------------------


def _load_error(tmp_path: Path, raw: bytes) -> str:
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    with pytest.raises(CatalogError) as e:
        load_catalog(path)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_error_not_json(tmp_path: Path) -> None:
    assert "JSON" in _load_error(tmp_path, b'{"tables": [')


def test_error_not_utf8(tmp_path: Path) -> None:
    assert "UTF-8" in _load_error(tmp_path, b'{"tables": [{"table_id": "caf\xe9"}]}')


def test_error_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read catalog"):
        load_catalog(tmp_path / "nope.json")


@pytest.mark.parametrize("data", [{}, {"tables": []}, {"tables": {}}, [], {"relationships": []}])
def test_error_no_tables(data: Any) -> None:
    with pytest.raises(CatalogError, match="no tables"):
        parse_catalog(data)


def test_error_not_an_object() -> None:
    with pytest.raises(CatalogError, match="JSON object or list"):
        parse_catalog("tables")


def test_error_duplicate_ids() -> None:
    with pytest.raises(CatalogError, match=r"duplicate table id 'g\.a'"):
        parse_catalog({"tables": [{"table_id": "g.a"}, {"table_id": "g.b"}, {"table_id": "g.a"}]})


@pytest.mark.parametrize(("table", "needle"), [
    ({"columns": ["c"]}, "no table_id"),
    ({"table_id": ""}, "empty table_id"),
    (7, "not an object"),
])
def test_error_bad_table(table: Any, needle: str) -> None:
    with pytest.raises(CatalogError, match=needle):
        parse_catalog({"tables": [{"table_id": "ok"}, table]})


def test_error_relationships_not_a_list() -> None:
    with pytest.raises(CatalogError, match="relationships must be a list"):
        parse_catalog(_two_tables(relationships="a.x->a.y"))


# --- relationship hygiene ------------------------------------------------------------------------------


def test_unknown_table_or_column_skipped_with_counted_warning() -> None:
    good = _rel("a.x", "y_id", "a.y", "id")
    cat = parse_catalog(_two_tables(relationships=[
        good,
        _rel("a.x", "y_id", "a.missing", "id"),
        _rel("a.x", "nope", "a.y", "id"),
        _rel("a.x", "y_id", "a.y", "nope"),
        {"left_table": "a.x"},
        "not a relationship",
    ]))
    assert cat.relationships == (Relationship(**good),)
    assert len(cat.warnings) == 5
    assert any("a.missing" in w for w in cat.warnings)
    assert sum("unknown column" in w for w in cat.warnings) == 2


def test_duplicate_relationships_deduplicated_in_either_direction() -> None:
    fwd = _rel("a.x", "y_id", "a.y", "id")
    rev = _rel("a.y", "id", "a.x", "y_id")
    cat = parse_catalog(_two_tables(relationships=[fwd, fwd, rev, dict(fwd)]))
    assert cat.relationships == (Relationship(**fwd),)
    assert cat.warnings == ()


def test_column_match_is_case_insensitive_but_text_kept() -> None:
    cat = parse_catalog(_two_tables(relationships=[_rel("a.x", "Y_ID", "a.y", "ID")]))
    assert cat.relationships == (Relationship("a.x", "Y_ID", "a.y", "ID"),)


# --- byte-exact ids ------------------------------------------------------------------------------------


#: Composed vs decomposed é, spaces, several dots, a leading space, a zero-width space, CJK.
ODD_IDS = ["café.Straße", "cafe\u0301.Straße", "my db.order items", "a.b.c.d", " lead", "ü\u200b.t",
           "数据.表"]


def test_table_ids_kept_byte_exact() -> None:
    tables = [{"table_id": t, "columns": ["id"]} for t in ODD_IDS]
    cat = parse_catalog({"tables": tables, "relationships": [_rel(ODD_IDS[0], "id", ODD_IDS[1], "id")]})
    assert [t.table_id for t in cat.tables] == ODD_IDS
    assert [t.table_id.encode() for t in cat.tables] == [t.encode() for t in ODD_IDS]
    assert cat.relationships[0].left_table == ODD_IDS[0] and cat.relationships[0].right_table == ODD_IDS[1]
    assert cat.tables[2].group == "my db" and cat.tables[3].group == "a.b.c"


def test_byte_exact_ids_survive_a_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "odd.json"
    data = {"tables": [{"table_id": t, "columns": ["id"]} for t in ODD_IDS]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    first: Catalog = load_catalog(path)
    path.write_text(json.dumps(to_json(first), ensure_ascii=True), encoding="utf-8")
    assert [t.table_id for t in load_catalog(path).tables] == ODD_IDS
