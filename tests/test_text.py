"""Tokenizer: identifier splitting, stemming, stop words and sample-value keys."""

from __future__ import annotations

import pytest

from retriever.index.text import (
    COMMANDS,
    STOPWORDS,
    drop_commands,
    plain_quotes,
    schema_tokens,
    split_identifier,
    stem,
    tokenize,
    value_key,
    words,
)


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
    ("StudentIDs", "Student IDs"),
    ("the URLs", "the URLs"),
    ("HTTPServers", "HTTP Servers"),
])
def test_split_identifier(ident: str, split: str) -> None:
    assert split_identifier(ident) == split


def test_words_lowercase_split_and_keep_stop_words() -> None:
    assert words("Ref_Document_Types") == ["ref", "document", "types"]
    assert words("Show the PetTypeID, please!") == ["show", "the", "pet", "type", "id", "please"]
    assert words("snake_case__double") == ["snake", "case", "double"]


def test_acronym_plurals_and_number_endings_make_no_terms_of_their_own() -> None:
    # "IDs" split as "I Ds" made a term "ds" no table holds, at the rarest idf: the question's unexplained share.
    assert tokenize("Give the IDs of all students") == ["give", "id", "student"]
    assert tokenize("the 3rd place in the 1990s, 21st and 2nd") == ["3", "place", "1990", "21", "2"]
    assert words("1st_quarter_payroll") == ["1", "quarter", "payroll"]
    assert words("Top10Songs") == ["top", "10", "songs"]  # a digit before a word is no ordinal


def test_words_normalise_unicode_compatibility_forms() -> None:
    assert words("\ufb01sh \uff21\uff22\uff23") == ["fish", "abc"]
    assert words("café_Owner") == ["café", "owner"]


def test_typographic_quotes_read_as_typed_ones() -> None:
    typed = "What\u2019s Kyle\u2019s id in \u201cHey Jude\u201d or \u2018USA\u2019 or \u00abParis\u00bb?"
    assert plain_quotes(typed) == "What's Kyle's id in \"Hey Jude\" or 'USA' or \"Paris\"?"
    assert words("Kyle\u2019s \u201cband\u201d") == words("Kyle's \"band\"")


def test_stemming_conflates_inflections() -> None:
    assert stem("students") == stem("student")
    assert stem("courses") == stem("course")
    assert stem("running") == stem("runs") == "run"
    assert tokenize("Top10Songs") == ["top", "10", stem("song")]


def test_tokenize_drops_stop_words_and_keeps_command_words() -> None:
    toks = tokenize("Show the names of all students and list their courses")
    assert toks == [stem("show"), stem("names"), stem("students"), stem("list"), stem("courses")]
    for w in ("the", "of", "which", "what", "how", "please"):
        assert w in STOPWORDS
        assert tokenize(w) == []
    # A table named `list` or `shows` keeps its name.
    assert tokenize("TV_Show") == ["tv", "show"] and "list" in COMMANDS


@pytest.mark.parametrize(("question", "terms"), [
    ("Show the names of all students and list their courses", ["name", "student", "cours"]),
    ("Please list the movies in the movie list 250", ["movi", "movi", "list", "250"]),
    ("How many shows are there? Give me the count.", ["mani", "show", "count"]),
    ("What is the return date, and find the TV show titles", ["return", "date", "tv", "show", "titl"]),
    ("Can you display the list_id of each list?", ["list", "id", "list"]),
    ("Give me a list of the names of all shows", ["name", "show"]),
    # "Count", "the count of" and "the number of" ask for a count; "the room number" names a column.
    ("Count the number of employees", ["employe"]),
    ("What is the total number of singers?", ["total", "singer"]),
    ("What is the phone number of the customer?", ["phone", "number", "custom"]),
    ("Show the room number and the count of beds", ["room", "number", "bed"]),
    ("What is the player's name? And the players' teams?", ["player", "name", "player", "team"]),
    # BIRD's requests: "Calculate", "Provide", "Indicate" command; "indicators" is a table's word.
    ("Calculate the share of indicators. Please provide the names and indicate the year.",
     ["share", "indic", "name", "year"]),
])
def test_command_words_command_only_at_a_clause_start_or_after_a_lead_word(question: str, terms: list[str]) -> None:
    assert tokenize(drop_commands(question)) == terms


def test_schema_names_lose_single_letters_but_not_digits() -> None:
    # TPC-H prefixes would make every initial of a question ("S K L Enterprises") a term of the table.
    assert schema_tokens("s_name") == [stem("name")]
    assert schema_tokens("l_orderkey") == [stem("orderkey")]
    assert schema_tokens("address_2") == [stem("address"), "2"]
    assert tokenize("s_name") == ["s", stem("name")]


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
