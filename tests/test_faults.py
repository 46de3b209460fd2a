"""Fault injection and security: each case with the behaviour the retriever promises.

Embedding API faults (the local fake on 127.0.0.1) mixed with valid traffic; a build killed with SIGKILL and
rebuilt into the same dir; corrupt and truncated cache files; read-only index and cache dirs; stdout closed by
the reader; catalogs with 0, 1 and 4 tables, duplicate relationships, relationships to unknown tables; the API
key never written anywhere; no unpickling of index or cache data; the manifest checked before use; paths
passed through untouched.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import pickle
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fakejina import API_KEY, FakeJina
from search_driver import SearchProcess
from test_fuzz import (
    ROOT,
    SEARCH_SH,
    build_small_index,
    catalog_keys,
    join_key,
    server_env,
    small_catalog,
    validate,
)

from retriever.api import Retriever
from retriever.config import Settings
from retriever.embedders import jina
from retriever.embedders.cache import EmbeddingCache
from retriever.embedders.jina import JinaEmbedder
from retriever.errors import BadIndexError, ConfigError, EmbeddingError
from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog
from retriever.index.store import Index, load_index
from retriever.query.planner import Planner, default_models
from retriever.runtime import QueryVectors, build_embedders, query_embedders
from retriever.server import serve

BUILD_SH = ROOT / "submission" / "build.sh"
KEY = API_KEY.encode()


def write_json(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def run_build(
    corpus: Path, index_dir: Path, env: dict[str, str], **kw: Any
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["bash", str(BUILD_SH), "--corpus", str(corpus), "--index-dir", str(index_dir)],
        capture_output=True,
        env=env,
        timeout=300,
        **kw,
    )


def ask_all(
    index_dir: Path, env: dict[str, str], tmp: Path, questions: list[str]
) -> tuple[list[bytes], int | None, str]:
    """Run search.sh over the questions (ids q0, q1, ...); (answer lines, exit code, stderr)."""
    sp = SearchProcess(SEARCH_SH, index_dir, env, stderr=tmp / "search-stderr.log")
    sp.send_raw(
        b"".join(
            json.dumps({"query_id": f"q{i}", "question": q}).encode() + b"\n" for i, q in enumerate(questions)
        )
    )
    rc = sp.close()
    return sp.lines[1:], rc, (tmp / "search-stderr.log").read_text("utf-8", "replace")


def files_hold(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


QUESTIONS = [
    "How many singers are there?",
    "Which singers performed in concerts at each stadium?",
    "What pets do students own?",
    "Routes from Goroka airport",
    "",
    "x",
    "東京 airport city",
]


# --- embedding API faults ---------------------------------------------------------------------------------
def jina_settings(fake: FakeJina, cache_dir: Path, **kw: Any) -> Settings:
    base: dict[str, Any] = {
        "jina_api_key": API_KEY,
        "jina_api_base": fake.base_url,
        "jina_dense_dimensions": 32,
        "local_model": False,
        "cache_dir": cache_dir,
        "jina_timeout_s": 0.4,
        "query_api_budget_s": 1.0,
        "build_api_budget_s": 20.0,
        "jina_max_retries": 2,
    }
    base.update(kw)
    return Settings(**base)


@pytest.fixture
def fake() -> Iterator[FakeJina]:
    with FakeJina() as f:
        yield f


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jina, "_sleep", lambda _s: None)


def jina_index(fake: FakeJina, root: Path) -> tuple[Settings, Path]:
    settings = jina_settings(fake, root / "cache")
    dense, multi = build_embedders(settings)
    index_dir = root / "index"
    manifest = build_index(parse_catalog(small_catalog()), index_dir, dense, multi, log=lambda _m: None)
    assert "dense:jina" in manifest["channels"] and "multi:colbert" in manifest["channels"]
    return settings, index_dir


def live_embedders(settings: Settings, index: Index) -> Callable[[str], QueryVectors]:
    """query_embedders(), working around a known bug so the fault cases still run.

    The manifest records the embedder *name* ("jina/<model>/<dims>") and query_embedders() passes it on as the
    model id, which the allow-list refuses (pinned by test_search_starts_on_an_index_built_with_the_api). Only
    when that exact error occurs is the model id put back in memory; once the bug is fixed this is a no-op.
    """
    try:
        return query_embedders(settings, index)
    except ConfigError as e:
        if "is not allowed" not in str(e):
            raise
    recorded = index.manifest["embedders"]
    index.manifest["embedders"] = {
        k: v.split("/")[1] if v.count("/") == 2 else v for k, v in recorded.items()
    }
    return query_embedders(settings, index)


#: (phase name, fake.fail kwargs or None for a healthy API); each phase asks fresh questions (no cache hits).
PHASES: list[tuple[str, dict[str, Any] | None]] = [
    ("healthy", None),
    ("http500", {"kind": "status", "status": 500}),
    ("http429", {"kind": "status", "status": 429, "retry_after": "0"}),
    ("http401", {"kind": "status", "status": 401}),
    ("key-echo", {"kind": "status", "status": 400, "message": f"bad request from key {API_KEY}"}),
    ("slow", {"kind": "delay", "delay_s": 3.0}),
    ("malformed", {"kind": "malformed"}),
    ("wrong_dim", {"kind": "wrong_dim"}),
    ("short", {"kind": "short"}),
    ("nan", {"kind": "nan"}),
    ("healthy-again", None),
]


def test_api_faults_mixed_with_traffic(
    fake: FakeJina, tmp_path: Path, capfd: pytest.CaptureFixture[str], no_sleep: None
) -> None:
    """Every question gets a valid answer whatever the API does; failing channels are skipped, then return."""
    settings, index_dir = jina_index(fake, tmp_path)
    index = load_index(index_dir)
    planner = Planner(index, default_models())
    embed = live_embedders(settings, index)
    live: list[tuple[str, list[str]]] = []
    phase_name = ["?"]

    def recording_embed(question: str) -> dict[str, np.ndarray]:
        out = embed(question)
        live.append((phase_name[0], sorted(out)))
        return out

    sent: list[str] = []

    def stdin() -> Iterator[bytes]:
        for p, (name, failure) in enumerate(PHASES):
            phase_name[0] = name
            if failure is None:
                fake.fail("status", times=0)  # healthy
            else:
                kw = dict(failure)
                fake.fail(kw.pop("kind"), **kw)
            for i in range(2 if name != "slow" else 1):
                qid = f"{name}-{i}"
                sent.append(qid)
                yield json.dumps(
                    {"query_id": qid, "question": f"{QUESTIONS[(p + i) % 4]} {name} {i}"}
                ).encode()
                yield b"\n"
                yield b"not json at all\n"

    stdout = io.BytesIO()
    assert serve(Retriever(planner, recording_embed), stdin(), stdout) == 0  # type: ignore[arg-type]
    out = stdout.getvalue().splitlines(keepends=True)
    assert json.loads(out[0]) == {"ready": True}
    tables, rels = catalog_keys(small_catalog())
    assert [json.loads(x)["query_id"] for x in out[1:]] == sent
    for raw, qid in zip(out[1:], sent, strict=True):
        validate(raw, qid, tables, rels)
    by_phase: dict[str, list[list[str]]] = {}
    for name, channels in live:
        by_phase.setdefault(name, []).append(channels)
    # The question's content words are embedded alone in the same request, and come back with it.
    assert by_phase["healthy"] == [["jina", "multi:colbert", "words:jina"]] * 2
    # "Routes from Goroka airport": so is the name.
    assert by_phase["healthy-again"] == [["jina", "multi:colbert", "words:jina"],
                                         ["jina", "multi:colbert", "names:jina", "words:jina"]]
    for name, failure in PHASES:
        if failure is not None:  # a failed request loses the question's vector, its names' and words' together
            assert all(not any("jina" in c for c in ch) for ch in by_phase[name]), name
    err = capfd.readouterr()
    assert "channel dense:jina skipped" in err.err
    assert API_KEY not in err.out + err.err
    assert not files_hold(tmp_path / "cache", KEY) and not files_hold(index_dir, KEY)


def test_api_down_at_build_leaves_the_channels_out(fake: FakeJina, tmp_path: Path, no_sleep: None) -> None:
    fake.fail("status", status=503)
    settings = jina_settings(fake, tmp_path / "cache", build_api_budget_s=2.0)
    dense, multi = build_embedders(settings)
    logs: list[str] = []
    manifest = build_index(parse_catalog(small_catalog()), tmp_path / "index", dense, multi, log=logs.append)
    assert manifest["channels"] == ["bm25_tables", "bm25_columns", "bm25_groups", "values"]
    assert any("dense:jina left out" in m for m in logs) and any("multi:colbert left out" in m for m in logs)
    assert not any(API_KEY in m for m in logs)
    # The server built on it needs no API at all.
    index = load_index(tmp_path / "index")
    answer = Planner(index, default_models()).answer("singers", live_embedders(settings, index)("singers"))
    assert len(answer.table_ids) == 5


@pytest.mark.parametrize("status", [400, 401, 403, 422, 500, 503])
def test_error_messages_never_carry_the_key(
    fake: FakeJina, tmp_path: Path, status: int, no_sleep: None
) -> None:
    fake.fail("status", status=status, message=f"invalid key {API_KEY} / Bearer {API_KEY}")
    emb = JinaEmbedder(jina_settings(fake, tmp_path / "cache"), budget_s=2.0)
    with pytest.raises(EmbeddingError) as exc:
        emb.embed(["hello"], "query")
    assert API_KEY not in str(exc.value) and API_KEY not in repr(exc.value)
    assert exc.value.__context__ is None or API_KEY not in str(exc.value.__context__)
    assert API_KEY not in repr(emb) and API_KEY not in repr(jina_settings(fake, tmp_path))


def key_env(fake: FakeJina, tmp_path: Path) -> dict[str, str]:
    env = server_env(tmp_path / "cache")
    env.update(
        JINA_API_KEY=API_KEY,
        JINA_API_BASE=fake.base_url,
        JINA_DIMENSIONS="32",
        JINA_TIMEOUT_S="0.5",
        RETRIEVER_API_BUDGET_S="1",
    )
    return env


def test_cli_build_with_key_never_prints_or_stores_it(fake: FakeJina, tmp_path: Path) -> None:
    env = key_env(fake, tmp_path)
    corpus = write_json(tmp_path / "catalog.json", small_catalog())
    res = run_build(corpus, tmp_path / "index", env)
    assert res.returncode == 0, res.stderr.decode()
    assert "dense:jina" in json.loads((tmp_path / "index" / "manifest.json").read_text())["channels"]
    assert KEY not in res.stdout + res.stderr
    fake.fail("status", status=500, message=f"upstream said {API_KEY}")
    res = run_build(corpus, tmp_path / "index2", env | {"RETRIEVER_CACHE_DIR": str(tmp_path / "cache2")})
    assert res.returncode == 0, res.stderr.decode()
    assert KEY not in res.stdout + res.stderr
    assert not files_hold(tmp_path, KEY), "the key was written to disk"


def test_search_starts_on_an_index_built_with_the_api(fake: FakeJina, tmp_path: Path) -> None:
    """search.sh with JINA_API_KEY set, the API refusing the key: answers stay valid, the key is nowhere."""
    env = key_env(fake, tmp_path)
    corpus = write_json(tmp_path / "catalog.json", small_catalog())
    assert run_build(corpus, tmp_path / "index", env).returncode == 0
    fake.fail("status", status=401, message=f"AUTH_INVALID_API_KEY {API_KEY}")
    answers, rc, err = ask_all(tmp_path / "index", env, tmp_path, QUESTIONS)
    assert KEY not in b"".join(answers) + err.encode()
    assert not files_hold(tmp_path, KEY)
    assert rc == 0 and len(answers) == len(QUESTIONS), err
    tables, rels = catalog_keys(small_catalog())
    for i, raw in enumerate(answers):
        validate(raw, f"q{i}", tables, rels)
    assert "skipped" in err


# --- build killed mid-way ---------------------------------------------------------------------------------
def big_catalog(n_tables: int, seed: int = 3) -> dict[str, Any]:
    """Groups of 5 chained tables with 6 columns and 3 sample rows: slow enough to kill a build mid-way."""
    import random

    r = random.Random(seed)
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
        "mike",
        "november",
        "oscar",
        "papa",
        "quebec",
        "romeo",
        "sierra",
        "tango",
        "uniform",
        "victor",
        "whiskey",
        "xray",
        "yankee",
        "zulu",
    ]
    tables, rels = [], []
    for t in range(n_tables):
        g, k = divmod(t, 5)
        name = f"{r.choice(words)}_{r.choice(words)}_{k}"
        cols = [f"{name}_id", "prev_id"] + [f"{r.choice(words)}_{c}" for c in range(4)]
        tables.append(
            {
                "table_id": f"g{g}.{name}",
                "group": f"g{g}",
                "name": name,
                "description": name,
                "columns": [{"name": c, "type": "text"} for c in cols],
                "primary_key": [cols[0]],
                "sample_rows": [
                    {c: f"{r.choice(words)} {r.randrange(10**6)}" for c in cols} for _ in range(3)
                ],
            }
        )
        if k:
            rels.append(
                {
                    "left_table": f"g{g}.{name}",
                    "left_column": "prev_id",
                    "right_table": tables[-2]["table_id"],
                    "right_column": tables[-2]["columns"][0]["name"],
                }
            )
    return {"tables": tables, "relationships": rels}


def kill_build_when(corpus: Path, index_dir: Path, env: dict[str, str], marker: str) -> Path:
    """Start build.sh; SIGKILL its process group as soon as a temp dir holding `marker` exists. Returns it."""
    proc = subprocess.Popen(
        ["bash", str(BUILD_SH), "--corpus", str(corpus), "--index-dir", str(index_dir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            hits = [
                d for d in index_dir.parent.glob(f".{index_dir.name}.building-*") if (d / marker).exists()
            ]
            if hits:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return hits[0]
            time.sleep(0.005)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    pytest.fail(f"the build finished (rc={proc.returncode}) before {marker} appeared: use a bigger catalog")


def snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_json(tmp_path_factory.mktemp("big") / "catalog.json", big_catalog(4000))


@pytest.mark.parametrize("marker", ["", "catalog.json", "bm25_tables"])
def test_kill_9_mid_build_then_rebuild(big_corpus: Path, tmp_path: Path, marker: str) -> None:
    """No index before: a killed build leaves no index at the final path; the rebuild works and cleans up."""
    env = server_env(tmp_path / "cache")
    index_dir = tmp_path / "out" / "index"
    stale = kill_build_when(big_corpus, index_dir, env, marker)
    assert not index_dir.exists(), "a killed build left something at the final path"
    assert stale.is_dir()  # the temp dir is garbage now, removed by the next successful build
    res = run_build(big_corpus, index_dir, env)
    assert res.returncode == 0, res.stderr.decode()
    assert not list(index_dir.parent.glob(".index.*")), "stale temp dirs left behind"
    load_index(index_dir)
    cat = json.loads(big_corpus.read_text())
    answers, rc, _ = ask_all(index_dir, env, tmp_path, ["alpha bravo", "zulu 12"])
    assert rc == 0
    tables, rels = catalog_keys(cat)
    for i, raw in enumerate(answers):
        validate(raw, f"q{i}", tables, rels)


def test_kill_9_mid_rebuild_keeps_the_previous_index(big_corpus: Path, tmp_path: Path) -> None:
    env = server_env(tmp_path / "cache")
    index_dir = build_small_index(tmp_path / "out")
    before = snapshot(index_dir)
    for marker in ("", "column_table.npy"):
        kill_build_when(big_corpus, index_dir, env, marker)
        assert snapshot(index_dir) == before, "the previous complete index was touched by a killed build"
        load_index(index_dir)
    answers, rc, _ = ask_all(index_dir, env, tmp_path, ["singers"])
    assert rc == 0
    validate(answers[0], "q0", *catalog_keys(small_catalog()))
    res = run_build(big_corpus, index_dir, env)
    assert res.returncode == 0, res.stderr.decode()
    assert sorted(p.name for p in index_dir.parent.iterdir()) == ["index"], "temp or old dirs left behind"
    assert load_index(index_dir).manifest["counts"]["tables"] == 4000


# --- the embedding cache ----------------------------------------------------------------------------------
def test_garbage_cache_file_degrades_to_memory(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    (cache_dir / "cache.db").write_bytes(os.urandom(8192))
    cache = EmbeddingCache(cache_dir)
    assert not cache.persistent
    # The CLI on the same cache dir: build and search work, no traceback.
    env = server_env(cache_dir)
    corpus = write_json(tmp_path / "catalog.json", small_catalog())
    res = run_build(corpus, tmp_path / "index", env)
    assert res.returncode == 0 and b"Traceback" not in res.stderr
    answers, rc, err = ask_all(tmp_path / "index", env, tmp_path, QUESTIONS)
    assert rc == 0 and len(answers) == len(QUESTIONS) and "Traceback" not in err


def serve_in_process(settings: Settings, index_dir: Path, prefix: str) -> list[bytes]:
    """QUESTIONS through serve() with the live embedders; the answer lines after the ready line."""
    index = load_index(index_dir)
    planner = Planner(index, default_models())
    stdout = io.BytesIO()
    lines = [json.dumps({"query_id": f"{prefix}{i}", "question": q}).encode() + b"\n"
             for i, q in enumerate(QUESTIONS)]
    assert serve(Retriever(planner, live_embedders(settings, index)), iter(lines), stdout) == 0  # type: ignore[arg-type]
    return stdout.getvalue().splitlines(keepends=True)[1:]


@pytest.mark.parametrize("damage", ["truncate", "scribble", "garbage"])
def test_damaged_cache_with_api_channels(fake: FakeJina, tmp_path: Path, damage: str, no_sleep: None) -> None:
    """A cache filled by a build, then damaged: the server still answers (refetching) and stays valid."""
    settings, index_dir = jina_index(fake, tmp_path)
    db = tmp_path / "cache" / "cache.db"
    data = db.read_bytes()
    assert len(data) > 8192
    if damage == "truncate":
        db.write_bytes(data[: len(data) // 2])
    elif damage == "scribble":
        db.write_bytes(data[:4096] + os.urandom(len(data) - 8192) + data[-4096:])
    else:
        db.write_bytes(os.urandom(len(data)))
    out = serve_in_process(settings, index_dir, "c")
    tables, rels = catalog_keys(small_catalog())
    assert len(out) == len(QUESTIONS)
    for i, raw in enumerate(out):
        validate(raw, f"c{i}", tables, rels)


# --- read-only dirs ---------------------------------------------------------------------------------------
def _chmod_tree(root: Path, dir_mode: int, file_mode: int) -> None:
    for p in [root, *root.rglob("*")]:
        p.chmod(dir_mode if p.is_dir() else file_mode)


def _writes_blocked(d: Path) -> bool:
    probe = d / ".write-probe"
    try:
        probe.write_bytes(b"x")
    except OSError:
        return True
    probe.unlink()
    return False


def test_read_only_index_and_cache_dirs(tmp_path: Path) -> None:
    index_dir = build_small_index(tmp_path)
    cache_dir = tmp_path / "cache"
    EmbeddingCache(cache_dir).close()  # a real (empty) cache, then frozen
    _chmod_tree(index_dir, 0o555, 0o444)
    _chmod_tree(cache_dir, 0o555, 0o444)
    try:
        if not (_writes_blocked(index_dir) and _writes_blocked(cache_dir)):
            pytest.skip(
                f"running as uid {os.geteuid()}: chmod does not stop this user's writes, so a read-only "
                "dir cannot be simulated (see test_search_never_writes_to_the_index_dir)"
            )
        answers, rc, err = ask_all(index_dir, server_env(cache_dir), tmp_path, QUESTIONS)
        assert rc == 0 and len(answers) == len(QUESTIONS) and "Traceback" not in err
        tables, rels = catalog_keys(small_catalog())
        for i, raw in enumerate(answers):
            validate(raw, f"q{i}", tables, rels)
    finally:
        _chmod_tree(index_dir, 0o755, 0o644)
        _chmod_tree(cache_dir, 0o755, 0o644)


def test_search_never_writes_to_the_index_dir(tmp_path: Path) -> None:
    """What makes a read-only index dir safe, checked even as root: serving leaves it byte-for-byte alone."""
    index_dir = build_small_index(tmp_path)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in index_dir.rglob("*") if p.is_file()}
    dirs_before = sorted(index_dir.rglob("*"))
    answers, rc, _ = ask_all(index_dir, server_env(tmp_path / "cache"), tmp_path, QUESTIONS)
    assert rc == 0 and len(answers) == len(QUESTIONS)
    assert sorted(index_dir.rglob("*")) == dirs_before
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in index_dir.rglob("*") if p.is_file()} == before


# --- stdout closed by the reader --------------------------------------------------------------------------
def test_reader_closing_stdout_ends_the_server_quietly(tmp_path: Path) -> None:
    index_dir = build_small_index(tmp_path)
    err_path = tmp_path / "stderr.log"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            ["bash", str(SEARCH_SH), "--index-dir", str(index_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            env=server_env(tmp_path / "cache"),
        )
        assert proc.stdout is not None and proc.stdin is not None
        assert json.loads(proc.stdout.readline()) == {"ready": True}
        proc.stdout.close()
        proc.stdin.write(b'{"query_id": "gone", "question": "singers"}\n')
        proc.stdin.flush()
        try:
            rc = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail("the server kept running after its reader went away")
        finally:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
    text = err_path.read_text("utf-8", "replace")
    assert "stdout closed by the reader" in text
    assert "Traceback" not in text and "Exception ignored" not in text, text
    assert rc == 0


# --- catalogs: 0, 1, 4 tables; duplicate and dangling relationships ---------------------------------------
@pytest.mark.parametrize(
    "catalog",
    [
        {"tables": [], "relationships": []},
        {"tables": {}},
        [],
        {},
        {
            "tables": [],
            "relationships": [
                {"left_table": "a.b", "left_column": "x", "right_table": "a.c", "right_column": "y"}
            ],
        },
    ],
)
def test_zero_tables_fails_with_one_clear_line(tmp_path: Path, catalog: Any) -> None:
    corpus = write_json(tmp_path / "catalog.json", catalog)
    res = run_build(corpus, tmp_path / "index", server_env(tmp_path / "cache"))
    assert res.returncode != 0
    err = res.stderr.decode().strip().splitlines()
    assert len(err) == 1 and err[0].startswith("retriever build: error:") and "no tables" in err[0], err
    assert not (tmp_path / "index").exists() and not list(tmp_path.glob(".index.*"))


def tiny_catalog(n: int) -> dict[str, Any]:
    full = small_catalog()
    tables = full["tables"][:n]
    ids = {t["table_id"] for t in tables}
    rels = [r for r in full["relationships"] if r["left_table"] in ids and r["right_table"] in ids]
    return {"tables": tables, "relationships": rels}


@pytest.mark.parametrize("n", [1, 4])
def test_small_catalogs_answer_min_5_n_tables(tmp_path: Path, n: int) -> None:
    """The verifier wants exactly min(5, len(tables)) ids; fewer than 5 tables means all of them."""
    cat = tiny_catalog(n)
    corpus = write_json(tmp_path / "catalog.json", cat)
    env = server_env(tmp_path / "cache")
    res = run_build(corpus, tmp_path / "index", env)
    assert res.returncode == 0, res.stderr.decode()
    answers, rc, _ = ask_all(tmp_path / "index", env, tmp_path, QUESTIONS + ["singers and their concerts"])
    assert rc == 0 and len(answers) == len(QUESTIONS) + 1
    tables, rels = catalog_keys(cat)
    for i, raw in enumerate(answers):
        ids, _ = validate(raw, f"q{i}", tables, rels)
        assert ids == tables  # n <= 5: every table, every time
    if n == 4:  # singer, concert, stadium, singer_in_concert: the two joins among them come back when asked
        last = json.loads(answers[-1])
        assert {join_key(j) for j in last["joins"]} == rels


def test_duplicate_relationships_are_collapsed(tmp_path: Path) -> None:
    cat = small_catalog()
    r0, r1 = cat["relationships"][1], cat["relationships"][2]
    flipped = {
        "left_table": r0["right_table"],
        "left_column": r0["right_column"],
        "right_table": r0["left_table"],
        "right_column": r0["left_column"],
    }
    cat["relationships"] += [dict(r0), dict(r1), flipped, dict(r1)]
    corpus = write_json(tmp_path / "catalog.json", cat)
    env = server_env(tmp_path / "cache")
    res = run_build(corpus, tmp_path / "index", env)
    assert res.returncode == 0, res.stderr.decode()
    index = load_index(tmp_path / "index")
    unique = {join_key(r) for r in cat["relationships"]}
    assert index.manifest["counts"]["relationships"] == len(unique) == 7
    assert len({r.key() for r in index.catalog.relationships}) == len(index.catalog.relationships)
    answers, rc, _ = ask_all(
        tmp_path / "index",
        env,
        tmp_path,
        ["Which singers sang in which concert?", "singer in concert singer concert stadium"],
    )
    assert rc == 0
    tables, rels = catalog_keys(cat)
    for i, raw in enumerate(answers):
        _, keys = validate(raw, f"q{i}", tables, rels)  # validate() rejects duplicate joins
        assert len(keys) == len(json.loads(raw)["joins"])
    assert any(json.loads(a)["joins"] for a in answers)


def test_relationships_to_unknown_tables_or_columns_are_skipped_with_warnings(tmp_path: Path) -> None:
    cat = small_catalog()
    good = {join_key(r) for r in cat["relationships"]}
    cat["relationships"] += [
        {
            "left_table": "concert.singer",
            "left_column": "Singer_ID",
            "right_table": "nowhere.ghost",
            "right_column": "id",
        },
        {"left_table": "ghost.town", "left_column": "x", "right_table": "pets.pets", "right_column": "PetID"},
        {
            "left_table": "pets.pets",
            "left_column": "no_such_column",
            "right_table": "pets.student",
            "right_column": "StuID",
        },
        {"left_table": "pets.pets"},
        "not an object",
    ]
    corpus = write_json(tmp_path / "catalog.json", cat)
    env = server_env(tmp_path / "cache")
    res = run_build(corpus, tmp_path / "index", env)
    assert res.returncode == 0, res.stderr.decode()
    err = res.stderr.decode()
    assert "build: warning: relationship to unknown table 'nowhere.ghost' skipped" in err
    assert "build: warning: relationship to unknown table 'ghost.town' skipped" in err
    assert "names an unknown column" in err and "5 catalog warning(s) in all" in err
    assert "Traceback" not in err
    index = load_index(tmp_path / "index")
    assert {r.key() for r in index.catalog.relationships} == good
    answers, rc, _ = ask_all(tmp_path / "index", env, tmp_path, QUESTIONS + ["ghost town pets of singers"])
    assert rc == 0
    tables = {t["table_id"] for t in cat["tables"]}
    for i, raw in enumerate(answers):
        validate(raw, f"q{i}", tables, good)  # only real relationships, never the skipped ones


# --- security: no unpickling, manifest checked, paths passed as given ------------------------------------
RETRIEVER_SRC = sorted((ROOT / "retriever").glob("*.py"))
#: Built-in names (bare calls; re.compile is fine) and module functions that run code or a shell.
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_ATTRS = {("os", "system"), ("os", "popen"), ("builtins", "eval"), ("builtins", "exec")}
FORBIDDEN_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "joblib"}


def test_source_has_no_eval_pickle_or_shell() -> None:
    problems = []
    for path in RETRIEVER_SRC:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
                )
                if any(n.split(".")[0] in FORBIDDEN_MODULES for n in names):
                    problems.append(f"{where} imports {names}")
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
                owner = (
                    fn.value.id if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) else ""
                )
                if (isinstance(fn, ast.Name) and name in FORBIDDEN_CALLS) or (owner, name) in FORBIDDEN_ATTRS:
                    problems.append(f"{where} calls {owner + '.' if owner else ''}{name}()")
                for kw in node.keywords:
                    if kw.arg == "shell" and not (
                        isinstance(kw.value, ast.Constant) and kw.value.value is False
                    ):
                        problems.append(f"{where} passes shell=")
                    if kw.arg == "allow_pickle" and not (
                        isinstance(kw.value, ast.Constant) and kw.value.value is False
                    ):
                        problems.append(f"{where} allow_pickle is not False")
                if (
                    name == "load"
                    and isinstance(fn, ast.Attribute)
                    and isinstance(fn.value, ast.Name)
                    and fn.value.id == "np"
                    and not any(k.arg == "allow_pickle" for k in node.keywords)
                ):
                    problems.append(f"{where} np.load without allow_pickle=False")
    assert not problems


def test_nothing_is_unpickled_when_loading_and_serving(
    fake: FakeJina, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_sleep: None
) -> None:
    """With every unpickling entry point booby-trapped, loading, caching and answering still work."""
    settings, index_dir = jina_index(fake, tmp_path)
    # A pickled value planted in the cache under a real key must be a miss, never loaded.
    cache = EmbeddingCache(settings.cache_dir)
    assert cache._disk is not None
    for key in list(cache._disk.iterkeys())[:3]:
        cache._disk.set(key, {"planted": True})  # stored by diskcache as a pickle
    cache.close()
    calls: list[str] = []

    def trap(name: str) -> Any:
        def f(*_a: Any, **_k: Any) -> Any:
            calls.append(name)
            raise AssertionError(f"pickle.{name} called")

        return f

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, trap(name))
    assert len(serve_in_process(settings, index_dir, "p")) == len(QUESTIONS)
    assert calls == []


def _reseal(index_dir: Path, rel: str) -> None:
    """Make the manifest agree with a file we replaced, so only the content checks are left to catch it."""
    import hashlib

    m = json.loads((index_dir / "manifest.json").read_text())
    data = (index_dir / rel).read_bytes()
    m["files"][rel] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (index_dir / "manifest.json").write_text(json.dumps(m))


class _Marker:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.path, "w"))


def test_pickled_array_in_the_index_is_refused_not_loaded(tmp_path: Path) -> None:
    index_dir = build_small_index(tmp_path)
    marker = tmp_path / "UNPICKLED"
    np.save(index_dir / "column_table.npy", np.array([_Marker(str(marker))], dtype=object), allow_pickle=True)
    _reseal(index_dir, "column_table.npy")
    with pytest.raises(BadIndexError):
        load_index(index_dir)
    assert not marker.exists()


@pytest.mark.parametrize("tamper", ["flip-byte", "truncate", "format", "not-json", "no-files", "drop-file"])
def test_tampered_index_is_refused_before_ready(tmp_path: Path, tamper: str) -> None:
    index_dir = build_small_index(tmp_path)
    m_path = index_dir / "manifest.json"
    manifest = json.loads(m_path.read_text())
    if tamper == "flip-byte":
        p = index_dir / "catalog.json"
        data = bytearray(p.read_bytes())
        data[len(data) // 2] ^= 0x01
        p.write_bytes(bytes(data))
    elif tamper == "truncate":
        p = index_dir / "bm25_columns" / "data.csc.index.npy"
        p.write_bytes(p.read_bytes()[:-16])
    elif tamper == "format":
        m_path.write_text(json.dumps({**manifest, "format": 999}))
    elif tamper == "not-json":
        m_path.write_text("{ this is not json")
    elif tamper == "no-files":
        m_path.write_text(json.dumps({k: v for k, v in manifest.items() if k != "files"}))
    else:
        (index_dir / "value_phrases.json").unlink()
    answers, rc, err = ask_all(index_dir, server_env(tmp_path / "cache"), tmp_path, ["singers"])
    assert rc not in (0, None) and answers == []
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("retriever serve: error:") and "Traceback" not in err, err


def test_manifest_must_cover_the_files_it_loads(tmp_path: Path) -> None:
    index_dir = build_small_index(tmp_path)
    m = json.loads((index_dir / "manifest.json").read_text())
    (index_dir / "manifest.json").write_text(json.dumps({**m, "files": {}}))
    cat_path = index_dir / "catalog.json"
    cat_path.write_text(cat_path.read_text().replace('"concert.singer"', '"concert.evil"'))
    with pytest.raises(BadIndexError):
        load_index(index_dir)


def test_manifest_paths_stay_inside_the_index(tmp_path: Path) -> None:
    index_dir = build_small_index(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not part of the index")
    import hashlib

    m = json.loads((index_dir / "manifest.json").read_text())
    meta = {"bytes": outside.stat().st_size, "sha256": hashlib.sha256(outside.read_bytes()).hexdigest()}
    m["files"][str(outside)] = meta
    m["files"]["../outside.txt"] = meta
    (index_dir / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(BadIndexError):
        load_index(index_dir)


NASTY = "we ird;$(touch PWNED)`touch PWNED2`'\"&|<>*?[x]é\t!#~"


def test_paths_are_used_as_given_never_through_a_shell(tmp_path: Path) -> None:
    base = tmp_path / NASTY
    base.mkdir()
    corpus = write_json(base / f"cat {NASTY}.json", small_catalog())
    index_dir = base / f"idx {NASTY}"
    env = server_env(tmp_path / "cache")
    res = run_build(corpus, index_dir, env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr.decode()
    assert (index_dir / "manifest.json").is_file()
    answers, rc, _ = ask_all(index_dir, env, tmp_path, ["singers"])
    assert rc == 0 and len(answers) == 1
    created = {p.name for p in tmp_path.rglob("PWNED*")} | {p.name for p in Path.cwd().glob("PWNED*")}
    assert not created, "a path was evaluated by a shell"
    src = [p.read_text() for p in [*(ROOT / "submission").glob("*.sh"), ROOT / "submission" / "_launch.py"]]
    assert all('"$@"' in s for s in src if "exec" in s and s.startswith("#!"))
