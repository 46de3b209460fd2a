"""The stage-1 seam without any engine: the in-process backend is the default and MaxSim on a subset agrees."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from retriever.backends.stage1 import IN_PROCESS, InProcess, backend_record, engine_writer, maxsim
from retriever.config import Settings
from retriever.embedders.interface import HashEmbedder
from retriever.index.store import load_index
from retriever.query.planner import Planner, default_models


def test_the_default_backend_is_in_process_and_recorded(mini_index_dir: Path) -> None:
    index = load_index(mini_index_dir)
    assert backend_record(index.manifest) == IN_PROCESS
    assert backend_record({}) == IN_PROCESS  # an index from before the seam
    assert engine_writer(Settings()) is None
    assert isinstance(Planner(index, default_models()).channels.stage1, InProcess)


def test_maxsim_over_a_subset_equals_the_full_scores_there() -> None:
    emb = HashEmbedder(dim=16)
    mats = emb.embed_multi(["singer name age", "concert stadium capacity year", "pet type", "x"], "document")
    vecs = np.concatenate(mats).astype(np.float32)
    offsets = np.cumsum([0] + [m.shape[0] for m in mats]).astype(np.int64)
    q = emb.embed_multi(["how old is each singer"], "query")[0]
    full = maxsim(vecs, offsets, q, np.arange(len(mats)))
    subset = np.asarray([1, 3])
    assert np.allclose(maxsim(vecs, offsets, q, subset), full[subset])
    assert maxsim(vecs, offsets, q, np.zeros(0, dtype=np.int64)).size == 0


def test_the_questions_own_vector_is_scored_alone_and_many_others_in_one_product() -> None:
    from retriever.backends import stage1

    rng = np.random.default_rng(5)
    m = rng.standard_normal((stage1.BATCH_WORK // 4 + 1, 8)).astype(np.float32)
    qs = rng.standard_normal((5, 8)).astype(np.float32)
    alone = [m @ x for x in qs]
    got = stage1._products(m, qs)  # 4 vectors after the question's on a matrix that big: one product
    assert len(got) == 5
    np.testing.assert_array_equal(got[0], alone[0])  # the question's numbers, with or without names and words
    for g, a in zip(got[1:], alone[1:], strict=True):
        np.testing.assert_allclose(g, a, rtol=1e-4, atol=1e-4)
    small = stage1._products(m[:10], qs)  # too little work to pay for packing: each alone
    for g, a in zip(small, [m[:10] @ x for x in qs], strict=True):
        np.testing.assert_array_equal(g, a)
