"""Embedding one build channel inside its time budget: most useful rows first, keep whatever is done.

A projection from the first seconds of a call (a load spike, cold weights, the longest texts first) was
up to 8x the real cost and dropped the whole channel. Here nothing is decided from a projection: texts go
in fixed-size chunks, in priority order, and the only cut is made by the clock when the budget is really
spent; rows not reached stay unembedded and are marked, so the channel is kept with partial coverage.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

from ..errors import EmbeddingError

_T = TypeVar("_T")

#: Texts per embedder call. A deadline is overrun by at most one chunk (MiniLM: about 2 s on an idle
#: 2-core machine, 10-15 s under heavy load); long enough for MiniLM's length-sorted batches to pad little.
CHUNK = 256
#: Seconds between progress lines while a channel embeds.
PROGRESS_EVERY_S = 30.0


@dataclass(frozen=True)
class Budgets:
    """Build time per embedding channel (name -> seconds; a missing name is unbounded) and the clock."""

    seconds: Mapping[str, float] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic
    chunk: int = CHUNK

    def __post_init__(self) -> None:
        if self.chunk < 1 or any(not s > 0 for s in self.seconds.values()):
            raise ValueError(f"bad build budgets {dict(self.seconds)} or chunk {self.chunk}")


#: Parts a partial channel must have whole for the index to keep it. With part of the tables embedded the
#: channel misleads: a group's best real cosine beats the median given to tables not reached (at 100k
#: tables with 11.5% embedded, coverage fell from 0.69 without the channel to 0.41 with it).
WHOLE_PARTS = ("tables", "groups")
#: Least share of the columns a partial channel must have for the index to keep it. Partial columns shade a
#: table's best-column score (every table's first columns come first): with 27% of BIRD's columns the
#: channel was worth keeping (0.685, against 0.69 whole and 0.62 without it), with 11% of a 100k-table
#: catalog's it was not (0.38 against 0.69 without; p95 209 ms against 80).
MIN_COLUMN_SHARE = 0.25


@dataclass(frozen=True)
class Coverage:
    """How much of a channel the build embedded, per part (tables, columns, groups), and why not all."""

    channel: str
    parts: Mapping[str, tuple[int, int]]
    seconds: float
    reason: str = ""

    @property
    def status(self) -> str:
        done = sum(d for d, _ in self.parts.values())
        total = sum(n for _, n in self.parts.values())
        return "complete" if done == total else "absent" if done == 0 else "partial"

    @property
    def usable(self) -> bool:
        """Whether the index keeps the channel: complete, or partial with its WHOLE_PARTS whole and at least
        MIN_COLUMN_SHARE of its columns."""
        whole = all(d == n for p, (d, n) in self.parts.items() if p in WHOLE_PARTS)
        done, total = self.parts.get("columns", (0, 0))
        return self.status != "absent" and whole and done >= MIN_COLUMN_SHARE * total

    def describe(self) -> str:
        """One line for the build log and the eval header."""
        parts = ", ".join(f"{p} {d}/{n}" for p, (d, n) in self.parts.items())
        why = f": {self.reason}" if self.reason and self.status != "complete" else ""
        cut = self.status == "partial" and not self.usable
        left_out = ("; left out of the index: tables or groups incomplete, or under a quarter of the columns"
                    if cut else "")
        return f"{self.channel} {self.status} ({parts}, {self.seconds:.0f}s){why}{left_out}"

    def as_json(self) -> dict[str, Any]:
        return {"status": self.status, "in_index": self.usable, "parts": {p: list(v) for p, v in self.parts.items()},
                "seconds": round(self.seconds, 1), "reason": self.reason}

    @classmethod
    def from_json(cls, channel: str, doc: Mapping[str, Any]) -> Coverage:
        parts = {p: (int(v[0]), int(v[1])) for p, v in doc["parts"].items()}
        return cls(channel, parts, float(doc["seconds"]), str(doc.get("reason", "")))


@dataclass(frozen=True)
class Stepped(Generic[_T]):
    """Results in text order (None where the budget ran out first), and why it stopped early, if it did."""

    rows: list[_T | None]
    reason: str
    seconds: float

    @property
    def done(self) -> np.ndarray:
        return np.array([r is not None for r in self.rows], dtype=np.bool_)


def priority_order(n_tables: int, column_table: Sequence[int], n_groups: int) -> np.ndarray:
    """Positions in [tables, columns, groups] to embed first to last.

    Tables and groups carry most of the channel (routing and table ranks); columns come after, by their
    position inside their table, so a cut leaves every table its first columns rather than some tables all.
    """
    ct = np.asarray(column_table, dtype=np.int64)
    first = np.searchsorted(ct, ct, side="left")  # columns of a table are contiguous
    rank = np.arange(ct.size) - first
    columns = n_tables + np.lexsort((np.arange(ct.size), rank))
    groups = n_tables + ct.size + np.arange(n_groups)
    return np.concatenate([np.arange(n_tables), groups, columns]).astype(np.int64)


def run_within(
    label: str,
    texts: Sequence[str],
    order: np.ndarray,
    embed: Callable[[list[str]], Iterable[_T]],
    budget_s: float | None,
    budgets: Budgets,
    log: Callable[[str], None],
    stop: threading.Event | None = None,
) -> Stepped[_T]:
    """Embed `texts` chunk by chunk in `order` until done, the budget is spent, the backend fails, or `stop`
    is set (another channel of the build failed: this one's work would be thrown away)."""
    clock = budgets.clock
    t0 = clock()
    rows: list[_T | None] = [None] * len(texts)
    reason, done, warm, next_report = "", 0, None, t0 + PROGRESS_EVERY_S
    for start in range(0, len(order), budgets.chunk):
        if stop is not None and stop.is_set():
            reason = "the build stopped"
            break
        now = clock()
        if budget_s is not None and now - t0 >= budget_s:
            reason = f"build budget of {budget_s:g}s spent"
            break
        if now >= next_report and warm is not None:
            log(f"build: {label} {done}/{len(texts)} texts after {now - t0:.0f}s; about "
                f"{now - t0 + _remaining(warm, now, done, len(texts)):.0f}s in all at the pace since the first chunk"
                + (f" (budget {budget_s:g}s)" if budget_s is not None else ""))
            next_report = now + PROGRESS_EVERY_S
        idx = order[start : start + budgets.chunk]
        try:
            got = embed([texts[i] for i in idx])
        except EmbeddingError as e:  # the API being down must not cost the rest of the build
            reason = str(e)
            break
        for i, r in zip(idx, got, strict=True):
            rows[i] = r
        done += len(idx)
        warm = warm or (clock(), done)  # the first chunk pays the warm-up: the pace is measured after it
    return Stepped(rows, reason, clock() - t0)


def _remaining(warm: tuple[float, int], now: float, done: int, total: int) -> float:
    """Seconds the rest would take at the pace measured since the first chunk (for the log only)."""
    t_warm, n_warm = warm
    return (total - done) * (now - t_warm) / max(done - n_warm, 1)


def coverage_lines(manifest: Mapping[str, Any]) -> list[str]:
    """Each embedding channel's coverage as the manifest records it, in build order."""
    return [Coverage.from_json(ch, doc).describe() for ch, doc in manifest.get("coverage", {}).items()]
