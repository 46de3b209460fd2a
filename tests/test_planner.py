"""Planner behaviour on a hand-made two-group catalog, plan enumeration, and rank fusion."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import MINI_CATALOG, MINI_DIR, catalog_keys, covered, join_key, read_jsonl, validate_answer

from retriever.embedders.interface import HashEmbedder
from retriever.index.build import build_index
from retriever.index.catalog import load_catalog, parse_catalog
from retriever.index.links import links_from
from retriever.index.store import Index, load_index
from retriever.query.features import IMPLIED, PLAN_FEATURES, ROUTE_FEATURES, route_features
from retriever.query.fusion import ranks, rrf
from retriever.query.model import SoftmaxModel
from retriever.query.planner import Answer, Options, Planner, default_models, switches
from retriever.query.plans import (
    MAX_PLAN_TABLES,
    MAX_PLANS,
    POOL_SIZE,
    Plan,
    enumerate_plans,
    plan_pool,
)


def _col(name: str, type_: str = "text", desc: str = "") -> dict[str, str]:
    return {"name": name, "type": type_, "description": desc}


def _rel(lt: str, lc: str, rt: str, rc: str) -> dict[str, str]:
    return {"left_table": lt, "left_column": lc, "right_table": rt, "right_column": rc}


def _table(tid: str, description: str, columns: list[dict[str, str]], pk: list[str],
           rows: list[dict[str, Any]]) -> dict[str, Any]:
    group, name = tid.split(".")
    return {"table_id": tid, "group": group, "name": name, "description": description, "columns": columns,
            "primary_key": pk, "sample_rows": rows}


NUM = "number"
#: Two groups, both with a `people` table and `person_id`/`name` columns; known FK graph and sample rows.
CATALOG: dict[str, Any] = {
    "tables": [
        _table("school.students", "students",
               [_col("student_id", NUM), _col("first_name"), _col("last_name"), _col("major")],
               ["student_id"],
               [{"student_id": 1, "first_name": "Ada", "last_name": "Lovelace", "major": "Mathematics"},
                {"student_id": 2, "first_name": "Alan", "last_name": "Turing", "major": "Computer Science"}]),
        _table("school.courses", "courses",
               [_col("course_id", NUM), _col("title"), _col("credits", NUM), _col("teacher_id", NUM)],
               ["course_id"],
               [{"course_id": 10, "title": "Linear Algebra", "credits": 5, "teacher_id": 7},
                {"course_id": 11, "title": "Organic Chemistry", "credits": 4, "teacher_id": 8}]),
        _table("school.enrollment", "enrollment",
               [_col("student_id", NUM), _col("course_id", NUM), _col("grade")], ["student_id", "course_id"],
               [{"student_id": 1, "course_id": 10, "grade": "A"}]),
        _table("school.people", "teachers and staff",
               [_col("person_id", NUM), _col("name"), _col("office")], ["person_id"],
               [{"person_id": 7, "name": "Grace Hopper", "office": "B-204"}]),
        _table("shop.people", "customers",
               [_col("person_id", NUM), _col("name"), _col("city")], ["person_id"],
               [{"person_id": 1, "name": "Linus Pauling", "city": "Portland"}]),
        _table("shop.orders", "orders",
               [_col("order_id", NUM), _col("person_id", NUM), _col("product_id", NUM), _col("quantity", NUM),
                _col("order_date", "time")], ["order_id"],
               [{"order_id": 100, "person_id": 1, "product_id": 5, "quantity": 2,
                 "order_date": "2024-01-05"}]),
        _table("shop.products", "products",
               [_col("product_id", NUM), _col("product_name"), _col("price", NUM), _col("supplier_id", NUM)],
               ["product_id"],
               [{"product_id": 5, "product_name": "Espresso Machine", "price": 199, "supplier_id": 3}]),
        _table("shop.suppliers", "suppliers",
               [_col("supplier_id", NUM), _col("supplier_name"), _col("country")], ["supplier_id"],
               [{"supplier_id": 3, "supplier_name": "Kaffeewerk", "country": "Netherlands"}]),
    ],
    "relationships": [
        _rel("school.enrollment", "student_id", "school.students", "student_id"),
        _rel("school.enrollment", "course_id", "school.courses", "course_id"),
        _rel("school.courses", "teacher_id", "school.people", "person_id"),
        _rel("shop.orders", "person_id", "shop.people", "person_id"),
        _rel("shop.orders", "product_id", "shop.products", "product_id"),
        _rel("shop.products", "supplier_id", "shop.suppliers", "supplier_id"),
    ],
}
GROUP_TABLES = {g: {t["table_id"] for t in CATALOG["tables"] if t["group"] == g} for g in ("school", "shop")}
ENROLL_STUDENT, ENROLL_COURSE, COURSE_TEACHER, ORDER_PERSON, ORDER_PRODUCT, PRODUCT_SUPPLIER = (
    join_key(r) for r in CATALOG["relationships"])


@pytest.fixture(scope="module")
def planner(tmp_path_factory: pytest.TempPathFactory) -> Planner:
    index_dir = tmp_path_factory.mktemp("handmade") / "index"
    build_index(parse_catalog(CATALOG), index_dir, dense=None, log=lambda _m: None)
    return Planner(load_index(index_dir), default_models())


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[set[str], set[Any]]:
    path = tmp_path_factory.mktemp("handmade-cat") / "catalog.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return catalog_keys(path)


def _checked(ans: Answer, keys: tuple[set[str], set[Any]]) -> tuple[set[str], set[Any]]:
    """Validate the answer by the verifier's rules (via its JSON line) and return (ids, join keys)."""
    line = json.dumps({"query_id": "q", "table_ids": ans.table_ids, "joins": ans.joins}).encode() + b"\n"
    return validate_answer(line, "q", *keys)


def _top_group(ans: Answer) -> str:
    return max(ans.group_probs, key=lambda g: ans.group_probs[g])


# --- planner behaviour ---------------------------------------------------------------------------------


@pytest.mark.parametrize("question", [
    "Which students take which courses?",
    "List the names of students and the titles of the courses they are enrolled in.",
])
def test_students_and_courses_bring_the_bridge_and_both_joins(planner: Planner, keys: Any,
                                                               question: str) -> None:
    ans = planner.answer(question)
    ids, jkeys = _checked(ans, keys)
    assert {"school.students", "school.courses", "school.enrollment"} <= ids
    assert {ENROLL_STUDENT, ENROLL_COURSE} <= jkeys
    assert _top_group(ans) == "school"


@pytest.mark.parametrize(("question", "group", "table"), [
    ("Who bought an Espresso Machine?", "shop", "shop.products"),
    ("Which ones are from the Netherlands?", "shop", "shop.suppliers"),
    ("Which ones are supplied by Kaffeewerk?", "shop", "shop.suppliers"),
    ("Who teaches Linear Algebra?", "school", "school.courses"),
    ("What is Ada Lovelace majoring in?", "school", "school.students"),
])
def test_quoted_sample_value_routes_to_its_group(planner: Planner, keys: Any, question: str, group: str,
                                                 table: str) -> None:
    ans = planner.answer(question)
    ids, _ = _checked(ans, keys)
    assert _top_group(ans) == group
    assert table in ids
    assert len(ids & GROUP_TABLES[group]) >= 4, ids


def test_shared_table_name_resolved_by_the_rest_of_the_question(planner: Planner, keys: Any) -> None:
    ans = planner.answer("How many orders has each person placed?")
    ids, jkeys = _checked(ans, keys)
    assert {"shop.orders", "shop.people"} <= ids
    assert ORDER_PERSON in jkeys
    ans = planner.answer("Which teacher teaches each course?")
    ids, jkeys = _checked(ans, keys)
    assert {"school.courses", "school.people"} <= ids
    assert COURSE_TEACHER in jkeys


@pytest.mark.parametrize("question", [
    "", "   ", "?", "How many people are there?", "zzzz qqqq", "students orders suppliers courses", "ß" * 500,
    "Espresso Machine Linear Algebra Portland Netherlands",
])
def test_every_answer_is_valid(planner: Planner, keys: Any, question: str) -> None:
    ans = planner.answer(question)
    ids, jkeys = _checked(ans, keys)
    assert len(ids) == 5 and len(ans.table_ids) == 5
    assert len(jkeys) == len(ans.joins) <= 6


def test_answer_is_deterministic(planner: Planner) -> None:
    q = "List the names of students and the titles of the courses they are enrolled in."
    first = planner.answer(q)
    again = planner.answer(q)
    assert (first.table_ids, first.joins) == (again.table_ids, again.joins)


def test_small_catalog_answers_every_table(tmp_path: Path) -> None:
    cat = {"tables": [{"table_id": "g.a", "columns": ["x"]}, {"table_id": "g.b", "columns": ["x"]},
                      {"table_id": "h.c", "columns": ["y"]}],
           "relationships": [_rel("g.a", "x", "g.b", "x")]}
    build_index(parse_catalog(cat), tmp_path / "idx", log=lambda _m: None)
    ans = Planner(load_index(tmp_path / "idx"), default_models()).answer("a and b")
    assert sorted(ans.table_ids) == ["g.a", "g.b", "h.c"]
    assert ans.joins == [_rel("g.a", "x", "g.b", "x")]


#: A cricket database whose five tables hold nine relationships, four of them alternatives from `Match` to
#: the same column of `Team`: more than an answer may return.
CRICKET: dict[str, Any] = {
    "tables": [
        _table("cricket.Match", "match", [_col("Match_Id", NUM), _col("Team_1", NUM), _col("Team_2", NUM),
               _col("Toss_Winner", NUM), _col("Match_Winner", NUM), _col("Venue_Id", NUM),
               _col("Man_of_the_Match", NUM), _col("Match_Date", "time")], ["Match_Id"], []),
        _table("cricket.Team", "team", [_col("Team_Id", NUM), _col("Team_Name")], ["Team_Id"], []),
        _table("cricket.Player", "player", [_col("Player_Id", NUM), _col("Player_Name")], ["Player_Id"], []),
        _table("cricket.Player_Match", "player match", [_col("Match_Id", NUM), _col("Player_Id", NUM),
               _col("Team_Id", NUM)], ["Match_Id", "Player_Id"], []),
        _table("cricket.Venue", "venue", [_col("Venue_Id", NUM), _col("Venue_Name")], ["Venue_Id"], []),
    ],
    "relationships": [
        *(_rel("cricket.Match", c, "cricket.Team", "Team_Id")
          for c in ("Team_1", "Team_2", "Toss_Winner", "Match_Winner")),
        _rel("cricket.Match", "Venue_Id", "cricket.Venue", "Venue_Id"),
        _rel("cricket.Match", "Man_of_the_Match", "cricket.Player", "Player_Id"),
        _rel("cricket.Player_Match", "Match_Id", "cricket.Match", "Match_Id"),
        _rel("cricket.Player_Match", "Player_Id", "cricket.Player", "Player_Id"),
        _rel("cricket.Player_Match", "Team_Id", "cricket.Team", "Team_Id"),
    ],
}


@pytest.mark.parametrize(("question", "column"), [
    ("Which team won the toss in the match at the Eden Gardens venue?", "Toss_Winner"),
    ("List the players of the first team in each match.", "Team_1"),
    ("Which players played for the second team of the match?", "Team_2"),
])
def test_past_the_join_cap_the_alternative_the_question_says_is_answered(
        tmp_path: Path, question: str, column: str) -> None:
    build_index(parse_catalog(CRICKET), tmp_path / "idx", dense=None, log=lambda _m: None)
    ans = Planner(load_index(tmp_path / "idx"), default_models()).answer(question)
    assert len(ans.table_ids) == 5 and len(ans.joins) == 6
    got = {(j["left_table"], j["left_column"]) for j in ans.joins}
    assert ("cricket.Match", column) in got
    # One alternative of four is answered before the other three, so the other pairs keep their joins.
    team = {c for t, c in got if t == "cricket.Match"} & {"Team_1", "Team_2", "Toss_Winner", "Match_Winner"}
    assert len(team) < 4


def test_lookup_tables_are_small_and_related(tmp_path: Path) -> None:
    cat = {**CRICKET, "tables": [*CRICKET["tables"], _table("cricket.Notes", "notes", [_col("Note")], [], [])]}
    build_index(parse_catalog(cat), tmp_path / "idx", dense=None, log=lambda _m: None)
    planner = Planner(load_index(tmp_path / "idx"), default_models())
    names = [t.name for t in planner.index.catalog.tables]
    # Match is wide; Notes is small but related to nothing: neither is a lookup.
    assert {n for n, k in zip(names, planner.lookups.tolist(), strict=True) if k} == {
        "Team", "Player", "Player_Match", "Venue"}


def test_mini_spider_questions_in_process(mini_index: Index) -> None:
    """The attributed Spider subset: valid answers, gold plans covered, shared names kept apart."""
    planner = Planner(mini_index, default_models())
    keys = catalog_keys(MINI_CATALOG)
    labels = {row["query_id"]: row for row in read_jsonl(MINI_DIR / "labels.jsonl")}
    hits = 0
    for q in read_jsonl(MINI_DIR / "queries.jsonl"):
        ids, jkeys = _checked(planner.answer(q["question"]), keys)
        hits += covered(labels[q["query_id"]]["plans"], ids, jkeys)
    assert hits >= 0.8 * len(labels), f"{hits}/{len(labels)}"
    ans = planner.answer("Show the names of people and the number of times they have been on the affirmative "
                         "side of debates.")
    assert {"debate.people", "debate.debate_people"} <= set(ans.table_ids)
    assert _top_group(ans) == "debate"


def test_every_ablation_switch_still_answers_validly(tmp_path: Path) -> None:
    """eval --ablate switches each of these off in turn: none may break the pipeline."""
    fake = HashEmbedder(dim=32, name="fake")
    index_dir = tmp_path / "index"
    build_index(load_catalog(MINI_CATALOG), index_dir, dense={"local": fake}, log=lambda _m: None)
    planner = Planner(load_index(index_dir), default_models())
    keys = catalog_keys(MINI_CATALOG)
    names = switches(planner.index.channels)
    assert "dense:local" in names and "values" in names and "cov_all" in names
    question = "Show the names of people and the number of times they have been on the affirmative side"
    vectors = {"local": fake.embed([question], "query")[0]}
    for name in names:
        off = frozenset([name])
        _checked(planner.answer(question, vectors, Options(disabled_channels=off, disabled_features=off)), keys)


# --- plan enumeration ----------------------------------------------------------------------------------


def test_enumerate_plans_connected_subsets_and_unjoined_pairs() -> None:
    # 0 -r0- 1 =r1,r2= 2 ; 3 isolated ; 4 -r3- 5 outside the pool.
    g = links_from([(0, 1, 0), (1, 2, 1), (1, 2, 2), (4, 5, 3)])
    relevance = np.array([0.9, 0.1, 0.5, 0.8, 0.0, 0.0])
    plans = enumerate_plans(7, [0, 1, 2, 3], relevance, g)
    connected = {p.tables: p.joins for p in plans if p.connected}
    assert connected == {(0,): (), (1,): (), (2,): (), (3,): (), (0, 1): (0,), (1, 2): (1, 2),
                         (0, 1, 2): (0, 1, 2)}
    unjoined = {p.tables for p in plans if not p.connected}
    assert unjoined == {(0, 2), (0, 3), (1, 3), (2, 3)}
    assert all(p.joins == () for p in plans if not p.connected)
    assert all(p.group == 7 for p in plans)
    assert len({p.tables for p in plans}) == len(plans)


def test_enumerate_plans_caps_plan_size() -> None:
    g = links_from([(i, i + 1, i) for i in range(5)])
    plans = enumerate_plans(0, list(range(6)), np.ones(6), g)
    assert max(len(p.tables) for p in plans) == MAX_PLAN_TABLES
    chains = [p for p in plans if p.connected and len(p.tables) == MAX_PLAN_TABLES]
    m = MAX_PLAN_TABLES
    assert {p.tables for p in chains} == {tuple(range(i, i + m)) for i in range(6 - m + 1)}
    assert Plan(0, tuple(range(m)), tuple(range(m - 1)), True) in chains


def test_plan_pool_adds_bridges_between_top_tables() -> None:
    n = POOL_SIZE + 5
    # A chain 0-1-...-(n-1); the two ends of a 3-edge stretch are the most relevant.
    g = links_from([(i, i + 1, i) for i in range(n - 1)])
    relevance = np.full(n, 0.1)
    relevance[[1, 2]] = 0.0
    relevance[[0, 3]] = 1.0
    relevance[n - (POOL_SIZE - 2):] = 0.5
    pool = plan_pool(list(range(n)), relevance, g)
    assert {1, 2} <= set(pool), "bridge 0-1-2-3 between two top tables"
    assert not {4, 5, 6} & set(pool), "a path of more than MAX_BRIDGE_EDGES is no bridge"
    assert len(pool) == POOL_SIZE + 2
    assert pool == sorted(pool)
    small = plan_pool([4, 2, 9], relevance, g)
    assert small == [2, 4, 9]


# --- rank fusion ---------------------------------------------------------------------------------------


def test_ranks_ties_by_position_and_zero_scores_unranked() -> None:
    r = ranks(np.array([0.5, 0.9, 0.5, 0.0, -1.0, 0.5]))
    assert r.tolist() == [2, 1, 3, 0, 0, 4]
    assert ranks(np.zeros(4)).tolist() == [0, 0, 0, 0]


def test_ranks_depth_cuts_the_tail() -> None:
    r = ranks(np.array([1.0, 5.0, 3.0, 4.0, 2.0]), depth=3)
    assert r.tolist() == [0, 1, 3, 2, 0]


def test_ranks_ties_by_position_at_the_depth_cut() -> None:
    r = ranks(np.ones(400), depth=300)
    assert r[:300].tolist() == list(range(1, 301))
    assert not r[300:].any()


def test_rrf_sums_reciprocal_ranks() -> None:
    a = np.array([3.0, 0.0, 1.0])
    b = np.array([0.0, 2.0, 5.0])
    fused = rrf([a, b], k=10)
    expected = [1 / 11, 1 / 12, 1 / 12 + 1 / 11]
    assert np.allclose(fused, expected)
    assert fused.dtype == np.float32
    assert int(np.argmax(fused)) == 2


def test_rrf_needs_a_channel_and_ignores_unranked_items() -> None:
    with pytest.raises(ValueError):
        rrf([])
    assert rrf([np.zeros(3), -np.ones(3)]).tolist() == [0.0, 0.0, 0.0]


def test_one_huge_group_stays_bounded(tmp_path: Path) -> None:
    """A warehouse schema: one group of 600 tables around a hub, a question word a sample value of 150.
    Every such table is value-matched; uncapped, they all joined the pool and enumeration exploded."""
    words = ["order", "customer", "invoice", "payment"]
    tables = [{"table_id": f"dw.{words[i % 4]}_{i}", "group": "dw", "name": f"{words[i % 4]}_{i}",
               "columns": ["id", "hub_id", "peer_id", "kind"], "sample_rows": [{"id": i, "kind": words[i % 4]}]}
              for i in range(600)]
    rels = [{"left_table": t["table_id"], "left_column": "hub_id", "right_table": "dw.order_0", "right_column": "id"}
            for t in tables[1:]]
    rels += [{"left_table": tables[i]["table_id"], "left_column": "peer_id",
              "right_table": tables[(i * 7) % 600]["table_id"], "right_column": "id"} for i in range(1, 600)]
    catalog = {"tables": tables, "relationships": rels}
    build_index(parse_catalog(catalog), tmp_path / "index", log=lambda _m: None)
    planner = Planner(load_index(tmp_path / "index"), default_models())
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    keys = catalog_keys(path)
    for question in ["order", "total payment of each customer order", "invoices"]:
        ans = planner.answer(question)
        _checked(ans, keys)
        assert 0 < len(ans.plans) <= MAX_PLANS


# --- routing by plans ----------------------------------------------------------------------------------


def test_the_route_model_deals_the_competing_groups_mass_by_their_plans(tmp_path: Path) -> None:
    fake = HashEmbedder(dim=32, name="fake")
    index_dir = tmp_path / "index"
    build_index(parse_catalog(CATALOG), index_dir, dense={"local": fake}, log=lambda _m: None)
    shipped = default_models()
    planner = Planner(load_index(index_dir), replace(shipped, route=None))
    question = "What are the names of the people?"  # both groups have a `people` table
    vectors = {"local": fake.embed([question], "query")[0]}
    ev = planner.evidence(question, vectors, Options())
    gp, competing = planner.competing(ev, Options())
    assert len(competing) == 2
    base = planner.decide(ev, Options())

    def routed(weights: list[float]) -> Answer:
        n = len(ROUTE_FEATURES)
        model = SoftmaxModel(ROUTE_FEATURES, np.asarray(weights), np.zeros(n), np.ones(n))
        return planner.with_models(replace(shipped, route=model)).decide(ev, Options())

    # Weight on the group model's log-probability alone deals the mass out as it was.
    same = routed([1.0, 0.0, 0.0, 0.0])
    assert same.group_probs == pytest.approx(base.group_probs) and same.table_ids == base.table_ids
    # Weight on the best plan alone hands the competing mass to the group whose best plan scores highest.
    best = max(competing, key=lambda c: float(c[2].max()))[0]
    by_plans = routed([0.0, 0.0, 50.0, 0.0])
    assert _top_group(by_plans) == planner.index.groups[best]
    assert sum(by_plans.group_probs.values()) == pytest.approx(sum(float(gp[g]) for g, _, _ in competing))
    # ... and turned around, to the other: whichever way the group model leant, one of the two moved it.
    worst = min(competing, key=lambda c: float(c[2].max()))[0]
    assert worst != best and _top_group(routed([0.0, 0.0, -50.0, 0.0])) == planner.index.groups[worst]


def test_routing_reads_the_plan_logits_without_the_implied_link_term(tmp_path: Path) -> None:
    """A database that declares no keys has only implied plans, which the plan model rightly ranks below
    declared ones inside a database; between databases that would count the catalog's habits, not the
    question, so the route features read the logits without that term."""
    fake = HashEmbedder(dim=32, name="fake")
    build_index(parse_catalog(CATALOG), tmp_path / "index", dense={"local": fake}, log=lambda _m: None)
    n = len(PLAN_FEATURES)
    weights = np.where(np.asarray(PLAN_FEATURES) == IMPLIED, -3.0, 0.5)
    mean, scale = np.full(n, 0.2), np.full(n, 2.0)
    plan = SoftmaxModel(PLAN_FEATURES, weights, mean, scale)
    shipped = default_models()
    planner = Planner(load_index(tmp_path / "index"), replace(shipped, plan=plan, plan_lexical=plan))
    question = "What are the names of the people?"
    ev = planner.evidence(question, {"local": fake.embed([question], "query")[0]}, Options())
    declared, implied = Plan(0, (0, 1), (0,), True), Plan(0, (0, 2), (), True, implied=True)
    # The other features give both plans 1.0; the implied term adds 0.3 to the declared one and -1.2 to the
    # other. For routing they are alike.
    lg = np.asarray([1.0 + 0.3, 1.0 - 1.2])
    assert planner.route_logits(ev, [declared, implied], lg, Options()) == pytest.approx([1.0, 1.0])
    # Switched off, the term is already out of the logits.
    off = Options(disabled_features=frozenset({IMPLIED}))
    assert planner.route_logits(ev, [declared, implied], lg, off).tolist() == lg.tolist()


def test_the_route_features_read_each_groups_plans_apart_from_their_count() -> None:
    """Two groups whose best plans score alike: the log-sum-exp favours the one with more plans, and the plan
    count is there so that the fit can tell how many plans from how good they are."""
    few, many = np.asarray([2.0, 0.0, 0.0]), np.asarray([2.0] + [0.0] * 11)
    x = route_features(np.asarray([0.6, 0.4]), [few, many])
    col = {name: x[:, i] for i, name in enumerate(ROUTE_FEATURES)}
    np.testing.assert_allclose(col["group_logit"], np.log([0.6, 0.4]))
    np.testing.assert_allclose(col["plan_best"], [0.0, 0.0])
    assert col["plan_fit"][0] < col["plan_fit"][1] == 0.0
    np.testing.assert_allclose(col["plan_count"], np.log([3.0, 12.0]))
