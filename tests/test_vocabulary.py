"""The catalog's words embedded at build: a query embeds only the content words the build did not."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from test_partial import Clock, TimedEmbedder, small_catalog
from three_tables import three_tables, three_tables_json

from retriever import runtime
from retriever.config import Settings
from retriever.embedders.interface import HashEmbedder, Kind
from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog
from retriever.index.partial import Budgets
from retriever.index.store import load_index
from retriever.index.vocabulary import VOCABULARY_FILE, catalog_vocabulary, other_number
from retriever.query.lookups import embedded_words


class Spy(HashEmbedder):
    """HashEmbedder that records every text it is asked to embed at query time."""

    def __init__(self, dim: int = 32, name: str = "spy") -> None:
        super().__init__(dim=dim, name=name)
        self.asked: list[list[str]] = []

    def embed(self, texts: Sequence[str], kind: Kind) -> np.ndarray:
        self.asked.append(list(texts))
        return super().embed(texts, kind)


def test_the_vocabulary_holds_names_descriptions_and_values_with_their_other_number_most_widespread_first() -> None:
    data = three_tables_json()
    data["tables"][2]["description"] = "Animals of the zoo"
    vocab = catalog_vocabulary(parse_catalog(data))
    # "id" is too short; numbers and stop words are left out; "customer" is in two tables (the name, and
    # orders.customer_id), so it comes first with its plural.
    assert vocab[:2] == ["customer", "customers"]
    assert {"orders", "order", "amount", "amounts", "species", "red", "panda", "ada", "lovelace",
            "animals", "animal", "zoo", "zoos", "shop", "shops"} <= set(vocab)
    assert not {"id", "the", "of", "1", "30"} & set(vocab)
    # A sample value's word ("Red Panda", "Ada Lovelace") comes as written: no plural of a name.
    assert not {"pandas", "reds", "lovelaces", "adas"} & set(vocab)
    assert len(vocab) == len(set(vocab))
    assert catalog_vocabulary(parse_catalog(data), limit=3) == vocab[:3]


def test_a_word_in_both_a_name_and_a_value_keeps_its_other_number() -> None:
    data = three_tables_json()
    data["tables"][2]["sample_rows"] = [{"id": 1, "species": "Wild Panda"}]
    data["tables"][0]["description"] = "Customers who adopt a panda"
    vocab = catalog_vocabulary(parse_catalog(data))
    assert {"panda", "pandas", "wild"} <= set(vocab)
    assert "wilds" not in vocab


@pytest.mark.parametrize(("word", "other"), [
    ("singer", "singers"), ("singers", "singer"), ("city", "cities"), ("cities", "city"), ("day", "days"),
    ("class", "classes"), ("classes", "class"), ("box", "boxes"), ("match", "matches"), ("status", "statuses"),
])
def test_other_number_follows_english_spelling(word: str, other: str) -> None:
    assert other_number(word) == [other]


def test_the_build_stores_each_word_embedded_alone_and_the_query_embeds_only_the_others(tmp_path: Path) -> None:
    spy = Spy()
    manifest = build_index(three_tables(), tmp_path / "index", dense={"local": spy}, log=lambda _m: None)
    words = json.loads((tmp_path / "index" / VOCABULARY_FILE).read_text(encoding="utf-8"))
    assert manifest["vocabulary"] == {"words": len(words), "embedded": {"local": len(words)}}
    index = load_index(tmp_path / "index")
    assert index.vocabulary == {w: i for i, w in enumerate(words)}
    stored = index.dense_words["local"]
    np.testing.assert_allclose(stored, HashEmbedder(dim=32).embed(words, "query"), atol=1e-3)  # float16 on disk

    question = "Which customers bought giraffes?"
    assert embedded_words(question, index.spelling) == ["customers", "bought", "giraffes"]
    spy.asked.clear()
    got = runtime.query_embedders(Settings(cache_dir=tmp_path / "cache"), index, local=lambda: spy)(question)
    assert spy.asked == [[question, "bought", "giraffes"]], "the catalog's 'customers' is not embedded again"
    fresh = HashEmbedder(dim=32).embed(["customers", "bought", "giraffes"], "query")
    np.testing.assert_allclose(got["words:local"], fresh, atol=1e-3)
    np.testing.assert_array_equal(got["words:local"][0], stored[words.index("customers")])

    # An index without the vocabulary (built before it) embeds every content word with the question.
    index.dense_words.clear()
    spy.asked.clear()
    again = runtime.query_embedders(Settings(cache_dir=tmp_path / "cache"), index, local=lambda: spy)(question)
    assert spy.asked == [[question, "customers", "bought", "giraffes"]]
    np.testing.assert_allclose(again["words:local"], got["words:local"], atol=1e-3)


def test_a_budget_spent_in_the_vocabulary_keeps_its_first_words_and_the_channel_whole(tmp_path: Path) -> None:
    clock = Clock()
    emb = TimedEmbedder(clock, [1.0])  # every call costs a second; 26 texts in chunks of 4 take 7, the probe 1
    manifest = build_index(small_catalog(), tmp_path / "index", dense={"local": emb}, log=lambda _m: None,
                           budgets=Budgets({"local": 10.0}, clock=clock, chunk=4))
    assert manifest["coverage"]["dense:local"]["status"] == "complete"
    kept = manifest["vocabulary"]["embedded"]["local"]
    assert kept == 8 < manifest["vocabulary"]["words"], "two chunks of 4 in the 2 s left"
    index = load_index(tmp_path / "index")
    words = json.loads((tmp_path / "index" / VOCABULARY_FILE).read_text(encoding="utf-8"))
    assert len(index.dense_words["local"]) == kept
    late = words[kept]
    spy = Spy(dim=16, name="timed")
    runtime.query_embedders(Settings(cache_dir=tmp_path / "cache"), index, local=lambda: spy)(f"{words[0]} {late}")
    assert spy.asked == [[f"{words[0]} {late}", late]]


def test_a_vocabulary_longer_than_its_words_is_a_bad_index(tmp_path: Path) -> None:
    from retriever.errors import BadIndexError

    build_index(three_tables(), tmp_path / "index", dense={"local": Spy()}, log=lambda _m: None)
    manifest_path = tmp_path / "index" / "manifest.json"
    (tmp_path / "index" / VOCABULARY_FILE).write_text('["customer"]', encoding="utf-8")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    meta = manifest["files"][VOCABULARY_FILE]
    meta["bytes"] = len('["customer"]')
    from retriever.index.store import sha256_file
    meta["sha256"] = sha256_file(tmp_path / "index" / VOCABULARY_FILE)
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(BadIndexError, match="dense_local_words.npy"):
        load_index(tmp_path / "index")


def test_a_backend_failure_in_the_vocabulary_keeps_the_words_embedded_before_it(tmp_path: Path) -> None:
    clock = Clock()
    emb = TimedEmbedder(clock, [1.0], fail_on=10)  # 7 chunks of documents, the probe, then 2 chunks of words
    logs: list[str] = []
    manifest = build_index(small_catalog(), tmp_path / "index", dense={"local": emb}, log=logs.append,
                           budgets=Budgets(clock=clock, chunk=4))
    assert manifest["coverage"]["dense:local"]["status"] == "complete" and "dense:local" in manifest["channels"]
    assert manifest["vocabulary"]["embedded"] == {"local": 8}
    assert any("vocabulary: 8/" in m and "backend went away" in m for m in logs), logs
    assert len(load_index(tmp_path / "index").dense_words["local"]) == 8
