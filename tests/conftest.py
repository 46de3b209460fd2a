"""Shared test helpers: the verifier's answer rules, a built mini index, and a sealed subprocess env."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # plain `pytest` (not `python -m pytest`) does not put the checkout on the path
    sys.path.insert(0, str(ROOT))
if str(ROOT / "scripts") not in sys.path:  # the search.sh driver the tests share with the benchmarks
    sys.path.insert(0, str(ROOT / "scripts"))

from retriever.index.build import build_index  # noqa: E402
from retriever.index.catalog import load_catalog  # noqa: E402
from retriever.index.store import Index, load_index  # noqa: E402

MINI_DIR = ROOT / "tests" / "fixtures" / "spider_mini"
MINI_CATALOG = MINI_DIR / "catalog.json"

# The verifier's limits (../shared/bench/verify.py), copied so tests run on a fresh clone without it.
MAX_RESPONSE_BYTES = 65536
N_TABLES = 5
MAX_JOINS = 6
JOIN_KEYS = ("left_table", "left_column", "right_table", "right_column")

JoinKey = frozenset[tuple[str, str]]


def join_key(j: Mapping[str, str]) -> JoinKey:
    """Direction-free identity of a join, as the verifier compares them."""
    return frozenset([(j["left_table"], j["left_column"]), (j["right_table"], j["right_column"])])


def catalog_keys(path: Path) -> tuple[set[str], set[JoinKey]]:
    """(table ids, relationship keys) of a benchmark-format catalog file, read the verifier's way."""
    with open(path, encoding="utf-8") as f:
        cat = json.load(f)
    return {t["table_id"] for t in cat["tables"]}, {join_key(r) for r in cat["relationships"]}


def validate_answer(line: bytes, query_id: Any, table_ids: set[str],
                    rel_keys: set[JoinKey]) -> tuple[set[str], set[JoinKey]]:
    """Check one response line as verify.py's validate() does; (ids, join keys) or ValueError."""
    if len(line) > MAX_RESPONSE_BYTES:
        raise ValueError(f"response of {len(line)} bytes")
    if not line.endswith(b"\n"):
        raise ValueError("response not newline-terminated")
    msg = json.loads(line)
    if not isinstance(msg, dict) or set(msg) != {"query_id", "table_ids", "joins"}:
        raise ValueError("keys must be exactly query_id, table_ids, joins")
    if msg["query_id"] != query_id:
        raise ValueError(f"query_id {msg['query_id']!r} does not match {query_id!r}")
    ids = msg["table_ids"]
    if not isinstance(ids, list) or not all(isinstance(t, str) for t in ids):
        raise ValueError("table_ids must be a list of strings")
    want = min(N_TABLES, len(table_ids))
    if len(ids) != want or len(set(ids)) != want:
        raise ValueError(f"need exactly {want} distinct table ids, got {len(ids)}")
    unknown = [t for t in ids if t not in table_ids]
    if unknown:
        raise ValueError(f"unknown table ids {unknown[:3]}")
    joins = msg["joins"]
    if not isinstance(joins, list) or len(joins) > MAX_JOINS:
        raise ValueError(f"joins must be a list of at most {MAX_JOINS}")
    keys: set[JoinKey] = set()
    for j in joins:
        if (not isinstance(j, dict) or set(j) != set(JOIN_KEYS)
                or not all(isinstance(j[k], str) for k in JOIN_KEYS)):
            raise ValueError(f"join must have exactly {JOIN_KEYS} as strings")
        k = join_key(j)
        if k in keys:
            raise ValueError(f"duplicate join {j}")
        if k not in rel_keys:
            raise ValueError(f"join is not a catalog relationship: {j}")
        if j["left_table"] not in ids or j["right_table"] not in ids:
            raise ValueError(f"join endpoint not among table_ids: {j}")
        keys.add(k)
    return set(ids), keys


def covered(plans: list[dict[str, Any]], ids: set[str], keys: set[JoinKey]) -> bool:
    """The verifier's score: some plan's tables and joins are all inside the answer."""
    return any(set(p["tables"]) <= ids and {join_key(j) for j in p["joins"]} <= keys for p in plans)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def sealed_env(cache_dir: Path) -> dict[str, str]:
    """Environment for subprocesses: no API key, no local model, a private embedding cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JINA_", "RETRIEVER_"))}
    env.update(RETRIEVER_LOCAL_MODEL="0", RETRIEVER_CACHE_DIR=str(cache_dir))
    return env


@pytest.fixture(scope="session")
def mini_index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The spider_mini catalog indexed in-process with lexical channels only (no embedders)."""
    index_dir = tmp_path_factory.mktemp("mini") / "index"
    build_index(load_catalog(MINI_CATALOG), index_dir, dense=None, multi=None, log=lambda _m: None)
    return index_dir


@pytest.fixture
def subprocess_env(tmp_path: Path) -> dict[str, str]:
    """sealed_env with the cache under this test's tmp_path."""
    return sealed_env(tmp_path / "cache")


@pytest.fixture(scope="session")
def mini_index(mini_index_dir: Path) -> Index:
    """The loaded spider_mini index."""
    return load_index(mini_index_dir)


_COUNTS: list[str] = []


@pytest.fixture
def report_counts() -> Any:
    """Lets a test put one line of counts into the run's summary (make test shows them at the end)."""
    return _COUNTS.append


def pytest_terminal_summary(terminalreporter: Any) -> None:
    per_file: dict[str, dict[str, int]] = {}
    for outcome in ("passed", "failed", "skipped", "error"):
        for rep in terminalreporter.stats.get(outcome, []):
            name = getattr(rep, "nodeid", "").split("::")[0]
            if name.endswith(("test_fuzz.py", "test_faults.py")):
                per_file.setdefault(name, {}).setdefault(outcome, 0)
                per_file[name][outcome] += 1
    if _COUNTS or per_file:
        terminalreporter.section("counts")
        for name, outcomes in sorted(per_file.items()):
            terminalreporter.write_line(f"{name}: " + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())))
        for line in _COUNTS:
            terminalreporter.write_line(line)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker tests/test_bundle.py uses (`make test-bundle` selects it with -m bundle)."""
    config.addinivalue_line("markers", "bundle: needs the self-contained bundle built by `make bundle`")
