"""Catalog import from SQLite and a real, test-started PostgreSQL server, and the round trip through build.sh."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, catalog_keys, join_key, sealed_env, validate_answer

pytest.importorskip("sqlalchemy", reason="catalog import needs the 'import' extra (requirements-dev.txt)")

from retriever import Retriever  # noqa: E402
from retriever.config import Settings  # noqa: E402
from retriever.errors import CatalogError  # noqa: E402
from retriever.index.build import build_index  # noqa: E402
from retriever.index.catalog import load_catalog  # noqa: E402
from retriever.index.catalog_import import import_catalog, scrub  # noqa: E402
from retriever.index.catalog_read import MAX_VALUE_CHARS, _group_names, sample_value  # noqa: E402

LONG = "x" * 500
SHOP_SQL = """
CREATE TABLE "Customer Accounts" ("Account ID" INTEGER PRIMARY KEY, "Full Name" TEXT, city TEXT, photo BLOB);
CREATE TABLE employees (id INTEGER PRIMARY KEY, name TEXT, manager_id INTEGER REFERENCES employees(id));
CREATE TABLE "Orders" (order_no INTEGER, region TEXT,
    "Account ID" INTEGER REFERENCES "Customer Accounts"("Account ID"), PRIMARY KEY (order_no, region));
CREATE TABLE shipments (id INTEGER PRIMARY KEY, order_no INTEGER, region TEXT,
    shipped_by INTEGER REFERENCES employees(id), notes TEXT,
    FOREIGN KEY (order_no, region) REFERENCES "Orders"(order_no, region));
INSERT INTO "Customer Accounts" VALUES (1, 'Zoë Ångström', 'Zürich', x'00ff'), (2, '山田 太郎', '東京', NULL);
INSERT INTO employees VALUES (1, 'Ada', NULL), (2, 'Grace', 1);
INSERT INTO "Orders" VALUES (10, 'north', 1), (11, 'south', 2);
"""
HR_SQL = """
CREATE TABLE departments (dept_id INTEGER PRIMARY KEY, title TEXT);
CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, full_name TEXT, dept_id INTEGER REFERENCES departments);
INSERT INTO departments VALUES (1, 'Research'), (2, 'Sales');
INSERT INTO staff VALUES (1, 'Lin', 1), (2, 'Ola', 2);
"""
#: (question, tables that must be in the answer, joins that must be in it as (table, column) pairs).
SQLITE_ROUND_TRIP = [
    ("List the region of every order with its shipments", {"shop.Orders", "shop.shipments"},
     [(("shop.shipments", "order_no"), ("shop.Orders", "order_no")),
      (("shop.shipments", "region"), ("shop.Orders", "region"))]),
    ("Which customer accounts are in Zürich?", {"shop.Customer Accounts"}, []),
    ("How many staff work in each department?", {"hr.staff", "hr.departments"},
     [(("hr.staff", "dept_id"), ("hr.departments", "dept_id"))]),
]


def make_sqlite_tree(tmp_path: Path) -> Path:
    folder = tmp_path / "dbs"
    folder.mkdir()
    with sqlite3.connect(folder / "shop.sqlite") as db:
        db.executescript(SHOP_SQL)
        db.execute("INSERT INTO shipments VALUES (100, 10, 'north', 2, ?)", (LONG,))
    db.close()
    (folder / "sub").mkdir()
    with sqlite3.connect(folder / "sub" / "hr.db") as db:
        db.executescript(HR_SQL)
    db.close()
    (folder / "notes.txt").write_text("not a database", encoding="utf-8")
    return folder


def tables_by_id(catalog_path: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(catalog_path.read_text(encoding="utf-8"))
    return {t["table_id"]: t for t in data["tables"]}


def sqlite_accepts(stmt: str) -> None:
    """One DDL statement alone (table names repeat across databases) in SQLite. A table of a schema
    (`CREATE TABLE sales."Orders"`) is created in an attached database of that name; SQLite names no schema
    where a table is referenced (it must be the table's own), so the reference is read unqualified."""
    db = sqlite3.connect(":memory:")
    for schema in re.findall(r"^CREATE TABLE (\w+)\.", stmt, re.M):
        db.execute(f"ATTACH ':memory:' AS {schema}")
    db.execute(re.sub(r"REFERENCES \w+\.", "REFERENCES ", stmt))


def build_and_ask(catalog_path: Path, tmp_path: Path, cases: list[tuple[str, set[str], list[Any]]]) -> None:
    """build.sh accepts the catalog; each question's answer is valid and holds the expected tables and joins."""
    env = sealed_env(tmp_path / "cache")
    index_dir = tmp_path / "index"
    res = subprocess.run(["bash", str(ROOT / "submission" / "build.sh"), "--corpus", str(catalog_path),
                          "--index-dir", str(index_dir)], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    ids, rels = catalog_keys(catalog_path)
    retriever = Retriever.open(index_dir, Settings(local_model=False))
    for question, tables, joins in cases:
        a = retriever.search(question)
        line = (json.dumps({"query_id": "q", "table_ids": list(a.table_ids), "joins": list(a.joins)}) + "\n")
        got_ids, got_keys = validate_answer(line.encode(), "q", ids, rels)
        assert tables <= got_ids, (question, a.table_ids)
        want = {frozenset(j) for j in joins}
        assert want <= got_keys, (question, a.joins)
        assert not a.low_evidence
        for stmt in a.ddl().split(");\n")[:-1]:  # the prompt DDL of imported odd names is valid SQL
            sqlite_accepts(stmt + ");")


def test_sqlite_folder_import_reads_schema_keys_and_samples(tmp_path: Path) -> None:
    folder = make_sqlite_tree(tmp_path)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()}
    out = tmp_path / "catalog.json"
    summary = import_catalog([str(folder)], out, sample_rows=3)
    assert summary.startswith("2 database(s), 6 tables")
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()}
    assert after == before  # read-only: no byte changed, no journal left behind
    t = tables_by_id(out)
    assert set(t) == {"shop.Customer Accounts", "shop.employees", "shop.Orders", "shop.shipments",
                      "hr.departments", "hr.staff"}
    cust = t["shop.Customer Accounts"]
    assert cust["group"] == "shop" and cust["primary_key"] == ["Account ID"]
    assert [c["name"] for c in cust["columns"]] == ["Account ID", "Full Name", "city", "photo"]
    assert cust["columns"][0]["type"] == "INTEGER"
    assert cust["sample_rows"][0] == {"Account ID": 1, "Full Name": "Zoë Ångström", "city": "Zürich"}  # no blob
    assert t["shop.Orders"]["primary_key"] == ["order_no", "region"]
    assert t["shop.shipments"]["sample_rows"][0]["notes"] == LONG[:MAX_VALUE_CHARS]
    rels = {join_key(r) for r in json.loads(out.read_text(encoding="utf-8"))["relationships"]}
    assert rels == {
        frozenset({("shop.employees", "manager_id"), ("shop.employees", "id")}),  # self-reference
        frozenset({("shop.Orders", "Account ID"), ("shop.Customer Accounts", "Account ID")}),
        frozenset({("shop.shipments", "order_no"), ("shop.Orders", "order_no")}),  # composite: one per pair
        frozenset({("shop.shipments", "region"), ("shop.Orders", "region")}),
        frozenset({("shop.shipments", "shipped_by"), ("shop.employees", "id")}),
        frozenset({("hr.staff", "dept_id"), ("hr.departments", "dept_id")}),  # REFERENCES without a column
    }
    assert not load_catalog(out).warnings


def test_sqlite_round_trip_through_build_sh(tmp_path: Path) -> None:
    folder = make_sqlite_tree(tmp_path)
    out = tmp_path / "catalog.json"
    import_catalog([str(folder / "shop.sqlite"), str(folder / "sub" / "hr.db")], out)
    build_and_ask(out, tmp_path, SQLITE_ROUND_TRIP)


def test_cli_catalog_command_and_sample_rows_option(tmp_path: Path) -> None:
    folder = make_sqlite_tree(tmp_path)
    out = tmp_path / "c.json"
    res = subprocess.run([sys.executable, "-m", "retriever", "catalog", "--from", str(folder / "shop.sqlite"),
                          "--out", str(out), "--sample-rows", "0"], cwd=ROOT, capture_output=True, text=True,
                         env=sealed_env(tmp_path / "cache"), timeout=120)
    assert res.returncode == 0, res.stderr
    assert "4 tables" in res.stderr
    assert all(t["sample_rows"] == [] for t in tables_by_id(out).values())


@pytest.mark.parametrize("spec, message", [
    ("{tmp}/missing.sqlite", "no such file or folder"),
    ("nosuchdialect://u:pw@host/db", "database nosuchdialect://u:\\*\\*\\*@host/db: NoSuchModuleError"),
    ("{tmp}/dbs/notes.txt", "not a SQLite file"),
    ("{tmp}/empty", "no SQLite files"),
])
def test_bad_sources_name_the_value(tmp_path: Path, spec: str, message: str) -> None:
    make_sqlite_tree(tmp_path)
    (tmp_path / "empty").mkdir()
    spec = spec.format(tmp=tmp_path)
    with pytest.raises(CatalogError, match=message) as e:
        import_catalog([spec], tmp_path / "out.json")
    assert ":pw@" not in str(e.value)
    assert "://" in spec or spec in str(e.value)
    assert not (tmp_path / "out.json").exists()


def assert_cannot_write(spec: str) -> None:
    """The importer's own connection refuses a write (SQLite: mode=ro; PostgreSQL: read-only transaction)."""
    import sqlalchemy as sa

    from retriever.index.catalog_import import _engine, read_only, resolve

    engine = _engine(resolve([spec])[0])
    try:
        with read_only(engine) as conn, pytest.raises(sa.exc.DBAPIError, match="read-only|readonly"):
            conn.execute(sa.text("CREATE TABLE intruder (x int)"))
    finally:
        engine.dispose()


def test_sqlite_importer_connection_cannot_write(tmp_path: Path) -> None:
    assert_cannot_write(str(make_sqlite_tree(tmp_path) / "shop.sqlite"))


def test_one_unreadable_table_is_skipped_with_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlalchemy as sa

    from retriever.index import catalog_read

    real = catalog_read._reflect

    def flaky(insp: Any, schema: str | None, name: str, is_view: bool) -> Any:
        if name == "employees":
            raise sa.exc.OperationalError("SELECT", {}, Exception("disk I/O error"))
        return real(insp, schema, name, is_view)

    monkeypatch.setattr(catalog_read, "_reflect", flaky)
    folder = make_sqlite_tree(tmp_path)
    logs: list[str] = []
    import_catalog([str(folder / "shop.sqlite")], tmp_path / "c.json", log=logs.append)
    assert "shop.employees" not in tables_by_id(tmp_path / "c.json")
    assert any("table 'employees' skipped" in m and "shop.sqlite" in m and "disk I/O error" in m for m in logs)


VIEW_SQL = """
CREATE VIEW "Big Orders" AS SELECT o.order_no, o.region, c."Full Name" AS customer, o.order_no * 2 AS doubled
    FROM "Orders" o JOIN "Customer Accounts" c ON c."Account ID" = o."Account ID" WHERE o.order_no > 10;
"""


def test_sqlite_view_is_a_table_without_keys_unless_no_views(tmp_path: Path) -> None:
    db_path = make_sqlite_tree(tmp_path) / "shop.sqlite"
    with sqlite3.connect(db_path) as db:
        db.executescript(VIEW_SQL)
    db.close()
    out = tmp_path / "c.json"
    assert "5 tables (1 of them views)" in import_catalog([str(db_path)], out)
    view = tables_by_id(out)["shop.Big Orders"]
    assert view == {"table_id": "shop.Big Orders", "group": "shop", "name": "Big Orders", "description": "",
                    "columns": [{"name": "order_no", "type": "INTEGER", "description": ""},
                                {"name": "region", "type": "TEXT", "description": ""},
                                {"name": "customer", "type": "TEXT", "description": ""},
                                {"name": "doubled", "type": "", "description": ""}],  # computed: no type
                    "primary_key": [], "sample_rows": [{"order_no": 11, "region": "south", "customer": "山田 太郎",
                                                        "doubled": 22}]}
    assert not any("Big Orders" in str(r) for r in json.loads(out.read_text(encoding="utf-8"))["relationships"])
    res = subprocess.run([sys.executable, "-m", "retriever", "catalog", "--from", str(db_path), "--out", str(out),
                          "--no-views"], cwd=ROOT, capture_output=True, text=True, env=sealed_env(tmp_path / "cache"),
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert "4 tables, " in res.stderr and "shop.Big Orders" not in tables_by_id(out)


def test_a_view_named_as_a_table_is_skipped_with_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQL forbids it, so the inspector is made to report one."""
    from retriever.index import catalog_read

    real = catalog_read._schemas

    def doubled(insp: Any, conn: Any, views: bool) -> dict[str | None, list[tuple[str, bool]]]:
        return {s: sorted([*names, ("employees", True)]) for s, names in real(insp, conn, views).items()}

    monkeypatch.setattr(catalog_read, "_schemas", doubled)
    logs: list[str] = []
    summary = import_catalog([str(make_sqlite_tree(tmp_path) / "shop.sqlite")], tmp_path / "c.json", log=logs.append)
    assert summary.startswith("1 database(s), 4 tables, ")
    assert tables_by_id(tmp_path / "c.json")["shop.employees"]["primary_key"] == ["id"]
    assert any("view 'employees' skipped: a table has its id 'shop.employees'" in m for m in logs), logs


def test_schemas_joined_by_foreign_keys_share_a_group() -> None:
    """Either direction, transitively; the others stay apart; a taken name gets a suffix."""
    used = {"d.x"}
    groups = _group_names("d", ["a", "b", "c", "x"], [("c", "b"), ("a", "b"), ("x", "gone")], used)
    assert groups == {"a": ("d.a+b+c", "d.a+b+c.a"), "b": ("d.a+b+c", "d.a+b+c.b"), "c": ("d.a+b+c", "d.a+b+c.c"),
                      "x": ("d.x_2", "d.x_2")}
    assert _group_names("e", ["a", "b"], [("b", "a")], used) == {"a": ("e", "e.a"), "b": ("e", "e.b")}
    assert _group_names("e", [None], [], used) == {None: ("e_2", "e_2")}
    assert used == {"d.x", "d.a+b+c", "d.x_2", "e", "e_2"}


def test_sample_values_and_password_scrubbing() -> None:
    assert sample_value(b"\x00") == (False, None) and sample_value(memoryview(b"a"))[0] is False
    assert sample_value("é" * 300) == (True, "é" * MAX_VALUE_CHARS)
    assert sample_value(float("nan")) == (True, "nan")
    assert sample_value(3) == (True, 3) and sample_value(None) == (True, None)
    assert scrub("password for p@ss:word and p%40ss%3Aword\nsecond line", "p@ss:word") == \
        "password for *** and ***"


# ---- PostgreSQL: a real server started for these tests ----------------------------------------------

PG_PASSWORD = "pg-Sup3r#secret"
READER_PASSWORD = "r3ader@pass:word"
PG_SETUP = """
CREATE TABLE public."Customer Accounts" ("Account ID" int PRIMARY KEY, "Full Name" text, city text, photo bytea);
COMMENT ON TABLE public."Customer Accounts" IS 'People who buy from the shop';
COMMENT ON COLUMN public."Customer Accounts".city IS 'Home town of the customer';
CREATE TABLE public.employees (id int PRIMARY KEY, name text, manager_id int REFERENCES public.employees(id));
CREATE SCHEMA sales;
CREATE TABLE sales."Orders" (order_no int, region text,
    "Account ID" int REFERENCES public."Customer Accounts"("Account ID"), PRIMARY KEY (order_no, region));
CREATE TABLE sales.shipments (id int PRIMARY KEY, order_no int, region text,
    shipped_by int REFERENCES public.employees(id), notes text,
    FOREIGN KEY (order_no, region) REFERENCES sales."Orders"(order_no, region));
CREATE TABLE sales.secret_prices (sku text PRIMARY KEY, price numeric(10, 2));
INSERT INTO public."Customer Accounts" VALUES (1, 'Zoë Ångström', 'Zürich', '\\x00ff'), (2, '山田 太郎', '東京', NULL);
INSERT INTO public.employees VALUES (1, 'Ada', NULL), (2, 'Grace', 1);
INSERT INTO sales."Orders" VALUES (10, 'north', 1), (11, 'south', 2);
INSERT INTO sales.secret_prices VALUES ('A-1', 9.99);
CREATE ROLE reader LOGIN PASSWORD '{reader}';
GRANT USAGE ON SCHEMA sales TO reader;
GRANT SELECT ON public."Customer Accounts", public.employees, sales."Orders", sales.shipments TO reader;
"""
#: Three schemas joined by keys (billing -> sales -> crm: both directions, transitively) and one on its own,
#: outside the default schema (public), which is empty; a view with a comment and one without; a materialized view
#: with rows and one never refreshed (no rows to read).
MART_SETUP = """
CREATE SCHEMA crm; CREATE SCHEMA sales; CREATE SCHEMA billing; CREATE SCHEMA audit;
CREATE TABLE crm.customers (customer_id int PRIMARY KEY, full_name text, city text);
CREATE TABLE sales.orders (order_id int PRIMARY KEY, customer_id int REFERENCES crm.customers, amount int);
CREATE TABLE billing.invoices (invoice_id int PRIMARY KEY, order_id int REFERENCES sales.orders, paid boolean);
CREATE TABLE audit.events (event_id int PRIMARY KEY, action text, actor text);
CREATE VIEW sales.large_orders AS SELECT order_id, customer_id, amount, amount * 2 AS doubled FROM sales.orders
    WHERE amount > 100;
COMMENT ON VIEW sales.large_orders IS 'Orders worth more than 100';
CREATE VIEW audit.recent_events AS SELECT action, actor FROM audit.events;
CREATE MATERIALIZED VIEW crm.city_counts AS SELECT city, count(*) AS customers FROM crm.customers GROUP BY city
    WITH NO DATA;
COMMENT ON MATERIALIZED VIEW crm.city_counts IS 'How many customers live in each city';
CREATE MATERIALIZED VIEW audit.unfilled AS SELECT actor FROM audit.events WITH NO DATA;
INSERT INTO crm.customers VALUES (1, 'Ada Lovelace', 'London'), (2, 'Grace Hopper', 'Arlington');
INSERT INTO sales.orders VALUES (10, 1, 50), (11, 2, 250);
INSERT INTO billing.invoices VALUES (100, 10, true);
INSERT INTO audit.events VALUES (1, 'login', 'ada');
REFRESH MATERIALIZED VIEW crm.city_counts;
"""
MART = "mart.billing+crm+sales"
PG_ROUND_TRIP = [
    ("List the region of every order with its shipments", {"shop.sales.Orders", "shop.sales.shipments"},
     [(("shop.sales.shipments", "order_no"), ("shop.sales.Orders", "order_no")),
      (("shop.sales.shipments", "region"), ("shop.sales.Orders", "region"))]),
    ("Which customers have their home town in Zürich?", {"shop.public.Customer Accounts"}, []),
]


@pytest.fixture(scope="module")
def pg() -> Iterator[Any]:
    pytest.importorskip("psycopg", reason="PostgreSQL tests need psycopg (requirements-dev.txt)")
    import pgserver
    import psycopg

    try:
        server = pgserver.start(PG_PASSWORD)
    except pgserver.Unavailable as e:
        pytest.skip(f"no PostgreSQL server for the import tests: {e}")
    try:
        with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", password=PG_PASSWORD,
                             dbname="postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE shop")
        with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", password=PG_PASSWORD,
                             dbname="shop", autocommit=True) as conn:
            conn.execute(PG_SETUP.replace("{reader}", READER_PASSWORD))  # type: ignore[arg-type]
            conn.execute("INSERT INTO sales.shipments VALUES (100, 10, 'north', 2, %s)", (LONG,))
            conn.execute("CREATE DATABASE mart")
        with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", password=PG_PASSWORD,
                             dbname="mart", autocommit=True) as conn:
            conn.execute(MART_SETUP)
        yield server
    finally:
        server.stop()


def reader_url(pg: Any, password: str = READER_PASSWORD) -> str:
    from urllib.parse import quote

    return f"postgresql://reader:{quote(password, safe='')}@127.0.0.1:{pg.port}/shop"


def test_postgres_import_schemas_keys_comments_and_odd_names(pg: Any, tmp_path: Path) -> None:
    out = tmp_path / "catalog.json"
    logs: list[str] = []
    import_catalog([reader_url(pg)], out, log=logs.append)
    t = tables_by_id(out)
    assert set(t) == {"shop.public.Customer Accounts", "shop.public.employees", "shop.sales.Orders",
                      "shop.sales.shipments", "shop.sales.secret_prices"}
    cust = t["shop.public.Customer Accounts"]
    # sales' keys point into public, so they are one group, and the whole database; sales' names say their schema
    assert {u["group"] for u in t.values()} == {"shop"}
    assert cust["name"] == "Customer Accounts" and t["shop.sales.Orders"]["name"] == "sales.Orders"
    assert cust["description"] == "People who buy from the shop"
    assert cust["columns"][2] == {"name": "city", "type": "TEXT", "description": "Home town of the customer"}
    assert cust["sample_rows"][0] == {"Account ID": 1, "Full Name": "Zoë Ångström", "city": "Zürich"}
    assert cust["sample_rows"][1]["city"] == "東京"
    assert t["shop.sales.shipments"]["sample_rows"][0]["notes"] == LONG[:MAX_VALUE_CHARS]
    # the table the reader may not select from keeps its schema, loses its rows, and is named in a warning
    assert t["shop.sales.secret_prices"]["sample_rows"] == []
    assert any("secret_prices" in m and "shop" in m for m in logs), logs
    rels = {join_key(r) for r in json.loads(out.read_text(encoding="utf-8"))["relationships"]}
    assert rels == {
        frozenset({("shop.public.employees", "manager_id"), ("shop.public.employees", "id")}),
        frozenset({("shop.sales.Orders", "Account ID"), ("shop.public.Customer Accounts", "Account ID")}),
        frozenset({("shop.sales.shipments", "order_no"), ("shop.sales.Orders", "order_no")}),
        frozenset({("shop.sales.shipments", "region"), ("shop.sales.Orders", "region")}),
        frozenset({("shop.sales.shipments", "shipped_by"), ("shop.public.employees", "id")}),
    }
    text = out.read_text(encoding="utf-8") + "\n".join(logs)
    assert READER_PASSWORD not in text and "r3ader%40pass" not in text


def test_postgres_schemas_joined_by_keys_share_a_group_and_plans_join_across_them(pg: Any, tmp_path: Path) -> None:
    out = tmp_path / "catalog.json"
    logs: list[str] = []
    assert "8 tables (4 of them views)" in import_catalog([pg.url("mart", PG_PASSWORD)], out, log=logs.append)
    t = tables_by_id(out)
    assert {tid: (u["group"], u["name"]) for tid, u in t.items()} == {
        f"{MART}.crm.customers": (MART, "crm.customers"),
        f"{MART}.sales.orders": (MART, "sales.orders"),
        f"{MART}.sales.large_orders": (MART, "sales.large_orders"),
        f"{MART}.crm.city_counts": (MART, "crm.city_counts"),
        "mart.audit.unfilled": ("mart.audit", "audit.unfilled"),
        f"{MART}.billing.invoices": (MART, "billing.invoices"),
        "mart.audit.events": ("mart.audit", "audit.events"),
        "mart.audit.recent_events": ("mart.audit", "audit.recent_events"),
    }
    view = t[f"{MART}.sales.large_orders"]
    assert view["description"] == "Orders worth more than 100" and view["primary_key"] == []
    assert [(c["name"], c["type"]) for c in view["columns"]] == [
        ("order_id", "INTEGER"), ("customer_id", "INTEGER"), ("amount", "INTEGER"), ("doubled", "INTEGER")]
    assert view["sample_rows"] == [{"order_id": 11, "customer_id": 2, "amount": 250, "doubled": 500}]
    assert t["mart.audit.recent_events"]["sample_rows"] == [{"action": "login", "actor": "ada"}]
    counts = t[f"{MART}.crm.city_counts"]
    assert counts["description"] == "How many customers live in each city" and counts["primary_key"] == []
    assert [c["name"] for c in counts["columns"]] == ["city", "customers"]
    assert sorted(r["city"] for r in counts["sample_rows"]) == ["Arlington", "London"]
    # a materialized view never refreshed cannot be read: it keeps its columns, loses its rows, and says so
    assert t["mart.audit.unfilled"]["sample_rows"] == [] and t["mart.audit.unfilled"]["columns"]
    assert any("audit.unfilled" in m and "no sample rows" in m for m in logs), logs
    catalog = load_catalog(out)
    assert not catalog.warnings
    assert {r.key() for r in catalog.relationships} == {
        frozenset({(f"{MART}.sales.orders", "customer_id"), (f"{MART}.crm.customers", "customer_id")}),
        frozenset({(f"{MART}.billing.invoices", "order_id"), (f"{MART}.sales.orders", "order_id")}),
    }
    build_index(catalog, tmp_path / "idx", log=lambda _m: None)
    a = Retriever.open(tmp_path / "idx", Settings(local_model=False)).search(
        "What is the total order amount of the customers in each city?")
    assert {f"{MART}.sales.orders", f"{MART}.crm.customers"} <= set(a.table_ids), a.table_ids
    assert frozenset({(f"{MART}.sales.orders", "customer_id"), (f"{MART}.crm.customers", "customer_id")}) in {
        join_key(j) for j in a.joins}, a.joins


def test_postgres_importer_connection_cannot_write(pg: Any) -> None:
    assert_cannot_write(pg.url("shop", PG_PASSWORD))


def test_postgres_round_trip_through_build_sh(pg: Any, tmp_path: Path) -> None:
    out = tmp_path / "catalog.json"
    import_catalog([reader_url(pg)], out)
    build_and_ask(out, tmp_path, PG_ROUND_TRIP)


def test_postgres_cli_never_shows_the_password(pg: Any, tmp_path: Path) -> None:
    env = sealed_env(tmp_path / "cache")
    good = subprocess.run([sys.executable, "-m", "retriever", "catalog", "--from", reader_url(pg),
                           "--out", str(tmp_path / "c.json")], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=120)
    assert good.returncode == 0, good.stderr
    assert "reader:***@127.0.0.1" in good.stderr
    bad = subprocess.run([sys.executable, "-m", "retriever", "catalog", "--from", reader_url(pg, "wrong#pw!"),
                          "--out", str(tmp_path / "d.json")], cwd=ROOT, capture_output=True, text=True, env=env,
                         timeout=120)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "database postgresql+psycopg://reader:***@127.0.0.1" in bad.stderr and "authentication" in bad.stderr
    for res in (good, bad):
        for secret in (READER_PASSWORD, "r3ader%40pass", "wrong#pw!", "wrong%23pw"):
            assert secret not in res.stdout + res.stderr
    assert not (tmp_path / "d.json").exists()
