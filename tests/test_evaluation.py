"""The in-process eval scores like the verifier and lists each miss readably."""

from __future__ import annotations

from retriever.answer.evaluation import covered, replay

JOIN = {"left_table": "g.a", "left_column": "x", "right_table": "g.b", "right_column": "y"}
LABELS = {
    "hit": {"plans": [{"tables": ["g.a", "g.b"], "joins": [JOIN]}]},
    "nojoin": {"plans": [{"tables": ["g.a", "g.b"], "joins": [JOIN]}]},
    "alt": {"plans": [{"tables": ["h.c"], "joins": []}, {"tables": ["g.a"], "joins": []}]},
}


def test_a_plan_needs_its_joins_and_any_acceptable_plan_counts() -> None:
    assert covered(LABELS["hit"]["plans"], ["g.a", "g.b", "g.z"], [JOIN])
    assert not covered(LABELS["hit"]["plans"], ["g.a", "g.b"], [])
    flipped = {"left_table": "g.b", "left_column": "y", "right_table": "g.a", "right_column": "x"}
    assert covered(LABELS["hit"]["plans"], ["g.a", "g.b"], [flipped])  # direction is ignored
    assert covered(LABELS["alt"]["plans"], ["g.a"], [])


def test_replay_counts_and_lists_misses() -> None:
    answers = {"q hit": (["g.a", "g.b"], [JOIN]), "q nojoin": (["g.a", "g.b"], []), "q alt": (["h.c"], [])}
    queries = [{"query_id": k, "question": f"q {k}"} for k in LABELS]
    rep = replay(queries, LABELS, lambda q: (*answers[q], 0.5, "g"), lambda t: t.split(".")[0])
    assert (rep.questions, rep.hits, rep.routed) == (3, 2, 2)
    assert rep.by_size == {2: [2, 1], 1: [1, 1]}
    lines = rep.miss_lines()
    assert lines[0] == "misses (1):" and lines[1] == "[nojoin] q nojoin"
    assert lines[2] == "  gold:   g.a, g.b joined by g.a.x=g.b.y" and lines[3] == "  answer: g.a, g.b"


def test_a_plan_with_no_resolved_table_is_covered_but_never_routed() -> None:
    labels = {"empty": {"plans": [{"tables": [], "joins": []}]}}
    rep = replay([{"query_id": "empty", "question": "q"}], labels, lambda q: (["g.a"], [], 0.5, "g"),
                 lambda t: t.split(".")[0])
    assert (rep.questions, rep.hits, rep.routed) == (1, 1, 0)
