"""EmbeddingCache and the cached embedders: round trips, corrupt entries, degradation, no poisoning."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import diskcache
import numpy as np
import pytest
from fakejina import API_KEY, FakeJina

from retriever.config import Settings
from retriever.embedders.cache import CachedEmbedder, CachedMultiVector, EmbeddingCache, cache_key, encode_array
from retriever.embedders.interface import HashEmbedder, Kind
from retriever.embedders.jina import JinaEmbedder, JinaMultiVector
from retriever.errors import EmbeddingError

DIM = 16


class Recording:
    """Wraps HashEmbedder and records what it is asked to embed."""

    def __init__(self, fail: BaseException | None = None, garbage: bool = False) -> None:
        self.inner = HashEmbedder(DIM, name="hash-16")
        self.name, self.dim = self.inner.name, DIM
        self.calls: list[list[str]] = []
        self.fail, self.garbage = fail, garbage

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self.calls.append(list(texts))
        if self.fail is not None:
            raise self.fail
        out = self.inner.embed(texts, kind)
        return out[:, :-1] if self.garbage else out

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]:
        self.calls.append(list(texts))
        if self.fail is not None:
            raise self.fail
        return self.inner.embed_multi(texts, kind)


def test_round_trip_persists_across_instances(tmp_path: Path) -> None:
    v = np.arange(DIM, dtype=np.float32)
    m = np.ones((3, 128), dtype=np.float32)
    with EmbeddingCache(tmp_path / "c") as cache:
        assert cache.persistent
        cache.put("m", "query", DIM, "Hello  world", v)
        cache.put_multi("m", "document", 128, "doc", m)
    with EmbeddingCache(tmp_path / "c") as cache:
        got = cache.get("m", "query", DIM, " Hello world ")  # normalised text hits
        assert got is not None and got.dtype == np.float32 and np.array_equal(got, v)
        got_m = cache.get_multi("m", "document", 128, "doc")
        assert got_m is not None and np.array_equal(got_m, m)
        assert cache.get("m", "document", DIM, "Hello world") is None  # kind is part of the key
        assert cache.get("other", "query", DIM, "Hello world") is None
        assert cache.get_multi("m", "document", 64, "doc") is None


def test_key_normalises_unicode_and_whitespace() -> None:
    assert cache_key("m", "query", 8, "cafe\u0301\t bar ") == cache_key("m", "query", 8, "caf\u00e9 bar")
    assert cache_key("m", "query", 8, "x") != cache_key("m", "query", 8, "x", multi=True)
    assert cache_key("m", "query", 8, "x") != cache_key("m", "query", 16, "x")


def test_corrupt_entry_is_a_miss_and_gets_refetched(tmp_path: Path) -> None:
    inner = Recording()
    with EmbeddingCache(tmp_path / "c") as cache:
        emb = CachedEmbedder(inner, cache)
        first = emb.embed(["alpha", "beta"], "document")
        cache.put_raw(cache_key(inner.name, "document", DIM, "alpha"), b"\x00garbage\xff" * 7)
        again = emb.embed(["alpha", "beta"], "document")
        assert inner.calls == [["alpha", "beta"], ["alpha"]]
        assert np.array_equal(first, again)
        assert cache.get(inner.name, "document", DIM, "alpha") is not None  # repaired


@pytest.mark.parametrize(
    "payload",
    [
        encode_array(np.ones(DIM + 1)),  # wrong dimension
        encode_array(np.ones((2, DIM))),  # wrong rank
        encode_array(np.ones(DIM)).replace(b"<f4", b"<f8"),  # wrong dtype
        encode_array(np.ones(DIM))[:-3],  # truncated
        encode_array(np.full(DIM, np.nan)),  # non-finite
        b"",
    ],
)
def test_wrong_shape_or_dtype_is_a_miss(tmp_path: Path, payload: bytes) -> None:
    with EmbeddingCache(tmp_path / "c") as cache:
        cache.put_raw(cache_key("m", "query", DIM, "t"), payload)
        assert cache.get("m", "query", DIM, "t") is None


UNPICKLED: list[str] = []


def _unpickled() -> str:
    UNPICKLED.append("ran")
    return "ran"


class _Tripwire:
    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_unpickled, ())


def test_pickled_values_are_never_unpickled(tmp_path: Path) -> None:
    with diskcache.Cache(str(tmp_path / "c")) as raw:
        raw.set(cache_key("m", "query", DIM, "t"), _Tripwire())  # stored as a pickle
    with EmbeddingCache(tmp_path / "c") as cache:
        assert cache.get("m", "query", DIM, "t") is None
    assert UNPICKLED == []


def test_missing_uncreatable_dir_degrades_to_memory(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a directory")
    for directory in (tmp_path / "afile" / "cache", None):
        with EmbeddingCache(directory) as cache:
            assert not cache.persistent
            cache.put("m", "query", DIM, "t", np.ones(DIM))
            assert cache.get("m", "query", DIM, "t") is not None


def test_read_only_dir_degrades_to_memory(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        try:
            (ro / "probe").write_text("x")
        except OSError:
            pass
        else:
            pytest.skip("chmod does not stop this user writing (running as root)")
        with EmbeddingCache(ro) as cache:
            assert not cache.persistent
            cache.put("m", "query", DIM, "t", np.ones(DIM))
            assert cache.get("m", "query", DIM, "t") is not None
    finally:
        ro.chmod(0o700)


def test_failing_writes_switch_to_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    with EmbeddingCache(tmp_path / "c") as cache:
        assert cache.persistent
        monkeypatch.setattr(diskcache.Cache, "set", full)
        cache.put("m", "query", DIM, "t", np.ones(DIM))
        assert not cache.persistent
        assert cache.get("m", "query", DIM, "t") is not None


def test_write_behind_serves_at_once_and_persists_by_close(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real_set = diskcache.Cache.set

    def slow(self: diskcache.Cache, *args: Any, **kwargs: Any) -> Any:
        release.wait(10)  # the disk write is held until the caller has read its entry back
        return real_set(self, *args, **kwargs)

    monkeypatch.setattr(diskcache.Cache, "set", slow)
    v = np.arange(DIM, dtype=np.float32)
    cache = EmbeddingCache(tmp_path / "c", write_behind=True)
    cache.put("m", "query", DIM, "t", v)
    got = cache.get("m", "query", DIM, "t")
    assert got is not None and np.array_equal(got, v)
    with EmbeddingCache(tmp_path / "c") as other:
        assert other.get("m", "query", DIM, "t") is None  # not on disk yet
    release.set()
    cache.close()  # drains the pending write
    with EmbeddingCache(tmp_path / "c") as other:
        got = other.get("m", "query", DIM, "t")
        assert got is not None and np.array_equal(got, v)


def test_write_behind_failing_disk_keeps_entries_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(diskcache.Cache, "set", full)
    cache = EmbeddingCache(tmp_path / "c", write_behind=True)
    for i in range(3):
        cache.put("m", "query", DIM, f"t{i}", np.ones(DIM))
    cache.close()
    assert not cache.persistent
    assert all(cache.get("m", "query", DIM, f"t{i}") is not None for i in range(3))


def test_dedup_and_counters(tmp_path: Path) -> None:
    inner = Recording()
    with EmbeddingCache(tmp_path / "c") as cache:
        emb = CachedEmbedder(inner, cache)
        out = emb.embed(["a", "a ", " a", "b"], "query")
        assert inner.calls == [["a", "b"]] and out.shape == (4, DIM)
        assert np.array_equal(out[0], out[2]) and (emb.hits, emb.misses) == (0, 2)
        emb.embed(["b", "a", "c"], "query")
        assert inner.calls[-1] == ["c"] and (emb.hits, emb.misses) == (2, 3)
        assert emb.name == inner.name and emb.dim == DIM


@pytest.mark.parametrize("error", [EmbeddingError("api down"), RuntimeError("bug")])
def test_inner_failure_propagates_and_writes_nothing(tmp_path: Path, error: BaseException) -> None:
    with EmbeddingCache(tmp_path / "c") as cache:
        inner = Recording(fail=error)
        for emb in (CachedEmbedder(inner, cache), CachedMultiVector(inner, cache)):
            with pytest.raises(type(error)) as exc:
                if isinstance(emb, CachedEmbedder):
                    emb.embed(["a", "b"], "query")
                else:
                    emb.embed_multi(["a", "b"], "query")
            assert exc.value is error
            assert cache.get("hash-16", "query", DIM, "a") is None
            assert cache.get_multi("hash-16", "query", DIM, "a") is None


def test_garbage_from_inner_is_rejected_and_not_cached(tmp_path: Path) -> None:
    with EmbeddingCache(tmp_path / "c") as cache:
        with pytest.raises(EmbeddingError):
            CachedEmbedder(Recording(garbage=True), cache).embed(["a"], "query")
        assert cache.get("hash-16", "query", DIM, "a") is None
        assert cache.get_raw(cache_key("hash-16", "query", DIM, "a")) is None


def test_offline_serves_hits_and_raises_on_miss(tmp_path: Path) -> None:
    with EmbeddingCache(tmp_path / "c") as cache:
        CachedEmbedder(Recording(), cache).embed(["known"], "query")
        CachedMultiVector(Recording(), cache).embed_multi(["known doc"], "document")
        never = Recording(fail=AssertionError("inner must not be called offline"))
        off = CachedEmbedder(never, cache, offline=True)
        assert off.embed(["known"], "query").shape == (1, DIM)
        with pytest.raises(EmbeddingError, match="not in cache"):
            off.embed(["known", "unknown"], "query")
        off_m = CachedMultiVector(never, cache, offline=True)
        assert off_m.embed_multi(["known doc"], "document")[0].shape == (2, DIM)
        with pytest.raises(EmbeddingError, match="not in cache"):
            off_m.embed_multi(["other"], "document")
        assert never.calls == []


def test_jina_through_cache_hits_without_requests_and_never_stores_the_key(tmp_path: Path) -> None:
    with FakeJina() as fake, EmbeddingCache(tmp_path / "c") as cache:
        s = replace(Settings(), jina_api_key=API_KEY, jina_api_base=fake.base_url, jina_dense_dimensions=DIM)
        dense = CachedEmbedder(JinaEmbedder(s, budget_s=5), cache)
        multi = CachedMultiVector(JinaMultiVector(s, budget_s=5), cache)
        a = dense.embed(["users table", "orders table"], "document")
        m = multi.embed_multi(["users id name"], "document")
        n = len(fake.requests)
        assert np.array_equal(dense.embed(["orders table", "users table"], "document"), a[::-1])
        assert np.array_equal(multi.embed_multi(["users id name"], "document")[0], m[0])
        assert len(fake.requests) == n == 2
    files = [p for p in (tmp_path / "c").rglob("*") if p.is_file()]
    assert files
    for p in files:
        assert API_KEY.encode() not in p.read_bytes()
