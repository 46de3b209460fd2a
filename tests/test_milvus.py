"""The Milvus stage-1 backend on Milvus Lite: same evidence and answers as in-process, resumable build, faults.

Needs the optional `milvus` extra (pymilvus + milvus-lite; `.ci/run` installs it). Without it every test
here is skipped with that reason, never passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import MINI_CATALOG, MINI_DIR, ROOT, catalog_keys, read_jsonl, sealed_env, validate_answer

pytest.importorskip("pymilvus", reason="the optional milvus extra (pymilvus) is not installed: "
                    "pip install -e '.[milvus]' or see .ci/run")
pytest.importorskip("milvus_lite", reason="the optional milvus extra (milvus-lite) is not installed")

from retriever.backends.milvus_build import MilvusWriter  # noqa: E402
from retriever.backends.milvus_common import BUILDING  # noqa: E402
from retriever.backends.milvus_search import MilvusStage1  # noqa: E402
from retriever.backends.stage1 import InProcess, backend_record, engine_writer  # noqa: E402
from retriever.config import Settings  # noqa: E402
from retriever.embedders.interface import HashEmbedder  # noqa: E402
from retriever.errors import EngineError  # noqa: E402
from retriever.index.build import build_index  # noqa: E402
from retriever.index.catalog import load_catalog  # noqa: E402
from retriever.index.partial import Budgets  # noqa: E402
from retriever.index.store import ENGINE_DIR, load_index  # noqa: E402
from retriever.query.planner import Planner, default_models  # noqa: E402

SEARCH_SH = ROOT / "submission" / "search.sh"
BUILD_SH = ROOT / "submission" / "build.sh"
MILVUS = Settings(backend="milvus")
TOKEN = "tok-3f9a1c-never-written"
QUESTIONS = [q["question"] for q in read_jsonl(MINI_DIR / "queries.jsonl")]
GUARD_S = 120.0


def _build(index_dir: Path, settings: Settings = MILVUS, logs: list[str] | None = None, **kw: Any) -> dict:
    emb = HashEmbedder(dim=32, name="hash-32")
    return build_index(load_catalog(MINI_CATALOG), index_dir, dense={"hash": emb}, multi={"colbert": emb},
                       log=(logs if logs is not None else []).append, engine=engine_writer(settings), **kw)


def _open(index_dir: Path, settings: Settings = MILVUS) -> tuple[Planner, MilvusStage1]:
    index = load_index(index_dir)
    stage1 = MilvusStage1.connect(index, index_dir, backend_record(index.manifest), settings, lambda _m: None)
    return Planner(index, default_models(), stage1), stage1


@pytest.fixture(scope="module")
def milvus_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index_dir = tmp_path_factory.mktemp("milvus") / "index"
    _build(index_dir, replace(MILVUS, milvus_token=TOKEN))
    return index_dir


def _vectors(question: str) -> dict[str, np.ndarray]:
    emb = HashEmbedder(dim=32, name="hash-32")
    return {"hash": emb.embed([question], "query")[0], "multi:colbert": emb.embed_multi([question], "query")[0]}


def test_manifest_records_the_backend_and_its_collections(milvus_index: Path) -> None:
    rec = backend_record(json.loads((milvus_index / "manifest.json").read_text()))
    assert rec["kind"] == "milvus" and rec["uri"] is None  # None: the Lite folder inside the index
    assert set(rec["collections"]) == {"tables", "columns", "groups", "values"}
    assert rec["collections"]["columns"]["dense"] == {"hash": 32} and rec["collections"]["values"]["dense"] == {}
    assert (milvus_index / ENGINE_DIR).is_dir()
    load_index(milvus_index)  # the engine's folder is outside the digests: loading still verifies every file


def test_the_token_is_never_written(milvus_index: Path) -> None:
    for p in milvus_index.rglob("*"):
        if p.is_file():
            assert TOKEN.encode() not in p.read_bytes(), p


def test_engine_evidence_equals_in_process_evidence(milvus_index: Path) -> None:
    """Same term hits and BM25 weights, same cosines, same MaxSim: the fitted weights apply unchanged."""
    planner, stage1 = _open(milvus_index)
    local = Planner(planner.index, planner.fitted, InProcess(planner.index))
    try:
        for q in QUESTIONS:
            vec = _vectors(q)
            a, b = planner.answer(q, vec), local.answer(q, vec)
            assert a.evidence is not None and b.evidence is not None
            assert set(a.evidence.scores) == set(b.evidence.scores)
            assert any(k.startswith("late:") for k in a.evidence.scores)
            for k, v in a.evidence.scores.items():
                assert np.allclose(v, b.evidence.scores[k], atol=1e-5), k
            assert np.array_equal(a.evidence.schema_hit, b.evidence.schema_hit)
            assert np.allclose(a.evidence.group_bm25, b.evidence.group_bm25, atol=1e-5)
            assert a.table_ids == b.table_ids and a.joins == b.joins
    finally:
        stage1.close()


def test_engine_alias_scores_equal_in_process(milvus_index: Path) -> None:
    """An abbreviation read as a term's alias scores the same from the engine as from the local postings."""
    planner, stage1 = _open(milvus_index)
    try:
        for part in ("tables", "columns", "groups"):
            local = planner.index.lexical[part]
            vocab = sorted(local.vocab, key=lambda t: (local.vocab[t], t))
            term, alias = vocab[0], vocab[1:4]
            engine = stage1.for_question().lexical[part]
            want = local.term_scores([term, "zzunknown"], {term: alias, "zzunknown": alias[:1]})
            got = engine.term_scores([term, "zzunknown"], {term: alias, "zzunknown": alias[:1]})
            assert want[1].any() and not np.array_equal(want[0], local.term_scores([term])[0]), part
            assert np.allclose(got, want, atol=1e-5), part
    finally:
        stage1.close()


def test_a_partial_dense_channel_scores_like_in_process(tmp_path: Path) -> None:
    """Columns the build did not embed are zeros in the engine; search gives them the median, as locally."""
    clock = [0.0]

    class Slow(HashEmbedder):
        def embed(self, texts: Any, kind: Any) -> np.ndarray:
            clock[0] += 10.0
            return super().embed(texts, kind)

    emb = Slow(dim=16, name="slow")
    build_index(load_catalog(MINI_CATALOG), tmp_path / "index", dense={"local": emb}, log=lambda _m: None,
                budgets=Budgets({"local": 120.0}, clock=lambda: clock[0], chunk=8), engine=engine_writer(MILVUS))
    planner, stage1 = _open(tmp_path / "index")
    assert "local" in planner.index.dense_done
    try:
        q = emb.embed(["how many singers"], "query")[0]
        got = planner.channels.dense_scores({"local": q})["local"]
        want = InProcess(planner.index).dense("local", q)
        for g, w in zip(got, want, strict=True):
            assert np.allclose(g, w, atol=1e-5)
    finally:
        stage1.close()


def test_mid_run_engine_failure_answers_from_the_local_index(milvus_index: Path) -> None:
    """The engine goes away after startup: each question is still answered, the same way, from local files."""
    planner, stage1 = _open(milvus_index)
    local = Planner(planner.index, planner.fitted, InProcess(planner.index))
    logs: list[str] = []
    stage1.log = logs.append
    stage1.close()  # the Lite server stops: every engine call now fails
    for q in QUESTIONS[:3]:
        vec = _vectors(q)
        assert planner.answer(q, vec).table_ids == local.answer(q, vec).table_ids
    assert logs and all("answered" in m for m in logs), logs
    assert len(logs) == 3  # one line per question, not one per call


_HURRIED = """
import sys
sys.path.insert(0, sys.argv[1])
from retriever.api import Retriever
from retriever.config import Settings
r = Retriever.open(sys.argv[2], Settings(local_model=False))
real = r.planner.channels.stage1.client
class Hurried:  # every call gets a deadline the engine cannot meet: a real gRPC DEADLINE_EXCEEDED
    def search(self, *args, timeout, **kw):
        return real.search(*args, timeout=1e-4, **kw)
r.planner.channels.stage1.client = Hurried()
print(len(r.search("Show names for all aircrafts of which John Williams has certificates.").table_ids))
"""


def test_an_engine_deadline_is_one_line_not_a_traceback(milvus_index: Path) -> None:
    """A call the engine does not finish in time: answered locally and reported in one line; pymilvus' own
    error log (a traceback per failed call) stays quiet."""
    res = subprocess.run([sys.executable, "-c", _HURRIED, str(ROOT), str(milvus_index)], capture_output=True,
                         timeout=GUARD_S)
    assert res.returncode == 0 and res.stdout.strip() == b"5", res.stderr.decode()[-2000:]
    err = [ln for ln in res.stderr.decode().splitlines() if "stage 1 on Milvus" not in ln]
    assert len(err) == 1 and "DEADLINE_EXCEEDED" in err[0] and "answered from the local index" in err[0], err


def test_a_slow_engine_is_cut_at_the_question_budget(milvus_index: Path) -> None:
    """Calls past the per-question budget are not made; what arrived before it is used, the rest is local."""
    planner, stage1 = _open(milvus_index)
    local = Planner(planner.index, planner.fitted, InProcess(planner.index))
    real, calls, logs = stage1.client, [], []

    class Slow:
        def search(self, *args: Any, timeout: float, **kw: Any) -> Any:
            calls.append(timeout)
            import time

            time.sleep(0.3)
            return real.search(*args, timeout=timeout, **kw)

    stage1.client, stage1.budget_s, stage1.log = Slow(), 0.5, logs.append
    try:
        q = QUESTIONS[0]
        vec = _vectors(q)
        assert planner.answer(q, vec).table_ids == local.answer(q, vec).table_ids
        assert 1 <= len(calls) <= 3 and all(t <= 0.5 for t in calls)
        assert any("budget spent" in m for m in logs), logs
    finally:
        stage1.client = real
        stage1.close()


def test_an_interrupted_build_resumes_keeps_whole_collections_and_drops_the_half_written(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    _build(index_dir, Settings())  # in-process: the local files the writer copies from
    stale = tmp_path / ".index.building-1-dead"
    shutil.copytree(index_dir, stale)
    writer = MilvusWriter(MILVUS)
    import retriever.backends.milvus_build as mb

    real_rows = mb._rows

    def dies_in_columns(spec: Any, tmp: Path, sizes: Any) -> Any:
        for i, batch in enumerate(real_rows(spec, tmp, sizes)):
            if spec.part == "columns" and i == 0:
                yield batch[:50]
                raise KeyboardInterrupt  # as a kill would, after part of a collection was written
            yield batch

    mb._rows = dies_in_columns  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt):
            writer(stale, _docs(), ["dense:hash"], lambda _m: None)
    finally:
        mb._rows = real_rows  # type: ignore[assignment]
    logs: list[str] = []
    _build(index_dir, MILVUS, logs)
    text = "\n".join(logs)
    assert "resuming from the engine folder of an interrupted build" in text
    assert "is already complete; kept" in text and f"{BUILDING}, left incomplete" in text
    assert not stale.exists()
    planner, stage1 = _open(index_dir)
    try:
        client = stage1.client
        assert not [n for n in client.list_collections() if n.endswith(BUILDING)]
        assert len(planner.answer(QUESTIONS[0], _vectors(QUESTIONS[0])).table_ids) == 5
    finally:
        stage1.close()


def _docs() -> Any:
    from retriever.index.documents import build_documents

    return build_documents(load_catalog(MINI_CATALOG))


def test_missing_collections_fail_at_start_with_one_line(milvus_index: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(milvus_index, broken)
    shutil.rmtree(broken / ENGINE_DIR)
    with pytest.raises(EngineError, match="has no collection"):
        _open(broken)


def test_without_pymilvus_build_and_search_fail_in_one_line(milvus_index: Path, monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "pymilvus", None)  # import fails as if not installed
    with pytest.raises(EngineError, match="needs pymilvus"):
        _open(milvus_index)
    with pytest.raises(EngineError, match="needs pymilvus"):
        _build(tmp_path / "index")
    assert not (tmp_path / "index").exists()


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = sealed_env(tmp_path / "cache")
    env.update(extra)
    return env


def test_search_sh_with_an_unreachable_engine_exits_before_ready(milvus_index: Path, tmp_path: Path) -> None:
    env = _env(tmp_path, RETRIEVER_MILVUS_URI="http://127.0.0.1:9", RETRIEVER_MILVUS_TOKEN=TOKEN)
    res = subprocess.run(["bash", str(SEARCH_SH), "--index-dir", str(milvus_index)], input=b"",
                         capture_output=True, env=env, timeout=GUARD_S)
    assert res.returncode != 0 and b'"ready"' not in res.stdout
    lines = [ln for ln in res.stderr.decode().splitlines() if ln.strip()]
    assert len(lines) == 1 and "unreachable" in lines[0] and "Traceback" not in lines[0], lines
    assert TOKEN not in res.stderr.decode()


def test_build_sh_and_search_sh_end_to_end(tmp_path: Path) -> None:
    """The contract with the backend chosen by the environment: build records it, search follows it."""
    index_dir = tmp_path / "index"
    env = _env(tmp_path, RETRIEVER_BACKEND="milvus")
    res = subprocess.run(["bash", str(BUILD_SH), "--corpus", str(MINI_CATALOG), "--index-dir", str(index_dir)],
                         capture_output=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    assert b"build: milvus:" in res.stderr
    env.pop("RETRIEVER_BACKEND")  # search follows the index, whatever the environment says
    queries = read_jsonl(MINI_DIR / "queries.jsonl")
    stdin = "".join(json.dumps({"query_id": q["query_id"], "question": q["question"]}) + "\n" for q in queries)
    res = subprocess.run(["bash", str(SEARCH_SH), "--index-dir", str(index_dir)], input=stdin.encode(),
                         capture_output=True, env=env, timeout=GUARD_S)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
    out = res.stdout.splitlines(keepends=True)
    assert out[0] == b'{"ready":true}\n' and len(out) == len(queries) + 1
    keys = catalog_keys(MINI_CATALOG)
    for q, line in zip(queries, out[1:], strict=True):
        validate_answer(line, q["query_id"], *keys)
    assert b"stage 1 on Milvus" in res.stderr


def test_search_sh_past_the_engine_budget_answers_every_question_with_one_line_each(milvus_index: Path,
                                                                                   tmp_path: Path) -> None:
    """A budget the engine cannot meet: no call is started, answers still come, each with one stderr line."""
    env = _env(tmp_path, RETRIEVER_ENGINE_BUDGET_S="0.001")
    queries = read_jsonl(MINI_DIR / "queries.jsonl")[:4]
    stdin = "".join(json.dumps({"query_id": q["query_id"], "question": q["question"]}) + "\n" for q in queries)
    res = subprocess.run(["bash", str(SEARCH_SH), "--index-dir", str(milvus_index)], input=stdin.encode(),
                         capture_output=True, env=env, timeout=GUARD_S)
    assert res.returncode == 0
    out = res.stdout.splitlines(keepends=True)
    assert out[0] == b'{"ready":true}\n' and len(out) == len(queries) + 1
    for q, line in zip(queries, out[1:], strict=True):
        validate_answer(line, q["query_id"], *catalog_keys(MINI_CATALOG))
    err = res.stderr.decode()
    assert "Traceback" not in err and "ERROR" not in err, err[-2000:]
    engine_lines = [ln for ln in err.splitlines() if "answered" in ln]
    assert len(engine_lines) == len(queries) and all("budget spent" in ln for ln in engine_lines), err


def test_build_sh_with_an_unreachable_engine_fails_in_one_line(tmp_path: Path) -> None:
    env = _env(tmp_path, RETRIEVER_BACKEND="milvus", RETRIEVER_MILVUS_URI="http://127.0.0.1:9")
    res = subprocess.run(["bash", str(BUILD_SH), "--corpus", str(MINI_CATALOG), "--index-dir",
                          str(tmp_path / "index")], capture_output=True, env=env, timeout=600)
    assert res.returncode != 0 and not (tmp_path / "index").exists()
    err = [ln for ln in res.stderr.decode().splitlines() if "error" in ln]
    assert len(err) == 1 and "unreachable" in err[0] and "Traceback" not in res.stderr.decode(), err


def test_the_default_path_never_imports_pymilvus(mini_index_dir: Path) -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from retriever.api import Retriever; "
            "from retriever.config import Settings; from retriever import cli; "
            "r = Retriever.open(sys.argv[2], Settings(local_model=False)); r.search('how many singers'); "
            "assert not any(m.split('.')[0] in ('pymilvus', 'milvus_lite') for m in sys.modules), 'imported'")
    res = subprocess.run([sys.executable, "-c", code, str(ROOT), str(mini_index_dir)], capture_output=True,
                         env={**os.environ, "RETRIEVER_LOCAL_MODEL": "0"}, timeout=GUARD_S)
    assert res.returncode == 0, res.stderr.decode()[-2000:]
