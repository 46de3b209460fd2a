"""A 3-table catalog small enough to compute every channel, document and feature of it by hand.

Group `shop`: customer(id, name) and orders(id, customer_id, amount), joined on orders.customer_id =
customer.id; group `zoo`: animal(id, species). One sample row each.
"""

from __future__ import annotations

from typing import Any

from retriever.index.catalog import Catalog, parse_catalog


def three_tables_json() -> dict[str, Any]:
    def col(name: str, type_: str) -> dict[str, str]:
        return {"name": name, "type": type_, "description": ""}

    return {
        "tables": [
            {"table_id": "shop.customer", "group": "shop", "name": "customer", "description": "",
             "columns": [col("id", "number"), col("name", "text")], "primary_key": ["id"],
             "sample_rows": [{"id": 1, "name": "Ada Lovelace"}]},
            {"table_id": "shop.orders", "group": "shop", "name": "orders", "description": "",
             "columns": [col("id", "number"), col("customer_id", "number"), col("amount", "number")],
             "primary_key": ["id"], "sample_rows": [{"id": 7, "customer_id": 1, "amount": 30}]},
            {"table_id": "zoo.animal", "group": "zoo", "name": "animal", "description": "",
             "columns": [col("id", "number"), col("species", "text")], "primary_key": ["id"],
             "sample_rows": [{"id": 1, "species": "Red Panda"}]},
        ],
        "relationships": [{"left_table": "shop.orders", "left_column": "customer_id",
                           "right_table": "shop.customer", "right_column": "id"}],
    }


def three_tables() -> Catalog:
    return parse_catalog(three_tables_json())
