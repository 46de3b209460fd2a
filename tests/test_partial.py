"""Build channels inside their time budget: kept whole when the real total fits, cut in steps when not."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from conftest import MINI_CATALOG, MINI_DIR

from retriever.backends.stage1 import InProcess, fill_missing
from retriever.cli import main
from retriever.embedders.interface import HashEmbedder, Kind
from retriever.errors import EmbeddingError
from retriever.index.build import build_index
from retriever.index.catalog import Catalog, load_catalog, parse_catalog
from retriever.index.partial import Budgets, Coverage, coverage_lines, priority_order
from retriever.index.store import load_index
from retriever.query.planner import Planner, default_models

#: 6 tables of 3 columns in 2 groups: 26 texts ordered tables (0-5), columns (6-23), groups (24-25).
TABLES, COLUMNS, GROUPS = 6, 18, 2


def small_catalog() -> Catalog:
    tables = [{"table_id": f"{g}.{name}", "columns": [f"{name}_id", f"{name}_label", f"{name}_amount"]}
              for g, names in (("shop", ("orders", "items", "clients")), ("zoo", ("animals", "keepers", "cages")))
              for name in names]
    return parse_catalog({"tables": tables})


class Clock:
    """A fake monotonic clock that only the embedders below move."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class TimedEmbedder(HashEmbedder):
    """HashEmbedder whose n-th call costs `costs[n]` seconds of the fake clock (the last one repeats)."""

    def __init__(self, clock: Clock, costs: Sequence[float], fail_on: int | None = None) -> None:
        super().__init__(dim=16, name="timed")
        self.clock, self.costs, self.fail_on, self.calls = clock, costs, fail_on, 0

    def _tick(self) -> None:
        if self.calls == self.fail_on:
            raise EmbeddingError("backend went away")
        self.clock.now += self.costs[min(self.calls, len(self.costs) - 1)]
        self.calls += 1

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self._tick()
        return super().embed(texts, kind)

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]:
        self._tick()
        return super().embed_multi(texts, kind)


def build(tmp_path: Path, emb: TimedEmbedder, budget_s: float, *, multi: bool = False) -> tuple[dict, list[str]]:
    logs: list[str] = []
    channels = {"local": emb}
    manifest = build_index(small_catalog(), tmp_path / "index", dense=None if multi else channels,
                           multi=channels if multi else None, log=logs.append,
                           budgets=Budgets({"local": budget_s}, clock=emb.clock, chunk=4))
    return manifest, logs


def test_priority_order_puts_tables_and_groups_first_then_every_tables_first_column() -> None:
    order = priority_order(2, [0, 0, 0, 1, 1], 1).tolist()
    assert order == [0, 1, 7, 2, 5, 3, 6, 4]  # tables 0-1, group 7, then columns by position in their table


def test_a_slow_start_does_not_cost_the_channel_when_the_real_total_fits(tmp_path: Path) -> None:
    """A load spike makes the first two chunks 40x slower: the old projection from them (about 1,040 s for
    a 100 s budget) dropped the channel; the real total (86.5 s) fits, so the channel is kept whole."""
    clock = Clock()
    emb = TimedEmbedder(clock, [40.0, 40.0, 0.5])
    manifest, logs = build(tmp_path, emb, budget_s=100.0)
    first_chunk_projection = 40.0 * (TABLES + COLUMNS + GROUPS) / 4
    assert first_chunk_projection > 100.0 and clock.now < 100.0
    assert manifest["coverage"]["dense:local"]["status"] == "complete"
    assert "dense:local" in manifest["channels"] and "dense_local_done.npy" not in manifest["files"]
    unbudgeted, _ = build(tmp_path / "free", TimedEmbedder(Clock(), [0.0]), budget_s=1e9)
    index, free = load_index(tmp_path / "index"), load_index(tmp_path / "free" / "index")
    assert not index.dense_done
    for got, want in zip(index.dense["local"], free.dense["local"], strict=True):
        assert np.array_equal(got, want)
    assert any("dense:local complete" in m for m in logs), logs


@pytest.mark.parametrize(("budget_s", "columns"), [
    (35.0, 8),  # chunks start at 0, 10, 20, 30 s: 16 texts = tables, groups, then 8 columns: every table's
    (45.0, 12),  # first column, then second ones
])
def test_an_overrun_in_the_columns_keeps_the_channel_with_what_was_embedded(
    tmp_path: Path, budget_s: float, columns: int
) -> None:
    clock = Clock()
    manifest, logs = build(tmp_path, TimedEmbedder(clock, [10.0]), budget_s=budget_s)
    cov = manifest["coverage"]["dense:local"]
    assert cov["status"] == "partial" and cov["in_index"] and f"budget of {budget_s:g}s spent" in cov["reason"]
    assert cov["parts"] == {"tables": [TABLES, TABLES], "columns": [columns, COLUMNS], "groups": [GROUPS, GROUPS]}
    assert "dense:local" in manifest["channels"] and "dense_local_done.npy" in manifest["files"]
    index = load_index(tmp_path / "index")
    t_done, c_done, g_done = index.dense_done["local"]
    assert t_done.all() and g_done.all() and int(c_done.sum()) == columns
    # Columns are taken by position: every table's first column before any table's second.
    assert c_done.reshape(TABLES, 3).sum(axis=0).tolist() == [min(columns, 6), max(columns - 6, 0), 0]
    c_vecs = index.dense["local"][1]  # embedded rows only
    assert c_vecs.shape == (columns, 16) and np.all(np.linalg.norm(c_vecs, axis=1) > 0.99)
    assert any("dense:local partial" in m and "columns" in m for m in logs), logs


def test_an_overrun_in_the_tables_leaves_the_channel_out_and_says_why(tmp_path: Path) -> None:
    """Part of the tables embedded misleads search (a group's best real cosine beats the median), so the
    index leaves the channel out; the manifest still says how far it got."""
    manifest, logs = build(tmp_path, TimedEmbedder(Clock(), [10.0]), budget_s=5.0)
    cov = manifest["coverage"]["dense:local"]
    assert cov["status"] == "partial" and not cov["in_index"]
    assert cov["parts"] == {"tables": [4, TABLES], "columns": [0, COLUMNS], "groups": [0, GROUPS]}
    assert "dense:local" not in manifest["channels"] and not any(f.startswith("dense_") for f in manifest["files"])
    assert any("left out of the index: tables or groups incomplete" in m for m in logs), logs


def test_a_channel_with_under_a_quarter_of_its_columns_is_left_out(tmp_path: Path) -> None:
    """Tables and groups whole but 4 of 18 columns: the median given to the rest shades most tables'
    best-column score (a 100k catalog with 11% of its columns lost 0.69 -> 0.38), so the channel is left out."""
    manifest, logs = build(tmp_path, TimedEmbedder(Clock(), [10.0]), budget_s=25.0)
    cov = manifest["coverage"]["dense:local"]
    assert cov["parts"] == {"tables": [TABLES, TABLES], "columns": [4, COLUMNS], "groups": [GROUPS, GROUPS]}
    assert cov["status"] == "partial" and not cov["in_index"]
    assert "dense:local" not in manifest["channels"] and not any(f.startswith("dense_") for f in manifest["files"])
    assert any("under a quarter of the columns" in m for m in logs), logs
    assert Coverage("dense:local", {"tables": (6, 6), "columns": (5, 18)}, 1.0).usable  # 28%


def test_a_partial_channel_scores_unembedded_rows_at_the_median_and_still_answers(tmp_path: Path) -> None:
    clock = Clock()
    build(tmp_path, TimedEmbedder(clock, [10.0]), budget_s=35.0)
    planner = Planner(load_index(tmp_path / "index"), default_models())
    question = "which keepers look after the animals in each cage"
    q = HashEmbedder(dim=16, name="timed").embed([question], "query")[0]
    _, col_scores, _ = planner.channels.dense_scores({"local": q})["local"]
    _, c_done, _ = planner.index.dense_done["local"]
    raw = planner.index.dense["local"][1] @ q
    assert col_scores.shape == (COLUMNS,) and np.allclose(col_scores[c_done], raw)
    assert np.allclose(col_scores[~c_done], np.median(raw))
    # Several vectors at once (the question and its names) score as each alone, each row with its own median.
    name = HashEmbedder(dim=16, name="timed").embed(["cage"], "query")[0]
    together = InProcess(planner.index).dense("local", np.stack([q, name]))
    for row, vec in enumerate((q, name)):
        for both, alone in zip(together, InProcess(planner.index).dense("local", vec), strict=True):
            assert np.array_equal(both[row], alone)
    answer = planner.answer(question, {"local": q})
    assert len(answer.table_ids) == 5 and len(set(answer.table_ids)) == 5


def test_a_backend_failure_midway_keeps_the_chunks_already_embedded(tmp_path: Path) -> None:
    clock = Clock()
    manifest, _ = build(tmp_path, TimedEmbedder(clock, [1.0], fail_on=4), budget_s=100.0)
    cov = manifest["coverage"]["dense:local"]
    assert cov["status"] == "partial" and cov["in_index"] and cov["reason"] == "backend went away"
    assert cov["parts"]["columns"] == [8, COLUMNS] and "dense:local" in manifest["channels"]


def test_a_backend_failing_at_once_leaves_the_channel_out_and_says_why(tmp_path: Path) -> None:
    manifest, logs = build(tmp_path, TimedEmbedder(Clock(), [1.0], fail_on=0), budget_s=100.0)
    assert manifest["coverage"]["dense:local"]["status"] == "absent"
    assert "dense:local" not in manifest["channels"] and not any(f.startswith("dense_") for f in manifest["files"])
    assert any("channel dense:local left out: backend went away" in m for m in logs), logs
    assert coverage_lines(manifest) == ["dense:local absent (tables 0/6, columns 0/18, groups 0/2, 0s): "
                                        "backend went away"]


def test_late_interaction_is_cut_the_same_way(tmp_path: Path) -> None:
    """Its only part is the tables: whole, it is kept; cut, it is left out with its coverage recorded."""
    manifest, _ = build(tmp_path, TimedEmbedder(Clock(), [10.0]), budget_s=15.0, multi=True)
    assert manifest["coverage"]["multi:local"] == {"status": "complete", "in_index": True,
                                                   "parts": {"tables": [TABLES, TABLES]}, "seconds": 20.0,
                                                   "reason": ""}
    assert "multi:local" in manifest["channels"]
    manifest, _ = build(tmp_path, TimedEmbedder(Clock(), [10.0]), budget_s=5.0, multi=True)
    cov = manifest["coverage"]["multi:local"]
    assert cov["parts"] == {"tables": [4, TABLES]} and not cov["in_index"]
    assert "multi:local" not in manifest["channels"] and not any(f.startswith("multi_") for f in manifest["files"])


def test_fill_missing_and_coverage_round_trip() -> None:
    s = np.array([0.1, 0.9, 0.5], dtype=np.float32)
    assert fill_missing(s, None) is s
    assert fill_missing(s, np.array([True, True, False, True])).tolist() == pytest.approx([0.1, 0.9, 0.5, 0.5])
    assert fill_missing(s[:0], np.zeros(3, dtype=bool)).tolist() == [0.0, 0.0, 0.0]
    cov = Coverage("dense:local", {"tables": (6, 6), "columns": (5, 18)}, 12.34, "build budget of 10s spent")
    assert Coverage.from_json("dense:local", cov.as_json()) == Coverage(
        "dense:local", {"tables": (6, 6), "columns": (5, 18)}, 12.3, "build budget of 10s spent")
    assert cov.describe() == "dense:local partial (tables 6/6, columns 5/18, 12s): build budget of 10s spent"
    with pytest.raises(ValueError, match="bad build budgets"):
        Budgets({"local": 0.0})


def test_eval_header_says_how_much_of_each_channel_the_build_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = Clock()
    build_index(load_catalog(MINI_CATALOG), tmp_path / "index", dense={"local": TimedEmbedder(clock, [10.0])},
                log=lambda _m: None, budgets=Budgets({"local": 105.0}, clock=clock, chunk=8))
    monkeypatch.setenv("RETRIEVER_LOCAL_MODEL", "0")
    monkeypatch.setenv("RETRIEVER_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["eval", "--index-dir", str(tmp_path / "index"), "--queries", str(MINI_DIR / "queries.jsonl"),
                 "--labels", str(MINI_DIR / "labels.jsonl"), "--quiet", "--every", "5"]) == 0
    out = capsys.readouterr().out
    assert "channel coverage: dense:local partial (tables 34/34, columns 46/164, groups 8/8, 110s): build " \
           "budget of 105s spent" in out
    assert "eval: 3 questions" in out  # the 1st, 6th and 11th of 15


class MeetingEmbedder(HashEmbedder):
    """HashEmbedder whose first call waits for the other channels' first calls: it returns only if every
    channel is embedding at the same time (one after another, the barrier breaks)."""

    def __init__(self, barrier: threading.Barrier, name: str) -> None:
        super().__init__(dim=16, name=name)
        self.barrier, self.threads = barrier, set()

    def _meet(self) -> None:
        first = not self.threads
        self.threads.add(threading.get_ident())
        if first:
            try:
                self.barrier.wait()
            except threading.BrokenBarrierError:
                raise EmbeddingError("the other channels were not embedding meanwhile") from None

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self._meet()
        return super().embed(texts, kind)

    def embed_multi(self, texts: Sequence[str], kind: Kind) -> list[np.ndarray]:
        self._meet()
        return super().embed_multi(texts, kind)


def test_the_channels_embed_at_the_same_time_and_come_back_in_their_order(tmp_path: Path) -> None:
    """An API channel waits on the network while the local model computes: the build runs them at once."""
    barrier = threading.Barrier(3, timeout=20)
    dense = {"local": MeetingEmbedder(barrier, "a"), "jina": MeetingEmbedder(barrier, "b")}
    multi = {"colbert": MeetingEmbedder(barrier, "c")}
    manifest = build_index(small_catalog(), tmp_path / "index", dense=dense, multi=multi, log=lambda _m: None)
    assert not barrier.broken
    assert list(manifest["coverage"]) == ["dense:local", "dense:jina", "multi:colbert"]
    assert all(c["status"] == "complete" for c in manifest["coverage"].values()), manifest["coverage"]
    assert len({t for e in (*dense.values(), *multi.values()) for t in e.threads}) == 3
    sequential = build_index(small_catalog(), tmp_path / "one", dense={"local": HashEmbedder(16, "a")},
                             log=lambda _m: None)
    index, one = load_index(tmp_path / "index"), load_index(tmp_path / "one")
    for got, want in zip(index.dense["local"], one.dense["local"], strict=True):
        assert np.array_equal(got, want)
    assert sequential["channels"] == [c for c in manifest["channels"] if c != "dense:jina" and c != "multi:colbert"]


class Broken(HashEmbedder):
    """A channel with a bug (not an EmbeddingError): its first call raises once `started` is set."""

    def __init__(self, started: threading.Event) -> None:
        super().__init__(dim=16, name="broken")
        self.started = started

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self.started.wait(20)
        raise RuntimeError("a bug in one channel")


class Slow(HashEmbedder):
    """A channel that takes a while over each chunk after its first, and counts its calls."""

    def __init__(self, started: threading.Event) -> None:
        super().__init__(dim=16, name="slow")
        self.started, self.calls = started, 0

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self.calls += 1
        self.started.set()
        if self.calls > 1:
            threading.Event().wait(0.2)
        return super().embed(texts, kind)


def test_a_channel_that_fails_stops_the_others_and_leaves_no_index(tmp_path: Path) -> None:
    """One channel's bug fails the build (the index is not swapped in); the other channels stop at their next
    chunk instead of embedding to their end for an index that is thrown away."""
    started = threading.Event()
    slow = Slow(started)
    with pytest.raises(RuntimeError, match="a bug in one channel"):
        build_index(small_catalog(), tmp_path / "index", dense={"local": Broken(started), "jina": slow},
                    log=lambda _m: None, budgets=Budgets(chunk=1))
    assert not (tmp_path / "index").exists() and not list(tmp_path.glob(".index.building-*"))
    assert 1 <= slow.calls < TABLES + COLUMNS + GROUPS, slow.calls  # not stopped: 26 texts, the probe, the vocabulary
