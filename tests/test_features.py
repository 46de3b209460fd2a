"""Feature values on hand-made evidence: standardised dense scores and the confidence inputs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from retriever.query.channels import Evidence, standardise
from retriever.query.confidence import CONFIDENCE_FEATURES, confidence_features
from retriever.query.features import (
    GROUP_FEATURES,
    PLAN_FEATURES,
    GroupIndex,
    dense_channel,
    group_features,
    plan_features,
)
from retriever.query.plans import Plan


def _evidence(schema_hit: list[list[bool]], idf: list[float], dense: dict[str, list[float]]) -> Evidence:
    n = len(schema_hit[0]) if schema_hit else 3
    hit = np.asarray(schema_hit, dtype=bool).reshape(len(idf), n)
    scores = {"bm25_tables": np.zeros(n, dtype=np.float32)}
    group_dense = {}
    for name, s in dense.items():
        scores[f"dense_tables:{name}"] = np.asarray(s, dtype=np.float32)
        scores[f"dense_columns:{name}"] = np.asarray(s, dtype=np.float32)
        group_dense[name] = np.asarray([max(s)], dtype=np.float32)
    return Evidence([f"t{i}" for i in range(len(idf))], np.asarray(idf, dtype=np.float32), hit,
                    np.zeros_like(hit), np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32), scores,
                    np.ones(n, dtype=np.float32), np.zeros(1, dtype=np.float32), group_dense=group_dense)


def test_standardise_is_the_z_value_and_model_scale_free() -> None:
    x = np.asarray([0.2, 0.4, 0.6], dtype=np.float32)
    np.testing.assert_allclose(standardise(x), [-1.2247449, 0.0, 1.2247449], rtol=1e-5)
    # Another model's cosines with another scale and offset, same order: the same features.
    np.testing.assert_allclose(standardise(3 * x - 1), standardise(x), rtol=1e-5)
    assert standardise(np.asarray([0.5], dtype=np.float32)).tolist() == [0.0]


def test_the_first_dense_channel_in_the_planners_order_feeds_the_features() -> None:
    ev = _evidence([[True, False, False]], [1.0], {"jina": [0.1, 0.2, 0.3], "local": [0.3, 0.2, 0.1]})
    assert dense_channel(ev) == "jina"
    assert dense_channel(_evidence([[True, False, False]], [1.0], {})) is None


def test_confidence_features_by_hand() -> None:
    # Terms of idf 3 and 1: table 0 holds the first, table 1 the second; nothing holds both.
    ev = _evidence([[True, False, False], [False, True, False]], [3.0, 1.0], {"local": [0.5, 0.7, 0.1]})
    x = confidence_features(ev, expected=0.8, group_top=0.8, top_columns=19, top_tables=[1, 2])
    got = dict(zip(CONFIDENCE_FEATURES, x.tolist(), strict=True))
    assert got["bias"] == 1.0
    assert got["expected"] == pytest.approx(np.log(4.0))
    assert got["group_top"] == pytest.approx(np.log(4.0))
    assert got["matched"] == pytest.approx(1.0)
    assert got["cov_best"] == pytest.approx(0.75)
    assert got["dense_best"] == pytest.approx(0.7)
    assert got["width"] == pytest.approx(np.log(20.0))
    assert got["width_expected"] == pytest.approx(np.log(20.0) * np.log(4.0))
    # Both terms are schema words; the top database (tables 1 and 2) holds only the second, of weight 1/4.
    assert got["schema_share"] == pytest.approx(1.0)
    assert got["top_schema"] == pytest.approx(0.25)
    assert got["related_only"] == 0.0
    assert got["log_terms"] == pytest.approx(np.log(3.0))


def test_confidence_features_tell_schema_words_from_values_and_related_words() -> None:
    # Terms of idf 2, 1, 1: the first a schema word of table 0, the second only a sample value of table 1,
    # the third only related to a schema word of table 2 ("vocalists" -> `singer`).
    ev = _evidence([[True, False, False], [False, False, False], [False, False, False]], [2.0, 1.0, 1.0],
                   {"local": [0.5, 0.7, 0.1]})
    ev = replace(ev, value_hit=np.asarray([[False] * 3, [False, True, False], [False] * 3]),
                 related_hit=np.asarray([[False] * 3, [False] * 3, [False, False, True]]))
    got = dict(zip(CONFIDENCE_FEATURES, confidence_features(ev, 0.5, 0.5, 9, [1, 2]).tolist(), strict=True))
    assert got["matched"] == pytest.approx(0.75)
    assert got["schema_share"] == pytest.approx(0.5)
    assert got["top_schema"] == 0.0
    assert got["related_only"] == pytest.approx(0.25)
    got = dict(zip(CONFIDENCE_FEATURES, confidence_features(ev, 0.5, 0.5, 9, [0, 1]).tolist(), strict=True))
    assert got["top_schema"] == pytest.approx(0.5)


def test_a_question_that_matches_nothing_has_no_lexical_evidence() -> None:
    ev = _evidence([[False, False, False]], [2.0], {})
    got = dict(zip(CONFIDENCE_FEATURES, confidence_features(ev, 0.9, 0.9, 12, [0]).tolist(), strict=True))
    assert got["matched"] == 0.0 and got["cov_best"] == 0.0 and got["dense_best"] == 0.0
    assert got["schema_share"] == 0.0 and got["top_schema"] == 0.0 and got["related_only"] == 0.0


def test_entity_terms_come_from_quoted_or_capitalised_words_past_the_first() -> None:
    from retriever.index.text import tokenize
    from retriever.query.lookups import entity_terms

    def named(q: str) -> list[str]:
        terms = list(dict.fromkeys(tokenize(q)))
        return [t for t, e in zip(terms, entity_terms(q, terms), strict=True) if e]

    assert named("How many orders did Cindy Stewart place?") == ["cindi", "stewart"]
    assert named('Which play contains "the walls of Florence"?') == ["wall", "florenc"]
    assert named("What is the price of 'floor lamp'?") == ["floor", "lamp"]
    assert named("Singers older than 30?") == []


# --- group and plan features on hand-made evidence ---------------------------------------------------------
# Tables 0 and 1 form group 0, table 2 group 1. Two terms of idf 3 and 1 (weights 0.75, 0.25): table 0's
# schema holds the first, table 2's the second. Table 0's name is in the question, table 2 holds a quoted
# value; no dense channel is live.
def _hand_evidence() -> Evidence:
    hit = np.asarray([[True, False, False], [False, False, True]])
    return Evidence(["t0", "t1"], np.asarray([3.0, 1.0], dtype=np.float32), hit, np.zeros_like(hit),
                    np.asarray([1.0, 0.0, 0.0], dtype=np.float32), np.asarray([0.0, 0.0, 1.0], dtype=np.float32),
                    {"bm25_tables": np.zeros(3, dtype=np.float32)}, np.asarray([0.5, 0.25, 1.0], dtype=np.float32),
                    np.asarray([2.0, 1.0], dtype=np.float32), group_name_match=np.asarray([0.0, 1.0]),
                    entity=np.zeros(2, dtype=np.bool_))


def test_group_features_by_hand() -> None:
    gi = GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)
    got = dict(zip(GROUP_FEATURES, group_features(_hand_evidence(), gi).T.tolist(), strict=True))
    want = {
        "cov_schema": [0.75, 0.25], "cov_all": [0.75, 0.25], "cov_name": [0.75, 0.0], "cov_rank": [1.0, 0.5],
        "bm25_group": [1.0, 0.5], "bm25_rank": [1.0, 0.5],
        "fused_max": [0.5, 1.0], "fused_top2": [0.75, 1.0], "fused_rank": [0.5, 1.0],
        "name_max": [1.0, 0.0], "group_name": [0.0, 1.0], "phrase_any": [0.0, 1.0],
        "log_size": [float(np.log(2.0)), 0.0], "cov_table": [0.75, 0.25],
        "cov_distinct": [0.5, 0.5],  # each term is held by one group: equal weights whatever their idf
    }
    for name, values in want.items():
        assert got[name] == pytest.approx(values), name
    for name in set(GROUP_FEATURES) - set(want):  # the dense features, with no dense channel live
        assert got[name] == [0.0, 0.0], name


def _by_name(x: np.ndarray) -> dict[str, np.ndarray]:
    return dict(zip(GROUP_FEATURES, x.T, strict=True))


def test_a_term_every_database_holds_counts_less_for_routing() -> None:
    # Term 0 is in both groups' schemas, term 1 in group 0 only; equal idf, so cov_all weighs them alike.
    hit = np.asarray([[True, False, True], [True, False, False]])
    ev = replace(_hand_evidence(), schema_hit=hit, idf=np.asarray([1.0, 1.0], dtype=np.float32))
    got = _by_name(group_features(ev, GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    assert got["cov_all"].tolist() == pytest.approx([1.0, 0.5])
    shared, own = np.log1p(2 / 2), np.log1p(2 / 1)
    assert got["cov_distinct"].tolist() == pytest.approx([1.0, shared / (shared + own)])


def test_dense_scores_count_more_when_no_database_explains_the_question() -> None:
    z = (np.asarray([1.0, -1.0, 0.5], dtype=np.float32), np.zeros(3, dtype=np.float32),
         np.asarray([2.0, -2.0], dtype=np.float32))
    ev = replace(_hand_evidence(), dense_z=z, group_dense={"local": np.zeros(2, dtype=np.float32)})
    got = _by_name(group_features(ev, GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    unmatched = 1.0 - 0.75  # the best database explains 0.75 of the question's term weight
    assert got["dense_group_unmatched"].tolist() == pytest.approx([2.0 * unmatched, -2.0 * unmatched])
    assert got["dense_table_unmatched"].tolist() == pytest.approx([1.0 * unmatched, 0.5 * unmatched])


def test_plan_features_by_hand() -> None:
    plans = [Plan(0, (0,), (), True), Plan(0, (1,), (), True), Plan(0, (0, 1), (0,), True)]
    relevance = np.asarray([0.0, -2.0])  # table 0 is the group's likeliest, table 1 has odds e^-2 below it
    x = plan_features(_hand_evidence(), plans, [0, 1], np.asarray([True, False, False]), relevance)
    got = dict(zip(PLAN_FEATURES, x.T.tolist(), strict=True))
    want = {
        "size1": [1, 1, 0], "size2": [0, 0, 1], "n_joins": [0, 0, 1],
        "cov_all": [0.75, 0.0, 0.75], "cov_schema": [0.75, 0.0, 0.75],
        "name_sum": [1, 0, 1], "name_out": [0, 1, 0],
        "rel_sum": [1.0, 0.5, 1.5], "rel_min": [1.0, 0.5, 0.5], "rel_out": [0.5, 1.0, 0.0],
        "n_bridge": [0, 1, 1],  # table 1 matches nothing: in a plan it is a bridge
        "tab_sum": [0.0, -2.0, -2.0], "tab_min": [0.0, -2.0, -2.0],
        "tab_out": [-2.0, 0.0, -20.0],  # nothing left out of the whole group: the floor
    }
    for name, values in want.items():
        assert got[name] == pytest.approx(values), name
    for name in set(PLAN_FEATURES) - set(want):
        assert got[name] == [0.0, 0.0, 0.0], name


def test_a_named_value_nobody_explains_wants_a_table_with_names() -> None:
    ev = _hand_evidence()
    ev = Evidence(ev.terms, ev.idf, ev.schema_hit, ev.value_hit, ev.name_match, ev.phrase_hits, ev.scores,
                  ev.fused, ev.group_bm25, group_name_match=ev.group_name_match,
                  entity=np.asarray([False, True]))  # the second term, held by no table of group 0
    plans = [Plan(0, (0,), (), True), Plan(0, (1,), (), True)]
    x = plan_features(ev, plans, [0, 1], np.asarray([True, False, False]), np.zeros(2))
    assert x[:, PLAN_FEATURES.index("entity_home")].tolist() == [1.0, 0.0]


def test_a_plan_with_an_unnamed_lookup_table_explains_what_no_table_holds() -> None:
    # Term 1 (a quarter of the weight) is held by no table of group 0: a value, of the lookup table 1 perhaps,
    # which holds no term of the question. Table 0 holds term 0, so it is named, lookup or not.
    plans = [Plan(0, (0,), (), True), Plan(0, (1,), (), True), Plan(0, (0, 1), (0,), True)]
    col = PLAN_FEATURES.index("lookup_in")
    def feature(lookups: np.ndarray | None) -> list[float]:
        x = plan_features(_hand_evidence(), plans, [0, 1], np.asarray([True, False, False]), np.zeros(2), lookups)
        return x[:, col].tolist()
    assert feature(np.asarray([False, True, False])) == pytest.approx([0.0, 0.25, 0.25])
    assert feature(np.asarray([True, False, False])) == [0.0, 0.0, 0.0]
    assert feature(None) == [0.0, 0.0, 0.0]


def _related_evidence() -> Evidence:
    """Three terms of equal idf: t0 is held by table 0 (group 0); t1 by no table, but table 1 (group 0) and
    table 2 (group 1) hold a word related to it; t2 by no table, related to a word of table 2, and quoted."""
    hit = np.asarray([[True, False, False], [False, False, False], [False, False, False]])
    rel = np.asarray([[False, False, True], [False, True, True], [False, False, True]])
    return replace(_hand_evidence(), terms=["t0", "t1", "t2"], idf=np.ones(3, dtype=np.float32), schema_hit=hit,
                   value_hit=np.zeros_like(hit), related_hit=rel, entity=np.asarray([False, False, True]))


def test_related_words_count_only_for_terms_no_database_holds() -> None:
    ev = _related_evidence()
    got = _by_name(group_features(ev, GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    # t0's relatives in group 1 do not count (a database holds t0 itself); t2 is a name, not a word.
    assert got["cov_related"].tolist() == pytest.approx([1 / 3, 1 / 3])
    plans = [Plan(0, (0,), (), True), Plan(0, (1,), (), True), Plan(0, (0, 1), (0,), True)]
    x = plan_features(ev, plans, [0, 1], np.asarray([True, False, False]), np.zeros(2))
    assert x[:, PLAN_FEATURES.index("cov_related")].tolist() == pytest.approx([0.0, 1 / 3, 1 / 3])


def test_related_words_count_for_terms_few_other_databases_hold() -> None:
    got = _by_name(group_features(_related_evidence(), GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    # A user's t0 may mean group 1's relative of it (one database holds t0); group 0 holds t0 itself.
    assert got["related_elsewhere"].tolist() == pytest.approx([1 / 3, 2 / 3])


@pytest.mark.parametrize(("holders", "counts"), [(2, True), (3, False)])
def test_a_term_many_databases_hold_is_their_own_word(holders: int, counts: bool) -> None:
    # Four one-table databases; t0 is in the first `holders` of them, and database 3 holds a relative of it.
    hit = np.asarray([[i < holders for i in range(4)]])
    rel = np.asarray([[False, False, False, True]])
    ev = replace(_hand_evidence(), terms=["t0"], idf=np.ones(1, dtype=np.float32), schema_hit=hit,
                 value_hit=np.zeros_like(hit), related_hit=rel, entity=np.asarray([False]),
                 name_match=np.zeros(4, dtype=np.float32), phrase_hits=np.zeros(4, dtype=np.float32),
                 fused=np.ones(4, dtype=np.float32), group_bm25=np.zeros(4, dtype=np.float32),
                 group_name_match=np.zeros(4, dtype=np.float32), scores={"bm25_tables": np.zeros(4, np.float32)})
    got = _by_name(group_features(ev, GroupIndex.from_table_group(np.arange(4), 4)))
    assert got["related_elsewhere"].tolist() == pytest.approx([0.0, 0.0, 0.0, 1.0 if counts else 0.0])


def test_a_name_counts_for_the_tables_holding_a_column_for_its_kind() -> None:
    # t0 is a name ("Finland"): WordNet makes it an instance of a schema word of table 1 (group 0); t1 is no
    # name, so the instance hit table 2 would have from it counts for nothing.
    hit = np.zeros((2, 3), dtype=np.bool_)
    inst = np.asarray([[False, True, False], [False, False, True]])
    ev = replace(_hand_evidence(), terms=["t0", "t1"], idf=np.ones(2, dtype=np.float32), schema_hit=hit,
                 value_hit=hit, instance_hit=inst, entity=np.asarray([True, False]))
    got = _by_name(group_features(ev, GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    assert got["cov_instance"].tolist() == pytest.approx([0.5, 0.0])
    plans = [Plan(0, (0,), (), True), Plan(0, (1,), (), True), Plan(0, (0, 1), (0,), True)]
    x = plan_features(ev, plans, [0, 1], np.asarray([True, False, False]), np.zeros(2))
    assert x[:, PLAN_FEATURES.index("cov_instance")].tolist() == pytest.approx([0.0, 0.5, 0.5])


def test_a_database_whose_columns_look_like_the_names_given_ranks_higher() -> None:
    # Names embedded alone match a column of table 2 (group 1) best: z-values over the catalog, best per group.
    ev = replace(_hand_evidence(), entity_cos=np.asarray([0.1, 0.2, 0.6], dtype=np.float32))
    got = _by_name(group_features(ev, GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    z = (np.asarray([0.1, 0.2, 0.6]) - 0.3) / np.std([0.1, 0.2, 0.6])
    assert got["entity_dense"].tolist() == pytest.approx([z[1], z[2]], rel=1e-5)


def test_content_words_embedded_alone_route_to_the_database_whose_tables_they_point_at() -> None:
    # _hand_evidence: t0 (idf share 0.75) is held by table 0 (group 0), t1 (0.25) by table 2 (group 1). t0's
    # vector points at table 2 most, t1's at table 1; negative z-values count as nothing.
    wz = np.asarray([[1.0, 0.0, 2.0], [0.5, 3.0, -1.0]], dtype=np.float32)
    ev = replace(_hand_evidence(), word_z=wz)
    got = _by_name(group_features(ev, GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    assert got["dense_words"].tolist() == pytest.approx([0.75 * 1.0 + 0.25 * 3.0, 0.75 * 2.0])
    # Only the words the group does not hold: group 0 holds t0, group 1 holds t1.
    assert got["words_fill"].tolist() == pytest.approx([0.25 * 3.0, 0.75 * 2.0])
    plans = [Plan(0, (0,), (), True), Plan(0, (1,), (), True), Plan(0, (0, 1), (0,), True)]
    x = plan_features(ev, plans, [0, 1], np.zeros(3, dtype=bool), np.zeros(2))
    assert x[:, PLAN_FEATURES.index("words_in")].tolist() == pytest.approx([0.875, 0.75, 1.5])
    # Evidence made without word vectors reads zero.
    plain = _by_name(group_features(_hand_evidence(), GroupIndex.from_table_group(np.asarray([0, 0, 1]), 2)))
    assert plain["dense_words"].tolist() == [0.0, 0.0] and plain["words_fill"].tolist() == [0.0, 0.0]


def test_group_reductions_equal_a_reduceat_over_the_tables_sorted_by_group() -> None:
    """The per-row `maximum.at` and the hits-only path give what one reduceat over sorted tables gives."""
    rng = np.random.default_rng(3)
    table_group = rng.permutation(np.concatenate([np.arange(40), rng.integers(0, 40, 260)]))
    gi = GroupIndex.from_table_group(table_group, 40)
    order = np.argsort(table_group, kind="stable")

    def reference(x: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(x[..., order], gi.start, axis=-1)

    scores = rng.normal(size=(7, 300)).astype(np.float32)
    hits = rng.random((7, 300)) < 0.02
    assert gi.reduce_max(scores).dtype == np.float32
    np.testing.assert_array_equal(gi.reduce_max(scores), reference(scores))
    np.testing.assert_array_equal(gi.reduce_max(scores[2]), reference(scores[2]))
    np.testing.assert_array_equal(gi.any_hit(hits), reference(hits.astype(np.float32)))
    assert gi.any_hit(hits).any() and gi.any_hit(hits[:0]).shape == (0, 40)


def test_a_dated_question_wants_a_plan_with_a_column_saying_when() -> None:
    plans = [Plan(0, (0,), (), True), Plan(0, (1,), (), True), Plan(0, (0, 1), (0,), True)]
    col = PLAN_FEATURES.index("dated_in")
    temporal = np.asarray([False, True, False])
    def feature(said_when: bool, when: np.ndarray | None) -> list[float]:
        ev = replace(_hand_evidence(), dated=said_when)
        return plan_features(ev, plans, [0, 1], np.zeros(3, dtype=bool), np.zeros(2), None, when)[:, col].tolist()
    assert feature(True, temporal) == [0.0, 1.0, 1.0]
    assert feature(False, temporal) == [0.0, 0.0, 0.0]  # no year or month asked
    assert feature(True, None) == [0.0, 0.0, 0.0]
