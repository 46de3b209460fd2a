"""Training uses the serving code: the same candidate plans and features, and weights that load and serve."""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_DIR, ROOT

from retriever.api import Retriever
from retriever.config import Settings
from retriever.index.store import load_index
from retriever.query.channels import Evidence
from retriever.query.confidence import CONFIDENCE_FEATURES
from retriever.query.features import ROUTE_FEATURES, group_features
from retriever.query.planner import Options, Planner, default_models

sys.path.insert(0, str(ROOT / "scripts"))
import fit  # noqa: E402
from training import calibration, folds, models, sets  # noqa: E402


@pytest.fixture(scope="module")
def mini_set(mini_index_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> sets.TrainingSet:
    settings = Settings(local_model=False, cache_dir=tmp_path_factory.mktemp("cache"))
    spec = f"mini={mini_index_dir},{MINI_DIR / 'queries.jsonl'},{MINI_DIR / 'labels.jsonl'}"
    return sets.load_set(spec, settings, Options(), 1, None)


def test_training_rows_are_what_serving_scores(mini_set: sets.TrainingSet) -> None:
    got = models.fit_models([mini_set])
    assert got.total == len(mini_set.questions) == 15
    assert got.found == len(got.data["plan"]) >= 12
    assert got.models.table is not None and len(got.data["table"]) >= 10
    # Plan rows come from candidates the fitted table model picked: a planner serving with it sees the same.
    planner = mini_set.planner.with_models(got.models)
    rows = iter(got.data["plan"])
    for q in mini_set.questions:
        served, _ = planner.plan_matrix(q.ev, q.group, Options())
        gold = [i for i, p in enumerate(served) if p.tables == q.tables]
        if not gold:
            continue
        feats, label = next(rows)
        _, serving_feats = planner.plan_matrix(q.ev, q.group)
        assert label == gold[0]
        np.testing.assert_array_equal(feats, serving_feats)


def _assert_same_evidence(trained: Evidence, served: Evidence) -> None:
    assert trained.terms == served.terms and trained.phrases == served.phrases
    assert sorted(trained.scores) == sorted(served.scores)
    for k in trained.scores:
        np.testing.assert_array_equal(trained.scores[k], served.scores[k], err_msg=k)
    for name in ("fused", "idf", "schema_hit", "value_hit", "name_match", "phrase_hits", "group_bm25"):
        np.testing.assert_array_equal(getattr(trained, name), getattr(served, name), err_msg=name)


def test_training_candidates_are_the_servers_on_a_sample(mini_set: sets.TrainingSet, mini_index_dir: Path,
                                                        tmp_path: Path) -> None:
    """The serving path end to end (Retriever.open with the entry point's settings, search on the question
    text) against what fit.py trains on: the same evidence, the same candidate plans of the gold group,
    the same feature rows. A fit that scored other candidates than the server would fail here."""
    served_by = Retriever.open(mini_index_dir, Settings(local_model=False, cache_dir=tmp_path / "cache"))
    checked = 0
    for q in mini_set.questions[::2]:
        answer = served_by.search(q.question).answer
        assert answer.evidence is not None
        _assert_same_evidence(q.ev, answer.evidence)
        _assert_same_evidence(q.ev_lexical, answer.evidence)  # a lexical-only index: the two are one
        plans, feats = served_by.planner.plan_matrix(answer.evidence, q.group)
        (group_row, _), = mini_set.training_rows(q)["group"]
        np.testing.assert_array_equal(group_row, group_features(answer.evidence, served_by.planner.groups))
        for plan_row, gold in mini_set.plan_rows(q, served_by.planner)["plan"]:
            np.testing.assert_array_equal(plan_row, feats)
            assert plans[gold].tables == q.tables
        group = served_by.index.groups[q.group]
        if group in answer.group_probs:  # the answer scored this group's plans: exactly the candidates
            scored = sorted(s.plan.tables for s in answer.plans if s.plan.group == q.group)
            assert scored == sorted(p.tables for p in plans)
        checked += 1
    assert checked >= 7


def test_fitted_weights_load_and_give_a_confidence(mini_index_dir: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETRIEVER_LOCAL_MODEL", "0")
    monkeypatch.setenv("RETRIEVER_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "weights.json"
    spec = f"mini={mini_index_dir},{MINI_DIR / 'queries.jsonl'},{MINI_DIR / 'labels.jsonl'}"
    assert fit.main(["--set", spec, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["fitted_on"] == {"mini": 15} and data["every"] == {"mini": 1} and data["code"] == sets.code_digest()
    planner = Planner(load_index(mini_index_dir), default_models(out))
    assert planner.fitted.confidence is not None
    # The routing model is fitted on the 5-fold pass's held-out rows and shipped beside the others.
    assert planner.fitted.route is not None and planner.fitted.route.names == ROUTE_FEATURES
    assert set(data["models"]) == {"table", "table_lexical", "group", "plan", "group_lexical", "plan_lexical",
                                   "confidence", "route"}
    ans = planner.answer("How many singers are there?")
    assert 0.0 < ans.confidence < 1.0


def test_cached_evidence_follows_the_questions(mini_index_dir: Path, tmp_path: Path) -> None:
    """A set made anew under the same name and path (a reworded copy regenerated) is other questions: its
    cached evidence must not be the old file's."""
    settings = Settings(local_model=False, cache_dir=tmp_path / "cache")
    queries = tmp_path / "queries.jsonl"
    rows = [json.loads(line) for line in (MINI_DIR / "queries.jsonl").read_text().splitlines()]
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = f"mini={mini_index_dir},{queries},{MINI_DIR / 'labels.jsonl'}"
    first = sets.load_set(spec, settings, Options(), 1, tmp_path / "evcache")
    again = sets.load_set(spec, settings, Options(), 1, tmp_path / "evcache")
    assert [q.question for q in again.questions] == [q.question for q in first.questions]
    rows[0]["question"] = "How many vocalists are there?"
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    changed = sets.load_set(spec, settings, Options(), 1, tmp_path / "evcache")
    by_id = {q.query_id: q.question for q in changed.questions}
    assert by_id[rows[0]["query_id"]] == "How many vocalists are there?"
    assert len(list((tmp_path / "evcache").iterdir())) == 2


def test_training_set_ablations_leave_out_their_sets_only(mini_set: sets.TrainingSet) -> None:
    """`--ablate` of a training style trains without those sets (they are still scored) and touches nothing
    else: the paraphrased copies are told apart from the WordNet ones by their set names."""
    names = ("spider", "bird", "spider_rw", "bird_rw", "spider_para", "bird_para")
    sets = [replace(mini_set, name=n) for n in names]
    expected = {"bird_training": {"bird", "bird_rw", "bird_para"}, "reworded_training": {"spider_rw", "bird_rw"},
                "paraphrased_training": {"spider_para", "bird_para"}}
    for piece, skipped in expected.items():
        opts, skip = models.ablate(sets, piece, Options())
        assert skip == frozenset(skipped), piece
        assert opts == Options()


def test_the_calibration_is_fitted_on_the_sets_named_and_reported_for_all() -> None:
    """Two sets whose answers look alike but differ in outcome: calibrated on the first alone, the second
    gets the first's (high) confidence, and both get a reliability table."""
    rng = np.random.default_rng(0)
    outcomes = []
    for set_name, hit_rate in (("written", 0.9), ("copies", 0.3)):
        for n in range(200):
            x = np.asarray([1.0, rng.normal()] + [0.0] * (len(CONFIDENCE_FEATURES) - 2))
            outcomes.append(folds.Outcome(set_name, f"{set_name}{n}", 1, bool(rng.random() < hit_rate), True, 0.5,
                                        "", "catalog", f"db{n % 10}", f"db{n % 10}", x))
    probs, lines = calibration.calibration(outcomes, 5, frozenset({"written"}))
    copies = [p for p, o in zip(probs, outcomes, strict=True) if o.set_name == "copies"]
    assert np.mean(copies) > 0.8
    both, _ = calibration.calibration(outcomes, 5)
    assert 0.4 < np.mean([p for p, o in zip(both, outcomes, strict=True) if o.set_name == "copies"]) < 0.8
    assert any(line.startswith("calibration copies") for line in lines)
    with pytest.raises(SystemExit, match="--calibrate-on names no --set: nosuch"):
        fit.main(["--set", "mini=a,b,c", "--calibrate-on", "nosuch"])


def _off_catalog_files(tmp_path: Path) -> tuple[Path, Path]:
    """Off-catalog questions: made-up ones about a zoo and a planet, labelled with a database no catalog here
    has (as another catalog's train questions are for this one)."""
    questions = ["How many penguins does the zoo keep?", "Which keeper feeds the lions on Sundays?",
                 "What is the colour of the sky on Mars?", "List the moons of Jupiter by size."]
    queries, labels = tmp_path / "off_queries.jsonl", tmp_path / "off_labels.jsonl"
    queries.write_text("".join(json.dumps({"query_id": f"off-{n}", "question": q}) + "\n"
                               for n, q in enumerate(questions)))
    labels.write_text("".join(json.dumps({"query_id": f"off-{n}", "db_id": f"space_zoo_{n % 2}",
                                          "plans": [{"tables": [f"space_zoo_{n % 2}.animals"], "joins": []}]}) + "\n"
                              for n in range(len(questions))))
    return queries, labels


def test_off_catalog_questions_are_scored_as_misses_and_never_trained_on(
        mini_set: sets.TrainingSet, mini_index_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--off-catalog`: every answer to such a question is a miss the calibration reads; the other models,
    the other databases' folds and a questions file naming the catalog's own tables are as without them."""
    queries, labels = _off_catalog_files(tmp_path)
    settings = Settings(local_model=False, cache_dir=tmp_path / "cache")
    off = sets.load_set(f"off={mini_index_dir},{queries},{labels}", settings, Options(), 1, None, off_catalog=True)
    assert off.off_catalog and len(off.questions) == 4
    assert all(q.group == -1 and q.tables == () for q in off.questions)
    base, both = folds.folds([mini_set], 5), folds.folds([mini_set, off], 5)
    assert [{db for db in f if not db[1].startswith("space_zoo")} for f in both] == base
    assert sum(map(len, both)) == sum(map(len, base)) + 2  # the two zoo databases are dealt too
    planner = mini_set.planner.with_models(models.fit_models([mini_set]).models)
    judged = [folds.judge(off, planner, q, Options()) for q in off.questions]
    for got in judged:
        assert (got.hit, got.routed, got.kind, got.size) == (False, False, folds.OFF_CATALOG, 0)
    assert calibration.report(judged) == ["off: 4 questions asked of a catalog without their databases (all misses)"]
    with pytest.raises(SystemExit, match="names tables of"):
        sets.load_set(f"mine={mini_index_dir},{MINI_DIR / 'queries.jsonl'},{MINI_DIR / 'labels.jsonl'}", settings,
                     Options(), 1, None, off_catalog=True)

    monkeypatch.setenv("RETRIEVER_LOCAL_MODEL", "0")
    monkeypatch.setenv("RETRIEVER_CACHE_DIR", str(tmp_path / "cache"))
    mini = f"mini={mini_index_dir},{MINI_DIR / 'queries.jsonl'},{MINI_DIR / 'labels.jsonl'}"
    without, with_off = tmp_path / "without.json", tmp_path / "with.json"
    assert fit.main(["--set", mini, "--out", str(without)]) == 0
    assert fit.main(["--set", mini, "--set", f"off={mini_index_dir},{queries},{labels}", "--off-catalog", "off",
                     "--out", str(with_off)]) == 0
    a, b = json.loads(without.read_text()), json.loads(with_off.read_text())
    assert b["fitted_on"] == {"mini": 15} and b["calibrated_off_catalog"] == {"off": 4}
    assert "calibrated_off_catalog" not in a
    assert {k: m for k, m in a["models"].items() if k != "confidence"} == {
        k: m for k, m in b["models"].items() if k != "confidence"}
    assert a["models"]["confidence"] != b["models"]["confidence"]  # four more misses to calibrate on


def test_the_digests_hold_every_module_that_reads_the_question() -> None:
    """A rule of the request's cut moves the evidence: a module query/request.py reads that neither digest
    hashed would leave stale evidence cached and weights labelled with code they were not fitted with."""
    pkg = ROOT / "submission" / "retriever"
    seen: set[str] = set()
    todo = ["query/request.py"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in ast.walk(ast.parse((pkg / name).read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 0 and node.module:
                base = Path(name).parents[node.level - 1]
                path = (base / node.module.replace(".", "/")).with_suffix(".py").as_posix()
                if (pkg / path).is_file():
                    todo.append(path)
    assert "query/boundaries.py" in seen
    assert seen <= set(sets.EVIDENCE_SOURCES) and seen <= set(sets.CODE_SOURCES)
