"""Tokenizer: identifier splitting, stemming, stop words and sample-value keys."""

from __future__ import annotations

import pytest

from retriever.index.text import STOPWORDS, split_identifier, stem, tokenize, value_key, words


@pytest.mark.parametrize(("ident", "split"), [
    ("student_id", "student id"),
    ("camelCaseName", "camel Case Name"),
    ("PetTypeID_2", "Pet Type ID 2"),
    ("HTTPServerError", "HTTP Server Error"),
    ("XMLHttpRequest", "XML Http Request"),
    ("StuID", "Stu ID"),
    ("ID", "ID"),
    ("Top10Songs", "Top 10 Songs"),
    ("address2line", "address 2 line"),
    ("lettergrade", "lettergrade"),
])
def test_split_identifier(ident: str, split: str) -> None:
    assert split_identifier(ident) == split


def test_words_lowercase_split_and_keep_stop_words() -> None:
    assert words("Ref_Document_Types") == ["ref", "document", "types"]
    assert words("Show the PetTypeID, please!") == ["show", "the", "pet", "type", "id", "please"]
    assert words("snake_case__double") == ["snake", "case", "double"]


def test_words_normalise_unicode_compatibility_forms() -> None:
    assert words("\ufb01sh \uff21\uff22\uff23") == ["fish", "abc"]
    assert words("café_Owner") == ["café", "owner"]


def test_stemming_conflates_inflections() -> None:
    assert stem("students") == stem("student")
    assert stem("courses") == stem("course")
    assert stem("running") == stem("runs") == "run"
    assert tokenize("Top10Songs") == ["top", "10", stem("song")]


def test_tokenize_drops_stop_words_and_question_scaffolding() -> None:
    toks = tokenize("Show the names of all students and list their courses")
    assert toks == [stem("names"), stem("students"), stem("courses")]
    for w in ("show", "list", "the", "of", "which", "what", "how"):
        assert w in STOPWORDS
        assert tokenize(w) == []


def test_tokenize_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("?!, -- ...") == []


@pytest.mark.parametrize(("value", "key"), [
    ("New  York", "new york"),
    (" O'Brien ", "o brien"),
    ("Linear_Algebra", "linear algebra"),
    ("ÉCOLE", "école"),
    (3.5, "3 5"),
    (100, "100"),
    ("", ""),
])
def test_value_key(value: object, key: str) -> None:
    assert value_key(value) == key


def test_value_key_matches_question_words() -> None:
    """A quoted value in a question must produce the same key as the stored value."""
    question = words('Which dorms are in "Smith Hall"?')
    key = value_key("Smith Hall")
    assert key in " ".join(question)
