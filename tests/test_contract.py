"""The submission contract: build.sh and search.sh as the verifier runs them, good and bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    MINI_CATALOG,
    MINI_DIR,
    ROOT,
    catalog_keys,
    covered,
    join_key,
    read_jsonl,
    sealed_env,
    validate_answer,
)
from search_driver import SearchProcess

from retriever.index.store import load_index

BUILD_SH = ROOT / "submission" / "build.sh"
SEARCH_SH = ROOT / "submission" / "search.sh"
#: Hang guard for any single wait on the subprocess; a guard against a stuck test, never a timing assertion.
GUARD_S = 120.0
KEYS = catalog_keys(MINI_CATALOG)


_ids = count()


def _line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _qid(prefix: str = "q") -> str:
    return f"{prefix}-{next(_ids)}"


def _wait_for_stderr(search: SearchProcess, since: int) -> list[str]:
    """stderr lines written after the first `since`, waiting (bounded) for at least one."""
    deadline = time.monotonic() + GUARD_S
    while time.monotonic() < deadline:
        new = [line for line in search.stderr_lines()[since:] if line.strip()]
        if new:
            return new
        time.sleep(0.02)
    return []


@pytest.fixture(scope="module")
def built_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini catalog built by build.sh exactly as the verifier calls it."""
    work = tmp_path_factory.mktemp("contract")
    index_dir = work / "index"
    res = subprocess.run(
        ["bash", str(BUILD_SH), "--corpus", str(MINI_CATALOG), "--index-dir", str(index_dir)],
        capture_output=True, env=sealed_env(work / "cache"), timeout=600,
    )
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    assert (index_dir / "manifest.json").is_file()
    return index_dir


@pytest.fixture(scope="module")
def search(built_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchProcess]:
    """One search.sh process shared by the module; every test syncs on its own query ids."""
    s = SearchProcess(SEARCH_SH, built_index, sealed_env(tmp_path_factory.mktemp("search-cache")))
    try:
        s.wait_ready(GUARD_S)
        yield s
    finally:
        if s.proc.poll() is None:
            s.close(GUARD_S)


def ask(search: SearchProcess, obj: Any, qid: Any, ensure_ascii: bool = True) -> tuple[set[str], set[Any]]:
    """Send one request and validate the next line as its answer."""
    search.send(obj, ensure_ascii=ensure_ascii)
    raw = search.read(GUARD_S)
    assert raw is not None, f"search.sh exited: {search.stderr_lines()[-5:]}"
    return validate_answer(raw, qid, *KEYS)


# --- search.sh: normal questions --------------------------------------------------------------------------


def test_mini_questions_answered_validly_and_mostly_covered(search: SearchProcess) -> None:
    labels = {row["query_id"]: row for row in read_jsonl(MINI_DIR / "labels.jsonl")}
    queries = read_jsonl(MINI_DIR / "queries.jsonl")
    assert len(queries) == len(labels) >= 10
    hits = 0
    for q in queries:
        ids, keys = ask(search, {"query_id": q["query_id"], "question": q["question"]}, q["query_id"])
        hits += covered(labels[q["query_id"]]["plans"], ids, keys)
    assert hits >= 0.8 * len(queries), f"only {hits}/{len(queries)} gold plans covered"


def test_answers_use_catalog_orientation_of_joins(search: SearchProcess) -> None:
    rels = {join_key(r): r for r in json.loads(MINI_CATALOG.read_text(encoding="utf-8"))["relationships"]}
    qid = _qid()
    search.send({"query_id": qid, "question": "Show the names of pilots and models of aircrafts they flew."})
    raw = search.read(GUARD_S)
    assert raw is not None
    validate_answer(raw, qid, *KEYS)
    joins = json.loads(raw)["joins"]
    assert joins, "a pilot/aircraft question should join through pilot_record"
    for j in joins:
        assert j == rels[join_key(j)]


# --- search.sh: lines that get no answer ------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    b"this is not json\n",
    b'{"query_id": "unterminated\n',
    b"[1, 2, 3]\n",
    b'["query_id", "question"]\n',
    b'"just a string"\n',
    b"42\n",
    b"null\n",
    b'{"question": "How many debates are there?"}\n',
    b'{"query_id": 7, "question": "How many debates are there?"}\n',
    b'{"query_id": null, "question": "How many debates are there?"}\n',
    b'{"query_id": ["a"], "question": "How many debates are there?"}\n',
    b'{"query_id": {"id": "a"}, "question": "How many debates are there?"}\n',
    b'{"query_id": true, "question": "How many debates are there?"}\n',
])
def test_bad_line_gets_no_answer_but_a_diagnostic(search: SearchProcess, line: bytes) -> None:
    since = len(search.stderr_lines())
    search.send_raw(line)
    qid = _qid("after-bad")
    ask(search, {"query_id": qid, "question": "How many courses are there?"}, qid)
    assert _wait_for_stderr(search, since), f"no stderr diagnostic for {line!r}"


def test_blank_lines_are_skipped(search: SearchProcess) -> None:
    search.send_raw(b"\n   \n\t\n")
    qid = _qid("after-blank")
    ask(search, {"query_id": qid, "question": "How many dorms are there?"}, qid)


def test_several_requests_in_one_write_answered_in_order(search: SearchProcess) -> None:
    ids = [_qid("batch") for _ in range(5)]
    payload = b"".join(_line({"query_id": i, "question": "List all wines."}) for i in ids)
    search.send_raw(payload)
    for i in ids:
        raw = search.read(GUARD_S)
        assert raw is not None
        validate_answer(raw, i, *KEYS)


# --- search.sh: odd questions still get a valid answer ----------------------------------------------------


@pytest.mark.parametrize("extra", [
    {},
    {"question": ""},
    {"question": "   "},
    {"question": None},
    {"question": 12345},
    {"question": 1.5},
    {"question": ["How", "many"]},
    {"question": {"text": "How many debates?"}},
    {"question": True},
    {"question": "x" * (1 << 20)},
    {"question": "How many debates are there? " * 40_000},
    {"question": "\u0000\u0001\u202e\ufeff"},
    {"question": "Wie viele Debatten gibt es? 討論は何件ありますか 🧪"},
])
def test_odd_question_gets_a_valid_answer(search: SearchProcess, extra: dict[str, Any]) -> None:
    qid = _qid("odd")
    ask(search, {"query_id": qid, **extra}, qid)


def test_unknown_keys_are_ignored(search: SearchProcess) -> None:
    question = "Show the names of people and the number of times they have been on the affirmative side."
    base, other = _qid("plain"), _qid("extra")
    plain = ask(search, {"query_id": base, "question": question}, base)
    extra = ask(search, {"top_k": 3, "query_id": other, "question": question, "db_id": "debate",
                         "options": {"nested": [1, 2]}, "ready": True}, other)
    assert extra == plain


@pytest.mark.parametrize("qid", [
    "",
    "Ünïcødé-✓",
    "日本語のクエリ",
    "emoji 🧪🚀",
    "café",
    "cafe\u0301",
    "zero\u200bwidth",
    "tab\tnew\nline",
    'quote " and \\ backslash',
    "  spaces  ",
    "\u0000nul",
    "x" * 2000,
])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_query_id_echoed_exactly(search: SearchProcess, qid: str, ensure_ascii: bool) -> None:
    search.send({"query_id": qid, "question": "How many aircrafts do we have?"}, ensure_ascii=ensure_ascii)
    raw = search.read(GUARD_S)
    assert raw is not None
    validate_answer(raw, qid, *KEYS)
    assert json.loads(raw)["query_id"] == qid


# --- search.sh: lifecycle ---------------------------------------------------------------------------------


def test_eof_exits_zero(built_index: Path, subprocess_env: dict[str, str]) -> None:
    s = SearchProcess(SEARCH_SH, built_index, subprocess_env)
    s.wait_ready(GUARD_S)
    qid = _qid("last")
    s.send({"query_id": qid, "question": "How many debates are there?"})
    raw = s.read(GUARD_S)
    assert raw is not None
    validate_answer(raw, qid, *KEYS)
    assert s.close(GUARD_S) == 0
    assert s.read(GUARD_S) is None


def test_eof_right_after_ready_exits_zero(built_index: Path, subprocess_env: dict[str, str]) -> None:
    s = SearchProcess(SEARCH_SH, built_index, subprocess_env)
    s.wait_ready(GUARD_S)
    assert s.close(GUARD_S) == 0


def _search_fails_before_ready(index_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    res = subprocess.run(["bash", str(SEARCH_SH), "--index-dir", str(index_dir)], input=b"",
                         capture_output=True, env=sealed_env(tmp_path / "cache"), timeout=GUARD_S)
    assert res.returncode != 0
    assert b'"ready"' not in res.stdout
    assert res.stderr.strip(), "failure without a diagnostic"
    return res


def test_search_on_missing_index_dir_fails_before_ready(tmp_path: Path) -> None:
    res = _search_fails_before_ready(tmp_path / "no-such-index", tmp_path)
    assert b"Traceback" not in res.stderr


def test_search_on_corrupt_index_fails_before_ready(built_index: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(built_index, broken)
    victim = broken / "column_table.npy"
    victim.write_bytes(victim.read_bytes()[:-8])
    res = _search_fails_before_ready(broken, tmp_path)
    assert b"Traceback" not in res.stderr


# --- build.sh errors ---------------------------------------------------------------------------------------


def _build(corpus: Path, index_dir: Path, *extra: str) -> subprocess.CompletedProcess[bytes]:
    cmd = ["bash", str(BUILD_SH), "--corpus", str(corpus), "--index-dir", str(index_dir), *extra]
    return subprocess.run(cmd, capture_output=True, env=sealed_env(index_dir.parent / "cache"), timeout=600)


def _one_clear_line(res: subprocess.CompletedProcess[bytes], needle: str) -> None:
    assert res.returncode != 0
    lines = [ln for ln in res.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert needle in lines[0].lower(), lines[0]
    assert "Traceback" not in lines[0]


def test_build_missing_catalog(tmp_path: Path) -> None:
    res = _build(tmp_path / "nope.json", tmp_path / "index")
    _one_clear_line(res, "nope.json")
    assert not (tmp_path / "index").exists()


def test_build_invalid_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"tables": [{"table_id": "a"', encoding="utf-8")
    res = _build(bad, tmp_path / "index")
    _one_clear_line(res, "json")
    assert not (tmp_path / "index").exists()


def test_build_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.json"
    bad.write_bytes('{"tables": [{"table_id": "café"}]}'.encode("latin-1"))
    _one_clear_line(_build(bad, tmp_path / "index"), "utf-8")


def test_build_duplicate_ids(tmp_path: Path) -> None:
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps({"tables": [{"table_id": "g.t"}, {"table_id": "g.u"}, {"table_id": "g.t"}]}),
                   encoding="utf-8")
    _one_clear_line(_build(dup, tmp_path / "index"), "duplicate table id")
    assert not (tmp_path / "index").exists()


def test_build_failure_keeps_an_existing_index(built_index: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    shutil.copytree(built_index, index_dir)
    before = (index_dir / "manifest.json").read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert _build(bad, index_dir).returncode != 0
    assert (index_dir / "manifest.json").read_bytes() == before


def test_build_counts_skipped_relationships(tmp_path: Path) -> None:
    cat = tmp_path / "warn.json"
    rels = [{"left_table": "g.a", "left_column": "x", "right_table": "g.b", "right_column": "x"},
            {"left_table": "g.a", "left_column": "x", "right_table": "g.zz", "right_column": "x"},
            {"left_table": "g.a", "left_column": "nope", "right_table": "g.b", "right_column": "x"}]
    cat.write_text(json.dumps({"tables": [{"table_id": "g.a", "columns": ["x"]},
                                          {"table_id": "g.b", "columns": ["x"]}], "relationships": rels}),
                   encoding="utf-8")
    res = _build(cat, tmp_path / "index")
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    err = res.stderr.decode("utf-8", "replace")
    assert "2 catalog warning(s)" in err and "g.zz" in err
    stored = load_index(tmp_path / "index").catalog.relationships
    assert [r.as_dict() for r in stored] == rels[:1]


def test_build_catalog_without_any_column(tmp_path: Path) -> None:
    cat = tmp_path / "nocols.json"
    cat.write_text(json.dumps({"tables": [{"table_id": "g.a"}, {"table_id": "g.b"}]}), encoding="utf-8")
    res = _build(cat, tmp_path / "index")
    assert res.returncode == 0, res.stderr.decode(errors="replace")[-300:]


def test_build_unknown_argument_exits_2_with_usage(tmp_path: Path) -> None:
    res = _build(MINI_CATALOG, tmp_path / "index", "--frobnicate")
    assert res.returncode == 2
    assert b"usage" in res.stderr.lower()
    assert not (tmp_path / "index").exists()


def test_build_missing_arguments_exit_2_with_usage(subprocess_env: dict[str, str]) -> None:
    res = subprocess.run(["bash", str(BUILD_SH)], capture_output=True, env=subprocess_env,
                         timeout=GUARD_S)
    assert res.returncode == 2
    assert b"usage" in res.stderr.lower()


# --- the validator itself ---------------------------------------------------------------------------------


_GOOD_IDS = ["debate.people", "debate.debate", "debate.debate_people", "dorm_1.Dorm", "wine_1.wine"]
_GOOD_JOIN = {"left_table": "debate.debate_people", "left_column": "Debate_ID",
              "right_table": "debate.debate", "right_column": "Debate_ID"}


def test_validate_answer_accepts_a_good_line_in_either_join_direction() -> None:
    rev = {"left_table": _GOOD_JOIN["right_table"], "left_column": _GOOD_JOIN["right_column"],
           "right_table": _GOOD_JOIN["left_table"], "right_column": _GOOD_JOIN["left_column"]}
    for j in (_GOOD_JOIN, rev):
        line = _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": [j]})
        ids, keys = validate_answer(line, "a", *KEYS)
        assert ids == set(_GOOD_IDS) and keys == {join_key(_GOOD_JOIN)}


@pytest.mark.parametrize("raw", [
    _line({"query_id": "b", "table_ids": _GOOD_IDS, "joins": []}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS[:4], "joins": []}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS[:4] * 2, "joins": []}),
    _line({"query_id": "a", "table_ids": [*_GOOD_IDS[:4], _GOOD_IDS[0]], "joins": []}),
    _line({"query_id": "a", "table_ids": [*_GOOD_IDS[:4], "nope.t"], "joins": []}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": [_GOOD_JOIN, _GOOD_JOIN]}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": [dict(_GOOD_JOIN, left_column="x")]}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": [dict(_GOOD_JOIN, extra="x")]}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": [_GOOD_JOIN] * 7}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": {}}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": [], "score": 1}),
    _line({"query_id": "a", "table_ids": ["debate.people", "debate.debate", "dorm_1.Dorm", "wine_1.wine",
                                          "flight_1.flight"], "joins": [_GOOD_JOIN]}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": [], "pad": "x" * 70_000}),
    _line({"query_id": "a", "table_ids": _GOOD_IDS, "joins": []})[:-1],
    b"[]\n",
])
def test_validate_answer_rejects(raw: bytes) -> None:
    with pytest.raises(ValueError):
        validate_answer(raw, "a", *KEYS)


# --- make run: the demo script --------------------------------------------------------------------------


def test_demo_script_prints_reasons_joins_and_coverage(built_index: Path,
                                                      subprocess_env: dict[str, str]) -> None:
    res = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo.py"), "--index-dir", str(built_index),
         "--queries", str(MINI_DIR / "queries.jsonl"), "--labels", str(MINI_DIR / "labels.jsonl")],
        capture_output=True, env=subprocess_env, timeout=GUARD_S,
    )
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    out = res.stdout.decode("utf-8")
    queries = read_jsonl(MINI_DIR / "queries.jsonl")
    for q in queries:
        assert f"[{q['query_id']}] {q['question']}" in out
    table_lines = [ln for ln in out.splitlines() if ln[:5].strip().rstrip(".").isdigit()]
    assert len(table_lines) == 5 * len(queries)
    assert all(len(ln.split()) >= 3 for ln in table_lines), "every table line carries a reason"
    assert out.count("  joins: ") == len(queries)
    assert out.count("  gold:  ") == len(queries)
    assert out.rstrip().splitlines()[-1].startswith("coverage ") and f"/{len(queries)} = " in out


def test_rrf_k_setting_reaches_the_server(built_index: Path, tmp_path: Path) -> None:
    """RETRIEVER_RRF_K is read by the entry point and changes the server's fusion (it once reached eval only)."""
    questions = [q["question"] for q in read_jsonl(MINI_DIR / "queries.jsonl")]

    def answers(k: str | None) -> list[bytes]:
        env = sealed_env(tmp_path / f"cache-{k}")
        if k is not None:
            env["RETRIEVER_RRF_K"] = k
        s = SearchProcess(SEARCH_SH, built_index, env)
        try:
            s.wait_ready(GUARD_S)
            out = []
            for i, q in enumerate(questions):
                s.send({"query_id": f"k{i}", "question": q})
                raw = s.read(GUARD_S)
                assert raw is not None
                out.append(raw)
            return out
        finally:
            s.close(GUARD_S)

    default, again, flat = answers(None), answers("60"), answers("1")
    assert default == again
    assert default != flat
