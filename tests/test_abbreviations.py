"""Abbreviated schema words: which words are abbreviations, which question words they stand for, and a
question in full words finding the abbreviated table, its word counting once."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from test_spelling import LICENCE
from test_thesaurus import write_wordnet

from retriever.index import wordnet as wordnet_db
from retriever.index.abbreviations import abbreviates, abbreviation_words, consonants, run_together, stands_for
from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog
from retriever.index.lexical import LexicalIndex
from retriever.index.spelling import Spelling, build_spelling
from retriever.index.store import load_index
from retriever.query.channels import Channels
from retriever.query.lookups import abbreviated


@pytest.mark.parametrize(("short", "word"), [
    ("cust", "customers"), ("cstmr", "customer"), ("qty", "quantity"), ("amt", "amount"), ("nm", "name"),
    ("dept", "departments"), ("addr", "address"), ("yr", "years"), ("mgr", "manager"), ("sngr", "singers"),
    ("crs", "courses"), ("emp", "employees"), ("cont", "continents")])
def test_the_ways_abbreviations_are_made(short: str, word: str) -> None:
    assert abbreviates(short, word)


@pytest.mark.parametrize(("short", "word"), [
    ("crs", "cars"),       # a plural's "s" is no consonant of the word
    ("cont", "country"),   # the last consonant is not in it
    ("nm", "number"),      # two letters: all the consonants or nothing
    ("usd", "used"),       # one letter dropped is no abbreviation
    ("cust", "cost"), ("xqty", "quantity"), ("qty", "qty")])
def test_what_is_no_abbreviation(short: str, word: str) -> None:
    assert not abbreviates(short, word)


def test_consonants_keep_the_first_letter_and_write_doubles_once() -> None:
    assert consonants("customer") == "cstmr" and consonants("address") == "adrs" and consonants("year") == "yr"


def test_the_abbreviations_are_the_schema_words_no_dictionary_knows() -> None:
    lexicon = frozenset({"customer", "name", "sing", "nm", "ear"})
    got = abbreviation_words(["cust", "nm", "sing", "customer", "for", "ear", "abcdefghij", "x2"], lexicon,
                             frozenset({"custom", "sing"}))
    # `nm` is a word (nanometre) but a vowel-less short one; `sing` and `ear` are words; `for` a stop word.
    assert got == {"cust": "cust", "nm": "nm"}


def write_lexicon(root: Path, words: tuple[str, ...]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.noun").write_text(LICENCE + "".join(f"{w} n 1 0 1 0 00000001  \n" for w in words),
                                     encoding="latin-1")
    return root


def test_a_question_word_finds_the_schema_words_that_shorten_it(tmp_path: Path) -> None:
    sp = build_spelling([["cust", "nm"], ["ord", "qty"], ["customer"]], write_lexicon(tmp_path / "wn", ("customer",)))
    assert dict(sp.abbreviations) == {"cust": "cust", "nm": "nm", "ord": "ord", "qty": "qti"}  # as written -> stem
    assert sp.expansions(["customers", "names", "quantity", "orders", "price"]) == {
        "customers": ["cust"], "names": ["nm"], "quantity": ["qti"], "orders": ["ord"]}
    # Capitalised words are names, query words ask for a computation: neither is expanded.
    assert abbreviated("What is the total quantity of Customers?", sp) == {"quantiti": ["qti"]}
    assert Spelling.from_json(sp.as_json()) == sp
    assert build_spelling([["cust"]], None).abbreviations == {}


def test_an_alias_scores_at_the_idf_of_the_word_it_stands_for() -> None:
    docs = [["cust", "nm"], ["custom", "name"], ["order"], ["order", "item"], ["item"]]  # stems
    lex = LexicalIndex.build(docs)
    plain = lex.term_scores(["custom"])
    rows = lex.term_scores(["custom"], {"custom": ["cust"]})
    # The abbreviated table scores as the spelt-out one does (same length, same term frequency, the word's idf).
    assert rows.shape == plain.shape and rows[0, 1] == plain[0, 1] > 0
    np.testing.assert_allclose(rows[0, 0], rows[0, 1], rtol=1e-6)
    assert (rows[0, 2:] == 0).all()


def test_a_question_in_full_words_finds_the_abbreviated_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_wordnet(tmp_path / "wn")
    monkeypatch.setattr(wordnet_db, "wordnet_dir", lambda: root)
    catalog = parse_catalog({"tables": [
        {"table_id": "shop.cust", "group": "shop", "name": "cust", "columns": ["cust_id", "cust_nm", "ph_num"]},
        {"table_id": "shop.ord", "group": "shop", "name": "ord", "columns": ["ord_id", "cust_id", "ord_qty"]},
        {"table_id": "zoo.animal", "group": "zoo", "name": "animal", "columns": ["species", "weight"]}]})
    build_index(catalog, tmp_path / "idx", log=lambda _m: None)
    channels = Channels(load_index(tmp_path / "idx"))
    ev = channels.evidence("Which customers have orders of the largest quantity?", {}, 60)
    assert ev.terms[:3] == ["custom", "order", "quantiti"], "each question word is one term, as written"
    assert ev.schema_hit[:, :2].any(axis=0).all() and not ev.schema_hit[:, 2].any()
    assert ev.name_match[0] > 0 and ev.name_match[1] > 0
    question = "Which customers have orders of the largest quantity?"
    off = channels.evidence(question, {}, 60, frozenset({"abbreviations"}))
    assert not off.schema_hit.any()


def test_the_lookup_finds_every_abbreviation_the_rules_accept() -> None:
    """Search looks abbreviations up by what they can be (`lookup_keys`), not one by one: it must miss none."""
    rng = random.Random(5)
    words = ["customers", "quantity", "departments", "address", "singers", "continents", "amount", "years",
             "employees", "languages", "manager", "citation", "homepage", "players", "name", "courses"]
    made = {w[:k] for w in words for k in range(2, len(w))} | {consonants(w)[:k] for w in words for k in range(2, 6)}
    noise = {"".join(rng.choice("bcdfghlmnprstyq") for _ in range(rng.randint(2, 6))) for _ in range(3000)}
    pool = sorted(made | noise | {"qty", "amt", "dept", "mgr", "cont"})
    sp = Spelling(abbreviations={a: a for a in pool})
    brute = {w: sorted(a for a in pool if abbreviates(a, w)) for w in words}
    assert sp.expansions(words) == {w: hits for w, hits in brute.items() if hits}
    assert sum(map(len, brute.values())) > 3 * len(words)


def test_run_together_words_split_where_both_sides_stand_for_a_word() -> None:
    lexicon = frozenset({"id", "name", "bal", "dorm", "key", "order", "wash"})
    short = {"cust": "cust", "acct": "acct", "qty": "qti"}
    got = run_together(["custid", "acctbal", "fname", "dormid", "availqty", "orderkey", "order", "zqxwv", "name"],
                       lexicon, frozenset({"avail"}), short)
    assert got["cust"] == ["custid"] and got["acct"] == ["acctbal"] and got["bal"] == ["acctbal"]
    assert got["name"] == ["fname"], "an initial before a word: the word is a piece, the initial none"
    assert got["qty"] == ["availqti"] and got["avail"] == ["availqti"], "stems of the schema words"
    assert got["order"] == ["orderkey"] and got["id"] == ["custid", "dormid"]
    assert "f" not in got and "zq" not in got and not any("zqxwv" in v for v in got.values())
    assert all(w != "order" for v in got.values() for w in v), "an English word is not split"


@pytest.mark.parametrize(("piece", "word", "reads"), [
    ("name", "names", True), ("cust", "customers", True), ("bal", "balance", True), ("qty", "quantity", True),
    ("id", "id", False),   # a piece of two letters stands for no word written out: every `...id` would be one
    ("order", "ordered", True), ("bal", "ball", False)])
def test_a_piece_stands_for_a_question_word_written_out_or_shortened(piece: str, word: str, reads: bool) -> None:
    assert stands_for(piece, word) is reads


def test_a_question_word_finds_the_run_together_schema_words(tmp_path: Path) -> None:
    sp = build_spelling([["custid"], ["fname", "lname"], ["acctbal"], ["cust"]],
                        write_lexicon(tmp_path / "wn", ("id", "name", "bal")))
    assert sp.expansions(["customers", "names", "balance", "first"]) == {
        "customers": ["cust", "custid"], "names": ["fname", "lname"], "balance": ["acctbal"]}
    assert Spelling.from_json(sp.as_json()) == sp
    assert Spelling.from_json({k: v for k, v in sp.as_json().items() if k != "pieces"}).pieces == {}


def test_the_lookup_finds_every_piece_the_rules_accept() -> None:
    rng = random.Random(11)
    words = ["customers", "quantity", "names", "balance", "dates", "orders", "account", "average", "students"]
    made = {w[:k] for w in words for k in range(2, len(w) + 1)} | {consonants(w)[:k] for w in words for k in (2, 3, 4)}
    noise = {"".join(rng.choice("abcdeilmnoqrstuy") for _ in range(rng.randint(2, 7))) for _ in range(3000)}
    pool = sorted(made | noise)
    sp = Spelling(pieces={p: (f"x{p}",) for p in pool})
    brute = {w: sorted(f"x{p}" for p in pool if stands_for(p, w)) for w in words}
    assert sp.expansions(words) == {w: hits for w, hits in brute.items() if hits}


def test_a_question_finds_the_table_whose_columns_run_words_together(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_wordnet(tmp_path / "wn")
    with (root / "index.noun").open("a", encoding="latin-1") as f:
        f.write("id n 1 0 1 0 00000001  \nname n 1 0 1 0 00000001  \n")
    monkeypatch.setattr(wordnet_db, "wordnet_dir", lambda: root)
    catalog = parse_catalog({"tables": [
        {"table_id": "hr.emp", "group": "hr", "name": "emp", "columns": ["empid", "fname", "lname", "hiredate"]},
        {"table_id": "zoo.animal", "group": "zoo", "name": "animal", "columns": ["species", "weight"]}]})
    build_index(catalog, tmp_path / "idx", log=lambda _m: None)
    channels = Channels(load_index(tmp_path / "idx"))
    question = "Which employees have the longest names?"
    ev = channels.evidence(question, {}, 60)
    assert ev.schema_hit[:, 0].sum() == 2 and not ev.schema_hit[:, 1].any()
    off = channels.evidence(question, {}, 60, frozenset({"abbreviations"}))
    assert off.schema_hit[:, 0].sum() < 2


def test_a_split_read_on_both_sides_rules_out_the_others() -> None:
    lexicon = frozenset({"key", "word", "name", "dna", "me"})
    got = run_together(["keyword", "dname"], lexicon, frozenset(), {"ord": "ord"})
    assert "ord" not in got and "keyw" not in got, "`key|word` reads whole: `keyw|ord` is no split"
    assert got["key"] == got["word"] == ["keyword"] and got["name"] == ["dname"], "an initial and a word"
