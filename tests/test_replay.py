"""Jina channels end to end: build and answer through the fake API, then replay offline from the warmed cache."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import MINI_CATALOG, MINI_DIR
from fakejina import API_KEY, FakeJina

from retriever.config import Settings
from retriever.index.build import build_index
from retriever.index.catalog import load_catalog
from retriever.index.store import load_index
from retriever.query.planner import Planner, default_models
from retriever.runtime import build_embedders, query_embedders

QUESTIONS = [json.loads(line)["question"] for line in (MINI_DIR / "queries.jsonl").read_text().splitlines()]
DEAD_BASE = "http://127.0.0.1:9"  # discard port: nothing listens, connections are refused at once


def _settings(base: str, cache: Path) -> Settings:
    return Settings(jina_api_key=API_KEY, jina_api_base=base, cache_dir=cache, local_model=False,
                    jina_dense_dimensions=64, query_api_budget_s=2.0, build_api_budget_s=10.0)


def _answers(settings: Settings, index_dir: Path, offline: bool = False) -> tuple[list[tuple], set[str]]:
    index = load_index(index_dir)
    planner = Planner(index, default_models())
    embed = query_embedders(settings, index, offline=offline)
    out, live = [], set()
    for q in QUESTIONS:
        vectors = embed(q)
        live.update(vectors)
        a = planner.answer(q, vectors)
        out.append((tuple(a.table_ids), tuple(json.dumps(j, sort_keys=True) for j in a.joins)))
    return out, live


def test_warm_cache_then_offline_replay_gives_identical_answers(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with FakeJina() as fake:
        online = _settings(fake.base_url, cache)
        dense, multi = build_embedders(online)
        manifest = build_index(load_catalog(MINI_CATALOG), tmp_path / "idx", dense, multi, log=lambda m: None)
        assert "dense:jina" in manifest["channels"] and "multi:colbert" in manifest["channels"]
        first, live = _answers(online, tmp_path / "idx")
        # names a question gives and its content words are embedded too
        assert live == {"jina", "multi:colbert", "names:jina", "words:jina"}
        n_requests = len(fake.requests)
    assert n_requests > 0
    # The API is gone: a rebuild and every question must come from the cache alone.
    offline = replace(online, jina_api_base=DEAD_BASE)
    dense, multi = build_embedders(offline)
    manifest = build_index(load_catalog(MINI_CATALOG), tmp_path / "idx2", dense, multi, log=lambda m: None)
    assert "dense:jina" in manifest["channels"] and "multi:colbert" in manifest["channels"]
    replayed, live = _answers(offline, tmp_path / "idx2", offline=True)
    assert live == {"jina", "multi:colbert", "names:jina", "words:jina"}  # names and words replay from the cache too
    assert replayed == first


def test_unreachable_api_answers_like_no_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Key set but API unreachable: the build leaves the API channels out; answers equal the keyless mode."""
    cache = tmp_path / "cache"
    dead = _settings(DEAD_BASE, cache)
    dense, multi = build_embedders(dead)
    manifest = build_index(load_catalog(MINI_CATALOG), tmp_path / "dead", dense, multi, log=print)
    assert manifest["channels"] == ["bm25_tables", "bm25_columns", "bm25_groups", "values"]
    keyless = replace(dead, jina_api_key=None)
    build_index(load_catalog(MINI_CATALOG), tmp_path / "keyless", *build_embedders(keyless), log=lambda m: None)
    assert _answers(dead, tmp_path / "dead")[0] == _answers(keyless, tmp_path / "keyless")[0]
    out = capsys.readouterr()
    assert "left out" in out.out
    assert API_KEY not in out.out + out.err
    for path in [*(tmp_path / "dead").rglob("*"), *cache.rglob("*")]:
        if path.is_file():
            assert API_KEY.encode() not in path.read_bytes(), path


def test_api_failing_at_query_time_falls_back_per_question(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Built with the API up; at query time it answers 500s: each question still gets a valid answer."""
    with FakeJina() as fake:
        s = _settings(fake.base_url, tmp_path / "cache")
        build_index(load_catalog(MINI_CATALOG), tmp_path / "idx", *build_embedders(s), log=lambda m: None)
        index = load_index(tmp_path / "idx")
        planner = Planner(index, default_models())
        embed = query_embedders(replace(s, cache_dir=tmp_path / "fresh-cache"), index)
        fake.fail("status", status=500)
        vectors = embed("How many students are there?")
        assert vectors == {}
        a = planner.answer("How many students are there?", vectors)
    assert len(set(a.table_ids)) == 5
    assert "skipped for this question" in capsys.readouterr().err
