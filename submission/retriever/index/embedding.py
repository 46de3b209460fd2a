"""The embedding channels' part of a build: each channel's vectors, within its time budget, on a thread of
its own beside the lexical side (index/build.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TypeVar

import numpy as np

from ..embedders.interface import Embedder, MultiVectorEmbedder
from ..errors import EmbeddingError
from . import registry
from .documents import Documents
from .partial import Budgets, Coverage, Stepped, priority_order, run_within
from .quality import probe_sample, self_retrieval
from .store import bounds

_T = TypeVar("_T")


def with_channels(work: Callable[[], _T], tmp: Path, docs: Documents, dense: Mapping[str, Embedder],
                   multi: Mapping[str, MultiVectorEmbedder], budgets: Budgets, log: Callable[[str], None],
                   quality: dict[str, float], vocabulary: list[str], words: dict[str, int]
                   ) -> tuple[list[Coverage], _T]:
    """Every embedding channel's files, each channel on a thread of its own, while `work` (the lexical side)
    runs on this one: the API's channels wait on the network while the local model and the lexical side
    compute, so a build with a key takes about its slowest part's time instead of the sum of them all (offline
    the local model takes both cores either way). Coverage comes back in channel order."""
    stop = threading.Event()
    jobs: list[Callable[[], Coverage]] = [
        partial(_write_dense, tmp, docs, name, emb, budgets, log, quality, vocabulary, words, stop)
        for name, emb in dense.items()]
    jobs += [partial(_write_multi, tmp, docs, name, memb, budgets, log, stop) for name, memb in multi.items()]
    if not jobs:
        return [], work()
    with ThreadPoolExecutor(len(jobs), thread_name_prefix="build-channel") as pool:
        running = [pool.submit(job) for job in jobs]
        for r in running:  # a channel's bug stops the others now, not once the lexical side is done
            r.add_done_callback(lambda f: stop.set() if not f.cancelled() and f.exception() is not None else None)
        try:
            done = work()
            return [r.result() for r in running], done
        except BaseException:  # a bug on either side or Ctrl-C: the channels stop at their next chunk
            stop.set()
            raise


def _write_dense(tmp: Path, docs: Documents, name: str, emb: Embedder, budgets: Budgets,
                 log: Callable[[str], None], quality: dict[str, float], vocabulary: list[str],
                 words: dict[str, int], stop: threading.Event) -> Coverage:
    """A dense channel's vectors (as far as its budget goes), into `quality` its probe score and into
    `words` how many of the vocabulary's words it embedded."""
    texts = docs.table_texts + docs.column_texts + docs.group_texts
    order = priority_order(len(docs.table_texts), docs.column_table, len(docs.group_texts))
    sizes = {"tables": len(docs.table_texts), "columns": len(docs.column_texts), "groups": len(docs.group_texts)}
    log(f"build: embedding {len(texts)} texts with {emb.name}")
    channel = str(registry.dense(name).manifest)
    started = budgets.clock()
    step: Stepped[np.ndarray] = run_within(channel, texts, order, partial(emb.embed, kind="document"),
                                           budgets.seconds.get(name), budgets, log, stop)
    cov = Coverage(channel, _parts(step.done, sizes), step.seconds, step.reason)
    _log_coverage(cov, emb, log)
    if not cov.usable:
        return cov
    # Only embedded rows are stored (a 9%-embedded 100k catalog would otherwise carry 460 MB of zeros).
    for part, (lo, hi) in zip(sizes, bounds(sizes), strict=True):
        got = [r for r in step.rows[lo:hi] if r is not None]
        vecs = np.stack(got) if got else np.zeros((0, emb.dim))
        np.save(tmp / f"dense_{name}_{part}.npy", vecs.astype(np.float16))
    if cov.status == "partial":
        np.save(tmp / f"dense_{name}_done.npy", step.done)
    tables = np.stack([r for r in step.rows[:sizes["tables"]] if r is not None])  # usable: all of them
    probe = probe_sample(sizes["tables"])
    try:  # an unmeasured channel ranks last among the dense channels, it is not dropped
        asked = emb.embed([docs.table_labels[i] for i in probe], "query")
        quality[name] = round(self_retrieval(asked, tables, probe), 4)
    except EmbeddingError as e:
        log(f"build: channel {channel} not probed: {e}")
    budget = budgets.seconds.get(name)
    left = None if budget is None else budget - (budgets.clock() - started)
    if cov.status == "complete" and (left is None or left > 0):
        words[name] = _write_words(tmp, name, emb, vocabulary, left, budgets, log, stop)
    return cov


def _write_words(tmp: Path, name: str, emb: Embedder, vocabulary: list[str], budget_s: float | None,
                 budgets: Budgets, log: Callable[[str], None], stop: threading.Event) -> int:
    """The vocabulary's vectors, each word embedded alone as a question's content words are, in what is
    left of the channel's budget: the rows kept are a prefix of the vocabulary (its most widespread words),
    and a word past them is embedded at query time as before."""
    label = f"{registry.dense(name).manifest} vocabulary"
    step = run_within(label, vocabulary, np.arange(len(vocabulary)), partial(emb.embed, kind="query"),
                      budget_s, budgets, log, stop)
    done = step.done
    n = len(done) if done.all() else int(np.argmin(done))
    if n:
        vecs = np.stack([r for r in step.rows[:n] if r is not None])
        np.save(tmp / f"dense_{name}_words.npy", vecs.astype(np.float16))
    log(f"build: {label}: {n}/{len(vocabulary)} words embedded ({step.seconds:.1f}s)"
        + (f"; {step.reason}" if step.reason else ""))
    return n


def _write_multi(tmp: Path, docs: Documents, name: str, memb: MultiVectorEmbedder, budgets: Budgets,
                 log: Callable[[str], None], stop: threading.Event) -> Coverage:
    texts = docs.table_texts
    channel = str(registry.multi(name).manifest)
    step = run_within(channel, texts, np.arange(len(texts)), partial(memb.embed_multi, kind="document"),
                      budgets.seconds.get(name), budgets, log, stop)
    cov = Coverage(channel, _parts(step.done, {"tables": len(texts)}), step.seconds, step.reason)
    _log_coverage(cov, memb, log)
    if not cov.usable:  # only tables here: a partial late-interaction channel is never kept
        return cov
    blank = np.zeros((1, memb.dim), dtype=np.float32)  # a table with no tokens scores 0
    mats = [m if m is not None and m.shape[0] else blank for m in step.rows]
    offsets = np.cumsum([0] + [m.shape[0] for m in mats]).astype(np.int64)
    np.save(tmp / f"multi_{name}_vectors.npy", np.concatenate(mats).astype(np.float16))
    np.save(tmp / f"multi_{name}_offsets.npy", offsets)
    return cov


def _parts(done: np.ndarray, sizes: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    return {p: (int(done[lo:hi].sum()), n) for (p, n), (lo, hi) in zip(sizes.items(), bounds(sizes), strict=True)}


def _log_coverage(cov: Coverage, emb: Embedder | MultiVectorEmbedder, log: Callable[[str], None]) -> None:
    if cov.status == "absent":
        log(f"build: channel {cov.channel} left out: {cov.reason}")
    else:
        hits, misses = getattr(emb, "hits", None), getattr(emb, "misses", None)  # the API's channels are cached
        log(f"build: {cov.describe()}" + (f"; cache hits {hits}, misses {misses}" if hits is not None else ""))
