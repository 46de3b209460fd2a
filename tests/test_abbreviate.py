"""The schema-side proxy: a catalog abbreviated and undocumented, its labels following it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import abbreviate  # noqa: E402

from retriever.index.catalog import parse_catalog  # noqa: E402

CATALOG = {
    "tables": [
        {"table_id": "shop.customer", "group": "shop", "name": "customer", "description": "the buyers",
         "columns": [{"name": "customer_id", "type": "number", "description": "id"},
                     {"name": "CustomerName", "type": "text", "description": "full name"}],
         "primary_key": ["customer_id"], "sample_rows": [{"customer_id": 1, "CustomerName": "Ann"}]},
        {"table_id": "shop.orders", "group": "shop", "name": "orders",
         "columns": [{"name": "order_id", "type": "number"}, {"name": "customer_id", "type": "number"},
                     {"name": "quantity", "type": "number"}], "primary_key": ["order_id"], "sample_rows": []}],
    "relationships": [{"left_table": "shop.orders", "left_column": "customer_id",
                       "right_table": "shop.customer", "right_column": "customer_id"}],
}


def test_words_are_shortened_the_way_schemas_do() -> None:
    assert abbreviate.abbreviate_name("customer_id", "shop", 7) == "cust_id"
    assert abbreviate.abbreviate_name("CustomerName", "shop", 7) == "cust_nm"
    assert abbreviate.consonants("singer") == "sngr"
    word = abbreviate.abbreviate_word("musician", "music", 7)
    assert word == abbreviate.abbreviate_word("musician", "music", 7), "seeded: the same word, the same way"
    assert word in {"musician", "musi", "mscn"}


def test_the_copy_is_a_catalog_and_the_labels_follow_it(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"query_id": "q1", "plans": [{
        "tables": ["shop.orders", "shop.customer"], "joins": CATALOG["relationships"]}]}) + "\n")
    (tmp_path / "catalog.json").write_text(json.dumps(CATALOG))
    args = ["--catalog", tmp_path / "catalog.json", "--labels", labels,
            "--out-catalog", tmp_path / "out.json", "--out-labels", tmp_path / "out.jsonl"]
    assert abbreviate.main([str(a) for a in args]) == 0
    new = json.loads((tmp_path / "out.json").read_text())
    catalog = parse_catalog(new)  # still a valid catalog: keys, sample rows and relationships renamed alike
    cust = next(t for t in catalog.tables if t.table_id == "shop.cust")
    assert [c.name for c in cust.columns] == ["cust_id", "cust_nm"]
    assert [c.description for c in cust.columns] == ["cust id", "cust nm"] and cust.description == "cust"
    assert new["tables"][0]["sample_rows"] == [{"cust_id": 1, "cust_nm": "Ann"}]
    assert new["relationships"][0]["left_column"] == "cust_id"
    plan = json.loads((tmp_path / "out.jsonl").read_text())["plans"][0]
    tables = {t.table_id for t in catalog.tables}
    assert set(plan["tables"]) <= tables and plan["joins"] == new["relationships"]


def test_names_can_be_run_together_as_one_lower_case_word(tmp_path: Path) -> None:
    assert abbreviate.abbreviate_name("CustomerName", "shop", 7, run_together=1.0) == "custnm"
    assert abbreviate.abbreviate_name("quantity", "shop", 7, run_together=1.0) == "qty", "one word: nothing to join"
    shares = [abbreviate.abbreviate_name(f"{w}_id", "shop", 7, run_together=0.5).endswith("_id")
              for w in ("order", "item", "line", "ship", "bill", "tax", "note", "part", "role", "zone")]
    assert 0 < sum(shares) < len(shares), "a seeded share of the names, not all or none"
    (tmp_path / "catalog.json").write_text(json.dumps(CATALOG))
    (tmp_path / "labels.jsonl").write_text(json.dumps({"query_id": "q1", "plans": [{
        "tables": ["shop.orders", "shop.customer"], "joins": CATALOG["relationships"]}]}) + "\n")
    args = ["--catalog", tmp_path / "catalog.json", "--labels", tmp_path / "labels.jsonl", "--run-together", "1",
            "--out-catalog", tmp_path / "out.json", "--out-labels", tmp_path / "out.jsonl"]
    assert abbreviate.main([str(a) for a in args]) == 0
    new = json.loads((tmp_path / "out.json").read_text())
    catalog = parse_catalog(new)
    assert [c.name for c in catalog.tables[0].columns] == ["custid", "custnm"]
    assert json.loads((tmp_path / "out.jsonl").read_text())["plans"][0]["joins"] == new["relationships"]
    bad = [str(a) for a in args[:4]] + ["--run-together", "1.5"] + [str(a) for a in args[6:]]
    with pytest.raises(SystemExit):
        abbreviate.main(bad)
