"""The table score inside a group: its features by hand, its training rows, and that it picks the plan pool."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from retriever.index.links import links_from
from retriever.index.store import Index
from retriever.query.channels import Evidence
from retriever.query.model import SoftmaxModel
from retriever.query.planner import Models, Options, Planner
from retriever.query.plans import UNJOINED_SEEDS
from retriever.query.relevance import TABLE_FEATURES, TableShape, table_features, training_rows


def _evidence() -> Evidence:
    # Four tables, all of one group. Terms of equal idf: t0 is held by tables 0 and 1, t1 by table 2 alone.
    hit = np.asarray([[True, True, False, False], [False, False, True, False]])
    fused = np.asarray([0.4, 0.3, 0.1, 0.2], dtype=np.float32)
    scores = {"bm25_tables": np.asarray([2.0, 1.0, 0.0, 0.0], dtype=np.float32)}
    return Evidence(["t0", "t1"], np.ones(2, dtype=np.float32), hit, np.zeros_like(hit),
                    np.asarray([1.0, 0.0, 0.0, 0.0], dtype=np.float32), np.zeros(4, dtype=np.float32), scores,
                    fused, np.zeros(1, dtype=np.float32))


def _shape() -> TableShape:
    links = links_from([(0, 1, 0), (0, 2, 1), (0, 0, 2)])  # a self-reference (rel 2) joins nothing else
    return TableShape.from_links(links, np.asarray([3, 1, 0, 7]), np.asarray([True, False, False, False]))


def test_table_features_by_hand() -> None:
    x = table_features(_evidence(), [0, 1, 2, 3], _shape())
    got = dict(zip(TABLE_FEATURES, x.T.tolist(), strict=True))
    assert got["t_fused"] == pytest.approx([1.0, 0.75, 0.25, 0.5])
    assert got["t_fused_rank"] == pytest.approx([1.0, 0.5, 0.25, 1 / 3])
    assert got["t_cov"] == pytest.approx([0.5, 0.5, 0.5, 0.0])
    # Only table 2 holds t1: the question needs it, whatever its fused rank.
    assert got["t_cov_alone"] == pytest.approx([0.0, 0.0, 0.5, 0.0])
    assert got["t_cov_share"] == pytest.approx([0.25, 0.25, 0.5, 0.0])
    assert got["t_bm25_table"] == pytest.approx([1.0, 0.5, 0.0, 0.0])
    assert got["t_name"] == pytest.approx([1.0, 0.0, 0.0, 0.0])
    assert got["t_degree"] == pytest.approx(np.log1p([2, 1, 1, 0]).tolist())
    assert got["t_log_columns"] == pytest.approx(np.log([3, 1, 1, 7]).tolist())
    assert got["t_named"] == [1.0, 0.0, 0.0, 0.0]
    assert got["t_next_to_top"] == [0.0, 1.0, 1.0, 0.0]  # related to table 0, the best fused
    for name in ("t_dense_table", "t_dense_column", "t_values", "t_related", "t_entity_gap", "t_entity_best",
                 "t_instance"):
        # no dense channel, no values, no names
        assert got[name] == [0.0] * 4, name


def test_a_name_of_a_known_kind_points_at_the_tables_holding_that_kind() -> None:
    inst = np.asarray([[False, False, False, True], [True, False, False, False]])
    ev = replace(_evidence(), instance_hit=inst, entity=np.asarray([True, False]))  # t0 a name, t1 not
    got = dict(zip(TABLE_FEATURES, table_features(ev, [0, 1, 2, 3], _shape()).T.tolist(), strict=True))
    assert got["t_instance"] == pytest.approx([0.0, 0.0, 0.0, 0.5])


def test_a_name_points_at_the_table_whose_column_is_most_like_it() -> None:
    ev = replace(_evidence(), entity_cos=np.asarray([0.2, 0.5, 0.3, 0.1], dtype=np.float32))
    got = dict(zip(TABLE_FEATURES, table_features(ev, [0, 1, 2, 3], _shape()).T.tolist(), strict=True))
    assert got["t_entity_gap"] == pytest.approx([-0.3, 0.0, -0.2, -0.4])
    assert got["t_entity_best"] == [0.0, 1.0, 0.0, 0.0]
    # Only the group's own tables count: without table 1, table 2 is the best.
    two = dict(zip(TABLE_FEATURES, table_features(ev, [0, 2, 3], _shape()).T.tolist(), strict=True))
    assert two["t_entity_best"] == [0.0, 1.0, 0.0]


def test_training_rows_put_each_gold_table_against_the_tables_outside_the_plan() -> None:
    feats = np.arange(8, dtype=np.float32).reshape(4, 2)
    rows = training_rows(feats, [2, 0])
    assert [gold for _, gold in rows] == [0, 0]
    np.testing.assert_array_equal(rows[0][0], feats[[0, 1, 3]])
    np.testing.assert_array_equal(rows[1][0], feats[[2, 1, 3]])
    assert training_rows(feats, [0, 1, 2, 3]) == []  # the whole group is the plan: nothing to rank


def test_the_planner_orders_a_groups_tables_by_the_table_model(mini_index: Index) -> None:
    """Unjoined plans come from the group's likeliest tables: by the fused rank without a table model, by the
    model with one (here one that reads only t_cov_alone, so the table holding a word alone comes first)."""
    planner = Planner(mini_index, Models.uniform())
    g = mini_index.groups.index("college_3")
    members = planner.members[g]
    assert len(members) == 8
    ev = planner.evidence("What grade points did students of the faculty in room 224 get in the course?", {},
                          Options())
    fused = ev.fused[members]
    np.testing.assert_allclose(planner.relevance(ev, g), np.log(np.maximum(fused / fused.max(), 1e-6)))

    weights = np.asarray([1.0 if n == "t_cov_alone" else 0.0 for n in TABLE_FEATURES])
    model = SoftmaxModel(TABLE_FEATURES, weights, np.zeros(weights.size), np.ones(weights.size))
    with_model = planner.with_models(replace(Models.uniform(), table=model, table_lexical=model))
    alone = table_features(ev, members, planner.shape)[:, TABLE_FEATURES.index("t_cov_alone")]
    rel = with_model.relevance(ev, g)
    np.testing.assert_allclose(rel, alone - alone.max(), atol=1e-6)
    top = {members[i] for i in np.lexsort((np.asarray(members), -rel))[:UNJOINED_SEEDS]}
    unjoined = [p.tables for p in with_model.candidates(ev, g, rel) if not p.connected]
    assert unjoined and all(set(t) <= top for t in unjoined)


def test_a_content_word_embedded_alone_points_at_the_table_most_like_it() -> None:
    # t1's vector (idf share 0.5) points at table 3, which holds no term of the question.
    wz = np.asarray([[0.0, 0.0, 0.0, 0.0], [-1.0, 0.5, 0.0, 4.0]], dtype=np.float32)
    got = dict(zip(TABLE_FEATURES, table_features(replace(_evidence(), word_z=wz), [0, 1, 2, 3], _shape()).T.tolist(),
                   strict=True))
    assert got["t_words"] == pytest.approx([0.0, 0.25, 0.0, 2.0])


def test_a_dated_question_points_at_the_tables_with_a_column_saying_when() -> None:
    shape = replace(_shape(), temporal=np.asarray([0.0, 1.0, 0.0, 1.0], dtype=np.float32))
    col = TABLE_FEATURES.index("t_dated")
    ev = replace(_evidence(), dated=True)
    assert table_features(ev, [0, 1, 2, 3], shape)[:, col].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert table_features(_evidence(), [0, 1, 2, 3], shape)[:, col].tolist() == [0.0] * 4
