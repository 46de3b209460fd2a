"""The Python API, prompt-ready output (DDL, JSON, text) and the low-evidence warning, on the demo catalog."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_CATALOG, ROOT, sealed_env

from retriever import Retriever, SearchResult
from retriever.answer.assess import DENSE_FLOOR, summarize_evidence
from retriever.answer.ddl import quote_ident, quote_table
from retriever.answer.explain import LEGEND
from retriever.config import Settings
from retriever.errors import ConfigError
from retriever.index.build import build_index
from retriever.index.catalog import load_catalog
from retriever.query import reading
from retriever.query.reading import READINGS_KEPT, Reader

REAL = "Show names for all aircrafts of which John Williams has certificates."
NONSENSE = "purple monkey dishwasher banana quantum"


@pytest.fixture(scope="module")
def retriever(mini_index_dir: Path) -> Retriever:
    return Retriever.open(mini_index_dir, Settings(local_model=False))


def readme_block(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, f"README section {heading!r} has no python block"
    return match.group(1)


def test_readme_python_api_example_runs(mini_index_dir: Path) -> None:
    code = readme_block("Python API")
    assert 'Retriever.open("build/demo-index")' in code
    code = code.replace('"build/demo-index"', repr(str(mini_index_dir)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example, by design
    printed = out.getvalue()
    assert "flight_1.certificate" in printed and "CREATE TABLE certificate (" in printed
    assert "confidence" in printed and "legend:" in printed


def test_search_orders_tables_by_relevance_and_matches_the_planner(retriever: Retriever) -> None:
    a = retriever.search(REAL)
    assert isinstance(a, SearchResult)
    probs = [t.probability for t in a.tables]
    assert probs == sorted(probs, reverse=True)
    assert list(a.table_ids) == [t.table_id for t in a.tables]
    assert a.table_ids[0] == "flight_1.certificate"
    plain = retriever.planner.answer(REAL)
    assert set(a.table_ids) == set(plain.table_ids) and list(a.joins) == plain.joins
    assert a.confidence == pytest.approx(plain.confidence)
    assert {"flight_1.certificate", "flight_1.aircraft", "flight_1.employee"} <= set(a.table_ids)


def test_low_evidence_for_nonsense_not_for_a_real_question(retriever: Retriever) -> None:
    bad, good = retriever.search(NONSENSE), retriever.search(REAL)
    assert bad.low_evidence and not good.low_evidence
    assert bad.evidence.matched_terms == () and "certif" in good.evidence.matched_terms
    assert "low evidence" in bad.explain() and "low evidence" in bad.ddl()
    assert json.loads(bad.render("json"))["low_evidence"] is True
    assert "WARNING" not in good.explain() and json.loads(good.render("json"))["warning"] == ""
    with pytest.raises(ConfigError, match="'yaml' is not one of text, json, ddl"):
        good.render("yaml")


def test_dense_similarity_above_the_floor_counts_as_evidence(retriever: Retriever) -> None:
    ev = retriever.search(NONSENSE).answer.evidence
    assert ev is not None
    n = retriever.planner.layout.n_tables
    weak = replace(ev, scores={**ev.scores, "dense_tables:local": np.full(n, DENSE_FLOOR - 0.1, np.float32)})
    strong = replace(ev, scores={**ev.scores, "dense_tables:local": np.full(n, DENSE_FLOOR + 0.1, np.float32)})
    assert summarize_evidence(weak).low and not summarize_evidence(strong).low
    assert "local 0.25" in summarize_evidence(weak).warning()


def test_the_text_output_says_what_was_read_where_it_is_not_the_question(retriever: Retriever) -> None:
    """The request around a question is cut and a question typed without capitals gets its names' capitals
    (index/casing.py, where the index has WordNet's); the user sees the text the channels read."""
    assert "read as:" not in retriever.search(REAL).explain().split("\nlegend:\n")[0]
    wrapped = retriever.search(f"Write a SQL query to answer this question: {REAL}").explain()
    assert f"read as: {REAL}" in wrapped.split("\nlegend:\n")[0]
    lower = retriever.search(REAL.lower()).explain().split("\nlegend:\n")[0]
    if retriever.index.casing.words:  # "john" is also a word, but before WordNet's "Williams" a first name
        assert "read as: show names for all aircrafts of which John Williams has certificates." in lower
    else:
        assert "read as:" not in lower


def test_a_question_is_read_once_between_the_query_embedding_and_the_planner(
        retriever: Retriever, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = reading.read
    monkeypatch.setattr(reading, "read", lambda q, people, casing: calls.append(q) or real(q, people, casing))
    question = "How many certificates does each employee hold? (a question no other test asks)"
    first = retriever.search(question)
    assert calls == [question]
    again = Reader(retriever.index.people, retriever.index.casing)
    assert [again(question), again(question)] == [real(question, retriever.index.people, retriever.index.casing)] * 2
    assert calls == [question, question] and first.explain()  # a reader of its own reads it once more
    for i in range(READINGS_KEPT + 5):
        again(f"question {i}")
    assert len(again._kept) == READINGS_KEPT and "question 0" not in again._kept  # the oldest go


def test_text_output_has_a_legend_for_every_term_it_prints(retriever: Retriever) -> None:
    text = retriever.search(REAL).explain()
    body, legend = text.split("\nlegend:\n")
    for term in ("confidence", "groups", "question terms", "p=", "plan of", "terms", "values", "name match",
                 "ranks", "relevance", "plan mass", "quoted value"):
        assert term in body
        assert any(term in key for key, _ in LEGEND), term
    assert "1. flight_1.certificate  p=" in body


def test_ddl_is_valid_sql_in_relevance_order_with_chosen_joins(retriever: Retriever) -> None:
    a = retriever.search(REAL)
    ddl = a.ddl()
    names = re.findall(r"^CREATE TABLE (\S+) \(", ddl, re.M)
    assert names == [t.name for t in a.tables]
    for j in a.joins:
        left = retriever.index.catalog.tables[retriever.table_pos[j["left_table"]]]
        right = retriever.index.catalog.tables[retriever.table_pos[j["right_table"]]]
        assert f"FOREIGN KEY ({j['left_column']}) REFERENCES {right.name} ({j['right_column']})" in ddl, left
    assert "'John Williams'" in ddl and "PRIMARY KEY (eid)" in ddl
    for stmt in ddl.split(");\n")[:-1]:  # each statement alone: table names repeat across databases
        sqlite3.connect(":memory:").execute(stmt + ");")


def test_ddl_quotes_odd_identifiers(tmp_path: Path) -> None:
    cat = {"tables": [{"table_id": "d.Order Lines", "group": "d", "name": "Order Lines",
                       "columns": [{"name": "select", "type": "int"}, {"name": 'say "hi"', "type": "text"}],
                       "primary_key": ["select"], "sample_rows": [{"select": 1, 'say "hi"': "it's"}]}]}
    (tmp_path / "c.json").write_text(json.dumps(cat), encoding="utf-8")
    build_index(load_catalog(tmp_path / "c.json"), tmp_path / "idx", log=lambda _m: None)
    ddl = Retriever.open(tmp_path / "idx", Settings(local_model=False)).search("order lines").ddl()
    assert 'CREATE TABLE "Order Lines" (' in ddl and '"say ""hi""" text,  -- e.g. \'it\'\'s\'' in ddl
    sqlite3.connect(":memory:").execute(ddl.split(");\n")[0] + ");")
    assert quote_ident("plain_name") == "plain_name" and quote_ident("group") == '"group"'
    assert quote_ident("Singer_ID") == '"Singer_ID"', "PostgreSQL would fold it to singer_id"
    # A schema-qualified name stays qualified; a dotted name of other words is one identifier.
    assert quote_table("crm.customers") == "crm.customers" and quote_table("sales.order") == 'sales."order"'
    assert quote_table("sales.Orders") == 'sales."Orders"'
    assert quote_table("my table.v2 x") == '"my table.v2 x"' and quote_table("a.b.c") == '"a.b.c"'


def test_index_folder_is_readable_by_others_under_the_usual_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        build_index(load_catalog(MINI_CATALOG), tmp_path / "idx", log=lambda _m: None)
    finally:
        os.umask(old)
    modes = {p.stat().st_mode & 0o777 for p in [tmp_path / "idx", *(tmp_path / "idx").rglob("*")]}
    assert modes <= {0o755, 0o644} and 0o755 in modes


@pytest.mark.parametrize("fmt", ["json", "ddl", "text"])
def test_cli_query_formats(mini_index_dir: Path, tmp_path: Path, fmt: str) -> None:
    res = subprocess.run([sys.executable, "-m", "retriever", "query", "--index-dir", str(mini_index_dir),
                          "--format", fmt, REAL], cwd=ROOT, capture_output=True, text=True,
                         env=sealed_env(tmp_path / "cache"), timeout=120)
    assert res.returncode == 0, res.stderr
    first = {"json": '{\n  "question"', "ddl": "-- Tables for: Show names", "text": "confidence "}[fmt]
    assert res.stdout.startswith(first)
    if fmt == "json":
        assert json.loads(res.stdout)["table_ids"][0] == "flight_1.certificate"


def test_an_index_without_the_local_channel_never_loads_the_model(mini_index_dir: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Retriever.open loads the local model beside the index only when the index records its channel."""
    from retriever import api

    loads: list[str] = []
    monkeypatch.setattr(api, "local_embedder", lambda _settings: loads.append("api"))
    monkeypatch.setattr("retriever.runtime.local_embedder", lambda _settings: loads.append("runtime"))
    r = Retriever.open(mini_index_dir, Settings(cache_dir=mini_index_dir.parent / "cache"))
    assert r.search("How many singers are there?").table_ids and loads == []
